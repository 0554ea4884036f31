// SPDX-License-Identifier: MIT
/*
 * ethtool_sys.c - the two ways of asking the kernel, one request each: an
 * ethtool generic netlink GET (5.6+) and a SIOCETHTOOL ioctl, in the
 * pf_ethtool_sys table through which ethtool_nl.c and ethtool_ioctl.c use
 * them (ctx->prov->ethtool: tests answer as old kernels do with a table of
 * their own).
 */
#include <string.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "netlink_util.h"
#include "preflight/link_facts.h"
#include "preflight/net_facts.h"

int pf_ethtool_ioctl_fd(int fd, const char *ifname, void *data)
{
	struct ifreq ifr = { 0 };

	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	return pf_nerrno(ioctl(fd, SIOCETHTOOL, &ifr));
}

/* One SIOCETHTOOL request on a socket of its own: pf_ethtool_sys's ioctl. */
int pf_ethtool_ioctl_sys(const char *ifname, void *data)
{
	pf_autoclose int fd = -1;

	if (!*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	return pf_ethtool_ioctl_fd(fd, ifname, data);
}

/* Send one ethtool GET for @ifname and receive the raw reply. */
static int ethtool_request(uint8_t cmd, int header_attr, const char *ifname, uint32_t flags,
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
	if (family < 0) /* kernel without ethtool netlink (< 5.6) */
		return -EPROTONOSUPPORT;
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, cmd, ETHTOOL_GENL_VERSION))
		return -ENOMEM;
	nest = nla_nest_start(msg, header_attr);
	if (!nest || nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
	    (flags && nla_put_u32(msg, ETHTOOL_A_HEADER_FLAGS, flags) < 0))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return pf_nl_transact(sk, msg, ret_buf, ret_len);
}

const struct pf_ethtool_ops pf_ethtool_sys = {
	.genl = ethtool_request,
	.ioctl = pf_ethtool_ioctl_sys,
	.eeprom = pf_ethtool_eeprom_request,
};

static int no_genl(uint8_t cmd, int header_attr, const char *ifname, uint32_t flags,
		   void **ret_buf, size_t *ret_len)
{
	return -ENOSYS;
}

static int no_ioctl(const char *ifname, void *data)
{
	return -ENOSYS;
}

static int no_eeprom(const char *ifname, const struct pf_eeprom_ask *ask, void **ret_buf,
		     size_t *ret_len)
{
	return -ENOSYS;
}

const struct pf_ethtool_ops pf_ethtool_none = {
	.genl = no_genl,
	.ioctl = no_ioctl,
	.eeprom = no_eeprom,
};
