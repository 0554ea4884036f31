// SPDX-License-Identifier: MIT
/*
 * fleet_model.c - the model of `preflight fleet`: many nodes' reports read
 * into records.
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
 */
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "fleet_model.h"
#include "preflight/fs.h"
#include "preflight/strbuf.h"
#include "text.h"


struct pf_fleet *pf_fleet_new(double outlier_fraction)
{
	struct pf_fleet *f = pf_xcalloc(1, sizeof(*f));

	f->fraction = outlier_fraction;
	f->mesh_fraction = PF_MESH_SLOW_FRACTION;
	f->wiring = fl_wiring_new();
	f->fw = fl_fw_new();
	f->nvl = fl_nvl_new();
	return f;
}

/* Free a node's check records and observations (not its names). */
static void node_release_records(struct fl_node *n)
{
	for (size_t k = 0; k < n->n_checks; k++) {
		free(n->checks[k].subject);
		free(n->checks[k].message);
	}
	free(n->checks);
	for (size_t k = 0; k < n->n_obs; k++)
		free(n->obs[k].subject);
	free(n->obs);
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
		node_release_records(n);
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
	fl_mesh_free(f->mesh);
	fl_wiring_free(f->wiring);
	fl_fw_free(f->fw);
	fl_nvl_free(f->nvl);
	pf_fs_free(f->fs);
	free(f);
	return NULL;
}


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

void fl_reject(struct pf_fleet *f, const char *origin, const char *reason, char **ret_err)
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

		if (fl_bad(st) && !rec->message && fst && pf_status_from_name(fst, &fs) == 0 &&
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
	if (fl_bad(st) && !rec->message) {
		const char *summary = json_str(chk, "summary");

		rec->subject = pf_xstrdup("");
		rec->message = clean(summary);
	}
	return 0;
}

/* The "mesh" checks of an accepted report, merged into the mesh view. */
static void add_mesh(struct pf_fleet *f, const cJSON *checks, const char *origin)
{
	const cJSON *chk;

	cJSON_ArrayForEach(chk, checks) {
		const char *name = json_str(chk, "name");

		if (!name || strcmp(name, "mesh"))
			continue;
		if (!f->mesh) {
			f->mesh = pf_xcalloc(1, sizeof(*f->mesh));
			f->mesh->fraction = f->mesh_fraction;
		}
		fl_mesh_add_check(f->mesh, chk, origin);
	}
}

int pf_fleet_add_report(struct pf_fleet *f, const char *text, size_t len, const char *origin,
			char **ret_err)
{
	pf_autojson cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *checks, *chk, *node;
	const char *schema, *host, *verdict, *why = NULL;
	struct fl_node *n;
	enum pf_status worst = PF_STATUS_PASS;

	if (!root) {
		fl_reject(f, origin, "not valid JSON", ret_err);
		return -EINVAL;
	}
	schema = cJSON_IsObject(root) ? json_str(root, "schema") : NULL;
	if (!schema || strcmp(schema, "preflight.report/v1")) {
		/* never the value: a rejected file's content is not echoed (it may be anyone's) */
		fl_reject(f, origin, schema ? "not a preflight.report/v1 report (unknown schema)"
					    : "not a preflight.report/v1 report (schema missing)",
			  ret_err);
		return -EINVAL;
	}
	checks = cJSON_GetObjectItemCaseSensitive(root, "checks");
	if (!cJSON_IsArray(checks)) {
		fl_reject(f, origin, "report has no 'checks' array", ret_err);
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
		node_release_records(n);
		{
			pf_autofree char *reason = pf_xasprintf("malformed report: %s", why);

			fl_reject(f, origin, reason, ret_err);
		}
		return -EINVAL;
	}
	if (!verdict)
		n->verdict = worst == PF_STATUS_SKIP ? PF_STATUS_PASS : worst;
	n->host = clean(host && *host ? host : origin);
	n->named = host && *host;
	n->origin = clean(origin);
	n->started = clean(json_str(root, "started_at"));
	f->n_nodes++;
	add_mesh(f, checks, origin);
	fl_wiring_add_report(f->wiring, root, f->n_nodes - 1, n->host, origin);
	fl_fw_add_report(f->fw, checks, f->n_nodes - 1, n->host);
	fl_nvl_add_report(f->nvl, checks, f->n_nodes - 1, n->host);
	return 0;
}

