// SPDX-License-Identifier: MIT
/*
 * fleet.c - `preflight fleet`: many nodes' reports in one view.
 *
 * Each report is parsed once with cJSON and reduced to a compact node
 * record (hostname, verdict, per-check status, the first bad finding of each
 * failing check, and the numeric rate-like observations, min over subjects),
 * then the parse tree is dropped.  pf_fleet_finish() keeps the latest report
 * per hostname (a hash table), counts statuses per check, groups
 * observations into (check, key) series and flags nodes below
 * fraction x median of their series.  Check names and series keys are
 * interned through an open-addressing hash table, so the whole pass is
 * linear in the input plus one sort per series.
 *
 * pf_fleet_main() at the end is the command's front end: it parses the
 * command's arguments and writes to the streams main() hands it.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "exit.h"
#include "fleet.h"
#include "preflight/fs.h"
#include "output.h"
#include "report.h"
#include "preflight/result.h"
#include "preflight/strbuf.h"
#include "strmap.h"
#include "table.h"

struct fl_check_rec {
	uint32_t check;
	enum pf_status status;
	char *subject; /* first bad finding, fail/error checks only */
	char *message;
};

struct fl_obs {
	uint32_t series;
	double value;  /* min over the node's subjects */
	char *subject; /* the subject holding the min */
};

struct fl_node {
	char *host, *origin, *started;
	enum pf_status verdict;
	struct fl_check_rec *checks;
	size_t n_checks;
	struct fl_obs *obs;
	size_t n_obs, cap_obs;
	bool superseded;
};

struct fl_series {
	uint32_t check;
	char *key;
	size_t n_nodes, n_outliers;
	double median, min, max;
};

struct fl_outlier {
	size_t node;
	uint32_t series;
	double value;
};

struct fl_reject {
	char *origin, *reason;
};

struct pf_fleet {
	double fraction;
	bool compact; /* JSON view on one line */
	struct pf_fs *fs; /* "/": report files are read through the file API too */
	struct fl_node *nodes;
	size_t n_nodes, cap_nodes;
	char **checks; /* interned check names, first-seen order */
	size_t n_checks, cap_checks;
	struct pf_strmap check_ids;
	struct fl_series *series;
	size_t n_series, cap_series;
	struct pf_strmap series_ids; /* "check\x1fkey" */
	struct fl_reject *rejects;
	size_t n_rejects, cap_rejects;
	/* derived by pf_fleet_finish() */
	bool finished;
	size_t (*counts)[PF_STATUS_COUNT]; /* per check */
	size_t verdicts[PF_STATUS_COUNT];
	size_t n_live, n_superseded;
	size_t *failing;
	size_t n_failing;
	struct fl_outlier *outliers;
	size_t n_outliers;
};

struct pf_fleet *pf_fleet_new(double outlier_fraction)
{
	struct pf_fleet *f = pf_xcalloc(1, sizeof(*f));

	f->fraction = outlier_fraction;
	return f;
}

struct pf_fleet *pf_fleet_free(struct pf_fleet *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fl_node *n = &f->nodes[i];

		free(n->host);
		free(n->origin);
		free(n->started);
		for (size_t k = 0; k < n->n_checks; k++) {
			free(n->checks[k].subject);
			free(n->checks[k].message);
		}
		free(n->checks);
		for (size_t k = 0; k < n->n_obs; k++)
			free(n->obs[k].subject);
		free(n->obs);
	}
	free(f->nodes);
	for (size_t i = 0; i < f->n_checks; i++)
		free(f->checks[i]);
	free(f->checks);
	pf_strmap_release(&f->check_ids);
	for (size_t i = 0; i < f->n_series; i++)
		free(f->series[i].key);
	free(f->series);
	pf_strmap_release(&f->series_ids);
	for (size_t i = 0; i < f->n_rejects; i++) {
		free(f->rejects[i].origin);
		free(f->rejects[i].reason);
	}
	free(f->rejects);
	free(f->counts);
	free(f->failing);
	free(f->outliers);
	pf_fs_free(f->fs);
	free(f);
	return NULL;
}

PF_DEFINE_AUTO(fleet_free, struct pf_fleet *, pf_fleet_free)
PF_DEFINE_AUTO(cjson_delete, cJSON *, cJSON_Delete)

void pf_fleet_set_compact(struct pf_fleet *f, bool compact)
{
	f->compact = compact;
}

size_t pf_fleet_n_failing(const struct pf_fleet *f)
{
	return f->n_failing;
}

size_t pf_fleet_n_reports(const struct pf_fleet *f)
{
	return f->n_nodes;
}

size_t pf_fleet_n_rejected(const struct pf_fleet *f)
{
	return f->n_rejects;
}

