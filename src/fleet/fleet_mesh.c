// SPDX-License-Identifier: MIT
/*
 * fleet_mesh.c - the model of `preflight fleet` over `preflight mesh`
 * reports (fleet_mesh.h): each report's rendezvous table and measurements
 * are checked whole, then merged (measurements deduplicated by round,
 * sender, receiver and rail: every rank holds the same gathered matrix);
 * fl_mesh_finish() names the ranks that never arrived or sent nothing and
 * triangulates the rest (src/pairs/triage.c), leaving out the flows whose
 * rails the tables say are not comparable (src/pairs/compat.c).  The
 * reports' own records of pairs not comparable and rails untested are
 * checked, merged and shown, never judged.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_mesh.h"
#include "preflight/macro.h"
#include "preflight/parse.h"
#include "preflight/strbuf.h"
#include "text.h"

static char *mclean(const char *s)
{
	return pf_utf8_clean(s ? s : "", true);
}

static const cJSON *jget(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* A whole number in [0, max] under @key. */
static bool juint(const cJSON *o, const char *key, uint32_t max, uint32_t *v)
{
	const cJSON *it = jget(o, key);

	if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0) || it->valuedouble > max ||
	    it->valuedouble != floor(it->valuedouble))
		return false;
	*v = (uint32_t)it->valuedouble;
	return true;
}

/* An optional string under @key: true when absent or a string. */
static bool jstr_opt(const cJSON *o, const char *key, const char **v)
{
	const cJSON *it = jget(o, key);

	*v = cJSON_IsString(it) ? it->valuestring : NULL;
	return !it || cJSON_IsString(it) || cJSON_IsNull(it);
}

/* One report's data, checked before anything is merged. */
struct mesh_in {
	const cJSON *table, *meas;
	const cJSON *nc, *ut; /* "not_comparable", "untested" */
	uint32_t size;
	bool has_rank;
	uint32_t rank;
	const cJSON *job_id, *nodelist; /* the run as mesh recorded it, when it did */
	char why[200];
};

static bool in_fail(struct mesh_in *in, const char *fmt, ...) PF_PRINTF(2, 3);
static bool in_fail(struct mesh_in *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->why, sizeof(in->why), fmt, ap);
	va_end(ap);
	return false;
}

/* The table: ranks 0..size-1 once each, a host, an arrived flag, rails. */
static bool check_table(struct mesh_in *in)
{
	const cJSON *ranks = jget(in->table, "ranks"), *e;
	bool *seen;
	int n, i = 0;

	if (!cJSON_IsArray(ranks) || (n = cJSON_GetArraySize(ranks)) < 1 || n > FL_MESH_RANKS_MAX)
		return in_fail(in, "'table.ranks' is not an array of 1 to %d ranks",
			       FL_MESH_RANKS_MAX);
	in->size = (uint32_t)n;
	seen = pf_xcalloc((size_t)n, sizeof(*seen));
	cJSON_ArrayForEach(e, ranks) {
		const char *host, *why;
		const cJSON *rails = jget(e, "rails"), *r;
		uint32_t rank;

		if (!juint(e, "rank", in->size - 1, &rank) || seen[rank]) {
			free(seen);
			return in_fail(in, "table.ranks[%d]: 'rank' is not a new rank below %u", i,
				       in->size);
		}
		seen[rank] = true;
		if (!jstr_opt(e, "host", &host) || !jstr_opt(e, "why", &why) ||
		    !cJSON_IsBool(jget(e, "arrived")) || (rails && !cJSON_IsArray(rails)) ||
		    cJSON_GetArraySize(rails) > FL_MESH_RAILS_MAX) {
			free(seen);
			return in_fail(in, "table.ranks[%d]: 'host', 'why', 'arrived' or 'rails' "
					   "has the wrong type", i);
		}
		cJSON_ArrayForEach(r, rails) {
			const char *dev;

			if (!cJSON_IsObject(r) || !jstr_opt(r, "device", &dev)) {
				free(seen);
				return in_fail(in, "table.ranks[%d].rails: not an object with a "
						   "string 'device'", i);
			}
		}
		i++;
	}
	free(seen);
	return true;
}

