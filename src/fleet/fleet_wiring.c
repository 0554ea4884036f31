// SPDX-License-Identifier: MIT
/*
 * fleet_wiring.c - the model of `preflight fleet`'s wiring view
 * (fleet_wiring.h): the rail tables of the reports read into one record
 * per (host, rail index), then, per rail index, the nodes grouped by where
 * that rail plugs in and the ones outside a clear majority named.
 *
 * Reports are hostile: every table is checked whole (types, string
 * lengths, counts, rail indices in range, a rail index once per node)
 * before any of it is kept, and a bad one is refused with its origin and
 * the reason; the report itself stays read.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_wiring.h"
#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "text.h"

static char *wclean(const char *s)
{
	return pf_utf8_clean(s ? s : "", true);
}

static const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

struct fl_wiring *fl_wiring_new(void)
{
	return pf_xcalloc(1, sizeof(struct fl_wiring));
}

void fl_wiring_free(struct fl_wiring *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n_recs; i++) {
		struct fl_wire_rec *r = &w->recs[i];

		free(r->host);
		free(r->device);
		free(r->link_layer);
		for (int k = 0; k < FL_WIRE_BY_COUNT; k++)
			free(r->key[k]);
	}
	free(w->recs);
	free(w->sources);
	pf_strmap_release(&w->mesh_hosts);
	for (size_t i = 0; i < w->n_errs; i++) {
		free(w->errs[i].origin);
		free(w->errs[i].reason);
	}
	free(w->errs);
	free(w->rails);
	free(w->mis);
	free(w);
}

uint32_t fl_wiring_source(struct fl_wiring *w, size_t node)
{
	PF_GROW(w->sources, w->n_sources, w->cap_sources);
	w->sources[w->n_sources] = (struct fl_wire_source){ node };
	return (uint32_t)w->n_sources++;
}

void fl_wiring_add(struct fl_wiring *w, uint32_t source, const char *host, uint32_t rail,
		   const char *device, uint32_t port, const char *link_layer,
		   const char *const key[FL_WIRE_BY_COUNT])
{
	struct fl_wire_rec *r;

	PF_BUG_ON(source >= w->n_sources || rail >= FL_WIRE_RAILS_MAX);
	PF_GROW(w->recs, w->n_recs, w->cap_recs);
	r = &w->recs[w->n_recs++];
	*r = (struct fl_wire_rec){ .host = wclean(host), .rail = rail, .device = wclean(device),
				   .port = port, .link_layer = wclean(link_layer),
				   .source = source };
	for (int k = 0; k < FL_WIRE_BY_COUNT; k++)
		r->key[k] = wclean(key[k]);
}

/* ---- reading ---------------------------------------------------------- */

/* One table's check: where it is and why it was refused. */
struct wire_in {
	char why[240];
};

static bool in_fail(struct wire_in *in, const char *fmt, ...) PF_PRINTF(2, 3);
static bool in_fail(struct wire_in *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->why, sizeof(in->why), fmt, ap);
	va_end(ap);
	return false;
}

static void refuse(struct fl_wiring *w, const char *origin, const struct wire_in *in)
{
	PF_GROW(w->errs, w->n_errs, w->cap_errs);
	w->errs[w->n_errs++] = (struct fl_wire_err){ wclean(origin), wclean(in->why) };
}

/* Absent or null (*v NULL), or a string of at most FL_WIRE_STR_MAX bytes. */
static bool opt_str(const cJSON *o, const char *key, const char **v)
{
	const cJSON *it = jget(o, key);

	*v = NULL;
	if (!it || cJSON_IsNull(it))
		return true;
	if (!cJSON_IsString(it) || strlen(it->valuestring) > FL_WIRE_STR_MAX)
		return false;
	*v = it->valuestring;
	return true;
}

/* Absent or null (*has false), or a whole number in [0, max]. */
static bool opt_uint(const cJSON *o, const char *key, uint32_t max, bool *has, uint32_t *v)
{
	const cJSON *it = jget(o, key);

	*has = false;
	*v = 0;
	if (!it || cJSON_IsNull(it))
		return true;
	if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble > max ||
	    it->valuedouble != floor(it->valuedouble))
		return false;
	*has = true;
	*v = (uint32_t)it->valuedouble;
	return true;
}

