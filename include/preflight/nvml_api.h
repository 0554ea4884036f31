/* SPDX-License-Identifier: MIT */
/*
 * nvml_api.h - the few NVML (libnvidia-ml.so.1) types, constants and
 * function types preflight uses, declared here so that the build never
 * needs nvml.h.  Checked against the real header by tests/decls/gpu_decls.c
 * when one is found at build time.
 */
#ifndef PREFLIGHT_NVML_API_H
#define PREFLIGHT_NVML_API_H

#include <stddef.h>

typedef unsigned int pf_nvmlReturn_t;
typedef unsigned int pf_nvmlEnableState_t;
typedef unsigned int pf_nvmlPageRetirementCause_t;
typedef struct nvmlDevice_st *pf_nvmlDevice_t;

#define PF_NVML_SUCCESS 0
#define PF_NVML_ERROR_UNINITIALIZED 1
#define PF_NVML_ERROR_NOT_SUPPORTED 3
#define PF_NVML_ERROR_NO_PERMISSION 4
#define PF_NVML_ERROR_NOT_FOUND 6
#define PF_NVML_ERROR_INSUFFICIENT_SIZE 7
#define PF_NVML_ERROR_DRIVER_NOT_LOADED 9
#define PF_NVML_ERROR_GPU_IS_LOST 15
#define PF_NVML_ERROR_RESET_REQUIRED 16
#define PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH 18

#define PF_NVML_FEATURE_DISABLED 0
#define PF_NVML_FEATURE_ENABLED 1

#define PF_NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS 0
#define PF_NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR 1

#define PF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define PF_NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

/* nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it. */
struct pf_nvml_pci_info {
	char bus_id_legacy[PF_NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pci_device_id;     /* device << 16 | vendor */
	unsigned int pci_subsystem_id;
	char bus_id[PF_NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:17:00.0" */
};

/*
 * What callers pass to nvmlDeviceGetPciInfo_v3: the struct with room to
 * spare, so that a driver whose struct grew cannot write past our buffer.
 */
union pf_nvml_pci_info_buf {
	struct pf_nvml_pci_info info;
	char pad[256];
};

typedef pf_nvmlReturn_t (*pf_nvmlInit_fn)(void);
typedef pf_nvmlReturn_t (*pf_nvmlShutdown_fn)(void);
typedef const char *(*pf_nvmlErrorString_fn)(pf_nvmlReturn_t r);
typedef pf_nvmlReturn_t (*pf_nvmlSystemGetDriverVersion_fn)(char *version, unsigned int len);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetCount_fn)(unsigned int *count);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetHandleByIndex_fn)(unsigned int index,
							     pf_nvmlDevice_t *dev);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetPciInfo_fn)(pf_nvmlDevice_t dev,
						       struct pf_nvml_pci_info *pci);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetPersistenceMode_fn)(pf_nvmlDevice_t dev,
							       pf_nvmlEnableState_t *mode);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetRetiredPages_fn)(pf_nvmlDevice_t dev,
							    pf_nvmlPageRetirementCause_t cause,
							    unsigned int *count,
							    unsigned long long *addresses);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetRetiredPagesPendingStatus_fn)(
	pf_nvmlDevice_t dev, pf_nvmlEnableState_t *pending);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetRemappedRows_fn)(pf_nvmlDevice_t dev,
							    unsigned int *corr_rows,
							    unsigned int *unc_rows,
							    unsigned int *is_pending,
							    unsigned int *failure_occurred);

/*
 * gpu_health and nvlink_links (issue 33 items 3 and 4).  Names and values
 * as NVML's nvml.h spells them (NVIDIA/go-nvml gen/nvml/nvml.h):
 * nvmlReturn_t, nvmlClocksEventReason*, nvmlTemperatureThresholds_t,
 * nvmlTemperatureSensors_t, nvmlMemoryErrorType_t, nvmlEccCounterType_t,
 * nvmlNvLinkErrorCounter_t, nvmlDeviceArchitecture_t.
 */