/* Each measurement: ranks below size, src != dst, gbps >= 0 or an error. */
static bool check_meas(struct mesh_in *in)
{
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsArray(in->meas))
		return in_fail(in, "'measurements' is not an array");
	cJSON_ArrayForEach(e, in->meas) {
		const cJSON *g = jget(e, "gbps");
		const char *s, *d, *err;
		uint32_t v;

		if (!juint(e, "round", UINT32_MAX - 1, &v) || !juint(e, "src", in->size - 1, &v) ||
		    !juint(e, "dst", in->size - 1, &v) || !juint(e, "rail", FL_MESH_RAILS_MAX - 1, &v))
			return in_fail(in, "measurements[%d]: 'round', 'src', 'dst' or 'rail' is not "
					   "a whole number in range (%u ranks)", i, in->size);
		if (jget(e, "src")->valueint == jget(e, "dst")->valueint)
			return in_fail(in, "measurements[%d]: 'src' and 'dst' are the same rank", i);
		if (!jstr_opt(e, "src_dev", &s) || !jstr_opt(e, "dst_dev", &d) ||
		    !jstr_opt(e, "error", &err))
			return in_fail(in, "measurements[%d]: 'src_dev', 'dst_dev' or 'error' is not "
					   "a string", i);
		if (!err && !(cJSON_IsNumber(g) && g->valuedouble >= 0 && isfinite(g->valuedouble)))
			return in_fail(in, "measurements[%d]: no 'error' and 'gbps' is not a "
					   "number >= 0", i);
		i++;
	}
	return true;
}

/* A string under @key: absent, or a string of at most FL_MESH_NOTE_LEN bytes. */
static bool jstr_short(const cJSON *o, const char *key)
{
	const char *v;

	return jstr_opt(o, key, &v) && (!v || strlen(v) <= FL_MESH_NOTE_LEN);
}

/* A record list: an array of objects, ranks and rail in range, short strings. */
static bool check_notes(struct mesh_in *in, const cJSON *list, const char *what)
{
	bool nc = strcmp(what, "not_comparable") == 0;
	const cJSON *e;
	uint32_t v;
	int i = 0;

	if (!list)
		return true;
	if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) > FL_MESH_NOTES_MAX)
		return in_fail(in, "'%s' is not an array of at most %d records", what,
			       FL_MESH_NOTES_MAX);
	cJSON_ArrayForEach(e, list) {
		if (!cJSON_IsObject(e) || !juint(e, "rank", in->size - 1, &v) ||
		    !juint(e, "rail", FL_MESH_RAILS_MAX - 1, &v) ||
		    (nc && (!juint(e, "peer", in->size - 1, &v) ||
			    !juint(e, "round", UINT32_MAX - 1, &v))))
			return in_fail(in, "%s[%d]: 'rank', 'rail'%s is not a whole number in range "
					   "(%u ranks)", what, i, nc ? ", 'peer' or 'round'" : "",
				       in->size);
		if (!jstr_short(e, "device") || !jstr_short(e, "peer_device") ||
		    !jstr_short(e, "why"))
			return in_fail(in, "%s[%d]: 'device', 'peer_device' or 'why' is not a string "
					   "of at most %d bytes", what, i, FL_MESH_NOTE_LEN);
		i++;
	}
	return true;
}

