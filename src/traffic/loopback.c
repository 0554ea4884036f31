// SPDX-License-Identifier: MIT
/*
 * loopback.c - the RDMA WRITE loopback engine (include/preflight/loopback.h).
 *
 * Connection attributes follow perftest (ctx_modify_qp_to_rtr/_rts):
 * path MTU = the port's active MTU, min_rnr_timer 12, timeout 14, retry_cnt
 * and rnr_retry 7, one outstanding RDMA read/atomic; IB addresses the
 * port's own LID (is_global 0), RoCE its own RoCE v2 GID (is_global 1,
 * sgid_index = that GID, hop_limit 0xff).  WRs complete in order on an RC
 * QP, so a signalled completion with wr_id i retires every WR up to i.
 *
 * WR i copies source slot i % slots to destination slot i % slots; slot j
 * carries a pattern seeded by j, so the data check sees every target and
 * tells a WRITE that went to the wrong slot from one that never landed.
 * Buffers, and DMA-BUF ranges (like NCCL's ibv_reg_dmabuf_mr ranges,
 * src/transport/net_ib.cc), are whole pages of the node's page size.
 */
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preflight/loopback.h"
#include "preflight/macro.h"
#include "clock.h"

#define LB_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		   IBV_ACCESS_RELAXED_ORDERING)
#define LB_SLOT_BUDGET (32u << 20)
#define LB_MIN_SLOTS 2u
#define LB_MAX_SLOTS 64u
#define LB_SLOT_ALIGN 64u
#define LB_PSN_A 0x1a2b3
#define LB_PSN_B 0x4c5d6

void pf_lb_opts_default(struct pf_lb_opts *o)
{
	*o = (struct pf_lb_opts){
		.port = 1,
		.gid_index = -1,
		.msg_size = 8u << 20,
		.tx_depth = 128,
		.cq_mod = 100,
		.warmup = 1000,
		.iterations = 5000,
		.timeout_ms = 2000,
		.mem = PF_LB_HOST,
		.numa_node = -1,
	};
}

const char *pf_lb_stage_name(enum pf_lb_stage s)
{
	static const char *const names[] = { "open", "memory", "connect", "transfer", "verify",
					     "done" };

	return s <= PF_LB_DONE ? names[s] : "?";
}

double pf_lb_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0;
}

unsigned int pf_lb_completion_timeout_ms(unsigned int floor_ms, size_t msg_size,
					 unsigned int cq_mod, unsigned int tx_depth,
					 double min_gbps)
{
	unsigned int mod = cq_mod < 1 ? 1 : tx_depth && cq_mod > tx_depth ? tx_depth : cq_mod;
	double gbps = min_gbps > 0 ? min_gbps : PF_LB_FLOOR_GBPS;
	double ms = (double)floor_ms + (double)mod * (double)msg_size * 8 / (gbps * 1e6);

	return ms > 3600000 ? 3600000 : (unsigned int)ms + 1;
}

double pf_lb_below_gbps(uint64_t done, unsigned int cq_mod, size_t msg_size, uint64_t ns)
{
	return pf_lb_gbps((done + (cq_mod ? cq_mod : 1)) * (uint64_t)msg_size, ns);
}

/* Everything one run holds; released by lb_release(). */
struct lb {
	const struct pf_lb_opts *o;
	struct pf_lb_result *r;
	struct ibv_device **list;
	/*
	 * The device opened twice: A's QP, CQ, PD and MR in ctx[0], B's in
	 * ctx[1].  mlx5 turns on the vport's local loopback only while two
	 * user transport domains exist (mlx5_ib_enable_lb(), mlx5 main.c);
	 * one context is one TD, so two QPs of one context may never see each
	 * other's packets.  perftest's loopback runs two processes for the same
	 * reason.
	 */
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];   /* A sends, B is written to */
	struct ibv_mr *mr[2];   /* A's source, B's destination */
	void *host[2];
	size_t host_len;
	bool host_numa;
	pf_CUdeviceptr dptr[2];  /* page-aligned inside dalloc */
	pf_CUdeviceptr dalloc[2];
	bool gpu_ctx;
	uint64_t addr[2];       /* buffer addresses as the NIC sees them */
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct ibv_send_wr *wrs;
	struct ibv_sge *sges;
	size_t page;            /* alignment of buffers and DMA-BUF ranges */
	size_t stride;          /* bytes between slots */
	size_t span;            /* slots * stride */
	unsigned int slots;
	uint64_t n_written;     /* WRs completed: slots below this were written */
};

