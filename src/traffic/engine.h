/* SPDX-License-Identifier: MIT */
/*
 * engine.h - the one RDMA traffic engine under loopback.c, fabric.c and
 * fabric_peer.c, cut as perftest's: a flow (two sides, the source posting
 * WRITEs into the destination), memory behind a small ops table (host,
 * CUDA with nvidia-peermem, CUDA by DMA-BUF), one connect function per way
 * of connecting, one bandwidth loop (the pump) and the data checks.
 * Internal to src/traffic; include/preflight/{loopback,fabric,fabric_peer}.h
 * are the interfaces.
 *
 *   flow.c          errors and notes, slot layout, the slot patterns
 *   mem.c           the memory ops tables and a side's buffer
 *   side.c          a side's PD, CQ, buffer and QP attributes; releasing a flow
 *   pump.c          the bandwidth loop (ib_write_bw's run_iter_bw)
 *   verify.c        the data checks: in place, or by RDMA READ back
 *   transfer.c      warm-up, the timed run and the checked passes
 *   cm.c            the RDMA-CM helpers (events, address resolution)
 *   connect_cm.c    connect op: both sides in this process, over RDMA-CM
 *   connect_local.c connect op: both sides in this process, plain verbs
 *   connect_peer.c  one side here, the other across a caller's channel, plain verbs
 *
 * Side 0 is the source (it posts the WRITEs), side 1 the destination.  In
 * fabric_peer.c one of them is remote: only its e (names, address), addr
 * and rkey are known, from the RDMA-CM private data.  A loopback is a flow
 * whose two sides are one port of one device, opened twice.
 */
#ifndef PREFLIGHT_TRAFFIC_ENGINE_H
#define PREFLIGHT_TRAFFIC_ENGINE_H

#include <netinet/in.h>
#include <stdbool.h>

#include "preflight/fabric.h"
#include "preflight/macro.h"
#include "qp_verbs.h"

#define ENG_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

struct flow;
struct side;

/*
 * Where a side's buffer lives and how it is registered (perftest's
 * memory_ctx): alloc sets s->addr (and s->host for host memory), fill
 * writes pass @pass's patterns into every slot (-1: zeros), view gives the
 * buffer's bytes to check (*ret_copy: a copy to free, or NULL), reg
 * registers it with s->pd, release frees what alloc took.  Failures are
 * -errno with the flow's error set; reg's is NULL with the flow's error
 * (host) or a note (the GPU ways, tried in turn by mem.c).
 */
struct pf_eng_mem_ops {
	const char *name; /* the result's reg: "host", "peermem", "dmabuf" */
	int (*alloc)(struct flow *f, struct side *s);
	int (*fill)(struct flow *f, struct side *s, int pass, enum pf_fab_stage st);
	int (*view)(struct flow *f, struct side *s, const uint8_t **ret, uint8_t **ret_copy);
	struct ibv_mr *(*reg)(struct flow *f, struct side *s);
	void (*release)(struct flow *f, struct side *s);
};

extern const struct pf_eng_mem_ops pf_eng_mem_host, pf_eng_mem_cuda, pf_eng_mem_dmabuf;

struct side {
	const struct pf_fab_end *e;
	struct ibv_context *ctx;  /* CM: the id's (librdmacm owns it); verbs: ours */
	bool own_ctx;
	struct pf_cm_id *id;      /* CM: the connecting id, or the accepted one */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;        /* verbs: ours; CM: id->qp */
	struct ibv_mr *mr;
	struct ibv_port_attr pa;
	union ibv_gid gid;        /* verbs on RoCE: the port's RoCE v2 GID */
	const struct pf_eng_mem_ops *mem; /* how the buffer was allocated and registered */
	void *host;
	size_t host_len;
	bool host_numa;
	pf_CUdeviceptr dptr, dalloc;
	pf_CUcontext cctx;
	bool gpu_ctx;
	uint64_t addr;            /* the buffer as the NIC sees it */
	uint32_t rkey;            /* its MR's rkey (a remote side: from the peer) */
	bool established;
};

/* The buffer WRITEs of side 0 are READ back into (fabric_peer's writer). */
struct pf_eng_readback {
	uint8_t *buf;
	size_t len;
	struct ibv_mr *mr;
};

