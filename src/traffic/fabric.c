// SPDX-License-Identifier: MIT
/*
 * fabric.c - RDMA WRITE between two NICs (include/preflight/fabric.h).
 *
 * RDMA-CM usage follows rdma-core's examples (librdmacm/examples/rping.c,
 * cmtime.c): asynchronous calls on one event channel, every event acked,
 * QPs from rdma_create_qp (the library moves them to RTR/RTS on connect and
 * accept).  The verbs connection follows perftest (ctx_modify_qp_to_rtr):
 * path MTU the smaller active MTU, min_rnr_timer 12, timeout 14, retry_cnt
 * and rnr_retry 7.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <numa.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "fabric_int.h"

#define FAB_SLOT_BUDGET (32u << 20)
#define FAB_MIN_SLOTS 2u
#define FAB_MAX_SLOTS 64u
#define FAB_SLOT_ALIGN 64u
#define FAB_PSN_SRC 0x2a3b4
#define FAB_PSN_DST 0x5c6d7

void pf_fab_opts_default(struct pf_fab_opts *o)
{
	*o = (struct pf_fab_opts){
		.conn = PF_FAB_CM,
		.src = { .port = 1, .numa_node = -1, .gid_index = -1 },
		.dst = { .port = 1, .numa_node = -1, .gid_index = -1 },
		.msg_size = 1u << 20,
		.tx_depth = 128,
		.cq_mod = 100,
		.warmup = 200,
		.iterations = 2000,
		.timeout_ms = 2000,
		.resolve_timeout_ms = 2000,
	};
}

const char *pf_fab_stage_name(enum pf_fab_stage s)
{
	static const char *const names[] = { "open", "resolve_addr", "resolve_route", "memory",
					     "connect", "transfer", "verify", "done" };

	return s <= PF_FAB_DONE ? names[s] : "?";
}

int pf_fabi_fail(struct fab *f, enum pf_fab_stage st, int err, const char *fmt, ...)
{
	va_list ap;

	f->r->stage = st;
	va_start(ap, fmt);
	vsnprintf(f->r->err, sizeof(f->r->err), fmt, ap);
	va_end(ap);
	return err;
}

void pf_fabi_note(struct fab *f, const char *fmt, ...)
{
	size_t used = strlen(f->r->note);
	va_list ap;

	if (used && used + 2 < sizeof(f->r->note)) {
		strcat(f->r->note, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(f->r->note + used, sizeof(f->r->note) - used, fmt, ap);
	va_end(ap);
}

int pf_fabi_errno_or(int fallback)
{
	return errno ? errno : fallback;
}

static uint64_t now_ns(struct fab *f)
{
	if (f->o->api->now_ns && f->s[0].ctx)
		return f->o->api->now_ns(f->s[0].ctx);
	return pf_now_ns();
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

int pf_fabi_layout(struct fab *f)
{
	long sys = sysconf(_SC_PAGESIZE);

	f->page = f->o->page_size ? f->o->page_size : sys > 0 ? (size_t)sys : 4096;
	if (f->page & (f->page - 1))
		return pf_fabi_fail(f, PF_FAB_OPEN, -EINVAL, "page size %zu is not a power of two", f->page);
	f->stride = round_up(f->o->msg_size, FAB_SLOT_ALIGN);
	f->slots = f->o->slots;
	if (!f->slots) {
		size_t fit = FAB_SLOT_BUDGET / f->stride;

		f->slots = fit < FAB_MIN_SLOTS ? FAB_MIN_SLOTS : fit > FAB_MAX_SLOTS ? FAB_MAX_SLOTS
										: (unsigned int)fit;
	}
	f->span = f->stride * f->slots;
	f->r->slots = f->slots;
	return 0;
}

/* Slot j of pass p carries the pattern seeded by p << 16 | (j + 1). */
static uint64_t seed(unsigned int pass, unsigned int slot)
{
	return (uint64_t)pass << 16 | (slot + 1);
}

void pf_fabi_fill_slots(struct fab *f, uint8_t *buf, unsigned int pass)
{
	for (unsigned int j = 0; j < f->slots; j++)
		pf_lb_fill_pattern(buf + j * f->stride, f->o->msg_size, seed(pass, j));
}

/* ---- memory ---------------------------------------------------------- */

static const char *cu_err(const struct pf_cuda_table *cu, pf_CUresult r, char *buf, size_t len)
{
	return pf_cuda_strerror(cu, r, buf, len);
}

static int host_memory(struct fab *f, struct side *s, int i)
{
	size_t len = round_up(f->span, f->page);
	int node = s->e->numa_node;

	s->host_len = len;
	s->host_numa = node >= 0 && numa_available() >= 0 && node <= numa_max_node();
	s->host = s->host_numa ? numa_alloc_onnode(len, node) : aligned_alloc(f->page, len);
	if (!s->host)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -ENOMEM, "cannot allocate %zu bytes for %s", len,
			    s->e->dev);
	if (!s->host_numa)
		pf_fabi_note(f, "%s buffer not bound to a NUMA node (%s)", s->e->dev,
		     node < 0 ? "the NIC's NUMA node is unknown" : "libnuma unavailable");
	if (i == 0)
		pf_fabi_fill_slots(f, s->host, 1);
	else
		memset(s->host, 0, len);
	s->addr = (uint64_t)(uintptr_t)s->host;
	errno = 0;
	s->mr = f->o->api->reg_mr(s->pd, s->host, len, FAB_ACCESS);
	if (!s->mr) {
		int e = pf_fabi_errno_or(EFAULT);

		return pf_fabi_fail(f, PF_FAB_MEMORY, -EFAULT, "ibv_reg_mr of %zu bytes of host memory on "
			    "%s: %s%s", len, s->e->dev, strerror(e),
			    e == ENOMEM || e == EPERM ? " (RLIMIT_MEMLOCK too low?)" : "");
	}
	f->r->reg[i] = "host";
	return 0;
}