/* One rail table entry, checked; pointers into the parse tree. */
struct wire_entry {
	bool has_rail;
	uint32_t rail, port;
	const char *device, *link_layer, *key[FL_WIRE_BY_COUNT];
};

static bool read_entry(const cJSON *e, struct wire_entry *x, struct wire_in *in, const char *where,
		       int i)
{
	const cJSON *lldp = jget(e, "lldp");
	const char *lldp_port;
	bool has_port;

	*x = (struct wire_entry){ 0 };
	if (!cJSON_IsObject(e))
		return in_fail(in, "%s[%d]: not an object", where, i);
	if (!opt_uint(e, "rail", FL_WIRE_RAILS_MAX - 1, &x->has_rail, &x->rail))
		return in_fail(in, "%s[%d]: 'rail' is not a whole number below %d", where, i,
			       FL_WIRE_RAILS_MAX);
	if (!opt_uint(e, "port", 65535, &has_port, &x->port))
		return in_fail(in, "%s[%d]: 'port' is not a whole number below 65536", where, i);
	if (!opt_str(e, "device", &x->device) || !opt_str(e, "link_layer", &x->link_layer) ||
	    !opt_str(e, "subnet", &x->key[FL_WIRE_SUBNET]) ||
	    !opt_str(e, "ib_subnet", &x->key[FL_WIRE_IB_SUBNET]))
		return in_fail(in, "%s[%d]: 'device', 'link_layer', 'subnet' or 'ib_subnet' is not "
				   "a string of at most %d bytes", where, i, FL_WIRE_STR_MAX);
	if (lldp && !cJSON_IsNull(lldp) &&
	    (!cJSON_IsObject(lldp) || !opt_str(lldp, "chassis", &x->key[FL_WIRE_LLDP]) ||
	     !opt_str(lldp, "port", &lldp_port)))
		return in_fail(in, "%s[%d]: 'lldp' is not null or an object of strings of at most "
				   "%d bytes", where, i, FL_WIRE_STR_MAX);
	if (x->has_rail && (!x->device || !*x->device))
		return in_fail(in, "%s[%d]: rail %u without a 'device'", where, i, x->rail);
	return true;
}

/*
 * Check a whole rail table (@rails: absent, null or an array of at most
 * @max entries) into @out (FL_WIRE_RAILS_MAX slots, by rail index); false
 * with the reason in @in.  Entries without a rail index (not compute
 * rails) are checked, then left out.
 */
static bool read_table(const cJSON *rails, int max, const char *where, struct wire_in *in,
		       struct wire_entry out[FL_WIRE_RAILS_MAX])
{
	const cJSON *e;
	int i = 0;

	for (int k = 0; k < FL_WIRE_RAILS_MAX; k++)
		out[k].has_rail = false;
	if (!rails || cJSON_IsNull(rails))
		return true;
	if (!cJSON_IsArray(rails) || cJSON_GetArraySize(rails) > max)
		return in_fail(in, "'%s' is not an array of at most %d entries", where, max);
	cJSON_ArrayForEach(e, rails) {
		struct wire_entry x;

		if (!read_entry(e, &x, in, where, i))
			return false;
		if (x.has_rail && out[x.rail].has_rail)
			return in_fail(in, "%s[%d]: rail %u twice (%.64s and %.64s)", where, i, x.rail,
				       out[x.rail].device, x.device);
		if (x.has_rail)
			out[x.rail] = x;
		i++;
	}
	return true;
}

static void add_entries(struct fl_wiring *w, uint32_t source, const char *host,
			const struct wire_entry t[FL_WIRE_RAILS_MAX])
{
	for (uint32_t k = 0; k < FL_WIRE_RAILS_MAX; k++)
		if (t[k].has_rail)
			fl_wiring_add(w, source, host, k, t[k].device, t[k].port, t[k].link_layer,
				      t[k].key);
}

