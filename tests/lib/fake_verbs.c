// SPDX-License-Identifier: MIT
/*
 * fake_verbs.c - a software RC loopback device for the loopback engine's
 * tests (see fake_verbs.h).
 */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_gpu.h"
#include "fake_verbs.h"
#include "preflight/macro.h"

struct pf_fake_verbs pf_fake_verbs;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define MAX_CQE 4096

struct fdev {
	struct ibv_device dev;
	int idx;
};

struct fctx {
	struct ibv_context ctx;
	int idx;
	uint64_t clock_ns;     /* virtual time */
	double wire_free_ns;   /* when the wire is idle again */
};

struct fcq {
	struct ibv_cq cq;
	int cqe;
	struct {
		struct ibv_wc wc;
		uint64_t due_ns;
		struct ibv_qp *qp;
		uint64_t seq;  /* SQ slots up to here are free once polled */
	} q[MAX_CQE];
	int head, n;
};

struct fqp {
	struct ibv_qp qp;
	unsigned int max_send_wr;
	uint64_t posted, freed;  /* SQ slots: posted - freed in use */
	bool error;
	int peer;                /* the device the RTR named (itself for a loopback) */
	uint32_t dest_qpn;       /* the responder QP the RTR named */
	uint32_t rq_psn, sq_psn; /* the PSN it expects (RTR), the one it sends from (RTS) */
};

/* Live QPs, to find a responder by number (its PD must own the rkey). */
static struct fqp *qps[256];
static size_t n_qps;

/* Under the lock: live QP @num, or NULL. */
static struct fqp *qp_of_num(uint32_t num)
{
	for (size_t i = 0; i < n_qps; i++)
		if (qps[i]->qp.qp_num == num)
			return qps[i];
	return NULL;
}

/* Under the lock: the PD of live QP @num, or NULL. */
static struct ibv_pd *pd_of_qpn(uint32_t num)
{
	struct fqp *q = qp_of_num(num);

	return q ? q->qp.pd : NULL;
}

struct fmr {
	struct ibv_mr mr;
	int access;
};

static uint32_t next_num = 0x100;

static void log_teardown(const char *what)
{
	size_t used = strlen(pf_fake_verbs.teardown);

	snprintf(pf_fake_verbs.teardown + used, sizeof(pf_fake_verbs.teardown) - used, "%s%s",
		 used ? "," : "", what);
}

void pf_fake_verbs_reset(int n, uint8_t link_layer)
{
	memset(&pf_fake_verbs, 0, sizeof(pf_fake_verbs));
	pf_fake_verbs.n_devs = n;
	pf_fake_verbs.peermem = pf_fake_verbs.dmabuf = true;
	pf_fake_verbs.fail_wr = -1;
	pf_fake_verbs.fail_status = IBV_WC_REM_ACCESS_ERR;
	pf_fake_verbs.corrupt_offset = -1;
	pf_fake_verbs.corrupt_mr_offset = -1;
	pf_fake_verbs.page_size = 4096;
	for (int i = 0; i < n && i < PF_FAKE_VERBS_DEVS; i++) {
		struct pf_fake_verbs_dev *d = &pf_fake_verbs.devs[i];

		snprintf(d->name, sizeof(d->name), "mlx5_%d", i);
		d->link_layer = link_layer;
		d->state = IBV_PORT_ACTIVE;
		d->lid = link_layer == IBV_LINK_LAYER_INFINIBAND ? (uint16_t)(0x11 + i) : 0;
		d->active_mtu = IBV_MTU_4096;
		d->gbps = 400;
		d->roce_gid_index = link_layer == IBV_LINK_LAYER_ETHERNET ? 3 : -1;
		for (int g = 0; g < 4; g++) {
			uint8_t *raw = d->gid[g].raw;

			d->gid_version[g] = g % 2 ? 2 : 1;
			if (g < 2) {
				raw[0] = 0xfe;
				raw[1] = 0x80;
				raw[15] = (uint8_t)(i + 1);
			} else {
				raw[10] = raw[11] = 0xff;
				raw[12] = 10;
				raw[15] = (uint8_t)(i + 1);
			}
		}
	}
}

static struct fctx *fctx_of(struct ibv_context *c)
{
	return (struct fctx *)c;
}

static struct pf_fake_verbs_dev *dev_of(struct ibv_context *c)
{
	return &pf_fake_verbs.devs[fctx_of(c)->idx];
}

static struct ibv_device **f_get_device_list(int *n)
{
	struct ibv_device **list;

	if (pf_fake_verbs.list_errno) {
		*n = 0;
		errno = pf_fake_verbs.list_errno;
		return NULL;
	}
	list = calloc((size_t)pf_fake_verbs.n_devs + 1, sizeof(*list));
	for (int i = 0; i < pf_fake_verbs.n_devs; i++) {
		struct fdev *d = calloc(1, sizeof(*d));

		d->idx = i;
		snprintf(d->dev.name, sizeof(d->dev.name), "%s", pf_fake_verbs.devs[i].name);
		list[i] = &d->dev;
	}
	*n = pf_fake_verbs.n_devs;
	return list;
}

