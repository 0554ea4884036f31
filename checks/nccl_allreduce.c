// SPDX-License-Identifier: MIT
/*
 * nccl_allreduce - all-reduce bandwidth across the node's GPUs, like nccl-tests.
 *
 * One process drives every local GPU (ncclCommInitAll).  For each size from
 * min_bytes to max_bytes (doubling) it runs warm-up iterations, then times
 * `iters` float32 sum all-reduces with CUDA events on each GPU's stream and
 * takes the slowest GPU.  algbw = bytes / time; busbw = algbw * 2(n-1)/n,
 * the figure nccl-tests prints and the one compared with min_busbw_gbps at
 * the largest size.  The result is verified: every GPU holds 1 + 2 + ... + n.
 * Fewer than two GPUs: skip.  Streams and events come from the CUDA driver
 * API, so libcudart is not needed.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "preflight/providers.h"

#define MAX_GPUS 64
#define VERIFY_BYTES (1u << 20)

struct nccl_allreduce_cfg {
	uint64_t min_bytes, max_bytes;
	uint64_t iters, warmup;
	double min_busbw_gbps;
};

static const struct pf_param nccl_allreduce_params[] = {
	PF_PARAM_U64(struct nccl_allreduce_cfg, min_bytes, "8388608", 4, 68719476736.0, "bytes",
		     "smallest all-reduce size"),
	PF_PARAM_U64(struct nccl_allreduce_cfg, max_bytes, "1073741824", 4, 68719476736.0, "bytes",
		     "largest all-reduce size (judged against min_busbw_gbps); each GPU holds "
		     "twice this"),
	PF_PARAM_U64(struct nccl_allreduce_cfg, iters, "20", 1, 100000, "iterations",
		     "timed all-reduces per size"),
	PF_PARAM_U64(struct nccl_allreduce_cfg, warmup, "5", 0, 100000, "iterations",
		     "untimed all-reduces before each size"),
	PF_PARAM_DOUBLE(struct nccl_allreduce_cfg, min_busbw_gbps, "0", 0, 100000, "GB/s",
			"minimum bus bandwidth at max_bytes; 0 reports without judging"),
	PF_PARAM_END,
};

/* At profile time: the size sweep must run upwards. */
static int nccl_allreduce_validate(const void *config, char **ret_err)
{
	const struct nccl_allreduce_cfg *cfg = config;

	if (cfg->min_bytes > cfg->max_bytes)
		return pf_param_invalid(ret_err, "nccl_allreduce.min_bytes %llu is above "
					"nccl_allreduce.max_bytes %llu",
					(unsigned long long)cfg->min_bytes,
					(unsigned long long)cfg->max_bytes);
	return 0;
}

struct bench {
	const struct pf_cuda_table *cu;
	const struct pf_nccl_table *nc;
	int n;
	pf_CUdevice dev[MAX_GPUS];
	pf_CUcontext ctx[MAX_GPUS];
	pf_CUstream stream[MAX_GPUS];
	pf_CUevent start[MAX_GPUS], end[MAX_GPUS];
	pf_CUdeviceptr send[MAX_GPUS], recv[MAX_GPUS];
	pf_ncclComm_t comm[MAX_GPUS];
	bool retained[MAX_GPUS];
};

static void bench_release(struct bench *b)
{
	if (!b->cu)
		return;
	for (int i = 0; i < b->n; i++)
		if (b->comm[i] && b->nc)
			b->nc->ncclCommDestroy(b->comm[i]);
	for (int i = 0; i < b->n; i++) {
		if (!b->retained[i])
			continue;
		b->cu->cuCtxSetCurrent(b->ctx[i]);
		if (b->send[i])
			b->cu->cuMemFree(b->send[i]);
		if (b->recv[i])
			b->cu->cuMemFree(b->recv[i]);
		if (b->start[i])
			b->cu->cuEventDestroy(b->start[i]);
		if (b->end[i])
			b->cu->cuEventDestroy(b->end[i]);
		if (b->stream[i])
			b->cu->cuStreamDestroy(b->stream[i]);
		b->cu->cuDevicePrimaryCtxRelease(b->dev[i]);
	}
}