typedef unsigned int pf_nvmlTemperatureThresholds_t;
typedef unsigned int pf_nvmlTemperatureSensors_t;
typedef unsigned int pf_nvmlMemoryErrorType_t;
typedef unsigned int pf_nvmlEccCounterType_t;
typedef unsigned int pf_nvmlNvLinkErrorCounter_t;
typedef unsigned int pf_nvmlDeviceArchitecture_t;

#define PF_NVML_ERROR_INVALID_ARGUMENT 2

#define PF_NVML_CLOCKS_EVENT_GPU_IDLE 0x1ULL
#define PF_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS 0x2ULL
#define PF_NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ULL
#define PF_NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ULL
#define PF_NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ULL
#define PF_NVML_CLOCKS_EVENT_SW_THERMAL 0x20ULL
#define PF_NVML_CLOCKS_EVENT_HW_THERMAL 0x40ULL
#define PF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ULL
#define PF_NVML_CLOCKS_EVENT_DISPLAY_CLOCK 0x100ULL

#define PF_NVML_TEMPERATURE_GPU 0
#define PF_NVML_TEMPERATURE_THRESHOLD_SHUTDOWN 0
#define PF_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN 1

#define PF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED 1
#define PF_NVML_VOLATILE_ECC 0
#define PF_NVML_AGGREGATE_ECC 1

/* 18 in drivers up to r550's header, 36 since; links past a GPU's own are INVALID_ARGUMENT. */
#define PF_NVML_NVLINK_MAX_LINKS 36
#define PF_NVML_NVLINK_ERROR_DL_REPLAY 0
#define PF_NVML_NVLINK_ERROR_DL_RECOVERY 1
#define PF_NVML_NVLINK_ERROR_DL_CRC_FLIT 2
#define PF_NVML_NVLINK_ERROR_DL_CRC_DATA 3

#define PF_NVML_DEVICE_ARCH_VOLTA 5
#define PF_NVML_DEVICE_ARCH_AMPERE 7
#define PF_NVML_DEVICE_ARCH_HOPPER 9
#define PF_NVML_DEVICE_ARCH_BLACKWELL 10

typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetCurrentClocksEventReasons_fn)(
	pf_nvmlDevice_t dev, unsigned long long *reasons);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetTemperature_fn)(pf_nvmlDevice_t dev,
							   pf_nvmlTemperatureSensors_t sensor,
							   unsigned int *temp);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetTemperatureThreshold_fn)(
	pf_nvmlDevice_t dev, pf_nvmlTemperatureThresholds_t type, unsigned int *temp);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetPowerManagementLimit_fn)(pf_nvmlDevice_t dev,
								    unsigned int *limit_mw);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetTotalEccErrors_fn)(pf_nvmlDevice_t dev,
							      pf_nvmlMemoryErrorType_t type,
							      pf_nvmlEccCounterType_t counter,
							      unsigned long long *count);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetPcieReplayCounter_fn)(pf_nvmlDevice_t dev,
								 unsigned int *value);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetArchitecture_fn)(pf_nvmlDevice_t dev,
							    pf_nvmlDeviceArchitecture_t *arch);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetNvLinkState_fn)(pf_nvmlDevice_t dev, unsigned int link,
							   pf_nvmlEnableState_t *active);
typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetNvLinkErrorCounter_fn)(
	pf_nvmlDevice_t dev, unsigned int link, pf_nvmlNvLinkErrorCounter_t counter,
	unsigned long long *value);

/*
 * nvlink_links' speed: nvmlDeviceGetFieldValues and its nvmlFieldValue_t, as
 * nvml.h declares them (NVIDIA/go-nvml gen/nvml/nvml.h; tests/decls/gpu_decls.c
 * asserts the layout against the real header).  Each field carries its own
 * nvmlReturn (NOT_SUPPORTED on a GPU without the field); the call itself
 * answers NVML_ERROR_INVALID_ARGUMENT for a NULL array.
 * NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON: "Common NVLink Speed in MBps for
 * active links".
 */
#define PF_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90