static void f_free_device_list(struct ibv_device **list)
{
	for (int i = 0; list[i]; i++)
		free(list[i]);
	free(list);
}

static const char *f_get_device_name(struct ibv_device *d)
{
	return d->name;
}

static struct ibv_context *f_open_device(struct ibv_device *d)
{
	struct fctx *c = calloc(1, sizeof(*c));

	c->ctx.device = d;
	c->idx = ((struct fdev *)d)->idx;
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live++;
	if (++pf_fake_verbs.open_now[c->idx] > pf_fake_verbs.max_open[c->idx])
		pf_fake_verbs.max_open[c->idx] = pf_fake_verbs.open_now[c->idx];
	pthread_mutex_unlock(&lock);
	for (unsigned int ms = 0; ms < pf_fake_verbs.overlap_wait_ms; ms++) {
		bool other;

		pthread_mutex_lock(&lock);
		other = pf_fake_verbs.max_open[c->idx] > 1;
		pthread_mutex_unlock(&lock);
		if (other)
			break;
		usleep(1000);
	}
	return &c->ctx;
}

static int f_close_device(struct ibv_context *c)
{
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live--;
	pf_fake_verbs.open_now[fctx_of(c)->idx]--;
	log_teardown("ctx");
	pthread_mutex_unlock(&lock);
	free(c);
	return 0;
}

/* As ibv_query_port: the kernel's errno, positive (EINVAL for a port the device lacks). */
static int f_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a)
{
	struct pf_fake_verbs_dev *d = dev_of(c);

	if (port != 1)
		return EINVAL;
	a->state = d->state;
	a->lid = d->lid;
	a->active_mtu = d->active_mtu;
	a->max_mtu = IBV_MTU_4096;
	a->link_layer = d->link_layer;
	a->gid_tbl_len = 4;
	return 0;
}

/*
 * As libibverbs' ibv_query_gid: -1 (errno EINVAL) for a port or index the
 * device lacks; an empty entry is 0 with an all-zero GID.
 */
static int f_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	if (port != 1 || index < 0 || index >= 4) {
		errno = EINVAL;
		return -1;
	}
	*gid = dev_of(c)->gid[index];
	return 0;
}

static struct ibv_pd *f_alloc_pd(struct ibv_context *c)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	pd->context = c;
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live++;
	pthread_mutex_unlock(&lock);
	return pd;
}

static int f_dealloc_pd(struct ibv_pd *pd)
{
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live--;
	log_teardown("pd");
	pthread_mutex_unlock(&lock);
	free(pd);
	return 0;
}

/*
 * Device memory of the fake CUDA is a malloc block; the CUDA table of
 * pf_fake_verbs_providers() wraps cuMemAlloc/cuMemFree to know which.
 */
static struct {
	uintptr_t base;
	size_t len;
} gpu_blocks[64];

/* Is [addr, addr + len) inside one cuMemAlloc block? */
static bool is_gpu_range(const void *addr, size_t len)
{
	uintptr_t a = (uintptr_t)addr;
	bool found = false;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < PF_ARRAY_SIZE(gpu_blocks) && !found; i++)
		found = gpu_blocks[i].len && a >= gpu_blocks[i].base &&
			a + len <= gpu_blocks[i].base + gpu_blocks[i].len;
	pthread_mutex_unlock(&lock);
	return found;
}

static bool is_gpu_memory(const void *addr)
{
	return is_gpu_range(addr, 1);
}

static struct pf_cuda_table cuda;
static const struct pf_cuda_table *real_cuda;

/*
 * The fake CUDA (fake_gpu.c) keeps plain globals; the engines call it from
 * several threads at once (a fabric round, gdr_loopback's parallel mode),
 * as the real, thread-safe driver allows: one lock around every call.
 */
static pthread_mutex_t cuda_lock = PTHREAD_MUTEX_INITIALIZER;

#define CUDA_LOCKED(call)                                   \
	({                                                  \
		pf_CUresult r_;                             \
		pthread_mutex_lock(&cuda_lock);             \
		r_ = (call);                                \
		pthread_mutex_unlock(&cuda_lock);           \
		r_;                                         \
	})

static pf_CUresult w_cuInit(unsigned int flags)
{
	return CUDA_LOCKED(real_cuda->cuInit(flags));
}

static pf_CUresult w_cuDevicePrimaryCtxRetain(pf_CUcontext *ctx, pf_CUdevice dev)
{
	return CUDA_LOCKED(real_cuda->cuDevicePrimaryCtxRetain(ctx, dev));
}