static struct ibv_mr *reg_dmabuf(struct fab *f, struct side *s, size_t len)
{
	const struct pf_verbs_api *api = f->o->api;
	pf_CUdeviceptr base = s->dptr & ~(pf_CUdeviceptr)(f->page - 1);
	size_t off = (size_t)(s->dptr - base), span = round_up(off + len, f->page);
	struct ibv_mr *mr;
	char buf[128];
	pf_CUresult cr;
	int fd = -1, e;

	if (!api->reg_dmabuf_mr || !f->o->export_dmabuf) {
		pf_fabi_note(f, "DMA-BUF: %s", !api->reg_dmabuf_mr ? "libibverbs has no ibv_reg_dmabuf_mr"
							   : "no cuMemGetHandleForAddressRange");
		return NULL;
	}
	cr = f->o->export_dmabuf(&fd, base, span, PF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (cr != PF_CUDA_SUCCESS) {
		pf_fabi_note(f, "DMA-BUF: cuMemGetHandleForAddressRange: %s",
		     cu_err(f->o->cu, cr, buf, sizeof(buf)));
		return NULL;
	}
	errno = 0;
	mr = api->reg_dmabuf_mr(s->pd, off, len, (uint64_t)s->dptr, fd, FAB_ACCESS);
	e = errno;
	close(fd);
	if (!mr)
		pf_fabi_note(f, "DMA-BUF on %s: ibv_reg_dmabuf_mr: %s", s->e->dev, strerror(e ? e : EFAULT));
	return mr;
}

static int gpu_current(struct fab *f, struct side *s)
{
	const struct pf_cuda_table *cu = f->o->cu;
	pf_CUresult cr = PF_CUDA_SUCCESS;
	char buf[128];

	if (!s->gpu_ctx) {
		cr = cu->cuInit(0);
		if (cr == PF_CUDA_SUCCESS)
			cr = cu->cuDevicePrimaryCtxRetain(&s->cctx, s->e->gpu);
		s->gpu_ctx = cr == PF_CUDA_SUCCESS;
	}
	if (cr == PF_CUDA_SUCCESS)
		cr = cu->cuCtxSetCurrent(s->cctx);
	if (cr != PF_CUDA_SUCCESS)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -EIO, "CUDA device %d: %s", s->e->gpu,
			    cu_err(cu, cr, buf, sizeof(buf)));
	return 0;
}

static int gpu_memory(struct fab *f, struct side *s, int i)
{
	const struct pf_cuda_table *cu = f->o->cu;
	size_t len = f->span, alloc = round_up(len, f->page) + f->page;
	pf_autofree uint8_t *stage = NULL;
	pf_CUresult cr;
	char buf[128];
	int r;

	if (!cu)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -ENOSYS, "no CUDA driver table for GPU buffers");
	r = gpu_current(f, s);
	if (r)
		return r;
	cr = cu->cuMemAlloc(&s->dalloc, alloc);
	if (cr != PF_CUDA_SUCCESS) {
		s->dalloc = 0;
		return pf_fabi_fail(f, PF_FAB_MEMORY, -ENOMEM, "cuMemAlloc of %zu bytes on GPU %d: %s",
			    alloc, s->e->gpu, cu_err(cu, cr, buf, sizeof(buf)));
	}
	s->dptr = (pf_CUdeviceptr)round_up((size_t)s->dalloc, f->page);
	stage = pf_xcalloc(1, len);
	if (i == 0)
		pf_fabi_fill_slots(f, stage, 1);
	cr = cu->cuMemcpyHtoD(s->dptr, stage, len);
	if (cr != PF_CUDA_SUCCESS)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -EIO, "cuMemcpyHtoD: %s",
			    cu_err(cu, cr, buf, sizeof(buf)));
	s->addr = (uint64_t)s->dptr;
	if (f->o->reg != PF_LB_REG_DMABUF) {
		errno = 0;
		s->mr = f->o->api->reg_mr(s->pd, (void *)(uintptr_t)s->dptr, len, FAB_ACCESS);
		if (s->mr)
			f->r->reg[i] = "peermem";
		else
			pf_fabi_note(f, "peermem on %s: ibv_reg_mr of GPU memory: %s", s->e->dev,
			     strerror(pf_fabi_errno_or(EFAULT)));
	}
	if (!s->mr && f->o->reg != PF_LB_REG_PEERMEM) {
		s->mr = reg_dmabuf(f, s, len);
		if (s->mr)
			f->r->reg[i] = "dmabuf";
	}
	if (!s->mr)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -EFAULT, "GPU memory cannot be registered with %s: %s",
			    s->e->dev, f->r->note);
	return 0;
}

