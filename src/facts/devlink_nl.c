// SPDX-License-Identifier: MIT
/*
 * devlink_nl.c - NIC health and firmware versions over devlink, as
 * iproute2's `devlink health show` and `devlink dev info` read them: a dump
 * of DEVLINK_CMD_HEALTH_REPORTER_GET or DEVLINK_CMD_INFO_GET on the generic
 * netlink family "devlink" (include/uapi/linux/devlink.h).  The reply bytes
 * are the fact: the live provider returns them, a snapshot stores them as
 * preflight/devlink/{health,info}.nl, and the parsers below read both.
 *
 * A kernel without devlink (CONFIG_NET_DEVLINK off) has no such family:
 * resolving it answers "object not found", given as -ENOENT.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include "netlink_util.h"
#include "preflight/check.h"
#include "preflight/devlink.h"
#include "preflight/fs.h"
#include "preflight/net_facts.h"
#include "record.h"

#define DUMP_MAX (8u << 20) /* bytes of one dump: thousands of reporters */

typedef int (*one_msg_fn)(struct nlattr **tb, void *arg);

/* Each genl message of @buf carrying @cmd, its attributes parsed, to @one. */
static int walk(const void *buf, size_t len, uint8_t cmd, one_msg_fn one, void *arg)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len > DUMP_MAX ? (int)DUMP_MAX : (int)len; /* signed: nlmsg_next() may overshoot */

	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next((struct nlmsghdr *)nlh, &rem)) {
		struct nlattr *tb[DEVLINK_ATTR_MAX + 1];
		const struct genlmsghdr *g;
		int r;

		if (nlh->nlmsg_type == NLMSG_DONE)
			return 0;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *err = NLMSG_DATA(nlh);

			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err->error)))
				return -EBADMSG;
			if (err->error)
				return err->error < 0 ? err->error : -err->error;
			continue;
		}
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE || nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			return -EBADMSG;
		g = NLMSG_DATA(nlh);
		if (g->cmd != cmd)
			return -EBADMSG;
		if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, DEVLINK_ATTR_MAX, NULL) < 0)
			return -EBADMSG;
		r = one(tb, arg);
		if (r < 0)
			return r;
	}
	return rem <= 0 ? 0 : -EBADMSG; /* below 0: the last message's padding */
}

static void copy_str(char *dst, size_t size, const struct nlattr *a)
{
	int n = a ? nla_len(a) : 0;
	const char *s = a ? nla_data(a) : "";

	if (n > 0 && s[n - 1] == '\0')
		n--;
	if ((size_t)n >= size)
		n = (int)size - 1;
	memcpy(dst, s, (size_t)(n > 0 ? n : 0));
	dst[n > 0 ? n : 0] = '\0';
}

static uint64_t get_u64(const struct nlattr *a)
{
	return a && nla_len(a) >= 8 ? nla_get_u64((struct nlattr *)a) : 0;
}

struct list {
	void *v;
	size_t n, room, size;
};

static void *list_add(struct list *l)
{
	if (l->n == l->room) {
		l->room = l->room ? 2 * l->room : 8;
		l->v = pf_xrealloc(l->v, l->room * l->size);
	}
	memset((char *)l->v + l->n * l->size, 0, l->size);
	return (char *)l->v + l->n++ * l->size;
}

static int one_reporter(struct nlattr **tb, void *arg)
{
	struct nlattr *h[DEVLINK_ATTR_MAX + 1];
	struct pf_devlink_reporter *rep;

	if (!tb[DEVLINK_ATTR_HEALTH_REPORTER] || !tb[DEVLINK_ATTR_BUS_NAME] ||
	    !tb[DEVLINK_ATTR_DEV_NAME])
		return -EBADMSG;
	if (nla_parse_nested(h, DEVLINK_ATTR_MAX, tb[DEVLINK_ATTR_HEALTH_REPORTER], NULL) < 0 ||
	    !h[DEVLINK_ATTR_HEALTH_REPORTER_NAME])
		return -EBADMSG;
	rep = list_add(arg);
	copy_str(rep->bus, sizeof(rep->bus), tb[DEVLINK_ATTR_BUS_NAME]);
	copy_str(rep->dev, sizeof(rep->dev), tb[DEVLINK_ATTR_DEV_NAME]);
	copy_str(rep->name, sizeof(rep->name), h[DEVLINK_ATTR_HEALTH_REPORTER_NAME]);
	rep->state = h[DEVLINK_ATTR_HEALTH_REPORTER_STATE]
			     ? nla_get_u8(h[DEVLINK_ATTR_HEALTH_REPORTER_STATE]) : -1;
	rep->errors = get_u64(h[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]);
	rep->recovers = get_u64(h[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT]);
	return 0;
}

