// SPDX-License-Identifier: MIT
/*
 * diff.c - the comparison of two reports under `preflight diff OLD.json
 * NEW.json` (its front end: src/cmd/diff.c) and the text view of the result.
 *
 * Checks are matched by name, findings within a check by subject (the n-th
 * finding with a subject in OLD against the n-th with the same subject in
 * NEW), observed values by key.  Status changes are ranked by how much they
 * say about the node: pass < skip < warn < error < fail, so a check that
 * passed and now skips (its data went away after a reimage) got worse too.
 * The comparison builds one preflight.diff/v1 object; the text view is
 * rendered from it.
 */
#include <math.h>
#include <string.h>

#include "diff.h"
#include "strmap.h"
#include "preflight/result.h"
#include "preflight/strbuf.h"
#include "table.h"
#include "text.h"

/* A report has one entry per registered check and a few findings per device. */
#define DIFF_MAX_CHECKS 1024u
#define DIFF_MAX_FINDINGS 1000000u

enum change { SAME, WORSE, BETTER, ADDED, REMOVED, APPEARED, GONE };

static const char *const change_names[] = {
	[SAME] = "same",       [WORSE] = "worse",   [BETTER] = "better",
	[ADDED] = "added",     [REMOVED] = "removed", [APPEARED] = "appeared",
	[GONE] = "gone",
};

/* How bad a status is for a node: a decision lost (skip) is worse than a pass. */
static int severity(enum pf_status s)
{
	switch (s) {
	case PF_STATUS_PASS: return 0;
	case PF_STATUS_SKIP: return 1;
	case PF_STATUS_WARN: return 2;
	case PF_STATUS_ERROR: return 3;
	case PF_STATUS_FAIL: return 4;
	default: return 4;
	}
}

static const char *jstr(const cJSON *obj, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static int jstatus(const cJSON *obj, const char *key, enum pf_status *ret)
{
	const char *s = jstr(obj, key);

	return s ? pf_status_from_name(s, ret) : -EINVAL;
}

static bool is_worse(enum change c)
{
	return c == WORSE;
}

static enum change compare(enum pf_status o, enum pf_status n)
{
	int a = severity(o), b = severity(n);

	return b > a ? WORSE : b < a ? BETTER : SAME;
}

static int check_report(const cJSON *r, const char *name, char **ret_err)
{
	const char *schema = cJSON_IsObject(r) ? jstr(r, "schema") : NULL;
	const cJSON *checks, *c;
	size_t n_checks = 0, n_findings = 0;

	if (!schema || strcmp(schema, "preflight.report/v1")) {
		*ret_err = pf_xasprintf("'%s' is not a preflight.report/v1 report", name);
		return -EINVAL;
	}
	checks = cJSON_GetObjectItemCaseSensitive(r, "checks");
	if (!cJSON_IsArray(checks)) {
		*ret_err = pf_xasprintf("'%s': the report has no 'checks' array", name);
		return -EINVAL;
	}
	cJSON_ArrayForEach(c, checks) {
		enum pf_status st;

		if (!jstr(c, "name") || jstatus(c, "status", &st) < 0) {
			*ret_err = pf_xasprintf("'%s': a check without a valid name and status",
						name);
			return -EINVAL;
		}
		n_checks++;
		n_findings += (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c,
											"findings"));
	}
	/* bounded like fleet's input: no report of preflight's comes near these */
	if (n_checks > DIFF_MAX_CHECKS || n_findings > DIFF_MAX_FINDINGS) {
		*ret_err = pf_xasprintf("'%s': %zu checks and %zu findings: more than a report "
					"holds (at most %u and %u)", name, n_checks, n_findings,
					DIFF_MAX_CHECKS, DIFF_MAX_FINDINGS);
		return -E2BIG;
	}
	return 0;
}

static const cJSON *find_check(const cJSON *report, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(report, "checks"))
		if (!strcmp(jstr(c, "name"), name))
			return c;
	return NULL;
}

static const char *subject_of(const cJSON *f)
{
	const char *s = jstr(f, "subject");

	return s ? s : "";
}