/* Find the table, the measurements and the report's own rank. */
static bool check_input(const cJSON *chk, uint32_t size, struct mesh_in *in)
{
	const cJSON *fd;

	cJSON_ArrayForEach(fd, jget(chk, "findings")) {
		const cJSON *obs = jget(fd, "observed");
		uint32_t rank;

		if (!cJSON_IsObject(obs))
			continue;
		if (!in->table && jget(obs, "table"))
			in->table = jget(obs, "table");
		if (!in->meas && jget(obs, "measurements"))
			in->meas = jget(obs, "measurements");
		if (!in->nc && jget(obs, "not_comparable"))
			in->nc = jget(obs, "not_comparable");
		if (!in->ut && jget(obs, "untested"))
			in->ut = jget(obs, "untested");
		if (!in->job_id && jget(obs, "job_id"))
			in->job_id = jget(obs, "job_id");
		if (!in->nodelist && jget(obs, "nodelist"))
			in->nodelist = jget(obs, "nodelist");
		if (!in->has_rank && juint(obs, "rank", FL_MESH_RANKS_MAX - 1, &rank)) {
			in->has_rank = true;
			in->rank = rank;
		}
	}
	if (!in->table)
		return in->meas ? in_fail(in, "measurements without a rendezvous table") : true;
	if (!cJSON_IsObject(in->table))
		return in_fail(in, "'table' is not an object");
	if (!check_table(in))
		return false;
	if (size && in->size != size)
		return in_fail(in, "a run of %u ranks, where the reports before are of %u: give "
				   "one run's reports (one directory per job)", in->size, size);
	if (in->has_rank && in->rank >= in->size)
		return in_fail(in, "'rank' %u is not below the table's %u ranks", in->rank, in->size);
	if (in->meas && !check_meas(in))
		return false;
	return check_notes(in, in->nc, "not_comparable") && check_notes(in, in->ut, "untested");
}

static void merge_rank(struct fl_mesh_rank *k, const cJSON *e)
{
	const char *host = NULL, *why = NULL;
	const cJSON *rails = jget(e, "rails"), *r;
	size_t i = 0;

	jstr_opt(e, "host", &host);
	jstr_opt(e, "why", &why);
	k->in_table = true;
	if (cJSON_IsTrue(jget(e, "arrived")))
		k->arrived = true;
	if (host && !*k->host) {
		free(k->host);
		k->host = mclean(host);
	} else if (host && !k->host_other) {
		char *c = mclean(host);

		if (strcmp(c, k->host))
			k->host_other = c; /* the tables disagree: no drain for this rank */
		else
			free(c);
	}
	if (why && !k->why)
		k->why = mclean(why);
	if (k->devs || !cJSON_GetArraySize(rails))
		return;
	k->n_devs = (size_t)cJSON_GetArraySize(rails);
	k->devs = pf_xcalloc(k->n_devs, sizeof(*k->devs));
	k->rates = pf_xcalloc(k->n_devs, sizeof(*k->rates));
	cJSON_ArrayForEach(r, rails) {
		const char *dev = NULL, *rate = NULL;

		jstr_opt(r, "device", &dev);
		jstr_opt(r, "rate", &rate);
		k->rates[i] = pf_parse_port_gbps(rate); /* hostile input: bounded */
		k->devs[i++] = mclean(dev);
	}
}

static void merge_meas(struct fl_mesh *m, const cJSON *e)
{
	uint32_t round = 0, src = 0, dst = 0, rail = 0, at;
	const char *s = NULL, *d = NULL, *err = NULL, *stage = NULL;
	const cJSON *g = jget(e, "gbps");
	double v;
	char key[64];

	juint(e, "round", UINT32_MAX - 1, &round);
	juint(e, "src", m->size - 1, &src);
	juint(e, "dst", m->size - 1, &dst);
	juint(e, "rail", FL_MESH_RAILS_MAX - 1, &rail);
	jstr_opt(e, "src_dev", &s);
	jstr_opt(e, "dst_dev", &d);
	jstr_opt(e, "error", &err);
	jstr_opt(e, "stage", &stage);
	v = err ? 0 : g->valuedouble;
	snprintf(key, sizeof(key), "%u/%u/%u/%u", round, src, dst, rail);
	if (pf_strmap_get(&m->keys, key, &at)) {
		m->n_dupes++;
		m->n_conflicts += m->meas[at].gbps != v;
		return;
	}
	PF_GROW(m->meas, m->n_meas, m->cap_meas);
	m->meas[m->n_meas] = (struct fl_mesh_meas){ round, src, dst, rail, v, mclean(s),
						    mclean(d), mclean(err), mclean(stage) };
	pf_strmap_put(&m->keys, key, (uint32_t)m->n_meas++);
}

/* A peer's string for an identity: cleaned and cut; NULL when absent or not a string. */
static char *ident_str(const cJSON *r, const char *key)
{
	const char *v = NULL;
	char *c;

	jstr_opt(r, key, &v);
	if (!v)
		return NULL;
	c = mclean(v);
	if (strlen(c) > 64)
		c[64] = '\0';
	return c;
}