bool pf_fleet_key_is_rate(const char *key)
{
	static const char *const parts[] = { "gbps", "mbps", "bw", "bandwidth", "throughput" };
	pf_autofree char *low = pf_xstrdup(key);

	for (char *p = low; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	for (size_t i = 0; i < PF_ARRAY_SIZE(parts); i++)
		if (strstr(low, parts[i]))
			return true;
	return false;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pf_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/*
 * Reports carry bytes read from nodes: every string kept for the views is
 * made valid UTF-8 without control characters here, when it is stored
 * (cleaning the whole parse tree would cost most of the run).
 */
static char *clean(const char *s)
{
	return pf_utf8_clean(s ? s : "", true);
}

static uint32_t intern_check(struct pf_fleet *f, const char *name)
{
	uint32_t id;

	if (pf_strmap_get(&f->check_ids, name, &id))
		return id;
	PF_GROW(f->checks, f->n_checks, f->cap_checks);
	id = (uint32_t)f->n_checks;
	f->checks[f->n_checks++] = clean(name);
	pf_strmap_put(&f->check_ids, name, id);
	return id;
}

static uint32_t intern_series(struct pf_fleet *f, uint32_t check, const char *key)
{
	pf_autofree char *k = pf_xasprintf("%s\x1f%s", f->checks[check], key);
	uint32_t id;

	if (pf_strmap_get(&f->series_ids, k, &id))
		return id;
	PF_GROW(f->series, f->n_series, f->cap_series);
	id = (uint32_t)f->n_series;
	f->series[f->n_series++] = (struct fl_series){ .check = check, .key = clean(key) };
	pf_strmap_put(&f->series_ids, k, id);
	return id;
}

static void reject(struct pf_fleet *f, const char *origin, const char *reason, char **ret_err)
{
	PF_GROW(f->rejects, f->n_rejects, f->cap_rejects);
	f->rejects[f->n_rejects++] = (struct fl_reject){ clean(origin), clean(reason) };
	if (ret_err)
		*ret_err = clean(reason);
}

static const char *json_str(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

/* Record a numeric observation: keep the node's minimum per series. */
static void node_obs(struct pf_fleet *f, struct fl_node *n, uint32_t check, const char *key,
		     double v, const char *subject)
{
	uint32_t s = intern_series(f, check, key);

	for (size_t i = 0; i < n->n_obs; i++) {
		if (n->obs[i].series != s)
			continue;
		if (v < n->obs[i].value) {
			n->obs[i].value = v;
			free(n->obs[i].subject);
			n->obs[i].subject = clean(subject);
		}
		return;
	}
	PF_GROW(n->obs, n->n_obs, n->cap_obs);
	n->obs[n->n_obs++] = (struct fl_obs){ s, v, clean(subject) };
}

static bool bad(enum pf_status s)
{
	return s == PF_STATUS_FAIL || s == PF_STATUS_ERROR;
}

/* Reduce one check object of a report into @n; -EINVAL with a reason. */
static int add_check(struct pf_fleet *f, struct fl_node *n, const cJSON *chk, const char **why)
{
	const char *name = json_str(chk, "name"), *status = json_str(chk, "status");
	const cJSON *findings = cJSON_GetObjectItemCaseSensitive(chk, "findings"), *fd;
	struct fl_check_rec *rec = &n->checks[n->n_checks];
	enum pf_status st;

	if (!name || !status || pf_status_from_name(status, &st) < 0) {
		*why = "a check without a valid name and status";
		return -EINVAL;
	}
	*rec = (struct fl_check_rec){ .check = intern_check(f, name), .status = st };
	n->n_checks++;
	if (!cJSON_IsArray(findings))
		findings = NULL;
	cJSON_ArrayForEach(fd, findings) {
		const char *subject = json_str(fd, "subject"), *fst = json_str(fd, "status");
		const cJSON *obs = cJSON_GetObjectItemCaseSensitive(fd, "observed"), *o;
		enum pf_status fs;

		if (bad(st) && !rec->message && fst && pf_status_from_name(fst, &fs) == 0 &&
		    fs == st) {
			const char *msg = json_str(fd, "message");

			rec->subject = clean(subject);
			rec->message = clean(msg);
		}
		if (!cJSON_IsObject(obs))
			continue;
		cJSON_ArrayForEach(o, obs)
			if (cJSON_IsNumber(o) && o->valuedouble >= 0 && isfinite(o->valuedouble) &&
			    pf_fleet_key_is_rate(o->string))
				node_obs(f, n, rec->check, o->string, o->valuedouble, subject);
	}
	if (bad(st) && !rec->message) {
		const char *summary = json_str(chk, "summary");

		rec->subject = pf_xstrdup("");
		rec->message = clean(summary);
	}
	return 0;
}

int pf_fleet_add_report(struct pf_fleet *f, const char *text, size_t len, const char *origin,
			char **ret_err)
{
	PF_CLEANUP(pf_cjson_deletep) cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *checks, *chk, *node;
	const char *schema, *host, *verdict, *why = NULL;
	struct fl_node *n;
	enum pf_status worst = PF_STATUS_PASS;

	if (!root) {
		reject(f, origin, "not valid JSON", ret_err);
		return -EINVAL;
	}
	schema = cJSON_IsObject(root) ? json_str(root, "schema") : NULL;
	if (!schema || strcmp(schema, "preflight.report/v1")) {
		pf_autofree char *reason = pf_xasprintf("not a preflight.report/v1 report (schema %s%s%s)",
							 schema ? "'" : "", schema ? schema : "missing",
							 schema ? "'" : "");

		reject(f, origin, reason, ret_err);
		return -EINVAL;
	}
	checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
	if (!cJSON_IsArray(checks)) {
		reject(f, origin, "report has no 'checks' array", ret_err);
		return -EINVAL;
	}
	node = cJSON_GetObjectItemCaseSensitive(root, "node");
	host = json_str(node, "hostname");

	PF_GROW(f->nodes, f->n_nodes, f->cap_nodes);
	n = &f->nodes[f->n_nodes];
	*n = (struct fl_node){ 0 };
	n->checks = pf_xcalloc((size_t)cJSON_GetArraySize(checks), sizeof(*n->checks));
	cJSON_ArrayForEach(chk, checks) {
		if (add_check(f, n, chk, &why) < 0)
			break;
		worst = pf_status_worst(worst, n->checks[n->n_checks - 1].status);
	}
	verdict = json_str(root, "verdict");
	if (!why && verdict && pf_status_from_name(verdict, &n->verdict) < 0)
		why = "invalid 'verdict'";
	if (why) {
		/* undo: the node was never counted */
		for (size_t k = 0; k < n->n_checks; k++) {
			free(n->checks[k].subject);
			free(n->checks[k].message);
		}
		free(n->checks);
		for (size_t k = 0; k < n->n_obs; k++)
			free(n->obs[k].subject);
		free(n->obs);
		{
			pf_autofree char *reason = pf_xasprintf("malformed report: %s", why);

			reject(f, origin, reason, ret_err);
		}
		return -EINVAL;
	}
	if (!verdict)
		n->verdict = worst == PF_STATUS_SKIP ? PF_STATUS_PASS : worst;
	n->host = clean(host && *host ? host : origin);
	n->origin = clean(origin);
	n->started = clean(json_str(root, "started_at"));
	f->n_nodes++;
	return 0;
}

int pf_fleet_add_file(struct pf_fleet *f, const char *path, char **ret_err)
{
	pf_autofree char *buf = NULL;
	size_t len;
	int r;

	r = f->fs ? 0 : pf_fs_open("/", &f->fs);
	if (r >= 0)
		r = pf_fs_read_full(f->fs, path, PF_FLEET_MAX_REPORT, &buf, &len);
	if (r < 0) {
		pf_autofree char *reason = pf_xasprintf("cannot read: %s", strerror(-r));

		reject(f, path, reason, ret_err);
		return r;
	}
	return pf_fleet_add_report(f, buf, len, path, ret_err);
}

struct strv_buf {
	char **v;
	size_t n, cap;
};

/* Depth limit of --recursive: deeper trees are not report stores. */
#define FLEET_MAX_DEPTH 32

static int list_dir(const struct pf_fs *fs, const char *dir, bool recursive, int depth,
		    struct strv_buf *out, size_t *ret_subdirs)
{
	pf_autostrv char **names = NULL;
	size_t dl = strlen(dir);
	int k;

	k = pf_fs_list(fs, dir, &names);
	if (k < 0)
		return k;
	for (int i = 0; i < k; i++) {
		size_t l = strlen(names[i]);
		pf_autofree char *path = NULL;
		struct stat st;

		if (names[i][0] == '.')
			continue;
		path = pf_xasprintf("%s%s%s", dir, dl && dir[dl - 1] == '/' ? "" : "/", names[i]);
		/* a directory is followed only when it is not a link (no loops) */
		if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (ret_subdirs)
				(*ret_subdirs)++;
			if (recursive && depth < FLEET_MAX_DEPTH) {
				int r = list_dir(fs, path, true, depth + 1, out, NULL);

				if (r < 0 && r != -EACCES && r != -ENOENT)
					return r;
			}
			continue;
		}
		if (l < 6 || strcmp(names[i] + l - 5, ".json"))
			continue;
		PF_GROW(out->v, out->n, out->cap);
		out->v[out->n++] = path;
		path = NULL;
	}
	return 0;
}

int pf_fleet_list_dir(const char *dir, bool recursive, char ***ret_paths, size_t *ret_subdirs)
{
	pf_autofs struct pf_fs *fs = NULL;
	struct strv_buf out = { 0 };
	int r;

	if (ret_subdirs)
		*ret_subdirs = 0;
	r = pf_fs_open("/", &fs);
	if (r < 0)
		return r;
	r = list_dir(fs, dir, recursive, 0, &out, ret_subdirs);
	if (r < 0) {
		for (size_t i = 0; i < out.n; i++)
			free(out.v[i]);
		free(out.v);
		return r;
	}
	PF_GROW(out.v, out.n, out.cap);
	out.v[out.n] = NULL; /* pf_fs_list() sorted the names: depth-first, in name order */
	*ret_paths = out.v;
	return (int)out.n;
}

/* Fleet-wide order of failing nodes: hostname, then file. */
static int cmp_node_idx(const void *a, const void *b, void *arg)
{
	const struct pf_fleet *f = arg;
	const struct fl_node *x = &f->nodes[*(const size_t *)a], *y = &f->nodes[*(const size_t *)b];
	int c = strcmp(x->host, y->host);

	return c ? c : strcmp(x->origin, y->origin);
}

static int cmp_outlier(const void *a, const void *b, void *arg)
{
	const struct pf_fleet *f = arg;
	const struct fl_outlier *x = a, *y = b;
	const struct fl_series *sx = &f->series[x->series], *sy = &f->series[y->series];
	int c;

	if (sx->check != sy->check)
		return sx->check < sy->check ? -1 : 1;
	c = strcmp(sx->key, sy->key);
	if (c)
		return c;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(f->nodes[x->node].host, f->nodes[y->node].host);
}

/* Keep the newest report per hostname (started_at, then the later input). */
static void dedupe(struct pf_fleet *f)
{
	struct pf_strmap seen = { 0 };

	for (size_t i = 0; i < f->n_nodes; i++) {
		struct fl_node *n = &f->nodes[i];
		uint32_t j;

		if (pf_strmap_get(&seen, n->host, &j)) {
			struct fl_node *o = &f->nodes[j];

			if (strcmp(n->started, o->started) >= 0) {
				o->superseded = true;
				pf_strmap_put(&seen, n->host, (uint32_t)i);
			} else {
				n->superseded = true;
			}
			f->n_superseded++;
		} else {
			pf_strmap_put(&seen, n->host, (uint32_t)i);
		}
	}
	pf_strmap_release(&seen);
	f->n_live = f->n_nodes - f->n_superseded;
}

static void find_outliers(struct pf_fleet *f)
{
	size_t *count = pf_xcalloc(f->n_series + 1, sizeof(*count));
	size_t *start = pf_xcalloc(f->n_series + 1, sizeof(*start));
	double *vals, *sorted;
	size_t total = 0, cap = 0;

	/* bucket the live nodes' values by series (counting sort: linear) */
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!f->nodes[i].superseded)
			for (size_t k = 0; k < f->nodes[i].n_obs; k++)
				count[f->nodes[i].obs[k].series]++;
	for (size_t s = 0; s < f->n_series; s++) {
		start[s] = total;
		total += count[s];
		count[s] = 0;
	}
	vals = pf_xcalloc(total + 1, sizeof(*vals));
	sorted = pf_xcalloc(total + 1, sizeof(*sorted));
	for (size_t i = 0; i < f->n_nodes; i++)
		if (!f->nodes[i].superseded)
			for (size_t k = 0; k < f->nodes[i].n_obs; k++) {
				const struct fl_obs *o = &f->nodes[i].obs[k];

				vals[start[o->series] + count[o->series]++] = o->value;
			}
	memcpy(sorted, vals, total * sizeof(*vals));
	for (size_t s = 0; s < f->n_series; s++) {
		struct fl_series *se = &f->series[s];
		double *v = sorted + start[s];

		se->n_nodes = count[s];
		se->median = pf_median(v, count[s]);
		se->min = count[s] ? v[0] : NAN;
		se->max = count[s] ? v[count[s] - 1] : NAN;
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		if (f->nodes[i].superseded)
			continue;
		for (size_t k = 0; k < f->nodes[i].n_obs; k++) {
			const struct fl_obs *o = &f->nodes[i].obs[k];
			struct fl_series *se = &f->series[o->series];

			if (se->n_nodes < PF_FLEET_MIN_SERIES || !(se->median > 0) ||
			    !(o->value < f->fraction * se->median))
				continue;
			PF_GROW(f->outliers, f->n_outliers, cap);
			f->outliers[f->n_outliers++] = (struct fl_outlier){ i, o->series, o->value };
			se->n_outliers++;
		}
	}
	if (f->n_outliers)
		qsort_r(f->outliers, f->n_outliers, sizeof(*f->outliers), cmp_outlier, f);
	free(count);
	free(start);
	free(vals);
	free(sorted);
}

void pf_fleet_finish(struct pf_fleet *f)
{
	size_t cap = 0;

	PF_BUG_ON(f->finished);
	f->finished = true;
	dedupe(f);
	f->counts = pf_xcalloc(f->n_checks + 1, sizeof(*f->counts));
	for (size_t i = 0; i < f->n_nodes; i++) {
		const struct fl_node *n = &f->nodes[i];

		if (n->superseded)
			continue;
		f->verdicts[n->verdict]++;
		for (size_t k = 0; k < n->n_checks; k++)
			f->counts[n->checks[k].check][n->checks[k].status]++;
		if (bad(n->verdict)) {
			PF_GROW(f->failing, f->n_failing, cap);
			f->failing[f->n_failing++] = i;
		}
	}
	if (f->n_failing)
		qsort_r(f->failing, f->n_failing, sizeof(*f->failing), cmp_node_idx, f);
	find_outliers(f);
}

static bool series_judged(const struct fl_series *se)
{
	return se->n_nodes >= PF_FLEET_MIN_SERIES && se->median > 0;
}

static double ratio(double v, double median)
{
	return median > 0 ? round(v / median * 1000.0) / 1000.0 : 0;
}

cJSON *pf_fleet_to_json(const struct pf_fleet *f)
{
	cJSON *j = cJSON_CreateObject(), *o, *arr;

	cJSON_AddStringToObject(j, "schema", PF_FLEET_SCHEMA);
	o = cJSON_AddObjectToObject(j, "inputs");
	cJSON_AddNumberToObject(o, "reports", (double)f->n_nodes);
	cJSON_AddNumberToObject(o, "superseded", (double)f->n_superseded);
	cJSON_AddNumberToObject(o, "rejected", (double)f->n_rejects);
	cJSON_AddNumberToObject(j, "nodes", (double)f->n_live);
	o = cJSON_AddObjectToObject(j, "verdicts");
	for (int s = 0; s < PF_STATUS_COUNT; s++)
		cJSON_AddNumberToObject(o, pf_status_name((enum pf_status)s), (double)f->verdicts[s]);
	cJSON_AddNumberToObject(j, "outlier_fraction", f->fraction);

	arr = cJSON_AddArrayToObject(j, "failing");
	for (size_t i = 0; i < f->n_failing; i++) {
		const struct fl_node *n = &f->nodes[f->failing[i]];
		cJSON *e = cJSON_CreateObject(), *ca;

		cJSON_AddStringToObject(e, "node", n->host);
		cJSON_AddStringToObject(e, "verdict", pf_status_name(n->verdict));
		cJSON_AddStringToObject(e, "report", n->origin);
		ca = cJSON_AddArrayToObject(e, "checks");
		for (size_t k = 0; k < n->n_checks; k++) {
			const struct fl_check_rec *c = &n->checks[k];
			cJSON *ce;

			if (!bad(c->status))
				continue;
			ce = cJSON_CreateObject();
			cJSON_AddStringToObject(ce, "name", f->checks[c->check]);
			cJSON_AddStringToObject(ce, "status", pf_status_name(c->status));
			cJSON_AddStringToObject(ce, "subject", c->subject);
			cJSON_AddStringToObject(ce, "message", c->message);
			cJSON_AddItemToArray(ca, ce);
		}
		cJSON_AddItemToArray(arr, e);
	}

	arr = cJSON_AddArrayToObject(j, "checks");
	for (size_t c = 0; c < f->n_checks; c++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", f->checks[c]);
		for (int s = 0; s < PF_STATUS_COUNT; s++)
			cJSON_AddNumberToObject(e, pf_status_name((enum pf_status)s),
						(double)f->counts[c][s]);
		cJSON_AddItemToArray(arr, e);
	}

	arr = cJSON_AddArrayToObject(j, "series");
	for (size_t s = 0; s < f->n_series; s++) {
		const struct fl_series *se = &f->series[s];
		cJSON *e;

		if (!se->n_nodes)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "check", f->checks[se->check]);
		cJSON_AddStringToObject(e, "key", se->key);
		cJSON_AddNumberToObject(e, "nodes", (double)se->n_nodes);
		cJSON_AddNumberToObject(e, "median", se->median);
		cJSON_AddNumberToObject(e, "min", se->min);
		cJSON_AddNumberToObject(e, "max", se->max);
		cJSON_AddBoolToObject(e, "judged", series_judged(se));
		cJSON_AddNumberToObject(e, "outliers", (double)se->n_outliers);
		cJSON_AddItemToArray(arr, e);
	}

	arr = cJSON_AddArrayToObject(j, "outliers");
	for (size_t i = 0; i < f->n_outliers; i++) {
		const struct fl_outlier *ol = &f->outliers[i];
		const struct fl_series *se = &f->series[ol->series];
		const struct fl_node *n = &f->nodes[ol->node];
		cJSON *e = cJSON_CreateObject();
		const char *subject = "";

		for (size_t k = 0; k < n->n_obs; k++)
			if (n->obs[k].series == ol->series)
				subject = n->obs[k].subject;
		cJSON_AddStringToObject(e, "node", n->host);
		cJSON_AddStringToObject(e, "check", f->checks[se->check]);
		cJSON_AddStringToObject(e, "key", se->key);
		cJSON_AddStringToObject(e, "subject", subject);
		cJSON_AddNumberToObject(e, "value", ol->value);
		cJSON_AddNumberToObject(e, "median", se->median);
		cJSON_AddNumberToObject(e, "ratio", ratio(ol->value, se->median));
		cJSON_AddItemToArray(arr, e);
	}

	arr = cJSON_AddArrayToObject(j, "rejected");
	for (size_t i = 0; i < f->n_rejects; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "file", f->rejects[i].origin);
		cJSON_AddStringToObject(e, "reason", f->rejects[i].reason);
		cJSON_AddItemToArray(arr, e);
	}
	return j;
}

