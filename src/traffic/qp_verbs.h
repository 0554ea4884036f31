/* SPDX-License-Identifier: MIT */
/*
 * qp_verbs.h - an RC connection made with plain verbs, no RDMA-CM: each end
 * creates its QP, the two ends swap an exchange record over a channel the
 * caller provides, and each moves its own QP INIT -> RTR -> RTS, as perftest
 * (ib_write_bw without -R), NCCL's net_ib and SuperBench's ib-traffic do.
 * Internal to src/traffic.
 *
 * The record is what the other end needs to address this one and to write
 * into its buffer: LID, GID and GID index, QPN and the PSN this end sends
 * from, the port's active MTU, the rkey and address of the buffer and its
 * slot layout.  On the wire it is PF_QPV_REC_LEN bytes, big-endian, with a
 * magic and a version; everything a peer sends is validated before use
 * (pf_qpv_decode): bytes that came from another process are hostile.
 *
 * Addressing (pf_qpv_rtr_rts): InfiniBand by LID, with a GRH (the peer's GID,
 * our GID index) when the peer's GID is in another subnet (its 64-bit subnet
 * prefix differs from ours); RoCE always by GID with a GRH.  The path MTU is
 * the smaller of the two ends' active MTUs.  The attributes are perftest's
 * (its perftest_resources.c, ctx_modify_qp_to_rtr and _rts): min_rnr_timer
 * 12, timeout 14, retry_cnt and rnr_retry 7, one outstanding READ each way,
 * hop limit 255.
 */
#ifndef PREFLIGHT_QP_VERBS_H
#define PREFLIGHT_QP_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/verbs_api.h"

#define PF_QPV_REC_LEN 64
#define PF_QPV_MAGIC 0x50465156u /* "PFQV" */
#define PF_QPV_VERSION 1u
#define PF_QPV_MAX_SLOTS 4096u
#define PF_QPV_24BITS 0xffffffu

/* One end of the connection as the other end must know it. */
struct pf_qpv_rec {
	uint8_t link_layer;     /* IBV_LINK_LAYER_INFINIBAND or _ETHERNET */
	uint8_t mtu;            /* enum ibv_mtu: the port's active MTU */
	uint16_t lid;           /* InfiniBand: the port's LID */
	uint8_t gid_index;      /* the GID this end sends from */
	union ibv_gid gid;      /* its value (RoCE: required; IB: the port GID) */
	uint32_t qpn;           /* 24 bits */
	uint32_t psn;           /* the first PSN this end sends (24 bits) */
	uint32_t rkey;
	uint64_t addr;          /* the buffer as the NIC sees it */
	uint32_t slot_stride;   /* slot layout: slots of slot_stride bytes from addr */
	uint32_t slots;
};

/* The record into @out (exactly PF_QPV_REC_LEN bytes). */
void pf_qpv_encode(const struct pf_qpv_rec *r, uint8_t out[PF_QPV_REC_LEN]);

/*
 * @len bytes from a peer into *ret, every field checked: the length, magic
 * and version, the link layer, the MTU (an enum ibv_mtu), a 24-bit QPN that
 * is not QP0/QP1, a 24-bit PSN, a unicast LID on InfiniBand, a configured
 * GID on RoCE, the slot layout (1..PF_QPV_MAX_SLOTS slots of a non-zero
 * stride that fit in the address space, addr not 0), the reserved bytes
 * zero.  0, or -EBADMSG with *ret_err naming the field (caller frees).
 */
int pf_qpv_decode(const void *buf, size_t len, struct pf_qpv_rec *ret, char **ret_err);

/* A GID table entry as sysfs shows it: the value and the RoCE version (1, 2, 0 unknown). */
struct pf_qpv_gid {
	union ibv_gid gid;
	int roce_version;
};

/*
 * The GID index a RoCE port sends from, chosen as NCCL does
 * (ncclIbGetGidIndex): @env_gid_index (NCCL_IB_GID_INDEX's value, NULL
 * unset) when set; else the first RoCE v2 entry holding an IPv4-mapped
 * address, then any IPv4-mapped entry; with no IPv4 address on the port,
 * index 0 as NCCL keeps it (the link-local GID), or the first configured
 * RoCE v2 entry when 0 is empty.  0 and *ret; -EINVAL for an
 * @env_gid_index that is no index of the table; -EADDRNOTAVAIL when no entry
 * is configured.
 */
