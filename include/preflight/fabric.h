/* SPDX-License-Identifier: MIT */
/*
 * fabric.h - the RDMA WRITE engine between two NICs, behind fabric_loopback.
 *
 * A flow writes from one port (the source) to another (the destination),
 * through the cables and the switch, on one RC connection:
 *
 *  - PF_FAB_CM: RDMA-CM, as NCCL's peers, MPI and UCX connect on RoCE.  In
 *    one event channel, a listening id bound to the destination's address,
 *    an id bound to the source's address that resolves the destination
 *    (rdma_resolve_addr: ARP over the rails; rdma_resolve_route), QPs made
 *    with rdma_create_qp on each side's id, rdma_connect and, on the
 *    CONNECT_REQUEST, rdma_accept, until both sides are ESTABLISHED.
 *  - PF_FAB_VERBS: both ports opened with libibverbs and the QPs connected
 *    in-process over exchange records (src/traffic/connect_local.c over
 *    qp_verbs.c, perftest's attributes): InfiniBand by LID and QPN, RoCE by
 *    the GID NCCL picks (gid_index) and QPN, the way NCCL connects its QPs.
 *
 * Then ib_write_bw's loop (tx_depth WRITEs outstanding, every cq_mod-th
 * signalled, a warm-up, a timed run from the first post to the last
 * completion) over `slots` distinct targets, each slot its own pattern
 * per pass: after the timed run every written slot must hold pass 1's
 * pattern, then the source is refilled with pass 2's patterns, each slot
 * written once more and checked again (a WRITE that never landed leaves
 * the old pattern).  Buffers are host memory on each NIC's NUMA node, or
 * GPU memory of each side's GPU (nvidia-peermem or DMA-BUF).
 *
 * pf_fabric_round() runs several flows at once: each in its own thread,
 * connected first, then all released together so that the timed runs
 * overlap.  Verbs, RDMA-CM and CUDA go through their tables, so tests use
 * the software device (tests/lib/fake_verbs.c, fake_rdmacm.c).  It never
 * prints.
 */
#ifndef PREFLIGHT_FABRIC_H
#define PREFLIGHT_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/loopback.h"
#include "preflight/rdmacm_api.h"
#include "preflight/verbs_api.h"

enum pf_fab_conn {
	PF_FAB_CM,    /* RDMA-CM over the rails' IPv4 addresses */
	PF_FAB_VERBS, /* plain verbs: exchange records swapped in-process */
};

/* One end of a flow. */
struct pf_fab_end {
	const char *dev;       /* "mlx5_0" */
	unsigned int port;     /* 1-based */
	char ip[16];           /* PF_FAB_CM: the rail's own IPv4 address */
	int numa_node;         /* host buffers: the NIC's node, -1 unknown */
	int gid_index;         /* PF_FAB_VERBS on RoCE: the GID NCCL picks (pf_verbs_gid_index), -1 none */
	enum pf_lb_mem mem;
	pf_CUdevice gpu;       /* PF_LB_GPU */
	bool host_fallback;    /* PF_LB_GPU that cannot be allocated or registered: host
				* memory instead, the reason in the result's note */
};

struct pf_fab_opts {
	const struct pf_verbs_api *api;
	const struct pf_rdmacm_api *cm; /* PF_FAB_CM */
	enum pf_fab_conn conn;
	struct pf_fab_end src, dst;
	size_t msg_size;
	unsigned int tx_depth, cq_mod;
	uint64_t warmup, iterations, duration_ms;
	unsigned int timeout_ms;         /* no CM event for this long; the floor of the
					  * completion timeout (pf_lb_completion_timeout_ms) */
	double min_gbps;                 /* the rate the flow is held to; 0 unknown */
	uint64_t max_ms;                 /* warm-up and timed run at most; 0 no limit
					  * (as pf_lb_opts.max_ms: cut, result.cut_short) */
	unsigned int resolve_timeout_ms; /* rdma_resolve_addr / rdma_resolve_route */
	unsigned int slots;              /* 0: as many as fit in 32 MiB, 2-64 */
	size_t page_size;                /* 0: sysconf */
	/* GPU buffers */
	const struct pf_cuda_table *cu;
	pf_cuMemGetHandleForAddressRange_fn export_dmabuf;
	enum pf_lb_reg reg;
};

/* perftest-like defaults: 1 MiB, depth 128, cq_mod 100, 200 + 2000 WRs, 2 s timeouts. */
void pf_fab_opts_default(struct pf_fab_opts *o);

enum pf_fab_stage {
	PF_FAB_OPEN,     /* event channel, listening id, devices */
	PF_FAB_ADDR,     /* rdma_resolve_addr */
	PF_FAB_ROUTE,    /* rdma_resolve_route */
	PF_FAB_MEMORY,   /* PD, CQ, buffers and registration */
	PF_FAB_CONNECT,  /* QPs and the connection */
	PF_FAB_TRANSFER, /* posting and completions */
	PF_FAB_VERIFY,   /* data check */
	PF_FAB_DONE,
};

struct pf_fab_result {
	enum pf_fab_stage stage;
	double gbps;            /* decimal Gb/s over the timed run */
	double seconds;
	uint64_t bytes, iterations;
	int cm_event;           /* the RDMA-CM event that ended a failed setup, -1 none */
	int cm_status;          /* its status (negative errno; REJECTED: the reject reason) */
	int wc_status;          /* IBV_WC_* of a failed completion, else 0 */
	unsigned int slots, bad_slot, bad_pass; /* bad_pass 1: timed run, 2: fresh patterns */
	size_t bad_offset;
	int mtu;                /* path MTU (verbs), 0 unknown */
	const char *reg[2];     /* "host", "peermem", "dmabuf" per side */
	char bound[2][32];      /* CM: the device each side's address resolved to */
	double below_gbps;      /* -ETIMEDOUT in the transfer: the flow moved less than this */
	/*
	 * The flow reached opts.max_ms: the figure is what completed by then,
	 * the source QP was moved to ERR (its WRs flushed), pass 1 verified,
	 * pass 2 (fresh patterns) not run.
	 */
	bool cut_short;
	char note[256];
	char err[256];
};

/*
 * Run one flow.  0 with the result, or -errno with ret->stage and ret->err:
 * -ETIMEDOUT (an address or route that did not resolve, a connection or
 * WRITEs unanswered), -ENETUNREACH/-EHOSTUNREACH (no route), -ECONNREFUSED
 * (rejected), -EXDEV (an address that belongs to another device),
 * -ENODEV, -ENETDOWN, -ENOMEM, -EFAULT (registration), -EPROTO (QP
 * transition), -EIO (error completion: wc_status), -EBADMSG (data), or the
 * errno a librdmacm call set.  Everything is released in reverse order.
 */
int pf_fabric_flow(const struct pf_fab_opts *o, struct pf_fab_result *ret);

struct pf_fab_flow {
	struct pf_fab_opts opts;
	struct pf_fab_result res;
	int rc;
};

/* Run @n flows at once (connections first, then the timed runs together). */
void pf_fabric_round(struct pf_fab_flow *flows, size_t n);

const char *pf_fab_stage_name(enum pf_fab_stage s);

#endif
