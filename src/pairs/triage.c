// SPDX-License-Identifier: MIT
/*
 * triage.c - from a pairwise matrix of one run to suspects
 * (include/preflight/pairs.h): a (node, rail, direction) slow with every partner
 * is that NIC, port or cable; a rail index so on half its nodes or more is
 * the fabric's (one suspect, no node's); a node so on every rail is its
 * host side; a slow measurement neither end explains is the path between
 * them.  Judged against the run's own healthy median, never a fixed number.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/pairs.h"

#define TRI_NODES_MAX 65536
#define TRI_RAILS_MAX 64

/* Per (node, rail, direction): what was seen and how much of it was slow. */
struct tri_cell {
	size_t seen, slow;
	double slow_sum;
	uint32_t partner; /* the first partner */
	bool many;        /* a second, different partner too */
};

struct tri {
	const struct pf_mesh_obs *obs;
	size_t n;
	uint32_t nodes, rails;
	double healthy, limit;
	struct tri_cell *cells; /* [(node * rails + rail) * 2 + (dir - 1)] */
	bool *slow;
	bool *fabric; /* [rail]: a fabric suspect explains the rail */
	struct pf_mesh_triage *out;
	/* path suspects by (pair, rail): open addressing, key + 1 (0 empty) */
	uint64_t *path_keys;
	size_t *path_idx;
	size_t path_cap; /* a power of two above twice the measurements */
};

static int tri_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of the measured values at or above @floor; NaN if none. */
static double tri_median(const struct pf_mesh_obs *obs, size_t n, double floor)
{
	double *v = malloc((n ? n : 1) * sizeof(*v)), m = NAN;
	size_t k = 0;

	if (!v)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!isnan(obs[i].value) && obs[i].value >= floor)
			v[k++] = obs[i].value;
	if (k) {
		qsort(v, k, sizeof(*v), tri_cmp_double);
		m = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return m;
}

static struct tri_cell *tri_cell(struct tri *t, uint32_t node, uint32_t rail, int dir)
{
	return &t->cells[((size_t)node * t->rails + rail) * 2 + (size_t)(dir - 1)];
}

static void tri_count(struct tri_cell *c, uint32_t partner, bool slow, double v)
{
	if (c->seen && c->partner != partner)
		c->many = true;
	if (!c->seen)
		c->partner = partner;
	c->seen++;
	if (slow) {
		c->slow++;
		c->slow_sum += v;
	}
}

/* Slow with every partner, and there were two partners or more. */
static bool tri_bad(const struct tri_cell *c)
{
	return c->seen && c->many && c->slow == c->seen;
}

/* A new suspect; its index (the array may move). */
static size_t tri_add(struct tri *t, enum pf_mesh_kind kind, uint32_t node, uint32_t peer,
		      uint32_t rail)
{
	struct pf_mesh_triage *o = t->out;

	o->suspects = realloc(o->suspects, (o->n + 1) * sizeof(*o->suspects));
	if (!o->suspects)
		abort();
	o->suspects[o->n] = (struct pf_mesh_suspect){
		.kind = kind, .node = node, .peer = peer, .rail = rail
	};
	return o->n++;
}

/* Add a cell's evidence; .ratio sums the slow values until tri_finish(). */
static void tri_fold(struct tri *t, size_t idx, const struct tri_cell *c, int dir)
{
	struct pf_mesh_suspect *s = &t->out->suspects[idx];

	s->dir |= (enum pf_mesh_dir)dir;
	s->n_seen += c->seen;
	s->n_slow += c->slow;
	s->ratio += c->slow_sum;
}

/* A node whose every rail (two or more) is bad in a direction: its host. */
static int tri_node_dirs(struct tri *t, uint32_t node)
{
	int dirs = 0;

	for (int dir = PF_MESH_TX; dir <= PF_MESH_RX; dir++) {
		uint32_t with_data = 0, bad = 0;

		for (uint32_t r = 0; r < t->rails; r++) {
			const struct tri_cell *c = tri_cell(t, node, r, dir);

			if (t->fabric[r])
				continue;
			with_data += c->seen > 0;
			bad += tri_bad(c);
		}
		if (with_data >= 2 && bad == with_data)
			dirs |= dir;
	}
	return dirs;
}