static int fail(struct lb *l, enum pf_lb_stage st, int err, const char *fmt, ...) PF_PRINTF(4, 5);
static int fail(struct lb *l, enum pf_lb_stage st, int err, const char *fmt, ...)
{
	va_list ap;

	l->r->stage = st;
	va_start(ap, fmt);
	vsnprintf(l->r->err, sizeof(l->r->err), fmt, ap);
	va_end(ap);
	return err;
}

static void note(struct lb *l, const char *fmt, ...) PF_PRINTF(2, 3);
static void note(struct lb *l, const char *fmt, ...)
{
	size_t used = strlen(l->r->note);
	va_list ap;

	if (used && used + 2 < sizeof(l->r->note)) {
		strcat(l->r->note, "; ");
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(l->r->note + used, sizeof(l->r->note) - used, fmt, ap);
	va_end(ap);
}

static uint64_t now_ns(struct lb *l)
{
	if (l->o->api->now_ns)
		return l->o->api->now_ns(l->ctx[0]);
	return pf_now_ns();
}

/* QPs -> CQs -> MRs -> PDs -> contexts, then the memory behind the MRs. */
static void lb_release(struct lb *l)
{
	const struct pf_verbs_api *api = l->o->api;
	const struct pf_cuda_table *cu = l->o->cu;

	for (int i = 0; i < 2; i++)
		if (l->qp[i])
			api->destroy_qp(l->qp[i]);
	for (int i = 0; i < 2; i++)
		if (l->cq[i])
			api->destroy_cq(l->cq[i]);
	for (int i = 0; i < 2; i++)
		if (l->mr[i])
			api->dereg_mr(l->mr[i]);
	for (int i = 0; i < 2; i++)
		if (l->pd[i])
			api->dealloc_pd(l->pd[i]);
	for (int i = 0; i < 2; i++)
		if (l->ctx[i])
			api->close_device(l->ctx[i]);
	if (l->list)
		api->free_device_list(l->list);
	for (int i = 0; i < 2; i++) {
		if (!l->host[i])
			continue;
		if (l->host_numa)
			numa_free(l->host[i], l->host_len);
		else
			free(l->host[i]);
	}
	for (int i = 0; i < 2; i++)
		if (l->dalloc[i])
			cu->cuMemFree(l->dalloc[i]);
	if (l->gpu_ctx)
		cu->cuDevicePrimaryCtxRelease(l->o->gpu);
	free(l->wrs);
	free(l->sges);
	*l = (struct lb){ .o = l->o, .r = l->r };
}

static int lb_open(struct lb *l)
{
	const struct pf_verbs_api *api = l->o->api;
	struct ibv_device *dev = NULL;
	int n = 0, cqe;

	errno = 0;
	l->list = api->get_device_list(&n);
	if (!l->list)
		return fail(l, PF_LB_OPEN, errno ? -errno : -ENODEV,
			    "no RDMA devices: ibv_get_device_list: %s",
			    strerror(errno ? errno : ENODEV));
	for (int i = 0; i < n && !dev; i++)
		if (strcmp(api->get_device_name(l->list[i]), l->o->dev) == 0)
			dev = l->list[i];
	if (!dev)
		return fail(l, PF_LB_OPEN, -ENODEV, "%s is not among the %d RDMA device%s that "
			    "libibverbs lists", l->o->dev, n, n == 1 ? "" : "s");
	for (int i = 0; i < 2; i++) {
		errno = 0;
		l->ctx[i] = api->open_device(dev);
		if (!l->ctx[i])
			return fail(l, PF_LB_OPEN, errno ? -errno : -EIO, "ibv_open_device(%s)%s: %s",
				    l->o->dev, i ? " a second time" : "",
				    strerror(errno ? errno : EIO));
	}
	memset(&l->pa, 0, sizeof(l->pa));
	if (api->query_port(l->ctx[0], (uint8_t)l->o->port, &l->pa))
		return fail(l, PF_LB_OPEN, -ENODEV, "ibv_query_port(%s, %u) failed", l->o->dev,
			    l->o->port);
	l->r->link_layer = l->pa.link_layer;
	l->r->lid = l->pa.lid;
	l->r->mtu = pf_ibv_mtu_bytes(l->pa.active_mtu);
	if (l->pa.state != IBV_PORT_ACTIVE)
		return fail(l, PF_LB_OPEN, -ENETDOWN, "port %s/%u is not ACTIVE (state %d)",
			    l->o->dev, l->o->port, l->pa.state);
	if (l->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (l->o->gid_index < 0)
			return fail(l, PF_LB_OPEN, -EADDRNOTAVAIL, "RoCE port %s/%u has no RoCE v2 "
				    "GID with an IPv4 address", l->o->dev, l->o->port);
		if (api->query_gid(l->ctx[0], (uint8_t)l->o->port, l->o->gid_index, &l->gid))
			return fail(l, PF_LB_OPEN, -EADDRNOTAVAIL, "ibv_query_gid(%s, %u, %d) "
				    "failed", l->o->dev, l->o->port, l->o->gid_index);
	} else if (l->pa.lid == 0) {
		return fail(l, PF_LB_OPEN, -EADDRNOTAVAIL, "InfiniBand port %s/%u has no LID "
			    "(no subnet manager?)", l->o->dev, l->o->port);
	}
	cqe = (int)l->o->tx_depth * 2;
	for (int i = 0; i < 2; i++) {
		l->pd[i] = api->alloc_pd(l->ctx[i]);
		if (!l->pd[i])
			return fail(l, PF_LB_OPEN, -ENOMEM, "ibv_alloc_pd(%s) failed", l->o->dev);
		l->cq[i] = api->create_cq(l->ctx[i], cqe, NULL, NULL, 0);
		if (!l->cq[i])
			return fail(l, PF_LB_OPEN, -ENOMEM, "ibv_create_cq(%s, %d) failed", l->o->dev,
				    cqe);
	}
	return 0;
}

/*
 * A 64-bit word per 8 bytes from a counter and the slot's seed; the tail
 * takes the next word's low bytes.
 */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t seed, size_t i)
{
	return mix(seed << 40 ^ (uint64_t)i);
}