int pf_fleet_add_file(struct pf_fleet *f, const char *path, char **ret_err)
{
	pf_autofree char *buf = NULL, *why = NULL;
	size_t len;
	int r;

	/* a regular file, opened O_NONBLOCK: a FIFO named *.json is rejected, never a hang */
	r = pf_read_input(path, PF_FLEET_MAX_REPORT, false, &buf, &len, &why);
	if (r < 0) {
		pf_autofree char *reason = r == -EINVAL || r == -EISDIR ?
			pf_xstrdup("not a regular file") : pf_xasprintf("cannot read: %s", strerror(-r));

		fl_reject(f, path, reason, ret_err);
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
		if (fl_bad(n->verdict)) {
			PF_GROW(f->failing, f->n_failing, cap);
			f->failing[f->n_failing++] = i;
		}
	}
	if (f->n_failing)
		qsort_r(f->failing, f->n_failing, sizeof(*f->failing), cmp_node_idx, f);
	find_outliers(f);
	if (f->mesh)
		fl_mesh_finish(f->mesh);
	{
		bool *superseded = pf_xcalloc(f->n_nodes + 1, sizeof(*superseded));

		for (size_t i = 0; i < f->n_nodes; i++)
			superseded[i] = f->nodes[i].superseded;
		fl_wiring_finish(f->wiring, superseded, f->n_nodes);
		fl_fw_finish(f->fw, superseded);
		fl_nvl_finish(f->nvl, superseded);
		free(superseded);
	}
}

void pf_fleet_set_mesh_fraction(struct pf_fleet *f, double fraction)
{
	f->mesh_fraction = fraction;
	if (f->mesh)
		f->mesh->fraction = fraction;
}

size_t pf_fleet_n_mesh_suspects(const struct pf_fleet *f)
{
	return f->mesh ? f->mesh->n_sus : 0;
}

void pf_fleet_mesh_errors(const struct pf_fleet *f, FILE *err)
{
	for (size_t i = 0; f->mesh && i < f->mesh->n_errs; i++)
		fprintf(err, "preflight fleet: '%s': mesh observations ignored: %s\n",
			f->mesh->errs[i].origin, f->mesh->errs[i].reason);
}

size_t pf_fleet_n_miswired(const struct pf_fleet *f)
{
	return f->wiring->n_mis_hosts;
}

void pf_fleet_wiring_errors(const struct pf_fleet *f, FILE *err)
{
	for (size_t i = 0; i < f->wiring->n_errs; i++)
		fprintf(err, "preflight fleet: '%s': rail table ignored: %s\n",
			f->wiring->errs[i].origin, f->wiring->errs[i].reason);
}

int pf_fleet_render_drain(const struct pf_fleet *f, FILE *out)
{
	/* the reports' own host names: nothing else is ever printed as a drain */
	PF_CLEANUP(pf_strmap_release) struct pf_strmap own = { 0 };

	for (size_t i = 0; i < f->n_nodes; i++)
		if (f->nodes[i].named)
			pf_strmap_put(&own, f->nodes[i].host, 1);
	if (f->mesh && f->mesh->size)
		fl_mesh_render_drain(f->mesh, &own, out);
	else if (!f->wiring->n_mis)
		fputs("# preflight fleet --drain-suspects: no mesh run in these reports "
		      "(preflight mesh): nothing to drain\n", out);
	/* miswired nodes: their cables need hands */
	if (f->wiring->n_mis) {
		size_t n = fl_wiring_render_drain(f->wiring, &own, out);

		fprintf(out, "# %zu miswired node%s to drain\n", n, n == 1 ? "" : "s");
	}
	return ferror(out) ? -EIO : 0;
}
