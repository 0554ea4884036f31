// SPDX-License-Identifier: MIT
/*
 * fuzz_u64_fields.c - pf_parse_u64_fields() on arbitrary sysctl values ("4096 131072 33554432").
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	/* guard words after the array catch a write past @max */
	uint64_t fields[5] = { 0, 0, 0, 0xfeedfacecafebeefULL, 0xfeedfacecafebeefULL };
	int r;

	for (size_t max = 0; max <= 3; max++) {
		r = pf_parse_u64_fields(text, fields, max);
		PF_FUZZ_ASSERT(r == -EINVAL || r == -E2BIG || r == -ERANGE ||
			       (r >= 0 && (size_t)r <= max));
		PF_FUZZ_ASSERT(fields[3] == 0xfeedfacecafebeefULL);
	}
	free(text);
	return 0;
}