/* "8 MiB", "1 GiB", "4 KiB", "12 B". */
static const char *human_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	size_t u = 0;
	double d = (double)v;

	while (d >= 1024 && u + 1 < PF_ARRAY_SIZE(units)) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, d == (double)(uint64_t)d ? "%.0f %s" : "%.1f %s", d, units[u]);
	return buf;
}

/* Record a CUDA failure as the check's error; returns -EIO. */
static int cuda_fail(struct pf_result *res, const struct bench *b, const char *what, int gpu,
		     pf_CUresult r)
{
	char msg[200];

	pf_add(res, PF_STATUS_ERROR, "cuda", "%s on GPU %d: %s", what, gpu,
	       pf_cuda_strerror(b->cu, r, msg, sizeof(msg)));
	return -EIO;
}

static int nccl_fail(struct pf_result *res, const struct bench *b, const char *what,
		     pf_ncclResult_t r)
{
	char msg[200];
	struct pf_finding *f;

	f = pf_add(res, PF_STATUS_ERROR, "nccl", "%s: %s", what,
		   pf_nccl_strerror(b->nc, r, msg, sizeof(msg)));
	pf_remedy(f, "rerun with NCCL_DEBUG=INFO to see which transport failed");
	return -EIO;
}

#define CU(call, what, gpu)                                            \
	do {                                                           \
		pf_CUresult r_ = (call);                               \
		if (r_ != PF_CUDA_SUCCESS)                             \
			return cuda_fail(res, b, what, gpu, r_);       \
	} while (0)

static int bench_setup(struct bench *b, uint64_t max_bytes, struct pf_result *res)
{
	pf_ncclResult_t nr;

	for (int i = 0; i < b->n; i++) {
		float v = (float)(i + 1);
		unsigned int bits;

		memcpy(&bits, &v, sizeof(bits));
		CU(b->cu->cuDeviceGet(&b->dev[i], i), "cuDeviceGet", i);
		CU(b->cu->cuDevicePrimaryCtxRetain(&b->ctx[i], b->dev[i]), "cuDevicePrimaryCtxRetain", i);
		b->retained[i] = true;
		CU(b->cu->cuCtxSetCurrent(b->ctx[i]), "cuCtxSetCurrent", i);
		/* a blocking stream: it waits for the cuMemsetD32 calls below */
		CU(b->cu->cuStreamCreate(&b->stream[i], PF_CU_STREAM_DEFAULT), "cuStreamCreate", i);
		CU(b->cu->cuEventCreate(&b->start[i], PF_CU_EVENT_DEFAULT), "cuEventCreate", i);
		CU(b->cu->cuEventCreate(&b->end[i], PF_CU_EVENT_DEFAULT), "cuEventCreate", i);
		CU(b->cu->cuMemAlloc(&b->send[i], max_bytes), "cuMemAlloc (send buffer)", i);
		CU(b->cu->cuMemAlloc(&b->recv[i], max_bytes), "cuMemAlloc (receive buffer)", i);
		CU(b->cu->cuMemsetD32(b->send[i], bits, max_bytes / 4), "cuMemsetD32", i);
		CU(b->cu->cuMemsetD32(b->recv[i], 0, max_bytes / 4), "cuMemsetD32", i);
	}
	nr = b->nc->ncclCommInitAll(b->comm, b->n, NULL);
	if (nr != PF_NCCL_SUCCESS) {
		memset(b->comm, 0, sizeof(b->comm));
		return nccl_fail(res, b, "ncclCommInitAll", nr);
	}
	return 0;
}