/* PD, CQ and the buffer of side @i on s->ctx. */
int pf_fabi_side_resources(struct fab *f, int i)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[i];
	int cqe = (int)f->o->tx_depth * 2, r;

	s->pd = api->alloc_pd(s->ctx);
	if (!s->pd)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -ENOMEM, "ibv_alloc_pd(%s) failed", s->e->dev);
	s->cq = api->create_cq(s->ctx, cqe, NULL, NULL, 0);
	if (!s->cq)
		return pf_fabi_fail(f, PF_FAB_MEMORY, -ENOMEM, "ibv_create_cq(%s, %d) failed", s->e->dev,
			    cqe);
	r = s->e->mem == PF_LB_GPU ? gpu_memory(f, s, i) : host_memory(f, s, i);

	if (!r)
		s->rkey = s->mr->rkey;
	return r;
}

struct ibv_qp_init_attr pf_fabi_qp_attr(struct fab *f, struct side *s)
{
	return (struct ibv_qp_init_attr){
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = f->o->tx_depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
}

/* ---- RDMA-CM --------------------------------------------------------- */

int pf_fabi_sockaddr(const char *ip, uint16_t port_be, struct sockaddr_in *sa)
{
	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = port_be };
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

/*
 * The next event within @ms: 0 and *ret (ack it), -ETIMEDOUT, or the errno
 * of poll/rdma_get_cm_event.
 */
int pf_fabi_cm_next(struct fab *f, int ms, struct pf_cm_event **ret)
{
	struct pollfd p = { .fd = f->ch->fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	errno = 0;
	if (f->o->cm->get_cm_event(f->ch, ret))
		return -pf_fabi_errno_or(EIO);
	f->ev_errno = errno; /* librdmacm's own processing of the event may have set it */
	return 0;
}

/*
 * The -errno an error event stands for: REJECTED carries the IB CM reject
 * reason (ECONNREFUSED); a status librdmacm made itself while handling
 * the event (CONNECT_ERROR from ucma_process_conn_resp: ERR()'s -1 with
 * errno, or a positive errno from ibv_set_ece) is that errno; otherwise
 * the kernel's negative errno.
 */
int pf_fabi_event_errno(const struct fab *f, int type, int status)
{
	if (type == PF_CM_EVENT_REJECTED)
		return -ECONNREFUSED;
	if (status == -1)
		return f->ev_errno > 0 ? -f->ev_errno : -ECONNABORTED;
	if (status > 0)
		return -status;
	return status < 0 ? status : -ECONNABORTED;
}

/* The device name of an ibv_context. */
const char *pf_fabi_ctx_name(struct fab *f, struct ibv_context *c)
{
	return c && c->device ? f->o->api->get_device_name(c->device) : "?";
}

/* ADDR_RESOLVED / ROUTE_RESOLVED for the source id, or why not. */
int pf_fabi_cm_expect(struct fab *f, enum pf_cm_event_type ok, enum pf_cm_event_type bad,
		     enum pf_fab_stage st, const char *call, unsigned int timeout_ms)
{
	struct pf_cm_event *ev = NULL;
	int type, status, r;

	r = pf_fabi_cm_next(f, (int)timeout_ms + 1000, &ev);
	if (r == -ETIMEDOUT)
		return pf_fabi_fail(f, st, -ETIMEDOUT, "%s %s -> %s: no RDMA-CM event within %u ms", call,
			    f->s[0].e->ip, f->s[1].e->ip, timeout_ms + 1000);
	if (r)
		return pf_fabi_fail(f, st, r, "rdma_get_cm_event after %s: %s", call, strerror(-r));
	type = (int)ev->event;
	status = ev->status;
	f->o->cm->ack_cm_event(ev);
	if (type == (int)ok && status == 0)
		return 0;
	f->r->cm_event = type;
	f->r->cm_status = status;
	if (type == (int)bad) {
		r = pf_fabi_event_errno(f, type, status);
		return pf_fabi_fail(f, st, r, "%s %s (%s) -> %s (%s): %s, status %d (%s)", call,
			    f->s[0].e->ip, f->s[0].e->dev, f->s[1].e->ip, f->s[1].e->dev,
			    pf_cm_event_name(type), status, strerror(-r));
	}
	return pf_fabi_fail(f, st, -EPROTO, "%s: unexpected %s (status %d)", call, pf_cm_event_name(type),
		    status);
}

/*
 * The source side's id, and its address resolved from @src to @dst (ARP over
 * the rail, or the node-local path): 0, or the failure made (-errno).
 */
int pf_fabi_resolve_addr(struct fab *f, const struct sockaddr_in *src,
			 const struct sockaddr_in *dst)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	int r;

	if (cm->create_id(f->ch, &f->s[0].id, f, PF_RDMA_PS_TCP)) {
		f->s[0].id = NULL;
		return pf_fabi_fail(f, PF_FAB_OPEN, -pf_fabi_errno_or(ENOMEM), "rdma_create_id: %s",
				    strerror(pf_fabi_errno_or(ENOMEM)));
	}
	if (cm->resolve_addr(f->s[0].id, (struct sockaddr *)src, (struct sockaddr *)dst,
			     (int)f->o->resolve_timeout_ms)) {
		r = pf_fabi_errno_or(EINVAL);
		return pf_fabi_fail(f, PF_FAB_ADDR, -r, "rdma_resolve_addr %s (%s) -> %s: %s",
				    f->o->src.ip, f->o->src.dev, f->o->dst.ip, strerror(r));
	}
	return pf_fabi_cm_expect(f, PF_CM_EVENT_ADDR_RESOLVED, PF_CM_EVENT_ADDR_ERROR, PF_FAB_ADDR,
				 "rdma_resolve_addr", f->o->resolve_timeout_ms);
}

/* A listening id on the destination's address, and the source id resolved to it. */
static int cm_resolve(struct fab *f)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct sockaddr_in src, dst;
	uint16_t port;
	int r;

