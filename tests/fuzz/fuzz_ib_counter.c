// SPDX-License-Identifier: MIT
/*
 * fuzz_ib_counter.c - pf_parse_ib_counter() on counter files and pf_counter_delta() on any samples.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	uint64_t v = 0;
	int r = pf_parse_ib_counter(text, &v);

	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EOPNOTSUPP || r == -ERANGE);
	if (size >= 17) {
		uint64_t before, after;
		unsigned int width = data[16] % 70;
		bool saturating = size > 17 && (data[17] & 1);
		struct pf_counter_delta d;

		memcpy(&before, data, 8);
		memcpy(&after, data + 8, 8);
		r = pf_counter_delta(before, after, width, saturating, &d);
		PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
		if (r == 0 && width == 64 && !saturating && !d.reset)
			PF_FUZZ_ASSERT(d.delta == after - before);
		if (r == 0 && width < 64)
			PF_FUZZ_ASSERT(d.delta <= (1ULL << width));
	}
	free(text);
	return 0;
}