struct flow {
	const struct pf_fab_opts *o;
	struct pf_fab_result *r;
	struct side s[2];
	char where[80];           /* in messages: "mlx5_0 -> mlx5_1", a loopback "mlx5_0/1" */
	int mr_access;            /* ENG_ACCESS, a loopback's with relaxed ordering */
	uint32_t psn[2];          /* verbs: each side's send PSN */
	unsigned int first_pass;  /* the timed run's pattern pass: 1, a loopback's 0 */
	bool second_pass;         /* fresh patterns written once more and checked */
	struct ibv_device **list;
	struct pf_cm_channel *ch;
	struct pf_cm_id *listen;
	bool connected;
	int ev_errno;             /* errno right after the last rdma_get_cm_event */
	size_t page, stride, span;
	unsigned int slots;
	struct ibv_send_wr *wrs;
	struct ibv_sge *sges;
	uint64_t n_written;
	uint64_t stop_at;         /* pf_eng_now_ns() when the run is cut (opts.max_ms), 0 never */
	struct pf_eng_readback *readback; /* set: the checks READ side 1 back into it */
	/*
	 * Called once when the timed run has ended (or the flow failed before
	 * it ended), NULL after; NULL: none.  A round of flows in one process
	 * waits there for all of them (fabric.c), so that no flow's checks
	 * and refills (CPU and memory bandwidth) run inside another flow's
	 * timed window.
	 */
	void (*timed_end)(struct flow *f);
	void *round;              /* timed_end's */
};

/* One way of connecting a flow whose two sides are in this process. */
typedef int (*pf_eng_connect_fn)(struct flow *f);

/* ---- flow.c ---- */
/* A flow of @o into @r, its defaults: two passes, ENG_ACCESS, where "src -> dst". */
void pf_eng_init(struct flow *f, const struct pf_fab_opts *o, struct pf_fab_result *r);
/* ret->stage = @st, ret->err = the message; returns @err. */
int pf_eng_fail(struct flow *f, enum pf_fab_stage st, int err, const char *fmt, ...) PF_PRINTF(4, 5);
/* Append to ret->note ("; " between), unless it holds that sentence already. */
void pf_eng_note(struct flow *f, const char *fmt, ...) PF_PRINTF(2, 3);
int pf_eng_errno_or(int fallback);
uint64_t pf_eng_now_ns(struct flow *f);
size_t pf_eng_round_up(size_t v, size_t to);
/* Page size, slot stride and count from the options (ret->slots). */
int pf_eng_layout(struct flow *f);
/* Slot j of @buf gets pass @pass's pattern. */
void pf_eng_fill_slots(struct flow *f, uint8_t *buf, unsigned int pass);
/* Every one of the first @n slots of @buf holds pass @pass's pattern, else -EBADMSG. */
int pf_eng_check_slots(struct flow *f, const uint8_t *buf, unsigned int pass, unsigned int n);

/* ---- mem.c ---- */
/* Side @i's buffer (0: the first pass's patterns, 1: zeros), registered: s->mem, s->mr. */
int pf_eng_side_memory(struct flow *f, int i);
/* MR and buffer of @s. */
void pf_eng_mem_release(struct flow *f, struct side *s);

/* ---- side.c ---- */
/* PD, CQ and the buffer of side @i on s[i].ctx. */
int pf_eng_side_resources(struct flow *f, int i);
struct ibv_qp_init_attr pf_eng_qp_attr(struct flow *f, struct side *s);
/* An in-process flow: QPs, CQs, MRs and buffers, PDs, ids, the channel, contexts. */
void pf_eng_release(struct flow *f);

/* ---- pump.c ---- */
/* The WRs of side 0 into side 1's addr/rkey. */
void pf_eng_prepare_wrs(struct flow *f);
/*
 * Post @n WRs (UINT64_MAX with @duration_ns: until that much time has
 * passed, then up to the next signalled WR), tx_depth outstanding, every
 * pf_lb_signal_every()-th signalled; wait for the last, or cut the run at
 * f->stop_at (and when, with a stop_at set, WRs completed and then none
 * for the completion timeout): side 0's QP to ERR, the rest flushed,
 * ret->cut_short.  *ret_n, *ret_ns: WRs done and first post to last
 * completion.
 */
