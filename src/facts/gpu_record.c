// SPDX-License-Identifier: MIT
/*
 * gpu_record.c - the writer's side of pf_gpu_recorded (gpu_provider.c):
 * the GPU provider's facts, only on a node with NVIDIA GPUs.
 *
 *   preflight/kmsg                    the kernel log (Xid errors)
 *   preflight/ibverbs/reg_dmabuf_mr   "0|1": the RDMA devices register DMA-BUF
 *   preflight/cuda/dmabuf_supported   "<bdf> <0|1>" per GPU
 *   preflight/cuda/gdr_supported      "<bdf> <0|1>" per GPU
 *   preflight/nccl/version            ncclGetVersion()'s code (22703: 2.27.3)
 *   preflight/nvml/<bdf>/health       NVML's health facts (gpu_health; nvml_health.c)
 *   preflight/nvml/<bdf>/nvlink       NVLink states and error counters (nvlink_links)
 *   preflight/ls/dev/.ls              `ls -ln /dev`, its nvidia* entries only
 *   preflight/ls/dev/nvidia-caps      `ls -ln /dev/nvidia-caps`
 *   preflight/nvml/gpu_fabric         NVLink fabric state per GPU (gpu_fabric.h)
 *   preflight/ls/dev/nvidia-caps-imex-channels  `ls -ln` of the IMEX channels
 *   preflight/cuda/fabric_handle      the fabric-handle probe per GPU
 *
 * Live, the CUDA attributes initialise CUDA in this process, and the NCCL
 * version loads libnccl.so.2 in it.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/providers.h"
#include "preflight/node.h"
#include "record.h"

/* One GPU fact: @r is the provider's answer (1/0, or -errno with *why). */
static int gpu_fact(struct pf_record *rec, const char *rel, int r, char *why, FILE *text)
{
	if (r == -ENOENT && !pf_fs_is_live(rec->ctx->fs)) {
		/* a recorded source without it */
	} else if (r < 0) {
		rec->skip(rec, rel, why ? why : strerror(-r));
	} else {
		fprintf(text, "%d\n", r);
	}
	free(why);
	return r;
}

/* preflight/cuda/<file>: "<bdf> <0|1>" per GPU from @attr (a CUDA device attribute). */
static int cuda_attr_fact(struct pf_record *rec, const struct pf_node *node, const char *file,
			  int (*attr)(const struct pf_ctx *, const char *, char **))
{
	pf_autofree char *buf = NULL, *path = pf_xasprintf("preflight/cuda/%s", file);
	size_t len = 0, n = 0;
	FILE *f = pf_record_text(&buf, &len);

	for (size_t i = 0; i < node->n_gpus; i++) {
		const char *bdf = node->pci[node->gpus[i].pci].bdf;
		pf_autofree char *rel = pf_xasprintf("%s (%s)", path, bdf);
		char *why = NULL;
		int v = attr(rec->ctx, bdf, &why);

		if (v >= 0)
			fprintf(f, "%s ", bdf);
		n += gpu_fact(rec, rel, v, why, f) >= 0;
	}
	fclose(f);
	return n ? rec->put(rec, path, buf, len) : 0;
}

static int kmsg_fact(struct pf_record *rec)
{
	pf_autofree char *text = NULL;
	char *why = NULL;
	int r = rec->ctx->prov->gpu->kmsg(rec->ctx, &text, &why);

	if (r < 0) {
		gpu_fact(rec, "preflight/kmsg", r, why, NULL);
		return 0;
	}
	free(why);
	return pf_record_put_text(rec, "preflight/kmsg", text);
}

/* @path from a provider's answer @r (and @why) through gpu_fact(): the value, or why not. */
static int answer_fact(struct pf_record *rec, const char *path, int r, char *why)
{
	pf_autofree char *buf = NULL;
	size_t len = 0;
	FILE *f = pf_record_text(&buf, &len);

	r = gpu_fact(rec, path, r, why, f);
	fclose(f);
	return r >= 0 ? rec->put(rec, path, buf, len) : 0;
}

static int dmabuf_fact(struct pf_record *rec)
{
	char *why = NULL;
	int r = rec->ctx->prov->gpu->verbs_dmabuf(rec->ctx, &why);

	return answer_fact(rec, "preflight/ibverbs/reg_dmabuf_mr", r, why);
}

/* preflight/nccl/version: "<code>", the installed NCCL's version (nccl_config's C2C rule). */
static int nccl_version_fact(struct pf_record *rec)
{
	char *why = NULL;
	int r = rec->ctx->prov->gpu->nccl_version(rec->ctx, &why);

	return answer_fact(rec, "preflight/nccl/version", r, why);
}