int pf_devlink_parse_health(const void *buf, size_t len, struct pf_devlink_reporter **ret,
			    size_t *ret_n)
{
	struct list l = { .size = sizeof(struct pf_devlink_reporter) };
	int r = walk(buf, len, DEVLINK_CMD_HEALTH_REPORTER_GET, one_reporter, &l);

	if (r < 0) {
		free(l.v);
		return r;
	}
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

/* One version nest (fixed, running or stored) into @info when its name is one we keep. */
static void one_version(struct pf_devlink_info *info, int type, const struct nlattr *nest)
{
	struct nlattr *v[DEVLINK_ATTR_MAX + 1];
	char name[64], *dst = NULL;
	size_t size = 0;

	if (nla_parse_nested(v, DEVLINK_ATTR_MAX, (struct nlattr *)nest, NULL) < 0 ||
	    !v[DEVLINK_ATTR_INFO_VERSION_NAME] || !v[DEVLINK_ATTR_INFO_VERSION_VALUE])
		return;
	copy_str(name, sizeof(name), v[DEVLINK_ATTR_INFO_VERSION_NAME]);
	/* "fw.version" (mlx5) wins over a bare "fw" (other drivers), "fw.psid" over "board.id" */
	if (type == DEVLINK_ATTR_INFO_VERSION_FIXED &&
	    (!strcmp(name, "fw.psid") || (!strcmp(name, "board.id") && !info->psid[0]))) {
		dst = info->psid;
		size = sizeof(info->psid);
	} else if (type != DEVLINK_ATTR_INFO_VERSION_FIXED &&
		   (!strcmp(name, "fw.version") || !strcmp(name, "fw"))) {
		dst = type == DEVLINK_ATTR_INFO_VERSION_RUNNING ? info->fw_running : info->fw_stored;
		size = sizeof(info->fw_running);
		if (dst[0] && strcmp(name, "fw.version"))
			return;
	}
	if (dst)
		copy_str(dst, size, v[DEVLINK_ATTR_INFO_VERSION_VALUE]);
}

static int one_info(struct nlattr **tb, void *arg)
{
	struct pf_devlink_info *info;

	if (!tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME])
		return -EBADMSG;
	info = list_add(arg);
	copy_str(info->bus, sizeof(info->bus), tb[DEVLINK_ATTR_BUS_NAME]);
	copy_str(info->dev, sizeof(info->dev), tb[DEVLINK_ATTR_DEV_NAME]);
	copy_str(info->driver, sizeof(info->driver), tb[DEVLINK_ATTR_INFO_DRIVER_NAME]);
	return 0;
}

/* The versions repeat as attributes of the top level, which nla_parse keeps only the last of. */
static int versions_of(const void *buf, size_t len, struct pf_devlink_info *infos, size_t n)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len > DUMP_MAX ? (int)DUMP_MAX : (int)len; /* signed: nlmsg_next() may overshoot */
	size_t i = 0;

	for (; nlmsg_ok(nlh, rem) && i < n; nlh = nlmsg_next((struct nlmsghdr *)nlh, &rem)) {
		const struct nlattr *a;
		int arem;

		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		nla_for_each_attr(a, (struct nlattr *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN),
				  (int)(nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), arem) {
			int t = nla_type(a);

			if (t == DEVLINK_ATTR_INFO_VERSION_FIXED ||
			    t == DEVLINK_ATTR_INFO_VERSION_RUNNING ||
			    t == DEVLINK_ATTR_INFO_VERSION_STORED)
				one_version(&infos[i], t, a);
		}
		i++;
	}
	return 0;
}

