// SPDX-License-Identifier: MIT
/*
 * fake_gpu.c - fake CUDA, NVML and NCCL tables for the GPU checks' tests.
 */
#include <ctype.h>
#include <string.h>

#include "fake_gpu.h"
#include "profile.h"
#include "registry.h"

struct pf_fake_gpu pf_fake;

/* Opaque handles of the real libraries, given a body here. */
struct CUctx_st {
	int dev;
};
struct CUstream_st {
	int dev;
	double clock_s;
};
struct CUevent_st {
	double t_s;
};
struct ncclComm {
	int rank, n;
	struct CUstream_st *stream; /* of the pending group call */
};
struct nvmlDevice_st {
	int index;
};

static struct CUctx_st ctxs[PF_FAKE_MAX];
static struct CUctx_st *current;
static struct nvmlDevice_st nvml_devs[PF_FAKE_MAX];

static void upcase(char *s)
{
	for (; *s; s++)
		*s = (char)toupper((unsigned char)*s);
}

void pf_fake_gpu_reset(int n, const char *const *bdfs)
{
	memset(&pf_fake, 0, sizeof(pf_fake));
	pf_fake.n = pf_fake.nvml_n = n;
	pf_fake.driver_version = 12040;
	pf_fake.nccl_version = 22809;
	pf_fake.algbw_gbps = 100;
	pf_fake.verbs_dmabuf = 1;
	snprintf(pf_fake.nvml_driver, sizeof(pf_fake.nvml_driver), "550.54.15");
	for (int i = 0; i < n && i < PF_FAKE_MAX; i++) {
		snprintf(pf_fake.bus_id[i], sizeof(pf_fake.bus_id[i]), "%s", bdfs[i]);
		upcase(pf_fake.bus_id[i]);
		snprintf(pf_fake.nvml_bus_id[i], sizeof(pf_fake.nvml_bus_id[i]), "0000%s", bdfs[i]);
		snprintf(pf_fake.name[i], sizeof(pf_fake.name[i]), "Fake H100 %d", i);
		pf_fake.dmabuf[i] = 1;
		pf_fake.gdr[i] = 1;
		pf_fake.persistence[i] = 1;
		pf_fake.clock_events[i] = PF_NVML_CLOCKS_EVENT_GPU_IDLE;
		pf_fake.temp[i] = 35;
		pf_fake.temp_slowdown[i] = 87;
		pf_fake.power_limit[i] = pf_fake.power_default[i] = 700000;
		pf_fake.nvlink_speed[i] = 25781;
	}
	pf_fake.arch = PF_NVML_DEVICE_ARCH_HOPPER;
	pf_fake.nvlinks = 18;
	for (int i = 0; i < PF_FAKE_MAX; i++)
		pf_fake.fabric_rc[i] = PF_NVML_ERROR_NOT_SUPPORTED; /* a PCIe-only GPU */
	pf_fake.fabric_max_version = 3;
	current = NULL;
}

/* CUDA */

static bool dev_ok(pf_CUdevice d)
{
	return d >= 0 && d < pf_fake.n;
}

static pf_CUresult f_cuInit(unsigned int flags)
{
	return pf_fake.init_error;
}

