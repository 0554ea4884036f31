// SPDX-License-Identifier: MIT
/*
 * render_line.c - `--format line`: one line per check that did not pass, worst
 * first, for node-problem-detector's custom plugins (docs/kubernetes.md).
 *
 * NPD keeps a plugin's stdout cut to max_output_length (80 bytes unless its
 * config says otherwise) as the condition's message, and takes the condition
 * from the exit code (0 healthy, 1 problem, anything else unknown).  So the
 * first line is the worst check's, every line fits in r->line_max bytes, and a
 * run where every check passed (or skipped) prints a single "ok" line.  Skips
 * are not problems and get no line; the exit code is the run's, unchanged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* The finding that made the check's status: the first one as bad as the check. */
static const struct pf_finding *worst_finding(const struct pf_result *res)
{
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status == res->status)
			return &res->findings[i];
	return res->n_findings ? &res->findings[0] : NULL;
}

/*
 * Append @s to @buf (room @cap, @*len used), control characters (a newline
 * would start a line NPD never shows) as blanks.  Stops at @cap.
 */
static void put(char *buf, size_t cap, size_t *len, const char *s)
{
	for (; s && *s && *len < cap; s++)
		buf[(*len)++] = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
}

/*
 * Cut @buf (@len bytes) to at most @max bytes, never inside a UTF-8
 * sequence, ending with "..." when anything was cut.
 */
static size_t fit(char *buf, size_t len, size_t max)
{
	size_t keep;

	if (len <= max)
		return len;
	keep = max > 3 ? max - 3 : max;
	while (keep > 0 && ((unsigned char)buf[keep] & 0xc0) == 0x80)
		keep--;
	if (max > 3) {
		memcpy(buf + keep, "...", 3);
		keep += 3;
	}
	return keep;
}

static int print_line(FILE *out, const struct pf_run *run, unsigned int max)
{
	const struct pf_finding *f = worst_finding(&run->res);
	const char *msg = f ? f->message : run->res.summary;
	size_t cap = (size_t)max + 4, len = 0;
	char *buf = malloc(cap + 1);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	put(buf, cap, &len, run->check->name);
	put(buf, cap, &len, " ");
	put(buf, cap, &len, pf_status_name(run->res.status));
	put(buf, cap, &len, " ");
	if (f && f->subject) {
		put(buf, cap, &len, f->subject);
		put(buf, cap, &len, ": ");
	}
	put(buf, cap, &len, msg ? msg : "");
	len = fit(buf, len, max);
	buf[len] = '\0';
	if (fprintf(out, "%s\n", buf) < 0)
		rc = -EIO;
	free(buf);
	return rc;
}

int pf_render_line(const struct pf_report *r, FILE *out)
{
	static const enum pf_status order[] = { PF_STATUS_FAIL, PF_STATUS_ERROR, PF_STATUS_WARN };
	unsigned int max = r->line_max ? r->line_max : PF_LINE_MAX_DEFAULT;
	size_t counts[PF_STATUS_COUNT], printed = 0;
	char ok[64];
	int rc;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t i = 0; i < r->n_runs; i++) {
			if (r->runs[i].res.status != order[k])
				continue;
			rc = print_line(out, &r->runs[i], max);
			if (rc < 0)
				return rc;
			printed++;
		}
	if (printed)
		return 0;
	pf_report_counts(r, counts);
	snprintf(ok, sizeof(ok), "ok: %zu passed, %zu skipped", counts[PF_STATUS_PASS],
		 counts[PF_STATUS_SKIP]);
	return fprintf(out, "%.*s\n", (int)fit(ok, strlen(ok), max), ok) < 0 ? -EIO : 0;
}
