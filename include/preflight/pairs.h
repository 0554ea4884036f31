/* SPDX-License-Identifier: MIT */
/*
 * pairs.h - schedules of pairs and the triangulation of what they measured,
 * with no I/O (src/pairs, below checks): the rounds of node pairs of
 * `preflight mesh` (schedule.c), the triangulation of a pairwise matrix
 * into suspects (triage.c, used by mesh's judge and the fleet's mesh view),
 * the compatibility of two nodes' rail i before mesh pairs them (compat.c)
 * and the ring rounds and slow-end naming of fabric_loopback (ring.c).
 * docs/mesh.md.
 */
#ifndef PREFLIGHT_PAIRS_H
#define PREFLIGHT_PAIRS_H

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
	PF_MESH_NODE,   /* slow on every rail with every partner: the host side */
	PF_MESH_RAIL,   /* one rail slow with every partner: NIC, port or cable */
	PF_MESH_PATH,   /* a pair slow only to each other: the path between */
	PF_MESH_FABRIC, /* a rail index bad on half the nodes or more: the fabric, no node */
};

enum pf_mesh_dir {
	PF_MESH_TX = 1,  /* what the node (or the path's a) sends */
	PF_MESH_RX = 2,  /* what it receives */
	PF_MESH_BOTH = 3,
};

struct pf_mesh_suspect {
	enum pf_mesh_kind kind;
	enum pf_mesh_dir dir;
	uint32_t node, peer; /* peer: PF_MESH_PATH only; node: UINT32_MAX for PF_MESH_FABRIC */
	uint32_t rail;       /* UINT32_MAX: all rails (PF_MESH_NODE) */
	double ratio;        /* mean of its slow measurements / healthy median */
	size_t n_slow, n_seen;
	/* PF_MESH_FABRIC: nodes whose rail is bad (in its worst direction), of those measured */
	uint32_t n_nodes_bad, n_nodes;
};

struct pf_mesh_triage {
	double healthy_median; /* median of the measurements judged healthy */
	struct pf_mesh_suspect *suspects; /* worst ratio first */
	size_t n;
};

/* A measurement below this fraction of the healthy median is slow. */
#define PF_MESH_SLOW_FRACTION 0.7
/* A rail index bad on at least this fraction of its nodes (and two) is the fabric's. */
#define PF_MESH_FABRIC_FRACTION 0.5

/*
 * Judge @n observations of one run among themselves (never against fixed
 * numbers): the healthy median is that of the measurements at or above
 * @fraction of the median over nodes of each node's best measurement (which
 * stays healthy while fewer than half the nodes are bad, even where most
 * pairs are slow); a measurement below @fraction of the
 * healthy median is slow.  A (node, rail, direction) needs two partners or
 * more, all slow, to be named.  A rail index so on PF_MESH_FABRIC_FRACTION
 * of the nodes measured on it or more (two nodes at least, counted in its
 * worse direction) is one PF_MESH_FABRIC suspect and no rail suspect of
 * any node: a switch, a leaf or a setting of the fabric, no node's fault.
 * A node slow so on every other rail it has (two or more) is named as the
 * node; a slow measurement no fabric, rail or node explains names the
 * path.  -EINVAL when nothing was measured.
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

/*
 * What mesh pairs: rail i of one node with rail i of another (compat.c).
 * An identity as a node's rail table states it; NULL (or "unknown" for the
 * link layer) is not known and never makes a pair incomparable.
 */
struct pf_rail_ident {
	const char *device;     /* for the why */
	const char *link_layer; /* "InfiniBand", "Ethernet" */
	const char *role;       /* "compute", "storage", ... */
	const char *subnet;     /* IPv4 subnet of its netdev, "10.1.0.0/24" */
	const char *ib_subnet;  /* InfiniBand GID subnet prefix */
	bool by_nics;           /* chosen by name (`mesh --nics`), whatever its role */
};

enum pf_rail_compat {
	PF_RAIL_SAME,   /* comparable: run the flow, judge what it measures */
	PF_RAIL_ROUTED, /* the subnets differ: run it; not comparable if it cannot connect */
	PF_RAIL_APART,  /* link layers or roles differ: not run, not comparable */
};

/*
 * Decide whether rail @rail of rank @ra (@a) and of rank @rb (@b) can be
 * compared: link layers must match and roles be compute on both (any role
 * when both were named with --nics); differing IPv4 subnets, or differing
 * IB subnet prefixes on InfiniBand, are PF_RAIL_ROUTED, as a routed fabric
 * gives each leaf its own subnet by design; the rate may differ (the
 * measurement is scaled, pf_mesh_obs_scale()).  @why (may be NULL) gets the
 * reason for anything but PF_RAIL_SAME, device names cut to 32 bytes.
 */
enum pf_rail_compat pf_rail_compat(const struct pf_rail_ident *a, uint32_t ra,
				   const struct pf_rail_ident *b, uint32_t rb, uint32_t rail,
				   char *why, size_t len);
/*
 * Is a flow of compatibility @c that ended at stage @stage (NULL: it ran)
 * not comparable: PF_RAIL_APART always; PF_RAIL_ROUTED when it never
 * connected (address, route or connection stage) although both ends' rails
 * carried a flow with another partner of the run (@both_carried): then it
 * is the routing between the two subnets, not either rail.  A rail that
 * connected with nobody is dead, routed or not: its failures stay evidence.
 */
bool pf_rail_not_comparable(enum pf_rail_compat c, const char *stage, bool both_carried);
const char *pf_mesh_dir_name(enum pf_mesh_dir d);

/*
 * Directed flows between the ends of one node or run (fabric_loopback's
 * rails): what the ring rounds plan and what the slow-end rule reads.
 */
struct pf_pair_flow {
	size_t a, b;   /* ends: @a sends to @b */
	int round;     /* 1-based */
	bool measured; /* it ran and gave a figure */
	bool slow;     /* measured, and below what its ends should carry */
};

/*
 * The ring rounds over @n ends into @out (room for 2 * @n): round 1 sends
 * i -> i+1, round 2 i -> i+2 (mod @n) when @n > 2, so every end sends and
 * receives in each round.  Returns the count of flows.
 */
size_t pf_pairs_ring(size_t n, struct pf_pair_flow *out);
/*
 * The first round (1-based) of the @n flows @f in which @a sends nothing
 * and @b receives nothing: an end carries one flow each way per round.
 */
int pf_pairs_free_round(const struct pf_pair_flow *f, size_t n, size_t a, size_t b);
/*
 * The distinct partners of end @x among the measured flows of @f (only the
 * slow ones with @slow_only) into @out, which has room for every end;
 * returns their count.
 */
size_t pf_pairs_partners(const struct pf_pair_flow *f, size_t n, size_t x, bool slow_only,
			 size_t *out);
/* Does end @y run at full rate with some end other than @x? */
bool pf_pairs_fine_elsewhere(const struct pf_pair_flow *f, size_t n, size_t y, size_t x);
/*
 * The slow-end rule: end @x is to blame when it is slow with two or more
 * partners of which two or more run at full rate with the other ends.
 * @n_ends bounds the ends' indices; *ret_n_slow (may be NULL) gets its slow
 * partners.
 */
bool pf_pairs_slow_end(const struct pf_pair_flow *f, size_t n, size_t n_ends, size_t x,
		       size_t *ret_n_slow);

#endif