void pf_lb_fill_pattern(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t words = len / 8;

	for (size_t i = 0; i < words; i++) {
		uint64_t w = pattern_word(seed, i);

		memcpy(buf + i * 8, &w, 8);
	}
	if (len % 8) {
		uint64_t w = pattern_word(seed, words);

		memcpy(buf + words * 8, &w, len % 8);
	}
}

ssize_t pf_lb_check_pattern(const uint8_t *buf, size_t len, uint64_t seed)
{
	size_t words = len / 8;

	for (size_t i = 0; i <= words; i++) {
		uint64_t w = pattern_word(seed, i);
		size_t n = i < words ? 8 : len % 8;

		if (!n || memcmp(buf + i * 8, &w, n) == 0)
			continue;
		for (size_t b = 0; b < n; b++)
			if (buf[i * 8 + b] != ((const uint8_t *)&w)[b])
				return (ssize_t)(i * 8 + b);
	}
	return -1;
}

/* Slot j of @buf gets the pattern seeded by j + 1. */
static void fill_slots(struct lb *l, uint8_t *buf)
{
	for (unsigned int j = 0; j < l->slots; j++)
		pf_lb_fill_pattern(buf + j * l->stride, l->o->msg_size, j + 1);
}

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

/* Slot geometry and the page size the buffers are aligned to. */
static int lb_layout(struct lb *l)
{
	long sys = sysconf(_SC_PAGESIZE);

	l->page = l->o->page_size ? l->o->page_size : sys > 0 ? (size_t)sys : 4096;
	if (l->page & (l->page - 1))
		return fail(l, PF_LB_OPEN, -EINVAL, "page size %zu is not a power of two", l->page);
	l->stride = round_up(l->o->msg_size, LB_SLOT_ALIGN);
	l->slots = l->o->slots;
	if (!l->slots) {
		size_t fit = LB_SLOT_BUDGET / l->stride;

		l->slots = fit < LB_MIN_SLOTS ? LB_MIN_SLOTS : fit > LB_MAX_SLOTS ? LB_MAX_SLOTS
										: (unsigned int)fit;
	}
	l->span = l->stride * l->slots;
	l->r->slots = l->slots;
	l->r->page_size = l->page;
	return 0;
}

