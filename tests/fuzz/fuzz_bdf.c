// SPDX-License-Identifier: MIT
/*
 * fuzz_bdf.c - pf_is_bdf(), pf_bdf_normalize() and pf_pci_path_bdfs() on PCI addresses and paths.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	char out[16], root[16], again[16];
	char bdfs[4][16];
	int r;

	(void)pf_is_bdf(text);
	memset(out, 'x', sizeof(out));
	r = pf_bdf_normalize(text, out);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0) {
		/* the normal form is a sysfs BDF, and normalising is idempotent */
		PF_FUZZ_ASSERT(pf_is_bdf(out));
		PF_FUZZ_ASSERT(pf_bdf_normalize(out, again) == 0 && !strcmp(out, again));
	}
	for (size_t max = 0; max <= 4; max += 2) {
		memset(bdfs, 'x', sizeof(bdfs));
		memset(root, 'x', sizeof(root));
		r = pf_pci_path_bdfs(text, bdfs, max, root);
		PF_FUZZ_ASSERT(r >= 0);
		PF_FUZZ_ASSERT(pf_fuzz_terminated(root, sizeof(root)));
		for (size_t i = 0; i < max && i < (size_t)r; i++)
			PF_FUZZ_ASSERT(pf_is_bdf(bdfs[i]));
		for (size_t i = max; i < 4; i++)
			PF_FUZZ_ASSERT(bdfs[i][0] == 'x');
	}
	free(text);
	return 0;
}
