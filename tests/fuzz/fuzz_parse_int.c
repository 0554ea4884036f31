// SPDX-License-Identifier: MIT
/*
 * fuzz_parse_int.c - pf_parse_u64() and pf_parse_i64(), the integer readers of every sysfs file.
 */
#include <errno.h>
#include <inttypes.h>

#include "fuzz.h"
#include "preflight/fs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	uint64_t u = 0;
	int64_t i = 0;
	int ru = pf_parse_u64(text, &u);
	int ri = pf_parse_i64(text, &i);

	PF_FUZZ_ASSERT(ru == 0 || ru == -EINVAL || ru == -ERANGE);
	PF_FUZZ_ASSERT(ri == 0 || ri == -EINVAL || ri == -ERANGE);
	/* a decimal value both accept is the same number */
	if (ru == 0 && ri == 0 && i >= 0)
		PF_FUZZ_ASSERT((uint64_t)i == u);
	/* what was accepted prints back and parses to itself */
	if (ru == 0) {
		char buf[32];
		uint64_t again = 0;

		snprintf(buf, sizeof(buf), "%" PRIu64, u);
		PF_FUZZ_ASSERT(pf_parse_u64(buf, &again) == 0 && again == u);
	}
	free(text);
	return 0;
}