	if (pf_fabi_sockaddr(f->o->src.ip, 0, &src) || pf_fabi_sockaddr(f->o->dst.ip, 0, &dst))
		return pf_fabi_fail(f, PF_FAB_OPEN, -EINVAL, "bad IPv4 address '%s' or '%s'", f->o->src.ip,
			    f->o->dst.ip);
	errno = 0;
	f->ch = cm->create_event_channel();
	if (!f->ch) {
		r = pf_fabi_errno_or(ENODEV);
		return pf_fabi_fail(f, PF_FAB_OPEN, -r, "rdma_create_event_channel: %s%s", strerror(r),
			    r == ENODEV || r == ENOENT ? " (rdma_ucm not loaded?)" : "");
	}
	if (cm->create_id(f->ch, &f->listen, f, PF_RDMA_PS_TCP)) {
		f->listen = NULL;
		return pf_fabi_fail(f, PF_FAB_OPEN, -pf_fabi_errno_or(ENOMEM), "rdma_create_id: %s",
			    strerror(pf_fabi_errno_or(ENOMEM)));
	}
	if (cm->bind_addr(f->listen, (struct sockaddr *)&dst)) {
		r = pf_fabi_errno_or(EADDRNOTAVAIL);
		return pf_fabi_fail(f, PF_FAB_OPEN, -r, "rdma_bind_addr(%s) for %s: %s", f->o->dst.ip,
			    f->o->dst.dev, strerror(r));
	}
	if (cm->listen(f->listen, 4)) {
		r = pf_fabi_errno_or(EINVAL);
		return pf_fabi_fail(f, PF_FAB_OPEN, -r, "rdma_listen on %s: %s", f->o->dst.ip, strerror(r));
	}
	port = cm->get_src_port(f->listen);
	if (f->listen->verbs)
		snprintf(f->r->bound[1], sizeof(f->r->bound[1]), "%s",
			 pf_fabi_ctx_name(f, f->listen->verbs));
	dst.sin_port = port;

	r = pf_fabi_resolve_addr(f, &src, &dst);
	if (r)
		return r;
	f->s[0].ctx = f->s[0].id->verbs;
	snprintf(f->r->bound[0], sizeof(f->r->bound[0]), "%s", pf_fabi_ctx_name(f, f->s[0].ctx));
	if (strcmp(f->r->bound[0], f->o->src.dev) != 0)
		return pf_fabi_fail(f, PF_FAB_ADDR, -EXDEV, "%s is an address of %s, not of %s: the traffic "
			    "would leave through another rail", f->o->src.ip, f->r->bound[0],
			    f->o->src.dev);
	if (f->r->bound[1][0] && strcmp(f->r->bound[1], f->o->dst.dev) != 0)
		return pf_fabi_fail(f, PF_FAB_ADDR, -EXDEV, "%s is an address of %s, not of %s",
			    f->o->dst.ip, f->r->bound[1], f->o->dst.dev);
	if (cm->resolve_route(f->s[0].id, (int)f->o->resolve_timeout_ms)) {
		r = pf_fabi_errno_or(EINVAL);
		return pf_fabi_fail(f, PF_FAB_ROUTE, -r, "rdma_resolve_route %s -> %s: %s", f->o->src.ip,
			    f->o->dst.ip, strerror(r));
	}
	return pf_fabi_cm_expect(f, PF_CM_EVENT_ROUTE_RESOLVED, PF_CM_EVENT_ROUTE_ERROR, PF_FAB_ROUTE,
			 "rdma_resolve_route", f->o->resolve_timeout_ms);
}

struct pf_cm_conn_param pf_fabi_conn_param(void)
{
	return (struct pf_cm_conn_param){
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
}

/* The destination's side, on the CONNECT_REQUEST's new id: resources, QP, accept. */
static int cm_accept(struct fab *f, struct pf_cm_id *id)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[1];
	struct ibv_qp_init_attr ia;
	struct pf_cm_conn_param p = pf_fabi_conn_param();
	int r;

	s->id = id;
	s->ctx = id->verbs;
	r = pf_fabi_side_resources(f, 1);
	if (r)
		return r;
	ia = pf_fabi_qp_attr(f, s);
	if (cm->create_qp(id, s->pd, &ia))
		return pf_fabi_fail(f, PF_FAB_CONNECT, -pf_fabi_errno_or(ENOMEM), "rdma_create_qp on %s: %s",
			    s->e->dev, strerror(pf_fabi_errno_or(ENOMEM)));
	s->qp = id->qp;
	if (cm->accept(id, &p))
		return pf_fabi_fail(f, PF_FAB_CONNECT, -pf_fabi_errno_or(EINVAL), "rdma_accept on %s: %s",
			    s->e->dev, strerror(pf_fabi_errno_or(EINVAL)));
	return 0;
}

