// SPDX-License-Identifier: MIT
/*
 * rtrule.c - the IPv4 policy routing rules: an rtnetlink RTM_GETRULE dump
 * live, `ip -4 rule show` text recorded (preflight/ip/rule, docs/snapshot.md).
 * The sysctl check reads them before failing rp_filter=1 on rails that
 * share a subnet: per-rail source rules ("from <rail-ip> lookup N") make
 * the kernel's reverse-path lookup (fib_validate_source) find the route
 * back through the receiving rail.
 */
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "preflight/net_facts.h"
#include "preflight/strbuf.h"
#include "record.h"

static struct pf_ip_rule *add(struct pf_ip_rules *ret)
{
	struct pf_ip_rule *r;

	if (ret->n >= PF_IP_RULES_MAX)
		return NULL;
	r = &ret->v[ret->n++];
	memset(r, 0, sizeof(*r));
	r->table = RT_TABLE_MAIN;
	return r;
}

static int parse_table(const char *w, uint32_t *ret)
{
	uint64_t v;

	if (!strcmp(w, "local"))
		*ret = RT_TABLE_LOCAL;
	else if (!strcmp(w, "main"))
		*ret = RT_TABLE_MAIN;
	else if (!strcmp(w, "default"))
		*ret = RT_TABLE_DEFAULT;
	else if (pf_parse_u64(w, &v) == 0 && v < UINT32_MAX)
		*ret = (uint32_t)v;
	else
		*ret = PF_RULE_TABLE_NAMED;
	return 0;
}

static int parse_sel(const char *w, struct pf_ipv4_addr *ret)
{
	if (!w)
		return -EINVAL;
	if (!strcmp(w, "all")) {
		*ret = (struct pf_ipv4_addr){ 0, 0 };
		return 0;
	}
	return pf_parse_ipv4_cidr(w, ret);
}

/* Selectors and options that take one argument and are not modelled. */
static bool other_with_arg(const char *w)
{
	static const char *const names[] = { "fwmark", "tos", "dsfield", "ipproto", "sport",
					     "dport", "uidrange", "tun_id", NULL };

	for (size_t i = 0; names[i]; i++)
		if (!strcmp(w, names[i]))
			return true;
	return false;
}

/* Options with one argument that do not change whether a rule matches. */
static bool harmless_with_arg(const char *w)
{
	return !strcmp(w, "suppress_prefixlength") || !strcmp(w, "suppress_ifgroup") ||
	       !strcmp(w, "proto") || !strcmp(w, "protocol") || !strcmp(w, "realms") ||
	       !strcmp(w, "pref") || !strcmp(w, "priority");
}

static void set_name(char *dst, size_t len, const char *w)
{
	snprintf(dst, len, "%s", w ? w : "");
}

/* One "N:\t..." line into @r. */
static int parse_rule_line(char *line, struct pf_ip_rule *r)
{
	char *save = NULL, *w = strtok_r(line, " \t", &save);
	uint64_t pref;
	size_t len = w ? strlen(w) : 0;

	if (!len || w[len - 1] != ':')
		return -EINVAL;
	w[len - 1] = '\0';
	if (pf_parse_u64(w, &pref) < 0 || pref > UINT32_MAX)
		return -EINVAL;
	r->pref = (uint32_t)pref;
	while ((w = strtok_r(NULL, " \t", &save))) {
		char *arg = NULL;

		if (!strcmp(w, "not")) {
			r->invert = true;
		} else if (!strcmp(w, "from") || !strcmp(w, "to")) {
			arg = strtok_r(NULL, " \t", &save);
			if (parse_sel(arg, !strcmp(w, "from") ? &r->src : &r->dst) < 0)
				return -EINVAL;
		} else if (!strcmp(w, "iif") || !strcmp(w, "oif")) {
			arg = strtok_r(NULL, " \t", &save);
			set_name(!strcmp(w, "iif") ? r->iif : r->oif, sizeof(r->iif), arg);
		} else if (!strcmp(w, "lookup") || !strcmp(w, "table")) {
			arg = strtok_r(NULL, " \t", &save);
			if (!arg)
				return -EINVAL;
			parse_table(arg, &r->table);
		} else if (!strcmp(w, "goto")) {
			(void)strtok_r(NULL, " \t", &save);
			r->action = PF_RULE_GOTO;
		} else if (!strcmp(w, "nop")) {
			r->action = PF_RULE_NOP;
		} else if (!strcmp(w, "blackhole") || !strcmp(w, "unreachable") ||
			   !strcmp(w, "prohibit")) {
			r->action = PF_RULE_BLOCK;
		} else if (harmless_with_arg(w)) {
			(void)strtok_r(NULL, " \t", &save);
		} else if (!strcmp(w, "[detached]")) {
			continue;
		} else {
			if (other_with_arg(w))
				(void)strtok_r(NULL, " \t", &save);
			r->other = true;
		}
	}
	return 0;
}

