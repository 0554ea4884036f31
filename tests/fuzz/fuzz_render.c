// SPDX-License-Identifier: MIT
/*
 * fuzz_render.c - the renderers (json, text, junit, prom) on arbitrary
 * results: any subject, message, remedy and observed value a check or a
 * child's pipe can carry, escaped for each format.  The JSON and text
 * renderings must be valid UTF-8, the JSON must parse back, and the text
 * (without colour) must carry no control character but newline: nothing
 * read from a node may drive the operator's terminal.
 * Input: a check result as JSON (what a child sends over its pipe).
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "registry.h"
#include "report.h"

static bool utf8_ok(const char *s, size_t len, bool controls_ok)
{
	const char *end = s + len;

	while (s < end) {
		uint32_t cp;
		int n = pf_utf8_decode(s, &cp);

		if (n < 0)
			return false;
		if (!controls_ok && ((cp < 0x20 && cp != '\n') || cp == 0x7f ||
				     (cp >= 0x80 && cp < 0xa0)))
			return false;
		s += n;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *json = cJSON_ParseWithLength((const char *)data, size);
	const struct pf_check *const *all;
	struct pf_report report;
	struct pf_run run;
	char *buf = NULL;
	size_t len = 0, n;
	FILE *f;

	if (!json)
		return 0;
	memset(&run, 0, sizeof(run));
	if (pf_result_from_json(json, &run.res) < 0) {
		cJSON_Delete(json);
		return 0;
	}
	cJSON_Delete(json);
	all = pf_registry(&n);
	run.check = all[size % n];
	run.duration_ms = (double)size / 7.0;
	memset(&report, 0, sizeof(report));
	report.version = "0.1.0";
	snprintf(report.hostname, sizeof(report.hostname), "fuzz-node");
	snprintf(report.kernel, sizeof(report.kernel), "6.8.0");
	report.root = "/";
	report.profile = "generic";
	report.runs = &run;
	report.n_runs = 1;
	for (int fmt = 0; fmt < PF_FORMAT_COUNT; fmt++) {
		f = open_memstream(&buf, &len);
		PF_FUZZ_ASSERT(f);
		PF_FUZZ_ASSERT(pf_render(&report, (enum pf_format)fmt, f, false) == 0);
		fclose(f);
		if (fmt == PF_FORMAT_JSON || fmt == PF_FORMAT_TEXT)
			PF_FUZZ_ASSERT(utf8_ok(buf, len, fmt == PF_FORMAT_JSON));
		if (fmt == PF_FORMAT_JSON) {
			cJSON *back = cJSON_ParseWithLength(buf, len);

			PF_FUZZ_ASSERT(back);
			cJSON_Delete(back);
		}
		free(buf);
		buf = NULL;
	}
	pf_result_release(&run.res);
	return 0;
}
