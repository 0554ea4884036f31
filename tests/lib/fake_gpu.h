/* SPDX-License-Identifier: MIT */
/*
 * fake_gpu.h - a software GPU node for the GPU checks' tests.
 *
 * Fake CUDA, NVML and NCCL tables behind a struct pf_gpu_provider: device
 * memory is host memory, devices have configurable PCI bus ids, events read
 * a per-stream clock that the fake NCCL advances by bytes / algbw_gbps, and
 * the fake all-reduce really sums the float buffers of every rank.  All
 * knobs live in the global pf_fake (reset by pf_fake_gpu_reset()).
 */
#ifndef PF_FAKE_GPU_H
#define PF_FAKE_GPU_H

#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "testutil.h"

#define PF_FAKE_MAX 16

struct pf_fake_gpu {
	/* loading: 0, or -errno returned with a message naming the library */
	int cuda_load, nvml_load, nccl_load;
	/* CUDA */
	int n;                            /* CUDA devices */
	char bus_id[PF_FAKE_MAX][32];     /* as cuDeviceGetPCIBusId writes it */
	char name[PF_FAKE_MAX][64];
	pf_CUresult init_error;           /* what cuInit returns */
	int dmabuf[PF_FAKE_MAX];          /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	int gdr[PF_FAKE_MAX];             /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
	int driver_version;               /* 12040 */
	long allocs;                      /* live cuMemAlloc blocks, for leak checks */
	/* NCCL */
	int nccl_version;                 /* 22809 */
	double algbw_gbps;                /* all-reduce speed model */
	bool corrupt;                     /* rank 0's result is off by one */
	int allreduce_calls;
	/* NVML */
	pf_nvmlReturn_t nvml_init_error;
	int nvml_n;                       /* devices NVML reports */
	char nvml_bus_id[PF_FAKE_MAX][32];
	char nvml_driver[32];
	int persistence[PF_FAKE_MAX];
	unsigned int retired[PF_FAKE_MAX];
	int retired_pending[PF_FAKE_MAX];
	int remap_pending[PF_FAKE_MAX], remap_failure[PF_FAKE_MAX];
	/*
	 * NVML health and NVLink (gpu_health, nvlink_links).  A field's *_ret
	 * (an nvmlReturn_t, 0 success) is what the query answers; reset: an
	 * idle H100 SXM (clock events GPU idle, 35 C of 87, 700 W default and
	 * limit, no ECC or replay errors, 18 links active, clean counters).
	 */
	unsigned long long clock_events[PF_FAKE_MAX];
	unsigned int temp[PF_FAKE_MAX], temp_slowdown[PF_FAKE_MAX];
	unsigned int power_limit[PF_FAKE_MAX], power_default[PF_FAKE_MAX];   /* mW */
	unsigned long long ecc_volatile[PF_FAKE_MAX], ecc_aggregate[PF_FAKE_MAX];
	unsigned int pcie_replay[PF_FAKE_MAX];
	pf_nvmlReturn_t clock_events_ret, temp_ret, power_ret, ecc_ret, pcie_replay_ret;
	unsigned int arch;                 /* NVML_DEVICE_ARCH_HOPPER */
	unsigned int nvlinks;              /* links per GPU; 0: NOT_SUPPORTED (a PCIe card) */
	unsigned char link_down[PF_FAKE_MAX][PF_NVML_NVLINK_MAX_LINKS];
	unsigned long long link_err[PF_FAKE_MAX][PF_NVML_NVLINK_MAX_LINKS][4];
	unsigned long long link_err_step;  /* added to link 0's counters at each read (live window) */
	unsigned int link_err_step_mask;   /* the counters it grows (1 << NVML_NVLINK_ERROR_DL_*); 0: all */
	pf_nvmlReturn_t link_err_ret;
	/*
	 * nvmlDeviceGetFieldValues: nvlink_speed is each GPU's
	 * NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON (reset: 25781 on every GPU, a
	 * test value, not a claim about a model), nvlink_speed_ret the field's
	 * own nvmlReturn; no_field_values_sym: the symbol is absent.
	 */
	unsigned int nvlink_speed[PF_FAKE_MAX];
	pf_nvmlReturn_t nvlink_speed_ret[PF_FAKE_MAX];
	bool no_field_values_sym;
	/*
	 * NVLink fabric (nvmlDeviceGetGpuFabricInfoV): fabric_rc is what the
	 * call returns (NVML_SUCCESS, or NOT_SUPPORTED as on a GPU without a
	 * fabric); fabric_max_version is the newest struct the fake driver
	 * knows (2: a v3 request gets ARGUMENT_VERSION_MISMATCH, as 535 does);
	 * no_fabric_sym: the symbol is absent (drivers before 535).
	 */
	pf_nvmlReturn_t fabric_rc[PF_FAKE_MAX];
	struct pf_nvml_gpu_fabric_info fabric[PF_FAKE_MAX];
	unsigned int fabric_max_version;
	bool no_fabric_sym;
	/*
	 * The fabric-handle probe: CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED
	 * per device, and what cuMemImportFromShareableHandle returns
	 * (CUDA_ERROR_NOT_PERMITTED without an IMEX channel); mem_handles counts
	 * live cuMemCreate/import handles, for leak checks.
	 */
	int fabric_handle[PF_FAKE_MAX];
	pf_CUresult fabric_import_error;
	long mem_handles;
	/* other facts */
	const char *kmsg;                 /* NULL: -EPERM as for a non-root user */
	int verbs_dmabuf;                 /* 1, 0 or -errno */
};

