/* SPDX-License-Identifier: MIT */
/*
 * fabric_int.h - what the in-process engine (fabric.c, both ends in one
 * process) and the cross-node engine (fabric_peer.c, one end per process)
 * share: the state of a flow and the helpers that set up memory, wait for
 * RDMA-CM events, run ib_write_bw's loop and check the slot patterns.
 * Internal to src/traffic; include/preflight/fabric.h is the interface.
 *
 * Side 0 is the source (it posts the WRITEs), side 1 the destination.  In
 * fabric_peer.c one of them is remote: only its e (names, address), addr
 * and rkey are known, from the RDMA-CM private data.
 */
#ifndef PREFLIGHT_FABRIC_INT_H
#define PREFLIGHT_FABRIC_INT_H

#include <netinet/in.h>
#include <stdbool.h>

#include "preflight/fabric.h"
#include "preflight/macro.h"

#define FAB_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

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

struct fab {
	const struct pf_fab_opts *o;
	struct pf_fab_result *r;
	struct side s[2];
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
	/* the first @n slots of side 1 hold pass @pass's patterns (pf_fabi_transfer) */
	int (*verify)(struct fab *f, unsigned int pass, unsigned int n);
};

/* ret->stage = @st, ret->err = the message; returns @err. */
int pf_fabi_fail(struct fab *f, enum pf_fab_stage st, int err, const char *fmt, ...) PF_PRINTF(4, 5);
/* Append to ret->note ("; " between). */
void pf_fabi_note(struct fab *f, const char *fmt, ...) PF_PRINTF(2, 3);
int pf_fabi_errno_or(int fallback);
/* Page size, slot stride and count from the options (ret->slots). */
int pf_fabi_layout(struct fab *f);
/* Slot j of @buf gets pass @pass's pattern. */
void pf_fabi_fill_slots(struct fab *f, uint8_t *buf, unsigned int pass);
/* PD, CQ and the buffer of side @i on s[i].ctx (0: pass 1 patterns, 1: zeros). */
int pf_fabi_side_resources(struct fab *f, int i);
struct ibv_qp_init_attr pf_fabi_qp_attr(struct fab *f, struct side *s);
int pf_fabi_sockaddr(const char *ip, uint16_t port_be, struct sockaddr_in *sa);
/* The next event on f->ch within @ms: 0 and *ret (ack it), -ETIMEDOUT, -errno. */
int pf_fabi_cm_next(struct fab *f, int ms, struct pf_cm_event **ret);
/* The -errno an error event stands for (REJECTED: -ECONNREFUSED). */
int pf_fabi_event_errno(const struct fab *f, int type, int status);
const char *pf_fabi_ctx_name(struct fab *f, struct ibv_context *c);
/* rdma_create_id and rdma_resolve_addr from @src to @dst until ADDR_RESOLVED: 0 or the failure. */
int pf_fabi_resolve_addr(struct fab *f, const struct sockaddr_in *src,
			 const struct sockaddr_in *dst);
/* Wait for @ok on side 0's id, else fail with @bad's errno at stage @st. */
int pf_fabi_cm_expect(struct fab *f, enum pf_cm_event_type ok, enum pf_cm_event_type bad,
		      enum pf_fab_stage st, const char *call, unsigned int timeout_ms);
struct pf_cm_conn_param pf_fabi_conn_param(void);
/* ib_write_bw's loop from side 0 into side 1's addr/rkey (pf_fabi_prepare_wrs first). */
int pf_fabi_pump(struct fab *f, uint64_t n, uint64_t duration_ns, uint64_t *ret_n,
		 uint64_t *ret_ns);
void pf_fabi_prepare_wrs(struct fab *f);
/* Every one of the first @n slots of @buf holds pass @pass's pattern, else -EBADMSG. */
int pf_fabi_check_slots(struct fab *f, const uint8_t *buf, unsigned int pass, unsigned int n);
/*
 * ib_write_bw's run: warm-up, the timed WRITEs (ret: gbps, seconds, bytes),
 * f->verify of pass 1, pass 2's patterns written once per slot, f->verify.
 */
int pf_fabi_transfer(struct fab *f);
/* Pass 2's patterns into side 0's buffer. */
int pf_fabi_refill(struct fab *f);
/* MR, buffer and GPU context of @s. */
void pf_fabi_release_side(struct fab *f, struct side *s);

#endif
