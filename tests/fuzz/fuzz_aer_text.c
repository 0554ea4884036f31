// SPDX-License-Identifier: MIT
/*
 * fuzz_aer_text.c - pf_parse_aer_stats() on PCIe AER statistics files
 * (aer_dev_correctable, _nonfatal, _fatal) and pf_aer_sum() on what it gives.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_aer_stats s;
	int r = pf_parse_aer_stats(text, &s);

	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -E2BIG || r == -ENODATA || r == -ERANGE);
	if (r == 0) {
		PF_FUZZ_ASSERT(s.n <= PF_AER_MAX_ERRS);
		for (size_t i = 0; i < s.n; i++)
			PF_FUZZ_ASSERT(pf_fuzz_terminated(s.err[i].name, sizeof(s.err[i].name)));
		(void)pf_aer_sum(&s);
	}
	free(text);
	return 0;
}
