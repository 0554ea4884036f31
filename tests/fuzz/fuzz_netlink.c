// SPDX-License-Identifier: MIT
/*
 * fuzz_netlink.c - the netlink reply parsers (ethtool linkmodes and pause, DCB IEEE PFC, devlink
 * health reporters and info, the message walker) on raw bytes, and the SIOCETHTOOL stats payload.
 */
#include <errno.h>
#include <linux/netlink.h>

#include "fuzz.h"
#include "preflight/devlink.h"
#include "preflight/net_facts.h"

static void check_rc(int r)
{
	PF_FUZZ_ASSERT(r == 0 || r < 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* exact-size heap copies: ASan reports any read past a message */
	uint8_t *buf = pf_fuzz_dup(data, size);
	const struct nlmsghdr *nlh = NULL;
	struct pf_linkmodes lm;
	struct pf_pause pause;
	struct pf_pfc pfc;
	struct pf_stats stats = { NULL, 0 };
	int r;

	r = pf_nl_find_reply(buf, size, -1, &nlh);
	if (r == 0) {
		PF_FUZZ_ASSERT((const uint8_t *)nlh >= buf);
		PF_FUZZ_ASSERT((const uint8_t *)nlh + nlh->nlmsg_len <= buf + size);
	}
	if (size >= 4) {
		r = pf_nl_find_reply(buf, size, buf[4 % size] | buf[0] << 8, &nlh);
		if (r == 0)
			PF_FUZZ_ASSERT((const uint8_t *)nlh + nlh->nlmsg_len <= buf + size);
	}
	check_rc(pf_ethtool_parse_linkmodes(buf, size, &lm));
	check_rc(pf_ethtool_parse_pause(buf, size, &pause));
	check_rc(pf_dcb_parse_ieee(buf, size, &pfc));
	{
		struct pf_devlink_reporter *rep = NULL;
		struct pf_devlink_info *info = NULL;
		size_t n = 0;

		if (pf_devlink_parse_health(buf, size, &rep, &n) == 0)
			for (size_t i = 0; i < n; i++)
				PF_FUZZ_ASSERT(pf_fuzz_terminated(rep[i].name, sizeof(rep[i].name)));
		free(rep);
		if (pf_devlink_parse_info(buf, size, &info, &n) == 0)
			for (size_t i = 0; i < n; i++)
				PF_FUZZ_ASSERT(pf_fuzz_terminated(info[i].fw_stored,
								  sizeof(info[i].fw_stored)));
		free(info);
	}

	/* ETHTOOL_GSTRINGS + ETHTOOL_GSTATS: first byte picks the split */
	if (size >= 1) {
		size_t n_strings = data[0] % 8, n_values = (data[0] >> 3) % 8;
		size_t need = 1 + n_strings * 32 + n_values * 8;

		if (size >= need) {
			char *strings = (char *)pf_fuzz_dup(data + 1, n_strings * 32);
			uint64_t *values = (uint64_t *)pf_fuzz_dup(data + 1 + n_strings * 32,
								  n_values * 8);

			r = pf_ethtool_stats_from_raw(strings, n_strings, values, n_values, &stats);
			PF_FUZZ_ASSERT(r >= 0 || r == -EAGAIN || r == -EINVAL);
			for (size_t i = 0; r >= 0 && i < stats.n; i++)
				PF_FUZZ_ASSERT(pf_fuzz_terminated(stats.v[i].name,
								  sizeof(stats.v[i].name)));
			pf_stats_release(&stats);
			free(strings);
			free(values);
		}
	}
	free(buf);
	return 0;
}