static int host_memory(struct lb *l)
{
	size_t len = round_up(l->span, l->page);
	int node = l->o->numa_node;

	l->host_len = len;
	l->host_numa = node >= 0 && numa_available() >= 0 && node <= numa_max_node();
	for (int i = 0; i < 2; i++) {
		l->host[i] = l->host_numa ? numa_alloc_onnode(len, node) : aligned_alloc(l->page, len);
		if (!l->host[i])
			return fail(l, PF_LB_MEMORY, -ENOMEM, "cannot allocate %zu bytes%s", len,
				    l->host_numa ? " on the NIC's NUMA node" : "");
		l->addr[i] = (uint64_t)(uintptr_t)l->host[i];
	}
	l->r->numa_local = l->host_numa;
	if (!l->host_numa)
		note(l, "host buffers not bound to a NUMA node (%s)",
		     node < 0 ? "the NIC's NUMA node is unknown" : "libnuma unavailable");
	fill_slots(l, l->host[0]);
	memset(l->host[1], 0, len);
	for (int i = 0; i < 2; i++) {
		errno = 0;
		l->mr[i] = l->o->api->reg_mr(l->pd[i], l->host[i], len, LB_ACCESS);
		if (!l->mr[i]) {
			int e = errno ? errno : EFAULT;

			return fail(l, PF_LB_MEMORY, -EFAULT, "ibv_reg_mr of %zu bytes of host "
				    "memory: %s%s", len, strerror(e),
				    e == ENOMEM || e == EPERM ? " (RLIMIT_MEMLOCK too low?)" : "");
		}
	}
	l->r->reg = "host";
	return 0;
}

static const char *cu_err(const struct pf_cuda_table *cu, pf_CUresult r, char *buf, size_t len)
{
	return pf_cuda_strerror(cu, r, buf, len);
}

/* Register GPU buffer @i by DMA-BUF; NULL with errno and a note on failure. */
static struct ibv_mr *reg_dmabuf(struct lb *l, int i, size_t len)
{
	const struct pf_verbs_api *api = l->o->api;
	pf_CUdeviceptr base = l->dptr[i] & ~(pf_CUdeviceptr)(l->page - 1);
	size_t off = (size_t)(l->dptr[i] - base);
	size_t span = round_up(off + len, l->page);
	struct ibv_mr *mr;
	char buf[128];
	pf_CUresult cr;
	int fd = -1, e;