static int allreduce_once(struct bench *b, size_t count, struct pf_result *res)
{
	pf_ncclResult_t nr = b->nc->ncclGroupStart();

	if (nr != PF_NCCL_SUCCESS)
		return nccl_fail(res, b, "ncclGroupStart", nr);
	for (int i = 0; i < b->n; i++) {
		nr = b->nc->ncclAllReduce((const void *)(uintptr_t)b->send[i],
					  (void *)(uintptr_t)b->recv[i], count, PF_NCCL_FLOAT32,
					  PF_NCCL_SUM, b->comm[i], b->stream[i]);
		if (nr != PF_NCCL_SUCCESS) {
			b->nc->ncclGroupEnd();
			return nccl_fail(res, b, "ncclAllReduce", nr);
		}
	}
	nr = b->nc->ncclGroupEnd();
	if (nr != PF_NCCL_SUCCESS)
		return nccl_fail(res, b, "ncclGroupEnd", nr);
	return 0;
}

/* Time @iters all-reduces of @bytes; the slowest GPU's mean per iteration into *ret_s. */
static int time_size(struct bench *b, uint64_t bytes, const struct nccl_allreduce_cfg *cfg,
		     double *ret_s, struct pf_result *res)
{
	size_t count = bytes / 4;
	float worst = 0;
	int r;

	for (uint64_t w = 0; w < cfg->warmup; w++)
		if ((r = allreduce_once(b, count, res)) < 0)
			return r;
	for (int i = 0; i < b->n; i++) {
		CU(b->cu->cuCtxSetCurrent(b->ctx[i]), "cuCtxSetCurrent", i);
		CU(b->cu->cuEventRecord(b->start[i], b->stream[i]), "cuEventRecord", i);
	}
	for (uint64_t it = 0; it < cfg->iters; it++)
		if ((r = allreduce_once(b, count, res)) < 0)
			return r;
	for (int i = 0; i < b->n; i++) {
		CU(b->cu->cuCtxSetCurrent(b->ctx[i]), "cuCtxSetCurrent", i);
		CU(b->cu->cuEventRecord(b->end[i], b->stream[i]), "cuEventRecord", i);
	}
	for (int i = 0; i < b->n; i++) {
		float ms = 0;

		CU(b->cu->cuCtxSetCurrent(b->ctx[i]), "cuCtxSetCurrent", i);
		CU(b->cu->cuEventSynchronize(b->end[i]), "cuEventSynchronize", i);
		CU(b->cu->cuEventElapsedTime(&ms, b->start[i], b->end[i]), "cuEventElapsedTime", i);
		if (ms > worst)
			worst = ms;
	}
	*ret_s = (double)worst / 1e3 / (double)cfg->iters;
	return 0;
}

/*
 * Check the head and tail of every GPU's result against 1 + ... + n.
 * Returns the number of wrong floats seen (0 good), or -EIO.
 */
static int verify(struct bench *b, uint64_t bytes, float *host, struct pf_result *res,
		  int *ret_gpu, float *ret_got)
{
	const float want = (float)b->n * (float)(b->n + 1) / 2;
	size_t chunk = bytes < VERIFY_BYTES ? bytes : VERIFY_BYTES;
	int bad = 0;

	chunk -= chunk % 4;
	for (int i = 0; i < b->n; i++) {
		uint64_t offs[2] = { 0, bytes - chunk };

		CU(b->cu->cuCtxSetCurrent(b->ctx[i]), "cuCtxSetCurrent", i);
		CU(b->cu->cuStreamSynchronize(b->stream[i]), "cuStreamSynchronize", i);
		for (size_t k = 0; k < 2; k++) {
			offs[k] -= offs[k] % 4;
			CU(b->cu->cuMemcpyDtoH(host, b->recv[i] + offs[k], chunk), "cuMemcpyDtoH", i);
			for (size_t j = 0; j < chunk / 4; j++) {
				if (host[j] == want)
					continue;
				if (!bad) {
					*ret_gpu = i;
					*ret_got = host[j];
				}
				bad++;
			}
		}
	}
	return bad;
}

/*
 * Plan: at least 2 NVIDIA GPUs on the bus (when the inventory says) and 2 CUDA
 * devices (at most MAX_GPUS are used), and NCCL loaded.  Returns 1 with @b's
 * tables and GPU count and @ver set, else what the run returns.
 */
