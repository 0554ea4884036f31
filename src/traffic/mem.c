// SPDX-License-Identifier: MIT
/*
 * mem.c - a side's buffer behind a memory ops table (engine.h), as
 * perftest's memory_ctx: host memory on the NIC's NUMA node, or GPU memory
 * (cuMemAlloc) registered through nvidia-peermem (ibv_reg_mr on the device
 * pointer) or DMA-BUF (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr).
 * Buffers, and DMA-BUF ranges (like NCCL's ibv_reg_dmabuf_mr ranges,
 * src/transport/net_ib.cc), are whole pages of the node's page size.
 */
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"

/* ---- host ------------------------------------------------------------- */

static int host_alloc(struct flow *f, struct side *s)
{
	size_t len = pf_eng_round_up(f->span, f->page);
	int node = s->e->numa_node;

	s->host_len = len;
	s->host_numa = node >= 0 && numa_available() >= 0 && node <= numa_max_node();
	s->host = s->host_numa ? numa_alloc_onnode(len, node) : aligned_alloc(f->page, len);
	if (!s->host)
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOMEM, "cannot allocate %zu bytes for %s",
				   len, s->e->dev);
	if (!s->host_numa)
		pf_eng_note(f, "%s buffer not bound to a NUMA node (%s)", s->e->dev,
			    node < 0 ? "the NIC's NUMA node is unknown" : "libnuma unavailable");
	s->addr = (uint64_t)(uintptr_t)s->host;
	return 0;
}

static int host_fill(struct flow *f, struct side *s, int pass, enum pf_fab_stage st)
{
	(void)st;
	if (pass < 0)
		memset(s->host, 0, s->host_len);
	else
		pf_eng_fill_slots(f, s->host, (unsigned int)pass);
	return 0;
}

static int host_view(struct flow *f, struct side *s, const uint8_t **ret, uint8_t **ret_copy)
{
	(void)f;
	*ret = s->host;
	*ret_copy = NULL;
	return 0;
}

static struct ibv_mr *host_reg(struct flow *f, struct side *s)
{
	struct ibv_mr *mr;
	int e;

	errno = 0;
	mr = f->o->api->reg_mr(s->pd, s->host, s->host_len, f->mr_access);
	if (mr)
		return mr;
	e = pf_eng_errno_or(EFAULT);
	pf_eng_fail(f, PF_FAB_MEMORY, -EFAULT, "ibv_reg_mr of %zu bytes of host memory on %s: "
		    "%s%s", s->host_len, s->e->dev, strerror(e),
		    e == ENOMEM || e == EPERM ? " (RLIMIT_MEMLOCK too low?)" : "");
	return NULL;
}

static void host_release(struct flow *f, struct side *s)
{
	(void)f;
	if (!s->host)
		return;
	if (s->host_numa)
		numa_free(s->host, s->host_len);
	else
		free(s->host);
	s->host = NULL;
}

const struct pf_eng_mem_ops pf_eng_mem_host = {
	.name = "host",
	.alloc = host_alloc,
	.fill = host_fill,
	.view = host_view,
	.reg = host_reg,
	.release = host_release,
};

/* ---- CUDA ------------------------------------------------------------- */

static const char *cu_err(struct flow *f, pf_CUresult r, char *buf, size_t len)
{
	return pf_cuda_strerror(f->o->cu, r, buf, len);
}

/* The side's GPU's primary context, retained once, made current. */
static int gpu_current(struct flow *f, struct side *s, enum pf_fab_stage st)
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
		return pf_eng_fail(f, st, -EIO, "CUDA device %d: %s", s->e->gpu,
				   cu_err(f, cr, buf, sizeof(buf)));
	return 0;
}

/*
 * A page more than whole pages, so that the buffer starts on a page and a
 * DMA-BUF export of its page-rounded range stays inside.
 */
