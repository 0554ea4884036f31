// SPDX-License-Identifier: MIT
/*
 * fuzz_render.c - the renderers (json, text, junit, prom) on arbitrary
 * results: any subject, message, remedy and observed value a check or a
 * child's pipe can carry, escaped for each format.  The JSON rendering
 * must parse back; the others must not crash or read out of bounds.
 * Input: a check result as JSON (what a child sends over its pipe).
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "preflight/registry.h"
#include "preflight/report.h"

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
		PF_FUZZ_ASSERT(pf_render(&report, (enum pf_format)fmt, f, fmt == PF_FORMAT_TEXT) == 0);
		fclose(f);
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
