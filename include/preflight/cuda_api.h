/* SPDX-License-Identifier: MIT */
/*
 * cuda_api.h - the few CUDA driver API (libcuda.so.1) types, constants and
 * function types preflight uses, declared here so that the build never needs
 * the CUDA toolkit.
 *
 * Enums are plain unsigned ints (the ABI of the driver's enums); handle types
 * keep the driver's struct tags so that tests/decls/gpu_decls.c can check
 * every function type against the real cuda.h when the toolkit is present.
 * Symbol names are the ABI names (cuMemAlloc_v2, ...), see src/wrap/dl_cuda.c.
 */
#ifndef PREFLIGHT_CUDA_API_H
#define PREFLIGHT_CUDA_API_H

#include <stddef.h>

typedef unsigned int pf_CUresult;
typedef int pf_CUdevice;
typedef unsigned long long pf_CUdeviceptr;
typedef unsigned int pf_CUdevice_attribute;
typedef struct CUctx_st *pf_CUcontext;
typedef struct CUstream_st *pf_CUstream;
typedef struct CUevent_st *pf_CUevent;

/* CUresult values preflight tells apart. */
#define PF_CUDA_SUCCESS 0
#define PF_CUDA_ERROR_OUT_OF_MEMORY 2
#define PF_CUDA_ERROR_NOT_INITIALIZED 3
#define PF_CUDA_ERROR_STUB_LIBRARY 34
#define PF_CUDA_ERROR_NO_DEVICE 100
#define PF_CUDA_ERROR_INVALID_DEVICE 101
#define PF_CUDA_ERROR_NOT_SUPPORTED 801
#define PF_CUDA_ERROR_SYSTEM_NOT_READY 802
#define PF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH 803
#define PF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE 804

/* CUdevice_attribute values. */
#define PF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID 33
#define PF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID 34
#define PF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID 50
#define PF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define PF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define PF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED 116
#define PF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124

#define PF_CU_EVENT_DEFAULT 0x0
#define PF_CU_STREAM_DEFAULT 0x0
#define PF_CU_STREAM_NON_BLOCKING 0x1

typedef pf_CUresult (*pf_cuInit_fn)(unsigned int flags);
typedef pf_CUresult (*pf_cuDriverGetVersion_fn)(int *version);
typedef pf_CUresult (*pf_cuDeviceGetCount_fn)(int *count);
typedef pf_CUresult (*pf_cuDeviceGet_fn)(pf_CUdevice *dev, int ordinal);
typedef pf_CUresult (*pf_cuDeviceGetName_fn)(char *name, int len, pf_CUdevice dev);
typedef pf_CUresult (*pf_cuDeviceGetPCIBusId_fn)(char *bus_id, int len, pf_CUdevice dev);
typedef pf_CUresult (*pf_cuDeviceGetAttribute_fn)(int *value, pf_CUdevice_attribute attr,
						   pf_CUdevice dev);
typedef pf_CUresult (*pf_cuDeviceTotalMem_fn)(size_t *bytes, pf_CUdevice dev);
typedef pf_CUresult (*pf_cuGetErrorString_fn)(pf_CUresult err, const char **str);
typedef pf_CUresult (*pf_cuDevicePrimaryCtxRetain_fn)(pf_CUcontext *ctx, pf_CUdevice dev);
typedef pf_CUresult (*pf_cuDevicePrimaryCtxRelease_fn)(pf_CUdevice dev);
typedef pf_CUresult (*pf_cuCtxSetCurrent_fn)(pf_CUcontext ctx);
typedef pf_CUresult (*pf_cuMemAlloc_fn)(pf_CUdeviceptr *ptr, size_t bytes);
typedef pf_CUresult (*pf_cuMemFree_fn)(pf_CUdeviceptr ptr);
typedef pf_CUresult (*pf_cuMemcpyHtoD_fn)(pf_CUdeviceptr dst, const void *src, size_t bytes);
typedef pf_CUresult (*pf_cuMemcpyDtoH_fn)(void *dst, pf_CUdeviceptr src, size_t bytes);
typedef pf_CUresult (*pf_cuMemsetD32_fn)(pf_CUdeviceptr dst, unsigned int value, size_t count);
typedef pf_CUresult (*pf_cuStreamCreate_fn)(pf_CUstream *stream, unsigned int flags);
typedef pf_CUresult (*pf_cuStreamDestroy_fn)(pf_CUstream stream);
typedef pf_CUresult (*pf_cuStreamSynchronize_fn)(pf_CUstream stream);
typedef pf_CUresult (*pf_cuEventCreate_fn)(pf_CUevent *event, unsigned int flags);
typedef pf_CUresult (*pf_cuEventDestroy_fn)(pf_CUevent event);
typedef pf_CUresult (*pf_cuEventRecord_fn)(pf_CUevent event, pf_CUstream stream);
typedef pf_CUresult (*pf_cuEventSynchronize_fn)(pf_CUevent event);
typedef pf_CUresult (*pf_cuEventElapsedTime_fn)(float *ms, pf_CUevent start, pf_CUevent end);

/*
 * Virtual memory management and fabric handles (nvlink_fabric's probe, as
 * NCCL checks multi-node NVLink): cuda.h's CUmemAllocationProp,
 * CUmemFabricHandle and CU_MEM_HANDLE_TYPE_FABRIC (CUDA 12.3+ drivers).
 */
typedef unsigned long long pf_CUmemGenericAllocationHandle;

#define PF_CUDA_ERROR_NOT_PERMITTED 800
#define PF_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED 128
#define PF_CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define PF_CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define PF_CU_MEM_HANDLE_TYPE_FABRIC 0x8
#define PF_CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0

struct pf_cu_mem_location {
	unsigned int type;  /* PF_CU_MEM_LOCATION_TYPE_* */
	int id;             /* device ordinal */
};

/* CUmemAllocationProp (v1). */
struct pf_cu_mem_allocation_prop {
	unsigned int type;                   /* PF_CU_MEM_ALLOCATION_TYPE_* */
	unsigned int requested_handle_types; /* PF_CU_MEM_HANDLE_TYPE_* */
	struct pf_cu_mem_location location;
	void *win32_handle_meta_data;
	struct {
		unsigned char compression_type;
		unsigned char gpu_direct_rdma_capable;
		unsigned short usage;
		unsigned char reserved[4];
	} alloc_flags;
};

/* CUmemFabricHandle: 64 opaque bytes. */
struct pf_cu_mem_fabric_handle {
	unsigned char data[64];
};

typedef pf_CUresult (*pf_cuMemGetAllocationGranularity_fn)(
	size_t *granularity, const struct pf_cu_mem_allocation_prop *prop, unsigned int option);
typedef pf_CUresult (*pf_cuMemCreate_fn)(pf_CUmemGenericAllocationHandle *handle, size_t size,
					  const struct pf_cu_mem_allocation_prop *prop,
					  unsigned long long flags);
typedef pf_CUresult (*pf_cuMemRelease_fn)(pf_CUmemGenericAllocationHandle handle);
typedef pf_CUresult (*pf_cuMemExportToShareableHandle_fn)(void *shareable,
							   pf_CUmemGenericAllocationHandle handle,
							   unsigned int handle_type,
							   unsigned long long flags);
typedef pf_CUresult (*pf_cuMemImportFromShareableHandle_fn)(
	pf_CUmemGenericAllocationHandle *handle, void *os_handle, unsigned int handle_type);

#endif