static void tri_nodes_and_rails(struct tri *t)
{
	for (uint32_t node = 0; node < t->nodes; node++) {
		int node_dirs = tri_node_dirs(t, node);
		size_t ns = node_dirs ? tri_add(t, PF_MESH_NODE, node, UINT32_MAX, UINT32_MAX) : 0;

		for (uint32_t r = 0; r < t->rails; r++) {
			size_t rs = SIZE_MAX;

			for (int dir = PF_MESH_TX; dir <= PF_MESH_RX && !t->fabric[r]; dir++) {
				const struct tri_cell *c = tri_cell(t, node, r, dir);

				if (!tri_bad(c))
					continue;
				if (node_dirs & dir) {
					tri_fold(t, ns, c, dir);
					continue;
				}
				if (rs == SIZE_MAX)
					rs = tri_add(t, PF_MESH_RAIL, node, UINT32_MAX, r);
				tri_fold(t, rs, c, dir);
			}
		}
	}
}

/*
 * The fraction of rail @r's nodes (measured in direction @dir) whose rail
 * is bad with every partner; their count in *@bad, of *@n.
 */
static double tri_rail_share(struct tri *t, uint32_t r, int dir, uint32_t *bad, uint32_t *n)
{
	*bad = *n = 0;
	for (uint32_t node = 0; node < t->nodes; node++) {
		const struct tri_cell *c = tri_cell(t, node, r, dir);

		*n += c->seen > 0;
		*bad += tri_bad(c);
	}
	return *n ? (double)*bad / *n : 0;
}

/* A rail index bad on half its nodes or more: one fabric suspect, no node's. */
static void tri_fabric(struct tri *t)
{
	for (uint32_t r = 0; r < t->rails; r++) {
		struct pf_mesh_suspect *s;
		size_t idx = SIZE_MAX;

		for (int dir = PF_MESH_TX; dir <= PF_MESH_RX; dir++) {
			uint32_t bad, n;

			if (tri_rail_share(t, r, dir, &bad, &n) < PF_MESH_FABRIC_FRACTION || bad < 2)
				continue;
			if (idx == SIZE_MAX)
				idx = tri_add(t, PF_MESH_FABRIC, UINT32_MAX, UINT32_MAX, r);
			s = &t->out->suspects[idx];
			s->dir |= (enum pf_mesh_dir)dir;
			if (bad > s->n_nodes_bad) {
				s->n_nodes_bad = bad;
				s->n_nodes = n;
			}
		}
		if (idx == SIZE_MAX)
			continue;
		t->fabric[r] = true;
		s = &t->out->suspects[idx];
		for (size_t i = 0; i < t->n; i++) {
			if (t->obs[i].rail != r || isnan(t->obs[i].value))
				continue;
			s->n_seen++;
			s->n_slow += t->slow[i];
			s->ratio += t->slow[i] ? t->obs[i].value : 0;
		}
	}
}

/* The key of an ordered pair @a < @b on @rail (nodes below 2^16, rails below 2^6). */
static uint64_t tri_path_key(uint32_t a, uint32_t b, uint32_t rail)
{
	return (((uint64_t)a << 16 | b) << 6 | rail) + 1;
}

/* The slot of @key in the path index: where it is, or the empty one it would take. */
static size_t tri_path_slot(const struct tri *t, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (t->path_cap - 1);

	while (t->path_keys[i] && t->path_keys[i] != key)
		i = (i + 1) & (t->path_cap - 1);
	return i;
}

/* The path suspect of a pair on a rail, made on first use (hashed: linear in slow flows). */
static size_t tri_path(struct tri *t, uint32_t a, uint32_t b, uint32_t rail)
{
	uint64_t key = tri_path_key(a, b, rail);
	size_t slot = tri_path_slot(t, key);

	if (!t->path_keys[slot]) {
		t->path_keys[slot] = key;
		t->path_idx[slot] = tri_add(t, PF_MESH_PATH, a, b, rail);
	}
	return t->path_idx[slot];
}