extern struct pf_fake_gpu pf_fake;
extern const struct pf_gpu_provider pf_fake_gpu_provider;

/*
 * Reset pf_fake to @n healthy GPUs at @bdfs (sysfs form; the fake reports
 * them upper-case as CUDA does, and with an 8-digit domain as NVML does),
 * persistence on, no retired pages, DMA-BUF supported, 100 GB/s algbw.
 */
void pf_fake_gpu_reset(int n, const char *const *bdfs);
/*
 * Every GPU a healthy member of one NVLink domain (GB200 NVL72): state
 * completed, status success, clique 1, one non-zero cluster UUID, health
 * mask 0x1aa (no degradation, routes healthy, configuration correct),
 * summary healthy, and CUDA's fabric handles supported.
 * pf_fake_gpu_reset() leaves fabric NOT_SUPPORTED and no fabric handles.
 */
void pf_fake_gpu_fabric_healthy(void);

/* The recorded providers with the fake GPU provider (static storage). */
const struct pf_providers *pf_fake_providers(void);
/* The recorded providers as they are (recorded GPU provider). */

/* A hand-built inventory: NVIDIA GPUs at @bdfs and @n_rdma RDMA devices. */
struct pf_fake_node {
	struct pf_node node;
	struct pf_pci_dev pci[PF_FAKE_MAX];
	struct pf_gpu gpus[PF_FAKE_MAX];
	struct pf_rdma_dev rdma[4];
	char path[PF_FAKE_MAX][64];
};
void pf_fake_node_init(struct pf_fake_node *fn, int n_gpus, const char *const *bdfs, int n_rdma);

/* A GPU check test's fixture: a temporary root, an inventory, the last result. */
struct pf_fake_fix {
	char *root;
	struct pf_fake_node node;
	struct pf_result res;
};
/* calloc'ed, with a fresh temporary root. */
struct pf_fake_fix *pf_fake_fix_new(void);
/* cmocka teardown of *state, a struct pf_fake_fix: the result, the root, the fixture. */
int pf_fake_fix_teardown(void **state);

/* True if some finding's message or remedy contains @needle. */
bool pf_test_result_mentions(const struct pf_result *res, const char *needle);

#endif
