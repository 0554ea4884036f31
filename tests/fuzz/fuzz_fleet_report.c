// SPDX-License-Identifier: MIT
/*
 * fuzz_fleet_report.c - pf_fleet_add_report() on arbitrary report files, then the fleet view in every format.
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "preflight/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_fleet *f = pf_fleet_new(0.8);
	char *text = pf_fuzz_str(data, size);
	char *err = NULL;
	FILE *null = fopen("/dev/null", "w");
	cJSON *j;
	int r;

	PF_FUZZ_ASSERT(f && null);
	/* twice: the second copy exercises de-duplication by hostname */
	for (int i = 0; i < 2; i++) {
		r = pf_fleet_add_report(f, text, size, i ? "b.json" : "a.json", &err);
		PF_FUZZ_ASSERT(r == 0 || (r == -EINVAL && err));
		free(err);
		err = NULL;
	}
	PF_FUZZ_ASSERT(pf_fleet_n_reports(f) + pf_fleet_n_rejected(f) == 2);
	pf_fleet_finish(f);
	j = pf_fleet_to_json(f);
	PF_FUZZ_ASSERT(j);
	cJSON_Delete(j);
	for (int fmt = PF_FLEET_TEXT; fmt <= PF_FLEET_CSV; fmt++)
		PF_FUZZ_ASSERT(pf_fleet_render(f, (enum pf_fleet_format)fmt, null) == 0);
	fclose(null);
	pf_fleet_free(f);
	free(text);
	return 0;
}