int pf_fleet_format_from_name(const char *name, enum pf_fleet_format *ret)
{
	if (!strcmp(name, "text"))
		*ret = PF_FLEET_TEXT;
	else if (!strcmp(name, "json"))
		*ret = PF_FLEET_JSON;
	else if (!strcmp(name, "csv"))
		*ret = PF_FLEET_CSV;
	else
		return -EINVAL;
	return 0;
}

/*
 * A spreadsheet runs a cell that begins with = + - @ (or a tab or CR, which
 * some strip first) as a formula: a hostname "=HYPERLINK(...)" from a
 * compromised node would be live.  Such a cell gets a leading apostrophe
 * (OWASP's CSV injection advice), unless the whole cell is a plain number.
 */
static bool csv_formula_like(const char *s)
{
	char *end;

	if (!s[0] || !strchr("=+-@\t\r", s[0]))
		return false;
	if (s[0] == '-' || s[0] == '+') {
		errno = 0;
		(void)strtod(s, &end);
		if (end != s && !*end && strcspn(s, "xXpPnNiI") == strlen(s))
			return false; /* -1, +2.5e3: a number, not a formula */
	}
	return true;
}

void pf_csv_field(FILE *out, const char *s)
{
	bool neutral = csv_formula_like(s);

	if (!neutral && !s[strcspn(s, ",\"\r\n")]) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (neutral)
		fputc('\'', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void fmt_num(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.6g", v);
}

static const char *obs_subject(const struct fl_node *n, uint32_t series)
{
	for (size_t k = 0; k < n->n_obs; k++)
		if (n->obs[k].series == series)
			return n->obs[k].subject;
	return "";
}

/* kind,node,check,subject,status,key,value,median,message */
static void csv_row(FILE *out, const char *const cells[9])
{
	for (int i = 0; i < 9; i++) {
		if (i)
			fputc(',', out);
		pf_csv_field(out, cells[i] ? cells[i] : "");
	}
	fputs("\r\n", out);
}

static void render_csv(const struct pf_fleet *f, FILE *out)
{
	static const char *const header[9] = { "kind", "node", "check", "subject", "status",
						"key", "value", "median", "message" };
	char v[32], m[32];

	csv_row(out, header);
	for (size_t i = 0; i < f->n_failing; i++) {
		const struct fl_node *n = &f->nodes[f->failing[i]];

		for (size_t k = 0; k < n->n_checks; k++) {
			const struct fl_check_rec *c = &n->checks[k];

			if (bad(c->status))
				csv_row(out, (const char *const[9]){ "failing", n->host, f->checks[c->check],
						c->subject, pf_status_name(c->status), NULL, NULL,
						NULL, c->message });
		}
	}
	for (size_t c = 0; c < f->n_checks; c++)
		for (int s = 0; s < PF_STATUS_COUNT; s++) {
			snprintf(v, sizeof(v), "%zu", f->counts[c][s]);
			csv_row(out, (const char *const[9]){ "count", NULL, f->checks[c], NULL,
					pf_status_name((enum pf_status)s), NULL, v, NULL, NULL });
		}
	for (size_t i = 0; i < f->n_outliers; i++) {
		const struct fl_outlier *ol = &f->outliers[i];
		const struct fl_series *se = &f->series[ol->series];
		const struct fl_node *n = &f->nodes[ol->node];
		pf_autofree char *msg = pf_xasprintf("%.0f%% of the fleet median",
						     ratio(ol->value, se->median) * 100.0);

		fmt_num(v, sizeof(v), ol->value);
		fmt_num(m, sizeof(m), se->median);
		csv_row(out, (const char *const[9]){ "outlier", n->host, f->checks[se->check],
				obs_subject(n, ol->series), "outlier", se->key, v, m, msg });
	}
}

/* A finding for the text table: at most TEXT_MSG_MAX bytes, cut at a character boundary. */
#define TEXT_MSG_MAX 100

static const char *short_msg(const char *msg, char *buf, size_t len)
{
	size_t n = strlen(msg);

	if (n <= TEXT_MSG_MAX || len < TEXT_MSG_MAX + 4)
		return msg;
	n = TEXT_MSG_MAX;
	while (n > 0 && ((unsigned char)msg[n] & 0xc0) == 0x80)
		n--; /* not inside a UTF-8 sequence */
	snprintf(buf, len, "%.*s...", (int)n, msg);
	return buf;
}

static void render_text(const struct pf_fleet *f, FILE *out)
{
	struct pf_table t = { .ncol = 6 };
	char v[32], m[32], r[32];

	fprintf(out, "preflight fleet: %zu node%s from %zu report%s (%zu superseded, %zu rejected)\n",
		f->n_live, f->n_live == 1 ? "" : "s", f->n_nodes, f->n_nodes == 1 ? "" : "s",
		f->n_superseded, f->n_rejects);
	fprintf(out, "verdicts: %zu pass, %zu warn, %zu fail, %zu error\n\n",
		f->verdicts[PF_STATUS_PASS], f->verdicts[PF_STATUS_WARN],
		f->verdicts[PF_STATUS_FAIL], f->verdicts[PF_STATUS_ERROR]);

	if (f->n_failing) {
		fprintf(out, "Failing nodes (%zu)\n", f->n_failing);
		pf_table_row(&t, (const char *const[]){ "NODE", "VERDICT", "CHECK", "STATUS",
						     "SUBJECT", "FINDING" });
		for (size_t i = 0; i < f->n_failing; i++) {
			const struct fl_node *n = &f->nodes[f->failing[i]];

			for (size_t k = 0; k < n->n_checks; k++) {
				const struct fl_check_rec *c = &n->checks[k];

				char msg[TEXT_MSG_MAX + 8];

				if (bad(c->status))
					pf_table_row(&t, (const char *const[]){ n->host,
						pf_status_name(n->verdict), f->checks[c->check],
						pf_status_name(c->status), c->subject,
						short_msg(c->message, msg, sizeof(msg)) });
			}
		}
		pf_table_print(&t, out);
	} else {
		fputs("No failing nodes.\n", out);
	}

	fputs("\nChecks\n", out);
	t = (struct pf_table){ .ncol = 6, .right = { false, true, true, true, true, true } };
	pf_table_row(&t, (const char *const[]){ "CHECK", "PASS", "WARN", "FAIL", "SKIP", "ERROR" });
	for (size_t c = 0; c < f->n_checks; c++) {
		char n[PF_STATUS_COUNT][24];

		for (int s = 0; s < PF_STATUS_COUNT; s++)
			snprintf(n[s], sizeof(n[s]), "%zu", f->counts[c][s]);
		pf_table_row(&t, (const char *const[]){ f->checks[c], n[PF_STATUS_PASS],
			n[PF_STATUS_WARN], n[PF_STATUS_FAIL], n[PF_STATUS_SKIP], n[PF_STATUS_ERROR] });
	}
	pf_table_print(&t, out);

	if (!f->n_outliers) {
		size_t judged = 0;

		for (size_t s = 0; s < f->n_series; s++)
			judged += series_judged(&f->series[s]);
		if (judged)
			fprintf(out, "\nNo outliers (below %.0f%% of the fleet median).\n",
				f->fraction * 100.0);
		else if (f->n_live < PF_FLEET_MIN_SERIES)
			fprintf(out, "\nOutliers: not judged (fewer than %d nodes).\n",
				PF_FLEET_MIN_SERIES);
		else if (f->n_series)
			fprintf(out, "\nOutliers: not judged (fewer than %d nodes report each "
				     "bandwidth-like value).\n", PF_FLEET_MIN_SERIES);
		else
			fputs("\nOutliers: not judged (no bandwidth-like values in the reports).\n",
			      out);
		return;
	}
	fprintf(out, "\nOutliers: below %.0f%% of the fleet median (%zu)\n", f->fraction * 100.0,
		f->n_outliers);
	t = (struct pf_table){ .ncol = 7, .right = { false, false, false, false, true, true, true } };
	pf_table_row(&t, (const char *const[]){ "NODE", "CHECK", "KEY", "SUBJECT", "VALUE", "MEDIAN",
					     "RATIO" });
	for (size_t i = 0; i < f->n_outliers; i++) {
		const struct fl_outlier *ol = &f->outliers[i];
		const struct fl_series *se = &f->series[ol->series];
		const struct fl_node *n = &f->nodes[ol->node];

		fmt_num(v, sizeof(v), ol->value);
		fmt_num(m, sizeof(m), se->median);
		snprintf(r, sizeof(r), "%.2f", ratio(ol->value, se->median));
		pf_table_row(&t, (const char *const[]){ n->host, f->checks[se->check], se->key,
						     obs_subject(n, ol->series), v, m, r });
	}
	pf_table_print(&t, out);
}

int pf_fleet_render(const struct pf_fleet *f, enum pf_fleet_format fmt, FILE *out)
{
	switch (fmt) {
	case PF_FLEET_TEXT:
		render_text(f, out);
		break;
	case PF_FLEET_CSV:
		render_csv(f, out);
		break;
	case PF_FLEET_JSON: {
		PF_CLEANUP(pf_cjson_deletep) cJSON *j = pf_fleet_to_json(f);
		pf_autofree char *s = pf_json_print(j, f->compact);

		fputs(s, out);
		fputc('\n', out);
		break;
	}
	}
	return ferror(out) ? -EIO : 0;
}

static void fleet_usage(FILE *out)
{
	fputs("usage: preflight fleet [--format text|json|csv] [--outlier-fraction F]\n"
	      "                       [--recursive] [--output FILE] [--compact]\n"
	      "                       REPORT.json|DIR...\n"
	      "\n"
	      "One view of many nodes' reports: failing nodes, counts per check, and nodes\n"
	      "below F (default 0.9) x the fleet median of a bandwidth-like observation\n"
	      "(judged when at least 3 nodes report it).\n"
	      "\n"
	      "  --format FORMAT         text (default), json or csv\n"
	      "  --outlier-fraction F    outlier threshold, 0 < F <= 1 (default 0.9)\n"
	      "  --recursive, -r         also read *.json in the subdirectories of each DIR\n"
	      "                          (by default only the files directly in it)\n"
	      "  --output FILE           write the view to FILE atomically\n"
	      "  --compact               the JSON view on one line (default: indented like jq)\n"
	      "  --help                  this text\n"
	      "\n"
	      "Exit status: 0 no failing node, 1 a node failed or errored, 64 usage,\n"
	      "74 the view could not be written.\n",
	      out);
}

/* Add every report under one command-line argument; -errno for a path that cannot be opened. */
static int add_arg(struct pf_fleet *f, const char *arg, bool recursive, FILE *err)
{
	pf_autostrv char **paths = NULL;
	size_t subdirs = 0, before = pf_fleet_n_reports(f) + pf_fleet_n_rejected(f);
	int r;

	r = pf_fleet_list_dir(arg, recursive, &paths, &subdirs);
	if (r < 0 && r != -ENOTDIR) {
		fprintf(err, "preflight fleet: cannot open '%s': %s\n", arg, strerror(-r));
		return r;
	}
	if (r == -ENOTDIR) {
		pf_autofree char *why = NULL;

		if (pf_fleet_add_file(f, arg, &why) < 0)
			fprintf(err, "preflight fleet: skipping '%s': %s\n", arg, why);
		return 0;
	}
	for (char **p = paths; *p; p++) {
		pf_autofree char *why = NULL;

		if (pf_fleet_add_file(f, *p, &why) < 0)
			fprintf(err, "preflight fleet: skipping '%s': %s\n", *p, why);
	}
	if (!recursive && subdirs && pf_fleet_n_reports(f) + pf_fleet_n_rejected(f) == before)
		fprintf(err, "preflight fleet: '%s' holds no *.json file but %zu "
			     "subdirector%s: use --recursive to read them\n",
			arg, subdirs, subdirs == 1 ? "y" : "ies");
	return 0;
}

/* Render the view into memory and write it to @path through pf_output_write(). */
static int render_to_file(const struct pf_fleet *f, enum pf_fleet_format fmt, const char *path)
{
	pf_autofree char *buf = NULL, *err = NULL; /* the errno says enough */
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	if (!mem)
		return -errno;
	r = pf_fleet_render(f, fmt, mem);
	if (fclose(mem) == EOF && r == 0)
		r = -errno;
	if (r < 0)
		return r;
	r = pf_output_mkparents(path, &err);
	return r < 0 ? r : pf_output_write(path, buf, len);
}

int pf_fleet_main(int argc, char **argv, FILE *out, FILE *err)
{
	enum { OPT_FORMAT = 256, OPT_FRACTION, OPT_HELP, OPT_OUTPUT, OPT_COMPACT,
	       OPT_RECURSIVE = 'r' };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "outlier-fraction", required_argument, NULL, OPT_FRACTION },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "recursive", no_argument, NULL, OPT_RECURSIVE },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	PF_CLEANUP(pf_fleet_freep) struct pf_fleet *f = NULL;
	enum pf_fleet_format fmt = PF_FLEET_TEXT;
	double fraction = PF_FLEET_OUTLIER_FRACTION;
	const char *output = NULL;
	bool recursive = false, compact = false;
	int c, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (pf_fleet_format_from_name(optarg, &fmt) < 0) {
				fprintf(err, "preflight fleet: --format: unknown format '%s' "
					     "(text, json or csv)\n", optarg);
				return PF_EXIT_USAGE;
			}
			break;
		case OPT_FRACTION: {
			char *end;

			errno = 0;
			fraction = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(fraction > 0 && fraction <= 1)) {
				fprintf(err, "preflight fleet: --outlier-fraction: '%s' is not a "
					     "number in (0, 1]\n", optarg);
				return PF_EXIT_USAGE;
			}
			break;
		}
		case OPT_OUTPUT:
			if (!*optarg) {
				fputs("preflight fleet: --output: empty file name\n", err);
				return PF_EXIT_USAGE;
			}
			output = optarg;
			break;
		case OPT_RECURSIVE:
			recursive = true;
			break;
		case OPT_COMPACT:
			compact = true;
			break;
		case OPT_HELP:
			fleet_usage(out);
			return 0;
		case ':':
			fprintf(err, "preflight fleet: option '%s' needs a value\n", argv[optind - 1]);
			return PF_EXIT_USAGE;
		default:
			fprintf(err, "preflight fleet: unknown option '%s' (see preflight fleet "
				     "--help)\n", argv[optind - 1]);
			return PF_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fleet_usage(err);
		return PF_EXIT_USAGE;
	}

	f = pf_fleet_new(fraction);
	pf_fleet_set_compact(f, compact);
	for (int i = optind; i < argc; i++)
		if (add_arg(f, argv[i], recursive, err) < 0)
			return PF_EXIT_USAGE;
	if (!pf_fleet_n_reports(f)) {
		fprintf(err, "preflight fleet: no preflight.report/v1 reports found "
			     "(%zu file%s rejected)\n", pf_fleet_n_rejected(f),
			pf_fleet_n_rejected(f) == 1 ? "" : "s");
		return PF_EXIT_USAGE;
	}
	if (pf_fleet_n_rejected(f))
		fprintf(err, "preflight fleet: %zu file%s rejected\n", pf_fleet_n_rejected(f),
			pf_fleet_n_rejected(f) == 1 ? "" : "s");
	pf_fleet_finish(f);
	if (output) {
		r = render_to_file(f, fmt, output);
		if (r < 0) {
			fprintf(err, "preflight fleet: cannot write '%s': %s\n", output,
				strerror(-r));
			return PF_EXIT_IOERR;
		}
		return pf_fleet_n_failing(f) ? 1 : 0;
	}
	r = pf_fleet_render(f, fmt, out);
	if (r == 0 && fflush(out) == EOF)
		r = -errno;
	if (r < 0) {
		fprintf(err, "preflight fleet: cannot write the view: %s\n", strerror(-r));
		return PF_EXIT_IOERR;
	}
	return pf_fleet_n_failing(f) ? 1 : 0;
}
