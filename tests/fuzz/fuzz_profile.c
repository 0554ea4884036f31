// SPDX-License-Identifier: MIT
/*
 * fuzz_profile.c - profile JSON (pf_profile_parse) and --set overrides, validated against the check registry and built into every check's config.

 * Input: the profile text, then optionally a NUL byte and one --set string.
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "profile.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	char *text = pf_fuzz_str(data, tlen);
	char *set = nul ? pf_fuzz_str(nul + 1, size - tlen - 1) : NULL;
	const struct pf_check *const *all;
	struct pf_profile prof;
	char *err = NULL;
	size_t n;
	int r;

	all = pf_registry(&n);
	pf_profile_init(&prof);
	r = pf_profile_parse(&prof, text, "fuzz", &err);
	PF_FUZZ_ASSERT(r == 0 || (r == -EINVAL && err));
	free(err);
	err = NULL;
	if (set)
		pf_profile_add_set(&prof, set);
	if (r == 0 || set) {
		r = pf_profile_validate(&prof, all, n, &err);
		PF_FUZZ_ASSERT(r == 0 || (r < 0 && err));
		free(err);
		err = NULL;
		/* validated profiles build every config; others must fail cleanly */
		for (size_t i = 0; i < n; i++) {
			void *cfg = NULL;
			int rb = pf_config_build(all[i], &prof, &cfg, &err);

			PF_FUZZ_ASSERT(rb == 0 || (rb < 0 && err));
			if (r == 0)
				PF_FUZZ_ASSERT(rb == 0);
			if (rb == 0) {
				cJSON *j = pf_config_to_json(all[i], cfg);

				PF_FUZZ_ASSERT(j);
				cJSON_Delete(j);
				pf_config_free(all[i], cfg);
			}
			free(err);
			err = NULL;
		}
	}
	pf_profile_release(&prof);
	free(set);
	free(text);
	return 0;
}
