// SPDX-License-Identifier: MIT
/*
 * fuzz_fleet_report.c - pf_fleet_add_report() on arbitrary report files, then the fleet view in every format.
 * Every view is valid UTF-8 without escape characters, whatever bytes the reports held.
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "fleet.h"
#include "report.h"

static bool clean(const char *s, size_t len)
{
	const char *end = s + len;

	while (s < end) {
		uint32_t cp;
		int n = pf_utf8_decode(s, &cp);

		if (n < 0 || cp == 0x1b)
			return false;
		s += n;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_fleet *f = pf_fleet_new(0.8);
	char *text = pf_fuzz_str(data, size);
	char *err = NULL;
	char *buf = NULL;
	size_t blen = 0;
	cJSON *j;
	int r;

	PF_FUZZ_ASSERT(f);
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
	for (int fmt = PF_FLEET_TEXT; fmt <= PF_FLEET_CSV; fmt++) {
		FILE *out = open_memstream(&buf, &blen);

		PF_FUZZ_ASSERT(out);
		PF_FUZZ_ASSERT(pf_fleet_render(f, (enum pf_fleet_format)fmt, out) == 0);
		fclose(out);
		PF_FUZZ_ASSERT(clean(buf, blen));
		free(buf);
		buf = NULL;
	}
	pf_fleet_free(f);
	free(text);
	return 0;
}