/* --- gpu_health, nvlink_links ------------------------------------------- */

/* One NVML fact file of one GPU: @text from the provider's answer @r (or why not). */
static int nvml_file(struct pf_record *rec, const char *bdf, const char *file, int r, char *why,
		     char *text)
{
	pf_autofree char *owned = text, *reason = why;
	pf_autofree char *rel = pf_xasprintf("preflight/nvml/%s/%s", bdf, file);

	if (r < 0 && reason && r != -ENOENT && r != -ENOSYS) {
		rec->skip(rec, rel, reason); /* the provider's sentence, not only strerror */
		return 0;
	}
	if (!pf_record_answer(rec, rel, r) || !owned)
		return 0;
	return pf_record_put_text(rec, rel, owned);
}

/* preflight/nvml/<bdf>/health and nvlink of every GPU. */
static int nvml_facts(struct pf_record *rec, const struct pf_node *node)
{
	const struct pf_gpu_provider *gpu = rec->ctx->prov->gpu;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < node->n_gpus; i++) {
		const char *bdf = node->pci[node->gpus[i].pci].bdf;
		pf_autofree char *dir = pf_xasprintf("preflight/nvml/%s", bdf);
		struct pf_nvml_health h;
		struct pf_nvml_nvlink *l = pf_xcalloc(1, sizeof(*l));
		char *why = NULL;
		int a;

		r = rec->mkdirs(rec, dir);
		if (r >= 0) {
			a = gpu->nvml_health(rec->ctx, bdf, &h, &why);
			r = nvml_file(rec, bdf, "health", a, why,
				      a >= 0 ? pf_nvml_health_format(&h) : NULL);
		}
		if (r >= 0) {
			why = NULL;
			a = gpu->nvml_nvlink(rec->ctx, bdf, l, &why);
			r = nvml_file(rec, bdf, "nvlink", a, why,
				      a >= 0 ? pf_nvml_nvlink_format(l) : NULL);
		}
		free(l);
	}
	return r;
}

/* The device nodes CUDA opens: /dev's nvidia* entries and /dev/nvidia-caps. */
static int cuda_devnodes_fact(struct pf_record *rec, const char *dir, const char *rel,
			      bool only_nvidia)
{
	const struct pf_ctx *ctx = rec->ctx;
	struct pf_devnodes d = { 0 };
	pf_autofree char *text = NULL;
	size_t keep = 0;
	int r = ctx->prov->devnodes(ctx, dir, &d);

	if (r == -ENOENT && !only_nvidia && pf_prov_can(ctx, PF_PROV_NODE))
		r = 0; /* no /dev/nvidia-caps is a fact: an empty listing (no /dev is not) */
	if (r >= 0 && only_nvidia) {
		for (size_t i = 0; i < d.n; i++)
			if (!strncmp(d.v[i].name, "nvidia", 6))
				d.v[keep++] = d.v[i];
		d.n = keep;
	}
	if (r >= 0)
		text = pf_format_ls_ln(&d);
	pf_devnodes_release(&d);
	if (!pf_record_answer(rec, rel, r))
		return 0;
	return pf_record_put_text(rec, rel, text);
}

static int gpu_health_facts(struct pf_record *rec, const struct pf_node *node)
{
	int r = rec->mkdirs(rec, "preflight/nvml");

	if (r >= 0)
		r = nvml_facts(rec, node);
	if (r >= 0)
		r = rec->mkdirs(rec, "preflight/ls/dev");
	if (r >= 0)
		r = cuda_devnodes_fact(rec, "/dev", "preflight/ls/dev/.ls", true);
	if (r >= 0)
		r = cuda_devnodes_fact(rec, "/dev/nvidia-caps", "preflight/ls/dev/nvidia-caps", false);
	return r;
}

/*
 * preflight/nvml/gpu_fabric: one line per GPU NVML answered for
 * (pf_gpu_fabric_format), the NVLink fabric state nvlink_fabric judges.
 */