	if (!api->reg_dmabuf_mr) {
		note(l, "DMA-BUF: libibverbs has no ibv_reg_dmabuf_mr (rdma-core < v34)");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!l->o->export_dmabuf) {
		note(l, "DMA-BUF: the CUDA driver has no cuMemGetHandleForAddressRange (< 11.7)");
		errno = EOPNOTSUPP;
		return NULL;
	}
	cr = l->o->export_dmabuf(&fd, base, span, PF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (cr != PF_CUDA_SUCCESS) {
		note(l, "DMA-BUF: cuMemGetHandleForAddressRange: %s",
		     cu_err(l->o->cu, cr, buf, sizeof(buf)));
		errno = EOPNOTSUPP;
		return NULL;
	}
	errno = 0;
	mr = api->reg_dmabuf_mr(l->pd[i], off, len, (uint64_t)l->dptr[i], fd, LB_ACCESS);
	e = errno;
	close(fd);
	if (!mr) {
		note(l, "DMA-BUF: ibv_reg_dmabuf_mr: %s", strerror(e ? e : EFAULT));
		errno = e ? e : EFAULT;
	}
	return mr;
}

static struct ibv_mr *reg_peermem(struct lb *l, int i, size_t len)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = l->o->api->reg_mr(l->pd[i], (void *)(uintptr_t)l->dptr[i], len, LB_ACCESS);
	if (!mr)
		note(l, "peermem: ibv_reg_mr of GPU memory: %s%s", strerror(errno ? errno : EFAULT),
		     errno == EFAULT || !errno ? " (nvidia_peermem not loaded?)" : "");
	return mr;
}

static int gpu_memory(struct lb *l)
{
	const struct pf_cuda_table *cu = l->o->cu;
	size_t len = l->span, alloc = round_up(len, l->page) + l->page;
	pf_autofree uint8_t *stage = NULL;
	pf_CUcontext cctx;
	pf_CUresult cr;
	char buf[128];
	bool dmabuf;

	if (!cu)
		return fail(l, PF_LB_MEMORY, -ENOSYS, "no CUDA driver table for GPU buffers");
	cr = cu->cuInit(0);
	if (cr == PF_CUDA_SUCCESS)
		cr = cu->cuDevicePrimaryCtxRetain(&cctx, l->o->gpu);
	if (cr != PF_CUDA_SUCCESS)
		return fail(l, PF_LB_MEMORY, -EIO, "CUDA device %d: %s", l->o->gpu,
			    cu_err(cu, cr, buf, sizeof(buf)));
	l->gpu_ctx = true;
	cr = cu->cuCtxSetCurrent(cctx);
	/*
	 * a page more than whole pages, so that the buffer starts on a page
	 * and a DMA-BUF export of its page-rounded range stays inside
	 */
	for (int i = 0; i < 2 && cr == PF_CUDA_SUCCESS; i++) {
		cr = cu->cuMemAlloc(&l->dalloc[i], alloc);
		l->dptr[i] = (pf_CUdeviceptr)round_up((size_t)l->dalloc[i], l->page);
	}
	if (cr != PF_CUDA_SUCCESS)
		return fail(l, PF_LB_MEMORY, -ENOMEM, "cuMemAlloc of %zu bytes: %s", alloc,
			    cu_err(cu, cr, buf, sizeof(buf)));
	stage = pf_xcalloc(1, len);
	cr = cu->cuMemcpyHtoD(l->dptr[1], stage, len);
	fill_slots(l, stage);
	if (cr == PF_CUDA_SUCCESS)
		cr = cu->cuMemcpyHtoD(l->dptr[0], stage, len);
	if (cr != PF_CUDA_SUCCESS)
		return fail(l, PF_LB_MEMORY, -EIO, "cuMemcpyHtoD: %s", cu_err(cu, cr, buf,
									   sizeof(buf)));
	for (int i = 0; i < 2; i++)
		l->addr[i] = (uint64_t)l->dptr[i];

	/* the first buffer decides the path; the second must take the same one */
	dmabuf = l->o->reg == PF_LB_REG_DMABUF;
	if (!dmabuf) {
		l->mr[0] = reg_peermem(l, 0, len);
		dmabuf = !l->mr[0] && l->o->reg == PF_LB_REG_AUTO;
	}
	if (dmabuf)
		l->mr[0] = reg_dmabuf(l, 0, len);
	if (!l->mr[0])
		return fail(l, PF_LB_MEMORY, -EFAULT, "GPU memory cannot be registered with %s: %s",
			    l->o->dev, l->r->note);
	l->mr[1] = dmabuf ? reg_dmabuf(l, 1, len) : reg_peermem(l, 1, len);
	if (!l->mr[1])
		return fail(l, PF_LB_MEMORY, -EFAULT, "second GPU buffer cannot be registered "
			    "with %s: %s", l->o->dev, l->r->note);
	l->r->reg = dmabuf ? "dmabuf" : "peermem";
	return 0;
}