static pf_CUresult w_cuDevicePrimaryCtxRelease(pf_CUdevice dev)
{
	return CUDA_LOCKED(real_cuda->cuDevicePrimaryCtxRelease(dev));
}

static pf_CUresult w_cuCtxSetCurrent(pf_CUcontext ctx)
{
	return CUDA_LOCKED(real_cuda->cuCtxSetCurrent(ctx));
}

static pf_CUresult w_cuMemcpyHtoD(pf_CUdeviceptr dst, const void *src, size_t bytes)
{
	return CUDA_LOCKED(real_cuda->cuMemcpyHtoD(dst, src, bytes));
}

static pf_CUresult w_cuMemcpyDtoH(void *dst, pf_CUdeviceptr src, size_t bytes)
{
	return CUDA_LOCKED(real_cuda->cuMemcpyDtoH(dst, src, bytes));
}

static pf_CUresult w_cuMemAlloc(pf_CUdeviceptr *p, size_t bytes)
{
	pf_CUresult r = CUDA_LOCKED(real_cuda->cuMemAlloc(p, bytes));

	if (r != PF_CUDA_SUCCESS)
		return r;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < PF_ARRAY_SIZE(gpu_blocks); i++) {
		if (!gpu_blocks[i].len) {
			gpu_blocks[i].base = (uintptr_t)*p;
			gpu_blocks[i].len = bytes;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return r;
}

static pf_CUresult w_cuMemFree(pf_CUdeviceptr p)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < PF_ARRAY_SIZE(gpu_blocks); i++)
		if (gpu_blocks[i].len && gpu_blocks[i].base == (uintptr_t)p)
			gpu_blocks[i].len = 0;
	pthread_mutex_unlock(&lock);
	return CUDA_LOCKED(real_cuda->cuMemFree(p));
}

static int wrapped_cuda(const struct pf_ctx *ctx, const struct pf_cuda_table **ret,
			char **ret_err)
{
	const struct pf_cuda_table *real;
	int r = pf_fake_gpu_provider.cuda(ctx, &real, ret_err);

	if (r < 0)
		return r;
	real_cuda = real;
	cuda = *real;
	cuda.cuInit = w_cuInit;
	cuda.cuDevicePrimaryCtxRetain = w_cuDevicePrimaryCtxRetain;
	cuda.cuDevicePrimaryCtxRelease = w_cuDevicePrimaryCtxRelease;
	cuda.cuCtxSetCurrent = w_cuCtxSetCurrent;
	cuda.cuMemcpyHtoD = w_cuMemcpyHtoD;
	cuda.cuMemcpyDtoH = w_cuMemcpyDtoH;
	cuda.cuMemAlloc = w_cuMemAlloc;
	cuda.cuMemFree = w_cuMemFree;
	*ret = &cuda;
	return 0;
}

const struct pf_cuda_table *pf_fake_verbs_cuda(void)
{
	const struct pf_cuda_table *t = NULL;
	char *err = NULL;

	wrapped_cuda(NULL, &t, &err);
	free(err);
	return t;
}

static struct ibv_mr *new_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct fmr *m = calloc(1, sizeof(*m));

	pthread_mutex_lock(&lock);
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = next_num++;
	m->mr.rkey = next_num++;
	m->access = access;
	pf_fake_verbs.live++;
	pthread_mutex_unlock(&lock);
	return &m->mr;
}

static struct ibv_mr *f_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	if (!addr || !len) {
		errno = EINVAL;
		return NULL;
	}
	if (is_gpu_memory(addr)) {
		if (!pf_fake_verbs.peermem) {
			errno = EFAULT;
			return NULL;
		}
		pf_fake_verbs.n_peermem_regs++;
	} else {
		pf_fake_verbs.n_host_regs++;
	}
	return new_mr(pd, addr, len, access);
}

static struct ibv_mr *f_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
				      uint64_t iova, int fd, int access)
{
	/* rdma-core's dummy op when the provider lacks the verb (libibverbs/dummy_ops.c) */
	if (!pf_fake_verbs.dmabuf) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* the kernel: no method, or a driver without it, before it looks at the fd */
	if (pf_fake_verbs.dmabuf_kernel_errno) {
		errno = pf_fake_verbs.dmabuf_kernel_errno;
		return NULL;
	}
	if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
		errno = EBADF; /* dma_buf_get() */
		return NULL;
	}
	if (!is_gpu_memory((void *)(uintptr_t)iova) || offset >= pf_fake_verbs.page_size) {
		errno = EINVAL;
		return NULL;
	}
	pf_fake_verbs.n_dmabuf_regs++;
	return new_mr(pd, (void *)(uintptr_t)iova, len, access);
}