/* A run report's node.rails: the compute rails of the node itself. */
static void add_node_rails(struct fl_wiring *w, const cJSON *root, size_t node, const char *host,
			   const char *origin)
{
	const cJSON *rails = jget(jget(root, "node"), "rails");
	struct wire_entry *t;
	struct wire_in in = { "" };

	if (!rails)
		return;
	t = pf_xcalloc(FL_WIRE_RAILS_MAX, sizeof(*t));
	if (read_table(rails, FL_WIRE_PORTS_MAX, "node.rails", &in, t))
		add_entries(w, fl_wiring_source(w, node), host, t);
	else
		refuse(w, origin, &in);
	free(t);
}

static bool map_has(const struct pf_strmap *m, const char *key)
{
	uint32_t v;

	return pf_strmap_get(m, key, &v);
}

/*
 * Must @ranks be read: does it name a host that no mesh table gave yet, or
 * hold a rank that is no object with a string host (to be refused)?
 */
static bool table_adds_hosts(const struct fl_wiring *w, const cJSON *ranks)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, ranks) {
		const cJSON *h = jget(e, "host");

		if (!cJSON_IsObject(e) || (h && !cJSON_IsString(h) && !cJSON_IsNull(h)))
			return true;
		if (cJSON_IsString(h) && *h->valuestring &&
		    !map_has(&w->mesh_hosts, h->valuestring))
			return true;
	}
	return false;
}

/*
 * A mesh rendezvous table: every rank's host and rails.  The same table is
 * in every rank's report, so one that names no new host is not read again;
 * one that does is checked whole, then its new hosts are kept.
 */
static void add_mesh_table(struct fl_wiring *w, const cJSON *table, const char *origin)
{
	const cJSON *ranks = jget(table, "ranks"), *e;
	struct wire_entry *t = NULL;
	struct pf_strmap mine = { 0 };
	struct wire_in in = { "" };
	uint32_t source = UINT32_MAX;
	char where[48];
	int i = 0;

	if (!cJSON_IsArray(ranks) || cJSON_GetArraySize(ranks) > FL_WIRE_RANKS_MAX) {
		in_fail(&in, "mesh 'table.ranks' is not an array of at most %d ranks",
			FL_WIRE_RANKS_MAX);
		refuse(w, origin, &in);
		return;
	}
	if (!table_adds_hosts(w, ranks))
		return;
	t = pf_xcalloc(FL_WIRE_RAILS_MAX, sizeof(*t));
	/* first check it all, so that a bad table adds nothing */
	cJSON_ArrayForEach(e, ranks) {
		const char *host;

		if (!cJSON_IsObject(e) || !opt_str(e, "host", &host)) {
			in_fail(&in, "mesh table.ranks[%d]: not an object with a string 'host' of "
				     "at most %d bytes", i, FL_WIRE_STR_MAX);
			break;
		}
		snprintf(where, sizeof(where), "mesh table.ranks[%d].rails", i);
		if (!read_table(jget(e, "rails"), FL_WIRE_RAILS_MAX, where, &in, t))
			break;
		i++;
	}
	if (in.why[0]) {
		refuse(w, origin, &in);
		free(t);
		return;
	}
	cJSON_ArrayForEach(e, ranks) {
		const char *host;

		opt_str(e, "host", &host);
		/* a rank without a name cannot be named; a host twice in one table, once */
		if (!host || !*host || map_has(&w->mesh_hosts, host) ||
		    map_has(&mine, host))
			continue;
		pf_strmap_put(&mine, host, 0);
		read_table(jget(e, "rails"), FL_WIRE_RAILS_MAX, "", &in, t); /* checked above */
		if (source == UINT32_MAX)
			source = fl_wiring_source(w, SIZE_MAX);
		add_entries(w, source, host, t);
	}
	cJSON_ArrayForEach(e, ranks) {
		const char *host;

		opt_str(e, "host", &host);
		if (host && *host)
			pf_strmap_put(&w->mesh_hosts, host, 0);
	}
	pf_strmap_release(&mine);
	free(t);
}

