/* SPDX-License-Identifier: MIT */
/*
 * gpu_provider.h - the GPU provider, ctx->prov->gpu (src/facts/gpu_provider.c):
 * the symbol tables of gpu.h for the live node, and the GPU facts that are
 * not files, live or recorded.  Tests swap its entries for fakes
 * (tests/lib/fake_gpu.c).
 */
#ifndef PREFLIGHT_GPU_PROVIDER_H
#define PREFLIGHT_GPU_PROVIDER_H

#include "preflight/check.h"
#include "preflight/gpu.h"

/*
 * Facts the GPU checks need that are not files, live or recorded
 * (ctx->prov->gpu).  Every function returns 0 or -errno; *ret_err, when
 * set, is a one-line reason for a finding (caller frees).
 */
struct pf_gpu_provider {
	/* Symbol tables.  The recorded provider answers -ENOMEDIUM: not the live node. */
	int (*cuda)(const struct pf_ctx *ctx, const struct pf_cuda_table **ret, char **ret_err);
	int (*nvml)(const struct pf_ctx *ctx, const struct pf_nvml_table **ret, char **ret_err);
	int (*nccl)(const struct pf_ctx *ctx, const struct pf_nccl_table **ret, char **ret_err);
	/*
	 * The kernel log as text, /dev/kmsg records or dmesg lines (live:
	 * /dev/kmsg, -EPERM without root/CAP_SYSLOG; recorded: <root>/preflight/kmsg,
	 * -ENOENT when not captured).
	 */
	int (*kmsg)(const struct pf_ctx *ctx, char **ret_text, char **ret_err);
	/*
	 * Whether the RDMA devices can register DMA-BUF memory (1) or not (0),
	 * probed as NCCL does (pf_verbs_probe_dmabuf over ctx->prov->verbs).
	 * Recorded: <root>/preflight/ibverbs/reg_dmabuf_mr.
	 */
	int (*verbs_dmabuf)(const struct pf_ctx *ctx, char **ret_err);
	/*
	 * CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED of the GPU at @bdf (1/0).
	 * Live: through ctx->prov->gpu->cuda; recorded:
	 * <root>/preflight/cuda/dmabuf_supported.
	 */
	int (*cuda_dmabuf)(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
	/*
	 * CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED of the GPU at @bdf
	 * (1/0), which NCCL gates GPUDirect RDMA on.  Recorded:
	 * <root>/preflight/cuda/gdr_supported.
	 */
	int (*cuda_gdr)(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
	/*
	 * The installed NCCL's version, as ncclGetVersion() gives it
	 * (NCCL_VERSION_CODE: 22703 is 2.27.3): the value, or -errno with
	 * *ret_err.  Live: through ctx->prov->gpu->nccl (loads libnccl.so.2 in
	 * this process); recorded: <root>/preflight/nccl/version.
	 */
	int (*nccl_version)(const struct pf_ctx *ctx, char **ret_err);
};

extern const struct pf_gpu_provider pf_gpu_live;
extern const struct pf_gpu_provider pf_gpu_recorded;
/* No GPU facts: every member answers -ENOSYS, *ret_err "no GPU provider". */
extern const struct pf_gpu_provider pf_gpu_none;

/* The live implementations, for tests that swap only some entries. */
int pf_gpu_live_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err);
int pf_gpu_live_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err);
int pf_gpu_live_cuda_dmabuf(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
int pf_gpu_live_cuda_gdr(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
int pf_gpu_live_nccl_version(const struct pf_ctx *ctx, char **ret_err);

/*
 * The CUDA table of ctx's GPU provider, cuInit, and the devices' BDFs in
 * ordinal order (*ret_bdfs, caller frees): the count, or -errno with
 * *ret_err ("no CUDA provider", the loader's sentence, "CUDA cannot list
 * GPUs: ...").  What the traffic checks use to map GPUs to CUDA ordinals.
 */
int pf_gpu_cuda_list(const struct pf_ctx *ctx, const struct pf_cuda_table **ret_cu,
		     char (**ret_bdfs)[16], char **ret_err);

#endif