static int cuda_alloc(struct flow *f, struct side *s)
{
	size_t alloc = pf_eng_round_up(f->span, f->page) + f->page;
	pf_CUresult cr;
	char buf[128];
	int r;

	if (!f->o->cu)
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOSYS, "no CUDA driver table for GPU "
				   "buffers");
	r = gpu_current(f, s, PF_FAB_MEMORY);
	if (r)
		return r;
	cr = f->o->cu->cuMemAlloc(&s->dalloc, alloc);
	if (cr != PF_CUDA_SUCCESS) {
		s->dalloc = 0;
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOMEM, "cuMemAlloc of %zu bytes on GPU %d: "
				   "%s", alloc, s->e->gpu, cu_err(f, cr, buf, sizeof(buf)));
	}
	s->dptr = (pf_CUdeviceptr)pf_eng_round_up((size_t)s->dalloc, f->page);
	s->addr = (uint64_t)s->dptr;
	return 0;
}

/* Through a host copy: cuMemcpyHtoD. */
static int cuda_fill(struct flow *f, struct side *s, int pass, enum pf_fab_stage st)
{
	pf_autofree uint8_t *stage = pf_xcalloc(1, f->span);
	pf_CUresult cr;
	char buf[128];
	int r = gpu_current(f, s, st);

	if (r)
		return r;
	if (pass >= 0)
		pf_eng_fill_slots(f, stage, (unsigned int)pass);
	cr = f->o->cu->cuMemcpyHtoD(s->dptr, stage, f->span);
	if (cr != PF_CUDA_SUCCESS)
		return pf_eng_fail(f, st, -EIO, "cuMemcpyHtoD: %s", cu_err(f, cr, buf, sizeof(buf)));
	return 0;
}

static int cuda_view(struct flow *f, struct side *s, const uint8_t **ret, uint8_t **ret_copy)
{
	pf_autofree uint8_t *copy = NULL;
	pf_CUresult cr;
	char buf[128];
	int r = gpu_current(f, s, PF_FAB_VERIFY);

	if (r)
		return r;
	copy = pf_xcalloc(1, f->span);
	cr = f->o->cu->cuMemcpyDtoH(copy, s->dptr, f->span);
	if (cr != PF_CUDA_SUCCESS)
		return pf_eng_fail(f, PF_FAB_VERIFY, -EIO, "cuMemcpyDtoH: %s",
				   cu_err(f, cr, buf, sizeof(buf)));
	*ret = *ret_copy = copy;
	copy = NULL;
	return 0;
}

/* nvidia-peermem: ibv_reg_mr on the device pointer; NULL with a note. */
static struct ibv_mr *peermem_reg(struct flow *f, struct side *s)
{
	struct ibv_mr *mr;
	int e;

	errno = 0;
	mr = f->o->api->reg_mr(s->pd, (void *)(uintptr_t)s->dptr, f->span, f->mr_access);
	if (mr)
		return mr;
	e = errno;
	pf_eng_note(f, "peermem on %s: ibv_reg_mr of GPU memory: %s%s", s->e->dev,
		    strerror(e ? e : EFAULT), e == EFAULT || !e ? " (nvidia_peermem not loaded?)"
								 : "");
	return NULL;
}

/* DMA-BUF of the page-rounded range around the buffer; NULL with a note. */
static struct ibv_mr *dmabuf_reg(struct flow *f, struct side *s)
{
	const struct pf_verbs_api *api = f->o->api;
	pf_CUdeviceptr base = s->dptr & ~(pf_CUdeviceptr)(f->page - 1);
	size_t off = (size_t)(s->dptr - base), span = pf_eng_round_up(off + f->span, f->page);
	struct ibv_mr *mr;
	char buf[128];
	pf_CUresult cr;
	int fd = -1, e;

