// SPDX-License-Identifier: MIT
/*
 * fuzz_pci_speed.c - pf_parse_pci_speed(), pf_parse_pci_width() and pf_pci_gen() on link files.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	double gts = -1;
	int width = -1, r;

	r = pf_parse_pci_speed(text, &gts);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		int gen = pf_pci_gen(gts);

		PF_FUZZ_ASSERT(isfinite(gts) && gts > 0);
		PF_FUZZ_ASSERT(gen >= 0 && gen <= 16);
	}
	r = pf_parse_pci_width(text, &width);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		PF_FUZZ_ASSERT(width >= 1 && width <= 32);
	if (size >= sizeof(double)) {
		double d;

		memcpy(&d, data, sizeof(d));
		r = pf_pci_gen(d); /* any double, NaN and infinities included */
		PF_FUZZ_ASSERT(r >= 0 && r <= 16);
	}
	free(text);
	return 0;
}
