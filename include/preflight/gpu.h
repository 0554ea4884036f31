/* SPDX-License-Identifier: MIT */
/*
 * gpu.h - CUDA driver, NVML and NCCL symbol tables (src/wrap).
 *
 * libcuda.so.1, libnvidia-ml.so.1 and libnccl.so.2 are never linked: each
 * is dlopen'd on first use, in the child that runs the check, into a table
 * of function pointers (src/wrap/dl_cuda.c, src/wrap/dl_nvml.c, src/wrap/dl_nccl.c).  A
 * missing library or symbol is an error string that names the library and
 * what to install, never a loader error.  PF_CUDA_PATH, PF_NVML_PATH and
 * PF_NCCL_PATH name a library file to load instead of the soname (only that
 * file is tried).
 *
 * Checks reach the tables only through ctx->prov->gpu (gpu_provider.h),
 * which is also where tests install fakes: a table whose device memory is
 * host memory, and so on (tests/lib/fake_gpu.c).
 */
#ifndef PREFLIGHT_GPU_H
#define PREFLIGHT_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/cuda_api.h"
#include "preflight/nccl_api.h"
#include "preflight/nvml_api.h"

/* libcuda.so.1; every entry is required unless marked optional. */
struct pf_cuda_table {
	pf_cuInit_fn cuInit;
	pf_cuDriverGetVersion_fn cuDriverGetVersion;
	pf_cuDeviceGetCount_fn cuDeviceGetCount;
	pf_cuDeviceGet_fn cuDeviceGet;
	pf_cuDeviceGetName_fn cuDeviceGetName;
	pf_cuDeviceGetPCIBusId_fn cuDeviceGetPCIBusId;
	pf_cuDeviceGetAttribute_fn cuDeviceGetAttribute;
	pf_cuDeviceTotalMem_fn cuDeviceTotalMem;
	pf_cuGetErrorString_fn cuGetErrorString;
	pf_cuGetErrorString_fn cuGetErrorName;
	pf_cuDevicePrimaryCtxRetain_fn cuDevicePrimaryCtxRetain;
	pf_cuDevicePrimaryCtxRelease_fn cuDevicePrimaryCtxRelease;
	pf_cuCtxSetCurrent_fn cuCtxSetCurrent;
	pf_cuMemAlloc_fn cuMemAlloc;
	pf_cuMemFree_fn cuMemFree;
	pf_cuMemcpyHtoD_fn cuMemcpyHtoD;
	pf_cuMemcpyDtoH_fn cuMemcpyDtoH;
	pf_cuMemsetD32_fn cuMemsetD32;
	pf_cuStreamCreate_fn cuStreamCreate;
	pf_cuStreamDestroy_fn cuStreamDestroy;
	pf_cuStreamSynchronize_fn cuStreamSynchronize;
	pf_cuEventCreate_fn cuEventCreate;
	pf_cuEventDestroy_fn cuEventDestroy;
	pf_cuEventRecord_fn cuEventRecord;
	pf_cuEventSynchronize_fn cuEventSynchronize;
	pf_cuEventElapsedTime_fn cuEventElapsedTime;
	/* fabric handles (nvlink_fabric's probe); optional: drivers before CUDA 12.3 */
	pf_cuMemGetAllocationGranularity_fn cuMemGetAllocationGranularity;
	pf_cuMemCreate_fn cuMemCreate;
	pf_cuMemRelease_fn cuMemRelease;
	pf_cuMemExportToShareableHandle_fn cuMemExportToShareableHandle;
	pf_cuMemImportFromShareableHandle_fn cuMemImportFromShareableHandle;
};

/* libnvidia-ml.so.1; the optional entries may be NULL (older drivers). */
struct pf_nvml_table {
	pf_nvmlInit_fn nvmlInit;
	pf_nvmlShutdown_fn nvmlShutdown;
	pf_nvmlErrorString_fn nvmlErrorString;
	pf_nvmlSystemGetDriverVersion_fn nvmlSystemGetDriverVersion;
	pf_nvmlDeviceGetCount_fn nvmlDeviceGetCount;
	pf_nvmlDeviceGetHandleByIndex_fn nvmlDeviceGetHandleByIndex;
	pf_nvmlDeviceGetPciInfo_fn nvmlDeviceGetPciInfo;
	pf_nvmlDeviceGetPersistenceMode_fn nvmlDeviceGetPersistenceMode;
	pf_nvmlDeviceGetRetiredPages_fn nvmlDeviceGetRetiredPages;                  /* optional */
	pf_nvmlDeviceGetRetiredPagesPendingStatus_fn nvmlDeviceGetRetiredPagesPendingStatus; /* optional */
	pf_nvmlDeviceGetRemappedRows_fn nvmlDeviceGetRemappedRows;                  /* optional */
	/* gpu_health and nvlink_links: all optional (a missing one is a skip naming it) */
	pf_nvmlDeviceGetCurrentClocksEventReasons_fn nvmlDeviceGetCurrentClocksEventReasons;
	pf_nvmlDeviceGetTemperature_fn nvmlDeviceGetTemperature;
	pf_nvmlDeviceGetTemperatureThreshold_fn nvmlDeviceGetTemperatureThreshold;
	pf_nvmlDeviceGetPowerManagementLimit_fn nvmlDeviceGetPowerManagementLimit;
	pf_nvmlDeviceGetPowerManagementLimit_fn nvmlDeviceGetPowerManagementDefaultLimit;
	pf_nvmlDeviceGetTotalEccErrors_fn nvmlDeviceGetTotalEccErrors;
	pf_nvmlDeviceGetPcieReplayCounter_fn nvmlDeviceGetPcieReplayCounter;
	pf_nvmlDeviceGetArchitecture_fn nvmlDeviceGetArchitecture;
	pf_nvmlDeviceGetNvLinkState_fn nvmlDeviceGetNvLinkState;
	pf_nvmlDeviceGetNvLinkErrorCounter_fn nvmlDeviceGetNvLinkErrorCounter;
	pf_nvmlDeviceGetFieldValues_fn nvmlDeviceGetFieldValues;  /* the NVLink speed */
	/* NVLink fabric (nvlink_fabric); drivers before 535 lack it */
	pf_nvmlDeviceGetGpuFabricInfoV_fn nvmlDeviceGetGpuFabricInfoV;              /* optional */
};

