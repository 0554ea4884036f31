/* SPDX-License-Identifier: MIT */
/*
 * netlink_util.h - the one cleanup for libnl's socket and message in
 * src/facts (netlink_util.c holds the request/reply plumbing, declared in
 * preflight/net.h):
 *
 *	pf_autonlsock struct nl_sock *sk = NULL;
 *	pf_autonlmsg struct nl_msg *msg = NULL;
 */
#ifndef PREFLIGHT_FACTS_NETLINK_UTIL_H
#define PREFLIGHT_FACTS_NETLINK_UTIL_H

#include <netlink/msg.h>
#include <netlink/socket.h>

#include "preflight/macro.h"

PF_DEFINE_AUTO(nl_socket_free, struct nl_sock *, nl_socket_free)
PF_DEFINE_AUTO(nlmsg_free, struct nl_msg *, nlmsg_free)
#define pf_autonlsock PF_CLEANUP(pf_nl_socket_freep)
#define pf_autonlmsg PF_CLEANUP(pf_nlmsg_freep)

#endif
