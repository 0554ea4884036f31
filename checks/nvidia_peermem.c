// SPDX-License-Identifier: MIT
/*
 * nvidia_peermem - GPUDirect RDMA can register GPU memory with the NIC.
 *
 * Two paths exist, gated as NCCL gates them.  Every GPU must report
 * CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED (NCCL's gdrSupport).  Peer
 * memory: the nvidia_peermem module (or legacy nv_peer_mem) registered as a
 * peer-memory client, seen in /sys/module, /proc/modules and
 * /sys/kernel/mm/memory_peers/nv_mem*.  DMA-BUF: CUDA's
 * CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED on every GPU and NCCL's probe of
 * the RDMA devices (ibv_reg_dmabuf_mr with fd -1: EOPNOTSUPP or
 * EPROTONOSUPPORT is no).  The kernel release (5.12 upstream, backported by
 * vendors) and the open kernel module are reported, not gates: the
 * attribute and the probe already answer for them.  Under a recorded root
 * the CUDA and verbs facts come from files (docs/snapshot.md).  Pass when
 * the path the profile requires (default: either) is available, and say
 * which.
 */
#include <stdarg.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

struct nvidia_peermem_cfg {
	char *require;
};

static const struct pf_param nvidia_peermem_params[] = {
	PF_PARAM_ENUM(struct nvidia_peermem_cfg, require, "any",
		      "path that must be available: any, peermem, dmabuf or both", "any", "peermem",
		      "dmabuf", "both"),
	PF_PARAM_END,
};

/* A yes/no/unknown fact with the reason it is unknown. */
enum tri { NO, YES, UNKNOWN };

struct peermem {
	enum tri loaded;
	char source[96];   /* where it was seen */
	char version[32];
};

struct dmabuf {
	enum tri kernel, open_module, cuda, verbs, all, gdr;
	char no_gdr[128];  /* GPUs whose CUDA attribute says no GPUDirect RDMA */
	char kernel_release[64];
	char why[384];     /* what is missing or unknown */
};

static const char *tri_name(enum tri t)
{
	return t == YES ? "yes" : t == NO ? "no" : "unknown";
}

static void why_add(struct dmabuf *d, const char *fmt, ...) PF_PRINTF(2, 3);
static void why_add(struct dmabuf *d, const char *fmt, ...)
{
	size_t l = strlen(d->why);
	va_list ap;

	if (l && l + 2 < sizeof(d->why)) {
		memcpy(d->why + l, "; ", 3);
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(d->why + l, sizeof(d->why) - l, fmt, ap);
	va_end(ap);
}

/* Is @name a line of /proc/modules? */
static bool in_proc_modules(const char *modules, const char *name)
{
	size_t n = strlen(name);

	for (const char *l = modules; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, name, n) && l[n] == ' ')
			return true;
	return false;
}

static void probe_peermem(const struct pf_ctx *ctx, struct peermem *p)
{
	static const char *const modules[] = { "nvidia_peermem", "nv_peer_mem" };
	static const char *const clients[] = { "nv_mem", "nv_mem_nc" };
	pf_autofree char *proc = NULL;
	char path[96];
	int r;

	p->loaded = NO;
	r = pf_fs_read_full(ctx->fs, "/proc/modules", 0, &proc, NULL);
	for (size_t i = 0; i < PF_ARRAY_SIZE(modules) && p->loaded != YES; i++) {
		pf_autofree char *ver = NULL;

		snprintf(path, sizeof(path), "/sys/module/%s", modules[i]);
		if (pf_fs_exists(ctx->fs, path) == 1) {
			p->loaded = YES;
			snprintf(p->source, sizeof(p->source), "%s", path);
		} else if (r == 0 && in_proc_modules(proc, modules[i])) {
			p->loaded = YES;
			snprintf(p->source, sizeof(p->source), "/proc/modules: %s", modules[i]);
		}
		if (p->loaded == YES &&
		    pf_fs_readf_line(ctx->fs, &ver, "/sys/module/%s/version", modules[i]) == 0)
			snprintf(p->version, sizeof(p->version), "%s", ver);
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(clients) && p->loaded != YES; i++) {
		pf_autofree char *ver = NULL;

		snprintf(path, sizeof(path), "/sys/kernel/mm/memory_peers/%s/version", clients[i]);
		if (pf_fs_read_line(ctx->fs, path, &ver) == 0) {
			p->loaded = YES;
			snprintf(p->source, sizeof(p->source), "%s", path);
			snprintf(p->version, sizeof(p->version), "%s", ver);
		}
	}
	/* without /proc/modules nor /sys/module the answer is not "no" */
	if (p->loaded == NO && r < 0 && pf_fs_exists(ctx->fs, "/sys/module") != 1)
		p->loaded = UNKNOWN;
}