/*
 * The findings of one check by (subject, occurrence): the n-th finding with
 * a subject is found in O(1), so matching two checks is linear in their
 * findings (it was quadratic: 40k findings took minutes).
 */
struct findex {
	struct pf_strmap by_key;   /* "N\x1fSUBJECT" -> index in items */
	struct pf_strmap seen;     /* SUBJECT -> findings with it so far */
	const cJSON **items;
	size_t n, cap;
};

/* The key of the next finding with @subject met while walking a check. */
static char *next_key(struct findex *ix, const char *subject)
{
	uint32_t k = 0;

	pf_strmap_get(&ix->seen, subject, &k);
	pf_strmap_put(&ix->seen, subject, k + 1);
	return pf_xasprintf("%u\x1f%s", k, subject);
}

static void findex_build(struct findex *ix, const cJSON *check)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(check, "findings")) {
		pf_autofree char *key = next_key(ix, subject_of(f));

		PF_GROW(ix->items, ix->n, ix->cap);
		pf_strmap_put(&ix->by_key, key, (uint32_t)ix->n);
		ix->items[ix->n++] = f;
	}
	pf_strmap_release(&ix->seen); /* walked again by the matching side */
}

static const cJSON *findex_get(const struct findex *ix, const char *key)
{
	uint32_t i;

	return pf_strmap_get(&ix->by_key, key, &i) ? ix->items[i] : NULL;
}

static void findex_release(struct findex *ix)
{
	pf_strmap_release(&ix->by_key);
	pf_strmap_release(&ix->seen);
	free(ix->items);
}

static void add_status(cJSON *e, const char *key, const cJSON *from)
{
	const char *s = from ? jstr(from, "status") : NULL;

	if (s)
		cJSON_AddStringToObject(e, key, s);
	else
		cJSON_AddNullToObject(e, key);
}

static bool same_value(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble ||
		       (isnan(a->valuedouble) && isnan(b->valuedouble));
	return cJSON_Compare(a, b, true);
}

/* Observed values of a matched pair of findings that differ, into @values. */
static void diff_values(const cJSON *fo, const cJSON *fn, const char *subject, cJSON *values)
{
	const cJSON *oo = cJSON_GetObjectItemCaseSensitive(fo, "observed");
	const cJSON *on = cJSON_GetObjectItemCaseSensitive(fn, "observed");
	const cJSON *it;

	if (!cJSON_IsObject(oo))
		oo = NULL;
	if (!cJSON_IsObject(on))
		on = NULL;
	for (int pass = 0; pass < 2; pass++) {
		cJSON_ArrayForEach(it, (pass ? oo : on)) {
			const cJSON *other = cJSON_GetObjectItemCaseSensitive(pass ? on : oo,
									       it->string);
			const cJSON *a = pass ? it : other, *b = pass ? other : it;
			cJSON *e;

			if (pass && other)
				continue; /* compared in the first pass */
			if (a && b && same_value(a, b))
				continue;
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "subject", subject);
			cJSON_AddStringToObject(e, "key", it->string);
			cJSON_AddItemToObject(e, "old", a ? cJSON_Duplicate(a, true) : cJSON_CreateNull());
			cJSON_AddItemToObject(e, "new", b ? cJSON_Duplicate(b, true) : cJSON_CreateNull());
			if (cJSON_IsNumber(a) && cJSON_IsNumber(b) && a->valuedouble != 0 &&
			    isfinite(a->valuedouble) && isfinite(b->valuedouble))
				cJSON_AddNumberToObject(e, "change_pct",
							round((b->valuedouble - a->valuedouble) /
							      fabs(a->valuedouble) * 1000.0) / 10.0);
			cJSON_AddItemToArray(values, e);
		}
	}
}

static cJSON *finding_entry(const char *subject, const cJSON *fo, const cJSON *fn,
			    enum change ch)
{
	cJSON *e = cJSON_CreateObject();
	const char *msg = jstr(fn ? fn : fo, "message");

	cJSON_AddStringToObject(e, "subject", subject);
	add_status(e, "old", fo);
	add_status(e, "new", fn);
	cJSON_AddStringToObject(e, "change", change_names[ch]);
	cJSON_AddStringToObject(e, "message", msg ? msg : "");
	return e;
}

