// SPDX-License-Identifier: MIT
/*
 * gpu_decls.c - our in-tree CUDA/NVML/NCCL declarations against the real
 * headers.  Built only when the CUDA toolkit's cuda.h is found at build time
 * (nccl.h and nvml.h each when found): the static assertions are the test,
 * so it fails at compile time.  At run time it checks that the symbol each
 * table entry loads is the one the header's macros name (cuMemAlloc ->
 * cuMemAlloc_v2), since that is what code built against the header calls.
 */
#include <stdio.h>
#include <string.h>

#include <cuda.h>
#ifdef PF_HAVE_NCCL_H
#include <nccl.h>
#endif
#ifdef PF_HAVE_NVML_H
#include <nvml.h>
#endif

#include "preflight/gpu.h"
#include "preflight/macro.h"

#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)
#define FN_OK(real, ours) \
	_Static_assert(SAME_TYPE(__typeof__(&real), ours), #real " does not match " #ours)
#define EQ(a, b) _Static_assert((long long)(a) == (long long)(b), #a " != " #b)

/* CUDA types */
_Static_assert(SAME_TYPE(CUdevice, pf_CUdevice), "CUdevice");
_Static_assert(SAME_TYPE(CUdeviceptr, pf_CUdeviceptr), "CUdeviceptr");
_Static_assert(SAME_TYPE(CUcontext, pf_CUcontext), "CUcontext");
_Static_assert(SAME_TYPE(CUstream, pf_CUstream), "CUstream");
_Static_assert(SAME_TYPE(CUevent, pf_CUevent), "CUevent");
_Static_assert(sizeof(CUresult) == sizeof(pf_CUresult), "CUresult size");

/* CUDA functions, through the header's macros (the _v2 ABI names) */
FN_OK(cuInit, pf_cuInit_fn);
FN_OK(cuDriverGetVersion, pf_cuDriverGetVersion_fn);
FN_OK(cuDeviceGetCount, pf_cuDeviceGetCount_fn);
FN_OK(cuDeviceGet, pf_cuDeviceGet_fn);
FN_OK(cuDeviceGetName, pf_cuDeviceGetName_fn);
FN_OK(cuDeviceGetPCIBusId, pf_cuDeviceGetPCIBusId_fn);
FN_OK(cuDeviceGetAttribute, pf_cuDeviceGetAttribute_fn);
FN_OK(cuDeviceTotalMem, pf_cuDeviceTotalMem_fn);
FN_OK(cuGetErrorString, pf_cuGetErrorString_fn);
FN_OK(cuGetErrorName, pf_cuGetErrorString_fn);
FN_OK(cuDevicePrimaryCtxRetain, pf_cuDevicePrimaryCtxRetain_fn);
FN_OK(cuDevicePrimaryCtxRelease, pf_cuDevicePrimaryCtxRelease_fn);
FN_OK(cuCtxSetCurrent, pf_cuCtxSetCurrent_fn);
FN_OK(cuMemAlloc, pf_cuMemAlloc_fn);
FN_OK(cuMemFree, pf_cuMemFree_fn);
FN_OK(cuMemcpyHtoD, pf_cuMemcpyHtoD_fn);
FN_OK(cuMemcpyDtoH, pf_cuMemcpyDtoH_fn);
FN_OK(cuMemsetD32, pf_cuMemsetD32_fn);
FN_OK(cuStreamCreate, pf_cuStreamCreate_fn);
FN_OK(cuStreamDestroy, pf_cuStreamDestroy_fn);
FN_OK(cuStreamSynchronize, pf_cuStreamSynchronize_fn);
FN_OK(cuEventCreate, pf_cuEventCreate_fn);
FN_OK(cuEventDestroy, pf_cuEventDestroy_fn);
FN_OK(cuEventRecord, pf_cuEventRecord_fn);
FN_OK(cuEventSynchronize, pf_cuEventSynchronize_fn);
FN_OK(cuEventElapsedTime, pf_cuEventElapsedTime_fn);

/* fabric handles (nvlink_fabric's probe): cuda.h from CUDA 12.3 declares them */
#if CUDA_VERSION >= 12030
/* cuMemGetAllocationGranularity and cuMemCreate take CUmemAllocationProp, which
   ours mirrors under another tag: its layout is asserted below instead */
FN_OK(cuMemRelease, pf_cuMemRelease_fn);
FN_OK(cuMemExportToShareableHandle, pf_cuMemExportToShareableHandle_fn);
FN_OK(cuMemImportFromShareableHandle, pf_cuMemImportFromShareableHandle_fn);
_Static_assert(sizeof(CUmemAllocationProp) == sizeof(struct pf_cu_mem_allocation_prop),
	       "CUmemAllocationProp size");
_Static_assert(offsetof(CUmemAllocationProp, allocFlags) ==
	       offsetof(struct pf_cu_mem_allocation_prop, alloc_flags), "CUmemAllocationProp.allocFlags");
_Static_assert(sizeof(CUmemFabricHandle) == sizeof(struct pf_cu_mem_fabric_handle),
	       "CUmemFabricHandle size");
_Static_assert(SAME_TYPE(CUmemGenericAllocationHandle, pf_CUmemGenericAllocationHandle),
	       "CUmemGenericAllocationHandle");
EQ(CU_MEM_HANDLE_TYPE_FABRIC, PF_CU_MEM_HANDLE_TYPE_FABRIC);
EQ(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED,
   PF_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED);
EQ(CU_MEM_ALLOCATION_TYPE_PINNED, PF_CU_MEM_ALLOCATION_TYPE_PINNED);
EQ(CU_MEM_LOCATION_TYPE_DEVICE, PF_CU_MEM_LOCATION_TYPE_DEVICE);
EQ(CUDA_ERROR_NOT_PERMITTED, PF_CUDA_ERROR_NOT_PERMITTED);
#endif

/* CUDA constants */
EQ(CUDA_SUCCESS, PF_CUDA_SUCCESS);
EQ(CUDA_ERROR_OUT_OF_MEMORY, PF_CUDA_ERROR_OUT_OF_MEMORY);
EQ(CUDA_ERROR_NOT_INITIALIZED, PF_CUDA_ERROR_NOT_INITIALIZED);
EQ(CUDA_ERROR_STUB_LIBRARY, PF_CUDA_ERROR_STUB_LIBRARY);
EQ(CUDA_ERROR_NO_DEVICE, PF_CUDA_ERROR_NO_DEVICE);
EQ(CUDA_ERROR_INVALID_DEVICE, PF_CUDA_ERROR_INVALID_DEVICE);
EQ(CUDA_ERROR_NOT_SUPPORTED, PF_CUDA_ERROR_NOT_SUPPORTED);
EQ(CUDA_ERROR_SYSTEM_NOT_READY, PF_CUDA_ERROR_SYSTEM_NOT_READY);
EQ(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, PF_CUDA_ERROR_SYSTEM_DRIVER_MISMATCH);
EQ(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, PF_CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE);
EQ(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, PF_CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
EQ(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, PF_CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
EQ(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, PF_CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, PF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
EQ(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, PF_CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
EQ(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, PF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED);
EQ(CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, PF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED);
EQ(CU_EVENT_DEFAULT, PF_CU_EVENT_DEFAULT);
EQ(CU_STREAM_DEFAULT, PF_CU_STREAM_DEFAULT);
EQ(CU_STREAM_NON_BLOCKING, PF_CU_STREAM_NON_BLOCKING);

#ifdef PF_HAVE_NCCL_H
_Static_assert(SAME_TYPE(ncclComm_t, pf_ncclComm_t), "ncclComm_t");
_Static_assert(SAME_TYPE(cudaStream_t, pf_CUstream), "cudaStream_t is CUstream");
_Static_assert(sizeof(ncclResult_t) == sizeof(pf_ncclResult_t), "ncclResult_t size");
FN_OK(ncclGetVersion, pf_ncclGetVersion_fn);
FN_OK(ncclGetErrorString, pf_ncclGetErrorString_fn);
FN_OK(ncclCommInitAll, pf_ncclCommInitAll_fn);
FN_OK(ncclCommDestroy, pf_ncclCommDestroy_fn);
FN_OK(ncclGroupStart, pf_ncclGroupStart_fn);
FN_OK(ncclGroupEnd, pf_ncclGroupEnd_fn);
FN_OK(ncclAllReduce, pf_ncclAllReduce_fn);
EQ(ncclSuccess, PF_NCCL_SUCCESS);
EQ(ncclUnhandledCudaError, PF_NCCL_UNHANDLED_CUDA_ERROR);
EQ(ncclSystemError, PF_NCCL_SYSTEM_ERROR);
EQ(ncclInternalError, PF_NCCL_INTERNAL_ERROR);
EQ(ncclInvalidArgument, PF_NCCL_INVALID_ARGUMENT);
EQ(ncclInvalidUsage, PF_NCCL_INVALID_USAGE);
EQ(ncclFloat32, PF_NCCL_FLOAT32);
EQ(ncclSum, PF_NCCL_SUM);
#endif

#ifdef PF_HAVE_NVML_H
_Static_assert(SAME_TYPE(nvmlDevice_t, pf_nvmlDevice_t), "nvmlDevice_t");
_Static_assert(sizeof(nvmlReturn_t) == sizeof(pf_nvmlReturn_t), "nvmlReturn_t size");
_Static_assert(sizeof(nvmlPciInfo_t) == sizeof(struct pf_nvml_pci_info), "nvmlPciInfo_t size");
_Static_assert(offsetof(nvmlPciInfo_t, busId) == offsetof(struct pf_nvml_pci_info, bus_id),
	       "nvmlPciInfo_t.busId");
_Static_assert(offsetof(nvmlPciInfo_t, domain) == offsetof(struct pf_nvml_pci_info, domain),
	       "nvmlPciInfo_t.domain");
FN_OK(nvmlInit_v2, pf_nvmlInit_fn);
FN_OK(nvmlShutdown, pf_nvmlShutdown_fn);
FN_OK(nvmlErrorString, pf_nvmlErrorString_fn);
FN_OK(nvmlSystemGetDriverVersion, pf_nvmlSystemGetDriverVersion_fn);
FN_OK(nvmlDeviceGetCount_v2, pf_nvmlDeviceGetCount_fn);
FN_OK(nvmlDeviceGetHandleByIndex_v2, pf_nvmlDeviceGetHandleByIndex_fn);
FN_OK(nvmlDeviceGetPersistenceMode, pf_nvmlDeviceGetPersistenceMode_fn);
FN_OK(nvmlDeviceGetRetiredPages, pf_nvmlDeviceGetRetiredPages_fn);
FN_OK(nvmlDeviceGetRetiredPagesPendingStatus, pf_nvmlDeviceGetRetiredPagesPendingStatus_fn);
FN_OK(nvmlDeviceGetRemappedRows, pf_nvmlDeviceGetRemappedRows_fn);
/* gpu_health, nvlink_links (left out: the deprecated nvmlDeviceGetTemperature, -Werror; the
 * event reasons, named ...ThrottleReasons before r535) */
FN_OK(nvmlDeviceGetTemperatureThreshold, pf_nvmlDeviceGetTemperatureThreshold_fn);
FN_OK(nvmlDeviceGetPowerManagementLimit, pf_nvmlDeviceGetPowerManagementLimit_fn);
FN_OK(nvmlDeviceGetPowerManagementDefaultLimit, pf_nvmlDeviceGetPowerManagementLimit_fn);
FN_OK(nvmlDeviceGetTotalEccErrors, pf_nvmlDeviceGetTotalEccErrors_fn);
FN_OK(nvmlDeviceGetPcieReplayCounter, pf_nvmlDeviceGetPcieReplayCounter_fn);
FN_OK(nvmlDeviceGetArchitecture, pf_nvmlDeviceGetArchitecture_fn);
FN_OK(nvmlDeviceGetNvLinkState, pf_nvmlDeviceGetNvLinkState_fn);
FN_OK(nvmlDeviceGetNvLinkErrorCounter, pf_nvmlDeviceGetNvLinkErrorCounter_fn);
_Static_assert(NVML_ERROR_INVALID_ARGUMENT == PF_NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT");
_Static_assert(nvmlClocksThrottleReasonHwSlowdown == PF_NVML_CLOCKS_EVENT_HW_SLOWDOWN, "HwSlowdown");
_Static_assert(nvmlClocksThrottleReasonHwThermalSlowdown == PF_NVML_CLOCKS_EVENT_HW_THERMAL,
	       "HwThermalSlowdown");
_Static_assert(nvmlClocksThrottleReasonHwPowerBrakeSlowdown == PF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE,
	       "HwPowerBrakeSlowdown");
_Static_assert(nvmlClocksThrottleReasonSwThermalSlowdown == PF_NVML_CLOCKS_EVENT_SW_THERMAL,
	       "SwThermalSlowdown");
_Static_assert(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN == PF_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
	       "THRESHOLD_SLOWDOWN");
_Static_assert(NVML_AGGREGATE_ECC == PF_NVML_AGGREGATE_ECC, "AGGREGATE_ECC");
_Static_assert(NVML_NVLINK_ERROR_DL_CRC_DATA == PF_NVML_NVLINK_ERROR_DL_CRC_DATA, "DL_CRC_DATA");
_Static_assert(NVML_DEVICE_ARCH_HOPPER == PF_NVML_DEVICE_ARCH_HOPPER, "ARCH_HOPPER");
/* nvlink_links' speed: nvmlDeviceGetFieldValues takes nvmlFieldValue_t, which ours
   mirrors under another tag: its layout is asserted instead of the function's type */
_Static_assert(sizeof(nvmlFieldValue_t) == sizeof(struct pf_nvml_field_value), "nvmlFieldValue_t");
_Static_assert(offsetof(nvmlFieldValue_t, valueType) ==
	       offsetof(struct pf_nvml_field_value, value_type), "nvmlFieldValue_t.valueType");
_Static_assert(offsetof(nvmlFieldValue_t, nvmlReturn) ==
	       offsetof(struct pf_nvml_field_value, nvml_return), "nvmlFieldValue_t.nvmlReturn");
_Static_assert(offsetof(nvmlFieldValue_t, value) == offsetof(struct pf_nvml_field_value, value),
	       "nvmlFieldValue_t.value");
_Static_assert(sizeof(nvmlValue_t) == sizeof(union pf_nvml_value), "nvmlValue_t");
EQ(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON, PF_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON);
EQ(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG, PF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG);
EQ(NVML_VALUE_TYPE_UNSIGNED_SHORT, PF_NVML_VALUE_TYPE_UNSIGNED_SHORT);
EQ(NVML_SUCCESS, PF_NVML_SUCCESS);
EQ(NVML_ERROR_NOT_SUPPORTED, PF_NVML_ERROR_NOT_SUPPORTED);
EQ(NVML_ERROR_INSUFFICIENT_SIZE, PF_NVML_ERROR_INSUFFICIENT_SIZE);
EQ(NVML_ERROR_DRIVER_NOT_LOADED, PF_NVML_ERROR_DRIVER_NOT_LOADED);
EQ(NVML_ERROR_GPU_IS_LOST, PF_NVML_ERROR_GPU_IS_LOST);
EQ(NVML_ERROR_LIB_RM_VERSION_MISMATCH, PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH);
EQ(NVML_FEATURE_ENABLED, PF_NVML_FEATURE_ENABLED);
EQ(NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
   PF_NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR);
/* NVLink fabric (nvlink_fabric): headers from driver 550 on declare v3 */
#ifdef nvmlGpuFabricInfo_v3
/* nvmlDeviceGetGpuFabricInfoV takes nvmlGpuFabricInfoV_t, which ours mirrors under
   another tag: the struct's size, offsets and version macros are asserted instead */
EQ(nvmlGpuFabricInfo_v3, PF_NVML_GPU_FABRIC_INFO_V3);
EQ(nvmlGpuFabricInfo_v2, PF_NVML_GPU_FABRIC_INFO_V2);
EQ(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, PF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
EQ(NVML_GPU_FABRIC_STATE_COMPLETED, PF_NVML_GPU_FABRIC_STATE_COMPLETED);
EQ(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION,
   PF_NVML_FABRIC_HEALTH_SHIFT_INCORRECT_CONFIGURATION);
EQ(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_PARTITION_ASSIGNED, PF_NVML_FABRIC_HEALTH_SHIFT_PARTITION_ASSIGNED);
_Static_assert(sizeof(nvmlGpuFabricInfo_v3_t) == sizeof(struct pf_nvml_gpu_fabric_info),
	       "nvmlGpuFabricInfo_v3_t size");
_Static_assert(offsetof(nvmlGpuFabricInfo_v3_t, cliqueId) ==
	       offsetof(struct pf_nvml_gpu_fabric_info, clique_id), "nvmlGpuFabricInfo_v3_t.cliqueId");
_Static_assert(offsetof(nvmlGpuFabricInfo_v3_t, healthMask) ==
	       offsetof(struct pf_nvml_gpu_fabric_info, health_mask),
	       "nvmlGpuFabricInfo_v3_t.healthMask");
#endif
#endif

#define XSTR(x) STR(x)
#define STR(x) #x

/* The ABI name each header macro expands to, and the table field loading it. */
struct expect {
	const char *abi;
	size_t offset;
};

#define CU_EXPECT(f) { XSTR(f), offsetof(struct pf_cuda_table, f) }

static const struct expect cuda_expect[] = {
	CU_EXPECT(cuDeviceTotalMem), CU_EXPECT(cuDevicePrimaryCtxRelease), CU_EXPECT(cuMemAlloc),
	CU_EXPECT(cuMemFree), CU_EXPECT(cuMemcpyHtoD), CU_EXPECT(cuMemcpyDtoH),
	CU_EXPECT(cuMemsetD32), CU_EXPECT(cuStreamDestroy), CU_EXPECT(cuEventDestroy),
	CU_EXPECT(cuEventElapsedTime), CU_EXPECT(cuInit), CU_EXPECT(cuStreamCreate),
};

int main(void)
{
	int bad = 0;

	for (size_t i = 0; i < PF_ARRAY_SIZE(cuda_expect); i++) {
		const struct pf_dl_sym *s = NULL;

		for (size_t k = 0; k < pf_dl_cuda_lib.n_syms; k++)
			if (pf_dl_cuda_lib.syms[k].offset == cuda_expect[i].offset)
				s = &pf_dl_cuda_lib.syms[k];
		if (!s || strcmp(s->names, cuda_expect[i].abi)) {
			fprintf(stderr, "table loads %s, cuda.h names %s\n", s ? s->names : "nothing",
				cuda_expect[i].abi);
			bad++;
		}
	}
	printf("CUDA_VERSION %d: %zu symbol names match\n", CUDA_VERSION,
	       PF_ARRAY_SIZE(cuda_expect) - (size_t)bad);
#ifdef PF_HAVE_NCCL_H
	printf("nccl.h %d.%d.%d: declarations match\n", NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH);
#endif
#ifdef PF_HAVE_NVML_H
	printf("nvml.h: declarations match\n");
#else
	printf("nvml.h not found at build time: NVML declarations not cross-checked\n");
#endif
	return bad ? 1 : 0;
}
