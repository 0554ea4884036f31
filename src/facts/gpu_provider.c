// SPDX-License-Identifier: MIT
/*
 * gpu_provider.c - the live and recorded GPU providers: what checks see through
 * ctx->prov->gpu, over the tables of src/wrap/dl_cuda.c, dl_nvml.c and dl_nccl.c.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "preflight/gpu_provider.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/verbs_api.h"

/* Live: read /dev/kmsg record by record until it would block. */
int pf_gpu_live_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	pf_autoclose int fd = -1;
	pf_autofree char *buf = NULL;
	size_t len = 0, cap = 0;

	fd = pf_fs_open_file(ctx->fs, "/dev/kmsg", O_NONBLOCK);
	if (fd < 0) {
		if (fd == -EPERM || fd == -EACCES)
			*ret_err = pf_xstrdup("reading the kernel log (/dev/kmsg) needs root or "
					      "CAP_SYSLOG (kernel.dmesg_restrict=1)");
		else
			*ret_err = pf_xasprintf("cannot open /dev/kmsg: %s", strerror(-fd));
		return fd;
	}
	for (;;) {
		ssize_t n;

		if (len + 8192 + 1 > cap) {
			if (cap >= (16u << 20))
				break; /* the ring buffer is never this large; stop anyway */
			cap = cap ? cap * 2 : 65536;
			buf = pf_xrealloc(buf, cap);
		}
		n = read(fd, buf + len, 8192);
		if (n < 0) {
			if (errno == EINTR || errno == EPIPE)
				continue; /* EPIPE: a record was overwritten under us */
			if (errno == EAGAIN)
				break;
			if (errno == EPERM || errno == EACCES) {
				*ret_err = pf_xstrdup("reading the kernel log (/dev/kmsg) needs root "
						      "or CAP_SYSLOG (kernel.dmesg_restrict=1)");
				return -errno;
			}
			*ret_err = pf_xasprintf("cannot read /dev/kmsg: %s", strerror(errno));
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (!buf)
		buf = pf_xstrdup("");
	buf[len] = '\0';
	*ret_text = PF_TAKE_PTR(buf);
	return 0;
}

static int recorded_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	int r = pf_fs_read_full(ctx->fs, "/preflight/kmsg", 16u << 20, ret_text, NULL);

	if (r < 0)
		*ret_err = r == -ENOENT ? pf_xstrdup("the kernel log was not recorded "
						     "(<root>/preflight/kmsg)")
					: pf_xasprintf("cannot read <root>/preflight/kmsg: %s",
						       strerror(-r));
	return r;
}

/* The verbs table of ctx->prov (the live loader without one), then NCCL's probe. */
int pf_gpu_live_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	const struct pf_verbs_api *api = NULL;
	char *why = NULL;
	int r;

	r = ctx && ctx->prov ? ctx->prov->verbs(ctx, &api, ret_err) : pf_dl_verbs(&api, ret_err);
	if (r < 0)
		return r == -ENOSYS ? r : -ENOENT;
	r = pf_verbs_probe_dmabuf(api, &why);
	if (r < 0) {
		*ret_err = why;
		return r;
	}
	free(why); /* the check names the cause from the facts it reports */
	return r;
}

static int recorded_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	uint64_t v;
	int r = pf_fs_read_u64(ctx->fs, "/preflight/ibverbs/reg_dmabuf_mr", &v);

	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xstrdup("not recorded "
						     "(<root>/preflight/ibverbs/reg_dmabuf_mr)")
					: pf_xasprintf("cannot read <root>/preflight/ibverbs/"
						       "reg_dmabuf_mr: %s", strerror(-r));
		return r;
	}
	return v ? 1 : 0;
}