static int open_libraries(const struct pf_ctx *ctx, struct bench *b, char *ver, size_t ver_len,
			  struct pf_result *res)
{
	pf_autofree char (*bdfs)[16] = NULL;
	pf_autofree char *err = NULL, *nerr = NULL;
	const struct pf_gpu_provider *gpu;
	const struct pf_cuda_table *cu;
	const struct pf_nccl_table *nc;
	struct pf_finding *f;
	pf_CUresult cr;
	int n, r, code = 0;

	if (!ctx->prov) {
		pf_add(res, PF_STATUS_ERROR, NULL, "no GPU provider");
		return -ENODEV;
	}
	gpu = ctx->prov->gpu;
	if (ctx->node) {
		size_t on_bus = 0;

		for (size_t i = 0; i < ctx->node->n_gpus; i++)
			if (ctx->node->pci[ctx->node->gpus[i].pci].vendor == PF_PCI_VENDOR_NVIDIA)
				on_bus++;
		if (on_bus < 2)
			return pf_skip(res, "%zu NVIDIA GPU%s on the PCI bus: an all-reduce needs at "
				       "least 2", on_bus, on_bus == 1 ? "" : "s");
	}
	r = gpu->cuda(ctx, &cu, &err);
	if (r == -ENOMEDIUM)
		return pf_skip(res, "the all-reduce only runs on the live node, not under a "
			       "recorded root");
	if (r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, "cuda", "%s", err);
		pf_remedy(f, "install the NVIDIA driver");
		return r;
	}
	b->cu = cu;
	n = pf_cuda_devices(cu, &bdfs, &cr);
	if (n < 0) {
		char msg[200];

		f = pf_add(res, PF_STATUS_ERROR, "cuda", "cuInit: %s",
			   pf_cuda_strerror(cu, cr, msg, sizeof(msg)));
		pf_remedy(f, "run the gpu_inventory check and nvidia-smi");
		return -EIO;
	}
	if (n < 2)
		return pf_skip(res, "%d CUDA device%s: an all-reduce needs at least 2", n,
			       n == 1 ? "" : "s");
	if (n > MAX_GPUS)
		n = MAX_GPUS;
	r = gpu->nccl(ctx, &nc, &nerr);
	if (r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, "nccl", "%s", nerr);
		pf_remedy(f, "install NCCL (the libnccl2 package) or set PF_NCCL_PATH");
		return r;
	}
	b->nc = nc;
	if (nc->ncclGetVersion(&code) == PF_NCCL_SUCCESS)
		pf_nccl_version_string(code, ver, ver_len);
	b->n = n;
	return 1;
}

/* One size's measurement: its time and what verify() found. */
struct size_run {
	uint64_t bytes;
	bool last;
	double t;
	int bad, bad_gpu;
	float got;
};

/*
 * Judge one size: a wrong sum fails, the last size below min_busbw_gbps
 * fails, else its bandwidth passes.  Returns its busbw.
 */
static double judge_size(const struct nccl_allreduce_cfg *cfg, const struct size_run *sr, int n,
			 const char *ver, const char *subject, struct pf_result *res)
{
	double algbw = sr->t > 0 ? (double)sr->bytes / sr->t / 1e9 : 0;
	double busbw = algbw * 2.0 * (n - 1) / n;
	enum pf_status st = PF_STATUS_PASS;
	struct pf_finding *f;

	if (sr->bad) {
		f = pf_add(res, PF_STATUS_FAIL, subject,
			   "wrong result: GPU %d holds %g, expected %g (%d of the checked "
			   "floats differ)", sr->bad_gpu, (double)sr->got,
			   (double)n * (n + 1) / 2, sr->bad);
		pf_code(f, 1);
		pf_remedy(f, "data corruption in the all-reduce: run dcgmi diag -r 3 and "
			  "check NVLink/PCIe errors (nvidia-smi nvlink -e)");
	} else if (sr->last && cfg->min_busbw_gbps > 0 && busbw < cfg->min_busbw_gbps) {
		st = PF_STATUS_FAIL;
		f = pf_add(res, st, subject,
			   "busbw %.2f GB/s (algbw %.2f GB/s) over %d GPUs, expected at least "
			   "%.2f GB/s (NCCL %s)", busbw, algbw, n, cfg->min_busbw_gbps, ver);
		pf_code(f, 2);
		pf_remedy(f, "check nvidia-smi topo -m and nvidia-smi nvlink -s for down "
			  "links, the fabric manager on NVSwitch systems, PCIe ACS/IOMMU "
			  "settings; rerun with NCCL_DEBUG=INFO to see the transport");
	} else {
		f = pf_add(res, st, subject, "busbw %.2f GB/s (algbw %.2f GB/s) over %d GPUs%s, "
			   "NCCL %s", busbw, algbw, n,
			   sr->last && cfg->min_busbw_gbps <= 0 ? " (no min_busbw_gbps set)" : "",
			   ver);
	}
	pf_obs_num(f, "bytes", (double)sr->bytes);
	pf_obs_num(f, "gpus", n);
	pf_obs_num(f, "time_us", sr->t * 1e6);
	pf_obs_num(f, "algbw_gbps", algbw);
	pf_obs_num(f, "busbw_gbps", busbw);
	pf_obs_str(f, "nccl_version", ver);
	if (sr->last && cfg->min_busbw_gbps > 0)
		pf_exp_num(f, "min_busbw_gbps", cfg->min_busbw_gbps);
	return busbw;
}

