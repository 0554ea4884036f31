/* SPDX-License-Identifier: MIT */
/*
 * mesh_plan.h - what `preflight mesh` measures and how it judges it, with no
 * I/O: the schedule of node pairs (mesh_schedule.c) and the triangulation of
 * a pairwise matrix into suspects (mesh_triage.c).  docs/mesh.md.
 */
#ifndef PREFLIGHT_MESH_PLAN_H
#define PREFLIGHT_MESH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Up to this many nodes the schedule is the full round-robin tournament. */
#define PF_MESH_EXHAUSTIVE_MAX 16

struct pf_mesh_pair {
	uint32_t a, b; /* ranks, a < b */
};

struct pf_mesh_round {
	struct pf_mesh_pair *pairs; /* disjoint: no rank twice in a round */
	size_t n;
};

struct pf_mesh_schedule {
	struct pf_mesh_round *rounds;
	size_t n_rounds;
	bool exhaustive; /* every pair exactly once */
	uint32_t size;
};

/*
 * The rounds for @size ranks.  @size <= @exhaustive_max: the circle method
 * (size-1 rounds, or size with one bye each when odd), every pair once.
 * Larger: ring neighbours (i, i+1), the ring's opposite (i, i+size/2) and
 * the ring of a permutation seeded by @seed, each split into at most 3
 * rounds of disjoint pairs, no pair twice: at most 9 rounds and 6 partners
 * per rank whatever @size is.  -EINVAL for @size < 2 or past 65536.
 */
int pf_mesh_schedule_build(uint32_t size, uint32_t exhaustive_max, uint64_t seed,
			   struct pf_mesh_schedule *s);
void pf_mesh_schedule_release(struct pf_mesh_schedule *s);

/* One measurement: @src sent to @dst on rail @rail (rail i to rail i). */
struct pf_mesh_obs {
	uint32_t src, dst, rail;
	double value; /* throughput, higher is better; 0: dead; NaN: not measured */
};

enum pf_mesh_kind {
	PF_MESH_NODE, /* slow on every rail with every partner: the host side */
	PF_MESH_RAIL, /* one rail slow with every partner: NIC, port or cable */
	PF_MESH_PATH, /* a pair slow only to each other: the path between */
};

enum pf_mesh_dir {
	PF_MESH_TX = 1,  /* what the node (or the path's a) sends */
	PF_MESH_RX = 2,  /* what it receives */
	PF_MESH_BOTH = 3,
};

struct pf_mesh_suspect {
	enum pf_mesh_kind kind;
	enum pf_mesh_dir dir;
	uint32_t node, peer; /* peer: PF_MESH_PATH only */
	uint32_t rail;       /* UINT32_MAX: all rails (PF_MESH_NODE) */
	double ratio;        /* mean of its slow measurements / healthy median */
	size_t n_slow, n_seen;
};

struct pf_mesh_triage {
	double healthy_median; /* median of the measurements judged healthy */
	struct pf_mesh_suspect *suspects; /* worst ratio first */
	size_t n;
};

/* A measurement below this fraction of the healthy median is slow. */
#define PF_MESH_SLOW_FRACTION 0.7

/*
 * Judge @n observations of one run among themselves (never against fixed
 * numbers): the healthy median is that of the measurements at or above
 * @fraction of the median over nodes of each node's best measurement (which
 * stays healthy while fewer than half the nodes are bad, even where most
 * pairs are slow); a measurement below @fraction of the
 * healthy median is slow.  A (node, rail, direction) needs two partners or
 * more, all slow, to be named; a node slow so on every rail it has (two or
 * more) is named as the node; a slow measurement no rail or node explains
 * names the path.  -EINVAL when nothing was measured.
 */
int pf_mesh_triangulate(const struct pf_mesh_obs *obs, size_t n, double fraction,
			struct pf_mesh_triage *t);
void pf_mesh_triage_release(struct pf_mesh_triage *t);
/*
 * Scale each measurement's value to the run's fastest port by the slower
 * end's port rate, @rate(@data, rank, rail) in Gb/s (0 unknown: left as it
 * is), so that a 200G port beside 400G ones is not slow for running at
 * half.  A run of one port rate is unchanged.
 */
void pf_mesh_obs_scale(struct pf_mesh_obs *obs, size_t n,
		       double (*rate)(void *data, uint32_t rank, uint32_t rail), void *data);

const char *pf_mesh_kind_name(enum pf_mesh_kind k);
const char *pf_mesh_dir_name(enum pf_mesh_dir d);

#endif