/* The identities of a rank's rails (the first table that lists them). */
static void merge_idents(struct fl_mesh_rank *k, const cJSON *e)
{
	const cJSON *rails = jget(e, "rails"), *r;
	size_t i = 0;

	if (k->ids || !cJSON_GetArraySize(rails))
		return;
	k->n_ids = (size_t)cJSON_GetArraySize(rails);
	k->ids = pf_xcalloc(k->n_ids, sizeof(*k->ids));
	cJSON_ArrayForEach(r, rails) {
		const char *sel = NULL;

		jstr_opt(r, "selected", &sel);
		k->ids[i++] = (struct fl_mesh_ident){
			.link_layer = ident_str(r, "link_layer"), .role = ident_str(r, "role"),
			.subnet = ident_str(r, "subnet"), .ib_subnet = ident_str(r, "ib_subnet"),
			.by_nics = sel && strcmp(sel, "nics") == 0,
		};
	}
}

/* The checked records of @list, deduplicated across the reports. */
static void merge_notes(struct fl_mesh *m, const cJSON *list, bool untested)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list) {
		struct fl_mesh_note n = { .untested = untested };
		const char *dev = NULL, *pdev = NULL, *why = NULL;
		char key[80];
		uint32_t at;

		juint(e, "rank", m->size - 1, &n.rank);
		juint(e, "rail", FL_MESH_RAILS_MAX - 1, &n.rail);
		if (!untested) {
			juint(e, "peer", m->size - 1, &n.peer);
			juint(e, "round", UINT32_MAX - 1, &n.round);
		}
		snprintf(key, sizeof(key), "%c/%u/%u/%u/%u", untested ? 'u' : 'n', n.round, n.rank,
			 n.peer, n.rail);
		if (pf_strmap_get(&m->note_keys, key, &at))
			continue;
		jstr_opt(e, "device", &dev);
		jstr_opt(e, "peer_device", &pdev);
		jstr_opt(e, "why", &why);
		n.device = mclean(dev);
		n.peer_device = mclean(pdev);
		n.why = mclean(why);
		PF_GROW(m->notes, m->n_notes, m->cap_notes);
		m->notes[m->n_notes] = n;
		pf_strmap_put(&m->note_keys, key, (uint32_t)m->n_notes++);
	}
}

/* A report's "job_id" or "nodelist" (a string or a number) against the run's, kept in *@run. */
static void merge_run(char **run, const cJSON *v, bool *differ)
{
	pf_autofree char *c = NULL;

	if (cJSON_IsString(v))
		c = mclean(v->valuestring);
	else if (cJSON_IsNumber(v))
		c = pf_xasprintf("%.17g", v->valuedouble);
	else if (v)
		c = pf_xstrdup("?"); /* there, but neither: never equal to a real one */
	if (!c)
		return;
	if (!*run)
		*run = PF_TAKE_PTR(c);
	else if (strcmp(*run, c))
		*differ = true;
}

void fl_mesh_add_check(struct fl_mesh *m, const cJSON *chk, const char *origin)
{
	struct mesh_in in = { 0 };
	const cJSON *e;

	m->n_reports++;
	if (!check_input(chk, m->size, &in)) {
		PF_GROW(m->errs, m->n_errs, m->cap_errs);
		m->errs[m->n_errs++] = (struct fl_mesh_err){ mclean(origin), mclean(in.why) };
		return;
	}
	if (!in.table)
		return;
	if (!m->size) {
		m->size = in.size;
		m->ranks = pf_xcalloc(in.size, sizeof(*m->ranks));
		for (uint32_t i = 0; i < in.size; i++)
			m->ranks[i].host = pf_xstrdup("");
	}
	if (in.has_rank)
		m->ranks[in.rank].reported = true;
	merge_run(&m->job_id, in.job_id, &m->runs_differ);
	merge_run(&m->nodelist, in.nodelist, &m->runs_differ);
	cJSON_ArrayForEach(e, jget(in.table, "ranks"))
		merge_rank(&m->ranks[jget(e, "rank")->valueint], e);
	cJSON_ArrayForEach(e, jget(in.table, "ranks"))
		merge_idents(&m->ranks[jget(e, "rank")->valueint], e);
	cJSON_ArrayForEach(e, in.meas)
		merge_meas(m, e);
	merge_notes(m, in.nc, false);
	merge_notes(m, in.ut, true);
}