/* The kernel release (5.12: DMA-BUF MRs) and whether the NVIDIA module is the open one. */
static void probe_kernel(const struct pf_ctx *ctx, struct dmabuf *d)
{
	pf_autofree char *rel = NULL, *ver = NULL;
	int major, minor, r;

	r = pf_fs_read_line(ctx->fs, "/proc/sys/kernel/osrelease", &rel);
	if (r == 0 && pf_parse_kernel_release(rel, &major, &minor) == 0) {
		snprintf(d->kernel_release, sizeof(d->kernel_release), "%s", rel);
		/* upstream 5.12; RHEL 8 and others backport it: reported, not a gate */
		d->kernel = major > 5 || (major == 5 && minor >= 12) ? YES : NO;
	}

	r = pf_fs_read_line(ctx->fs, "/proc/driver/nvidia/version", &ver);
	if (r == 0) {
		char v[32];
		bool open;

		/* CUDA's DMA_BUF_SUPPORTED answers for the module: reported, not a gate */
		if (pf_parse_nvidia_version(ver, v, sizeof(v), &open) == 0)
			d->open_module = open ? YES : NO;
	} else if (r == -ENOENT) {
		d->open_module = NO;
	}
}

/* Whether the RDMA devices register DMA-BUF memory (NCCL's probe). */
static void probe_verbs_dmabuf(const struct pf_ctx *ctx, struct dmabuf *d)
{
	pf_autofree char *err = NULL;
	int r = ctx->prov->gpu->verbs_dmabuf(ctx, &err);

	if (r == 1) {
		d->verbs = YES;
	} else if (r == 0) {
		d->verbs = NO;
		why_add(d, "the RDMA devices cannot register DMA-BUF memory "
			"(ibv_reg_dmabuf_mr answers EOPNOTSUPP/EPROTONOSUPPORT, or "
			"rdma-core older than v34)");
	} else {
		why_add(d, "DMA-BUF registration unknown: %s", err ? err : strerror(-r));
	}
}

static void probe_dmabuf(const struct pf_ctx *ctx, struct dmabuf *d)
{
	const struct pf_gpu_provider *gpu = ctx->prov->gpu;
	int r;

	d->kernel = d->open_module = d->cuda = d->verbs = UNKNOWN;
	probe_kernel(ctx, d);

	/* every GPU on the bus must support it; without an inventory, GPU 0 of CUDA is not enough */
	if (ctx->node && ctx->node->n_gpus) {
		d->cuda = YES;
		for (size_t i = 0; i < ctx->node->n_gpus; i++) {
			const struct pf_pci_dev *pci = &ctx->node->pci[ctx->node->gpus[i].pci];
			pf_autofree char *err = NULL;

			if (pci->vendor != PF_PCI_VENDOR_NVIDIA)
				continue;
			r = gpu->cuda_dmabuf(ctx, pci->bdf, &err);
			if (r == 0) {
				d->cuda = NO;
				why_add(d, "CUDA reports no DMA-BUF support on %s", pci->bdf);
				break;
			}
			if (r < 0) {
				d->cuda = UNKNOWN;
				why_add(d, "CUDA DMA-BUF attribute unknown: %s", err ? err : strerror(-r));
				break;
			}
		}
	} else {
		why_add(d, "no GPU in the inventory to ask CUDA about");
	}

	probe_verbs_dmabuf(ctx, d);

	/*
	 * CUDA's attribute unknown (not recorded, libcuda missing) but the
	 * proprietary module loaded: that module exports no DMA-BUF, which is
	 * what the attribute would have said.
	 */
	if ((d->cuda == NO || (d->cuda == UNKNOWN && d->open_module == NO)) || d->verbs == NO)
		d->all = NO;
	else if (d->cuda == YES && d->verbs == YES)
		d->all = YES;
	else
		d->all = UNKNOWN;
	/* hints, where DMA-BUF is not there: what usually causes it */
	if (d->all != YES && d->open_module == NO)
		why_add(d, "the NVIDIA kernel module is not the open one (DMA-BUF needs it)");
	if (d->all != YES && d->kernel == NO)
		why_add(d, "kernel %s is older than 5.12 (fine where the vendor backported "
			"DMA-BUF MRs)", d->kernel_release);
}

/* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED on every GPU; unknown is no gate. */
static void probe_gdr(const struct pf_ctx *ctx, struct dmabuf *d)
{
	const struct pf_gpu_provider *gpu = ctx->prov->gpu;

	d->gdr = UNKNOWN;
	if (!ctx->node || !ctx->node->n_gpus)
		return;
	d->gdr = YES;
	for (size_t i = 0; i < ctx->node->n_gpus; i++) {
		const struct pf_pci_dev *pci = &ctx->node->pci[ctx->node->gpus[i].pci];
		pf_autofree char *err = NULL;
		int r;

		if (pci->vendor != PF_PCI_VENDOR_NVIDIA)
			continue;
		r = gpu->cuda_gdr(ctx, pci->bdf, &err);
		if (r == 0) {
			size_t l = strlen(d->no_gdr);

			d->gdr = NO;
			snprintf(d->no_gdr + l, sizeof(d->no_gdr) - l, "%s%s", l ? ", " : "",
				 pci->bdf);
		} else if (r < 0 && d->gdr == YES) {
			d->gdr = UNKNOWN;
		}
	}
}

/* Which paths `require` accepts: peermem, DMA-BUF, and whether both must be there. */
struct want {
	bool peer, dmabuf, both;
};

static struct want want_of(const struct nvidia_peermem_cfg *cfg)
{
	struct want w;

	if (!strcmp(cfg->require, "any") || !strcmp(cfg->require, "both")) {
		w.peer = w.dmabuf = true;
	} else if (!strcmp(cfg->require, "peermem")) {
		w.peer = true;
		w.dmabuf = false;
	} else { /* dmabuf: the profile accepts nothing else (an enum) */
		w.peer = false;
		w.dmabuf = true;
	}
	w.both = !strcmp(cfg->require, "both");
	return w;
}

/*
 * Whether the node can be judged: a GPU provider, and (from the inventory)
 * an NVIDIA GPU and an RDMA device.  Returns 1, else what the run returns.
 */
static int applies(const struct pf_ctx *ctx, struct pf_result *res)
{
	size_t n_gpus = 0;

	if (!ctx->prov) {
		pf_add(res, PF_STATUS_ERROR, NULL, "no GPU provider");
		return -ENODEV;
	}
	if (!ctx->node)
		return 1;
	for (size_t i = 0; i < ctx->node->n_gpus; i++)
		if (ctx->node->pci[ctx->node->gpus[i].pci].vendor == PF_PCI_VENDOR_NVIDIA)
			n_gpus++;
	if (n_gpus == 0)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus: GPUDirect RDMA does not "
			       "apply");
	if (ctx->node->n_rdma == 0)
		return pf_skip(res, "no RDMA device on the node: GPUDirect RDMA does not "
			       "apply");
	return 1;
}

/* Available: pass naming the path (@mode) GPUDirect RDMA takes. */
static struct pf_finding *judge_available(const struct peermem *p, const struct dmabuf *d,
					  const char *mode, struct pf_result *res)
{
	if (!strcmp(mode, "both"))
		return pf_add(res, PF_STATUS_PASS, "gpudirect_rdma",
			      "available through peermem (%s) and DMA-BUF", p->source);
	if (!strcmp(mode, "peermem"))
		return pf_add(res, PF_STATUS_PASS, "gpudirect_rdma",
			      "available through peermem (%s%s%s)", p->source,
			      p->version[0] ? ", version " : "", p->version);
	return pf_add(res, PF_STATUS_PASS, "gpudirect_rdma",
		      "available through DMA-BUF (CUDA reports DMA_BUF_SUPPORTED on "
		      "every GPU and the RDMA devices accept ibv_reg_dmabuf_mr; kernel "
		      "%s)", d->kernel_release[0] ? d->kernel_release : "unknown");
}