int pf_parse_ip_rule(const char *text, struct pf_ip_rules *ret)
{
	pf_autofree char *copy = pf_xstrdup(text);
	char *save = NULL;

	memset(ret, 0, sizeof(*ret));
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct pf_ip_rule *r;
		int e;

		if (!line[strspn(line, " \t")])
			continue;
		r = add(ret);
		if (!r)
			break;
		e = parse_rule_line(line, r);
		if (e < 0)
			return e;
	}
	return 0;
}

static void put_sel(struct pf_strbuf *sb, const char *kw, const struct pf_ipv4_addr *a)
{
	char cidr[24];

	const char *sp = strcmp(kw, "from") ? " " : "";

	if (!a->prefix) {
		pf_strbuf_addf(sb, "%s%s all", sp, kw);
		return;
	}
	pf_format_ipv4(a, cidr, sizeof(cidr));
	if (a->prefix == 32)
		*strchr(cidr, '/') = '\0';
	pf_strbuf_addf(sb, "%s%s %s", sp, kw, cidr);
}

char *pf_format_ip_rule(const struct pf_ip_rules *rules)
{
	struct pf_strbuf sb = PF_STRBUF_INIT;

	for (size_t i = 0; i < rules->n; i++) {
		const struct pf_ip_rule *r = &rules->v[i];

		pf_strbuf_addf(&sb, "%u:\t%s", r->pref, r->invert ? "not " : "");
		put_sel(&sb, "from", &r->src);
		if (r->dst.prefix)
			put_sel(&sb, "to", &r->dst);
		if (r->iif[0])
			pf_strbuf_addf(&sb, " iif %s", r->iif);
		if (r->oif[0])
			pf_strbuf_addf(&sb, " oif %s", r->oif);
		if (r->other)
			pf_strbuf_adds(&sb, " [unmodelled-selector]");
		if (r->action == PF_RULE_LOOKUP)
			pf_strbuf_addf(&sb, " lookup %u", r->table);
		else
			pf_strbuf_addf(&sb, " %s", r->action == PF_RULE_GOTO ? "goto 0" :
					  r->action == PF_RULE_NOP ? "nop" : "blackhole");
		pf_strbuf_addch(&sb, '\n');
	}
	return pf_strbuf_detach(&sb);
}

static void nl_name(char *dst, size_t len, const struct rtattr *rta)
{
	size_t n = RTA_PAYLOAD(rta);
	const char *s = RTA_DATA(rta);

	if (n > 0 && s[n - 1] == '\0')
		n--;
	snprintf(dst, len, "%.*s", (int)n, s);
}

static bool nl_u32(const struct rtattr *rta, uint32_t *ret)
{
	if (RTA_PAYLOAD(rta) != sizeof(*ret))
		return false;
	memcpy(ret, RTA_DATA(rta), sizeof(*ret));
	return true;
}