static int cm_connect(struct fab *f)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[0];
	struct pf_cm_conn_param p = pf_fabi_conn_param();
	struct ibv_qp_init_attr ia;
	int r;

	r = pf_fabi_side_resources(f, 0);
	if (r)
		return r;
	ia = pf_fabi_qp_attr(f, s);
	if (cm->create_qp(s->id, s->pd, &ia))
		return pf_fabi_fail(f, PF_FAB_CONNECT, -pf_fabi_errno_or(ENOMEM), "rdma_create_qp on %s: %s",
			    s->e->dev, strerror(pf_fabi_errno_or(ENOMEM)));
	s->qp = s->id->qp;
	if (cm->connect(s->id, &p))
		return pf_fabi_fail(f, PF_FAB_CONNECT, -pf_fabi_errno_or(EINVAL), "rdma_connect %s -> %s: %s",
			    f->o->src.ip, f->o->dst.ip, strerror(pf_fabi_errno_or(EINVAL)));
	f->connected = true;
	while (!f->s[0].established || !f->s[1].established) {
		struct pf_cm_event *ev = NULL;
		struct pf_cm_id *id;
		int type, status;

		r = pf_fabi_cm_next(f, (int)f->o->timeout_ms * 2 + 1000, &ev);
		if (r == -ETIMEDOUT)
			return pf_fabi_fail(f, PF_FAB_CONNECT, -ETIMEDOUT, "connection %s -> %s: no RDMA-CM "
				    "event within %u ms", f->o->src.ip, f->o->dst.ip,
				    f->o->timeout_ms * 2 + 1000);
		if (r)
			return pf_fabi_fail(f, PF_FAB_CONNECT, r, "rdma_get_cm_event: %s", strerror(-r));
		type = (int)ev->event;
		status = ev->status;
		id = ev->id;
		if (type == PF_CM_EVENT_CONNECT_REQUEST && ev->listen_id == f->listen &&
		    !f->s[1].id) {
			r = cm_accept(f, id);
			cm->ack_cm_event(ev);
			if (r)
				return r;
			continue;
		}
		cm->ack_cm_event(ev);
		if (type == PF_CM_EVENT_ESTABLISHED) {
			f->s[id == f->s[0].id ? 0 : 1].established = true;
			continue;
		}
		f->r->cm_event = type;
		f->r->cm_status = status;
		r = pf_fabi_event_errno(f, type, status);
		return pf_fabi_fail(f, PF_FAB_CONNECT, r, "connection %s (%s) -> %s (%s): %s, status %d (%s)",
			    f->o->src.ip, f->o->src.dev, f->o->dst.ip, f->o->dst.dev,
			    pf_cm_event_name(type), status, type == PF_CM_EVENT_REJECTED
			    ? "rejected" : strerror(-r));
	}
	return 0;
}

/* ---- verbs (InfiniBand, in-process) ----------------------------------- */

static int verbs_open(struct fab *f, int i)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[i];
	struct ibv_device *dev = NULL;
	int n = 0;

	if (!f->list) {
		errno = 0;
		f->list = api->get_device_list(&n);
		if (!f->list)
			return pf_fabi_fail(f, PF_FAB_OPEN, -pf_fabi_errno_or(ENODEV), "ibv_get_device_list: %s",
				    strerror(pf_fabi_errno_or(ENODEV)));
	}
	for (int k = 0; f->list[k] && !dev; k++)
		if (strcmp(api->get_device_name(f->list[k]), s->e->dev) == 0)
			dev = f->list[k];
	if (!dev)
		return pf_fabi_fail(f, PF_FAB_OPEN, -ENODEV, "%s is not among the RDMA devices libibverbs "
			    "lists", s->e->dev);
	errno = 0;
	s->ctx = api->open_device(dev);
	if (!s->ctx)
		return pf_fabi_fail(f, PF_FAB_OPEN, -pf_fabi_errno_or(EIO), "ibv_open_device(%s): %s", s->e->dev,
			    strerror(pf_fabi_errno_or(EIO)));
	s->own_ctx = true;
	memset(&s->pa, 0, sizeof(s->pa));
	if (api->query_port(s->ctx, (uint8_t)s->e->port, &s->pa))
		return pf_fabi_fail(f, PF_FAB_OPEN, -ENODEV, "ibv_query_port(%s, %u) failed", s->e->dev,
			    s->e->port);
	if (s->pa.state != IBV_PORT_ACTIVE)
		return pf_fabi_fail(f, PF_FAB_OPEN, -ENETDOWN, "port %s/%u is not ACTIVE (state %d)",
			    s->e->dev, s->e->port, s->pa.state);
	if (i == 1 && s->pa.link_layer != f->s[0].pa.link_layer)
		return pf_fabi_fail(f, PF_FAB_OPEN, -EPROTO, "%s/%u and %s/%u have different link layers",
			    f->s[0].e->dev, f->s[0].e->port, s->e->dev, s->e->port);
	if (s->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (s->e->gid_index < 0)
			return pf_fabi_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "RoCE port %s/%u has no RoCE v2 "
				    "GID with an IPv4 address", s->e->dev, s->e->port);
		if (api->query_gid(s->ctx, (uint8_t)s->e->port, s->e->gid_index, &s->gid))
			return pf_fabi_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "ibv_query_gid(%s, %u, %d) failed",
				    s->e->dev, s->e->port, s->e->gid_index);
	} else if (!s->pa.lid) {
		return pf_fabi_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "InfiniBand port %s/%u has no LID (no "
			    "subnet manager?)", s->e->dev, s->e->port);
	}
	return 0;
}

