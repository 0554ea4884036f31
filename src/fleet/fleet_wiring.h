/* SPDX-License-Identifier: MIT */
/*
 * fleet_wiring.h - `preflight fleet`'s wiring view: does rail i of every
 * node plug in where the other nodes' rail i does (docs/rails.md
 * "Wiring")?  Private to src/fleet: fleet_wiring.c reads the rail tables
 * (a run report's node.rails, a mesh report's rendezvous table) into one
 * record per (host, rail index) and judges them; fleet_wiring_view.c shows
 * the result as JSON, text, CSV rows and drain commands.
 *
 * The rule, per rail index i: the nodes that report rail i are grouped by
 * where it plugs in -- its IPv4 subnet (RoCE, IPoIB), else its InfiniBand
 * GID subnet prefix, else its LLDP neighbour's chassis: the first of these
 * kinds whose largest group holds more than half of those nodes (at least
 * FL_WIRE_MIN_NODES of them report rail i), and tells rails apart (not the one key of every
 * rail index: a flat fabric says nothing about wiring), judges rail i.  A node whose rail i has a key outside that
 * group is miswired; when its key is rail j's group, it sits with the other
 * nodes' rail j (a swapped pair of cables shows as rail i <-> j).  Rails are
 * compared by index, never by device name, so node types that name their
 * rails differently mix freely.
 */
#ifndef PREFLIGHT_FLEET_WIRING_H
#define PREFLIGHT_FLEET_WIRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "strmap.h"

/* Bounds on what a report may carry (larger is refused as malformed). */
#define FL_WIRE_RAILS_MAX 64    /* rail indices 0..63, as mesh's tables */
#define FL_WIRE_PORTS_MAX 1024  /* entries of one node.rails table */
#define FL_WIRE_RANKS_MAX 65536 /* ranks of one mesh table */
#define FL_WIRE_STR_MAX 256     /* bytes of a device, subnet, chassis, host */
/* A rail index is judged only when at least this many nodes report it. */
#define FL_WIRE_MIN_NODES 3

/* Where a port plugs in, in the order the rule prefers. */
enum fl_wire_by {
	FL_WIRE_SUBNET,    /* IPv4 subnet of its netdev */
	FL_WIRE_IB_SUBNET, /* InfiniBand GID subnet prefix */
	FL_WIRE_LLDP,      /* LLDP neighbour's chassis */
	FL_WIRE_BY_COUNT,
};

/* One compute rail of one node, as read (strings cleaned; "" unknown). */
struct fl_wire_rec {
	char *host;
	uint32_t rail;
	char *device;
	uint32_t port;          /* 0 unknown */
	char *link_layer;
	char *key[FL_WIRE_BY_COUNT];
	uint32_t source;        /* the table it came from */
};

/* A rail index's largest group by one kind of key. */
struct fl_wire_group {
	const char *key;         /* its key (a record's), NULL none */
	size_t in_group;         /* nodes in it */
	size_t have;             /* nodes with a key of this kind */
};

/* What a rail index came to. */
struct fl_wire_rail {
	uint32_t rail;
	size_t nodes;            /* nodes that report it */
	struct fl_wire_group groups[FL_WIRE_BY_COUNT];
	/* the kind it was judged by, else the first most nodes have */
	enum fl_wire_by by;      /* FL_WIRE_BY_COUNT: none */
	const char *group;       /* that kind's largest group, NULL none */
	size_t in_group;         /* ... its nodes */
	size_t unknown;          /* nodes without a key of that kind */
	bool judged;
	char why[200];           /* why not, when !judged */
};

struct fl_wire_miswired {
	const struct fl_wire_rec *rec;
	enum fl_wire_by by;      /* the rail's kind of key */
	const char *sits_in;     /* the port's key */
	const char *should;      /* the rail's group key */
	int32_t sits_with;       /* the rail index whose group holds it, -1 none */
	bool swapped;            /* and that rail's port sits with this rail's group */
};

struct fl_wire_err {
	char *origin, *reason;
};

struct fl_wire_source {
	size_t node;             /* the fleet's node of a run report; SIZE_MAX a mesh table */
};

struct fl_wiring {
	struct fl_wire_rec *recs;
	size_t n_recs, cap_recs;
	struct fl_wire_source *sources;
	size_t n_sources, cap_sources;
	struct pf_strmap mesh_hosts; /* hosts some mesh table already gave */
	struct fl_wire_err *errs;
	size_t n_errs, cap_errs;
	/* derived by fl_wiring_finish() */
	size_t n_hosts;          /* distinct hosts judged from */
	struct fl_wire_rail *rails; /* by rail index, 0..n_rails-1 */
	size_t n_rails;
	struct fl_wire_miswired *mis; /* by host, then rail */
	size_t n_mis, cap_mis;
	size_t n_mis_hosts;      /* distinct hosts among them */
};

struct fl_wiring *fl_wiring_new(void);
void fl_wiring_free(struct fl_wiring *w);

/* A new source of records: a run report of the fleet's node @node, or (SIZE_MAX) a mesh table. */
uint32_t fl_wiring_source(struct fl_wiring *w, size_t node);
/*
 * Add one node's rail @rail from @source; the strings are copied and
 * cleaned (NULL: unknown).  The caller keeps (host, rail) unique per source.
 */
void fl_wiring_add(struct fl_wiring *w, uint32_t source, const char *host, uint32_t rail,
		   const char *device, uint32_t port, const char *link_layer,
		   const char *const key[FL_WIRE_BY_COUNT]);

/*
 * Read the rail tables of one accepted report (@root): its node.rails as the
 * fleet's node @node named @host, and every mesh check's rendezvous table.
 * A malformed table is refused whole, recorded with @origin and the reason.
 */
void fl_wiring_add_report(struct fl_wiring *w, const cJSON *root, size_t node, const char *host,
			  const char *origin);

/*
 * Judge.  @superseded[k] (k < @n_nodes) says the fleet's node k was replaced
 * by a newer report: its records are not used.  Per host, a run report's
 * table wins over a mesh table, the first mesh table over later ones.
 */
void fl_wiring_finish(struct fl_wiring *w, const bool *superseded, size_t n_nodes);

/* "subnet", "ib_subnet", "lldp". */
const char *fl_wire_by_name(enum fl_wire_by by);
/* The miswired port's story in words (caller frees). */
char *fl_wire_mis_why(const struct fl_wire_miswired *m);

/* Views (fleet_wiring_view.c). */
cJSON *fl_wiring_to_json(const struct fl_wiring *w);
void fl_wiring_render_text(const struct fl_wiring *w, FILE *out);
/* kind "miswired" rows: host, "wiring", device:port, "miswired", by, rail, group, why. */
void fl_wiring_render_csv(const struct fl_wiring *w, FILE *out,
			  void (*row)(FILE *out, const char *const cells[9]));
/*
 * One scontrol line per miswired host (printed, never run) that is one plain
 * node name and a key of @own (the reports' own node.hostname values); the
 * hosts counted.
 */
size_t fl_wiring_render_drain(const struct fl_wiring *w, const struct pf_strmap *own, FILE *out);

#endif
