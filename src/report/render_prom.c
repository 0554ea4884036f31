// SPDX-License-Identifier: MIT
/*
 * render_prom.c - the report in the Prometheus text exposition format, for
 * node_exporter's textfile collector (write it with --output to
 * /var/lib/node_exporter/textfile/preflight.prom; --output renames
 * atomically, as the collector requires).
 *
 * Families, each with HELP and TYPE before its samples, all gauges:
 *
 *   preflight_info{version,hostname,kernel,profile,root}   1
 *   preflight_verdict{status}                 1 for the verdict, 0 for the other
 *                                             statuses (pass, warn, fail, error)
 *   preflight_checks{status}                  number of checks per status
 *   preflight_check_status{check,status}      1 for the check's status, 0 for
 *                                             the other four (a state set)
 *   preflight_check_duration_seconds{check}   to the microsecond
 *   preflight_finding_status{check,subject,status,code,action}  1, one series
 *                                             per finding (its status; absent = not
 *                                             that status; code and action of a coded
 *                                             fail or warn, docs/codes.md, else "")
 *   preflight_observed{check,subject,key}     numeric observed values
 *   preflight_expected{check,subject,key}     numeric expected values
 *   preflight_run_duration_seconds
 *   preflight_last_run_timestamp_seconds      when the run started (Unix time)
 *
 * Observed and expected values come from the findings' JSON objects: numbers
 * as they are, booleans as 0/1, the strings "unlimited"/"infinity" as +Inf,
 * nested objects and arrays flattened into dotted keys ("lanes.0"); other
 * strings are not numbers and are left out.  Label values are UTF-8 with
 * \\, \" and \n escaped; invalid bytes and other control characters become
 * U+FFFD.  A series is written once: a later finding with the
 * same check, subject and key is dropped, so the output never holds
 * duplicate series.  No sample timestamps (the textfile collector rejects
 * them).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "report.h"

/* Series already written, so that none appears twice (open addressing). */
struct series_set {
	char **slots;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* True if @key was new (and is now recorded). */
static bool series_add(struct series_set *set, const char *key)
{
	size_t i;

	if (2 * (set->n + 1) > set->cap) {
		struct series_set bigger = { .cap = set->cap ? set->cap * 2 : 64 };

		bigger.slots = pf_xcalloc(bigger.cap, sizeof(char *));
		for (size_t k = 0; k < set->cap; k++) {
			if (!set->slots[k])
				continue;
			i = hash_str(set->slots[k]) & (bigger.cap - 1);
			while (bigger.slots[i])
				i = (i + 1) & (bigger.cap - 1);
			bigger.slots[i] = set->slots[k];
		}
		free(set->slots);
		bigger.n = set->n;
		*set = bigger;
	}
	for (i = hash_str(key) & (set->cap - 1); set->slots[i]; i = (i + 1) & (set->cap - 1))
		if (!strcmp(set->slots[i], key))
			return false;
	set->slots[i] = pf_xstrdup(key);
	set->n++;
	return true;
}

static void series_release(struct series_set *set)
{
	for (size_t k = 0; k < set->cap; k++)
		free(set->slots[k]);
	free(set->slots);
}

/*
 * A label value: valid UTF-8 (bad bytes and control characters other than
 * tab become U+FFFD), \ " and newline escaped.
 */
static void put_label_value(FILE *out, const char *s)
{
	while (s && *s) {
		uint32_t cp;
		int n = pf_utf8_decode(s, &cp);

		if (n < 0) {
			fputs("\xef\xbf\xbd", out);
			s++;
			continue;
		}
		if (cp == '\\')
			fputs("\\\\", out);
		else if (cp == '"')
			fputs("\\\"", out);
		else if (cp == '\n')
			fputs("\\n", out);
		else if ((cp < 0x20 && cp != '\t') || cp == 0x7f)
			fputs("\xef\xbf\xbd", out); /* legal, but no reader wants them */
		else
			fwrite(s, 1, (size_t)n, out);
		s += n;
	}
}

/* name{l1="v1",...}: labels and values NULL-terminated pairs. */
static char *series_name(const char *metric, const char *const *labels)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int r;

	PF_BUG_ON(!f);
	fputs(metric, f);
	if (labels && labels[0]) {
		fputc('{', f);
		for (size_t i = 0; labels[i]; i += 2) {
			fprintf(f, "%s%s=\"", i ? "," : "", labels[i]);
			put_label_value(f, labels[i + 1]);
			fputc('"', f);
		}
		fputc('}', f);
	}
	r = fclose(f);
	PF_BUG_ON(r != 0);
	return buf;
}

static void put_family(FILE *out, const char *metric, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", metric, help, metric);
}

static void put_sample(FILE *out, struct series_set *seen, const char *metric,
		       const char *const *labels, double v)
{
	pf_autofree char *name = series_name(metric, labels);
	char num[40];

	if (!series_add(seen, name))
		return;
	pf_format_double(num, sizeof(num), v);
	fprintf(out, "%s %s\n", name, num);
}