static int modify(struct fab *f, struct side *s, struct ibv_qp_attr *a, int mask, const char *to)
{
	int r = f->o->api->modify_qp(s->qp, a, mask);

	if (r)
		return pf_fabi_fail(f, PF_FAB_CONNECT, -EPROTO, "ibv_modify_qp to %s on %s/%u: %s", to,
			    s->e->dev, s->e->port, strerror(r > 0 ? r : pf_fabi_errno_or(EINVAL)));
	return 0;
}

static int verbs_connect(struct fab *f)
{
	const struct pf_verbs_api *api = f->o->api;
	enum ibv_mtu mtu;
	int r;

	for (int i = 0; i < 2; i++) {
		r = verbs_open(f, i);
		if (!r)
			r = pf_fabi_side_resources(f, i);
		if (r)
			return r;
	}
	mtu = f->s[0].pa.active_mtu < f->s[1].pa.active_mtu ? f->s[0].pa.active_mtu
							    : f->s[1].pa.active_mtu;
	f->r->mtu = pf_ibv_mtu_bytes(mtu);
	for (int i = 0; i < 2; i++) {
		struct side *s = &f->s[i];
		struct ibv_qp_init_attr ia = pf_fabi_qp_attr(f, s);
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT,
			.port_num = (uint8_t)s->e->port,
			.qp_access_flags = FAB_ACCESS,
		};

		errno = 0;
		s->qp = api->create_qp(s->pd, &ia);
		if (!s->qp)
			return pf_fabi_fail(f, PF_FAB_CONNECT, -ENOMEM, "ibv_create_qp(RC, depth %u) on %s: "
				    "%s", f->o->tx_depth, s->e->dev, strerror(pf_fabi_errno_or(ENOMEM)));
		r = modify(f, s, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS, "INIT");
		if (r)
			return r;
	}
	for (int i = 0; i < 2; i++) {
		struct side *s = &f->s[i], *peer = &f->s[1 - i];
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = mtu,
			.dest_qp_num = peer->qp->qp_num,
			.rq_psn = i ? FAB_PSN_SRC : FAB_PSN_DST,
			.max_dest_rd_atomic = 1,
			.min_rnr_timer = 12,
			.ah_attr = { .port_num = (uint8_t)s->e->port },
		};

		if (s->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = peer->gid;
			a.ah_attr.grh.sgid_index = (uint8_t)s->e->gid_index;
			a.ah_attr.grh.hop_limit = 0xff;
		} else {
			a.ah_attr.dlid = peer->pa.lid;
		}

		r = modify(f, s, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR");
		if (r)
			return r;
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTS,
			.timeout = 14,
			.retry_cnt = 7,
			.rnr_retry = 7,
			.sq_psn = i ? FAB_PSN_DST : FAB_PSN_SRC,
			.max_rd_atomic = 1,
		};

		r = modify(f, &f->s[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
		if (r)
			return r;
	}
	return 0;
}

/* ---- transfer and verification --------------------------------------- */

/*
 * Post @n WRITEs (UINT64_MAX with @duration_ns: until then, up to the next
 * signalled WR), tx_depth outstanding; *ret_n, *ret_ns as in loopback.c.
 */
int pf_fabi_pump(struct fab *f, uint64_t n, uint64_t duration_ns, uint64_t *ret_n, uint64_t *ret_ns)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[0];
	unsigned int depth = f->o->tx_depth;
	unsigned int cq_mod = f->o->cq_mod < 1 ? 1 : f->o->cq_mod > depth ? depth : f->o->cq_mod;
	uint64_t posted = 0, done = 0, limit = n, t0, t_last, t_now;
	unsigned int timeout_ms = pf_lb_completion_timeout_ms(f->o->timeout_ms, f->o->msg_size,
							      cq_mod, depth, f->o->min_gbps);
	uint64_t timeout_ns = (uint64_t)timeout_ms * 1000000u;
	struct ibv_wc wc[16];

	t0 = t_last = now_ns(f);
	while (done < limit) {
		uint64_t room = depth - (posted - done), batch = 0;
		struct ibv_send_wr *bad = NULL;
		int got;

		if (duration_ns && limit == UINT64_MAX && posted && now_ns(f) - t0 >= duration_ns)
			limit = (posted + cq_mod - 1) / cq_mod * cq_mod;
		while (batch < room && posted + batch < limit) {
			uint64_t id = posted + batch;
			struct ibv_send_wr *wr = &f->wrs[batch];

			wr->wr_id = id;
			wr->sg_list->addr = f->s[0].addr + (id % f->slots) * f->stride;
			wr->wr.rdma.remote_addr = f->s[1].addr + (id % f->slots) * f->stride;
			wr->send_flags = (id + 1) % cq_mod == 0 || id + 1 == limit
						 ? IBV_SEND_SIGNALED : 0;
			wr->next = NULL;
			if (batch)
				f->wrs[batch - 1].next = wr;
			batch++;
		}
		if (batch) {
			int r = api->post_send(s->qp, f->wrs, &bad);

			if (r)
				return pf_fabi_fail(f, PF_FAB_TRANSFER, -EIO, "ibv_post_send of WR %llu on %s: "
					    "%s", (unsigned long long)(bad ? bad->wr_id : posted),
					    s->e->dev, strerror(r > 0 ? r : EINVAL));
			posted += batch;
		}
		got = api->poll_cq(s->cq, (int)PF_ARRAY_SIZE(wc), wc);
		if (got < 0)
			return pf_fabi_fail(f, PF_FAB_TRANSFER, -EIO, "ibv_poll_cq on %s failed", s->e->dev);
		t_now = now_ns(f);
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				f->r->wc_status = wc[i].status;
				return pf_fabi_fail(f, PF_FAB_TRANSFER, -EIO, "WR %llu %s -> %s completed with "
					    "%s (status %d, vendor error 0x%x)",
					    (unsigned long long)wc[i].wr_id, s->e->dev,
					    f->s[1].e->dev, pf_ibv_wc_status_name(wc[i].status),
					    wc[i].status, wc[i].vendor_err);
			}
			if (wc[i].wr_id + 1 > done)
				done = wc[i].wr_id + 1;
			t_last = t_now;
		}
		if (!got && t_now - t_last > timeout_ns) {
			f->r->below_gbps = pf_lb_below_gbps(done, cq_mod, f->o->msg_size, t_now - t0);
			return pf_fabi_fail(f, PF_FAB_TRANSFER, -ETIMEDOUT, "no completion for %u ms on %s "
				    "-> %s (%llu of %llu WRs done): below %.3g Gb/s", timeout_ms,
				    s->e->dev, f->s[1].e->dev, (unsigned long long)done,
				    (unsigned long long)posted, f->r->below_gbps);
		}
	}
	*ret_n = done;
	*ret_ns = t_last - t0;
	return 0;
}

