/* SPDX-License-Identifier: MIT */
/*
 * nvml_api.h - the few NVML (libnvidia-ml.so.1) types, constants and
 * function types preflight uses, declared here so that the build never
 * needs nvml.h.  Checked against the real header by tests/decls/gpu_decls.c
 * when one is found at build time.
 */
#ifndef PREFLIGHT_NVML_API_H
#define PREFLIGHT_NVML_API_H

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

#endif