/*
 * Findings of a check present in both reports.  A finding that appears
 * with warn, error or fail got worse; one that passed or warned and went
 * away got worse too (a port or GPU that was checked is no longer there).
 */
static size_t diff_findings(const cJSON *co, const cJSON *cn, cJSON *findings, cJSON *values,
			    size_t *better)
{
	struct findex io = { 0 }, in = { 0 };
	const cJSON *f;
	size_t worse = 0;

	findex_build(&io, co);
	findex_build(&in, cn);
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(cn, "findings")) {
		const char *subject = subject_of(f);
		pf_autofree char *key = next_key(&in, subject);
		const cJSON *fo = findex_get(&io, key);
		enum pf_status sn, so;
		enum change ch;

		if (jstatus(f, "status", &sn) < 0)
			continue;
		if (!fo) {
			if (sn == PF_STATUS_PASS || sn == PF_STATUS_SKIP)
				continue; /* a new subject that is fine is not news */
			ch = severity(sn) >= severity(PF_STATUS_WARN) ? WORSE : APPEARED;
			cJSON_AddItemToArray(findings, finding_entry(subject, NULL, f, ch));
			worse += is_worse(ch);
			continue;
		}
		diff_values(fo, f, subject, values);
		if (jstatus(fo, "status", &so) < 0)
			continue;
		ch = compare(so, sn);
		if (ch == SAME)
			continue;
		cJSON_AddItemToArray(findings, finding_entry(subject, fo, f, ch));
		worse += is_worse(ch);
		*better += ch == BETTER;
	}
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(co, "findings")) {
		const char *subject = subject_of(f);
		pf_autofree char *key = next_key(&io, subject);
		enum pf_status so;
		enum change ch;

		if (findex_get(&in, key) || jstatus(f, "status", &so) < 0)
			continue;
		if (so == PF_STATUS_SKIP || so == PF_STATUS_ERROR || so == PF_STATUS_FAIL)
			ch = BETTER; /* a problem that went away */
		else
			ch = *subject ? GONE : SAME; /* a check-wide pass replaced: not news */
		if (ch == SAME)
			continue;
		cJSON_AddItemToArray(findings, finding_entry(subject, f, NULL, ch));
		worse += ch == GONE;
		*better += ch == BETTER;
	}
	findex_release(&io);
	findex_release(&in);
	return worse;
}

static cJSON *side(const cJSON *r, const char *name)
{
	cJSON *s = cJSON_CreateObject();
	const cJSON *node = cJSON_GetObjectItemCaseSensitive(r, "node");
	const char *v;

	cJSON_AddStringToObject(s, "report", name);
	v = jstr(node, "hostname");
	cJSON_AddStringToObject(s, "hostname", v ? v : "");
	v = jstr(r, "started_at");
	cJSON_AddStringToObject(s, "started_at", v ? v : "");
	v = jstr(r, "profile");
	cJSON_AddStringToObject(s, "profile", v ? v : "");
	return s;
}

/* A report's verdict, or its worst check when it has none. */
static enum pf_status verdict_of(const cJSON *r)
{
	enum pf_status v = PF_STATUS_PASS, st;
	const cJSON *c;

	if (jstatus(r, "verdict", &v) == 0)
		return v;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(r, "checks"))
		if (jstatus(c, "status", &st) == 0 && st != PF_STATUS_SKIP)
			v = pf_status_worst(v, st);
	return v;
}

static cJSON *check_entry(const char *name, const cJSON *co, const cJSON *cn, enum change ch)
{
	cJSON *e = cJSON_CreateObject();
	const char *summary = jstr(cn ? cn : co, "summary");

	cJSON_AddStringToObject(e, "name", name);
	add_status(e, "old", co);
	add_status(e, "new", cn);
	cJSON_AddStringToObject(e, "change", change_names[ch]);
	cJSON_AddStringToObject(e, "summary", summary ? summary : "");
	return e;
}