void fl_wiring_add_report(struct fl_wiring *w, const cJSON *root, size_t node, const char *host,
			  const char *origin)
{
	const cJSON *chk, *fd;

	add_node_rails(w, root, node, host, origin);
	cJSON_ArrayForEach(chk, jget(root, "checks")) {
		const cJSON *name = jget(chk, "name"), *findings = jget(chk, "findings");

		if (!cJSON_IsString(name) || strcmp(name->valuestring, "mesh") ||
		    !cJSON_IsArray(findings))
			continue;
		cJSON_ArrayForEach(fd, findings) {
			const cJSON *table = jget(jget(fd, "observed"), "table");

			if (cJSON_IsObject(table)) {
				add_mesh_table(w, table, origin);
				break;
			}
		}
	}
}

/* ---- judging ---------------------------------------------------------- */

const char *fl_wire_by_name(enum fl_wire_by by)
{
	switch (by) {
	case FL_WIRE_SUBNET:
		return "subnet";
	case FL_WIRE_IB_SUBNET:
		return "ib_subnet";
	case FL_WIRE_LLDP:
		return "lldp";
	default:
		return "";
	}
}

/* The words for a kind of key, in a sentence. */
static const char *by_words(enum fl_wire_by by)
{
	switch (by) {
	case FL_WIRE_SUBNET:
		return "IPv4 subnet";
	case FL_WIRE_IB_SUBNET:
		return "InfiniBand subnet prefix";
	case FL_WIRE_LLDP:
		return "LLDP neighbour";
	default:
		return "";
	}
}

/* Is source @s a live run report (not superseded)? a mesh table? neither (dropped)? */
enum src_kind { SRC_DROPPED, SRC_RUN, SRC_MESH };

static enum src_kind source_kind(const struct fl_wiring *w, uint32_t s, const bool *superseded,
				 size_t n_nodes)
{
	size_t node = w->sources[s].node;

	if (node == SIZE_MAX)
		return SRC_MESH;
	return node < n_nodes && superseded && superseded[node] ? SRC_DROPPED : SRC_RUN;
}

/*
 * The records to judge, bucketed by rail index: per host those of one
 * source (its own live run report first, else the first mesh table).
 * Returns the record indices, *ret_start[r].. *ret_start[r+1] for rail r.
 */
static size_t *pick_records(struct fl_wiring *w, const bool *superseded, size_t n_nodes,
			    size_t **ret_start)
{
	struct pf_strmap pick = { 0 };
	size_t *start, *fill, *idx;
	bool *use = pf_xcalloc(w->n_recs + 1, sizeof(*use));

	for (size_t i = 0; i < w->n_recs; i++) {
		enum src_kind k = source_kind(w, w->recs[i].source, superseded, n_nodes);
		uint32_t cur;

		if (k == SRC_DROPPED)
			continue;
		if (!pf_strmap_get(&pick, w->recs[i].host, &cur)) {
			pf_strmap_put(&pick, w->recs[i].host, w->recs[i].source);
			w->n_hosts++;
		} else if (k == SRC_RUN &&
			   source_kind(w, cur, superseded, n_nodes) == SRC_MESH) {
			pf_strmap_put(&pick, w->recs[i].host, w->recs[i].source);
		}
	}
	w->n_rails = 0;
	for (size_t i = 0; i < w->n_recs; i++) {
		uint32_t s;

		use[i] = pf_strmap_get(&pick, w->recs[i].host, &s) && s == w->recs[i].source;
		if (use[i] && w->recs[i].rail + 1u > w->n_rails)
			w->n_rails = w->recs[i].rail + 1u;
	}
	pf_strmap_release(&pick);
	start = pf_xcalloc(w->n_rails + 2, sizeof(*start));
	fill = pf_xcalloc(w->n_rails + 1, sizeof(*fill));
	for (size_t i = 0; i < w->n_recs; i++)
		if (use[i])
			start[w->recs[i].rail + 1]++;
	for (size_t r = 0; r < w->n_rails; r++)
		start[r + 1] += start[r];
	idx = pf_xcalloc(start[w->n_rails] + 1, sizeof(*idx));
	for (size_t i = 0; i < w->n_recs; i++)
		if (use[i])
			idx[start[w->recs[i].rail] + fill[w->recs[i].rail]++] = i;
	free(use);
	free(fill);
	*ret_start = start;
	return idx;
}