static int live_cuda_attr(const struct pf_ctx *ctx, const char *bdf, int attr,
			  const char *attr_name, char **ret_err)
{
	const struct pf_cuda_table *cu;
	pf_autofree char (*bdfs)[16] = NULL;
	pf_CUresult cr;
	char msg[160];
	int n, r, v;

	if (!ctx->prov) {
		*ret_err = pf_xstrdup("no GPU provider");
		return -ENODEV;
	}
	r = ctx->prov->gpu->cuda(ctx, &cu, ret_err);
	if (r < 0)
		return r;
	n = pf_cuda_devices(cu, &bdfs, &cr);
	if (n < 0) {
		*ret_err = pf_xasprintf("cuInit: %s", pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
		return n;
	}
	for (int i = 0; i < n; i++) {
		pf_CUdevice dev;

		if (strcmp(bdfs[i], bdf))
			continue;
		cr = cu->cuDeviceGet(&dev, i);
		if (cr == PF_CUDA_SUCCESS)
			cr = cu->cuDeviceGetAttribute(&v, attr, dev);
		if (cr != PF_CUDA_SUCCESS) {
			*ret_err = pf_xasprintf("cuDeviceGetAttribute(%s): %s", attr_name,
						pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
			return -EIO;
		}
		return v ? 1 : 0;
	}
	*ret_err = pf_xasprintf("%s is not visible to CUDA", bdf);
	return -ENODEV;
}

int pf_gpu_live_cuda_dmabuf(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return live_cuda_attr(ctx, bdf, PF_CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED,
			      "DMA_BUF_SUPPORTED", ret_err);
}

int pf_gpu_live_cuda_gdr(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return live_cuda_attr(ctx, bdf, PF_CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED,
			      "GPU_DIRECT_RDMA_SUPPORTED", ret_err);
}

/* Live: ncclGetVersion() of the NCCL table of ctx's GPU provider. */
int pf_gpu_live_nccl_version(const struct pf_ctx *ctx, char **ret_err)
{
	const struct pf_nccl_table *nc;
	pf_ncclResult_t nr;
	int r, v = 0;

	if (!ctx->prov) {
		*ret_err = pf_xstrdup("no GPU provider");
		return -ENODEV;
	}
	r = ctx->prov->gpu->nccl(ctx, &nc, ret_err);
	if (r < 0)
		return r;
	nr = nc->ncclGetVersion(&v);
	if (nr != PF_NCCL_SUCCESS) {
		*ret_err = pf_xasprintf("ncclGetVersion: %s", nc->ncclGetErrorString(nr));
		return -EIO;
	}
	if (v <= 0) {
		*ret_err = pf_xasprintf("ncclGetVersion gave %d", v);
		return -EINVAL;
	}
	return v;
}

/* Recorded: <root>/preflight/nccl/version, the code ncclGetVersion() gave. */
static int recorded_nccl_version(const struct pf_ctx *ctx, char **ret_err)
{
	uint64_t v;
	int r = pf_fs_read_u64(ctx->fs, "/preflight/nccl/version", &v);

	if (r >= 0 && (v == 0 || v > INT_MAX))
		r = -EINVAL;
	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xstrdup("not recorded (<root>/preflight/nccl/version)")
					: pf_xasprintf("cannot read <root>/preflight/nccl/version: "
						       "%s", strerror(-r));
		return r;
	}
	return (int)v;
}

/*
 * <root>/preflight/cuda/<file>: lines "<bdf> <0|1>"; a line with only a
 * value applies to every GPU.
 */
static int recorded_cuda_attr(const struct pf_ctx *ctx, const char *file, const char *bdf,
			      char **ret_err)
{
	pf_autofree char *text = NULL;
	char *save = NULL, path[64];
	int r, all = -1;

	snprintf(path, sizeof(path), "/preflight/cuda/%s", file);

	r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);
	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xasprintf("not recorded (<root>%s)", path)
					: pf_xasprintf("cannot read <root>%s: %s", path,
						       strerror(-r));
		return r;
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char a[64], b[16], norm[16];
		int k = sscanf(line, "%63s %15s", a, b);

		if (k == 1 && (!strcmp(a, "0") || !strcmp(a, "1")))
			all = a[0] - '0';
		else if (k == 2 && pf_bdf_normalize(a, norm) == 0 && !strcmp(norm, bdf) &&
			 (!strcmp(b, "0") || !strcmp(b, "1")))
			return b[0] - '0';
	}
	if (all >= 0)
		return all;
	*ret_err = pf_xasprintf("%s not listed in <root>%s", bdf, path);
	return -ENOENT;
}

static int recorded_cuda_dmabuf(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return recorded_cuda_attr(ctx, "dmabuf_supported", bdf, ret_err);
}

static int recorded_cuda_gdr(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return recorded_cuda_attr(ctx, "gdr_supported", bdf, ret_err);
}

static int recorded_cuda(const struct pf_ctx *ctx, const struct pf_cuda_table **ret, char **ret_err)
{
	*ret_err = pf_xstrdup("CUDA is only queried on the live node, not under a recorded root");
	return -ENOMEDIUM;
}

