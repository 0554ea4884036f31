// SPDX-License-Identifier: MIT
/*
 * ethtool_nl.c - link modes and pause parameters over ethtool netlink
 * (generic netlink family "ethtool", kernel >= 5.6), as `ethtool <if>` and
 * `ethtool -I -a <if>` read them.
 *
 * pf_ethtool_parse_*() turn reply bytes into plain structs and are tested on
 * recorded messages; pf_ethtool_*_get() do the socket I/O.  A driver
 * without get_link_ksettings / get_pauseparam answers EOPNOTSUPP (veth
 * has no pause operations).
 */
#include <string.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "preflight/net_facts.h"
#include "preflight/providers.h"


/* The genl reply carrying command @cmd, its attributes parsed into @tb. */
static int parse_genl(const void *buf, size_t len, uint8_t cmd, struct nlattr **tb, int max,
		      const struct nla_policy *policy)
{
	const struct nlmsghdr *nlh;
	struct genlmsghdr ghdr;
	int r;

	r = pf_nl_find_reply(buf, len, -1, &nlh);
	if (r < 0)
		return r;
	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	memcpy(&ghdr, NLMSG_DATA(nlh), sizeof(ghdr));
	if (ghdr.cmd != cmd)
		return -EBADMSG;
	r = genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, max, (struct nla_policy *)policy);
	return r < 0 ? -EBADMSG : 0;
}

int pf_ethtool_parse_linkmodes(const void *buf, size_t len, struct pf_linkmodes *ret)
{
	static const struct nla_policy policy[ETHTOOL_A_LINKMODES_MAX + 1] = {
		[ETHTOOL_A_LINKMODES_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_LINKMODES_AUTONEG] = { .type = NLA_U8 },
		[ETHTOOL_A_LINKMODES_SPEED] = { .type = NLA_U32 },
		[ETHTOOL_A_LINKMODES_DUPLEX] = { .type = NLA_U8 },
		[ETHTOOL_A_LINKMODES_LANES] = { .type = NLA_U32 },
	};
	struct nlattr *tb[ETHTOOL_A_LINKMODES_MAX + 1];
	struct pf_linkmodes lm = { .speed_mbps = PF_SPEED_UNKNOWN, .duplex = -1, .autoneg = -1 };
	int r;

	r = parse_genl(buf, len, ETHTOOL_MSG_LINKMODES_GET_REPLY, tb, ETHTOOL_A_LINKMODES_MAX,
		       policy);
	if (r < 0)
		return r;
	if (tb[ETHTOOL_A_LINKMODES_SPEED])
		lm.speed_mbps = nla_get_u32(tb[ETHTOOL_A_LINKMODES_SPEED]);
	if (tb[ETHTOOL_A_LINKMODES_LANES])
		lm.lanes = nla_get_u32(tb[ETHTOOL_A_LINKMODES_LANES]);
	if (tb[ETHTOOL_A_LINKMODES_DUPLEX]) {
		uint8_t d = nla_get_u8(tb[ETHTOOL_A_LINKMODES_DUPLEX]);

		lm.duplex = d == DUPLEX_FULL ? 1 : d == DUPLEX_HALF ? 0 : -1;
	}
	if (tb[ETHTOOL_A_LINKMODES_AUTONEG])
		lm.autoneg = nla_get_u8(tb[ETHTOOL_A_LINKMODES_AUTONEG]) != 0;
	*ret = lm;
	return 0;
}

