// SPDX-License-Identifier: MIT
/*
 * gpu_fabric.c - the GPU provider's NVLink fabric fact (gpu_fabric), live
 * through NVML and recorded from <root>/preflight/nvml/gpu_fabric.
 *
 * Live, nvmlDeviceGetGpuFabricInfoV is asked with nvmlGpuFabricInfo_v3 (the
 * health summary); a driver that predates v3 answers
 * NVML_ERROR_ARGUMENT_VERSION_MISMATCH and is asked with v2.  A GPU without
 * an NVLink fabric (PCIe cards, HGX before Hopper) answers
 * NVML_ERROR_NOT_SUPPORTED, which is a fact (supported = false), not an
 * error.
 */
#include <string.h>

#include "preflight/gpu_provider.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

/* NVML's handle of the GPU at @bdf: 0, or -ENODEV when NVML does not list it. */
static int nvml_find(const struct pf_nvml_table *nv, const char *bdf, pf_nvmlDevice_t *ret)
{
	unsigned int n = 0;

	if (nv->nvmlDeviceGetCount(&n) != PF_NVML_SUCCESS)
		return -EIO;
	for (unsigned int i = 0; i < n; i++) {
		union pf_nvml_pci_info_buf pci;
		pf_nvmlDevice_t dev;
		char norm[16];

		memset(&pci, 0, sizeof(pci));
		if (nv->nvmlDeviceGetHandleByIndex(i, &dev) != PF_NVML_SUCCESS ||
		    nv->nvmlDeviceGetPciInfo(dev, &pci.info) != PF_NVML_SUCCESS)
			continue;
		pci.info.bus_id[sizeof(pci.info.bus_id) - 1] = '\0';
		if (pf_bdf_normalize(pci.info.bus_id, norm) == 0 && !strcmp(norm, bdf)) {
			*ret = dev;
			return 0;
		}
	}
	return -ENODEV;
}

/* The call itself, v3 then v2: NVML's return code. */
static pf_nvmlReturn_t fabric_info(const struct pf_nvml_table *nv, pf_nvmlDevice_t dev,
				   struct pf_nvml_gpu_fabric_info *info)
{
	pf_nvmlReturn_t r;

	*info = (struct pf_nvml_gpu_fabric_info){ .version = PF_NVML_GPU_FABRIC_INFO_V3 };
	r = nv->nvmlDeviceGetGpuFabricInfoV(dev, info);
	if (r == PF_NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
		*info = (struct pf_nvml_gpu_fabric_info){ .version = PF_NVML_GPU_FABRIC_INFO_V2 };
		r = nv->nvmlDeviceGetGpuFabricInfoV(dev, info);
	}
	return r;
}

static int query(const struct pf_nvml_table *nv, const char *bdf, struct pf_gpu_fabric *ret,
		 char **ret_err)
{
	struct pf_nvml_gpu_fabric_info info;
	pf_nvmlDevice_t dev;
	pf_nvmlReturn_t nr;
	char msg[128];
	int r = nvml_find(nv, bdf, &dev);

	if (r < 0) {
		*ret_err = r == -ENODEV ? pf_xasprintf("NVML does not list %s", bdf)
					: pf_xstrdup("nvmlDeviceGetCount failed");
		return r;
	}
	nr = fabric_info(nv, dev, &info);
	if (nr == PF_NVML_ERROR_NOT_SUPPORTED) {
		*ret = (struct pf_gpu_fabric){ .supported = false };
		return 0;
	}
	if (nr != PF_NVML_SUCCESS) {
		*ret_err = pf_xasprintf("nvmlDeviceGetGpuFabricInfoV: %s",
					pf_nvml_strerror(nv, nr, msg, sizeof(msg)));
		return -EIO;
	}
	*ret = (struct pf_gpu_fabric){
		.supported = true,
		.version = info.version >> 24,
		.state = info.state,
		.status = info.status,
		.clique_id = info.clique_id,
		.health_mask = info.health_mask,
		.health_summary = (info.version >> 24) >= 3 ? info.health_summary : 0,
	};
	memcpy(ret->cluster_uuid, info.cluster_uuid, sizeof(ret->cluster_uuid));
	return 0;
}

