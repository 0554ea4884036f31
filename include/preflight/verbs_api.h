/* SPDX-License-Identifier: MIT */
/*
 * verbs_api.h - the libibverbs symbol table and its test seam.
 *
 * libibverbs.so.1 is never linked: it is dlopen'd on first use, in the child
 * that runs the check, and every exported verb is resolved with
 * dlvsym(handle, "ibv_xxx", "IBVERBS_1.1") (ibv_reg_dmabuf_mr: IBVERBS_1.12,
 * optional).  The data-path verbs (ibv_post_send, ibv_poll_cq) are static
 * inlines in <infiniband/verbs.h> that call through the context's ops; the
 * live table's entries for them are tiny wrappers around those inlines, so
 * the engine calls every verb through the table and a test can install a
 * whole software device (tests/lib/fake_verbs.c).
 *
 * Checks reach the table through ctx->prov->verbs (-ENOMEDIUM from the
 * recorded providers: a snapshot cannot send traffic).  PF_VERBS_PATH names a library
 * file to load instead of the soname.
 */
#ifndef PREFLIGHT_VERBS_API_H
#define PREFLIGHT_VERBS_API_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include "preflight/cuda_api.h"

/* cuMemGetHandleForAddressRange (CUDA >= 11.7); handle type 1 = DMA-BUF fd. */
typedef pf_CUresult (*pf_cuMemGetHandleForAddressRange_fn)(void *handle, pf_CUdeviceptr dptr,
							   size_t size, unsigned int type,
							   unsigned long long flags);
#define PF_CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD 1

/* Member names are not ibv_* so that verbs.h's macros (ibv_reg_mr, ...) leave them alone. */
struct pf_verbs_api {
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	/*
	 * The exported ibv_query_port@IBVERBS_1.1 fills the older, shorter
	 * layout (state, lid, active_mtu, link_layer are in it); callers pass a
	 * zeroed full struct ibv_port_attr.
	 */
	int (*query_port)(struct ibv_context *context, uint8_t port, struct ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *context, uint8_t port, int index, union ibv_gid *gid);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	/* optional (rdma-core >= v34): NULL when the library lacks it */
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t length,
					uint64_t iova, int fd, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	/* data path: wrappers around the inlines (context->ops) */
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	/*
	 * The exporting half of ibv_reg_dmabuf_mr for GPU memory, optional:
	 * cuMemGetHandleForAddressRange from libcuda.so.1 (PF_CUDA_PATH) when
	 * that library is present (dlopen only; CUDA is not initialised).
	 */
	pf_cuMemGetHandleForAddressRange_fn cu_export_dmabuf;
	/*
	 * Test seam only, NULL in the live table: the clock the engine times
	 * with (ns), so that a fake device can model a link speed exactly.
	 * NULL: CLOCK_MONOTONIC.
	 */
	uint64_t (*now_ns)(struct ibv_context *context);
};

/*
 * dlopen @path ("libibverbs.so.1", or a file) and fill @api.  Not cached.
 * -ENOENT with *ret_err "libibverbs.so.1 not found: install rdma-core
 * (ibverbs-providers) (<dlerror>)", -ENOSYS with "... has no ibv_xxx" for a
 * missing required symbol.
 */
int pf_verbs_load(const char *path, struct pf_verbs_api *api, char **ret_err);

/*
 * The process-wide live table, loaded once (PF_VERBS_PATH or
 * libibverbs.so.1).  0 and *ret, or -errno with a copy of the message in
 * *ret_err (caller frees).  This is what pf_providers_live.verbs points to.
 */
int pf_dl_verbs(const struct pf_verbs_api **ret, char **ret_err);

/*
 * Can the RDMA devices register DMA-BUF memory?  Probed as NCCL does
 * (ncclIbDmaBufSupport, src/transport/net_ib.cc): on a PD of each device,
 * ibv_reg_dmabuf_mr(pd, 0, 0, 0, fd -1, 0); EOPNOTSUPP (a provider
 * without the verb: rdma-core's dummy op, or a kernel driver without it)
 * or EPROTONOSUPPORT (a kernel without the uverbs method) means no, any
 * other answer (EBADF for the fd) yes.  1 every device can, 0 with
 * *ret_why naming the device and errno that cannot (or libibverbs without
 * the symbol), -ENODEV when libibverbs lists no device it can open.
 */
int pf_verbs_probe_dmabuf(const struct pf_verbs_api *api, char **ret_why);

/* "IBV_WC_RETRY_EXC_ERR" for a completion status (ibv_wc_status_str needs a symbol). */
const char *pf_ibv_wc_status_name(int status);

/* IBV_MTU_* <-> bytes; 0 / -EINVAL for anything else. */
int pf_ibv_mtu_bytes(enum ibv_mtu mtu);
int pf_ibv_mtu_from_bytes(int bytes, enum ibv_mtu *ret);

#endif