static int recorded_nvml(const struct pf_ctx *ctx, const struct pf_nvml_table **ret, char **ret_err)
{
	*ret_err = pf_xstrdup("NVML is only queried on the live node, not under a recorded root");
	return -ENOMEDIUM;
}

static int recorded_nccl(const struct pf_ctx *ctx, const struct pf_nccl_table **ret, char **ret_err)
{
	*ret_err = pf_xstrdup("NCCL only runs on the live node, not under a recorded root");
	return -ENOMEDIUM;
}

static int live_cuda(const struct pf_ctx *ctx, const struct pf_cuda_table **ret, char **ret_err)
{
	return pf_dl_cuda(ret, ret_err);
}

static int live_nvml(const struct pf_ctx *ctx, const struct pf_nvml_table **ret, char **ret_err)
{
	return pf_dl_nvml(ret, ret_err);
}

static int live_nccl(const struct pf_ctx *ctx, const struct pf_nccl_table **ret, char **ret_err)
{
	return pf_dl_nccl(ret, ret_err);
}

const struct pf_gpu_provider pf_gpu_live = {
	.cuda = live_cuda,
	.nvml = live_nvml,
	.nccl = live_nccl,
	.kmsg = pf_gpu_live_kmsg,
	.verbs_dmabuf = pf_gpu_live_verbs_dmabuf,
	.cuda_dmabuf = pf_gpu_live_cuda_dmabuf,
	.cuda_gdr = pf_gpu_live_cuda_gdr,
	.nccl_version = pf_gpu_live_nccl_version,
	.nvml_health = pf_gpu_live_nvml_health,
	.nvml_nvlink = pf_gpu_live_nvml_nvlink,
	.gpu_fabric = pf_gpu_live_fabric,
	.cuda_fabric_handle = pf_gpu_live_fabric_handle,
};

const struct pf_gpu_provider pf_gpu_recorded = {
	.cuda = recorded_cuda,
	.nvml = recorded_nvml,
	.nccl = recorded_nccl,
	.kmsg = recorded_kmsg,
	.verbs_dmabuf = recorded_verbs_dmabuf,
	.cuda_dmabuf = recorded_cuda_dmabuf,
	.cuda_gdr = recorded_cuda_gdr,
	.nccl_version = recorded_nccl_version,
	.nvml_health = pf_gpu_recorded_nvml_health,
	.nvml_nvlink = pf_gpu_recorded_nvml_nvlink,
	.gpu_fabric = pf_gpu_recorded_fabric,
	.cuda_fabric_handle = pf_gpu_recorded_fabric_handle,
};

static int none_table(char **ret_err)
{
	*ret_err = pf_xstrdup("no GPU provider");
	return -ENOSYS;
}

static int none_cuda(const struct pf_ctx *ctx, const struct pf_cuda_table **ret, char **ret_err)
{
	return none_table(ret_err);
}

static int none_nvml(const struct pf_ctx *ctx, const struct pf_nvml_table **ret, char **ret_err)
{
	return none_table(ret_err);
}

static int none_nccl(const struct pf_ctx *ctx, const struct pf_nccl_table **ret, char **ret_err)
{
	return none_table(ret_err);
}

static int none_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	return none_table(ret_err);
}

static int none_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	return none_table(ret_err);
}

static int none_cuda_attr(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return none_table(ret_err);
}

static int none_nccl_version(const struct pf_ctx *ctx, char **ret_err)
{
	return none_table(ret_err);
}

/* gpu_health, nvlink_links */
static int none_nvml_health(const struct pf_ctx *ctx, const char *bdf, struct pf_nvml_health *ret,
			    char **ret_err)
{
	return none_table(ret_err);
}

static int none_nvml_nvlink(const struct pf_ctx *ctx, const char *bdf, struct pf_nvml_nvlink *ret,
			    char **ret_err)
{
	return none_table(ret_err);
}

static int none_gpu_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
			   char **ret_err)
{
	return none_table(ret_err);
}

const struct pf_gpu_provider pf_gpu_none = {
	.cuda = none_cuda,
	.nvml = none_nvml,
	.nccl = none_nccl,
	.kmsg = none_kmsg,
	.verbs_dmabuf = none_verbs_dmabuf,
	.cuda_dmabuf = none_cuda_attr,
	.cuda_gdr = none_cuda_attr,
	.nccl_version = none_nccl_version,
	.nvml_health = none_nvml_health,
	.nvml_nvlink = none_nvml_nvlink,
	.gpu_fabric = none_gpu_fabric,
	.cuda_fabric_handle = none_cuda_attr,
};