/* libnccl.so.2. */
struct pf_nccl_table {
	pf_ncclGetVersion_fn ncclGetVersion;
	pf_ncclGetErrorString_fn ncclGetErrorString;
	pf_ncclCommInitAll_fn ncclCommInitAll;
	pf_ncclCommDestroy_fn ncclCommDestroy;
	pf_ncclGroupStart_fn ncclGroupStart;
	pf_ncclGroupEnd_fn ncclGroupEnd;
	pf_ncclAllReduce_fn ncclAllReduce;
};

/* One symbol of a table: NUL-separated alternatives ("a_v2\0a\0"), tried in order. */
struct pf_dl_sym {
	const char *names;
	size_t offset;  /* of the function pointer in the table */
	bool optional;  /* absent: left NULL */
};

/* A library and its table layout. */
struct pf_dl_lib {
	const char *soname;  /* "libcuda.so.1" */
	const char *env;     /* "PF_CUDA_PATH": a file to load instead */
	const char *install; /* "install the NVIDIA driver" */
	const char *version; /* symbol version for dlvsym(), or NULL for dlsym() */
	const struct pf_dl_sym *syms;
	size_t n_syms;
	size_t table_size;   /* sizeof the table, cleared on failure */
};

extern const struct pf_dl_lib pf_dl_cuda_lib;
extern const struct pf_dl_lib pf_dl_nvml_lib;
extern const struct pf_dl_lib pf_dl_nccl_lib;

/*
 * dlopen @lib (its env override, else its soname) and fill @table.  Not
 * cached: the pf_dl_*() loaders below call it once.  -ENOENT with *ret_err
 * "libcuda.so.1 not found (<dlerror>): install the NVIDIA driver", or
 * -ENOSYS with "libcuda.so.1 has no cuInit: ..." for a missing symbol.
 */
int pf_dl_load(const struct pf_dl_lib *lib, void *table, char **ret_err);

/*
 * The process-wide tables, loaded once (pthread_once).  0 and *ret, or the
 * load's -errno with a copy of its message in *ret_err (caller frees).
 */
int pf_dl_cuda(const struct pf_cuda_table **ret, char **ret_err);
int pf_dl_nvml(const struct pf_nvml_table **ret, char **ret_err);
int pf_dl_nccl(const struct pf_nccl_table **ret, char **ret_err);

/*
 * CUDA helpers over a table (src/wrap/dl_cuda.c).
 */

/* "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)" into @buf. */
const char *pf_cuda_strerror(const struct pf_cuda_table *cu, pf_CUresult r, char *buf, size_t len);
/* The sysfs-form BDF ("0000:17:00.0") of device @dev; -EIO on a CUDA error, -EINVAL if malformed. */
int pf_cuda_device_bdf(const struct pf_cuda_table *cu, pf_CUdevice dev, char bdf[16]);
/*
 * cuInit and the list of devices' BDFs (*ret_bdfs, n entries, caller frees).
 * Returns the count, or -EIO with the CUresult in *ret_cu_err.
 */
int pf_cuda_devices(const struct pf_cuda_table *cu, char (**ret_bdfs)[16], pf_CUresult *ret_cu_err);
/* NVML's message for @r ("GPU is lost"), or "NVML error <n>". */
const char *pf_nvml_strerror(const struct pf_nvml_table *nv, pf_nvmlReturn_t r, char *buf,
			     size_t len);
/* NCCL's message for @r, or "NCCL error <n>". */
const char *pf_nccl_strerror(const struct pf_nccl_table *nc, pf_ncclResult_t r, char *buf,
			     size_t len);
/* ncclGetVersion code (22809 or, before 2.9, 2708) as "2.28.9" into @buf. */
const char *pf_nccl_version_string(int code, char *buf, size_t len);

#endif
