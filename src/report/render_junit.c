// SPDX-License-Identifier: MIT
/*
 * render_junit.c - the report as JUnit XML for CI systems.
 *
 * Layout (the Ant/Jenkins dialect that GitLab, GitHub actions and Jenkins
 * read):
 *
 *   <testsuites name="preflight" tests= failures= errors= skipped= time=>
 *     <testsuite name="preflight" hostname= timestamp= tests= ... time=>
 *       <properties> verdict, profile, root, kernel, version </properties>
 *       <testcase classname="<hostname>" name="<check>" time="<s>">
 *         <failure type="<code>" message="<summary>">  non-pass findings </failure>
 *         <system-out> every finding, one line each </system-out>
 *       </testcase>
 *
 * The failure's type is the finding code (PF-<CHECK>-<NNN>, docs/codes.md) of
 * the check's first finding of its status, else the status ("fail",
 * "error"); each finding's code and action follow its fix line.
 *
 * Status mapping: fail -> <failure>, error -> <error>, skip -> <skipped>,
 * pass and warn -> a passing testcase (warnings are listed in system-out,
 * since JUnit has no warning state).  Text is escaped for XML 1.0: markup
 * characters become entities, control characters that XML cannot carry and
 * invalid UTF-8 become U+FFFD, and in attributes tab/newline/CR become
 * character references so that attribute normalisation keeps them.
 */
#include <string.h>

#include "report.h"

/* Write @s escaped for XML; @attr selects attribute-value escaping. */
static void put_xml(FILE *out, const char *s, bool attr)
{
	while (s && *s) {
		uint32_t cp;
		int n = pf_utf8_decode(s, &cp);

		if (n < 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD for one bad byte */
			s++;
			continue;
		}
		switch (cp) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs(attr ? "&quot;" : "\"", out); break;
		case '\'': fputs(attr ? "&apos;" : "'", out); break;
		case '\t': fputs(attr ? "&#9;" : "\t", out); break;
		case '\n': fputs(attr ? "&#10;" : "\n", out); break;
		case '\r': fputs("&#13;", out); break;
		default:
			if (cp < 0x20 || cp == 0xfffe || cp == 0xffff)
				fputs("\xef\xbf\xbd", out); /* not a legal XML 1.0 Char */
			else
				fwrite(s, 1, (size_t)n, out);
		}
		s += n;
	}
}

static void put_attr(FILE *out, const char *name, const char *value)
{
	fprintf(out, " %s=\"", name);
	put_xml(out, value, true);
	fputc('"', out);
}

static void put_property(FILE *out, const char *name, const char *value)
{
	fputs("      <property", out);
	put_attr(out, "name", name);
	put_attr(out, "value", value);
	fputs("/>\n", out);
}

/* "FAIL mlx5_3/1: message" plus observed/expected/fix lines. */
static void put_finding(FILE *out, const struct pf_finding *f, bool details)
{
	char word[8];

	snprintf(word, sizeof(word), "%s", pf_status_name(f->status));
	for (char *p = word; *p; p++)
		*p = (char)(*p - 'a' + 'A');
	fprintf(out, "%s ", word);
	if (f->subject) {
		put_xml(out, f->subject, false);
		fputs(": ", out);
	}
	put_xml(out, f->message, false);
	fputc('\n', out);
	if (!details)
		return;
	for (int i = 0; i < 2; i++) {
		const cJSON *j = i == 0 ? f->observed : f->expected;
		char *text;

		if (!j)
			continue;
		text = cJSON_PrintUnformatted(j);
		if (!text)
			continue;
		fprintf(out, "  %s: ", i == 0 ? "observed" : "expected");
		put_xml(out, text, false);
		fputc('\n', out);
		free(text);
	}
	if (f->remedy) {
		fputs("  fix: ", out);
		put_xml(out, f->remedy, false);
		fputc('\n', out);
	}
	if (f->code)
		fprintf(out, "  code: %s (action: %s)\n", f->code, pf_action_name(f->action));
}

