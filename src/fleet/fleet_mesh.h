/* SPDX-License-Identifier: MIT */
/*
 * fleet_mesh.h - `preflight fleet` over `preflight mesh` reports: the
 * rendezvous tables and the pairwise measurements of every report merged
 * into one matrix (the same on every rank), triangulated by the fleet
 * itself (src/pairs/triage.c), never taken from one node's own suspects, and
 * shown as a ranked suspect list (docs/mesh.md "The fleet view").  Private
 * to src/fleet: fleet_mesh.c reads and judges, fleet_mesh_view.c shows.
 */
#ifndef PREFLIGHT_FLEET_MESH_H
#define PREFLIGHT_FLEET_MESH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "preflight/pairs.h"
#include "strmap.h"

/* The most ranks and rails a fleet reads from a mesh report. */
#define FL_MESH_RANKS_MAX 65536
#define FL_MESH_RAILS_MAX 64
/* The most not_comparable or untested records of one report, and a string's length in one. */
#define FL_MESH_NOTES_MAX 65536
#define FL_MESH_NOTE_LEN 512
/* The most suspects the text and JSON views list, worst first (the counts stay exact). */
#define FL_MESH_LIST_MAX 1000

struct fl_mesh_meas {
	uint32_t round, src, dst, rail;
	double gbps;          /* 0 when the measurement failed (error) */
	char *src_dev, *dst_dev, *error; /* cleaned; "" when absent */
	char *stage;          /* where it failed, cleaned; "" when absent */
};

/* What a rank's table says of one rail: what pf_rail_compat() compares. */
struct fl_mesh_ident {
	char *link_layer, *role, *subnet, *ib_subnet; /* cleaned, cut; NULL unknown */
	bool by_nics;
};

struct fl_mesh_rank {
	char *host;     /* cleaned; "" until a table names it */
	char *host_other; /* another host a later table named for it (first seen), or NULL */
	char *why;      /* why it did not arrive (first seen) */
	bool in_table;  /* some table lists it */
	bool arrived;   /* some table says it arrived */
	bool reported;  /* a report of its own was read */
	char **devs;    /* its rail devices, by rail index (NULL: unknown) */
	double *rates;  /* their port rates in Gb/s, 0 unknown */
	size_t n_devs;
	struct fl_mesh_ident *ids; /* their identities, n_ids of them (NULL: unknown) */
	size_t n_ids;
	size_t sent;    /* measurements it sent */
};

enum fl_mesh_kind {
	FL_MESH_MISSING = 16, /* never arrived at the rendezvous */
	FL_MESH_SILENT,       /* arrived, but no measurement of its sends exists */
};

struct fl_mesh_suspect {
	int kind;              /* enum pf_mesh_kind or enum fl_mesh_kind */
	enum pf_mesh_dir dir;  /* 0 for missing and silent */
	uint32_t rank, peer;   /* peer: paths only */
	uint32_t rail;         /* UINT32_MAX: every rail */
	double ratio;          /* to the healthy median; NAN for missing/silent */
	size_t n_slow, n_seen;
	uint32_t n_nodes_bad, n_nodes; /* PF_MESH_FABRIC: its rail bad on so many nodes of */
	const char *error;     /* paths: the first error between its ends on its rail, or "" */
};

/* A report's record of a pair not comparable, or of a rail left untested. */
struct fl_mesh_note {
	bool untested;         /* else not comparable */
	uint32_t round, rank, peer, rail; /* round and peer: not comparable only */
	char *device, *peer_device, *why; /* cleaned */
};

struct fl_mesh_err {
	char *origin, *reason;
};

struct fl_mesh {
	double fraction;        /* slow below fraction x the healthy median */
	size_t n_reports;       /* reports holding a "mesh" check */
	uint32_t size;          /* ranks in the run, 0 until a table is read */
	struct fl_mesh_rank *ranks;
	struct fl_mesh_meas *meas;
	size_t n_meas, cap_meas;
	size_t n_dupes;         /* the same (round, src, dst, rail) again */
	size_t n_conflicts;     /* ... with another value: the first is kept */
	struct pf_strmap keys;  /* "round/src/dst/rail" -> index into meas */
	struct fl_mesh_err *errs;
	size_t n_errs, cap_errs;
	struct fl_mesh_note *notes; /* shown, never judged: the judge reads the tables */
	size_t n_notes, cap_notes;
	struct pf_strmap note_keys;
	size_t n_not_comparable; /* measurements left out of the triangulation */
	/* the run, as mesh recorded it (its "job_id" and "nodelist"), first seen; NULL absent */
	char *job_id, *nodelist;
	bool runs_differ;       /* a report of another job id or nodelist was merged */
	/* derived by fl_mesh_finish() */
	bool judged;            /* the triangulation ran */
	const char *not_judged; /* why not, when !judged */
	double healthy;         /* the healthy median, Gb/s */
	struct fl_mesh_suspect *sus;
	size_t n_sus, cap_sus;
	/* [rank * n_rails + rail]: the first measurement naming its device as sender
	 * (tx) or receiver (rx), UINT32_MAX none; what fl_mesh_dev() reads */
	uint32_t *first_tx, *first_rx;
	uint32_t n_rails;
};

/*
 * Merge the "mesh" check @chk of the accepted report @origin.  Malformed
 * observations are refused as a whole (nothing of this report merged),
 * recorded with the reason and the origin; the report itself stays read.
 */
void fl_mesh_add_check(struct fl_mesh *m, const cJSON *chk, const char *origin);
/*
 * Judge the merged matrix: missing and silent ranks, then triangulation of
 * the measurements whose rails are comparable (pf_rail_compat() on the
 * tables, not on what a report says of them).
 */
void fl_mesh_finish(struct fl_mesh *m);
void fl_mesh_free(struct fl_mesh *m);

/* The rank's host ("rank N" when unknown) and the rail's device of @rank (after finish). */
const char *fl_mesh_host(const struct fl_mesh *m, uint32_t rank, char *buf, size_t len);
const char *fl_mesh_dev(const struct fl_mesh *m, uint32_t rank, uint32_t rail, int dir);
const char *fl_mesh_kind_name(int kind);

/* Views (fleet_mesh_view.c). */
cJSON *fl_mesh_to_json(const struct fl_mesh *m);
void fl_mesh_render_text(const struct fl_mesh *m, FILE *out);
/* kind "suspect" rows: host, "mesh", rail device, kind, dir, ratio, median, why. */
void fl_mesh_render_csv(const struct fl_mesh *m, FILE *out,
			void (*row)(FILE *out, const char *const cells[9]));
/*
 * The scontrol commands for node and rail suspects and missing ranks: only
 * for a host in @own (the reports' own node.hostname values) that every
 * table of the run, and its nodelist when recorded, give the rank.
 */
void fl_mesh_render_drain(const struct fl_mesh *m, const struct pf_strmap *own, FILE *out);

#endif
