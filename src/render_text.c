// SPDX-License-Identifier: MIT
/*
 * render_text.c - the report as an aligned table for people.
 *
 * One row per check; below a check that is not pass, its findings that are
 * not pass, each with its remedy.  Colour only when the caller asks (a TTY
 * without NO_COLOR).  Every string that may come from the node is cleaned
 * first (pf_utf8_clean): a sysfs file must not be able to send escape
 * sequences to the operator's terminal.
 */
#include <string.h>

#include "preflight/report.h"

static const char *colour(enum pf_status s)
{
	switch (s) {
	case PF_STATUS_PASS: return "\033[32m";
	case PF_STATUS_WARN: return "\033[33m";
	case PF_STATUS_FAIL: return "\033[1;31m";
	case PF_STATUS_ERROR: return "\033[1;35m";
	case PF_STATUS_SKIP: return "\033[2m";
	case PF_STATUS_COUNT: break;
	}
	return "";
}

static void put_status(FILE *out, enum pf_status s, bool color, int width)
{
	char word[8];

	snprintf(word, sizeof(word), "%s", pf_status_name(s));
	if (s == PF_STATUS_FAIL || s == PF_STATUS_ERROR)
		for (char *p = word; *p; p++)
			*p = (char)(*p - 'a' + 'A');
	if (color)
		fprintf(out, "%s%-*s\033[0m", colour(s), width, word);
	else
		fprintf(out, "%-*s", width, word);
}

/* fputs() of @s as valid UTF-8 without control characters. */
static void put_clean(FILE *out, const char *s)
{
	pf_autofree char *c = pf_utf8_clean(s, true);

	fputs(c, out);
}

/* "not selected: a, b (reason)", one line per reason, in registry order. */
static void put_unselected(const struct pf_report *r, FILE *out)
{
	for (size_t i = 0; i < r->n_unselected; i++) {
		const char *reason = r->unselected[i].reason;
		bool first = true, seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(r->unselected[k].reason, reason);
		if (seen)
			continue;
		for (size_t k = i; k < r->n_unselected; k++) {
			if (strcmp(r->unselected[k].reason, reason))
				continue;
			fprintf(out, "%s%s", first ? "\nnot selected: " : ", ", r->unselected[k].name);
			first = false;
		}
		fprintf(out, " (%s)", reason);
	}
	if (r->n_unselected)
		fputc('\n', out);
}

int pf_render_text(const struct pf_report *r, FILE *out, bool color)
{
	size_t c[PF_STATUS_COUNT];
	int name_w = 5;

	for (size_t i = 0; i < r->n_runs; i++) {
		int n = (int)strlen(r->runs[i].check->name);

		if (n > name_w)
			name_w = n;
	}
	fprintf(out, "preflight %s on ", r->version);
	put_clean(out, r->hostname);
	fputs(" (kernel ", out);
	put_clean(out, r->kernel);
	fputs(", root ", out);
	put_clean(out, r->root);
	fputs(", profile ", out);
	put_clean(out, r->profile);
	fputs(")\n\n", out);
	fprintf(out, "%-6s  %-*s  %9s  %s\n", "STATUS", name_w, "CHECK", "TIME", "SUMMARY");
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct pf_run *run = &r->runs[i];
		const struct pf_result *res = &run->res;

		put_status(out, res->status, color, 6);
		fprintf(out, "  %-*s  %6.1f ms  ", name_w, run->check->name, run->duration_ms);
		put_clean(out, res->summary);
		fputc('\n', out);
		if (res->status == PF_STATUS_PASS)
			continue;
		for (size_t k = 0; k < res->n_findings; k++) {
			const struct pf_finding *f = &res->findings[k];

			if (f->status == PF_STATUS_PASS)
				continue;
			if (res->status == PF_STATUS_SKIP && res->n_findings == 1)
				continue; /* the summary already says why */
			fprintf(out, "%8s", "");
			put_status(out, f->status, color, 5);
			fputc(' ', out);
			if (f->subject) {
				put_clean(out, f->subject);
				fputs(": ", out);
			}
			put_clean(out, f->message);
			fputc('\n', out);
			if (f->remedy) {
				fprintf(out, "%14sfix: ", "");
				put_clean(out, f->remedy);
				fputc('\n', out);
			}
		}
	}
	put_unselected(r, out);
	pf_report_counts(r, c);
	fputc('\n', out);
	fputs("verdict: ", out);
	put_status(out, pf_report_verdict(r), color, 0);
	fprintf(out, " (%zu pass, %zu warn, %zu fail, %zu skip, %zu error) in %.1f ms\n",
		c[PF_STATUS_PASS], c[PF_STATUS_WARN], c[PF_STATUS_FAIL], c[PF_STATUS_SKIP],
		c[PF_STATUS_ERROR], r->duration_ms);
	return ferror(out) ? -EIO : 0;
}