/* The failure's type: the code of the first finding of the check's status, else the status. */
static const char *failure_type(const struct pf_result *res)
{
	for (size_t k = 0; k < res->n_findings; k++)
		if (res->findings[k].status == res->status && res->findings[k].code)
			return res->findings[k].code;
	return pf_status_name(res->status);
}

static void put_testcase(FILE *out, const struct pf_report *r, const struct pf_run *run)
{
	const struct pf_result *res = &run->res;
	const char *element = NULL;
	char secs[32];

	fputs("    <testcase", out);
	put_attr(out, "classname", r->hostname);
	put_attr(out, "name", run->check->name);
	snprintf(secs, sizeof(secs), "%.6f", run->duration_ms / 1e3);
	put_attr(out, "time", secs);
	fputs(">\n", out);

	if (res->status == PF_STATUS_FAIL)
		element = "failure";
	else if (res->status == PF_STATUS_ERROR)
		element = "error";

	if (res->status == PF_STATUS_SKIP) {
		fputs("      <skipped", out);
		put_attr(out, "message", res->summary ? res->summary : "skipped");
		fputs("/>\n", out);
	} else if (element) {
		fprintf(out, "      <%s", element);
		put_attr(out, "type", failure_type(res));
		put_attr(out, "message", res->summary ? res->summary : "");
		fputs(">", out);
		for (size_t k = 0; k < res->n_findings; k++)
			if (res->findings[k].status != PF_STATUS_PASS)
				put_finding(out, &res->findings[k], true);
		fprintf(out, "</%s>\n", element);
	}
	if (res->n_findings) {
		fputs("      <system-out>", out);
		for (size_t k = 0; k < res->n_findings; k++)
			put_finding(out, &res->findings[k], false);
		fputs("</system-out>\n", out);
	}
	fputs("    </testcase>\n", out);
}

int pf_render_junit(const struct pf_report *r, FILE *out)
{
	size_t c[PF_STATUS_COUNT];
	char when[32], secs[32], num[4][24];
	struct tm tm;

	pf_report_counts(r, c);
	gmtime_r(&r->started_at, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(secs, sizeof(secs), "%.6f", r->duration_ms / 1e3);
	snprintf(num[0], sizeof(num[0]), "%zu", r->n_runs);
	snprintf(num[1], sizeof(num[1]), "%zu", c[PF_STATUS_FAIL]);
	snprintf(num[2], sizeof(num[2]), "%zu", c[PF_STATUS_ERROR]);
	snprintf(num[3], sizeof(num[3]), "%zu", c[PF_STATUS_SKIP]);

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	for (int level = 0; level < 2; level++) {
		fprintf(out, "%s<%s", level ? "  " : "", level ? "testsuite" : "testsuites");
		put_attr(out, "name", "preflight");
		if (level) {
			put_attr(out, "hostname", r->hostname);
			put_attr(out, "timestamp", when);
		}
		put_attr(out, "tests", num[0]);
		put_attr(out, "failures", num[1]);
		put_attr(out, "errors", num[2]);
		put_attr(out, "skipped", num[3]);
		put_attr(out, "time", secs);
		fputs(">\n", out);
	}
	fputs("    <properties>\n", out);
	put_property(out, "verdict", pf_status_name(pf_report_verdict(r)));
	put_property(out, "profile", r->profile ? r->profile : "");
	put_property(out, "root", r->root ? r->root : "");
	put_property(out, "kernel", r->kernel);
	put_property(out, "version", r->version ? r->version : "");
	fputs("    </properties>\n", out);
	for (size_t i = 0; i < r->n_runs; i++)
		put_testcase(out, r, &r->runs[i]);
	fputs("  </testsuite>\n</testsuites>\n", out);
	return ferror(out) ? -EIO : 0;
}
