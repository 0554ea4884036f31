// SPDX-License-Identifier: MIT
/*
 * rtaddr.c - the IPv4 addresses of a netdev: an rtnetlink RTM_GETADDR dump
 * live, `ip -o -4 addr show dev <if>` text recorded (docs/snapshot.md).
 * The sysctl check needs them to tell whether two RoCE rails share a subnet
 * (only then do the multi-rail ARP and rp_filter rules matter).
 */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "preflight/net_facts.h"

static void add(struct pf_ipv4_addrs *ret, uint32_t addr, unsigned int prefix)
{
	if (ret->n < PF_IPV4_ADDRS_MAX)
		ret->v[ret->n++] = (struct pf_ipv4_addr){ .addr = addr, .prefix = prefix };
}

/* "10.0.0.1/24" (a bare address is a /32). */
static int parse_cidr(const char *word, uint32_t *ret_addr, unsigned int *ret_prefix)
{
	char buf[32];
	const char *slash = strchr(word, '/');
	struct in_addr in;
	uint64_t prefix = 32;

	if (strlen(word) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%.*s", slash ? (int)(slash - word) : (int)strlen(word), word);
	if (inet_pton(AF_INET, buf, &in) != 1)
		return -EINVAL;
	if (slash && (pf_parse_u64(slash + 1, &prefix) < 0 || prefix > 32))
		return -EINVAL;
	*ret_addr = ntohl(in.s_addr);
	*ret_prefix = (unsigned int)prefix;
	return 0;
}

int pf_parse_ipv4_cidr(const char *word, struct pf_ipv4_addr *ret)
{
	return parse_cidr(word, &ret->addr, &ret->prefix);
}

int pf_parse_ip_addr(const char *text, struct pf_ipv4_addrs *ret)
{
	pf_autofree char *copy = pf_xstrdup(text);
	char *save = NULL;

	memset(ret, 0, sizeof(*ret));
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *w, *wsave = NULL;
		uint32_t addr;
		unsigned int prefix;

		for (w = strtok_r(line, " \t", &wsave); w; w = strtok_r(NULL, " \t", &wsave))
			if (!strcmp(w, "inet"))
				break;
		if (!w)
			continue;
		w = strtok_r(NULL, " \t", &wsave);
		if (!w || parse_cidr(w, &addr, &prefix) < 0)
			return -EINVAL;
		add(ret, addr, prefix);
	}
	return 0;
}

void pf_format_ipv4(const struct pf_ipv4_addr *a, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u/%u", a->addr >> 24, (a->addr >> 16) & 0xff,
		 (a->addr >> 8) & 0xff, a->addr & 0xff, a->prefix);
}

char *pf_format_ip_addr(const char *ifname, unsigned int ifindex,
			const struct pf_ipv4_addrs *addrs)
{
	char *out = pf_xstrdup("");

	for (size_t i = 0; i < addrs->n; i++) {
		char cidr[24], *next;

		pf_format_ipv4(&addrs->v[i], cidr, sizeof(cidr));
		next = pf_xasprintf("%s%u: %s    inet %s scope global %s\n", out, ifindex, ifname,
				    cidr, ifname);
		free(out);
		out = next;
	}
	return out;
}

bool pf_ipv4_same_subnet(const struct pf_ipv4_addr *a, const struct pf_ipv4_addr *b)
{
	unsigned int prefix = a->prefix < b->prefix ? a->prefix : b->prefix;
	uint32_t mask = prefix ? ~(uint32_t)0 << (32 - prefix) : 0;

	return (a->addr & mask) == (b->addr & mask);
}

/* IFA_LOCAL is the interface's own address; IFA_ADDRESS the peer's on point-to-point links. */
static int parse_newaddr(const struct nlmsghdr *nlh, unsigned int ifindex,
			 struct pf_ipv4_addrs *ret)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(nlh);
	int rem; /* signed: RTA_NEXT may overshoot */
	const struct rtattr *rta;
	uint32_t local = 0, address = 0;
	bool has_local = false, has_address = false;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
		return -EBADMSG;
	if (ifa->ifa_family != AF_INET || ifa->ifa_index != ifindex)
		return 0;
	if (ifa->ifa_prefixlen > 32)
		return -EBADMSG;
	rem = (int)(nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifa)));
	for (rta = IFA_RTA(ifa); RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem)) {
		uint32_t v;

		if (RTA_PAYLOAD(rta) != sizeof(v))
			continue;
		memcpy(&v, RTA_DATA(rta), sizeof(v));
		if (rta->rta_type == IFA_LOCAL)
			local = ntohl(v), has_local = true;
		else if (rta->rta_type == IFA_ADDRESS)
			address = ntohl(v), has_address = true;
	}
	if (has_local || has_address)
		add(ret, has_local ? local : address, ifa->ifa_prefixlen);
	return 0;
}

struct addr_walk {
	unsigned int ifindex;
	struct pf_ipv4_addrs *ret;
};

static int addr_one(const struct nlmsghdr *nlh, void *arg)
{
	struct addr_walk *w = arg;

	return parse_newaddr(nlh, w->ifindex, w->ret);
}

int pf_rtaddr_parse(const void *buf, size_t len, unsigned int ifindex, struct pf_ipv4_addrs *ret)
{
	struct addr_walk w = { ifindex, ret };

	return pf_nl_walk(buf, len, RTM_NEWADDR, addr_one, &w);
}

int pf_rtaddr_get(const char *ifname, unsigned int *ret_ifindex, struct pf_ipv4_addrs *ret)
{
	struct {
		struct nlmsghdr nlh;
		struct ifaddrmsg ifa;
	} req = {
		.nlh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)),
			 .nlmsg_type = RTM_GETADDR, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = 1 },
		.ifa = { .ifa_family = AF_INET },
	};
	unsigned int ifindex = if_nametoindex(ifname);
	struct addr_walk w = { ifindex, ret };
	int r;

	if (!ifindex)
		return -errno;
	memset(ret, 0, sizeof(*ret));
	r = pf_nl_route_dump(&req, req.nlh.nlmsg_len, RTM_NEWADDR, addr_one, &w);
	if (r < 0)
		return r;
	if (ret_ifindex)
		*ret_ifindex = ifindex;
	return 0;
}

int pf_live_ipv4_addrs(const struct pf_ctx *ctx, const char *ifname, struct pf_ipv4_addrs *ret)
{
	return pf_rtaddr_get(ifname, NULL, ret);
}
