// SPDX-License-Identifier: MIT
/*
 * dl_cuda.c - the CUDA driver API (libcuda.so.1) symbol table and helpers.
 *
 * The driver library is used rather than libcudart: it is present wherever
 * the NVIDIA driver is, its ABI is stable, and it needs no toolkit.  Symbols
 * are the ABI names behind cuda.h's macros (cuMemAlloc -> cuMemAlloc_v2);
 * cuEventElapsedTime_v2 (CUDA 12.8+) falls back to cuEventElapsedTime.
 */
#include <pthread.h>
#include <string.h>

#include "preflight/gpu.h"
#include "preflight/parse.h"
#include "dl_once.h"

#define SYM(field, names) { names "\0", offsetof(struct pf_cuda_table, field), false }
#define OPT(field, names) { names "\0", offsetof(struct pf_cuda_table, field), true }

static const struct pf_dl_sym cuda_syms[] = {
	SYM(cuInit, "cuInit"),
	SYM(cuDriverGetVersion, "cuDriverGetVersion"),
	SYM(cuDeviceGetCount, "cuDeviceGetCount"),
	SYM(cuDeviceGet, "cuDeviceGet"),
	SYM(cuDeviceGetName, "cuDeviceGetName"),
	SYM(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
	SYM(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
	SYM(cuDeviceTotalMem, "cuDeviceTotalMem_v2"),
	SYM(cuGetErrorString, "cuGetErrorString"),
	SYM(cuGetErrorName, "cuGetErrorName"),
	SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	SYM(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	SYM(cuCtxSetCurrent, "cuCtxSetCurrent"),
	SYM(cuMemAlloc, "cuMemAlloc_v2"),
	SYM(cuMemFree, "cuMemFree_v2"),
	SYM(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
	SYM(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
	SYM(cuMemsetD32, "cuMemsetD32_v2"),
	SYM(cuStreamCreate, "cuStreamCreate"),
	SYM(cuStreamDestroy, "cuStreamDestroy_v2"),
	SYM(cuStreamSynchronize, "cuStreamSynchronize"),
	SYM(cuEventCreate, "cuEventCreate"),
	SYM(cuEventDestroy, "cuEventDestroy_v2"),
	SYM(cuEventRecord, "cuEventRecord"),
	SYM(cuEventSynchronize, "cuEventSynchronize"),
	SYM(cuEventElapsedTime, "cuEventElapsedTime_v2\0cuEventElapsedTime"),
	OPT(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity"),
	OPT(cuMemCreate, "cuMemCreate"),
	OPT(cuMemRelease, "cuMemRelease"),
	OPT(cuMemExportToShareableHandle, "cuMemExportToShareableHandle"),
	OPT(cuMemImportFromShareableHandle, "cuMemImportFromShareableHandle"),
};

const struct pf_dl_lib pf_dl_cuda_lib = {
	.soname = "libcuda.so.1",
	.env = "PF_CUDA_PATH",
	.install = "install the NVIDIA driver (it ships libcuda.so.1)",
	.syms = cuda_syms,
	.n_syms = PF_ARRAY_SIZE(cuda_syms),
	.table_size = sizeof(struct pf_cuda_table),
};

static struct pf_cuda_table cuda_table;

static int cuda_load(void *table, char **ret_err)
{
	return pf_dl_load(&pf_dl_cuda_lib, table, ret_err);
}

static struct pf_dl_once cuda_once = PF_DL_ONCE(cuda_load, &cuda_table);

int pf_dl_cuda(const struct pf_cuda_table **ret, char **ret_err)
{
	int r = pf_dl_once(&cuda_once, ret_err);

	if (r == 0)
		*ret = &cuda_table;
	return r;
}

const char *pf_cuda_strerror(const struct pf_cuda_table *cu, pf_CUresult r, char *buf, size_t len)
{
	const char *name = NULL, *text = NULL;

	if (cu && cu->cuGetErrorName && cu->cuGetErrorName(r, &name) != PF_CUDA_SUCCESS)
		name = NULL;
	if (cu && cu->cuGetErrorString && cu->cuGetErrorString(r, &text) != PF_CUDA_SUCCESS)
		text = NULL;
	if (name && text)
		snprintf(buf, len, "%s (%s)", name, text);
	else if (name || text)
		snprintf(buf, len, "%s", name ? name : text);
	else
		snprintf(buf, len, "CUDA error %u", r);
	return buf;
}

int pf_cuda_device_bdf(const struct pf_cuda_table *cu, pf_CUdevice dev, char bdf[16])
{
	char raw[64] = "";

	if (cu->cuDeviceGetPCIBusId(raw, (int)sizeof(raw) - 1, dev) != PF_CUDA_SUCCESS)
		return -EIO;
	return pf_bdf_normalize(raw, bdf);
}

int pf_cuda_devices(const struct pf_cuda_table *cu, char (**ret_bdfs)[16], pf_CUresult *ret_cu_err)
{
	pf_autofree char (*bdfs)[16] = NULL;
	pf_CUresult r;
	int n = 0;

	r = cu->cuInit(0);
	if (r == PF_CUDA_SUCCESS)
		r = cu->cuDeviceGetCount(&n);
	if (r != PF_CUDA_SUCCESS) {
		*ret_cu_err = r;
		return -EIO;
	}
	bdfs = pf_xcalloc(n > 0 ? (size_t)n : 1, sizeof(*bdfs));
	for (int i = 0; i < n; i++) {
		pf_CUdevice dev;

		r = cu->cuDeviceGet(&dev, i);
		if (r != PF_CUDA_SUCCESS) {
			*ret_cu_err = r;
			return -EIO;
		}
		if (pf_cuda_device_bdf(cu, dev, bdfs[i]) < 0)
			snprintf(bdfs[i], sizeof(bdfs[i]), "cuda%d", i);
	}
	*ret_bdfs = PF_TAKE_PTR(bdfs);
	return n;
}