int pf_gpu_live_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
		       char **ret_err)
{
	const struct pf_nvml_table *nv;
	pf_nvmlReturn_t nr;
	char msg[128];
	int r;

	if (!ctx->prov) {
		*ret_err = pf_xstrdup("no GPU provider");
		return -ENODEV;
	}
	r = ctx->prov->gpu->nvml(ctx, &nv, ret_err);
	if (r < 0)
		return r;
	if (!nv->nvmlDeviceGetGpuFabricInfoV) {
		*ret_err = pf_xstrdup("this driver's NVML has no nvmlDeviceGetGpuFabricInfoV "
				      "(drivers before 535)");
		return -ENOSYS;
	}
	nr = nv->nvmlInit();
	if (nr != PF_NVML_SUCCESS) {
		*ret_err = pf_xasprintf("nvmlInit: %s", pf_nvml_strerror(nv, nr, msg, sizeof(msg)));
		return -EIO;
	}
	r = query(nv, bdf, ret, ret_err);
	nv->nvmlShutdown();
	return r;
}

int pf_gpu_recorded_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
			   char **ret_err)
{
	static const char path[] = "/preflight/nvml/gpu_fabric";
	pf_autofree char *text = NULL;
	int r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);

	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xasprintf("not recorded (<root>%s)", path)
					: pf_xasprintf("cannot read <root>%s: %s", path, strerror(-r));
		return r;
	}
	r = pf_parse_gpu_fabric(text, bdf, ret);
	if (r == -ENOENT)
		*ret_err = pf_xasprintf("%s not listed in <root>%s", bdf, path);
	else if (r < 0)
		*ret_err = pf_xasprintf("malformed line for %s in <root>%s", bdf, path);
	return r;
}

/*
 * The fabric-handle probe: a device allocation of one granule requested
 * with CU_MEM_HANDLE_TYPE_FABRIC, exported to a CUmemFabricHandle and
 * imported back, as NCCL does before it trusts multi-node NVLink.  Each
 * handle made is released; the primary context is released at the end.
 */