pf_CUresult pf_fake_export_dmabuf(void *handle, pf_CUdeviceptr dptr, size_t size,
				  unsigned int type, unsigned long long flags)
{
	size_t page = pf_fake_verbs.page_size ? pf_fake_verbs.page_size : 4096;

	/* like CUDA: a host-page-aligned range inside one allocation */
	pf_fake_verbs.export_dptr = dptr;
	pf_fake_verbs.export_size = size;
	if (type != PF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD || !size || (dptr % page) ||
	    (size % page) || flags || !is_gpu_range((void *)(uintptr_t)dptr, size))
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	*(int *)handle = open("/dev/null", O_RDONLY | O_CLOEXEC);
	return *(int *)handle >= 0 ? PF_CUDA_SUCCESS : 1;
}

static int f_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live--;
	log_teardown("mr");
	pthread_mutex_unlock(&lock);
	free(mr);
	return 0;
}

static struct ibv_cq *f_create_cq(struct ibv_context *c, int cqe, void *cq_context,
				  struct ibv_comp_channel *ch, int vec)
{
	struct fcq *cq;

	if (cqe < 1 || cqe > MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	cq->cq.context = c;
	cq->cq.cqe = cq->cqe = cqe;
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live++;
	pthread_mutex_unlock(&lock);
	return &cq->cq;
}

static int f_destroy_cq(struct ibv_cq *cq)
{
	pthread_mutex_lock(&lock);
	pf_fake_verbs.live--;
	log_teardown("cq");
	pthread_mutex_unlock(&lock);
	free(cq);
	return 0;
}

static struct ibv_qp *f_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	struct fqp *q;

	if (ia->qp_type != IBV_QPT_RC || !ia->send_cq || !ia->cap.max_send_wr ||
	    ia->cap.max_send_wr > 8192 || ia->cap.max_send_sge < 1) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	q->qp.context = pd->context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_type = IBV_QPT_RC;
	q->qp.state = IBV_QPS_RESET;
	q->max_send_wr = ia->cap.max_send_wr;
	q->peer = -1;
	pthread_mutex_lock(&lock);
	q->qp.qp_num = next_num++;
	if (n_qps < PF_ARRAY_SIZE(qps))
		qps[n_qps++] = q;
	pf_fake_verbs.live++;
	pthread_mutex_unlock(&lock);
	return &q->qp;
}

static int f_destroy_qp(struct ibv_qp *qp)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n_qps; i++)
		if (&qps[i]->qp == qp) {
			qps[i] = qps[--n_qps];
			break;
		}
	pf_fake_verbs.live--;
	log_teardown("qp");
	pthread_mutex_unlock(&lock);
	free(qp);
	return 0;
}

static int refuse(const char *why)
{
	pthread_mutex_lock(&lock);
	pf_fake_verbs.n_refused++;
	snprintf(pf_fake_verbs.refused, sizeof(pf_fake_verbs.refused), "%s", why);
	pthread_mutex_unlock(&lock);
	return EINVAL;
}

static bool has(int mask, int need)
{
	return (mask & need) == need;
}

/* GID index @k of a port is configured (not all zero). */
static bool gid_set(const struct pf_fake_verbs_dev *d, int k)
{
	static const union ibv_gid zero;

	return k >= 0 && k < 4 && memcmp(&d->gid[k], &zero, sizeof(zero));
}

/* Under the lock: the IB port whose GID 0 is @g, or -1. */
static int ib_port_of_gid(const union ibv_gid *g)
{
	for (int i = 0; i < pf_fake_verbs.n_devs; i++)
		if (pf_fake_verbs.devs[i].link_layer == IBV_LINK_LAYER_INFINIBAND &&
		    !memcmp(g, &pf_fake_verbs.devs[i].gid[0], sizeof(*g)))
			return i;
	return -1;
}

/*
 * The port an RTR's address vector names: 0, or refused.  IB: the dlid of
 * a port, no GRH unless the dgid is in another subnet (its 64-bit prefix
 * not ours), then the port whose GID 0 it is.  RoCE: a GRH whose sgid_index
 * names a configured GID of this port and whose dgid is a configured GID
 * of a port, of the same RoCE version (gid_version: v1 and v2 do not meet).
 */
