/* SPDX-License-Identifier: MIT */
/*
 * fake_rdmacm.h - a software RDMA-CM over the fake verbs devices.
 *
 * Behaves like rdma-core's librdmacm in asynchronous mode (an event
 * channel per caller), errno for errno: calls return 0 or -1 with errno
 * (bind to an address no netdev has: EADDRNOTAVAIL; to one on a netdev
 * without an RDMA device: ENODEV; out-of-order calls: EINVAL); outcomes
 * arrive as events whose status is 0 or a negative errno (ADDR_ERROR
 * -ETIMEDOUT when nobody answers ARP for the destination, -ENETUNREACH
 * without a route; ROUTE_ERROR with the port's route_status; UNREACHABLE
 * -ETIMEDOUT), REJECTED with the positive IB CM reason (8, invalid service
 * ID, when nobody listens).  The channel's fd is readable while events are
 * queued, so poll(2) works on it.  Ids bound to a device share one fake
 * verbs context per device (as librdmacm's cma_device does); rdma_create_qp
 * takes the QP to INIT; rdma_accept takes both QPs through RTR/RTS with the
 * other device's LID or RoCE v2 GID, so the fake verbs device checks the
 * attributes and paces WRITEs at the slower end's rate.  Private data as the
 * kernel delivers it: at most 56 bytes in rdma_connect, 196 in rdma_accept,
 * 148 in rdma_reject (more: EINVAL); the receiver's event carries the whole
 * field, zero-padded (CONNECT_REQUEST: the REQ's, the active side's
 * ESTABLISHED: the REP's, REJECTED: the REJ's); rdma_reject of a request
 * gives the active side REJECTED with reason 28 (consumer defined).
 */
#ifndef PF_FAKE_RDMACM_H
#define PF_FAKE_RDMACM_H

#include <stdbool.h>

#include "fake_verbs.h"
#include "preflight/rdmacm_api.h"

#define PF_FAKE_CM_ADDRS 32

struct pf_fake_cm_addr {
	char ip[16];
	int dev; /* fake verbs device index; -1: a netdev without an RDMA device */
};

/* Faults per fake verbs device. */
struct pf_fake_cm_port {
	bool arp_timeout;  /* nobody answers ARP for this port's address: ADDR_ERROR -ETIMEDOUT */
	bool no_route;     /* resolving from this port: ADDR_ERROR -ENETUNREACH */
	int route_status;  /* resolving a route from or to this port: ROUTE_ERROR with it */
	int reject;        /* connecting to this port: REJECTED with this reason */
	bool unreachable;  /* connecting to this port: UNREACHABLE -ETIMEDOUT */
	/*
	 * connecting to this port: CONNECT_ERROR with status -1 and this errno,
	 * as librdmacm reports a QP it could not move to RTR/RTS on the reply
	 * (ucma_process_conn_resp: ERR())
	 */
	int conn_resp_errno;
};

struct pf_fake_rdmacm {
	struct pf_fake_cm_addr addrs[PF_FAKE_CM_ADDRS];
	int n_addrs;
	struct pf_fake_cm_port ports[PF_FAKE_VERBS_DEVS];
	int channel_errno; /* rdma_create_event_channel fails (ENODEV: no rdma_ucm) */
	/* what it saw */
	int live_ids, live_channels;
	int n_resolves, n_connects, n_established;
	int last_resolve_timeout_ms;
	int misuse;              /* calls the real library would hang or leak on */
	char misuse_why[128];
};

extern struct pf_fake_rdmacm pf_fake_rdmacm;
extern const struct pf_rdmacm_api pf_fake_rdmacm_api;

/*
 * No faults; address 10.10.0.<i+1> for fake device i (i < @n), as
 * tests/gen_root.py --rail-subnets shared writes them for the RoCE rails.
 */
void pf_fake_rdmacm_reset(int n);

/* The fake verbs providers (fake_verbs.h) with this RDMA-CM. */
const struct pf_providers *pf_fake_fabric_providers(void);

#endif