static pf_CUresult f_cuDriverGetVersion(int *v)
{
	*v = pf_fake.driver_version;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceGetCount(int *n)
{
	if (pf_fake.init_error)
		return PF_CUDA_ERROR_NOT_INITIALIZED;
	*n = pf_fake.n;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceGet(pf_CUdevice *d, int i)
{
	if (!dev_ok(i))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	*d = i;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceGetName(char *name, int len, pf_CUdevice d)
{
	if (!dev_ok(d))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, (size_t)len, "%s", pf_fake.name[d]);
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceGetPCIBusId(char *id, int len, pf_CUdevice d)
{
	if (!dev_ok(d))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	snprintf(id, (size_t)len, "%s", pf_fake.bus_id[d]);
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceGetAttribute(int *v, pf_CUdevice_attribute a, pf_CUdevice d)
{
	if (!dev_ok(d))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	*v = a == PF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED ? pf_fake.dmabuf[d]
	     : a == PF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED ? pf_fake.gdr[d]
	     : a == PF_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED ? pf_fake.fabric_handle[d] : 0;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDeviceTotalMem(size_t *bytes, pf_CUdevice d)
{
	*bytes = (size_t)80 << 30;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuGetErrorString(pf_CUresult r, const char **s)
{
	switch (r) {
	case PF_CUDA_ERROR_NO_DEVICE:
		*s = "no CUDA-capable device is detected";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_SYSTEM_NOT_READY:
		*s = "system not yet initialized";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_OUT_OF_MEMORY:
		*s = "out of memory";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_NOT_PERMITTED:
		*s = "operation not permitted";
		return PF_CUDA_SUCCESS;
	default:
		return 1;
	}
}

static pf_CUresult f_cuGetErrorName(pf_CUresult r, const char **s)
{
	switch (r) {
	case PF_CUDA_ERROR_NO_DEVICE:
		*s = "CUDA_ERROR_NO_DEVICE";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_SYSTEM_NOT_READY:
		*s = "CUDA_ERROR_SYSTEM_NOT_READY";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_STUB_LIBRARY:
		*s = "CUDA_ERROR_STUB_LIBRARY";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_OUT_OF_MEMORY:
		*s = "CUDA_ERROR_OUT_OF_MEMORY";
		return PF_CUDA_SUCCESS;
	case PF_CUDA_ERROR_NOT_PERMITTED:
		*s = "CUDA_ERROR_NOT_PERMITTED";
		return PF_CUDA_SUCCESS;
	default:
		return 1;
	}
}

static pf_CUresult f_cuDevicePrimaryCtxRetain(pf_CUcontext *c, pf_CUdevice d)
{
	if (!dev_ok(d))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	ctxs[d].dev = d;
	*c = &ctxs[d];
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuDevicePrimaryCtxRelease(pf_CUdevice d)
{
	return dev_ok(d) ? PF_CUDA_SUCCESS : PF_CUDA_ERROR_INVALID_DEVICE;
}

static pf_CUresult f_cuCtxSetCurrent(pf_CUcontext c)
{
	current = c;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemAlloc(pf_CUdeviceptr *p, size_t bytes)
{
	void *m;

	if (!current)
		return PF_CUDA_ERROR_NOT_INITIALIZED;
	m = malloc(bytes);
	if (!m)
		return PF_CUDA_ERROR_OUT_OF_MEMORY;
	pf_fake.allocs++;
	*p = (pf_CUdeviceptr)(uintptr_t)m;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemFree(pf_CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	pf_fake.allocs--;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemcpyHtoD(pf_CUdeviceptr dst, const void *src, size_t n)
{
	memcpy((void *)(uintptr_t)dst, src, n);
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemcpyDtoH(void *dst, pf_CUdeviceptr src, size_t n)
{
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemsetD32(pf_CUdeviceptr dst, unsigned int v, size_t count)
{
	uint32_t *p = (uint32_t *)(uintptr_t)dst;

	for (size_t i = 0; i < count; i++)
		p[i] = v;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuStreamCreate(pf_CUstream *s, unsigned int flags)
{
	if (!current)
		return PF_CUDA_ERROR_NOT_INITIALIZED;
	*s = calloc(1, sizeof(**s));
	(*s)->dev = current->dev;
	pf_fake.allocs++;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuStreamDestroy(pf_CUstream s)
{
	free(s);
	pf_fake.allocs--;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuSync(pf_CUstream s)
{
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuEventCreate(pf_CUevent *e, unsigned int flags)
{
	*e = calloc(1, sizeof(**e));
	pf_fake.allocs++;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuEventDestroy(pf_CUevent e)
{
	free(e);
	pf_fake.allocs--;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuEventRecord(pf_CUevent e, pf_CUstream s)
{
	e->t_s = s->clock_s;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuEventSynchronize(pf_CUevent e)
{
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuEventElapsedTime(float *ms, pf_CUevent a, pf_CUevent b)
{
	*ms = (float)((b->t_s - a->t_s) * 1e3);
	return PF_CUDA_SUCCESS;
}

/* Fabric handles: a handle is its device + 1, a fabric handle carries it in byte 0. */
static pf_CUresult f_cuMemGetAllocationGranularity(size_t *g,
						   const struct pf_cu_mem_allocation_prop *prop,
						   unsigned int option)
{
	if (prop->location.type != PF_CU_MEM_LOCATION_TYPE_DEVICE || !dev_ok(prop->location.id))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	*g = (size_t)2 << 20;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemCreate(pf_CUmemGenericAllocationHandle *h, size_t size,
				 const struct pf_cu_mem_allocation_prop *prop, unsigned long long flags)
{
	int d = prop->location.id;

	if (!current || !dev_ok(d) || size % ((size_t)2 << 20))
		return PF_CUDA_ERROR_INVALID_DEVICE;
	if ((prop->requested_handle_types & PF_CU_MEM_HANDLE_TYPE_FABRIC) && !pf_fake.fabric_handle[d])
		return PF_CUDA_ERROR_NOT_SUPPORTED;
	*h = (pf_CUmemGenericAllocationHandle)d + 1;
	pf_fake.mem_handles++;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemRelease(pf_CUmemGenericAllocationHandle h)
{
	pf_fake.mem_handles--;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemExportToShareableHandle(void *out, pf_CUmemGenericAllocationHandle h,
						  unsigned int type, unsigned long long flags)
{
	struct pf_cu_mem_fabric_handle *fh = out;

	if (type != PF_CU_MEM_HANDLE_TYPE_FABRIC || !h)
		return PF_CUDA_ERROR_NOT_SUPPORTED;
	memset(fh, 0, sizeof(*fh));
	fh->data[0] = (unsigned char)h;
	return PF_CUDA_SUCCESS;
}

static pf_CUresult f_cuMemImportFromShareableHandle(pf_CUmemGenericAllocationHandle *h,
						    void *os_handle, unsigned int type)
{
	const struct pf_cu_mem_fabric_handle *fh = os_handle;

	if (type != PF_CU_MEM_HANDLE_TYPE_FABRIC || !fh->data[0])
		return PF_CUDA_ERROR_NOT_SUPPORTED;
	if (pf_fake.fabric_import_error)
		return pf_fake.fabric_import_error;
	*h = fh->data[0];
	pf_fake.mem_handles++;
	return PF_CUDA_SUCCESS;
}

static const struct pf_cuda_table fake_cuda = {
	.cuInit = f_cuInit,
	.cuDriverGetVersion = f_cuDriverGetVersion,
	.cuDeviceGetCount = f_cuDeviceGetCount,
	.cuDeviceGet = f_cuDeviceGet,
	.cuDeviceGetName = f_cuDeviceGetName,
	.cuDeviceGetPCIBusId = f_cuDeviceGetPCIBusId,
	.cuDeviceGetAttribute = f_cuDeviceGetAttribute,
	.cuDeviceTotalMem = f_cuDeviceTotalMem,
	.cuGetErrorString = f_cuGetErrorString,
	.cuGetErrorName = f_cuGetErrorName,
	.cuDevicePrimaryCtxRetain = f_cuDevicePrimaryCtxRetain,
	.cuDevicePrimaryCtxRelease = f_cuDevicePrimaryCtxRelease,
	.cuCtxSetCurrent = f_cuCtxSetCurrent,
	.cuMemAlloc = f_cuMemAlloc,
	.cuMemFree = f_cuMemFree,
	.cuMemcpyHtoD = f_cuMemcpyHtoD,
	.cuMemcpyDtoH = f_cuMemcpyDtoH,
	.cuMemsetD32 = f_cuMemsetD32,
	.cuMemGetAllocationGranularity = f_cuMemGetAllocationGranularity,
	.cuMemCreate = f_cuMemCreate,
	.cuMemRelease = f_cuMemRelease,
	.cuMemExportToShareableHandle = f_cuMemExportToShareableHandle,
	.cuMemImportFromShareableHandle = f_cuMemImportFromShareableHandle,
	.cuStreamCreate = f_cuStreamCreate,
	.cuStreamDestroy = f_cuStreamDestroy,
	.cuStreamSynchronize = f_cuSync,
	.cuEventCreate = f_cuEventCreate,
	.cuEventDestroy = f_cuEventDestroy,
	.cuEventRecord = f_cuEventRecord,
	.cuEventSynchronize = f_cuEventSynchronize,
	.cuEventElapsedTime = f_cuEventElapsedTime,
};

/* NCCL */

struct pending {
	const float *send;
	float *recv;
	size_t count;
	struct ncclComm *comm;
	struct CUstream_st *stream;
};

static struct pending queue[PF_FAKE_MAX];
static int queued, group_depth;

static pf_ncclResult_t f_ncclGetVersion(int *v)
{
	*v = pf_fake.nccl_version;
	return PF_NCCL_SUCCESS;
}

static const char *f_ncclGetErrorString(pf_ncclResult_t r)
{
	return r == PF_NCCL_INVALID_USAGE ? "invalid usage" : r == PF_NCCL_INVALID_ARGUMENT
		? "invalid argument" : "unknown result code";
}

static pf_ncclResult_t f_ncclCommInitAll(pf_ncclComm_t *comms, int n, const int *devlist)
{
	if (n < 1 || n > pf_fake.n || devlist)
		return PF_NCCL_INVALID_ARGUMENT;
	for (int i = 0; i < n; i++) {
		comms[i] = calloc(1, sizeof(*comms[i]));
		comms[i]->rank = i;
		comms[i]->n = n;
		pf_fake.allocs++;
	}
	return PF_NCCL_SUCCESS;
}

static pf_ncclResult_t f_ncclCommDestroy(pf_ncclComm_t c)
{
	free(c);
	pf_fake.allocs--;
	return PF_NCCL_SUCCESS;
}

static pf_ncclResult_t f_ncclGroupStart(void)
{
	group_depth++;
	return PF_NCCL_SUCCESS;
}

/* Every rank has queued its call: sum and advance each stream's clock. */
static pf_ncclResult_t run_group(void)
{
	int n = queued;
	size_t count;
	float *sum;

	queued = 0;
	if (n == 0)
		return PF_NCCL_SUCCESS;
	count = queue[0].count;
	if (n != queue[0].comm->n)
		return PF_NCCL_INVALID_USAGE; /* a real NCCL would hang */
	for (int i = 0; i < n; i++)
		if (queue[i].count != count)
			return PF_NCCL_INVALID_ARGUMENT;
	sum = calloc(count ? count : 1, sizeof(*sum));
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < count; j++)
			sum[j] += queue[i].send[j];
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < count; j++)
			queue[i].recv[j] = sum[j] + (pf_fake.corrupt && queue[i].comm->rank == 0);
		queue[i].stream->clock_s += (double)count * 4 / (pf_fake.algbw_gbps * 1e9);
	}
	free(sum);
	pf_fake.allreduce_calls++;
	return PF_NCCL_SUCCESS;
}

static pf_ncclResult_t f_ncclGroupEnd(void)
{
	if (group_depth == 0)
		return PF_NCCL_INVALID_USAGE;
	if (--group_depth == 0)
		return run_group();
	return PF_NCCL_SUCCESS;
}

static pf_ncclResult_t f_ncclAllReduce(const void *send, void *recv, size_t count,
				       pf_ncclDataType_t type, pf_ncclRedOp_t op, pf_ncclComm_t comm,
				       pf_CUstream stream)
{
	if (type != PF_NCCL_FLOAT32 || op != PF_NCCL_SUM || !comm || !stream)
		return PF_NCCL_INVALID_ARGUMENT;
	if (queued == PF_FAKE_MAX)
		return PF_NCCL_INVALID_USAGE;
	queue[queued++] = (struct pending){ send, recv, count, comm, stream };
	if (group_depth == 0)
		return run_group();
	return PF_NCCL_SUCCESS;
}

static const struct pf_nccl_table fake_nccl = {
	.ncclGetVersion = f_ncclGetVersion,
	.ncclGetErrorString = f_ncclGetErrorString,
	.ncclCommInitAll = f_ncclCommInitAll,
	.ncclCommDestroy = f_ncclCommDestroy,
	.ncclGroupStart = f_ncclGroupStart,
	.ncclGroupEnd = f_ncclGroupEnd,
	.ncclAllReduce = f_ncclAllReduce,
};

/* NVML */

static int nvml_index(pf_nvmlDevice_t d)
{
	assert_non_null(d);
	return d->index;
}

static pf_nvmlReturn_t f_nvmlInit(void)
{
	return pf_fake.nvml_init_error;
}

static pf_nvmlReturn_t f_nvmlShutdown(void)
{
	return PF_NVML_SUCCESS;
}

static const char *f_nvmlErrorString(pf_nvmlReturn_t r)
{
	return r == PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH
		? "RM has detected an NVML/RM version mismatch." : "Unknown Error";
}

static pf_nvmlReturn_t f_nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
	snprintf(v, len, "%s", pf_fake.nvml_driver);
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetCount(unsigned int *n)
{
	*n = (unsigned int)pf_fake.nvml_n;
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetHandleByIndex(unsigned int i, pf_nvmlDevice_t *d)
{
	if (i >= (unsigned int)pf_fake.nvml_n)
		return PF_NVML_ERROR_NOT_FOUND;
	nvml_devs[i].index = (int)i;
	*d = &nvml_devs[i];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetPciInfo(pf_nvmlDevice_t d, struct pf_nvml_pci_info *pci)
{
	snprintf(pci->bus_id, sizeof(pci->bus_id), "%s", pf_fake.nvml_bus_id[nvml_index(d)]);
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetPersistenceMode(pf_nvmlDevice_t d, pf_nvmlEnableState_t *m)
{
	*m = pf_fake.persistence[nvml_index(d)] ? PF_NVML_FEATURE_ENABLED : PF_NVML_FEATURE_DISABLED;
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetRetiredPages(pf_nvmlDevice_t d,
						   pf_nvmlPageRetirementCause_t cause,
						   unsigned int *count, unsigned long long *addrs)
{
	unsigned int have = cause == PF_NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
			    ? pf_fake.retired[nvml_index(d)] : 0;

	if (*count < have) {
		*count = have;
		return PF_NVML_ERROR_INSUFFICIENT_SIZE;
	}
	*count = have;
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetRetiredPagesPendingStatus(pf_nvmlDevice_t d,
								 pf_nvmlEnableState_t *p)
{
	*p = pf_fake.retired_pending[nvml_index(d)] ? PF_NVML_FEATURE_ENABLED
						    : PF_NVML_FEATURE_DISABLED;
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetRemappedRows(pf_nvmlDevice_t d, unsigned int *corr,
						   unsigned int *unc, unsigned int *pending,
						   unsigned int *failure)
{
	*corr = 0;
	*unc = pf_fake.remap_pending[nvml_index(d)] ? 1 : 0;
	*pending = (unsigned int)pf_fake.remap_pending[nvml_index(d)];
	*failure = (unsigned int)pf_fake.remap_failure[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

/* gpu_health and nvlink_links: each answers as nvml.h documents it. */
static pf_nvmlReturn_t f_nvmlDeviceGetCurrentClocksEventReasons(pf_nvmlDevice_t d,
								unsigned long long *v)
{
	if (!v)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.clock_events_ret)
		return pf_fake.clock_events_ret;
	*v = pf_fake.clock_events[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetTemperature(pf_nvmlDevice_t d, pf_nvmlTemperatureSensors_t s,
						  unsigned int *t)
{
	if (!t || s != PF_NVML_TEMPERATURE_GPU)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.temp_ret)
		return pf_fake.temp_ret;
	*t = pf_fake.temp[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetTemperatureThreshold(pf_nvmlDevice_t d,
							   pf_nvmlTemperatureThresholds_t type,
							   unsigned int *t)
{
	if (!t || type > 7) /* NVML_TEMPERATURE_THRESHOLD_COUNT */
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.temp_ret)
		return pf_fake.temp_ret;
	if (type != PF_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)
		return PF_NVML_ERROR_NOT_SUPPORTED;
	*t = pf_fake.temp_slowdown[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetPowerManagementLimit(pf_nvmlDevice_t d, unsigned int *mw)
{
	if (!mw)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.power_ret)
		return pf_fake.power_ret;
	*mw = pf_fake.power_limit[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetPowerManagementDefaultLimit(pf_nvmlDevice_t d,
								  unsigned int *mw)
{
	if (!mw)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.power_ret)
		return pf_fake.power_ret;
	*mw = pf_fake.power_default[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetTotalEccErrors(pf_nvmlDevice_t d, pf_nvmlMemoryErrorType_t type,
						     pf_nvmlEccCounterType_t counter,
						     unsigned long long *n)
{
	if (!n || type > 1 || counter > 1)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.ecc_ret)
		return pf_fake.ecc_ret;
	if (type != PF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED)
		*n = 0;
	else
		*n = counter == PF_NVML_AGGREGATE_ECC ? pf_fake.ecc_aggregate[nvml_index(d)]
						      : pf_fake.ecc_volatile[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetPcieReplayCounter(pf_nvmlDevice_t d, unsigned int *v)
{
	if (!v)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	if (pf_fake.pcie_replay_ret)
		return pf_fake.pcie_replay_ret;
	*v = pf_fake.pcie_replay[nvml_index(d)];
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetArchitecture(pf_nvmlDevice_t d, pf_nvmlDeviceArchitecture_t *a)
{
	if (!a)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	*a = pf_fake.arch;
	return PF_NVML_SUCCESS;
}

/* NOT_SUPPORTED without NVLink, INVALID_ARGUMENT past the GPU's last link. */
static pf_nvmlReturn_t link_ok(unsigned int link)
{
	if (!pf_fake.nvlinks)
		return PF_NVML_ERROR_NOT_SUPPORTED;
	if (link >= pf_fake.nvlinks || link >= PF_NVML_NVLINK_MAX_LINKS)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	return PF_NVML_SUCCESS;
}

static pf_nvmlReturn_t f_nvmlDeviceGetNvLinkState(pf_nvmlDevice_t d, unsigned int link,
						  pf_nvmlEnableState_t *active)
{
	pf_nvmlReturn_t r = active ? link_ok(link) : PF_NVML_ERROR_INVALID_ARGUMENT;

	if (r == PF_NVML_SUCCESS)
		*active = pf_fake.link_down[nvml_index(d)][link] ? PF_NVML_FEATURE_DISABLED
								 : PF_NVML_FEATURE_ENABLED;
	return r;
}

static pf_nvmlReturn_t f_nvmlDeviceGetNvLinkErrorCounter(pf_nvmlDevice_t d, unsigned int link,
							 pf_nvmlNvLinkErrorCounter_t c,
							 unsigned long long *v)
{
	pf_nvmlReturn_t r = v && c <= 4 ? link_ok(link) : PF_NVML_ERROR_INVALID_ARGUMENT;

	if (r != PF_NVML_SUCCESS)
		return r;
	if (pf_fake.link_err_ret)
		return pf_fake.link_err_ret;
	if (c >= 4) {
		*v = 0; /* NVML_NVLINK_ERROR_DL_ECC_DATA: not judged */
		return PF_NVML_SUCCESS;
	}
	if (link == 0 && (!pf_fake.link_err_step_mask || (pf_fake.link_err_step_mask & (1u << c))))
		pf_fake.link_err[nvml_index(d)][0][c] += pf_fake.link_err_step;
	*v = pf_fake.link_err[nvml_index(d)][link][c];
	return PF_NVML_SUCCESS;
}

/*
 * nvmlDeviceGetFieldValues as nvml.h documents it: INVALID_ARGUMENT for a
 * NULL array (or a count below 1), then each field answered on its own
 * (nvmlReturn and valueType set per field).  Only the NVLink speed is known
 * here; another field answers NOT_SUPPORTED, as on a GPU without it.
 */
static pf_nvmlReturn_t f_nvmlDeviceGetFieldValues(pf_nvmlDevice_t d, int count,
						  struct pf_nvml_field_value *values)
{
	int i = nvml_index(d);

	if (!values || count < 1)
		return PF_NVML_ERROR_INVALID_ARGUMENT;
	for (int k = 0; k < count; k++) {
		struct pf_nvml_field_value *fv = &values[k];

		fv->timestamp = 1700000000000000LL;
		fv->latency_usec = 0;
		if (fv->field_id != PF_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON || !pf_fake.nvlinks) {
			fv->nvml_return = PF_NVML_ERROR_NOT_SUPPORTED;
			continue;
		}
		fv->nvml_return = pf_fake.nvlink_speed_ret[i];
		if (fv->nvml_return != PF_NVML_SUCCESS)
			continue;
		fv->value_type = PF_NVML_VALUE_TYPE_UNSIGNED_INT;
		fv->value.ui_val = pf_fake.nvlink_speed[i];
	}
	return PF_NVML_SUCCESS;
}

/*
 * nvmlDeviceGetGpuFabricInfoV as the driver answers: the version field
 * checked first (ARGUMENT_VERSION_MISMATCH for one it does not know), then
 * NOT_SUPPORTED on a GPU without a fabric, and a v2 caller's struct filled
 * only up to healthMask.
 */
static pf_nvmlReturn_t f_nvmlDeviceGetGpuFabricInfoV(pf_nvmlDevice_t d,
						     struct pf_nvml_gpu_fabric_info *info)
{
	int i = nvml_index(d);
	unsigned int want = info->version;
	struct pf_nvml_gpu_fabric_info v = pf_fake.fabric[i];

	if (want != PF_NVML_GPU_FABRIC_INFO_V3 && want != PF_NVML_GPU_FABRIC_INFO_V2)
		return PF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if ((want >> 24) > pf_fake.fabric_max_version)
		return PF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	if (pf_fake.fabric_rc[i] != PF_NVML_SUCCESS)
		return pf_fake.fabric_rc[i];
	v.version = want;
	if (want == PF_NVML_GPU_FABRIC_INFO_V2)
		memcpy(info, &v, offsetof(struct pf_nvml_gpu_fabric_info, health_summary));
	else
		*info = v;
	return PF_NVML_SUCCESS;
}

void pf_fake_gpu_fabric_healthy(void)
{
	for (int i = 0; i < PF_FAKE_MAX; i++) {
		struct pf_nvml_gpu_fabric_info *f = &pf_fake.fabric[i];

		pf_fake.fabric_rc[i] = PF_NVML_SUCCESS;
		pf_fake.fabric_handle[i] = 1;
		*f = (struct pf_nvml_gpu_fabric_info){
			.state = PF_NVML_GPU_FABRIC_STATE_COMPLETED,
			.status = PF_NVML_SUCCESS,
			.clique_id = 1,
			.health_mask = 0x1aa,
			.health_summary = PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY,
		};
		for (int k = 0; k < PF_NVML_GPU_FABRIC_UUID_LEN; k++)
			f->cluster_uuid[k] = (unsigned char)(0x10 + k);
	}
}

static const struct pf_nvml_table fake_nvml = {
	.nvmlInit = f_nvmlInit,
	.nvmlShutdown = f_nvmlShutdown,
	.nvmlErrorString = f_nvmlErrorString,
	.nvmlSystemGetDriverVersion = f_nvmlSystemGetDriverVersion,
	.nvmlDeviceGetCount = f_nvmlDeviceGetCount,
	.nvmlDeviceGetHandleByIndex = f_nvmlDeviceGetHandleByIndex,
	.nvmlDeviceGetPciInfo = f_nvmlDeviceGetPciInfo,
	.nvmlDeviceGetPersistenceMode = f_nvmlDeviceGetPersistenceMode,
	.nvmlDeviceGetRetiredPages = f_nvmlDeviceGetRetiredPages,
	.nvmlDeviceGetRetiredPagesPendingStatus = f_nvmlDeviceGetRetiredPagesPendingStatus,
	.nvmlDeviceGetRemappedRows = f_nvmlDeviceGetRemappedRows,
	.nvmlDeviceGetCurrentClocksEventReasons = f_nvmlDeviceGetCurrentClocksEventReasons,
	.nvmlDeviceGetTemperature = f_nvmlDeviceGetTemperature,
	.nvmlDeviceGetTemperatureThreshold = f_nvmlDeviceGetTemperatureThreshold,
	.nvmlDeviceGetPowerManagementLimit = f_nvmlDeviceGetPowerManagementLimit,
	.nvmlDeviceGetPowerManagementDefaultLimit = f_nvmlDeviceGetPowerManagementDefaultLimit,
	.nvmlDeviceGetTotalEccErrors = f_nvmlDeviceGetTotalEccErrors,
	.nvmlDeviceGetPcieReplayCounter = f_nvmlDeviceGetPcieReplayCounter,
	.nvmlDeviceGetArchitecture = f_nvmlDeviceGetArchitecture,
	.nvmlDeviceGetNvLinkState = f_nvmlDeviceGetNvLinkState,
	.nvmlDeviceGetNvLinkErrorCounter = f_nvmlDeviceGetNvLinkErrorCounter,
	.nvmlDeviceGetFieldValues = f_nvmlDeviceGetFieldValues,
	.nvmlDeviceGetGpuFabricInfoV = f_nvmlDeviceGetGpuFabricInfoV,
};

/* The provider */

static int load_err(int r, const char *lib, char **ret_err)
{
	*ret_err = pf_xasprintf("%s not found: install the fake driver (test)", lib);
	return r;
}

static int fake_cuda_load(const struct pf_ctx *ctx, const struct pf_cuda_table **ret,
			  char **ret_err)
{
	if (pf_fake.cuda_load)
		return load_err(pf_fake.cuda_load, "libcuda.so.1", ret_err);
	*ret = &fake_cuda;
	return 0;
}

static int fake_nvml_load(const struct pf_ctx *ctx, const struct pf_nvml_table **ret,
			  char **ret_err)
{
	static struct pf_nvml_table old_driver;

	if (pf_fake.nvml_load)
		return load_err(pf_fake.nvml_load, "libnvidia-ml.so.1", ret_err);
	if (pf_fake.no_fabric_sym || pf_fake.no_field_values_sym) {
		old_driver = fake_nvml;
		if (pf_fake.no_fabric_sym)
			old_driver.nvmlDeviceGetGpuFabricInfoV = NULL;
		if (pf_fake.no_field_values_sym)
			old_driver.nvmlDeviceGetFieldValues = NULL;
		*ret = &old_driver;
		return 0;
	}
	*ret = &fake_nvml;
	return 0;
}

static int fake_nccl_load(const struct pf_ctx *ctx, const struct pf_nccl_table **ret,
			  char **ret_err)
{
	if (pf_fake.nccl_load)
		return load_err(pf_fake.nccl_load, "libnccl.so.2", ret_err);
	*ret = &fake_nccl;
	return 0;
}

static int fake_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	if (!pf_fake.kmsg) {
		*ret_err = pf_xstrdup("reading the kernel log (/dev/kmsg) needs root or CAP_SYSLOG");
		return -EPERM;
	}
	*ret_text = pf_xstrdup(pf_fake.kmsg);
	return 0;
}

static int fake_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	if (pf_fake.verbs_dmabuf < 0)
		*ret_err = pf_xstrdup("libibverbs.so.1 not found: install rdma-core");
	return pf_fake.verbs_dmabuf;
}

const struct pf_gpu_provider pf_fake_gpu_provider = {
	.cuda = fake_cuda_load,
	.nvml = fake_nvml_load,
	.nccl = fake_nccl_load,
	.kmsg = fake_kmsg,
	.verbs_dmabuf = fake_verbs_dmabuf,
	/* the live implementation, running over the fake CUDA table */
	.cuda_dmabuf = pf_gpu_live_cuda_dmabuf,
	.cuda_gdr = pf_gpu_live_cuda_gdr,
	.nccl_version = pf_gpu_live_nccl_version,
	/* the live implementations over the fake NVML table */
	.nvml_health = pf_gpu_live_nvml_health,
	.nvml_nvlink = pf_gpu_live_nvml_nvlink,
	.gpu_fabric = pf_gpu_live_fabric, /* over the fake NVML table */
	.cuda_fabric_handle = pf_gpu_live_fabric_handle, /* over the fake CUDA table */
};

const struct pf_providers *pf_fake_providers(void)
{
	static struct pf_providers p;

	p = pf_providers_recorded;
	p.name = "fake";
	p.gpu = &pf_fake_gpu_provider;
	return &p;
}

void pf_fake_node_init(struct pf_fake_node *fn, int n_gpus, const char *const *bdfs, int n_rdma)
{
	memset(fn, 0, sizeof(*fn));
	fn->node.source = "test";
	for (int i = 0; i < n_gpus && i < PF_FAKE_MAX; i++) {
		struct pf_pci_dev *p = &fn->pci[i];

		snprintf(p->bdf, sizeof(p->bdf), "%s", bdfs[i]);
		snprintf(fn->path[i], sizeof(fn->path[i]), "/sys/devices/pci0000:00/%s", bdfs[i]);
		p->path = fn->path[i];
		p->vendor = PF_PCI_VENDOR_NVIDIA;
		p->device = 0x2330;
		p->class = 0x030200;
		p->numa_node = 0;
		p->parent = -1;
		fn->gpus[i].pci = i;
	}
	for (int i = 0; i < n_rdma && i < 4; i++) {
		fn->rdma[i].name = (char *)"mlx5_x";
		fn->rdma[i].pci = -1;
	}
	fn->node.pci = fn->pci;
	fn->node.n_pci = (size_t)n_gpus;
	fn->node.gpus = fn->gpus;
	fn->node.n_gpus = (size_t)n_gpus;
	fn->node.rdma = fn->rdma;
	fn->node.n_rdma = (size_t)n_rdma;
}

struct pf_fake_fix *pf_fake_fix_new(void)
{
	struct pf_fake_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->root = pf_test_mkdtemp();
	return f;
}

int pf_fake_fix_teardown(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_result_release(&f->res);
	pf_test_rmtree(f->root);
	free(f->root);
	free(f);
	return 0;
}

bool pf_test_result_mentions(const struct pf_result *res, const char *needle)
{
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct pf_finding *f = &res->findings[i];

		if ((f->message && strstr(f->message, needle)) ||
		    (f->remedy && strstr(f->remedy, needle)))
			return true;
	}
	return false;
}