void pf_fabi_prepare_wrs(struct fab *f)
{
	f->wrs = pf_xcalloc(f->o->tx_depth, sizeof(*f->wrs));
	f->sges = pf_xcalloc(f->o->tx_depth, sizeof(*f->sges));
	for (unsigned int i = 0; i < f->o->tx_depth; i++) {
		f->sges[i] = (struct ibv_sge){
			.addr = f->s[0].addr,
			.length = (uint32_t)f->o->msg_size,
			.lkey = f->s[0].mr->lkey,
		};
		f->wrs[i].sg_list = &f->sges[i];
		f->wrs[i].num_sge = 1;
		f->wrs[i].opcode = IBV_WR_RDMA_WRITE;
		f->wrs[i].wr.rdma.rkey = f->s[1].rkey;
	}
}

/* Every one of the first @n slots of the destination holds pass @pass's pattern. */
static int verify(struct fab *f, unsigned int pass, unsigned int n)
{
	struct side *d = &f->s[1];
	pf_autofree uint8_t *copy = NULL;
	const uint8_t *dst = d->host;

	if (d->e->mem == PF_LB_GPU) {
		pf_CUresult cr;
		char buf[128];
		int r = gpu_current(f, d);

		if (r)
			return r;
		copy = pf_xcalloc(1, f->span);
		cr = f->o->cu->cuMemcpyDtoH(copy, d->dptr, f->span);
		if (cr != PF_CUDA_SUCCESS)
			return pf_fabi_fail(f, PF_FAB_VERIFY, -EIO, "cuMemcpyDtoH: %s",
				    cu_err(f->o->cu, cr, buf, sizeof(buf)));
		dst = copy;
	}
	return pf_fabi_check_slots(f, dst, pass, n);
}

int pf_fabi_check_slots(struct fab *f, const uint8_t *buf, unsigned int pass, unsigned int n)
{
	for (unsigned int j = 0; j < n; j++) {
		ssize_t bad = pf_lb_check_pattern(buf + j * f->stride, f->o->msg_size, seed(pass, j));

		if (bad < 0)
			continue;
		f->r->bad_offset = (size_t)bad;
		f->r->bad_slot = j;
		f->r->bad_pass = pass;
		return pf_fabi_fail(f, PF_FAB_VERIFY, -EBADMSG, "data written %s -> %s differs from the "
			    "source at byte %zd of %zu in slot %u of %u (pass %u)", f->s[0].e->dev,
			    f->s[1].e->dev, bad, f->o->msg_size, j, f->slots, pass);
	}
	return 0;
}

/* New patterns in every source slot (pass 2). */
int pf_fabi_refill(struct fab *f)
{
	struct side *s = &f->s[0];
	pf_autofree uint8_t *stage = NULL;
	pf_CUresult cr;
	char buf[128];
	int r;

	if (s->e->mem != PF_LB_GPU) {
		pf_fabi_fill_slots(f, s->host, 2);
		return 0;
	}
	r = gpu_current(f, s);
	if (r)
		return r;
	stage = pf_xcalloc(1, f->span);
	pf_fabi_fill_slots(f, stage, 2);
	cr = f->o->cu->cuMemcpyHtoD(s->dptr, stage, f->span);
	if (cr != PF_CUDA_SUCCESS)
		return pf_fabi_fail(f, PF_FAB_VERIFY, -EIO, "cuMemcpyHtoD: %s",
			    cu_err(f->o->cu, cr, buf, sizeof(buf)));
	return 0;
}