int pf_diff(const cJSON *old_report, const cJSON *new_report, const char *old_name,
	    const char *new_name, cJSON **ret, char **ret_err)
{
	pf_autojson cJSON *d = NULL;
	cJSON *checks, *verdict, *counts;
	const cJSON *c;
	enum pf_status vo, vn;
	enum change vch;
	size_t worse = 0, better = 0, moved = 0;

	if (check_report(old_report, old_name, ret_err) < 0 ||
	    check_report(new_report, new_name, ret_err) < 0)
		return -EINVAL;
	d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "schema", PF_DIFF_SCHEMA);
	cJSON_AddItemToObject(d, "old", side(old_report, old_name));
	cJSON_AddItemToObject(d, "new", side(new_report, new_name));
	vo = verdict_of(old_report);
	vn = verdict_of(new_report);
	vch = compare(vo, vn);
	verdict = cJSON_AddObjectToObject(d, "verdict");
	cJSON_AddStringToObject(verdict, "old", pf_status_name(vo));
	cJSON_AddStringToObject(verdict, "new", pf_status_name(vn));
	cJSON_AddStringToObject(verdict, "change", change_names[vch]);
	counts = cJSON_AddObjectToObject(d, "counts");
	checks = cJSON_AddArrayToObject(d, "checks");

	/* NEW's checks in its order, then those only OLD has */
	for (int pass = 0; pass < 2; pass++) {
		cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(pass ? old_report : new_report,
								      "checks")) {
			const char *name = jstr(c, "name");
			const cJSON *co = pass ? c : find_check(old_report, name);
			const cJSON *cn = pass ? find_check(new_report, name) : c;
			cJSON *e, *findings, *values;
			enum pf_status so, sn;
			enum change ch;
			size_t fworse;

			if (pass && cn)
				continue;
			if (!co || !cn) {
				ch = co ? REMOVED : ADDED;
				cJSON_AddItemToArray(checks, check_entry(name, co, cn, ch));
				continue;
			}
			jstatus(co, "status", &so);
			jstatus(cn, "status", &sn);
			ch = compare(so, sn);
			findings = cJSON_CreateArray();
			values = cJSON_CreateArray();
			fworse = diff_findings(co, cn, findings, values, &better);
			if (ch == SAME && !cJSON_GetArraySize(findings) &&
			    !cJSON_GetArraySize(values)) {
				cJSON_Delete(findings);
				cJSON_Delete(values);
				continue;
			}
			e = check_entry(name, co, cn, ch);
			cJSON_AddItemToObject(e, "findings", findings);
			cJSON_AddItemToObject(e, "values", values);
			cJSON_AddItemToArray(checks, e);
			worse += (ch == WORSE) + fworse;
			better += ch == BETTER;
			moved += (size_t)cJSON_GetArraySize(values);
		}
	}
	cJSON_AddNumberToObject(counts, "worse", (double)worse);
	cJSON_AddNumberToObject(counts, "better", (double)better);
	cJSON_AddNumberToObject(counts, "values_moved", (double)moved);
	cJSON_AddBoolToObject(d, "worse", worse > 0 || vch == WORSE);
	*ret = d;
	d = NULL;
	return 0;
}

/* ---- text view ------------------------------------------------------------ */

static char *clean(const char *s)
{
	return pf_utf8_clean(s ? s : "", true);
}

static const char *status_or_dash(const cJSON *e, const char *key)
{
	const char *s = jstr(e, key);

	return s ? s : "-";
}

static void value_text(const cJSON *v, char *buf, size_t len)
{
	if (cJSON_IsNumber(v)) {
		pf_format_double(buf, len, v->valuedouble);
	} else if (cJSON_IsString(v)) {
		pf_autofree char *c = clean(v->valuestring);

		snprintf(buf, len, "%s", c);
	} else if (cJSON_IsNull(v) || !v) {
		snprintf(buf, len, "-");
	} else {
		pf_autofree char *t = cJSON_PrintUnformatted(v);
		pf_autofree char *c = clean(t);

		snprintf(buf, len, "%s", c);
	}
}

