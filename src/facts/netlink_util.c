// SPDX-License-Identifier: MIT
/*
 * netlink_util.c - the netlink plumbing shared by ethtool_nl.c and
 * dcb_nl.c: one request/one reply over a libnl socket, finding the reply
 * in the received bytes, and libnl's error codes as errno.
 */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "preflight/net_facts.h"

int pf_nl_errno(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS:
		return 0;
	case NLE_INTR:
		return -EINTR;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_RANGE:
		return -ERANGE;
	case NLE_MSGSIZE:
		return -EMSGSIZE;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_PERM:
		return -EPERM;
	case NLE_NODEV:
		return -ENODEV;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_MSG_OVERFLOW:
	case NLE_PARSE_ERR:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

int pf_nl_find_reply(const void *buf, size_t len, int type, const struct nlmsghdr **ret)
{
	/* libnl's iterators take non-const pointers; nothing is written. */
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	int rem = len > INT32_MAX ? INT32_MAX : (int)len;

	if (len < sizeof(*nlh))
		return len ? -EBADMSG : -ENODATA;
	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next(nlh, &rem)) {
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr err;

			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err.error)))
				return -EBADMSG;
			memcpy(&err.error, NLMSG_DATA(nlh), sizeof(err.error));
			if (err.error == 0)
				continue; /* an ACK */
			return err.error < 0 ? err.error : -err.error;
		}
		if (nlh->nlmsg_type == NLMSG_DONE)
			return -ENODATA;
		if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
			continue;
		if (type < 0 || nlh->nlmsg_type == type) {
			*ret = nlh;
			return 0;
		}
	}
	return rem > 0 ? -EBADMSG : -ENODATA;
}

int pf_nl_transact(struct nl_sock *sk, struct nl_msg *msg, void **ret_buf, size_t *ret_len)
{
	struct sockaddr_nl peer;
	unsigned char *buf = NULL;
	int r;

	r = nl_send_auto(sk, msg);
	if (r < 0)
		return pf_nl_errno(r);
	r = nl_recv(sk, &peer, &buf, NULL);
	if (r < 0)
		return pf_nl_errno(r);
	if (r == 0) {
		free(buf);
		return -ENODATA;
	}
	*ret_buf = buf;
	*ret_len = (size_t)r;
	return 0;
}

int pf_nl_walk(const void *buf, size_t len, int type, pf_nl_one_fn one, void *arg)
{
	const struct nlmsghdr *nlh = buf;
	int rem = len > INT32_MAX ? INT32_MAX : (int)len; /* signed: nlmsg_next() may overshoot */

	for (; nlmsg_ok(nlh, rem); nlh = nlmsg_next((struct nlmsghdr *)nlh, &rem)) {
		if (nlh->nlmsg_type == NLMSG_DONE)
			return 1;
		if (nlh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *err = NLMSG_DATA(nlh);

			if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err->error)))
				return -EBADMSG;
			if (err->error)
				return err->error < 0 ? err->error : -err->error;
			continue;
		}
		if (nlh->nlmsg_type == type) {
			int r = one(nlh, arg);

			if (r < 0)
				return r;
		}
	}
	return rem <= 0 ? 0 : -EBADMSG; /* below 0: the last message's padding */
}

int pf_nl_route_dump(const void *req, size_t len, int type, pf_nl_one_fn one, void *arg)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	pf_autoclose int fd = -1;
	char buf[16384] __attribute__((aligned(4)));
	int r = 0;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, req, len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	/* a dump is bounded by what the host holds: read until NLMSG_DONE */
	while (r == 0) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG;
		r = pf_nl_walk(buf, (size_t)n, type, one, arg);
	}
	return r < 0 ? r : 0;
}
