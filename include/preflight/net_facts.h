/* SPDX-License-Identifier: MIT */
/*
 * net_facts.h - facts about RoCE netdevs that are not files, as src/facts
 * reads them: link modes and pause parameters (ethtool netlink), driver
 * statistics (SIOCETHTOOL, the `ethtool -S` counters), the PFC configuration
 * (rtnetlink DCB), and the IPv4 addresses and policy rules (rtnetlink).  The
 * types of the ethtool and DCB facts and their text parsers are net.h.
 *
 * Each fact has three layers: socket I/O (src/facts/ethtool_nl.c,
 * src/facts/ethtool_ioctl.c, src/facts/dcb_nl.c, src/facts/rtaddr.c,
 * src/facts/rtrule.c) that returns the kernel's raw reply, a parser that
 * turns reply bytes into the structs (unit-tested on recorded bytes), and a
 * text parser for the standard tools' output that the recorded backend reads
 * under <root>/preflight/ (src/parse/parse_ethtool.c,
 * src/facts/recorded_net.c; docs/snapshot.md).  A driver that lacks the
 * operation gives -EOPNOTSUPP, which callers report as "not supported",
 * never as an error.
 */
#ifndef PREFLIGHT_NET_FACTS_H
#define PREFLIGHT_NET_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/check.h"
#include "preflight/net.h"

/* The IPv4 addresses of one interface (RTM_GETADDR, or `ip -o -4 addr show dev <if>`). */
#define PF_IPV4_ADDRS_MAX 32
struct pf_ipv4_addr {
	uint32_t addr;       /* host byte order */
	unsigned int prefix; /* 0..32 */
};
struct pf_ipv4_addrs {
	struct pf_ipv4_addr v[PF_IPV4_ADDRS_MAX];
	size_t n; /* addresses past PF_IPV4_ADDRS_MAX are dropped */
};

/*
 * `ip -o -4 addr show dev <if>` lines ("5: eth0    inet 10.0.0.1/24 brd ...");
 * lines without "inet" are ignored, a malformed address is -EINVAL.
 */
int pf_parse_ip_addr(const char *text, struct pf_ipv4_addrs *ret);
/* The same text for @ifname (index @ifindex), as `ip -o -4 addr` prints it; malloc'd. */
char *pf_format_ip_addr(const char *ifname, unsigned int ifindex,
			const struct pf_ipv4_addrs *addrs);
/* "10.0.0.1/24" into @buf (at least 19 bytes). */
void pf_format_ipv4(const struct pf_ipv4_addr *a, char *buf, size_t len);
/* "10.0.0.1/24" or "10.0.0.1" (a /32): 0 or -EINVAL. */
int pf_parse_ipv4_cidr(const char *word, struct pf_ipv4_addr *ret);
/* True when the two prefixes overlap (one subnet holds the other's address). */
bool pf_ipv4_same_subnet(const struct pf_ipv4_addr *a, const struct pf_ipv4_addr *b);
/*
 * Add the AF_INET addresses of interface @ifindex found in the RTM_NEWADDR
 * messages of @buf (one recv(2) of an RTM_GETADDR dump).  1 when the dump
 * ended (NLMSG_DONE), 0 when more follows, -errno from NLMSG_ERROR or
 * -EBADMSG for malformed bytes.
 */
int pf_rtaddr_parse(const void *buf, size_t len, unsigned int ifindex,
		    struct pf_ipv4_addrs *ret);

/*
 * The IPv4 policy routing rules (RTM_GETRULE, or `ip -4 rule show`), in
 * priority order.  Only what decides a reverse-path lookup is kept: the
 * source and destination selectors, iif/oif, the table and the action;
 * any other selector (fwmark, tos, ipproto, ports, uidrange, l3mdev)
 * marks the rule `other` (it may not match an rp_filter lookup).
 */