int pf_ethtool_parse_pause(const void *buf, size_t len, struct pf_pause *ret)
{
	static const struct nla_policy policy[ETHTOOL_A_PAUSE_MAX + 1] = {
		[ETHTOOL_A_PAUSE_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_PAUSE_AUTONEG] = { .type = NLA_U8 },
		[ETHTOOL_A_PAUSE_RX] = { .type = NLA_U8 },
		[ETHTOOL_A_PAUSE_TX] = { .type = NLA_U8 },
		[ETHTOOL_A_PAUSE_STATS] = { .type = NLA_NESTED },
	};
	static const struct nla_policy stat_policy[ETHTOOL_A_PAUSE_STAT_MAX + 1] = {
		[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = { .type = NLA_U64 },
		[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = { .type = NLA_U64 },
	};
	struct nlattr *tb[ETHTOOL_A_PAUSE_MAX + 1];
	struct nlattr *st[ETHTOOL_A_PAUSE_STAT_MAX + 1];
	struct pf_pause pa = { 0 };
	int r;

	r = parse_genl(buf, len, ETHTOOL_MSG_PAUSE_GET_REPLY, tb, ETHTOOL_A_PAUSE_MAX, policy);
	if (r < 0)
		return r;
	if (!tb[ETHTOOL_A_PAUSE_RX] || !tb[ETHTOOL_A_PAUSE_TX])
		return -EBADMSG;
	pa.rx = nla_get_u8(tb[ETHTOOL_A_PAUSE_RX]) != 0;
	pa.tx = nla_get_u8(tb[ETHTOOL_A_PAUSE_TX]) != 0;
	if (tb[ETHTOOL_A_PAUSE_AUTONEG])
		pa.autoneg = nla_get_u8(tb[ETHTOOL_A_PAUSE_AUTONEG]) != 0;
	if (tb[ETHTOOL_A_PAUSE_STATS]) {
		if (nla_parse_nested(st, ETHTOOL_A_PAUSE_STAT_MAX, tb[ETHTOOL_A_PAUSE_STATS],
				     (struct nla_policy *)stat_policy) < 0)
			return -EBADMSG;
		/* The kernel omits counters the driver does not report. */
		if (st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]) {
			pa.tx_frames = nla_get_u64(st[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]);
			pa.has_stats = true;
		}
		if (st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]) {
			pa.rx_frames = nla_get_u64(st[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]);
			pa.has_stats = true;
		}
	}
	*ret = pa;
	return 0;
}

/*
 * Link modes: ethtool netlink (5.6+), else SIOCETHTOOL (RHEL 8's 4.18 and
 * anything older than 5.6 have no "ethtool" genl family).
 */
int pf_ethtool_linkmodes_get(const struct pf_ethtool_ops *ops, const char *ifname,
			     struct pf_linkmodes *ret)
{
	pf_autofree void *buf = NULL;
	size_t len;
	int r;

	/* Compact bitsets keep the reply small; the link-mode masks are not used. */
	r = ops->genl(ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, ifname,
		      ETHTOOL_FLAG_COMPACT_BITSETS, &buf, &len);
	if (r >= 0)
		return pf_ethtool_parse_linkmodes(buf, len, ret);
	if (r == -EPROTONOSUPPORT)
		return pf_ethtool_ioctl_linkmodes(ops, ifname, ret);
	return r;
}

/*
 * Pause parameters with the IEEE 802.3 pause frame counters
 * (ETHTOOL_FLAG_STATS, added with them in 5.10).  Kernels 5.6-5.9 reject the whole request
 * for a flag they do not know (EOPNOTSUPP, "unrecognized request flags";
 * later kernels' policy says EINVAL): asked again without it.  No genl
 * family (< 5.6): ETHTOOL_GPAUSEPARAM.
 */
int pf_ethtool_pause_get(const struct pf_ethtool_ops *ops, const char *ifname,
			 struct pf_pause *ret)
{
	pf_autofree void *buf = NULL;
	size_t len;
	int r;

	r = ops->genl(ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, ifname,
		      ETHTOOL_FLAG_STATS, &buf, &len);
	if (r >= 0)
		r = pf_ethtool_parse_pause(buf, len, ret);
	if (r == -EOPNOTSUPP || r == -EINVAL) {
		free(PF_TAKE_PTR(buf));
		r = ops->genl(ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, ifname, 0,
			      &buf, &len);
		if (r >= 0)
			r = pf_ethtool_parse_pause(buf, len, ret);
	}
	if (r == -EPROTONOSUPPORT)
		return pf_ethtool_ioctl_pause(ops, ifname, ret);
	return r;
}

int pf_live_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	return pf_ethtool_linkmodes_get(ctx->prov->ethtool, ifname, ret);
}

int pf_live_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	return pf_ethtool_pause_get(ctx->prov->ethtool, ifname, ret);
}