static int rtr_peer(const struct pf_fake_verbs_dev *d, const struct ibv_qp_attr *a,
		    int *ret_peer)
{
	int peer = -1;

	if (d->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		if (a->ah_attr.is_global) {
			if (!memcmp(a->ah_attr.grh.dgid.raw, d->gid[0].raw, 8))
				return refuse("IB RTR with a GRH (is_global) on one subnet");
			if (!gid_set(d, a->ah_attr.grh.sgid_index))
				return refuse("IB RTR sgid_index names an empty GID");
			peer = ib_port_of_gid(&a->ah_attr.grh.dgid);
			if (peer < 0)
				return refuse("IB RTR dgid is no port's GID");
		}
		for (int i = 0; i < pf_fake_verbs.n_devs && peer < 0; i++)
			if (pf_fake_verbs.devs[i].link_layer == IBV_LINK_LAYER_INFINIBAND &&
			    pf_fake_verbs.devs[i].lid == a->ah_attr.dlid)
				peer = i;
		if (peer < 0)
			return refuse("IB RTR dlid is no port's LID");
	} else {
		int sk = a->ah_attr.grh.sgid_index;

		if (!a->ah_attr.is_global)
			return refuse("RoCE RTR without a GRH (is_global 0)");
		if (!gid_set(d, sk))
			return refuse("RoCE RTR sgid_index names an empty GID");
		for (int i = 0; i < pf_fake_verbs.n_devs && peer < 0; i++) {
			const struct pf_fake_verbs_dev *o = &pf_fake_verbs.devs[i];

			for (int k = 0; k < 4 && peer < 0; k++)
				if (o->link_layer == IBV_LINK_LAYER_ETHERNET && gid_set(o, k) &&
				    o->gid_version[k] == d->gid_version[sk] &&
				    !memcmp(&a->ah_attr.grh.dgid, &o->gid[k], sizeof(union ibv_gid)))
					peer = i;
		}
		if (peer < 0)
			return refuse("RoCE RTR dgid is no port's GID of the sgid's RoCE version");
		if (!a->ah_attr.grh.hop_limit)
			return refuse("RoCE RTR hop_limit 0");
	}
	*ret_peer = peer;
	return 0;
}

/*
 * The attributes an RC transition may carry besides its required ones, as
 * the kernel's qp_state_table (drivers/infiniband/core/verbs.c) allows;
 * any other bit is EINVAL, as ib_modify_qp_is_ok answers.
 */
#define RC_INIT_REQ (IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RC_RTR_REQ (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | \
		    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RC_RTR_OPT (IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX)
#define RC_RTS_REQ (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
		    IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
#define RC_RTS_OPT (IBV_QP_CUR_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | \
		    IBV_QP_MIN_RNR_TIMER | IBV_QP_PATH_MIG_STATE)

/*
 * A QP moved to ERR: its completions the wire has not delivered yet are
 * flushed now (IBV_WC_WR_FLUSH_ERR), and what it posts later is flushed.
 */
static void flush(struct fqp *q)
{
	struct fcq *cq = (struct fcq *)q->qp.send_cq;
	uint64_t now;

	pthread_mutex_lock(&lock);
	now = fctx_of(q->qp.context)->clock_ns;
	q->error = true;
	for (int i = 0; i < cq->n; i++) {
		int k = (cq->head + i) % MAX_CQE;

		if (cq->q[k].qp != &q->qp || cq->q[k].due_ns <= now)
			continue;
		cq->q[k].wc.status = IBV_WC_WR_FLUSH_ERR;
		cq->q[k].due_ns = now;
	}
	pthread_mutex_unlock(&lock);
}