/* One FRA_* attribute of an RTM_NEWRULE into @r. */
static void rule_attr(const struct rtattr *rta, struct pf_ip_rule *r)
{
	uint32_t v;

	switch (rta->rta_type) {
	case FRA_SRC:
	case FRA_DST:
		if (nl_u32(rta, &v))
			(rta->rta_type == FRA_SRC ? &r->src : &r->dst)->addr = ntohl(v);
		break;
	case FRA_IIFNAME:
		nl_name(r->iif, sizeof(r->iif), rta);
		break;
	case FRA_OIFNAME:
		nl_name(r->oif, sizeof(r->oif), rta);
		break;
	case FRA_PRIORITY:
		if (nl_u32(rta, &v))
			r->pref = v;
		break;
	case FRA_TABLE:
		if (nl_u32(rta, &v))
			r->table = v;
		break;
	case FRA_FWMARK:
	case FRA_FWMASK:
		if (nl_u32(rta, &v) && v && rta->rta_type == FRA_FWMARK)
			r->other = true;
		break;
	case FRA_TUN_ID:
	case FRA_L3MDEV:
	case FRA_UID_RANGE:
	case FRA_IP_PROTO:
	case FRA_SPORT_RANGE:
	case FRA_DPORT_RANGE:
		r->other = true;
		break;
	default:
		break;
	}
}

static int parse_newrule(const struct nlmsghdr *nlh, struct pf_ip_rules *ret)
{
	const struct fib_rule_hdr *frh = NLMSG_DATA(nlh);
	const struct rtattr *rta;
	struct pf_ip_rule *r;
	int rem; /* signed: RTA_NEXT may overshoot */

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*frh)))
		return -EBADMSG;
	if (frh->family != AF_INET || frh->src_len > 32 || frh->dst_len > 32)
		return 0;
	r = add(ret);
	if (!r)
		return 0;
	r->src.prefix = frh->src_len;
	r->dst.prefix = frh->dst_len;
	r->table = frh->table;
	r->invert = frh->flags & FIB_RULE_INVERT;
	r->other = frh->tos != 0;
	r->action = frh->action == FR_ACT_TO_TBL ? PF_RULE_LOOKUP :
		    frh->action == FR_ACT_GOTO ? PF_RULE_GOTO :
		    frh->action == FR_ACT_NOP ? PF_RULE_NOP : PF_RULE_BLOCK;
	rem = (int)(nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*frh)));
	for (rta = (const struct rtattr *)((const char *)frh + NLMSG_ALIGN(sizeof(*frh)));
	     RTA_OK(rta, rem); rta = RTA_NEXT(rta, rem))
		rule_attr(rta, r);
	return 0;
}

static int rule_one(const struct nlmsghdr *nlh, void *arg)
{
	return parse_newrule(nlh, arg);
}

int pf_rtrule_parse(const void *buf, size_t len, struct pf_ip_rules *ret)
{
	return pf_nl_walk(buf, len, RTM_NEWRULE, rule_one, ret);
}

int pf_live_ip_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret)
{
	struct {
		struct nlmsghdr nlh;
		struct fib_rule_hdr frh;
	} req = {
		.nlh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct fib_rule_hdr)),
			 .nlmsg_type = RTM_GETRULE, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			 .nlmsg_seq = 1 },
		.frh = { .family = AF_INET },
	};
	(void)ctx;
	memset(ret, 0, sizeof(*ret));
	return pf_nl_route_dump(&req, req.nlh.nlmsg_len, RTM_NEWRULE, rule_one, ret);
}

int pf_recorded_ip_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret)
{
	pf_autofree char *text = NULL;
	int r = pf_fs_read_full(ctx->fs, "/preflight/ip/rule", 0, &text, NULL);

	return r < 0 ? r : pf_parse_ip_rule(text, ret);
}

/* preflight/ip/rule (`ip -4 rule show`), as pf_recorded_ip_rules() reads it. */
int pf_record_ip_rules(struct pf_record *rec)
{
	pf_autofree struct pf_ip_rules *rules = pf_xcalloc(1, sizeof(*rules));
	pf_autofree char *text = NULL;
	int r;

	r = rec->ctx->prov->ip_rules(rec->ctx, rules);
	if (!pf_record_answer(rec, "preflight/ip/rule", r))
		return 0;
	r = rec->mkdirs(rec, "preflight/ip");
	if (r < 0)
		return r;
	text = pf_format_ip_rule(rules);
	return pf_record_put_text(rec, "preflight/ip/rule", text);
}