const char *fl_mesh_host(const struct fl_mesh *m, uint32_t rank, char *buf, size_t len)
{
	if (rank < m->size && *m->ranks[rank].host)
		return m->ranks[rank].host;
	snprintf(buf, len, "rank %u", rank);
	return buf;
}

/*
 * The device of @rank on @rail: from the first measurement it sent (tx) or
 * received (rx) that names it, else its table; from the index built by
 * dev_index(), so a view asks it once per suspect in constant time.
 */
const char *fl_mesh_dev(const struct fl_mesh *m, uint32_t rank, uint32_t rail, int dir)
{
	uint32_t tx = UINT32_MAX, rx = UINT32_MAX;

	if (m->first_tx && rank < m->size && rail < m->n_rails) {
		size_t at = (size_t)rank * m->n_rails + rail;

		tx = dir & PF_MESH_TX ? m->first_tx[at] : UINT32_MAX;
		rx = dir & PF_MESH_RX ? m->first_rx[at] : UINT32_MAX;
	}
	if (tx != UINT32_MAX && tx < rx)
		return m->meas[tx].src_dev;
	if (rx != UINT32_MAX)
		return m->meas[rx].dst_dev;
	if (rank < m->size && rail < m->ranks[rank].n_devs && *m->ranks[rank].devs[rail])
		return m->ranks[rank].devs[rail];
	return "";
}

/* One pass over the measurements: the first naming each (rank, rail)'s device, each way. */
static void dev_index(struct fl_mesh *m)
{
	size_t n;

	m->n_rails = 0;
	for (size_t i = 0; i < m->n_meas; i++)
		if (m->meas[i].rail >= m->n_rails)
			m->n_rails = m->meas[i].rail + 1;
	n = (size_t)m->size * (m->n_rails ? m->n_rails : 1);
	m->first_tx = pf_xmalloc(n * sizeof(*m->first_tx));
	m->first_rx = pf_xmalloc(n * sizeof(*m->first_rx));
	memset(m->first_tx, 0xff, n * sizeof(*m->first_tx));
	memset(m->first_rx, 0xff, n * sizeof(*m->first_rx));
	for (size_t i = 0; i < m->n_meas && i < UINT32_MAX; i++) {
		const struct fl_mesh_meas *x = &m->meas[i];
		uint32_t *tx = &m->first_tx[(size_t)x->src * m->n_rails + x->rail];
		uint32_t *rx = &m->first_rx[(size_t)x->dst * m->n_rails + x->rail];

		if (*x->src_dev && *tx == UINT32_MAX)
			*tx = (uint32_t)i;
		if (*x->dst_dev && *rx == UINT32_MAX)
			*rx = (uint32_t)i;
	}
}

/* The (unordered) pair and rail of a path, as a key of a string map. */
static void path_key(uint32_t a, uint32_t b, uint32_t rail, char *buf, size_t len)
{
	snprintf(buf, len, "%u/%u/%u", a < b ? a : b, a < b ? b : a, rail);
}

/* Each path suspect's first recorded error between its two ends on its rail: one pass. */
static void path_errors(struct fl_mesh *m)
{
	struct pf_strmap paths = { 0 };
	char key[48];
	uint32_t at;

	for (size_t i = 0; i < m->n_sus; i++) {
		m->sus[i].error = "";
		if (m->sus[i].kind != PF_MESH_PATH || i >= UINT32_MAX)
			continue;
		path_key(m->sus[i].rank, m->sus[i].peer, m->sus[i].rail, key, sizeof(key));
		pf_strmap_put(&paths, key, (uint32_t)i);
	}
	for (size_t i = 0; i < m->n_meas && paths.n; i++) {
		const struct fl_mesh_meas *x = &m->meas[i];

		if (!*x->error)
			continue;
		path_key(x->src, x->dst, x->rail, key, sizeof(key));
		if (pf_strmap_get(&paths, key, &at) && !*m->sus[at].error)
			m->sus[at].error = x->error;
	}
	pf_strmap_release(&paths);
}