static void side_line(FILE *out, const char *label, const cJSON *s)
{
	pf_autofree char *host = clean(jstr(s, "hostname"));
	pf_autofree char *rep = clean(jstr(s, "report"));

	fprintf(out, "%s %s, %s (%s)\n", label, *host ? host : "unknown host",
		*jstr(s, "started_at") ? jstr(s, "started_at") : "no start time", rep);
}

int pf_diff_render_text(const cJSON *d, FILE *out)
{
	const cJSON *verdict = cJSON_GetObjectItemCaseSensitive(d, "verdict");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(d, "counts");
	const cJSON *c, *it;
	struct pf_table t = { .ncol = 6 };
	size_t n_status = 0, n_values = 0;
	bool worse = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "worse"));

	side_line(out, "old:", cJSON_GetObjectItemCaseSensitive(d, "old"));
	side_line(out, "new:", cJSON_GetObjectItemCaseSensitive(d, "new"));
	fprintf(out, "verdict: %s -> %s%s%s%s\n\n", jstr(verdict, "old"), jstr(verdict, "new"),
		strcmp(jstr(verdict, "change"), "same") ? " (" : "",
		strcmp(jstr(verdict, "change"), "same") ? jstr(verdict, "change") : "",
		strcmp(jstr(verdict, "change"), "same") ? ")" : "");

	pf_table_row(&t, (const char *const[]){ "CHANGE", "CHECK", "SUBJECT", "OLD", "NEW",
						"NOW" });
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
		pf_autofree char *name = clean(jstr(c, "name"));

		if (strcmp(jstr(c, "change"), "same")) {
			pf_autofree char *summary = clean(jstr(c, "summary"));

			pf_table_row(&t, (const char *const[]){ jstr(c, "change"), name, "",
				status_or_dash(c, "old"), status_or_dash(c, "new"), summary });
			n_status++;
		}
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(c, "findings")) {
			pf_autofree char *subject = clean(jstr(it, "subject"));
			pf_autofree char *msg = clean(jstr(it, "message"));

			pf_table_row(&t, (const char *const[]){ jstr(it, "change"), name, subject,
				status_or_dash(it, "old"), status_or_dash(it, "new"), msg });
			n_status++;
		}
	}
	if (n_status) {
		fprintf(out, "Status changes (%zu)\n", n_status);
		pf_table_print(&t, out);
	} else {
		fputs("No check or finding changed status.\n", out);
		pf_table_clear(&t);
	}

	t = (struct pf_table){ .ncol = 6, .right = { false, false, false, true, true, true } };
	pf_table_row(&t, (const char *const[]){ "CHECK", "SUBJECT", "KEY", "OLD", "NEW",
						"CHANGE" });
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(d, "checks")) {
		pf_autofree char *name = clean(jstr(c, "name"));

		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(c, "values")) {
			pf_autofree char *subject = clean(jstr(it, "subject"));
			pf_autofree char *key = clean(jstr(it, "key"));
			const cJSON *pct = cJSON_GetObjectItemCaseSensitive(it, "change_pct");
			char o[64], n[64], p[32] = "";

			value_text(cJSON_GetObjectItemCaseSensitive(it, "old"), o, sizeof(o));
			value_text(cJSON_GetObjectItemCaseSensitive(it, "new"), n, sizeof(n));
			if (cJSON_IsNumber(pct))
				snprintf(p, sizeof(p), "%+.1f%%", pct->valuedouble);
			pf_table_row(&t, (const char *const[]){ name, subject, key, o, n, p });
			n_values++;
		}
	}
	if (n_values) {
		fprintf(out, "\nValues that moved (%zu)\n", n_values);
		pf_table_print(&t, out);
	} else {
		pf_table_clear(&t);
	}
	fprintf(out, "\n%s: %d got worse, %d better, %d value%s moved\n",
		worse ? "worse" : "not worse",
		(int)cJSON_GetObjectItemCaseSensitive(counts, "worse")->valuedouble,
		(int)cJSON_GetObjectItemCaseSensitive(counts, "better")->valuedouble,
		(int)n_values, n_values == 1 ? "" : "s");
	return ferror(out) ? -EIO : 0;
}