static int gpu_fabric_fact(struct pf_record *rec, const struct pf_node *node)
{
	static const char path[] = "preflight/nvml/gpu_fabric";
	pf_autofree char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = pf_record_text(&buf, &len);

	for (size_t i = 0; i < node->n_gpus; i++) {
		const char *bdf = node->pci[node->gpus[i].pci].bdf;
		pf_autofree char *rel = pf_xasprintf("%s (%s)", path, bdf);
		struct pf_gpu_fabric fab;
		char line[PF_GPU_FABRIC_LINE_MAX], *why = NULL;
		int r = rec->ctx->prov->gpu->gpu_fabric(rec->ctx, bdf, &fab, &why);

		if (r < 0) {
			gpu_fact(rec, rel, r, why, NULL); /* skips it, or nothing to record */
			continue;
		}
		free(why);
		pf_gpu_fabric_format(bdf, &fab, line, sizeof(line));
		fprintf(f, "%s\n", line);
		n++;
	}
	fclose(f);
	return n ? rec->put(rec, path, buf, len) : 0;
}

/* preflight/ls/dev/nvidia-caps-imex-channels: no directory is a fact, an empty listing. */
static int imex_channels_fact(struct pf_record *rec)
{
	static const char dir[] = "/dev/nvidia-caps-imex-channels";
	const struct pf_ctx *ctx = rec->ctx;
	struct pf_devnodes d = { 0 };
	pf_autofree char *text = NULL;
	int r = ctx->prov->devnodes(ctx, dir, &d);

	if (r == -ENOENT && pf_prov_can(ctx, PF_PROV_NODE))
		r = 0;
	if (r >= 0)
		text = pf_format_ls_ln(&d);
	pf_devnodes_release(&d);
	if (!pf_record_answer(rec, "preflight/ls/dev/nvidia-caps-imex-channels", r))
		return 0;
	r = rec->mkdirs(rec, "preflight/ls/dev");
	return r < 0 ? r : pf_record_put_text(rec, "preflight/ls/dev/nvidia-caps-imex-channels",
					      text);
}

/*
 * preflight/cuda/fabric_handle: the fabric-handle probe per GPU, "<bdf> ok",
 * "<bdf> unsupported" or "<bdf> failed <the call and CUDA's error>".
 */
static int fabric_handle_fact(struct pf_record *rec, const struct pf_node *node)
{
	static const char path[] = "preflight/cuda/fabric_handle";
	pf_autofree char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = pf_record_text(&buf, &len);

	for (size_t i = 0; i < node->n_gpus; i++) {
		const char *bdf = node->pci[node->gpus[i].pci].bdf;
		pf_autofree char *rel = pf_xasprintf("%s (%s)", path, bdf);
		char *why = NULL;
		int r = rec->ctx->prov->gpu->cuda_fabric_handle(rec->ctx, bdf, &why);

		if (r < 0 && r != -EIO) {
			gpu_fact(rec, rel, r, why, NULL); /* skips it, or nothing to record */
			continue;
		}
		if (r == -EIO)
			fprintf(f, "%s failed %s\n", bdf, why ? why : "(no reason)");
		else
			fprintf(f, "%s %s\n", bdf, r ? "ok" : "unsupported");
		free(why);
		n++;
	}
	fclose(f);
	return n ? rec->put(rec, path, buf, len) : 0;
}

static int gpu_facts(struct pf_record *rec, const struct pf_node *node)
{
	const struct pf_gpu_provider *gpu = rec->ctx->prov->gpu;
	int r = rec->mkdirs(rec, "preflight/ibverbs");

	if (r >= 0)
		r = rec->mkdirs(rec, "preflight/cuda");
	if (r >= 0)
		r = rec->mkdirs(rec, "preflight/nccl");
	if (r >= 0)
		r = kmsg_fact(rec);
	if (r >= 0)
		r = dmabuf_fact(rec);
	if (r >= 0)
		r = cuda_attr_fact(rec, node, "dmabuf_supported", gpu->cuda_dmabuf);
	if (r >= 0)
		r = cuda_attr_fact(rec, node, "gdr_supported", gpu->cuda_gdr);
	if (r >= 0)
		r = nccl_version_fact(rec);
	if (r >= 0)
		r = gpu_health_facts(rec, node);
	if (r >= 0)
		r = rec->mkdirs(rec, "preflight/nvml");
	if (r >= 0)
		r = gpu_fabric_fact(rec, node);
	if (r >= 0)
		r = imex_channels_fact(rec);
	if (r >= 0)
		r = fabric_handle_fact(rec, node);
	return r;
}

int pf_record_gpu(struct pf_record *rec)
{
	struct pf_node *node = NULL;
	pf_autofree char *err = NULL;
	int r;

	/* a table without GPU facts records none, not even their directories */
	if (rec->ctx->prov->gpu == &pf_gpu_none || pf_node_load(rec->ctx->fs, NULL, &node, &err) < 0)
		return 0;
	r = node->n_gpus ? gpu_facts(rec, node) : 0;
	pf_node_free(node);
	return r < 0 ? r : 0;
}