int pf_fabi_transfer(struct fab *f)
{
	uint64_t n, ns;
	int r;

	f->r->stage = PF_FAB_TRANSFER;
	pf_fabi_prepare_wrs(f);
	if (f->o->warmup) {
		r = pf_fabi_pump(f, f->o->warmup, 0, &n, &ns);
		if (r)
			return r;
		f->n_written += n;
	}
	if (f->o->duration_ms)
		r = pf_fabi_pump(f, UINT64_MAX, f->o->duration_ms * 1000000u, &n, &ns);
	else
		r = pf_fabi_pump(f, f->o->iterations, 0, &n, &ns);
	if (r)
		return r;
	f->n_written += n;
	f->r->iterations = n;
	f->r->bytes = n * f->o->msg_size;
	f->r->seconds = (double)ns / 1e9;
	f->r->gbps = pf_lb_gbps(f->r->bytes, ns);
	r = f->verify(f, 1, f->n_written < f->slots ? (unsigned int)f->n_written : f->slots);
	if (!r)
		r = pf_fabi_refill(f);
	if (!r)
		r = pf_fabi_pump(f, f->slots, 0, &n, &ns);
	if (r) {
		if (f->r->stage == PF_FAB_TRANSFER)
			f->r->stage = PF_FAB_VERIFY;
		return r;
	}
	return f->verify(f, 2, f->slots);
}

/* ---- lifetime --------------------------------------------------------- */

void pf_fabi_release_side(struct fab *f, struct side *s)
{
	const struct pf_verbs_api *api = f->o->api;

	if (s->mr)
		api->dereg_mr(s->mr);
	if (s->host) {
		if (s->host_numa)
			numa_free(s->host, s->host_len);
		else
			free(s->host);
	}
	if (s->dalloc && gpu_current(f, s) == 0)
		f->o->cu->cuMemFree(s->dalloc);
	if (s->gpu_ctx)
		f->o->cu->cuDevicePrimaryCtxRelease(s->e->gpu);
}

/* QPs, then CQs, MRs and buffers, PDs, ids, the channel; verbs: contexts last. */
static void release(struct fab *f)
{
	const struct pf_verbs_api *api = f->o->api;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct pf_fab_result keep = *f->r;

	if (f->connected && f->s[0].id)
		cm->disconnect(f->s[0].id);
	for (int i = 0; i < 2; i++) {
		if (f->s[i].id && f->s[i].id->qp)
			cm->destroy_qp(f->s[i].id);
		else if (f->s[i].qp && !f->s[i].id)
			api->destroy_qp(f->s[i].qp);
	}
	for (int i = 0; i < 2; i++)
		if (f->s[i].cq)
			api->destroy_cq(f->s[i].cq);
	for (int i = 0; i < 2; i++)
		pf_fabi_release_side(f, &f->s[i]);
	for (int i = 0; i < 2; i++)
		if (f->s[i].pd)
			api->dealloc_pd(f->s[i].pd);
	for (int i = 1; i >= 0; i--)
		if (f->s[i].id)
			cm->destroy_id(f->s[i].id);
	if (f->listen)
		cm->destroy_id(f->listen);
	if (f->ch)
		cm->destroy_event_channel(f->ch);
	for (int i = 0; i < 2; i++)
		if (f->s[i].own_ctx)
			api->close_device(f->s[i].ctx);
	if (f->list)
		api->free_device_list(f->list);
	free(f->wrs);
	free(f->sges);
	*f->r = keep;
}

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t expected, arrived;
};

static void gate_arrive(struct gate *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->arrived++;
	pthread_cond_broadcast(&g->cond);
	while (g->arrived < g->expected)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

static int flow_run(const struct pf_fab_opts *o, struct pf_fab_result *ret, struct gate *g)
{
	struct fab f = { .o = o, .r = ret, .s = { { .e = &o->src }, { .e = &o->dst } },
			.verify = verify };
	int r;

	*ret = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
	if (!o->api || !o->src.dev || !o->dst.dev || !o->msg_size || o->msg_size > UINT32_MAX ||
	    !o->tx_depth || (o->conn == PF_FAB_CM && !o->cm))
		r = pf_fabi_fail(&f, PF_FAB_OPEN, -EINVAL, "invalid fabric options");
	else
		r = pf_fabi_layout(&f);
	if (!r)
		r = o->conn == PF_FAB_CM ? cm_resolve(&f) : 0;
	if (!r)
		r = o->conn == PF_FAB_CM ? cm_connect(&f) : verbs_connect(&f);
	gate_arrive(g);
	if (!r)
		r = pf_fabi_transfer(&f);
	if (!r)
		ret->stage = PF_FAB_DONE;
	release(&f);
	return r;
}

int pf_fabric_flow(const struct pf_fab_opts *o, struct pf_fab_result *ret)
{
	return flow_run(o, ret, NULL);
}

struct job {
	struct pf_fab_flow *flow;
	struct gate *gate;
	pthread_t thread;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->flow->rc = flow_run(&j->flow->opts, &j->flow->res, j->gate);
	return NULL;
}

void pf_fabric_round(struct pf_fab_flow *flows, size_t n)
{
	struct gate g = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
			  .expected = n };
	pf_autofree struct job *jobs = pf_xcalloc(n + 1, sizeof(*jobs));
	pf_autofree bool *started = pf_xcalloc(n + 1, sizeof(*started));

	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct job){ .flow = &flows[i], .gate = &g };
		started[i] = pthread_create(&jobs[i].thread, NULL, job_main, &jobs[i]) == 0;
		if (started[i])
			continue;
		/* no thread: this flow cannot overlap the others; it is not waited for */
		pthread_mutex_lock(&g.lock);
		g.expected--;
		pthread_cond_broadcast(&g.cond);
		pthread_mutex_unlock(&g.lock);
		flows[i].res = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
		snprintf(flows[i].res.err, sizeof(flows[i].res.err), "pthread_create failed");
		flows[i].rc = -EAGAIN;
	}
	for (size_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(jobs[i].thread, NULL);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.cond);
}