const char *fl_mesh_kind_name(int kind)
{
	if (kind == FL_MESH_MISSING)
		return "missing";
	if (kind == FL_MESH_SILENT)
		return "silent";
	return pf_mesh_kind_name((enum pf_mesh_kind)kind);
}

static void add_suspect(struct fl_mesh *m, struct fl_mesh_suspect s)
{
	PF_GROW(m->sus, m->n_sus, m->cap_sus);
	m->sus[m->n_sus++] = s;
}

/* Ranks that never arrived, and ranks that arrived but sent nothing. */
static void absent_ranks(struct fl_mesh *m)
{
	for (size_t i = 0; i < m->n_meas; i++)
		m->ranks[m->meas[i].src].sent++;
	for (uint32_t r = 0; r < m->size; r++)
		if (!m->ranks[r].arrived)
			add_suspect(m, (struct fl_mesh_suspect){ .kind = FL_MESH_MISSING, .rank = r,
				.rail = UINT32_MAX, .peer = UINT32_MAX, .ratio = NAN });
	for (uint32_t r = 0; r < m->size && m->n_meas; r++)
		if (m->ranks[r].arrived && !m->ranks[r].sent)
			add_suspect(m, (struct fl_mesh_suspect){ .kind = FL_MESH_SILENT, .rank = r,
				.rail = UINT32_MAX, .peer = UINT32_MAX, .ratio = NAN });
}

/* Rank @rank's port rate on rail @rail (Gb/s, 0 unknown), from the tables read. */
static double rail_rate(void *data, uint32_t rank, uint32_t rail)
{
	const struct fl_mesh *m = data;

	return rank < m->size && rail < m->ranks[rank].n_devs ? m->ranks[rank].rates[rail] : 0;
}

/* Rail @rail of rank @rank as pf_rail_compat() reads it (all unknown past its table). */
static struct pf_rail_ident ident_of(const struct fl_mesh *m, uint32_t rank, uint32_t rail)
{
	const struct fl_mesh_rank *k = &m->ranks[rank];
	const struct fl_mesh_ident *id = rail < k->n_ids ? &k->ids[rail] : NULL;

	if (!id)
		return (struct pf_rail_ident){ .device = NULL };
	return (struct pf_rail_ident){
		.device = rail < k->n_devs ? k->devs[rail] : NULL, .link_layer = id->link_layer,
		.role = id->role, .subnet = id->subnet, .ib_subnet = id->ib_subnet,
		.by_nics = id->by_nics,
	};
}

/* [rank * FL_MESH_RAILS_MAX + rail]: a measurement without error ran on it (either end). */
static bool *carried_of(const struct fl_mesh *m)
{
	bool *c = pf_xcalloc((size_t)(m->size ? m->size : 1) * FL_MESH_RAILS_MAX, sizeof(*c));

	for (size_t i = 0; i < m->n_meas; i++) {
		const struct fl_mesh_meas *x = &m->meas[i];

		if (*x->error || x->rail >= FL_MESH_RAILS_MAX)
			continue;
		c[(size_t)x->src * FL_MESH_RAILS_MAX + x->rail] = true;
		c[(size_t)x->dst * FL_MESH_RAILS_MAX + x->rail] = true;
	}
	return c;
}

/* Is measurement @x not comparable, by the tables read (as each rank judged)? */
static bool not_comparable(const struct fl_mesh *m, const bool *carried,
			   const struct fl_mesh_meas *x)
{
	struct pf_rail_ident a = ident_of(m, x->src, x->rail), b = ident_of(m, x->dst, x->rail);
	enum pf_rail_compat c = pf_rail_compat(&a, x->src, &b, x->dst, x->rail, NULL, 0);
	bool both = x->rail < FL_MESH_RAILS_MAX &&
		    carried[(size_t)x->src * FL_MESH_RAILS_MAX + x->rail] &&
		    carried[(size_t)x->dst * FL_MESH_RAILS_MAX + x->rail];

	return pf_rail_not_comparable(c, *x->error ? x->stage : NULL, both);
}

