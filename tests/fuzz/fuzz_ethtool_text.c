// SPDX-License-Identifier: MIT
/*
 * fuzz_ethtool_text.c - the recorded-root text parsers: `ethtool -S`, `ethtool -I -a`, `ethtool <if>`, `dcb pfc show`.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_stats stats = { NULL, 0 };
	struct pf_pause pause;
	struct pf_pfc pfc;
	struct pf_linkmodes lm;
	uint64_t v;
	int r;

	r = pf_parse_ethtool_stats(text, &stats);
	PF_FUZZ_ASSERT(r >= 0 || r == -EOPNOTSUPP || r == -EINVAL);
	if (r >= 0) {
		PF_FUZZ_ASSERT((size_t)r == stats.n);
		for (size_t i = 0; i < stats.n; i++) {
			PF_FUZZ_ASSERT(pf_fuzz_terminated(stats.v[i].name, sizeof(stats.v[i].name)));
			PF_FUZZ_ASSERT(pf_stats_get(&stats, stats.v[i].name, &v) == 0);
		}
	}
	pf_stats_release(&stats);
	PF_FUZZ_ASSERT(stats.v == NULL && stats.n == 0);

	r = pf_parse_ethtool_pause(text, &pause);
	PF_FUZZ_ASSERT(r == 0 || r == -EOPNOTSUPP || r == -EINVAL);
	r = pf_parse_dcb_pfc(text, &pfc);
	PF_FUZZ_ASSERT(r == 0 || r == -EOPNOTSUPP || r == -EINVAL);
	r = pf_parse_ethtool_settings(text, &lm);
	PF_FUZZ_ASSERT(r == 0 || r == -EOPNOTSUPP || r == -EINVAL);
	if (r == 0) {
		PF_FUZZ_ASSERT(lm.duplex >= -1 && lm.duplex <= 1);
		PF_FUZZ_ASSERT(lm.autoneg >= -1 && lm.autoneg <= 1);
	}
	free(text);
	return 0;
}