/* Rail @rl's largest group by each kind of key, over its @n records @idx. */
static void group_rail(const struct fl_wiring *w, struct fl_wire_rail *rl, const size_t *idx,
		       size_t n)
{
	for (int by = 0; by < FL_WIRE_BY_COUNT; by++) {
		struct fl_wire_group *g = &rl->groups[by];
		struct pf_strmap count = { 0 };

		for (size_t k = 0; k < n; k++) {
			const char *key = w->recs[idx[k]].key[by];
			uint32_t c = 0;

			if (!*key)
				continue;
			g->have++;
			pf_strmap_get(&count, key, &c);
			pf_strmap_put(&count, key, ++c);
			if (c > g->in_group) {
				g->in_group = c;
				g->key = key;
			}
		}
		pf_strmap_release(&count);
	}
}

/* Rail @rl's group by @by holds more than half of its nodes, and it has enough of them. */
static bool has_majority(const struct fl_wire_rail *rl, int by)
{
	const struct fl_wire_group *g = &rl->groups[by];

	return g->key && g->in_group * 2 > rl->nodes && rl->nodes >= FL_WIRE_MIN_NODES;
}

/* Does every other rail index with a majority by @by sit in rail @i's group (flat)? */
static bool flat(const struct fl_wiring *w, size_t i, int by)
{
	size_t others = 0;

	for (size_t j = 0; j < w->n_rails; j++) {
		if (j == i || !has_majority(&w->rails[j], by))
			continue;
		if (strcmp(w->rails[j].groups[by].key, w->rails[i].groups[by].key))
			return false;
		others++;
	}
	return others > 0;
}

/* Judged by @by: what rail @i shows and the others read. */
static void use_kind(struct fl_wire_rail *rl, int by)
{
	rl->by = (enum fl_wire_by)by;
	rl->group = rl->groups[by].key;
	rl->in_group = rl->groups[by].in_group;
	rl->unknown = rl->nodes - rl->groups[by].have;
}

/*
 * The first kind of key (subnet, IB subnet prefix, LLDP chassis) whose
 * largest group is a majority that tells rails apart judges rail @i; when
 * none does, why not, from the first kind that most of its nodes have.
 */
static void judge_rail(struct fl_wiring *w, size_t i)
{
	struct fl_wire_rail *rl = &w->rails[i];
	int first = -1;

	for (int by = 0; by < FL_WIRE_BY_COUNT; by++) {
		if (first < 0 && rl->groups[by].have * 2 > rl->nodes)
			first = by;
		if (rl->nodes >= FL_WIRE_MIN_NODES && has_majority(rl, by) && !flat(w, i, by)) {
			use_kind(rl, by);
			rl->judged = true;
			return;
		}
	}
	rl->by = FL_WIRE_BY_COUNT;
	if (first >= 0)
		use_kind(rl, first);
	if (rl->nodes < FL_WIRE_MIN_NODES)
		snprintf(rl->why, sizeof(rl->why), "only %zu node%s report%s rail %zu (%d needed)",
			 rl->nodes, rl->nodes == 1 ? "" : "s", rl->nodes == 1 ? "s" : "", i,
			 FL_WIRE_MIN_NODES);
	else if (first < 0)
		snprintf(rl->why, sizeof(rl->why), "no subnet, InfiniBand subnet prefix or LLDP "
			 "neighbour known for more than half of its %zu nodes", rl->nodes);
	else if (!has_majority(rl, first))
		snprintf(rl->why, sizeof(rl->why), "no %s holds more than half of its %zu nodes "
			 "(the largest group holds %zu): a routed fabric with a subnet per port?",
			 by_words(rl->by), rl->nodes, rl->in_group);
	else
		snprintf(rl->why, sizeof(rl->why), "every rail index sits in %s %.64s: one flat "
			 "fabric, no wiring information", by_words(rl->by), rl->group);
}