/* The measurements between ranks that arrived, triangulated. */
static void triangulate(struct fl_mesh *m)
{
	struct pf_mesh_obs *obs = pf_xcalloc(m->n_meas + 1, sizeof(*obs));
	pf_autofree bool *carried = carried_of(m);
	struct pf_mesh_triage t;
	size_t n = 0;

	for (size_t i = 0; i < m->n_meas; i++) {
		const struct fl_mesh_meas *x = &m->meas[i];

		if (!m->ranks[x->src].arrived || !m->ranks[x->dst].arrived)
			continue;
		if (not_comparable(m, carried, x)) {
			m->n_not_comparable++;
			continue;
		}
		obs[n++] = (struct pf_mesh_obs){ x->src, x->dst, x->rail, x->gbps };
	}
	/* as each rank judged: by the slower end's port rate (mixed node types) */
	pf_mesh_obs_scale(obs, n, rail_rate, m);
	if (!n) {
		m->not_judged = m->n_meas ? "no measurement between ranks that arrived"
					  : "no measurements in the reports (the data path did not run)";
	} else if (pf_mesh_triangulate(obs, n, m->fraction, &t) < 0) {
		m->not_judged = "nothing was measured above 0 Gb/s";
	} else {
		m->judged = true;
		m->healthy = t.healthy_median;
		for (size_t i = 0; i < t.n; i++) {
			const struct pf_mesh_suspect *s = &t.suspects[i];

			add_suspect(m, (struct fl_mesh_suspect){ .kind = (int)s->kind, .dir = s->dir,
				.rank = s->node, .peer = s->kind == PF_MESH_PATH ? s->peer : UINT32_MAX,
				.rail = s->rail, .ratio = s->ratio, .n_slow = s->n_slow,
				.n_seen = s->n_seen, .n_nodes_bad = s->n_nodes_bad,
				.n_nodes = s->n_nodes });
		}
		pf_mesh_triage_release(&t);
	}
	free(obs);
}

void fl_mesh_finish(struct fl_mesh *m)
{
	if (!m->size) {
		m->not_judged = "no rendezvous table in the mesh reports";
		return;
	}
	absent_ranks(m);
	triangulate(m);
	dev_index(m);
	path_errors(m);
}

void fl_mesh_free(struct fl_mesh *m)
{
	if (!m)
		return;
	for (uint32_t r = 0; r < m->size; r++) {
		free(m->ranks[r].host);
		free(m->ranks[r].host_other);
		free(m->ranks[r].why);
		for (size_t i = 0; i < m->ranks[r].n_devs; i++)
			free(m->ranks[r].devs[i]);
		free(m->ranks[r].devs);
		free(m->ranks[r].rates);
		for (size_t i = 0; i < m->ranks[r].n_ids; i++) {
			free(m->ranks[r].ids[i].link_layer);
			free(m->ranks[r].ids[i].role);
			free(m->ranks[r].ids[i].subnet);
			free(m->ranks[r].ids[i].ib_subnet);
		}
		free(m->ranks[r].ids);
	}
	free(m->ranks);
	free(m->job_id);
	free(m->nodelist);
	for (size_t i = 0; i < m->n_meas; i++) {
		free(m->meas[i].src_dev);
		free(m->meas[i].dst_dev);
		free(m->meas[i].error);
		free(m->meas[i].stage);
	}
	free(m->meas);
	pf_strmap_release(&m->keys);
	for (size_t i = 0; i < m->n_errs; i++) {
		free(m->errs[i].origin);
		free(m->errs[i].reason);
	}
	free(m->errs);
	for (size_t i = 0; i < m->n_notes; i++) {
		free(m->notes[i].device);
		free(m->notes[i].peer_device);
		free(m->notes[i].why);
	}
	free(m->notes);
	pf_strmap_release(&m->note_keys);
	free(m->sus);
	free(m->first_tx);
	free(m->first_rx);
	free(m);
}