int pf_eng_pump(struct flow *f, uint64_t n, uint64_t duration_ns, uint64_t *ret_n,
		uint64_t *ret_ns);

/* ---- verify.c ---- */
/* The first @n slots of side 1 hold pass @pass's patterns (in place or READ back). */
int pf_eng_verify(struct flow *f, unsigned int pass, unsigned int n);
/* Pass @pass's patterns into side 0's buffer. */
int pf_eng_refill(struct flow *f, unsigned int pass);
/* f->readback: a host buffer on side 0's PD to READ side 1 back into. */
int pf_eng_readback_open(struct flow *f, struct pf_eng_readback *rb);
void pf_eng_readback_release(struct flow *f, struct pf_eng_readback *rb);

/* ---- transfer.c ---- */
/*
 * ib_write_bw's run: warm-up, the timed WRITEs (ret: gbps, seconds, bytes;
 * cut at opts.max_ms: what completed by then), f->timed_end, the check of
 * the first pass, then (second_pass, not after a cut) fresh patterns
 * written once per slot and checked.
 */
int pf_eng_transfer(struct flow *f);
/* f->timed_end once, if set (a flow that fails before its timed run ends). */
void pf_eng_timed_end(struct flow *f);

/* ---- cm.c ---- */
int pf_eng_sockaddr(const char *ip, uint16_t port_be, struct sockaddr_in *sa);
/* The next event on f->ch within @ms: 0 and *ret (ack it), -ETIMEDOUT, -errno. */
int pf_eng_cm_next(struct flow *f, int ms, struct pf_cm_event **ret);
/* The -errno an error event stands for (REJECTED: -ECONNREFUSED). */
int pf_eng_event_errno(const struct flow *f, int type, int status);
const char *pf_eng_ctx_name(struct flow *f, struct ibv_context *c);
/* rdma_create_id and rdma_resolve_addr from @src to @dst until ADDR_RESOLVED: 0 or the failure. */
int pf_eng_resolve_addr(struct flow *f, const struct sockaddr_in *src,
			const struct sockaddr_in *dst);
/* Wait for @ok on side 0's id, else fail with @bad's errno at stage @st. */
int pf_eng_cm_expect(struct flow *f, enum pf_cm_event_type ok, enum pf_cm_event_type bad,
		     enum pf_fab_stage st, const char *call, unsigned int timeout_ms);
struct pf_cm_conn_param pf_eng_conn_param(void);

/* ---- connect_cm.c, connect_local.c: the connect ops ---- */
/* RDMA-CM between two addresses of this node: listen, resolve, connect and accept. */
int pf_eng_connect_cm(struct flow *f);
/* Both ports opened with libibverbs, the QPs moved INIT -> RTR -> RTS here. */
int pf_eng_connect_local(struct flow *f);

/* The verbs way's steps (connect_local.c), for connect_peer.c too. */
/* Side @i's device opened, its port ACTIVE with a LID (IB) or a configured GID (RoCE). */
int pf_eng_verbs_open(struct flow *f, int i);
/* Side @i's RC QP created and at INIT. */
int pf_eng_verbs_qp(struct flow *f, int i);
/* Side @i's exchange record: port, QP, PSN, buffer and the flow's slot layout. */
struct pf_qpv_rec pf_eng_verbs_rec(struct flow *f, int i);
/* Side @i's QP to RTR and RTS towards @peer (validated); ret->mtu the path MTU. */
int pf_eng_verbs_join(struct flow *f, int i, const struct pf_qpv_rec *me,
		      const struct pf_qpv_rec *peer);
/*
 * Side @i in this process, the other end across @ch (another node): side @i
 * opened with its resources and QP, the records swapped (the peer's within
 * @ms, validated: bytes from the network), the remote side's addr and rkey
 * from its record, side @i's QP to RTS.  0 or -errno with the flow's error.
 */
int pf_eng_connect_peer(struct flow *f, int i, const struct pf_qpv_chan *ch, int ms);

#endif