static int f_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct pf_fake_verbs_dev *d = dev_of(qp->context);
	int peer = -1, r;

	if (!(mask & IBV_QP_STATE))
		return refuse("no IBV_QP_STATE");
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		if (qp->state != IBV_QPS_RESET)
			return refuse("INIT from a state other than RESET");
		if (!has(mask, IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return refuse("INIT without pkey_index, port or access flags");
		if (mask & ~RC_INIT_REQ)
			return refuse("INIT with an attribute RESET->INIT does not take");
		if (a->port_num != 1)
			return refuse("INIT on a port that does not exist");
		if (!(a->qp_access_flags & IBV_ACCESS_REMOTE_WRITE))
			return refuse("INIT without remote write access");
		break;
	case IBV_QPS_RTR:
		if (qp->state != IBV_QPS_INIT)
			return refuse("RTR from a state other than INIT");
		if (!has(mask, IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			return refuse("RTR without AV, path MTU, dest QPN, RQ PSN, max_dest_rd_atomic "
				      "or min_rnr_timer");
		if (mask & ~(RC_RTR_REQ | RC_RTR_OPT))
			return refuse("RTR with an attribute INIT->RTR does not take");
		if (a->dest_qp_num > 0xffffff || a->rq_psn > 0xffffff)
			return refuse("RTR dest QPN or RQ PSN wider than 24 bits");
		if (a->path_mtu < IBV_MTU_256 || a->path_mtu > d->active_mtu)
			return refuse("RTR path MTU above the port's active MTU");
		if (a->ah_attr.port_num != 1)
			return refuse("RTR address vector on another port");
		r = rtr_peer(d, a, &peer);
		if (r)
			return r;
		if (a->path_mtu > pf_fake_verbs.devs[peer].active_mtu)
			return refuse("RTR path MTU above the peer port's active MTU");
		((struct fqp *)qp)->peer = peer;
		((struct fqp *)qp)->dest_qpn = a->dest_qp_num;
		((struct fqp *)qp)->rq_psn = a->rq_psn;
		pthread_mutex_lock(&lock);
		pf_fake_verbs.rtr = *a;
		pf_fake_verbs.rtr_mask = mask;
		pthread_mutex_unlock(&lock);
		break;
	case IBV_QPS_RTS:
		if (qp->state != IBV_QPS_RTR)
			return refuse("RTS from a state other than RTR");
		if (!has(mask, IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			 IBV_QP_MAX_QP_RD_ATOMIC))
			return refuse("RTS without timeout, retry counts, SQ PSN or max_rd_atomic");
		if (mask & ~(RC_RTS_REQ | RC_RTS_OPT))
			return refuse("RTS with an attribute RTR->RTS does not take");
		if (a->sq_psn > 0xffffff)
			return refuse("RTS SQ PSN wider than 24 bits");
		((struct fqp *)qp)->sq_psn = a->sq_psn;
		break;
	case IBV_QPS_ERR:
		flush((struct fqp *)qp);
		break;
	default:
		return refuse("unsupported target state");
	}
	qp->state = a->qp_state;
	pthread_mutex_lock(&lock);
	pf_fake_verbs.n_transitions++;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* The MR holding [addr, addr+len) with @key (lkey or rkey), or NULL. */
static struct fmr *find_mr(struct fmr **mrs, size_t n, uint32_t key, int need, uint64_t addr,
			   uint64_t len)
{
	bool remote = need & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);

	for (size_t i = 0; i < n; i++) {
		struct fmr *m = mrs[i];
		uint64_t lo = (uint64_t)(uintptr_t)m->mr.addr;

		if ((remote ? m->mr.rkey : m->mr.lkey) != key)
			continue;
		if (addr < lo || addr + len > lo + m->mr.length)
			return NULL;
		if ((m->access & need) != need)
			return NULL;
		return m;
	}
	return NULL;
}

/* Every MR is reachable from the test's PD only through the engine; keep a registry. */
static struct fmr *registry[256];
static size_t n_registry;

static void registry_sync(struct ibv_mr *added)
{
	if (added && n_registry < PF_ARRAY_SIZE(registry))
		registry[n_registry++] = (struct fmr *)added;
}

static void registry_drop(struct ibv_mr *mr)
{
	for (size_t i = 0; i < n_registry; i++) {
		if (&registry[i]->mr == mr) {
			registry[i] = registry[--n_registry];
			return;
		}
	}
}

static struct ibv_mr *r_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = f_reg_mr(pd, addr, len, access);

	pthread_mutex_lock(&lock);
	registry_sync(mr);
	pthread_mutex_unlock(&lock);
	return mr;
}

static struct ibv_mr *r_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len,
				      uint64_t iova, int fd, int access)
{
	struct ibv_mr *mr = f_reg_dmabuf_mr(pd, offset, len, iova, fd, access);

	pthread_mutex_lock(&lock);
	registry_sync(mr);
	pthread_mutex_unlock(&lock);
	return mr;
}

static int r_dereg_mr(struct ibv_mr *mr)
{
	pthread_mutex_lock(&lock);
	registry_drop(mr);
	pthread_mutex_unlock(&lock);
	return f_dereg_mr(mr);
}

/* Under the lock: is @m GPU memory? */
static bool gpu_mem(const struct fmr *m)
{
	uintptr_t a = (uintptr_t)m->mr.addr;

	for (size_t i = 0; i < PF_ARRAY_SIZE(gpu_blocks); i++)
		if (gpu_blocks[i].len && a >= gpu_blocks[i].base &&
		    a < gpu_blocks[i].base + gpu_blocks[i].len)
			return true;
	return false;
}

static int complete(struct fqp *q, uint64_t wr_id, enum ibv_wc_status st, uint64_t due,
		    enum ibv_wc_opcode op)
{
	struct fcq *cq = (struct fcq *)q->qp.send_cq;
	int tail;

	if (cq->n >= cq->cqe)
		return ENOSPC; /* CQ overrun: a real CQ goes to error */
	tail = (cq->head + cq->n) % MAX_CQE;
	cq->q[tail].wc = (struct ibv_wc){
		.wr_id = wr_id,
		.status = st,
		.opcode = op,
		.qp_num = q->qp.qp_num,
	};
	cq->q[tail].due_ns = due;
	cq->q[tail].qp = &q->qp;
	cq->q[tail].seq = q->posted;
	cq->n++;
	return 0;
}

/*
 * Under the lock: the responder answers @q.  A dest QPN that names no QP
 * of the peer port at RTR or RTS, a responder whose own dest QPN is not
 * @q (its ACKs go elsewhere), or a PSN it does not expect: the packets are
 * dropped or NAKed until the retries run out, as on a wire.
 */
static bool responder_ok(const struct fqp *q)
{
	const struct fqp *r = qp_of_num(q->dest_qpn);

	return r && fctx_of(r->qp.context)->idx == q->peer &&
	       (r->qp.state == IBV_QPS_RTR || r->qp.state == IBV_QPS_RTS) &&
	       r->dest_qpn == q->qp.qp_num && r->rq_psn == q->sq_psn;
}

