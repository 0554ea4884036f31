// SPDX-License-Identifier: MIT
/*
 * fleet_views.c - the views of `preflight fleet`: the finished model
 * (fleet_model.c) as JSON, CSV or an aligned text table.
 */
#include <math.h>
#include <string.h>

#include "fleet_model.h"
#include "output.h"
#include "table.h"
#include "text.h"

static bool series_judged(const struct fl_series *se)
{
	return se->n_nodes >= PF_FLEET_MIN_SERIES && se->median > 0;
}

static double ratio(double v, double median)
{
	return median > 0 ? round(v / median * 1000.0) / 1000.0 : 0;
}

/* "failing": each failing node with its fail/error checks' first bad finding. */
static void json_failing(const struct pf_fleet *f, cJSON *arr)
{
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

			if (!fl_bad(c->status))
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
}

/* "checks": each check's count of nodes per status. */
static void json_checks(const struct pf_fleet *f, cJSON *arr)
{
	for (size_t c = 0; c < f->n_checks; c++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", f->checks[c]);
		for (int s = 0; s < PF_STATUS_COUNT; s++)
			cJSON_AddNumberToObject(e, pf_status_name((enum pf_status)s),
						(double)f->counts[c][s]);
		cJSON_AddItemToArray(arr, e);
	}
}

/* "series": each (check, key) series that has nodes, with its spread. */
static void json_series(const struct pf_fleet *f, cJSON *arr)
{
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
}

/* "outliers": each node below its series' median, with the subject holding the value. */
static void json_outliers(const struct pf_fleet *f, cJSON *arr)
{
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
	json_failing(f, cJSON_AddArrayToObject(j, "failing"));
	json_checks(f, cJSON_AddArrayToObject(j, "checks"));
	json_series(f, cJSON_AddArrayToObject(j, "series"));
	json_outliers(f, cJSON_AddArrayToObject(j, "outliers"));
	if (f->mesh)
		cJSON_AddItemToObject(j, "mesh", fl_mesh_to_json(f->mesh));
	cJSON_AddItemToObject(j, "wiring", fl_wiring_to_json(f->wiring));
	if (fl_fw_any(f->fw)) /* only where some report's nic_health saw NIC firmware */
		cJSON_AddItemToObject(j, "firmware_drift", fl_fw_to_json(f->fw));
	if (fl_nvl_any(f->nvl)) /* only where some node's GPUs reported an NVLink cluster */
		cJSON_AddItemToObject(j, "nvlink_domains", fl_nvl_to_json(f->nvl));
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

			if (fl_bad(c->status))
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
	if (f->mesh)
		fl_mesh_render_csv(f->mesh, out, csv_row);
	fl_wiring_render_csv(f->wiring, out, csv_row);
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

static void render_text_outliers(const struct pf_fleet *f, FILE *out);

static void render_text_nodes(const struct pf_fleet *f, FILE *out)
{
	struct pf_table t = { .ncol = 6 };

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

				if (fl_bad(c->status))
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
	render_text_outliers(f, out);
	if (fl_fw_any(f->fw))
		fl_fw_render_text(f->fw, out);
	if (fl_nvl_any(f->nvl))
		fl_nvl_render_text(f->nvl, out);
}

/* The outliers table, or why there is none. */
static void render_text_outliers(const struct pf_fleet *f, FILE *out)
{
	struct pf_table t;
	char v[32], m[32], r[32];

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

static void render_text(const struct pf_fleet *f, FILE *out)
{
	render_text_nodes(f, out);
	if (f->mesh)
		fl_mesh_render_text(f->mesh, out);
	fl_wiring_render_text(f->wiring, out);
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
		pf_autojson cJSON *j = pf_fleet_to_json(f);
		pf_autofree char *s = pf_json_print(j, f->compact);

		fputs(s, out);
		fputc('\n', out);
		break;
	}
	}
	return ferror(out) ? -EIO : 0;
}
