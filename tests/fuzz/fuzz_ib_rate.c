// SPDX-License-Identifier: MIT
/*
 * fuzz_ib_rate.c - pf_parse_ib_rate() and pf_parse_state_line() on arbitrary port files.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_ib_rate rate;
	char name[32];
	int num = 0, r;

	memset(&rate, 0, sizeof(rate));
	r = pf_parse_ib_rate(text, &rate);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		PF_FUZZ_ASSERT(isfinite(rate.gbps) && rate.gbps > 0);
		PF_FUZZ_ASSERT(rate.width == 1 || rate.width == 2 || rate.width == 4 ||
			       rate.width == 8 || rate.width == 12);
		PF_FUZZ_ASSERT(pf_fuzz_terminated(rate.speed, sizeof(rate.speed)));
	}
	for (size_t len = 1; len <= sizeof(name); len += 15) {
		memset(name, 'x', sizeof(name));
		r = pf_parse_state_line(text, &num, name, len);
		PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
		if (r == 0)
			PF_FUZZ_ASSERT(pf_fuzz_terminated(name, len));
		/* nothing written past @len */
		for (size_t i = len; i < sizeof(name); i++)
			PF_FUZZ_ASSERT(name[i] == 'x');
	}
	free(text);
	return 0;
}