/* Under the lock: the keys of @wr checked as a real HCA does; its MRs in *local, *remote. */
static enum ibv_wc_status wr_access(struct fqp *q, const struct ibv_send_wr *wr,
				    const struct pf_fake_verbs_dev *d,
				    const struct pf_fake_verbs_dev *peer, struct fmr **local,
				    struct fmr **remote)
{
	bool read = wr->opcode == IBV_WR_RDMA_READ;
	uint64_t len = wr->sg_list[0].length;

	/* a READ writes the local buffer: LOCAL_WRITE; the responder's MR REMOTE_READ */
	*local = find_mr(registry, n_registry, wr->sg_list[0].lkey,
			 read ? IBV_ACCESS_LOCAL_WRITE : 0, wr->sg_list[0].addr, len);
	*remote = find_mr(registry, n_registry, wr->wr.rdma.rkey,
			  read ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE,
			  wr->wr.rdma.remote_addr, len);
	/*
	 * the lkey must be of the QP's own PD, the rkey of the responder QP's
	 * PD (two contexts: two PDs)
	 */
	if (!*local || (*local)->mr.pd != q->qp.pd)
		return IBV_WC_LOC_PROT_ERR;
	if (!responder_ok(q))
		return IBV_WC_RETRY_EXC_ERR;
	if (!*remote || fctx_of((*remote)->mr.context)->idx != q->peer ||
	    (pd_of_qpn(q->dest_qpn) && (*remote)->mr.pd != pd_of_qpn(q->dest_qpn)))
		return IBV_WC_REM_ACCESS_ERR;
	if (d->wc_error || peer->wc_error)
		return d->wc_error ? d->wc_error : peer->wc_error;
	if (pf_fake_verbs.fail_wr >= 0 && (long)pf_fake_verbs.wrs == pf_fake_verbs.fail_wr)
		return pf_fake_verbs.fail_status;
	return IBV_WC_SUCCESS;
}

/* Under the lock: move @wr's bytes (a READ from the remote MR, a WRITE into it, faults). */
static void wr_data(const struct ibv_send_wr *wr, const struct fmr *remote, bool read,
		    bool corrupt)
{
	uint64_t len = wr->sg_list[0].length;
	uint8_t *dst = (uint8_t *)(uintptr_t)wr->wr.rdma.remote_addr;
	uint64_t at = wr->wr.rdma.remote_addr - (uint64_t)(uintptr_t)remote->mr.addr;

	if (read) {
		memcpy((void *)(uintptr_t)wr->sg_list[0].addr, dst, len);
		return;
	}
	memcpy(dst, (void *)(uintptr_t)wr->sg_list[0].addr, len);
	if (corrupt && len)
		dst[len / 2] ^= 0xff;
	if (pf_fake_verbs.corrupt_offset >= 0 && (uint64_t)pf_fake_verbs.corrupt_offset < len)
		dst[pf_fake_verbs.corrupt_offset] ^= 0xff;
	if (pf_fake_verbs.corrupt_mr_offset >= 0 &&
	    (uint64_t)pf_fake_verbs.corrupt_mr_offset >= at &&
	    (uint64_t)pf_fake_verbs.corrupt_mr_offset < at + len)
		dst[(uint64_t)pf_fake_verbs.corrupt_mr_offset - at] ^= 0xff;
}