/* Numeric leaves of @j as key paths ("a.b.0"); strings that are not limits are skipped. */
static void put_values(FILE *out, struct series_set *seen, const char *metric,
		       const char *check, const char *subject, const char *prefix, const cJSON *j)
{
	const char *labels[] = { "check", check, "subject", subject, "key", prefix, NULL };
	const cJSON *it;
	size_t idx = 0;

	if (cJSON_IsNumber(j)) {
		put_sample(out, seen, metric, labels, j->valuedouble);
	} else if (cJSON_IsBool(j)) {
		put_sample(out, seen, metric, labels, cJSON_IsTrue(j) ? 1 : 0);
	} else if (cJSON_IsString(j)) {
		if (!strcasecmp(j->valuestring, "unlimited") ||
		    !strcasecmp(j->valuestring, "infinity"))
			put_sample(out, seen, metric, labels, INFINITY);
	} else if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		cJSON_ArrayForEach(it, j) {
			pf_autofree char *key = NULL;

			if (cJSON_IsObject(j))
				key = *prefix ? pf_xasprintf("%s.%s", prefix, it->string)
					      : pf_xstrdup(it->string);
			else
				key = *prefix ? pf_xasprintf("%s.%zu", prefix, idx)
					      : pf_xasprintf("%zu", idx);
			idx++;
			put_values(out, seen, metric, check, subject, key, it);
		}
	}
}

int pf_render_prom(const struct pf_report *r, FILE *out)
{
	static const enum pf_status verdicts[] = { PF_STATUS_PASS, PF_STATUS_WARN, PF_STATUS_FAIL,
						   PF_STATUS_ERROR };
	struct series_set seen = { 0 };
	enum pf_status verdict = pf_report_verdict(r);
	size_t c[PF_STATUS_COUNT];

	pf_report_counts(r, c);

	put_family(out, "preflight_info", "Constant 1, labelled with the preflight version and node.");
	{
		const char *l[] = { "version", r->version ? r->version : "", "hostname", r->hostname,
				    "kernel", r->kernel, "profile", r->profile ? r->profile : "",
				    "root", r->root ? r->root : "", NULL };

		put_sample(out, &seen, "preflight_info", l, 1);
	}

	put_family(out, "preflight_verdict",
		   "1 for the verdict of the last run (worst check status), 0 for the others.");
	for (size_t i = 0; i < PF_ARRAY_SIZE(verdicts); i++) {
		const char *l[] = { "status", pf_status_name(verdicts[i]), NULL };

		put_sample(out, &seen, "preflight_verdict", l, verdicts[i] == verdict);
	}

	put_family(out, "preflight_checks", "Number of checks that ended with each status.");
	for (int s = 0; s < PF_STATUS_COUNT; s++) {
		const char *l[] = { "status", pf_status_name((enum pf_status)s), NULL };

		put_sample(out, &seen, "preflight_checks", l, (double)c[s]);
	}

	put_family(out, "preflight_check_status",
		   "1 for the status of the check, 0 for the other statuses.");
	for (size_t i = 0; i < r->n_runs; i++)
		for (int s = 0; s < PF_STATUS_COUNT; s++) {
			const char *l[] = { "check", r->runs[i].check->name, "status",
					    pf_status_name((enum pf_status)s), NULL };

			put_sample(out, &seen, "preflight_check_status", l,
				   r->runs[i].res.status == (enum pf_status)s);
		}

	put_family(out, "preflight_check_duration_seconds", "Wall time the check took.");
	for (size_t i = 0; i < r->n_runs; i++) {
		const char *l[] = { "check", r->runs[i].check->name, NULL };

		put_sample(out, &seen, "preflight_check_duration_seconds", l,
			   round(r->runs[i].duration_ms * 1e3) / 1e6);
	}

	put_family(out, "preflight_finding_status",
		   "1 for each finding, labelled with its subject, status, and code and "
		   "action (empty on a finding without a code).");
	for (size_t i = 0; i < r->n_runs; i++)
		for (size_t k = 0; k < r->runs[i].res.n_findings; k++) {
			const struct pf_finding *f = &r->runs[i].res.findings[k];
			const char *l[] = { "check", r->runs[i].check->name, "subject",
					    f->subject ? f->subject : "", "status",
					    pf_status_name(f->status), "code",
					    f->code ? f->code : "", "action",
					    f->code ? pf_action_name(f->action) : "", NULL };

			put_sample(out, &seen, "preflight_finding_status", l, 1);
		}

	for (int e = 0; e < 2; e++) {
		const char *metric = e ? "preflight_expected" : "preflight_observed";

		put_family(out, metric, e ? "Numeric expected value of a finding, by key."
					  : "Numeric observed value of a finding, by key.");
		for (size_t i = 0; i < r->n_runs; i++)
			for (size_t k = 0; k < r->runs[i].res.n_findings; k++) {
				const struct pf_finding *f = &r->runs[i].res.findings[k];
				const cJSON *j = e ? f->expected : f->observed;

				if (j)
					put_values(out, &seen, metric, r->runs[i].check->name,
						   f->subject ? f->subject : "", "", j);
			}
	}

	put_family(out, "preflight_run_duration_seconds", "Wall time of the whole run.");
	put_sample(out, &seen, "preflight_run_duration_seconds", NULL,
		   round(r->duration_ms * 1e3) / 1e6);
	put_family(out, "preflight_last_run_timestamp_seconds",
		   "Unix time at which the last run started.");
	put_sample(out, &seen, "preflight_last_run_timestamp_seconds", NULL,
		   (double)r->started_at);

	series_release(&seen);
	return ferror(out) ? -EIO : 0;
}