/* The rail index other than @i whose majority group by @by is @key, or -1. */
static int32_t sits_with(const struct fl_wiring *w, size_t i, enum fl_wire_by by, const char *key)
{
	for (size_t j = 0; j < w->n_rails; j++)
		if (j != i && has_majority(&w->rails[j], by) &&
		    !strcmp(w->rails[j].groups[by].key, key))
			return (int32_t)j;
	return -1;
}

static int cmp_mis(const void *a, const void *b)
{
	const struct fl_wire_miswired *x = a, *y = b;
	int c = strcmp(x->rec->host, y->rec->host);

	if (c)
		return c;
	return (x->rec->rail > y->rec->rail) - (x->rec->rail < y->rec->rail);
}

/* The ports of judged rails outside their group, by host and rail. */
static void find_miswired(struct fl_wiring *w, const size_t *idx, const size_t *start)
{
	for (size_t i = 0; i < w->n_rails; i++) {
		const struct fl_wire_rail *rl = &w->rails[i];

		if (!rl->judged)
			continue;
		for (size_t k = start[i]; k < start[i + 1]; k++) {
			const struct fl_wire_rec *r = &w->recs[idx[k]];
			const char *key = r->key[rl->by];

			if (!*key || !strcmp(key, rl->group))
				continue;
			PF_GROW(w->mis, w->n_mis, w->cap_mis);
			w->mis[w->n_mis++] = (struct fl_wire_miswired){
				.rec = r, .by = rl->by, .sits_in = key, .should = rl->group,
				.sits_with = sits_with(w, i, rl->by, key) };
		}
	}
	if (w->n_mis)
		qsort(w->mis, w->n_mis, sizeof(*w->mis), cmp_mis);
	for (size_t a = 0; a < w->n_mis; a++) {
		struct fl_wire_miswired *m = &w->mis[a];

		w->n_mis_hosts += a == 0 || strcmp(m->rec->host, w->mis[a - 1].rec->host);
		/* the same host's rail j, sitting with this rail i: the two are swapped */
		for (size_t b = 0; b < w->n_mis && m->sits_with >= 0; b++)
			if (!strcmp(w->mis[b].rec->host, m->rec->host) &&
			    w->mis[b].rec->rail == (uint32_t)m->sits_with &&
			    w->mis[b].sits_with == (int32_t)m->rec->rail)
				m->swapped = true;
	}
}

void fl_wiring_finish(struct fl_wiring *w, const bool *superseded, size_t n_nodes)
{
	size_t *start = NULL, *idx;

	idx = pick_records(w, superseded, n_nodes, &start);
	w->rails = pf_xcalloc(w->n_rails + 1, sizeof(*w->rails));
	for (size_t i = 0; i < w->n_rails; i++) {
		w->rails[i].rail = (uint32_t)i;
		w->rails[i].nodes = start[i + 1] - start[i];
		group_rail(w, &w->rails[i], idx + start[i], w->rails[i].nodes);
	}
	for (size_t i = 0; i < w->n_rails; i++)
		judge_rail(w, i);
	find_miswired(w, idx, start);
	free(idx);
	free(start);
}

char *fl_wire_mis_why(const struct fl_wire_miswired *m)
{
	const struct fl_wire_rec *r = m->rec;
	char port[24] = "", swap[64] = "";

	if (r->port)
		snprintf(port, sizeof(port), ":%u", r->port);
	if (m->swapped)
		snprintf(swap, sizeof(swap), " (rails %u<->%d swapped)", r->rail, m->sits_with);
	if (m->sits_with >= 0)
		return pf_xasprintf("%s%s (rail %u) sits in %s %s with the other nodes' rail %d; "
				    "rail %u belongs in %s%s", r->device, port, r->rail,
				    by_words(m->by), m->sits_in, m->sits_with, r->rail, m->should,
				    swap);
	return pf_xasprintf("%s%s (rail %u) sits in %s %s, where no other node's rail does; "
			    "rail %u belongs in %s", r->device, port, r->rail, by_words(m->by),
			    m->sits_in, r->rail, m->should);
}