static int modify(struct lb *l, struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *to)
{
	int r = l->o->api->modify_qp(qp, a, mask);

	if (r)
		return fail(l, PF_LB_CONNECT, -EPROTO, "ibv_modify_qp to %s on %s/%u: %s", to,
			    l->o->dev, l->o->port, strerror(r > 0 ? r : errno ? errno : EINVAL));
	return 0;
}

/* A's QP in A's context and B's in B's, each with its own CQ. */
static int lb_create_qps(struct lb *l)
{
	const struct pf_verbs_api *api = l->o->api;

	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr ia = {
			.send_cq = l->cq[i],
			.recv_cq = l->cq[i],
			.qp_type = IBV_QPT_RC,
			.sq_sig_all = 0,
			.cap = {
				.max_send_wr = l->o->tx_depth,
				.max_recv_wr = 1,
				.max_send_sge = 1,
				.max_recv_sge = 1,
			},
		};

		l->qp[i] = api->create_qp(l->pd[i], &ia);
		if (!l->qp[i])
			return fail(l, PF_LB_CONNECT, -ENOMEM, "ibv_create_qp(RC, depth %u) on %s: %s",
				    l->o->tx_depth, l->o->dev, strerror(errno ? errno : ENOMEM));
	}
	return 0;
}

static int lb_connect(struct lb *l)
{
	bool roce = l->pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	uint32_t psn[2] = { LB_PSN_A, LB_PSN_B };
	int r = lb_create_qps(l);

	if (r)
		return r;
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_INIT,
			.pkey_index = 0,
			.port_num = (uint8_t)l->o->port,
			.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					   IBV_ACCESS_REMOTE_READ,
		};

		r = modify(l, l->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS, "INIT");
		if (r)
			return r;
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR,
			.path_mtu = l->pa.active_mtu,
			.dest_qp_num = l->qp[1 - i]->qp_num,
			.rq_psn = psn[1 - i],
			.max_dest_rd_atomic = 1,
			.min_rnr_timer = 12,
			.ah_attr = {
				.port_num = (uint8_t)l->o->port,
				.sl = 0,
				.src_path_bits = 0,
			},
		};

		if (roce) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid = l->gid;
			a.ah_attr.grh.sgid_index = (uint8_t)l->o->gid_index;
			a.ah_attr.grh.hop_limit = 0xff;
			a.ah_attr.grh.traffic_class = 0;
		} else {
			a.ah_attr.is_global = 0;
			a.ah_attr.dlid = l->pa.lid;
		}
		r = modify(l, l->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			   IBV_QP_MIN_RNR_TIMER, "RTR");
		if (r)
			return r;
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTS,
			.timeout = 14,
			.retry_cnt = 7,
			.rnr_retry = 7,
			.sq_psn = psn[i],
			.max_rd_atomic = 1,
		};

		r = modify(l, l->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
		if (r)
			return r;
	}
	return 0;
}

static const char *wc_name(int status)
{
	return pf_ibv_wc_status_name(status);
}

/*
 * Post @n WRITEs (UINT64_MAX with @duration_ns: until that much time has
 * passed, then up to the next signalled WR) keeping tx_depth outstanding;
 * wait for the last.  *ret_n, *ret_ns: WRs done and first post to last
 * completion.
 */