/*
 * Is the slow measurement @o explained by one of its ends?  By the sender's
 * transmit or the receiver's receive side; a dead one (0: the flow failed)
 * also by the other two, since a flow completes only when the receiver's
 * ACKs and the answers to the sender's READ-back travel the other way: a
 * sender slowed or lossy on every flow fails its partners' flows to it too.
 */
static bool tri_explained(struct tri *t, const struct pf_mesh_obs *o)
{
	if (tri_bad(tri_cell(t, o->src, o->rail, PF_MESH_TX)) ||
	    tri_bad(tri_cell(t, o->dst, o->rail, PF_MESH_RX)))
		return true;
	return o->value == 0 && (tri_bad(tri_cell(t, o->dst, o->rail, PF_MESH_TX)) ||
				 tri_bad(tri_cell(t, o->src, o->rail, PF_MESH_RX)));
}

/* Slow measurements neither end's rail explains: the path, a -> b is TX. */
static void tri_paths(struct tri *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct pf_mesh_obs *o = &t->obs[i];
		uint32_t a = o->src < o->dst ? o->src : o->dst;
		uint32_t b = o->src < o->dst ? o->dst : o->src;
		struct tri_cell one = { .seen = 1, .slow = 1, .slow_sum = o->value };

		if (!t->slow[i] || t->fabric[o->rail] || tri_explained(t, o))
			continue;
		tri_fold(t, tri_path(t, a, b, o->rail), &one, o->src == a ? PF_MESH_TX : PF_MESH_RX);
	}
	/* n_seen of a path: every measurement of the pair on that rail, one pass */
	for (size_t k = 0; k < t->out->n; k++)
		if (t->out->suspects[k].kind == PF_MESH_PATH)
			t->out->suspects[k].n_seen = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pf_mesh_obs *o = &t->obs[i];
		uint32_t a = o->src < o->dst ? o->src : o->dst;
		uint32_t b = o->src < o->dst ? o->dst : o->src;
		size_t slot;

		if (isnan(o->value))
			continue;
		slot = tri_path_slot(t, tri_path_key(a, b, o->rail));
		if (t->path_keys[slot])
			t->out->suspects[t->path_idx[slot]].n_seen++;
	}
}

static int tri_cmp_suspect(const void *x, const void *y)
{
	const struct pf_mesh_suspect *a = x, *b = y;

	if (a->ratio != b->ratio)
		return a->ratio < b->ratio ? -1 : 1;
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	return a->node != b->node ? (a->node < b->node ? -1 : 1) : 0;
}

static void tri_finish(struct tri *t)
{
	for (size_t i = 0; i < t->out->n; i++) {
		struct pf_mesh_suspect *s = &t->out->suspects[i];

		s->ratio = t->healthy > 0 ? s->ratio / (double)s->n_slow / t->healthy : 0;
	}
	if (t->out->n)
		qsort(t->out->suspects, t->out->n, sizeof(*t->out->suspects), tri_cmp_suspect);
}

/*
 * The median over nodes of each node's best measurement.  A node's best is
 * with a healthy partner unless the node itself is bad, so this stays
 * healthy while fewer than half the nodes are bad, even when most pairs are
 * slow (a bad node among 3 slows 4 of the 6 directions).  NaN: no data.
 */
static double tri_best_median(const struct tri *t)
{
	struct pf_mesh_obs *best = calloc(t->nodes ? t->nodes : 1, sizeof(*best));
	double m;

	if (!best)
		abort();
	for (uint32_t i = 0; i < t->nodes; i++)
		best[i].value = NAN;
	for (size_t i = 0; i < t->n; i++) {
		const struct pf_mesh_obs *o = &t->obs[i];
		uint32_t ends[2] = { o->src, o->dst };

		for (int e = 0; e < 2 && !isnan(o->value); e++)
			if (isnan(best[ends[e]].value) || o->value > best[ends[e]].value)
				best[ends[e]].value = o->value;
	}
	m = tri_median(best, t->nodes, 0);
	free(best);
	return m;
}