static int f_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct fqp *q = (struct fqp *)qp;
	struct fctx *c = fctx_of(qp->context);
	struct pf_fake_verbs_dev *d = dev_of(qp->context);
	struct pf_fake_verbs_dev *peer = q->peer >= 0 ? &pf_fake_verbs.devs[q->peer] : d;
	double rate;
	int r = 0;

	pthread_mutex_lock(&lock);
	for (; wr; wr = wr->next) {
		enum ibv_wc_status st = IBV_WC_SUCCESS;
		uint64_t len = 0;
		struct fmr *local = NULL, *remote = NULL;
		bool read;

		if (qp->state != IBV_QPS_RTS) {
			r = EINVAL;
			break;
		}
		if (q->posted - q->freed >= q->max_send_wr) {
			r = ENOMEM;
			break;
		}
		if ((wr->opcode != IBV_WR_RDMA_WRITE && wr->opcode != IBV_WR_RDMA_READ) ||
		    wr->num_sge != 1) {
			r = EINVAL;
			break;
		}
		len = wr->sg_list[0].length;
		read = wr->opcode == IBV_WR_RDMA_READ;
		st = wr_access(q, wr, d, peer, &local, &remote);
		if (q->error)
			st = IBV_WC_WR_FLUSH_ERR;
		q->posted++;
		pf_fake_verbs.wrs++;
		if (q->posted - q->freed > pf_fake_verbs.max_outstanding)
			pf_fake_verbs.max_outstanding = (unsigned int)(q->posted - q->freed);
		if (st == IBV_WC_SUCCESS)
			wr_data(wr, remote, read, d->corrupt || peer->corrupt);
		else
			q->error = true;
		if (c->wire_free_ns < (double)c->clock_ns)
			c->wire_free_ns = (double)c->clock_ns;
		rate = d->gpu_gbps > 0 && local && gpu_mem(local) ? d->gpu_gbps : d->gbps;
		if (peer != d && peer->gbps < rate)
			rate = peer->gbps; /* the slower end of the link sets the pace */
		if (q->peer >= 0 && pf_fake_verbs.pair_gbps[c->idx][q->peer] > 0 &&
		    pf_fake_verbs.pair_gbps[c->idx][q->peer] < rate)
			rate = pf_fake_verbs.pair_gbps[c->idx][q->peer];
		c->wire_free_ns += (double)len * 8 / rate;
		if (pf_fake_verbs.on_wr)
			pf_fake_verbs.on_wr(pf_fake_verbs.wrs - 1);
		if (pf_fake_verbs.hang)
			continue;
		if (st != IBV_WC_SUCCESS || (wr->send_flags & IBV_SEND_SIGNALED)) {
			if (st == IBV_WC_SUCCESS)
				pf_fake_verbs.signalled++;
			r = complete(q, wr->wr_id, st, (uint64_t)ceil(c->wire_free_ns),
				     read ? IBV_WC_RDMA_READ : IBV_WC_RDMA_WRITE);
			if (r)
				break;
		}
	}
	pthread_mutex_unlock(&lock);
	if (r && bad)
		*bad = wr;
	return r;
}

static int f_poll_cq(struct ibv_cq *ibcq, int n, struct ibv_wc *wc)
{
	struct fcq *cq = (struct fcq *)ibcq;
	struct fctx *c = fctx_of(ibcq->context);
	int got = 0;

	pthread_mutex_lock(&lock);
	if (cq->n == 0) {
		c->clock_ns += 1000000; /* nothing pending: a millisecond passes */
	} else if (cq->q[cq->head].due_ns > c->clock_ns) {
		/*
		 * wait for the wire, as a real poll does: at most a millisecond per
		 * call, so that a caller's timeout sees a slow link's time pass
		 */
		uint64_t wait = cq->q[cq->head].due_ns - c->clock_ns;

		c->clock_ns += wait < 1000000 ? wait : 1000000;
	}
	while (got < n && cq->n && cq->q[cq->head].due_ns <= c->clock_ns) {
		struct fqp *q = (struct fqp *)cq->q[cq->head].qp;

		wc[got++] = cq->q[cq->head].wc;
		q->freed = cq->q[cq->head].seq;
		cq->head = (cq->head + 1) % MAX_CQE;
		cq->n--;
	}
	pthread_mutex_unlock(&lock);
	return got;
}

static uint64_t f_now_ns(struct ibv_context *c)
{
	uint64_t t;

	pthread_mutex_lock(&lock);
	t = fctx_of(c)->clock_ns;
	pthread_mutex_unlock(&lock);
	return t;
}

const struct pf_verbs_api pf_fake_verbs_api = {
	.get_device_list = f_get_device_list,
	.free_device_list = f_free_device_list,
	.get_device_name = f_get_device_name,
	.open_device = f_open_device,
	.close_device = f_close_device,
	.query_port = f_query_port,
	.query_gid = f_query_gid,
	.alloc_pd = f_alloc_pd,
	.dealloc_pd = f_dealloc_pd,
	.reg_mr = r_reg_mr,
	.reg_dmabuf_mr = r_reg_dmabuf_mr,
	.dereg_mr = r_dereg_mr,
	.create_cq = f_create_cq,
	.destroy_cq = f_destroy_cq,
	.create_qp = f_create_qp,
	.destroy_qp = f_destroy_qp,
	.modify_qp = f_modify_qp,
	.post_send = f_post_send,
	.poll_cq = f_poll_cq,
	.cu_export_dmabuf = pf_fake_export_dmabuf,
	.now_ns = f_now_ns,
};

static int fake_verbs_load(const struct pf_ctx *ctx, const struct pf_verbs_api **ret,
			   char **ret_err)
{
	*ret = &pf_fake_verbs_api;
	return 0;
}

const struct pf_providers *pf_fake_verbs_providers(void)
{
	static struct pf_providers p;
	static struct pf_gpu_provider gpu;

	gpu = pf_fake_gpu_provider;
	gpu.cuda = wrapped_cuda;
	gpu.verbs_dmabuf = pf_gpu_live_verbs_dmabuf; /* NCCL's probe over the fake device */
	p = *pf_fake_providers();
	p.name = "fake-verbs";
	p.gpu = &gpu;
	p.verbs = fake_verbs_load;
	return &p;
}