static int pump(struct lb *l, uint64_t n, uint64_t duration_ns, uint64_t *ret_n, uint64_t *ret_ns)
{
	const struct pf_verbs_api *api = l->o->api;
	unsigned int depth = l->o->tx_depth;
	unsigned int cq_mod = l->o->cq_mod < 1 ? 1 : l->o->cq_mod > depth ? depth : l->o->cq_mod;
	uint64_t posted = 0, done = 0, limit = n, t0, t_last, t_now;
	unsigned int timeout_ms = pf_lb_completion_timeout_ms(l->o->timeout_ms, l->o->msg_size,
							      cq_mod, depth, l->o->min_gbps);
	uint64_t timeout_ns = (uint64_t)timeout_ms * 1000000u;
	struct ibv_wc wc[16];

	t0 = t_last = now_ns(l);
	while (done < limit) {
		uint64_t room = depth - (posted - done), batch = 0;
		struct ibv_send_wr *bad = NULL;
		int got;

		if (duration_ns && limit == UINT64_MAX && posted && now_ns(l) - t0 >= duration_ns)
			limit = (posted + cq_mod - 1) / cq_mod * cq_mod;
		while (batch < room && posted + batch < limit) {
			uint64_t id = posted + batch;
			struct ibv_send_wr *wr = &l->wrs[batch];

			wr->wr_id = id;
			wr->sg_list->addr = l->addr[0] + (id % l->slots) * l->stride;
			wr->wr.rdma.remote_addr = l->addr[1] + (id % l->slots) * l->stride;
			wr->send_flags = (id + 1) % cq_mod == 0 || id + 1 == limit
						 ? IBV_SEND_SIGNALED : 0;
			wr->next = NULL;
			if (batch)
				l->wrs[batch - 1].next = wr;
			batch++;
		}
		if (batch) {
			int r = api->post_send(l->qp[0], l->wrs, &bad);

			if (r)
				return fail(l, PF_LB_TRANSFER, -EIO, "ibv_post_send of WR %llu on "
					    "%s/%u: %s", (unsigned long long)(bad ? bad->wr_id : posted),
					    l->o->dev, l->o->port, strerror(r > 0 ? r : EINVAL));
			posted += batch;
		}
		got = api->poll_cq(l->cq[0], (int)PF_ARRAY_SIZE(wc), wc);
		if (got < 0)
			return fail(l, PF_LB_TRANSFER, -EIO, "ibv_poll_cq on %s failed", l->o->dev);
		t_now = now_ns(l);
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				l->r->wc_status = wc[i].status;
				return fail(l, PF_LB_TRANSFER, -EIO, "WR %llu completed with %s "
					    "(status %d, vendor error 0x%x) on %s/%u",
					    (unsigned long long)wc[i].wr_id, wc_name(wc[i].status),
					    wc[i].status, wc[i].vendor_err, l->o->dev, l->o->port);
			}
			if (wc[i].wr_id + 1 > done)
				done = wc[i].wr_id + 1;
			t_last = t_now;
		}
		if (!got && t_now - t_last > timeout_ns) {
			l->r->below_gbps = pf_lb_below_gbps(done, cq_mod, l->o->msg_size, t_now - t0);
			return fail(l, PF_LB_TRANSFER, -ETIMEDOUT, "no completion for %u ms on "
				    "%s/%u (%llu of %llu WRs done): below %.3g Gb/s", timeout_ms,
				    l->o->dev, l->o->port, (unsigned long long)done,
				    (unsigned long long)posted, l->r->below_gbps);
		}
	}
	*ret_n = done;
	*ret_ns = t_last - t0;
	l->n_written += done;
	return 0;
}

static int lb_transfer(struct lb *l)
{
	uint64_t n, ns;
	int r;

	l->wrs = pf_xcalloc(l->o->tx_depth, sizeof(*l->wrs));
	l->sges = pf_xcalloc(l->o->tx_depth, sizeof(*l->sges));
	for (unsigned int i = 0; i < l->o->tx_depth; i++) {
		l->sges[i] = (struct ibv_sge){
			.addr = l->addr[0],
			.length = (uint32_t)l->o->msg_size,
			.lkey = l->mr[0]->lkey,
		};
		l->wrs[i].sg_list = &l->sges[i];
		l->wrs[i].num_sge = 1;
		l->wrs[i].opcode = IBV_WR_RDMA_WRITE;
		l->wrs[i].wr.rdma.remote_addr = l->addr[1];
		l->wrs[i].wr.rdma.rkey = l->mr[1]->rkey;
	}
	if (l->o->warmup) {
		r = pump(l, l->o->warmup, 0, &n, &ns);
		if (r)
			return r;
	}
	if (l->o->duration_ms)
		r = pump(l, UINT64_MAX, l->o->duration_ms * 1000000u, &n, &ns);
	else
		r = pump(l, l->o->iterations, 0, &n, &ns);
	if (r)
		return r;
	l->r->iterations = n;
	l->r->bytes = n * l->o->msg_size;
	l->r->seconds = (double)ns / 1e9;
	l->r->gbps = pf_lb_gbps(l->r->bytes, ns);
	return 0;
}