#define PF_NVML_VALUE_TYPE_DOUBLE 0
#define PF_NVML_VALUE_TYPE_UNSIGNED_INT 1
#define PF_NVML_VALUE_TYPE_UNSIGNED_LONG 2
#define PF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG 3
#define PF_NVML_VALUE_TYPE_SIGNED_LONG_LONG 4
#define PF_NVML_VALUE_TYPE_SIGNED_INT 5
#define PF_NVML_VALUE_TYPE_UNSIGNED_SHORT 6

typedef unsigned int pf_nvmlValueType_t;

/* nvmlValue_t */
union pf_nvml_value {
	double d_val;
	int si_val;
	unsigned int ui_val;
	unsigned long ul_val;
	unsigned long long ull_val;
	signed long long sll_val;
	unsigned short us_val;
};

/* nvmlFieldValue_t */
struct pf_nvml_field_value {
	unsigned int field_id;
	unsigned int scope_id;
	long long timestamp;
	long long latency_usec;
	pf_nvmlValueType_t value_type;
	pf_nvmlReturn_t nvml_return;
	union pf_nvml_value value;
};

typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetFieldValues_fn)(pf_nvmlDevice_t dev, int count,
							   struct pf_nvml_field_value *values);

/*
 * NVLink fabric (issue 33): nvmlDeviceGetGpuFabricInfoV and its versioned
 * struct, as NVML's nvml.h declares them (NVIDIA/go-nvml gen/nvml/nvml.h,
 * "nvmlGpuFabricInfo_v3_t").  The caller sets .version; a driver that
 * predates v3 answers NVML_ERROR_ARGUMENT_VERSION_MISMATCH and v2 is
 * asked instead.  GPUs without an NVLink fabric answer
 * NVML_ERROR_NOT_SUPPORTED.
 */
#define PF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define PF_NVML_GPU_FABRIC_UUID_LEN 16

#define PF_NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define PF_NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define PF_NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define PF_NVML_GPU_FABRIC_STATE_COMPLETED 3

/* healthMask fields: shift and width of each (NVML_GPU_FABRIC_HEALTH_MASK_*). */
#define PF_NVML_FABRIC_HEALTH_SHIFT_DEGRADED_BW 0
#define PF_NVML_FABRIC_HEALTH_SHIFT_ROUTE_RECOVERY 2
#define PF_NVML_FABRIC_HEALTH_SHIFT_ROUTE_UNHEALTHY 4
#define PF_NVML_FABRIC_HEALTH_SHIFT_ACCESS_TIMEOUT_RECOVERY 6
#define PF_NVML_FABRIC_HEALTH_SHIFT_INCORRECT_CONFIGURATION 8
#define PF_NVML_FABRIC_HEALTH_WIDTH_INCORRECT_CONFIGURATION 0xf
#define PF_NVML_FABRIC_HEALTH_SHIFT_PARTITION_ASSIGNED 12
#define PF_NVML_FABRIC_HEALTH_WIDTH_2BIT 0x3

/* healthSummary (v3 only). */
#define PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_NOT_SUPPORTED 0
#define PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY 1
#define PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY 2
#define PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY 3

/* nvmlGpuFabricInfo_v3_t; v2 is the same without healthSummary. */
struct pf_nvml_gpu_fabric_info {
	unsigned int version;
	unsigned char cluster_uuid[PF_NVML_GPU_FABRIC_UUID_LEN];
	pf_nvmlReturn_t status;  /* meaningful only when state is COMPLETED */
	unsigned int clique_id;
	unsigned char state;     /* PF_NVML_GPU_FABRIC_STATE_* */
	unsigned int health_mask;
	unsigned char health_summary;
};

/* NVML_STRUCT_VERSION(GpuFabricInfo, n): the struct's size | n << 24. */
#define PF_NVML_GPU_FABRIC_INFO_V2 \
	((unsigned int)(offsetof(struct pf_nvml_gpu_fabric_info, health_summary)) | (2u << 24))
#define PF_NVML_GPU_FABRIC_INFO_V3 \
	((unsigned int)sizeof(struct pf_nvml_gpu_fabric_info) | (3u << 24))

typedef pf_nvmlReturn_t (*pf_nvmlDeviceGetGpuFabricInfoV_fn)(
	pf_nvmlDevice_t dev, struct pf_nvml_gpu_fabric_info *info);

#endif
