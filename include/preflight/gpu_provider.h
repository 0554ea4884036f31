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
#include "preflight/gpu_fabric.h"

/*
 * gpu_health and nvlink_links (issue 33 items 3 and 4): one NVML answer.
 * known: the query was asked (live) or recorded; then r is NVML's return
 * (PF_NVML_SUCCESS with the value in v, or the code that refused it:
 * PF_NVML_ERROR_NOT_SUPPORTED on a GPU without the feature).  Not known: the
 * library lacks the symbol, or a snapshot did not record it.
 */
struct pf_nvml_val {
	unsigned long long v;
	pf_nvmlReturn_t r;
	bool known;
};

/* The health facts of one GPU, in the order of pf_nvml_health_keys. */
enum pf_nvml_health_fact {
	PF_NVML_H_PERSISTENCE,      /* nvmlDeviceGetPersistenceMode: 1 enabled */
	PF_NVML_H_CLOCK_EVENTS,     /* nvmlDeviceGetCurrentClocksEventReasons: the bit mask */
	PF_NVML_H_TEMP,             /* nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU): C */
	PF_NVML_H_TEMP_SLOWDOWN,    /* nvmlDeviceGetTemperatureThreshold(..._SLOWDOWN): C */
	PF_NVML_H_POWER_LIMIT,      /* nvmlDeviceGetPowerManagementLimit: mW */
	PF_NVML_H_POWER_DEFAULT,    /* nvmlDeviceGetPowerManagementDefaultLimit: mW */
	PF_NVML_H_ECC_VOLATILE,     /* nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE) */
	PF_NVML_H_ECC_AGGREGATE,    /* nvmlDeviceGetTotalEccErrors(UNCORRECTED, AGGREGATE) */
	PF_NVML_H_PCIE_REPLAY,      /* nvmlDeviceGetPcieReplayCounter */
	PF_NVML_H_N,
};

struct pf_nvml_health {
	struct pf_nvml_val v[PF_NVML_H_N];
};

/* The NVLink error counters judged (nvmlNvLinkErrorCounter_t 0..3). */
#define PF_NVLINK_N_COUNTERS 4

/* The NVLink facts of one GPU: the architecture, each link's state and counters. */
struct pf_nvml_nvlink {
	struct pf_nvml_val arch;    /* nvmlDeviceGetArchitecture */
	unsigned int n_links;       /* links asked: up to the first INVALID_ARGUMENT */
	struct pf_nvml_val state[PF_NVML_NVLINK_MAX_LINKS];  /* nvmlDeviceGetNvLinkState */
	struct pf_nvml_val err[PF_NVML_NVLINK_MAX_LINKS][PF_NVLINK_N_COUNTERS];
	/* nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON): MBps; r is the
	   field's own nvmlReturn (or the call's when it refused the whole array) */
	struct pf_nvml_val speed_mbps;
};

/* Record keys ("clocks_event_reasons") and NVML function names, by fact. */
extern const char *const pf_nvml_health_keys[PF_NVML_H_N];
extern const char *const pf_nvml_health_queries[PF_NVML_H_N];
/* "replay", "recovery", "crc_flit", "crc_data" (NVML_NVLINK_ERROR_DL_*). */
extern const char *const pf_nvlink_counter_names[PF_NVLINK_N_COUNTERS];

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
	/*
	 * gpu_health: the NVML health facts of the GPU at @bdf (each known or
	 * not, with NVML's answer).  0, or -errno with *ret_err when NVML cannot
	 * be asked at all (no library, nvmlInit fails, no such GPU) or nothing
	 * was recorded.  Live: NVML (src/facts/nvml_health.c); recorded:
	 * <root>/preflight/nvml/<bdf>/health.
	 */
	int (*nvml_health)(const struct pf_ctx *ctx, const char *bdf, struct pf_nvml_health *ret,
			   char **ret_err);
	/*
	 * nvlink_links: the NVLink states and error counters of the GPU at
	 * @bdf, as nvml_health.  Recorded: <root>/preflight/nvml/<bdf>/nvlink.
	 */
	int (*nvml_nvlink)(const struct pf_ctx *ctx, const char *bdf, struct pf_nvml_nvlink *ret,
			   char **ret_err);
	/*
	 * NVLink fabric (nvlink_fabric, src/facts/gpu_fabric.c).  The fabric
	 * state of the GPU at @bdf as nvmlDeviceGetGpuFabricInfoV gives it
	 * (v3, else v2): 0 and *ret (ret->supported false when NVML answers
	 * NVML_ERROR_NOT_SUPPORTED: the GPU has no NVLink fabric), or -errno
	 * with *ret_err (-ENOSYS: the driver's NVML lacks the call).
	 * Recorded: <root>/preflight/nvml/gpu_fabric (gpu_fabric.h).
	 */
	int (*gpu_fabric)(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
			  char **ret_err);
	/*
	 * The fabric-handle probe of the GPU at @bdf, as NCCL tests multi-node
	 * NVLink: 0 when CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED is 0;
	 * else cuMemCreate with CU_MEM_HANDLE_TYPE_FABRIC, export to a fabric
	 * handle and import it back: 1 when all worked, -EIO with *ret_err
	 * naming the call and CUDA's error when one failed (the attribute can
	 * say supported while the import fails: no IMEX channel), other -errno
	 * when it could not run.  Recorded: <root>/preflight/cuda/fabric_handle
	 * ("<bdf> ok|unsupported|failed <why>").
	 */
	int (*cuda_fabric_handle)(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
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
int pf_gpu_live_nvml_health(const struct pf_ctx *ctx, const char *bdf,
			    struct pf_nvml_health *ret, char **ret_err);
int pf_gpu_live_nvml_nvlink(const struct pf_ctx *ctx, const char *bdf,
			    struct pf_nvml_nvlink *ret, char **ret_err);
int pf_gpu_recorded_nvml_health(const struct pf_ctx *ctx, const char *bdf,
				struct pf_nvml_health *ret, char **ret_err);
int pf_gpu_recorded_nvml_nvlink(const struct pf_ctx *ctx, const char *bdf,
				struct pf_nvml_nvlink *ret, char **ret_err);
/* The text of <root>/preflight/nvml/<bdf>/health and .../nvlink (caller frees). */
char *pf_nvml_health_format(const struct pf_nvml_health *h);
char *pf_nvml_nvlink_format(const struct pf_nvml_nvlink *l);
int pf_gpu_live_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
		       char **ret_err);
int pf_gpu_live_fabric_handle(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
int pf_gpu_recorded_fabric_handle(const struct pf_ctx *ctx, const char *bdf, char **ret_err);
int pf_gpu_recorded_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
			   char **ret_err);

/*
 * The CUDA table of ctx's GPU provider, cuInit, and the devices' BDFs in
 * ordinal order (*ret_bdfs, caller frees): the count, or -errno with
 * *ret_err ("no CUDA provider", the loader's sentence, "CUDA cannot list
 * GPUs: ...").  What the traffic checks use to map GPUs to CUDA ordinals.
 */
int pf_gpu_cuda_list(const struct pf_ctx *ctx, const struct pf_cuda_table **ret_cu,
		     char (**ret_bdfs)[16], char **ret_err);

#endif
