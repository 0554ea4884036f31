// SPDX-License-Identifier: MIT
/*
 * dcb_nl.c - the PFC configuration over rtnetlink DCB, as iproute2's
 * `dcb pfc show` reads it: RTM_GETDCB with DCB_CMD_IEEE_GET, whose reply
 * nests DCB_ATTR_IEEE_PFC (a raw struct ieee_pfc) in DCB_ATTR_IEEE.
 *
 * A netdev without dcbnl_ops (veth, most non-DCB NICs) answers EOPNOTSUPP.
 */
#include <string.h>

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <sys/socket.h>

#include "netlink_util.h"
#include "preflight/net_facts.h"

int pf_dcb_parse_ieee(const void *buf, size_t len, struct pf_pfc *ret)
{
	struct nlattr *tb[DCB_ATTR_MAX + 1], *ieee[DCB_ATTR_IEEE_MAX + 1];
	const struct nlmsghdr *nlh;
	struct dcbmsg dcb;
	struct ieee_pfc raw;
	struct pf_pfc pfc = { 0 };
	int r;

	r = pf_nl_find_reply(buf, len, RTM_GETDCB, &nlh);
	if (r < 0)
		return r;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(dcb)))
		return -EBADMSG;
	memcpy(&dcb, NLMSG_DATA(nlh), sizeof(dcb));
	if (dcb.cmd != DCB_CMD_IEEE_GET)
		return -EBADMSG;
	r = nlmsg_parse((struct nlmsghdr *)nlh, sizeof(dcb), tb, DCB_ATTR_MAX, NULL);
	if (r < 0)
		return -EBADMSG;
	if (!tb[DCB_ATTR_IEEE])
		return -EOPNOTSUPP;
	if (nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], NULL) < 0)
		return -EBADMSG;
	/* dcbnl puts DCB_ATTR_IEEE_PFC only when the driver has ieee_getpfc. */
	if (!ieee[DCB_ATTR_IEEE_PFC])
		return -EOPNOTSUPP;
	if (nla_len(ieee[DCB_ATTR_IEEE_PFC]) < (int)sizeof(raw))
		return -EBADMSG;
	memcpy(&raw, nla_data(ieee[DCB_ATTR_IEEE_PFC]), sizeof(raw));
	pfc.pfc_cap = raw.pfc_cap;
	pfc.pfc_en = raw.pfc_en;
	pfc.mbc = raw.mbc != 0;
	pfc.delay = raw.delay;
	pfc.has_counters = true;
	for (int i = 0; i < PF_PRIOS; i++) {
		pfc.requests[i] = raw.requests[i];
		pfc.indications[i] = raw.indications[i];
	}
	/* dcbnl always nests the APP table in an IEEE reply, empty when there is none */
	if (ieee[DCB_ATTR_IEEE_APP_TABLE]) {
		struct nlattr *a;
		int rem;

		pfc.has_app = true;
		nla_for_each_nested(a, ieee[DCB_ATTR_IEEE_APP_TABLE], rem) {
			struct dcb_app app;

			if (nla_type(a) != DCB_ATTR_IEEE_APP || nla_len(a) < (int)sizeof(app))
				continue;
			memcpy(&app, nla_data(a), sizeof(app));
			if (app.selector != IEEE_8021QAZ_APP_SEL_DSCP || app.protocol >= 64 ||
			    app.priority >= PF_PRIOS)
				continue;
			pfc.dscp_mapped |= 1ull << app.protocol;
			pfc.dscp_prio[app.protocol] = app.priority;
		}
	}
	*ret = pfc;
	return 0;
}

int pf_dcb_pfc_get(const char *ifname, struct pf_pfc *ret)
{
	pf_autonlsock struct nl_sock *sk = NULL;
	pf_autonlmsg struct nl_msg *msg = NULL;
	pf_autofree void *buf = NULL;
	struct dcbmsg dcb = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	size_t len;
	int r;

	if (!*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return pf_nl_errno(r);
	nl_socket_disable_auto_ack(sk);
	nl_socket_set_msg_buf_size(sk, 65536);
	msg = nlmsg_alloc_simple(RTM_GETDCB, NLM_F_REQUEST);
	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, &dcb, sizeof(dcb), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, DCB_ATTR_IFNAME, ifname) < 0)
		return -EMSGSIZE;
	r = pf_nl_transact(sk, msg, &buf, &len);
	return r < 0 ? r : pf_dcb_parse_ieee(buf, len, ret);
}

int pf_live_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	return pf_dcb_pfc_get(ifname, ret);
}