	if (!api->reg_dmabuf_mr) {
		pf_eng_note(f, "DMA-BUF: libibverbs has no ibv_reg_dmabuf_mr (rdma-core < v34)");
		return NULL;
	}
	if (!f->o->export_dmabuf) {
		pf_eng_note(f, "DMA-BUF: the CUDA driver has no cuMemGetHandleForAddressRange "
			    "(< 11.7)");
		return NULL;
	}
	cr = f->o->export_dmabuf(&fd, base, span, PF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (cr != PF_CUDA_SUCCESS) {
		pf_eng_note(f, "DMA-BUF: cuMemGetHandleForAddressRange: %s",
			    cu_err(f, cr, buf, sizeof(buf)));
		return NULL;
	}
	errno = 0;
	mr = api->reg_dmabuf_mr(s->pd, off, f->span, (uint64_t)s->dptr, fd, f->mr_access);
	e = errno;
	close(fd);
	if (!mr)
		pf_eng_note(f, "DMA-BUF on %s: ibv_reg_dmabuf_mr: %s", s->e->dev,
			    strerror(e ? e : EFAULT));
	return mr;
}

static void cuda_release(struct flow *f, struct side *s)
{
	if (s->dalloc && gpu_current(f, s, f->r->stage) == 0)
		f->o->cu->cuMemFree(s->dalloc);
	s->dalloc = 0;
	if (s->gpu_ctx)
		f->o->cu->cuDevicePrimaryCtxRelease(s->e->gpu);
	s->gpu_ctx = false;
}

const struct pf_eng_mem_ops pf_eng_mem_cuda = {
	.name = "peermem",
	.alloc = cuda_alloc,
	.fill = cuda_fill,
	.view = cuda_view,
	.reg = peermem_reg,
	.release = cuda_release,
};

const struct pf_eng_mem_ops pf_eng_mem_dmabuf = {
	.name = "dmabuf",
	.alloc = cuda_alloc,
	.fill = cuda_fill,
	.view = cuda_view,
	.reg = dmabuf_reg,
	.release = cuda_release,
};

/* ---- a side's buffer --------------------------------------------------- */

/* GPU memory: peermem, then DMA-BUF, as o->reg allows. */
static int gpu_register(struct flow *f, struct side *s)
{
	static const struct pf_eng_mem_ops *const order[] = { &pf_eng_mem_cuda,
							      &pf_eng_mem_dmabuf };
	static const enum pf_lb_reg skip[] = { PF_LB_REG_DMABUF, PF_LB_REG_PEERMEM };

	for (size_t k = 0; k < PF_ARRAY_SIZE(order) && !s->mr; k++) {
		if (f->o->reg == skip[k])
			continue;
		s->mr = order[k]->reg(f, s);
		if (s->mr)
			s->mem = order[k];
	}
	if (!s->mr)
		return pf_eng_fail(f, PF_FAB_MEMORY, -EFAULT, "GPU memory cannot be registered "
				   "with %s: %s", s->e->dev, f->r->note);
	return 0;
}

/* Side @i's buffer in @gpu memory (else host), filled and registered. */
static int side_memory_as(struct flow *f, int i, bool gpu)
{
	struct side *s = &f->s[i];
	int r;

	s->mem = gpu ? &pf_eng_mem_cuda : &pf_eng_mem_host;
	r = s->mem->alloc(f, s);
	if (!r)
		r = s->mem->fill(f, s, i == 0 ? (int)f->first_pass : -1, PF_FAB_MEMORY);
	if (r)
		return r;
	if (gpu)
		r = gpu_register(f, s);
	else if (!(s->mr = s->mem->reg(f, s)))
		r = -EFAULT;
	if (!r)
		f->r->reg[i] = s->mem->name;
	return r;
}

int pf_eng_side_memory(struct flow *f, int i)
{
	struct side *s = &f->s[i];
	int r = side_memory_as(f, i, s->e->mem == PF_LB_GPU);

	if (!r || s->e->mem != PF_LB_GPU || !s->e->host_fallback)
		return r;
	/* what NCCL does without GPUDirect: the traffic still runs, from host memory (the
	 * note already holds why each way of registering failed) */
	pf_eng_note(f, "%s: GPU memory not usable for RDMA, host memory instead", s->e->dev);
	pf_eng_mem_release(f, s);
	s->mem = NULL;
	f->r->err[0] = '\0';
	f->r->stage = PF_FAB_MEMORY;
	return side_memory_as(f, i, false);
}

void pf_eng_mem_release(struct flow *f, struct side *s)
{
	if (s->mr)
		f->o->api->dereg_mr(s->mr);
	s->mr = NULL;
	if (s->mem)
		s->mem->release(f, s);
}