int pf_qpv_pick_gid(const struct pf_qpv_gid *tbl, int n, const char *env_gid_index, int *ret);

/* True for a GID the port holds (not all zero, not the bare fe80:: prefix). */
bool pf_qpv_gid_configured(const union ibv_gid *g);

/* The smaller of two MTUs (the path MTU of a connection). */
enum ibv_mtu pf_qpv_path_mtu(enum ibv_mtu a, enum ibv_mtu b);

/* An RC QP's attributes: @cq for both queues, @depth send WRs, one SGE, one receive WR. */
struct ibv_qp_init_attr pf_qpv_qp_attr(struct ibv_cq *cq, unsigned int depth);

/* An RC QP on @pd with @cq for both queues, @depth send WRs: 0 and *ret_qp, or -errno. */
int pf_qpv_create(const struct pf_verbs_api *api, struct ibv_pd *pd, struct ibv_cq *cq,
		  unsigned int depth, struct ibv_qp **ret_qp);

/* RESET -> INIT on @port with local write, remote write and read: 0 or -errno (*ret_err). */
int pf_qpv_init(const struct pf_verbs_api *api, struct ibv_qp *qp, uint8_t port,
		char **ret_err);

/*
 * INIT -> RTR -> RTS of @qp (this end: @me, the peer: @peer, validated) on
 * @port.  The path MTU is the smaller active MTU; the peer's PSN is the one
 * this QP expects.  0, -EPROTO (link layers differ), -EINVAL (no usable
 * address), or the errno ibv_modify_qp answered, each with *ret_err naming
 * the step (caller frees).
 */
int pf_qpv_rtr_rts(const struct pf_verbs_api *api, struct ibv_qp *qp, uint8_t port,
		   const struct pf_qpv_rec *me, const struct pf_qpv_rec *peer, char **ret_err);

/*
 * The channel the records travel over, the caller's: the mesh rendezvous
 * between nodes, an in-process mailbox (pf_qpv_box) between two ends of one
 * process.  send: 0 or -errno.  recv: up to @cap bytes of the next record
 * within @ms, the count; -ETIMEDOUT; -ECONNRESET when the peer is gone.
 */
struct pf_qpv_chan {
	void *ctx;
	int (*send)(void *ctx, const uint8_t *buf, size_t len);
	long (*recv)(void *ctx, uint8_t *buf, size_t cap, int ms);
	/*
	 * Optional (NULL: none needed, one thread moves both QPs): this end's
	 * QP is at RTS; 0 once the peer's is too, within @ms, else -errno.  No
	 * WRITE is posted before it: a QP not yet at RTR drops what reaches it.
	 */
	int (*ready)(void *ctx, int ms);
};

/* @mine onto @ch: 0, or the channel's -errno with *ret_err. */
int pf_qpv_send(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, char **ret_err);

/*
 * The peer's record from @ch within @ms, validated and its slot layout
 * @mine's: 0 and *ret_peer, or as pf_qpv_exchange.
 */
int pf_qpv_recv(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, int ms,
		struct pf_qpv_rec *ret_peer, char **ret_err);

/*
 * Send @mine, then receive and validate the peer's record within @ms.  0 and
 * *ret_peer; -ETIMEDOUT, -ECONNRESET (the peer went away), -EBADMSG (a
 * record that fails pf_qpv_decode, or whose slot layout is not @mine's),
 * each with *ret_err (caller frees).
 */
int pf_qpv_exchange(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, int ms,
		    struct pf_qpv_rec *ret_peer, char **ret_err);

/*
 * The in-process channel: two ends of one process, one thread, so both
 * send (pf_qpv_send) before either receives (pf_qpv_recv).  A box holds the
 * record sent to one end; end i sends into box[1 - i] and receives from
 * box[i] (nothing there: -ETIMEDOUT at once, the sender never comes; a
 * closed box: -ECONNRESET; a record longer than the box: -EMSGSIZE).
 */
struct pf_qpv_box {
	uint8_t buf[PF_QPV_REC_LEN];
	size_t len;
	bool full, closed;
};

struct pf_qpv_pair {
	struct pf_qpv_box box[2];
};

/* The channel of end @i (0 or 1) of @p. */
struct pf_qpv_chan pf_qpv_pair_chan(struct pf_qpv_pair *p, int i);

#endif