static int lb_verify(struct lb *l)
{
	pf_autofree uint8_t *copy = NULL;
	const uint8_t *dst = l->host[1];
	unsigned int n = l->n_written < l->slots ? (unsigned int)l->n_written : l->slots;

	if (l->o->mem == PF_LB_GPU) {
		pf_CUresult cr;
		char buf[128];

		copy = pf_xcalloc(1, l->span);
		cr = l->o->cu->cuMemcpyDtoH(copy, l->dptr[1], l->span);
		if (cr != PF_CUDA_SUCCESS)
			return fail(l, PF_LB_VERIFY, -EIO, "cuMemcpyDtoH: %s",
				    cu_err(l->o->cu, cr, buf, sizeof(buf)));
		dst = copy;
	}
	for (unsigned int j = 0; j < n; j++) {
		ssize_t bad = pf_lb_check_pattern(dst + j * l->stride, l->o->msg_size, j + 1);

		if (bad < 0)
			continue;
		l->r->bad_offset = (size_t)bad;
		l->r->bad_slot = j;
		return fail(l, PF_LB_VERIFY, -EBADMSG, "data written through %s/%u differs from "
			    "the source at byte %zd of %zu in slot %u of %u", l->o->dev, l->o->port,
			    bad, l->o->msg_size, j, l->slots);
	}
	return 0;
}

int pf_loopback_run(const struct pf_lb_opts *o, struct pf_lb_result *ret)
{
	struct lb l = { .o = o, .r = ret };
	int r;

	*ret = (struct pf_lb_result){ .stage = PF_LB_OPEN };
	if (!o->api || !o->dev || !o->msg_size || o->msg_size > UINT32_MAX || !o->tx_depth)
		return fail(&l, PF_LB_OPEN, -EINVAL, "invalid loopback options");
	r = lb_layout(&l);
	if (!r)
		r = lb_open(&l);
	if (!r)
		r = o->mem == PF_LB_GPU ? gpu_memory(&l) : host_memory(&l);
	if (!r)
		r = lb_connect(&l);
	if (!r)
		r = lb_transfer(&l);
	if (!r)
		r = lb_verify(&l);
	if (!r)
		ret->stage = PF_LB_DONE;
	lb_release(&l);
	return r;
}

int pf_loopback_roce_gid(const struct pf_fs *fs, const char *dev, unsigned int port,
			 int *ret_index, char ret_ip[16])
{
	for (int i = 0; i < 256; i++) {
		pf_autofree char *type = NULL, *gid = NULL;
		unsigned int w[8];
		int r;

		r = pf_fs_readf_line(fs, &type, "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
				     "types/%d", dev, port, i);
		if (r == -ENOENT)
			break;
		if (r < 0 || strcmp(type, "RoCE v2") != 0)
			continue;
		if (pf_fs_readf_line(fs, &gid, "/sys/class/infiniband/%s/ports/%u/gids/%d", dev,
				     port, i) < 0)
			continue;
		if (sscanf(gid, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &w[0], &w[1], &w[2], &w[3],
			   &w[4], &w[5], &w[6], &w[7]) != 8)
			continue;
		if (w[0] || w[1] || w[2] || w[3] || w[4] || w[5] != 0xffff)
			continue;
		*ret_index = i;
		snprintf(ret_ip, 16, "%u.%u.%u.%u", (w[6] >> 8) & 0xff, w[6] & 0xff, (w[7] >> 8) & 0xff,
			 w[7] & 0xff);
		return 0;
	}
	return -ENOENT;
}
