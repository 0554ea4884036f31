// SPDX-License-Identifier: MIT
/*
 * fuzz_mlxlink_text.c - the BER parser of `mlxlink -d <dev> -c`
 * (src/parse/parse_mlxlink.c): a BER it reports is a number in [0, 1], and
 * it reports one exactly when it returns 0.
 */
#include <errno.h>
#include <math.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_mlxlink_ber b;
	int r = pf_parse_mlxlink_ber(text, &b);

	PF_FUZZ_ASSERT(r == 0 || r == -ENODATA);
	PF_FUZZ_ASSERT((r == 0) == (b.has_eff || b.has_raw));
	if (b.has_eff)
		PF_FUZZ_ASSERT(isfinite(b.eff_ber) && b.eff_ber >= 0 && b.eff_ber <= 1);
	if (b.has_raw)
		PF_FUZZ_ASSERT(isfinite(b.raw_ber) && b.raw_ber >= 0 && b.raw_ber <= 1);
	free(text);
	return 0;
}
