/* SPDX-License-Identifier: MIT */
/*
 * fake_verbs.h - a software RDMA device behind struct pf_verbs_api.
 *
 * RC in memory: QPs walk RESET->INIT->RTR->RTS and refuse, with EINVAL as
 * the kernel does, out-of-order transitions, a missing required attribute
 * or one the transition does not take, and attributes that do not fit the
 * port (IB: dlid = a device's LID, a GRH only towards another subnet; RoCE:
 * is_global 1, sgid_index a configured GID, dgid a device's GID of the same
 * RoCE version): the device so named is the QP's peer, itself for a
 * loopback.  ibv_query_gid and ibv_query_port answer as libibverbs does (-1
 * and errno; a positive errno).  A WRITE whose dest QPN names no QP at
 * RTR/RTS on the peer, whose responder names another QP, or whose SQ PSN is
 * not the responder's RQ PSN completes with IBV_WC_RETRY_EXC_ERR; the local MR must be of the QP's PD and the remote MR of
 * the responder QP's PD (as a real HCA checks lkey and rkey); an RDMA WRITE is a memcpy into
 * the remote MR after lkey/rkey/bounds checks, an RDMA READ one from it (the remote MR
 * needs REMOTE_READ, the local one LOCAL_WRITE, else an access error); completions come only for
 * signalled WRs (and errors), a WR beyond the SQ depth fails with ENOMEM.
 * Each context has a virtual clock: the wire moves bytes at `gbps`, and
 * poll_cq waits (advances the clock) towards the next completion, at most a
 * millisecond per call, as a real poll returns 0 while the wire is busy.
 * Knobs and what the device saw live in the global pf_fake_verbs.
 */
#ifndef PF_FAKE_VERBS_H
#define PF_FAKE_VERBS_H

#include <stdbool.h>

#include "preflight/gpu.h"
#include "preflight/providers.h"
#include "preflight/verbs_api.h"

#define PF_FAKE_VERBS_DEVS 16

struct pf_fake_verbs_dev {
	char name[32];
	uint8_t link_layer;          /* IBV_LINK_LAYER_INFINIBAND / _ETHERNET */
	enum ibv_port_state state;   /* IBV_PORT_ACTIVE */
	uint16_t lid;                /* IB */
	enum ibv_mtu active_mtu;
	int roce_gid_index;          /* RoCE: the RoCE v2 IPv4 GID index */
	union ibv_gid gid[4];
	int gid_version[4];          /* RoCE version of each GID: 1 at even, 2 at odd indexes */
	double gbps;                 /* modelled wire speed */
	double gpu_gbps;             /* when a WRITE touches GPU memory; 0: gbps */
	/*
	 * The port's link, for WRITEs between two devices (a QP whose RTR
	 * names another device's LID or GID): a WRITE moves at the slower
	 * end's gbps; with `corrupt` every WRITE in or out of this port has
	 * its middle byte flipped; with `wc_error` every WRITE in or out of
	 * it completes with that status (IBV_WC_RETRY_EXC_ERR: a link that
	 * drops packets until the retries run out).
	 */
	bool corrupt;
	enum ibv_wc_status wc_error;
};

struct pf_fake_verbs {
	int n_devs;
	struct pf_fake_verbs_dev devs[PF_FAKE_VERBS_DEVS];
	int list_errno;              /* get_device_list returns NULL with this errno */
	bool peermem;                /* reg_mr of GPU memory works */
	bool dmabuf;                 /* the provider has reg_dmabuf_mr (else EOPNOTSUPP, as
				      * rdma-core's dummy op answers) */
	int dmabuf_kernel_errno;     /* 0: the kernel registers DMA-BUF; EPROTONOSUPPORT: no
				      * uverbs method (< 5.12); EOPNOTSUPP: driver without it */
	long fail_wr;                /* this WR (counted over all QPs from 0) fails; -1 none */
	enum ibv_wc_status fail_status;
	bool hang;                   /* WRs never complete */
	long corrupt_offset;         /* flip this byte of every WRITE's destination; -1 none */
	long corrupt_mr_offset;      /* flip this byte of the destination MR whenever a WRITE
				      * covers it (one slot of many); -1 none */
	size_t page_size;            /* the DMA-BUF exporter wants ranges aligned to it (4096) */
	void (*on_wr)(unsigned long wr); /* called for every WRITE (e.g. to bump a counter file) */
	/*
	 * WRITEs from device i to device j move at most at pair_gbps[i][j]
	 * (0: no limit): a slow path through the switch between two ports.
	 */
	double pair_gbps[PF_FAKE_VERBS_DEVS][PF_FAKE_VERBS_DEVS];
	unsigned int overlap_wait_ms; /* open_device waits this long for a second context on
				       * the same device, so concurrent runs always overlap */
	/* what the device saw */
	struct ibv_qp_attr rtr;      /* the last accepted RTR attributes */
	int rtr_mask;
	int n_transitions, n_refused;
	unsigned int max_outstanding; /* most WRs in one SQ at once */
	unsigned long wrs, signalled;
	int n_dmabuf_regs, n_peermem_regs, n_host_regs;
	uint64_t export_dptr;        /* the last DMA-BUF range exported */
	size_t export_size;
	long live;                   /* contexts + PDs + CQs + QPs + MRs not yet released */
	int open_now[PF_FAKE_VERBS_DEVS], max_open[PF_FAKE_VERBS_DEVS]; /* contexts per device */
	char teardown[128];          /* "qp,qp,cq,mr,mr,pd,ctx" */
	char refused[128];           /* why the last transition was refused */
};

extern struct pf_fake_verbs pf_fake_verbs;
extern const struct pf_verbs_api pf_fake_verbs_api;

/*
 * @n devices mlx5_0.. on @link_layer, ACTIVE, MTU 4096, 400 Gb/s; IB LIDs
 * 0x11, 0x12, ...; RoCE GID table: 0 fe80 link-local, 1 fe80 v2, 2 ::ffff:
 * 10.0.0.<i+1> v1, 3 the same v2 (roce_gid_index 3).  Peermem and DMA-BUF
 * work; no failures.
 */
void pf_fake_verbs_reset(int n, uint8_t link_layer);

/* The DMA-BUF exporter the fake table carries (fds are /dev/null). */
pf_CUresult pf_fake_export_dmabuf(void *handle, pf_CUdeviceptr dptr, size_t size,
				  unsigned int type, unsigned long long flags);

/*
 * The fake CUDA table (tests/lib/fake_gpu.c) with cuMemAlloc/cuMemFree
 * wrapped so that the device tells GPU memory (peermem, DMA-BUF) from
 * host memory; needs pf_fake_gpu_reset() first.
 */
const struct pf_cuda_table *pf_fake_verbs_cuda(void);

/* The fake GPU providers (tests/lib/fake_gpu.h) with the fake verbs table. */
const struct pf_providers *pf_fake_verbs_providers(void);

#endif