#define PF_IP_RULES_MAX 256
enum pf_ip_rule_action { PF_RULE_LOOKUP, PF_RULE_GOTO, PF_RULE_NOP, PF_RULE_BLOCK };
struct pf_ip_rule {
	uint32_t pref;
	struct pf_ipv4_addr src, dst; /* prefix 0: all */
	char iif[16], oif[16];        /* "" when not given */
	uint32_t table;               /* 255 local, 254 main, 253 default */
	enum pf_ip_rule_action action;
	bool invert;                  /* "not" */
	bool other;                   /* a selector not modelled above */
};
struct pf_ip_rules {
	struct pf_ip_rule v[PF_IP_RULES_MAX];
	size_t n; /* rules past PF_IP_RULES_MAX are dropped */
};
/*
 * `ip -4 rule show` lines ("32765:\tfrom 10.0.0.1 lookup 101"); a table
 * name other than local/main/default is PF_RULE_TABLE_NAMED (the snapshot
 * records numbers); a line without a "N:" priority or with a malformed
 * address is -EINVAL; a token not understood marks the rule `other`.
 */
#define PF_RULE_TABLE_NAMED UINT32_MAX
int pf_parse_ip_rule(const char *text, struct pf_ip_rules *ret);
/* The same text, as the snapshot records it; malloc'd. */
char *pf_format_ip_rule(const struct pf_ip_rules *rules);
/* Add the FRA_* rules of one recv(2) of an RTM_GETRULE dump; 1 at NLMSG_DONE. */
int pf_rtrule_parse(const void *buf, size_t len, struct pf_ip_rules *ret);
int pf_live_ip_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret);
/* preflight/ip/rule; -ENOENT without one. */
int pf_recorded_ip_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret);

/*
 * Netlink reply parsers.  @buf holds one or more netlink messages as
 * recv(2) returned them; the first reply of the expected type is parsed.
 * An NLMSG_ERROR message gives its error (-EOPNOTSUPP, -ENODEV, ...);
 * -EBADMSG for truncated or malformed messages, -ENODATA when no reply.
 */
int pf_ethtool_parse_linkmodes(const void *buf, size_t len, struct pf_linkmodes *ret);
int pf_ethtool_parse_pause(const void *buf, size_t len, struct pf_pause *ret);
/* An RTM_GETDCB reply to DCB_CMD_IEEE_GET; -EOPNOTSUPP when it has no DCB_ATTR_IEEE_PFC. */
int pf_dcb_parse_ieee(const void *buf, size_t len, struct pf_pfc *ret);

/*
 * The ETHTOOL_GSTRINGS and ETHTOOL_GSTATS payloads: @n_strings names of
 * ETH_GSTRING_LEN bytes each (NUL-padded) and @n_values counters.  -EAGAIN
 * when the counts differ (the driver's set changed between the calls).
 */
int pf_ethtool_stats_from_raw(const char *strings, size_t n_strings, const uint64_t *values,
			      size_t n_values, struct pf_stats *ret);

/*
 * Netlink plumbing shared by the parsers and the socket I/O
 * (src/facts/netlink_util.c).
 */
struct nlmsghdr;
struct nl_sock;
struct nl_msg;
/*
 * The first message in @buf (@len bytes) of type @type, or of any non-control
 * type when @type is negative.  NLMSG_ERROR with a non-zero error gives that
 * error; -ENODATA when there is none; -EBADMSG when the bytes are malformed.
 */
int pf_nl_find_reply(const void *buf, size_t len, int type, const struct nlmsghdr **ret);
/* A libnl error code (negative NLE_*) as -errno. */
int pf_nl_errno(int nlerr);
/* Called for each message of the walked type; a negative return stops the walk. */
typedef int (*pf_nl_one_fn)(const struct nlmsghdr *nlh, void *arg);
/*
 * Walk one received rtnetlink dump buffer: @one for each message of @type.
 * 1 at NLMSG_DONE, 0 when more is to come, a kernel NLMSG_ERROR as -errno,
 * -EBADMSG for malformed bytes, or @one's -errno.
 */
int pf_nl_walk(const void *buf, size_t len, int type, pf_nl_one_fn one, void *arg);
/*
 * Send the rtnetlink dump request @req (@len bytes, NLM_F_DUMP) on a socket
 * of its own and walk every reply (pf_nl_walk) until NLMSG_DONE.  0 or -errno.
 */