/* Bounds, the medians and the per-cell counts. */
static int tri_setup(struct tri *t)
{
	double all;

	for (size_t i = 0; i < t->n; i++) {
		const struct pf_mesh_obs *o = &t->obs[i];

		if (o->src >= TRI_NODES_MAX || o->dst >= TRI_NODES_MAX || o->src == o->dst ||
		    o->rail >= TRI_RAILS_MAX || (!isnan(o->value) && !(o->value >= 0)) ||
		    isinf(o->value))
			return -EINVAL;
		t->nodes = o->src >= t->nodes ? o->src + 1 : t->nodes;
		t->nodes = o->dst >= t->nodes ? o->dst + 1 : t->nodes;
		t->rails = o->rail >= t->rails ? o->rail + 1 : t->rails;
	}
	all = tri_best_median(t);
	if (isnan(all))
		return -EINVAL;
	t->healthy = tri_median(t->obs, t->n, all * t->limit);
	t->cells = calloc((size_t)t->nodes * t->rails * 2, sizeof(*t->cells));
	t->slow = calloc(t->n, sizeof(*t->slow));
	t->fabric = calloc(t->rails ? t->rails : 1, sizeof(*t->fabric));
	for (t->path_cap = 16; t->path_cap < 2 * t->n; t->path_cap *= 2)
		;
	t->path_keys = calloc(t->path_cap, sizeof(*t->path_keys));
	t->path_idx = calloc(t->path_cap, sizeof(*t->path_idx));
	if (!t->cells || !t->slow || !t->fabric || !t->path_keys || !t->path_idx)
		abort();
	for (size_t i = 0; i < t->n; i++) {
		const struct pf_mesh_obs *o = &t->obs[i];

		if (isnan(o->value))
			continue;
		t->slow[i] = o->value < t->healthy * t->limit;
		tri_count(tri_cell(t, o->src, o->rail, PF_MESH_TX), o->dst, t->slow[i], o->value);
		tri_count(tri_cell(t, o->dst, o->rail, PF_MESH_RX), o->src, t->slow[i], o->value);
	}
	return 0;
}

int pf_mesh_triangulate(const struct pf_mesh_obs *obs, size_t n, double fraction,
			struct pf_mesh_triage *out)
{
	struct tri t = { .obs = obs, .n = n, .limit = fraction, .out = out };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(fraction > 0 && fraction < 1))
		return -EINVAL;
	rc = tri_setup(&t);
	if (rc == 0) {
		out->healthy_median = t.healthy;
		tri_fabric(&t);
		tri_nodes_and_rails(&t);
		tri_paths(&t);
		tri_finish(&t);
	}
	free(t.cells);
	free(t.slow);
	free(t.fabric);
	free(t.path_keys);
	free(t.path_idx);
	return rc;
}

void pf_mesh_triage_release(struct pf_mesh_triage *t)
{
	free(t->suspects);
	memset(t, 0, sizeof(*t));
}

const char *pf_mesh_kind_name(enum pf_mesh_kind k)
{
	switch (k) {
	case PF_MESH_NODE:
		return "node";
	case PF_MESH_RAIL:
		return "rail";
	case PF_MESH_PATH:
		return "path";
	case PF_MESH_FABRIC:
		return "fabric";
	}
	return "?";
}

const char *pf_mesh_dir_name(enum pf_mesh_dir d)
{
	switch (d) {
	case PF_MESH_TX:
		return "tx";
	case PF_MESH_RX:
		return "rx";
	case PF_MESH_BOTH:
		return "both";
	}
	return "?";
}

void pf_mesh_obs_scale(struct pf_mesh_obs *obs, size_t n,
		       double (*rate)(void *data, uint32_t rank, uint32_t rail), void *data)
{
	double fastest = 0;

	for (size_t i = 0; i < n; i++) {
		double a = rate(data, obs[i].src, obs[i].rail), b = rate(data, obs[i].dst, obs[i].rail);

		fastest = a > fastest ? a : fastest;
		fastest = b > fastest ? b : fastest;
	}
	for (size_t i = 0; i < n && fastest > 0; i++) {
		double a = rate(data, obs[i].src, obs[i].rail), b = rate(data, obs[i].dst, obs[i].rail);
		double slower = a < b ? a : b;

		if (slower > 0 && !isnan(obs[i].value))
			obs[i].value *= fastest / slower;
	}
}