static int fabric_probe(const struct pf_cuda_table *cu, pf_CUdevice dev, char **ret_err)
{
	struct pf_cu_mem_allocation_prop prop = {
		.type = PF_CU_MEM_ALLOCATION_TYPE_PINNED,
		.requested_handle_types = PF_CU_MEM_HANDLE_TYPE_FABRIC,
		.location = { .type = PF_CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
	};
	struct pf_cu_mem_fabric_handle fh = { { 0 } };
	pf_CUmemGenericAllocationHandle h = 0, back = 0;
	const char *call = "cuMemGetAllocationGranularity";
	size_t gran = 0;
	char msg[160];
	pf_CUresult cr;

	cr = cu->cuMemGetAllocationGranularity(&gran, &prop, PF_CU_MEM_ALLOC_GRANULARITY_MINIMUM);
	if (cr == PF_CUDA_SUCCESS) {
		call = "cuMemCreate(CU_MEM_HANDLE_TYPE_FABRIC)";
		cr = cu->cuMemCreate(&h, gran ? gran : (size_t)2 << 20, &prop, 0);
	}
	if (cr == PF_CUDA_SUCCESS) {
		call = "cuMemExportToShareableHandle(CU_MEM_HANDLE_TYPE_FABRIC)";
		cr = cu->cuMemExportToShareableHandle(&fh, h, PF_CU_MEM_HANDLE_TYPE_FABRIC, 0);
		if (cr == PF_CUDA_SUCCESS) {
			call = "cuMemImportFromShareableHandle(CU_MEM_HANDLE_TYPE_FABRIC)";
			cr = cu->cuMemImportFromShareableHandle(&back, &fh,
								PF_CU_MEM_HANDLE_TYPE_FABRIC);
			if (cr == PF_CUDA_SUCCESS)
				cu->cuMemRelease(back);
		}
		cu->cuMemRelease(h);
	}
	if (cr != PF_CUDA_SUCCESS) {
		*ret_err = pf_xasprintf("%s: %s", call, pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
		return -EIO;
	}
	return 1;
}

int pf_gpu_live_fabric_handle(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	const struct pf_cuda_table *cu;
	pf_autofree char (*bdfs)[16] = NULL;
	pf_CUcontext cctx = NULL;
	pf_CUdevice dev;
	pf_CUresult cr;
	char msg[160];
	int i, n, r, v = 0;

	n = pf_gpu_cuda_list(ctx, &cu, &bdfs, ret_err);
	if (n < 0)
		return n;
	if (!cu->cuMemCreate || !cu->cuMemExportToShareableHandle ||
	    !cu->cuMemImportFromShareableHandle || !cu->cuMemRelease ||
	    !cu->cuMemGetAllocationGranularity) {
		*ret_err = pf_xstrdup("this driver's libcuda.so.1 has no cuMemCreate/fabric handle "
				      "calls");
		return -ENOSYS;
	}
	for (i = 0; i < n && strcmp(bdfs[i], bdf); i++)
		;
	if (i == n) {
		*ret_err = pf_xasprintf("%s is not visible to CUDA", bdf);
		return -ENODEV;
	}
	cr = cu->cuDeviceGet(&dev, i);
	if (cr == PF_CUDA_SUCCESS)
		cr = cu->cuDeviceGetAttribute(&v, PF_CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, dev);
	if (cr != PF_CUDA_SUCCESS) {
		*ret_err = pf_xasprintf("cuDeviceGetAttribute(HANDLE_TYPE_FABRIC_SUPPORTED): %s",
					pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
		return -EIO;
	}
	if (!v)
		return 0;
	cr = cu->cuDevicePrimaryCtxRetain(&cctx, dev);
	if (cr == PF_CUDA_SUCCESS)
		cr = cu->cuCtxSetCurrent(cctx);
	if (cr != PF_CUDA_SUCCESS) {
		*ret_err = pf_xasprintf("no CUDA context on %s: %s", bdf,
					pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
		if (cctx)
			cu->cuDevicePrimaryCtxRelease(dev);
		return -EIO;
	}
	r = fabric_probe(cu, dev, ret_err);
	cu->cuCtxSetCurrent(NULL);
	cu->cuDevicePrimaryCtxRelease(dev);
	return r;
}

/* <root>/preflight/cuda/fabric_handle: "<bdf> ok", "<bdf> unsupported", "<bdf> failed <why>". */
int pf_gpu_recorded_fabric_handle(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	static const char path[] = "/preflight/cuda/fabric_handle";
	pf_autofree char *text = NULL;
	char *save = NULL;
	int r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);

	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xasprintf("not recorded (<root>%s)", path)
					: pf_xasprintf("cannot read <root>%s: %s", path, strerror(-r));
		return r;
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[32], word[16], norm[16];
		int off = 0;

		if (sscanf(line, "%31s %15s %n", name, word, &off) < 2 ||
		    pf_bdf_normalize(name, norm) < 0 || strcmp(norm, bdf))
			continue;
		if (!strcmp(word, "ok"))
			return 1;
		if (!strcmp(word, "unsupported"))
			return 0;
		if (!strcmp(word, "failed")) {
			*ret_err = pf_xstrdup(line[off] ? line + off : "failed (no reason recorded)");
			return -EIO;
		}
		*ret_err = pf_xasprintf("malformed line for %s in <root>%s", bdf, path);
		return -EINVAL;
	}
	*ret_err = pf_xasprintf("%s not listed in <root>%s", bdf, path);
	return -ENOENT;
}