static int nccl_allreduce_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nccl_allreduce_cfg *cfg = config;
	struct bench b PF_CLEANUP(bench_release) = { 0 };
	pf_autofree float *host = NULL;
	char ver[32] = "unknown", hb[32], subject[48];
	double last_busbw = 0;
	int r;

	r = open_libraries(ctx, &b, ver, sizeof(ver), res);
	if (r <= 0)
		return r;
	r = bench_setup(&b, cfg->max_bytes - cfg->max_bytes % 4, res);
	if (r < 0)
		return r;
	host = pf_xmalloc(VERIFY_BYTES);

	/* run each size from min_bytes, doubling, to max_bytes */
	for (uint64_t bytes = cfg->min_bytes;; bytes *= 2) {
		struct size_run sr = { .last = bytes >= cfg->max_bytes };

		if (sr.last)
			bytes = cfg->max_bytes;
		bytes -= bytes % 4;
		sr.bytes = bytes;
		pf_progress(ctx, "size %llu of %llu bytes", (unsigned long long)bytes,
			    (unsigned long long)cfg->max_bytes);
		r = time_size(&b, bytes, cfg, &sr.t, res);
		if (r < 0)
			return r;
		sr.bad = verify(&b, bytes, host, res, &sr.bad_gpu, &sr.got);
		if (sr.bad < 0)
			return sr.bad;
		human_bytes(bytes, hb, sizeof(hb));
		snprintf(subject, sizeof(subject), "allreduce %s", hb);
		last_busbw = judge_size(cfg, &sr, b.n, ver, subject, res);
		if (sr.last)
			break;
	}
	pf_summary(res, "busbw %.2f GB/s at %s over %d GPUs (NCCL %s)", last_busbw, hb, b.n, ver);
	return 0;
}

static const struct pf_code nccl_allreduce_codes[] = {
	{ 1, PF_ACTION_RESET_GPU, "the all-reduce gave a wrong sum: data corruption on a GPU or its links" },
	{ 2, PF_ACTION_RECONFIGURE, "the all-reduce's bus bandwidth is below the profile's minimum (links down, fabric manager, ACS or IOMMU settings)" },
	{ 0 },
};

const struct pf_check pf_check_nccl_allreduce = {
	.name = "nccl_allreduce",
	.summary = "NCCL all-reduce bus bandwidth across all local GPUs",
	.tags = "gpu,traffic",
	.reads = "libcuda.so.1, libnccl.so.2 (ncclCommInitAll over every CUDA device)",
	.params = nccl_allreduce_params,
	.codes = nccl_allreduce_codes,
	.cfg_size = sizeof(struct nccl_allreduce_cfg),
	.timeout_s = 300,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_TRAFFIC,
	.validate = nccl_allreduce_validate,
	.run = nccl_allreduce_run,
};