/*
 * Not available: fail, or error when nothing required is known to be
 * missing (undecided); the remedy names each wanted path.
 */
static struct pf_finding *judge_missing(const struct want *w, const struct peermem *p,
					const struct dmabuf *d, bool recorded, struct pf_result *res)
{
	bool undecided = (w->peer && p->loaded == UNKNOWN) ||
			 (w->dmabuf && d->all == UNKNOWN);
	enum pf_status st = undecided && !(w->both && (p->loaded == NO || d->all == NO))
			    ? PF_STATUS_ERROR : PF_STATUS_FAIL;
	struct pf_finding *f;

	if (st == PF_STATUS_ERROR && recorded) {
		/* a snapshot without the facts that decide it: absent data, not an error */
		f = pf_add(res, PF_STATUS_SKIP, "gpudirect_rdma", "not judged: the snapshot does "
			   "not hold what decides it: peermem %s, DMA-BUF %s%s%s%s",
			   tri_name(p->loaded), tri_name(d->all), d->why[0] ? " (" : "", d->why,
			   d->why[0] ? ")" : "");
		pf_remedy(f, "take the snapshot with 'preflight snapshot' on the node, as root: "
			  "it records /sys/module, /proc/modules, preflight/cuda/ and "
			  "preflight/ibverbs/ (docs/snapshot.md)");
		return f;
	}
	f = pf_add(res, st, "gpudirect_rdma", "%s: peermem %s, DMA-BUF %s%s%s%s",
		   st == PF_STATUS_ERROR ? "cannot tell whether GPUDirect RDMA is available"
					 : "GPUDirect RDMA unavailable",
		   p->loaded == YES ? "loaded" : p->loaded == NO ? "not loaded" : "unknown",
		   tri_name(d->all), d->why[0] ? " (" : "", d->why, d->why[0] ? ")" : "");
	pf_remedy(f, "%s%s",
		  w->peer ? "load the peer-memory module: modprobe nvidia_peermem, and "
			    "persist it with a line \"nvidia_peermem\" in "
			    "/etc/modules-load.d/nvidia-peermem.conf (needs MOFED or a "
			    "kernel with PeerDirect); " : "",
		  w->dmabuf ? "for DMA-BUF use NVIDIA's open kernel modules (nvidia-open "
			      "/ -open driver packages), a Turing or newer GPU, rdma-core "
			      "v34+ and a kernel with DMA-BUF MRs (5.12+ or a vendor "
			      "backport)" : "");
	pf_code(f, w->peer ? 1 : 2);
	return f;
}

/* Report: what each probe saw. */
static void report_probes(struct pf_finding *f, const struct peermem *p, const struct dmabuf *d,
			  const char *mode)
{
	pf_obs_str(f, "mode", mode);
	pf_obs_str(f, "peermem", tri_name(p->loaded));
	if (p->source[0])
		pf_obs_str(f, "peermem_source", p->source);
	if (p->version[0])
		pf_obs_str(f, "peermem_version", p->version);
	pf_obs_str(f, "dmabuf", tri_name(d->all));
	pf_obs_str(f, "dmabuf_kernel", tri_name(d->kernel));
	if (d->kernel_release[0])
		pf_obs_str(f, "kernel_release", d->kernel_release);
	pf_obs_str(f, "dmabuf_open_module", tri_name(d->open_module));
	pf_obs_str(f, "dmabuf_cuda", tri_name(d->cuda));
	pf_obs_str(f, "dmabuf_ibverbs", tri_name(d->verbs));
	pf_obs_str(f, "gdr_supported", tri_name(d->gdr));
	if (d->why[0])
		pf_obs_str(f, "dmabuf_missing", d->why);
}