int pf_nl_route_dump(const void *req, size_t len, int type, pf_nl_one_fn one, void *arg);
/*
 * Send @msg on @sk and receive one reply datagram into *ret_buf (malloc'd),
 * its length in *ret_len.  -errno.
 */
int pf_nl_transact(struct nl_sock *sk, struct nl_msg *msg, void **ret_buf, size_t *ret_len);

struct pf_ethtool_ops;

/*
 * Socket I/O, the live backend: each opens its own socket in the caller's
 * network namespace, so a caller that entered another namespace queries it.
 */
int pf_ethtool_linkmodes_get(const struct pf_ethtool_ops *ops, const char *ifname,
			     struct pf_linkmodes *ret);
int pf_ethtool_pause_get(const struct pf_ethtool_ops *ops, const char *ifname,
			 struct pf_pause *ret);
int pf_ethtool_stats_get(const char *ifname, struct pf_stats *ret);
int pf_dcb_pfc_get(const char *ifname, struct pf_pfc *ret);

/*
 * The kernel interfaces under the ethtool facts, the provider member
 * ctx->prov->ethtool (a test's table answers as an old kernel does): @genl
 * sends one ethtool netlink GET and returns the raw reply
 * (-EPROTONOSUPPORT when the kernel has no "ethtool" genl family, < 5.6);
 * @ioctl is one SIOCETHTOOL request; @eeprom one module EEPROM read.
 */
struct pf_eeprom_ask;
struct pf_ethtool_ops {
	int (*genl)(uint8_t cmd, int header_attr, const char *ifname, uint32_t flags,
		    void **ret_buf, size_t *ret_len);
	int (*ioctl)(const char *ifname, void *data);
	/* One ETHTOOL_MSG_MODULE_EEPROM_GET (preflight/link_facts.h), the raw reply. */
	int (*eeprom)(const char *ifname, const struct pf_eeprom_ask *ask, void **ret_buf,
		      size_t *ret_len);
};
/* The running kernel's (live), and none (-ENOSYS: a recorded root asks no kernel). */
extern const struct pf_ethtool_ops pf_ethtool_sys;
extern const struct pf_ethtool_ops pf_ethtool_none;
/* One SIOCETHTOOL ioctl of @data for @ifname on @fd: 0 or -errno. */
int pf_ethtool_ioctl_fd(int fd, const char *ifname, void *data);
int pf_ethtool_ioctl_sys(const char *ifname, void *data);
/* The SIOCETHTOOL fallbacks: GPAUSEPARAM; GLINKSETTINGS, else the legacy GSET. */
int pf_ethtool_ioctl_pause(const struct pf_ethtool_ops *ops, const char *ifname,
			   struct pf_pause *ret);
int pf_ethtool_ioctl_linkmodes(const struct pf_ethtool_ops *ops, const char *ifname,
			       struct pf_linkmodes *ret);
/* RTM_GETADDR dump (AF_INET) filtered to @ifname; -ENODEV when there is no such interface. */
int pf_rtaddr_get(const char *ifname, unsigned int *ret_ifindex, struct pf_ipv4_addrs *ret);

/*
 * Provider implementations (see struct pf_providers).  The recorded ones
 * read <root>/preflight/...; a missing file gives -ENOENT.  @sample 0 is
 * the first sample of the driver statistics, 1 the second (live: read
 * again; recorded: stats.after).
 */
int pf_live_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret);
int pf_live_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret);
int pf_live_ethtool_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			  struct pf_stats *ret);
int pf_live_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret);
int pf_live_ipv4_addrs(const struct pf_ctx *ctx, const char *ifname, struct pf_ipv4_addrs *ret);
/* Sleep @ms and return the elapsed monotonic time in *ret_ms. */
int pf_live_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms);

int pf_recorded_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret);
int pf_recorded_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret);
int pf_recorded_ethtool_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			      struct pf_stats *ret);
int pf_recorded_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret);
int pf_recorded_ipv4_addrs(const struct pf_ctx *ctx, const char *ifname,
			   struct pf_ipv4_addrs *ret);
/* No sleep: the interval recorded in preflight/window_ms; -ENOENT without one. */
int pf_recorded_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms);

#endif
