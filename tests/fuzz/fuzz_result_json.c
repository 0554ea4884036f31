// SPDX-License-Identifier: MIT
/*
 * fuzz_result_json.c - pf_result_from_json(): the parent's reading of a check child's result over the pipe, and of stored reports.
 */
#include <errno.h>

#include <cjson/cJSON.h>

#include "fuzz.h"
#include "preflight/result.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *json = cJSON_ParseWithLength((const char *)data, size);
	struct pf_result res, again;
	cJSON *out;
	int r;

	if (!json)
		return 0;
	r = pf_result_from_json(json, &res);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0) {
		/* what was accepted serialises and reads back the same */
		out = pf_result_to_json(&res);
		PF_FUZZ_ASSERT(out);
		PF_FUZZ_ASSERT(pf_result_from_json(out, &again) == 0);
		PF_FUZZ_ASSERT(again.status == res.status && again.n_findings == res.n_findings);
		pf_result_release(&again);
		cJSON_Delete(out);
		pf_result_finish(&res);
		pf_result_release(&res);
	}
	cJSON_Delete(json);
	return 0;
}