static int nvidia_peermem_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nvidia_peermem_cfg *cfg = config;
	struct want w = want_of(cfg);
	struct peermem p = { 0 };
	struct dmabuf d = { 0 };
	struct pf_finding *f;
	char mode[16];
	bool ok;
	int r;

	r = applies(ctx, res);
	if (r <= 0)
		return r;
	probe_peermem(ctx, &p);
	probe_dmabuf(ctx, &d);
	probe_gdr(ctx, &d);

	snprintf(mode, sizeof(mode), "%s", p.loaded == YES && d.all == YES ? "both"
					   : p.loaded == YES ? "peermem"
					   : d.all == YES ? "dmabuf" : "none");
	if (w.both)
		ok = p.loaded == YES && d.all == YES;
	else
		ok = (w.peer && p.loaded == YES) || (w.dmabuf && d.all == YES);

	if (d.gdr == NO) {
		/* NCCL turns GPUDirect RDMA off for these GPUs whatever the path */
		f = pf_add(res, PF_STATUS_FAIL, "gpudirect_rdma", "GPUDirect RDMA unavailable: CUDA "
			   "reports GPU_DIRECT_RDMA_SUPPORTED 0 on %s (peermem %s, DMA-BUF %s)",
			   d.no_gdr, tri_name(p.loaded), tri_name(d.all));
		pf_code(f, 3);
		pf_remedy(f, "the GPU or its driver does not support GPUDirect RDMA (consumer GPUs, "
			  "vGPU profiles, an old driver): NCCL stages through host memory on it; "
			  "use a data-centre GPU and a current driver");
	} else if (ok) {
		f = judge_available(&p, &d, mode, res);
	} else {
		f = judge_missing(&w, &p, &d, !pf_prov_can(ctx, PF_PROV_NODE), res);
	}
	report_probes(f, &p, &d, mode);
	pf_exp_str(f, "require", cfg->require);
	if (f->status == PF_STATUS_ERROR || f->status == PF_STATUS_SKIP)
		pf_summary(res, "GPUDirect RDMA: undecided (peermem %s, DMA-BUF %s)%s",
			   tri_name(p.loaded), tri_name(d.all), f->status == PF_STATUS_SKIP
			   ? ": not in the snapshot" : "");
	else
		pf_summary(res, "GPUDirect RDMA: %s", mode);
	return 0;
}

static const struct pf_code nvidia_peermem_codes[] = {
	{ 1, PF_ACTION_RELOAD_DRIVER, "GPUDirect RDMA unavailable: the peer-memory module (nvidia_peermem) is not loaded" },
	{ 2, PF_ACTION_RECONFIGURE, "GPUDirect RDMA unavailable: the DMA-BUF path is missing (driver modules, rdma-core or kernel too old)" },
	{ 3, PF_ACTION_RECONFIGURE, "CUDA reports no GPUDirect RDMA support on a GPU (consumer GPU, vGPU profile or old driver)" },
	{ 0 },
};

const struct pf_check pf_check_nvidia_peermem = {
	.name = "nvidia_peermem",
	.summary = "GPUDirect RDMA registration possible (nvidia_peermem or DMA-BUF)",
	.tags = "gpu,rdma,static",
	.reads = "/sys/module/{nvidia_peermem,nv_peer_mem}, /proc/modules, "
		 "/sys/kernel/mm/memory_peers/nv_mem*/version, /proc/sys/kernel/osrelease, "
		 "/proc/driver/nvidia/version, libcuda.so.1 (DMA_BUF_SUPPORTED, "
		 "GPU_DIRECT_RDMA_SUPPORTED), libibverbs.so.1 (ibv_reg_dmabuf_mr probed with fd "
		 "-1 on each RDMA device); recorded: <root>/preflight/cuda/{dmabuf,gdr}_supported, "
		 "<root>/preflight/ibverbs/reg_dmabuf_mr",
	.params = nvidia_peermem_params,
	.codes = nvidia_peermem_codes,
	.cfg_size = sizeof(struct nvidia_peermem_cfg),
	.timeout_s = 20,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nvidia_peermem_run,
};
