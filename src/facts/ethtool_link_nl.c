// SPDX-License-Identifier: MIT
/*
 * ethtool_link_nl.c - FEC counters and module EEPROM pages over ethtool
 * netlink (preflight/link_facts.h).  Attribute layout per the kernel's
 * include/uapi/linux/ethtool_netlink.h; the FEC statistics arrays are the
 * total followed by one u64 per lane (net/ethtool/fec.c).
 */
#include <net/if.h>
#include <string.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "netlink_util.h"
#include "preflight/link_facts.h"
#include "preflight/net_facts.h"

/* The genl reply of command @cmd in @buf, its attributes in @tb. */
static int genl_reply(const void *buf, size_t len, uint8_t cmd, struct nlattr **tb, int max,
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

/* One statistics array: total, then lanes; a length not a multiple of 8 is malformed. */
static int fec_counter(const struct nlattr *a, struct pf_fec_counter *ret)
{
	const unsigned char *p = nla_data(a);
	size_t n = (size_t)nla_len(a) / sizeof(uint64_t);

	if (n == 0 || (size_t)nla_len(a) % sizeof(uint64_t) || n > 1 + PF_FEC_LANES)
		return -EBADMSG;
	memcpy(&ret->total, p, sizeof(uint64_t));
	ret->n_lanes = (unsigned int)(n - 1);
	for (size_t i = 1; i < n; i++)
		memcpy(&ret->lane[i - 1], p + i * sizeof(uint64_t), sizeof(uint64_t));
	ret->has = true;
	return 0;
}

int pf_ethtool_parse_fec(const void *buf, size_t len, struct pf_fec *ret)
{
	static const struct nla_policy policy[ETHTOOL_A_FEC_MAX + 1] = {
		[ETHTOOL_A_FEC_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_FEC_AUTO] = { .type = NLA_U8 },
		[ETHTOOL_A_FEC_ACTIVE] = { .type = NLA_U32 },
		[ETHTOOL_A_FEC_STATS] = { .type = NLA_NESTED },
	};
	struct nlattr *tb[ETHTOOL_A_FEC_MAX + 1];
	struct nlattr *st[ETHTOOL_A_FEC_STAT_MAX + 1];
	struct pf_fec fec = { 0 };
	int r;

	r = genl_reply(buf, len, ETHTOOL_MSG_FEC_GET_REPLY, tb, ETHTOOL_A_FEC_MAX, policy);
	if (r < 0)
		return r;
	if (tb[ETHTOOL_A_FEC_ACTIVE])
		fec.active = nla_get_u32(tb[ETHTOOL_A_FEC_ACTIVE]);
	if (tb[ETHTOOL_A_FEC_STATS]) {
		if (nla_parse_nested(st, ETHTOOL_A_FEC_STAT_MAX, tb[ETHTOOL_A_FEC_STATS], NULL) < 0)
			return -EBADMSG;
		fec.has_stats = true;
		/* the kernel leaves out a counter the driver does not set */
		if (st[ETHTOOL_A_FEC_STAT_CORRECTED] &&
		    fec_counter(st[ETHTOOL_A_FEC_STAT_CORRECTED], &fec.corrected) < 0)
			return -EBADMSG;
		if (st[ETHTOOL_A_FEC_STAT_UNCORR] &&
		    fec_counter(st[ETHTOOL_A_FEC_STAT_UNCORR], &fec.uncorrectable) < 0)
			return -EBADMSG;
		if (st[ETHTOOL_A_FEC_STAT_CORR_BITS] &&
		    fec_counter(st[ETHTOOL_A_FEC_STAT_CORR_BITS], &fec.corrected_bits) < 0)
			return -EBADMSG;
	}
	*ret = fec;
	return 0;
}

int pf_ethtool_parse_module_eeprom(const void *buf, size_t len, uint8_t *data, size_t max,
				   size_t *ret_len)
{
	static const struct nla_policy policy[ETHTOOL_A_MODULE_EEPROM_MAX + 1] = {
		[ETHTOOL_A_MODULE_EEPROM_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_MODULE_EEPROM_DATA] = { .type = NLA_UNSPEC },
	};
	struct nlattr *tb[ETHTOOL_A_MODULE_EEPROM_MAX + 1];
	size_t n;
	int r;

	r = genl_reply(buf, len, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, tb,
		       ETHTOOL_A_MODULE_EEPROM_MAX, policy);
	if (r < 0)
		return r;
	if (!tb[ETHTOOL_A_MODULE_EEPROM_DATA])
		return -EBADMSG;
	n = (size_t)nla_len(tb[ETHTOOL_A_MODULE_EEPROM_DATA]);
	if (n > max)
		return -EMSGSIZE;
	memcpy(data, nla_data(tb[ETHTOOL_A_MODULE_EEPROM_DATA]), n);
	*ret_len = n;
	return 0;
}

int pf_ethtool_fec_request(const struct pf_ethtool_ops *ops, const char *ifname,
			   void **ret_buf, size_t *ret_len)
{
	return ops->genl(ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, ifname, ETHTOOL_FLAG_STATS,
			 ret_buf, ret_len);
}

/*
 * ETHTOOL_MSG_MODULE_EEPROM_GET needs the page's coordinates beside the
 * header, so it is a request of its own rather than pf_ethtool_ops.genl.
 * -EPROTONOSUPPORT without the "ethtool" genl family (< 5.6).
 */
int pf_ethtool_eeprom_request(const char *ifname, const struct pf_eeprom_ask *ask,
			      void **ret_buf, size_t *ret_len)
{
	pf_autonlsock struct nl_sock *sk = NULL;
	pf_autonlmsg struct nl_msg *msg = NULL;
	struct nlattr *nest;
	int family, r;

	if (!*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = genl_connect(sk);
	if (r < 0)
		return pf_nl_errno(r);
	nl_socket_disable_auto_ack(sk);
	nl_socket_set_msg_buf_size(sk, 65536);
	family = genl_ctrl_resolve(sk, ETHTOOL_GENL_NAME);
	if (family < 0)
		return -EPROTONOSUPPORT;
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			 ETHTOOL_MSG_MODULE_EEPROM_GET, ETHTOOL_GENL_VERSION))
		return -ENOMEM;
	nest = nla_nest_start(msg, ETHTOOL_A_MODULE_EEPROM_HEADER);
	if (!nest || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	if (nla_put_u32(msg, ETHTOOL_A_MODULE_EEPROM_OFFSET, ask->offset) < 0 ||
	    nla_put_u32(msg, ETHTOOL_A_MODULE_EEPROM_LENGTH, ask->length) < 0 ||
	    nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_PAGE, ask->page) < 0 ||
	    nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_BANK, ask->bank) < 0 ||
	    nla_put_u8(msg, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, ask->i2c_address) < 0)
		return -EMSGSIZE;
	return pf_nl_transact(sk, msg, ret_buf, ret_len);
}