int pf_devlink_parse_info(const void *buf, size_t len, struct pf_devlink_info **ret,
			  size_t *ret_n)
{
	struct list l = { .size = sizeof(struct pf_devlink_info) };
	int r = walk(buf, len, DEVLINK_CMD_INFO_GET, one_info, &l);

	if (r < 0) {
		free(l.v);
		return r;
	}
	versions_of(buf, len, l.v, l.n);
	*ret = l.v;
	*ret_n = l.n;
	return 0;
}

/* Live: dump @what over generic netlink, every reply message appended to one buffer. */
int pf_live_devlink_dump(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len)
{
	pf_autonlsock struct nl_sock *sk = NULL;
	pf_autonlmsg struct nl_msg *msg = NULL;
	pf_autofree char *all = NULL;
	size_t len = 0;
	uint8_t cmd = what == PF_DEVLINK_HEALTH ? DEVLINK_CMD_HEALTH_REPORTER_GET
						: DEVLINK_CMD_INFO_GET;
	int family, r;
	bool done = false;

	(void)ctx;
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = genl_connect(sk);
	if (r < 0)
		return pf_nl_errno(r);
	nl_socket_disable_auto_ack(sk);
	nl_socket_set_msg_buf_size(sk, 65536);
	family = genl_ctrl_resolve(sk, DEVLINK_GENL_NAME);
	if (family < 0) /* no devlink in this kernel: libnl's "object not found" */
		return family == -NLE_OBJ_NOTFOUND ? -ENOENT : pf_nl_errno(family);
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP, cmd,
			 DEVLINK_GENL_VERSION))
		return -ENOMEM;
	r = nl_send_auto(sk, msg);
	if (r < 0)
		return pf_nl_errno(r);
	while (!done) {
		struct sockaddr_nl peer;
		unsigned char *part = NULL;
		const struct nlmsghdr *nlh;
		int rem; /* signed: nlmsg_next() may overshoot */

		r = nl_recv(sk, &peer, &part, NULL);
		if (r < 0)
			return pf_nl_errno(r);
		if (r == 0 || len + (size_t)r > DUMP_MAX) {
			free(part);
			return r == 0 ? -EBADMSG : -EFBIG;
		}
		for (nlh = (void *)part, rem = r; nlmsg_ok(nlh, rem);
		     nlh = nlmsg_next((struct nlmsghdr *)nlh, &rem))
			done |= nlh->nlmsg_type == NLMSG_DONE || nlh->nlmsg_type == NLMSG_ERROR;
		all = pf_xrealloc(all, len + (size_t)r);
		memcpy(all + len, part, (size_t)r);
		len += (size_t)r;
		free(part);
	}
	*ret_buf = all;
	all = NULL;
	*ret_len = len;
	return 0;
}

static const char *const dump_file[] = { "/preflight/devlink/health.nl",
					  "/preflight/devlink/info.nl" };

int pf_recorded_devlink_dump(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len)
{
	char *buf = NULL;
	int r;

	if (what != PF_DEVLINK_HEALTH && what != PF_DEVLINK_INFO)
		return -EINVAL;
	r = pf_fs_read_full(ctx->fs, dump_file[what], DUMP_MAX, &buf, ret_len);
	if (r < 0)
		return r;
	*ret_buf = buf;
	return 0;
}

int pf_record_devlink(struct pf_record *rec)
{
	for (int what = PF_DEVLINK_HEALTH; what <= PF_DEVLINK_INFO; what++) {
		pf_autofree void *buf = NULL;
		size_t len = 0;
		int r = rec->ctx->prov->devlink_dump(rec->ctx, what, &buf, &len);

		if (!pf_record_answer(rec, dump_file[what] + 1, r))
			continue;
		r = rec->put(rec, dump_file[what] + 1, buf, len);
		if (r < 0)
			return r;
	}
	return 0;
}
