// SPDX-License-Identifier: MIT
/*
 * gpu_inventory - every NVIDIA GPU on the PCI bus is bound, visible and healthy.
 *
 * The bus side comes from the node inventory (vendor 0x10de, display or 3D
 * class).  Against it: the kernel driver (/proc/driver/nvidia/version, the
 * sysfs driver link, /proc/driver/nvidia/gpus/<bdf>/information), the CUDA
 * driver API (cuInit, device count, PCI bus ids), NVML when present
 * (driver version, persistence mode, retired pages, row remapping) and Xid
 * errors in the kernel log (/dev/kmsg live, <root>/preflight/kmsg
 * recorded).  A GPU on the bus that CUDA does not report has fallen off the
 * bus or is hidden: fail.  No NVIDIA GPU on the bus: skip.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

struct gpu_inventory_cfg {
	uint64_t expected_gpus;
	char *min_driver;
	char *min_cuda;
	bool require_persistence;
	uint64_t max_retired_pages;
	double xid_window_h;
	char *xid_fail;
	char *xid_ignore;
};

static const struct pf_param gpu_inventory_params[] = {
	PF_PARAM_U64(struct gpu_inventory_cfg, expected_gpus, "0", 0, 1024, "GPUs",
		     "NVIDIA GPUs expected on the PCI bus; 0 accepts any number"),
	PF_PARAM_VERSION(struct gpu_inventory_cfg, min_driver, "",
			 "minimum NVIDIA driver version, e.g. \"550.54.15\"; empty: not judged"),
	PF_PARAM_VERSION(struct gpu_inventory_cfg, min_cuda, "",
			 "the CUDA version jobs are built with, MAJOR.MINOR (\"12.4\"): the "
			 "driver's CUDA version (cuDriverGetVersion) must be at least that; empty: "
			 "not judged"),
	PF_PARAM_BOOL(struct gpu_inventory_cfg, require_persistence, "true",
		      "warn when NVML reports persistence mode off"),
	PF_PARAM_U64(struct gpu_inventory_cfg, max_retired_pages, "60", 0, 100000, "pages",
		     "fail above this many retired pages (single- plus double-bit ECC)"),
	PF_PARAM_DOUBLE(struct gpu_inventory_cfg, xid_window_h, "24", 0, 1e6, "hours",
			"judge Xid errors logged within this many hours; 0: the whole log"),
	PF_PARAM_U64_LIST(struct gpu_inventory_cfg, xid_fail,
			  "48,56,57,58,62,63,64,65,68,69,73,74,79,80,81,92,95,119,120,140,154",
			  0, 65535, "Xids that fail the check; any other Xid warns"),
	PF_PARAM_U64_LIST(struct gpu_inventory_cfg, xid_ignore, "", 0, 65535,
			  "Xids not reported at all, e.g. \"13,31,43,45\""),
	PF_PARAM_END,
};

/* min_cuda is what cuDriverGetVersion can say: MAJOR.MINOR. */
static int gpu_inventory_validate(const void *config, char **ret_err)
{
	const struct gpu_inventory_cfg *cfg = config;
	const char *dot = strchr(cfg->min_cuda, '.');

	if (cfg->min_cuda[0] && (!dot || strchr(dot + 1, '.')))
		return pf_param_invalid(ret_err, "gpu_inventory.min_cuda: '%s' is not MAJOR.MINOR "
					"(e.g. \"12.4\")", cfg->min_cuda);
	return 0;
}

/* What we learn about one GPU on the bus. */
struct gpu {
	char bdf[16];
	const struct pf_pci_dev *pci;
	char driver[32];      /* bound kernel driver, "" for none */
	const char *osdev;    /* hwloc export: "cuda0"/"nvml0" below it, or "" */
	char model[96];       /* from /proc/driver/nvidia/gpus/<bdf>/information */
	int cuda;             /* CUDA ordinal, -1 not reported */
	char cuda_name[96];
	int persistence;      /* 1/0, -1 unknown */
	long retired;         /* pages, -1 unknown */
	int retired_pending;  /* 1/0, -1 unknown */
	int remap_pending, remap_failure; /* 1/0, -1 unknown */
	unsigned int remap_corr, remap_unc;
};

struct inv {
	struct gpu *gpus;
	size_t n;
	bool cuda_ok;          /* CUDA answered: cuda ordinals are meaningful */
	bool cuda_hidden;      /* CUDA_VISIBLE_DEVICES is set */
	bool nvml_ok;
	bool live;             /* the root is this node: an absent file is a fact */
	bool bindings_recorded; /* the root holds PCI driver links: a missing one is a fact */
	char proof[128];       /* what proves the NVIDIA driver loaded, "" nothing */
};

static void read_binding(const struct pf_ctx *ctx, struct gpu *g)
{
	pf_autofree char *target = NULL, *info = NULL;
	char path[128];
	const char *base;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", g->bdf);
	if (pf_fs_readlink(ctx->fs, path, &target) == 0) {
		base = strrchr(target, '/');
		snprintf(g->driver, sizeof(g->driver), "%s", base ? base + 1 : target);
	}
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", g->bdf);
	if (pf_fs_read_full(ctx->fs, path, 0, &info, NULL) == 0) {
		const char *m = strstr(info, "Model:");

		if (m) {
			m += strlen("Model:");
			m += strspn(m, " \t");
			snprintf(g->model, sizeof(g->model), "%.*s", (int)strcspn(m, "\n"), m);
		}
	}
	/* the kernel driver initialised it even when sysfs has no driver link */
	snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s", g->bdf);
	if (!g->driver[0] && pf_fs_exists(ctx->fs, path) == 1)
		snprintf(g->driver, sizeof(g->driver), "nvidia");
}

static void init_gpu(struct gpu *g, const char *bdf, const struct pf_pci_dev *pci)
{
	snprintf(g->bdf, sizeof(g->bdf), "%s", bdf);
	g->pci = pci;
	g->osdev = "";
	g->cuda = -1;
	g->persistence = g->retired_pending = g->remap_pending = g->remap_failure = -1;
	g->retired = -1;
}

static struct gpu *find_gpu(struct inv *inv, const char *bdf)
{
	for (size_t i = 0; i < inv->n; i++)
		if (!strcmp(inv->gpus[i].bdf, bdf))
			return &inv->gpus[i];
	return NULL;
}

/*
 * The kernel driver and its version; the NVML/CUDA versions are added later.
 * An absent version file is a fact only on the live node; under a root it
 * may simply not have been captured: what else proves the driver loaded
 * (@inv->proof) decides, else the finding is a skip naming what is missing.
 */
static const struct pf_finding *judge_driver(const struct pf_ctx *ctx,
					     const struct gpu_inventory_cfg *cfg,
					     const struct inv *inv, struct pf_result *res,
					     char *ver, size_t len)
{
	pf_autofree char *line = NULL;
	struct pf_finding *f;
	bool open = false;
	int r;

	ver[0] = '\0';
	r = pf_fs_read_line(ctx->fs, "/proc/driver/nvidia/version", &line);
	if (r == -ENOENT && inv->proof[0] && !inv->live && !cfg->min_driver[0]) {
		f = pf_add(res, PF_STATUS_PASS, "driver", "NVIDIA driver loaded (%s); its version "
			   "was not recorded (no /proc/driver/nvidia/version)", inv->proof);
		pf_obs_bool(f, "loaded", true);
		pf_obs_str(f, "loaded_evidence", inv->proof);
		return f;
	}
	if (r == -ENOENT && inv->proof[0]) {
		f = pf_add(res, PF_STATUS_WARN, "driver", "NVIDIA driver loaded (%s) but its version "
			   "is unknown: /proc/driver/nvidia/version is absent%s", inv->proof,
			   cfg->min_driver[0] ? ", so min_driver is not judged" : "");
		pf_code(f, 1);
		pf_remedy(f, "a capture should include /proc/driver/nvidia/version; on a live node "
			  "reinstall the driver if it is missing");
		pf_obs_bool(f, "loaded", true);
		pf_obs_str(f, "loaded_evidence", inv->proof);
		return f;
	}
	if (r == -ENOENT && !inv->live) {
		f = pf_add(res, PF_STATUS_SKIP, "driver", "NVIDIA driver state not recorded: no "
			   "/proc/driver/nvidia/version under the root and nothing else shows the "
			   "driver (no GPU bound to nvidia, no /proc/driver/nvidia/gpus, no cuda/nvml "
			   "device in a topology export)");
		pf_remedy(f, "capture /proc/driver/nvidia/version with the snapshot, or run on the node");
		return f;
	}
	if (r == -ENOENT) {
		f = pf_add(res, PF_STATUS_FAIL, "driver",
			   "NVIDIA kernel driver not loaded (/proc/driver/nvidia/version absent)");
		pf_code(f, 2);
		pf_remedy(f, "install the NVIDIA driver and load it (modprobe nvidia); check "
			  "dmesg for NVRM errors if it is installed");
		pf_obs_bool(f, "loaded", false);
		return f;
	}
	if (r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, "driver", "cannot read /proc/driver/nvidia/version: %s",
			   strerror(-r));
		return f;
	}
	if (pf_parse_nvidia_version(line, ver, len, &open) < 0) {
		f = pf_add(res, PF_STATUS_ERROR, "driver",
			   "cannot parse /proc/driver/nvidia/version: \"%.80s\"", line);
		return f;
	}
	if (cfg->min_driver[0] && pf_version_cmp(ver, cfg->min_driver) < 0) {
		f = pf_add(res, PF_STATUS_FAIL, "driver", "NVIDIA driver %s%s, expected at least %s",
			   ver, open ? " (open kernel module)" : "", cfg->min_driver);
		pf_code(f, 3);
		pf_remedy(f, "upgrade the NVIDIA driver to %s or later and reboot", cfg->min_driver);
	} else {
		f = pf_add(res, PF_STATUS_PASS, "driver", "NVIDIA driver %s%s loaded", ver,
			   open ? " (open kernel module)" : "");
	}
	pf_obs_bool(f, "loaded", true);
	pf_obs_str(f, "version", ver);
	pf_obs_bool(f, "open_kernel_module", open);
	if (cfg->min_driver[0])
		pf_exp_str(f, "min_version", cfg->min_driver);
	return f;
}

/* cuInit failed: the toolkit's stub is an error, anything else fails with its remedy. */
static void judge_cuinit(const struct pf_cuda_table *cu, pf_CUresult cr, const struct inv *inv,
			 struct pf_result *res)
{
	struct pf_finding *f;
	char msg[200];

	pf_cuda_strerror(cu, cr, msg, sizeof(msg));
	if (cr == PF_CUDA_ERROR_STUB_LIBRARY) {
		f = pf_add(res, PF_STATUS_ERROR, "cuda",
			   "cuInit: %s: the loaded libcuda.so.1 is the toolkit's stub", msg);
		pf_remedy(f, "install the NVIDIA driver; remove the toolkit's stubs directory "
			  "from LD_LIBRARY_PATH");
		return;
	}
	f = pf_add(res, PF_STATUS_FAIL, "cuda", "cuInit: %s, with %zu NVIDIA GPU%s on the PCI bus",
		   msg, inv->n, inv->n == 1 ? "" : "s");
	pf_code(f, 4);
	if (cr == PF_CUDA_ERROR_SYSTEM_NOT_READY)
		pf_remedy(f, "start the fabric manager (systemctl enable --now "
			  "nvidia-fabricmanager) on NVSwitch systems");
	else if (cr == PF_CUDA_ERROR_NO_DEVICE)
		pf_remedy(f, "check CUDA_VISIBLE_DEVICES and cgroup device limits; run "
			  "nvidia-smi and look for Xid 79 or RmInitAdapter errors in dmesg");
	else
		pf_remedy(f, "run nvidia-smi; reload the driver or reboot; check dmesg for NVRM "
			  "errors");
	pf_obs_num(f, "cuda_error", cr);
}

/*
 * Give each GPU its CUDA ordinal and name; CUDA devices not on the bus go
 * to @extra.  Returns how many GPUs CUDA sees.
 */
static int match_cuda(const struct pf_cuda_table *cu, char (*bdfs)[16], int n, struct inv *inv,
		      char *extra, size_t extra_len)
{
	pf_CUdevice dev;
	int seen = 0;

	for (int i = 0; i < n; i++) {
		struct gpu *g = find_gpu(inv, bdfs[i]);

		if (!g) {
			size_t l = strlen(extra);

			snprintf(extra + l, extra_len - l, "%s%s", l ? ", " : "", bdfs[i]);
			continue;
		}
		g->cuda = i;
		seen++;
		if (cu->cuDeviceGet(&dev, i) != PF_CUDA_SUCCESS ||
		    cu->cuDeviceGetName(g->cuda_name, (int)sizeof(g->cuda_name) - 1, dev) !=
			    PF_CUDA_SUCCESS)
			g->cuda_name[0] = '\0';
	}
	return seen;
}

/* Every GPU on the bus must be a CUDA device (a warning when CUDA_VISIBLE_DEVICES is set). */
static void judge_cuda_sees(const struct inv *inv, int seen, int n, const char *extra,
			    struct pf_result *res)
{
	char missing[256] = "";
	struct pf_finding *f;

	for (size_t i = 0; i < inv->n; i++) {
		size_t l = strlen(missing);

		if (inv->gpus[i].cuda < 0)
			snprintf(missing + l, sizeof(missing) - l, "%s%s", l ? ", " : "", inv->gpus[i].bdf);
	}
	if ((size_t)seen == inv->n) {
		f = pf_add(res, PF_STATUS_PASS, "cuda", "CUDA sees all %d NVIDIA GPUs on the PCI bus",
			   seen);
	} else {
		enum pf_status st = inv->cuda_hidden ? PF_STATUS_WARN : PF_STATUS_FAIL;

		f = pf_add(res, st, "cuda", "CUDA sees %d of %zu NVIDIA GPUs on the PCI bus; missing: %s%s",
			   seen, inv->n, missing,
			   inv->cuda_hidden ? " (CUDA_VISIBLE_DEVICES is set)" : "");
		pf_code(f, 5);
		pf_remedy(f, "a GPU on the bus that CUDA does not report has fallen off the bus or "
			  "failed to initialise: check dmesg for Xid 79 and RmInitAdapter, reset it "
			  "(nvidia-smi -r) or reboot, and RMA it if it recurs");
	}
	pf_obs_num(f, "cuda_devices", n);
	pf_obs_num(f, "pci_gpus", (double)inv->n);
	if (missing[0])
		pf_obs_str(f, "missing", missing);
	if (extra[0])
		pf_obs_str(f, "not_on_bus", extra);
	pf_exp_num(f, "cuda_devices", (double)inv->n);
}

/*
 * CUDA against the bus.  *ret_ver: cuDriverGetVersion's answer (12040), or
 * -1 unknown with *ret_why (malloc'ed) saying why.
 */
static void cuda_scan(const struct pf_ctx *ctx, struct inv *inv, size_t drv,
		      struct pf_result *res, int *ret_ver, char **ret_why)
{
	const struct pf_cuda_table *cu;
	pf_autofree char *err = NULL;
	pf_autofree char (*bdfs)[16] = NULL;
	struct pf_finding *f;
	pf_CUresult cr;
	char extra[256] = "";
	int n, r, ver = 0, seen;

	*ret_ver = -1;
	r = ctx->prov->gpu->cuda(ctx, &cu, &err);
	if (r == -ENOMEDIUM) {
		pf_add(res, PF_STATUS_SKIP, "cuda", "%s", err);
		*ret_why = pf_xasprintf("%s", err ? err : "CUDA is not queried here");
		return;
	}
	if (r < 0) {
		*ret_why = pf_xasprintf("%s", err ? err : "CUDA unavailable");
		f = pf_add(res, PF_STATUS_ERROR, "cuda", "%s", err ? err : "CUDA unavailable");
		pf_remedy(f, "install the NVIDIA driver matching the kernel module; check "
			  "ldconfig -p | grep libcuda");
		return;
	}
	/* needs no cuInit: known even when the devices fail */
	if (cu->cuDriverGetVersion(&ver) == PF_CUDA_SUCCESS && ver > 0)
		*ret_ver = ver;
	else
		*ret_why = pf_xasprintf("cuDriverGetVersion failed");
	n = pf_cuda_devices(cu, &bdfs, &cr);
	if (n < 0) {
		judge_cuinit(cu, cr, inv, res);
		return;
	}
	inv->cuda_ok = true;
	seen = match_cuda(cu, bdfs, n, inv, extra, sizeof(extra));
	if (*ret_ver > 0) {
		char v[16];

		snprintf(v, sizeof(v), "%d.%d", ver / 1000, ver % 1000 / 10);
		pf_obs_str(&res->findings[drv], "cuda_version", v);
	}
	judge_cuda_sees(inv, seen, n, extra, res);
}

/* min_cuda: the driver's CUDA version against the toolkit jobs are built with. */
static void judge_min_cuda(const struct gpu_inventory_cfg *cfg, int ver, const char *why,
			   struct pf_result *res)
{
	struct pf_finding *f;
	char v[16];

	if (!cfg->min_cuda[0])
		return;
	if (ver <= 0) {
		pf_add(res, PF_STATUS_SKIP, "cuda_version", "the driver's CUDA version is unknown "
		       "(%s): min_cuda %s not judged", why ? why : "CUDA not queried", cfg->min_cuda);
		return;
	}
	snprintf(v, sizeof(v), "%d.%d", ver / 1000, ver % 1000 / 10);
	if (pf_version_cmp(v, cfg->min_cuda) < 0) {
		f = pf_add(res, PF_STATUS_FAIL, "cuda_version", "the driver supports CUDA up to %s, "
			   "jobs are built with CUDA %s (min_cuda): they fail with "
			   "cudaErrorInsufficientDriver (\"CUDA driver version is insufficient for "
			   "CUDA runtime version\")", v, cfg->min_cuda);
		pf_code(f, 6);
		pf_remedy(f, "install an NVIDIA driver that supports CUDA %s (NVIDIA's CUDA Toolkit "
			  "release notes: \"CUDA Toolkit and Corresponding Driver Versions\"), or "
			  "the CUDA forward-compatibility package (cuda-compat) on data-center GPUs",
			  cfg->min_cuda);
	} else {
		f = pf_add(res, PF_STATUS_PASS, "cuda_version", "the driver supports CUDA %s, jobs "
			   "need %s", v, cfg->min_cuda);
	}
	pf_obs_str(f, "cuda_version", v);
	pf_exp_str(f, "min_cuda", cfg->min_cuda);
}

static void nvml_device(const struct pf_nvml_table *nv, pf_nvmlDevice_t dev, struct gpu *g)
{
	pf_nvmlEnableState_t st;
	unsigned int corr, unc, pending, failure;

	if (nv->nvmlDeviceGetPersistenceMode(dev, &st) == PF_NVML_SUCCESS)
		g->persistence = st == PF_NVML_FEATURE_ENABLED;
	if (nv->nvmlDeviceGetRetiredPages) {
		long total = 0;
		bool ok = true;

		for (unsigned int cause = 0; cause < 2; cause++) {
			unsigned int count = 0;
			pf_nvmlReturn_t r = nv->nvmlDeviceGetRetiredPages(dev, cause, &count, NULL);

			if (r != PF_NVML_SUCCESS && r != PF_NVML_ERROR_INSUFFICIENT_SIZE)
				ok = false;
			total += count;
		}
		if (ok)
			g->retired = total;
	}
	if (nv->nvmlDeviceGetRetiredPagesPendingStatus &&
	    nv->nvmlDeviceGetRetiredPagesPendingStatus(dev, &st) == PF_NVML_SUCCESS)
		g->retired_pending = st == PF_NVML_FEATURE_ENABLED;
	if (nv->nvmlDeviceGetRemappedRows &&
	    nv->nvmlDeviceGetRemappedRows(dev, &corr, &unc, &pending, &failure) == PF_NVML_SUCCESS) {
		g->remap_corr = corr;
		g->remap_unc = unc;
		g->remap_pending = pending != 0;
		g->remap_failure = failure != 0;
	}
}

static void nvml_scan(const struct pf_ctx *ctx, struct inv *inv, size_t drv,
		      const char *kernel_ver, struct pf_result *res)
{
	const struct pf_nvml_table *nv;
	pf_autofree char *err = NULL;
	struct pf_finding *f;
	pf_nvmlReturn_t r;
	char msg[160], ver[96] = "";
	unsigned int n = 0, matched = 0;

	if (ctx->prov->gpu->nvml(ctx, &nv, &err) < 0) {
		pf_add(res, PF_STATUS_SKIP, "nvml", "%s; persistence mode, retired pages and row "
		       "remapping not checked", err ? err : "NVML unavailable");
		return;
	}
	r = nv->nvmlInit();
	if (r != PF_NVML_SUCCESS) {
		enum pf_status st = r == PF_NVML_ERROR_DRIVER_NOT_LOADED ||
				    r == PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH ? PF_STATUS_FAIL
									      : PF_STATUS_ERROR;

		f = pf_add(res, st, "nvml", "nvmlInit: %s", pf_nvml_strerror(nv, r, msg, sizeof(msg)));
		pf_code(f, 7);
		if (r == PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH)
			pf_remedy(f, "the driver libraries and the loaded kernel module differ (an "
				  "upgrade without reboot): reboot or reload the nvidia modules");
		else
			pf_remedy(f, "run nvidia-smi; reload the NVIDIA driver or reboot");
		pf_obs_num(f, "nvml_error", r);
		return;
	}
	if (nv->nvmlSystemGetDriverVersion(ver, sizeof(ver)) == PF_NVML_SUCCESS)
		pf_obs_str(&res->findings[drv], "nvml_driver_version", ver);
	else
		ver[0] = '\0';
	if (nv->nvmlDeviceGetCount(&n) != PF_NVML_SUCCESS)
		n = 0;
	for (unsigned int i = 0; i < n; i++) {
		union pf_nvml_pci_info_buf pci;
		pf_nvmlDevice_t dev;
		char bdf[16];
		struct gpu *g;

		memset(&pci, 0, sizeof(pci));
		if (nv->nvmlDeviceGetHandleByIndex(i, &dev) != PF_NVML_SUCCESS ||
		    nv->nvmlDeviceGetPciInfo(dev, &pci.info) != PF_NVML_SUCCESS)
			continue;
		pci.info.bus_id[sizeof(pci.info.bus_id) - 1] = '\0';
		if (pf_bdf_normalize(pci.info.bus_id, bdf) < 0 || !(g = find_gpu(inv, bdf)))
			continue;
		nvml_device(nv, dev, g);
		matched++;
	}
	nv->nvmlShutdown();
	inv->nvml_ok = true;
	if (ver[0] && kernel_ver[0] && strcmp(ver, kernel_ver)) {
		f = pf_add(res, PF_STATUS_FAIL, "nvml",
			   "NVML library %s but kernel module %s: user-space and kernel driver differ",
			   ver, kernel_ver);
		pf_code(f, 8);
		pf_remedy(f, "reboot (or reload the nvidia modules) after a driver upgrade");
	} else {
		f = pf_add(res, PF_STATUS_PASS, "nvml", "NVML reports %u GPU%s, %u matched on the PCI bus",
			   n, n == 1 ? "" : "s", matched);
	}
	pf_obs_num(f, "nvml_devices", n);
	pf_obs_num(f, "matched", matched);
}

/* Append "; <text>" to a message buffer. */
static void add_part(char *buf, size_t len, const char *fmt, ...) PF_PRINTF(3, 4);
static void add_part(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l && l + 2 < len) {
		memcpy(buf + l, ", ", 3);
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

/*
 * One GPU's findings so far: the worst status and the code of the first
 * problem at it, the message parts, the remedies.
 */
struct gpu_verdict {
	enum pf_status st;
	unsigned int code; /* gpu_inventory_codes[]; 0 while it passes */
	char msg[512], fix[512];
};

/* A problem of the GPU at @st with code @code: the verdict keeps the first worst. */
static void worse(struct gpu_verdict *v, enum pf_status st, unsigned int code)
{
	if (pf_status_rank(st) > pf_status_rank(v->st)) {
		v->st = st;
		v->code = code;
	}
}

/*
 * The GPU's kernel driver: nvidia passes, none or another driver fails,
 * vfio-pci warns.  Returns true when the binding is not recorded at all.
 */
static bool judge_binding(const struct inv *inv, const struct gpu *g, struct gpu_verdict *v)
{
	if (!g->driver[0] && g->osdev[0]) {
		add_part(v->msg, sizeof(v->msg), "driver loaded (the topology export has %s on it)",
			 g->osdev);
	} else if (!g->driver[0] && !inv->live && !inv->bindings_recorded) {
		/* nothing recorded either way: judged by what else is known, else a skip */
		add_part(v->msg, sizeof(v->msg), "driver binding not recorded (no "
			 "/sys/bus/pci/devices/%s/driver under the root)", g->bdf);
		return true;
	} else if (!g->driver[0]) {
		worse(v, PF_STATUS_FAIL, 10);
		add_part(v->msg, sizeof(v->msg), "no kernel driver bound");
		add_part(v->fix, sizeof(v->fix), "load the NVIDIA driver (modprobe nvidia) and check "
			 "dmesg for RmInitAdapter errors on this GPU");
	} else if (!strcmp(g->driver, "vfio-pci")) {
		worse(v, PF_STATUS_WARN, 11);
		add_part(v->msg, sizeof(v->msg), "bound to vfio-pci (reserved for a VM)");
		add_part(v->fix, sizeof(v->fix), "unbind it from vfio-pci if this node runs jobs "
			 "itself");
	} else if (strcmp(g->driver, "nvidia")) {
		worse(v, PF_STATUS_FAIL, 12);
		add_part(v->msg, sizeof(v->msg), "bound to %s instead of nvidia", g->driver);
		add_part(v->fix, sizeof(v->fix), "blacklist %s and load the NVIDIA driver", g->driver);
	} else {
		add_part(v->msg, sizeof(v->msg), "bound to nvidia");
	}
	return false;
}

/* CUDA must see the GPU (a warning when CUDA_VISIBLE_DEVICES hides it); persistence. */
static void judge_cuda_persistence(const struct gpu_inventory_cfg *cfg, const struct inv *inv,
				   const struct gpu *g, struct gpu_verdict *v)
{
	if (inv->cuda_ok) {
		if (g->cuda >= 0) {
			add_part(v->msg, sizeof(v->msg), "CUDA device %d", g->cuda);
		} else {
			worse(v, inv->cuda_hidden ? PF_STATUS_WARN : PF_STATUS_FAIL, 13);
			add_part(v->msg, sizeof(v->msg), "not visible to CUDA%s",
				 inv->cuda_hidden ? " (CUDA_VISIBLE_DEVICES is set)" : "");
			add_part(v->fix, sizeof(v->fix), "reset the GPU (nvidia-smi -r -i %s) or "
				 "reboot; RMA it if it stays missing", g->bdf);
		}
	}
	if (g->persistence == 1) {
		add_part(v->msg, sizeof(v->msg), "persistence on");
	} else if (g->persistence == 0) {
		if (cfg->require_persistence) {
			worse(v, PF_STATUS_WARN, 14);
			add_part(v->fix, sizeof(v->fix), "enable persistence: systemctl enable --now "
				 "nvidia-persistenced");
		}
		add_part(v->msg, sizeof(v->msg), "persistence off");
	}
}

/* Memory health: retired pages above the limit and failed row remapping fail. */
static void judge_memory(const struct gpu_inventory_cfg *cfg, const struct gpu *g,
			 struct gpu_verdict *v)
{
	if (g->retired >= 0) {
		add_part(v->msg, sizeof(v->msg), "%ld retired page%s", g->retired,
			 g->retired == 1 ? "" : "s");
		if ((uint64_t)g->retired > cfg->max_retired_pages) {
			worse(v, PF_STATUS_FAIL, 15);
			add_part(v->msg, sizeof(v->msg), "above %llu",
				 (unsigned long long)cfg->max_retired_pages);
			add_part(v->fix, sizeof(v->fix), "too many retired pages: replace (RMA) the GPU");
		}
	}
	if (g->retired_pending == 1) {
		worse(v, PF_STATUS_WARN, 16);
		add_part(v->msg, sizeof(v->msg), "page retirement pending");
		add_part(v->fix, sizeof(v->fix), "reset the GPU or reboot to retire the pending pages");
	}
	if (g->remap_failure == 1) {
		worse(v, PF_STATUS_FAIL, 17);
		add_part(v->msg, sizeof(v->msg), "row remapping failed");
		add_part(v->fix, sizeof(v->fix), "row remapping failure: replace (RMA) the GPU");
	} else if (g->remap_pending == 1) {
		worse(v, PF_STATUS_WARN, 18);
		add_part(v->msg, sizeof(v->msg), "row remap pending");
		add_part(v->fix, sizeof(v->fix), "reset the GPU (nvidia-smi -r) to apply the pending "
			 "row remap");
	}
}

/* Report: what was seen of the GPU, and what it is held to. */
static void gpu_observed(struct pf_finding *f, const struct gpu_inventory_cfg *cfg,
			 const struct inv *inv, const struct gpu *g, bool unknown_binding)
{
	pf_obs_str(f, "driver", g->driver[0] ? g->driver : unknown_binding ? "unknown" : "none");
	if (g->osdev[0])
		pf_obs_str(f, "driver_osdev", g->osdev);
	if (g->model[0])
		pf_obs_str(f, "model", g->model);
	if (inv->cuda_ok)
		pf_obs_num(f, "cuda_device", g->cuda);
	if (g->persistence >= 0)
		pf_obs_bool(f, "persistence", g->persistence);
	if (g->retired >= 0)
		pf_obs_num(f, "retired_pages", (double)g->retired);
	if (g->retired_pending >= 0)
		pf_obs_bool(f, "retired_pages_pending", g->retired_pending);
	if (g->remap_pending >= 0) {
		pf_obs_num(f, "remapped_rows_correctable", g->remap_corr);
		pf_obs_num(f, "remapped_rows_uncorrectable", g->remap_unc);
		pf_obs_bool(f, "remap_pending", g->remap_pending);
		pf_obs_bool(f, "remap_failure", g->remap_failure);
	}
	pf_exp_str(f, "driver", "nvidia");
	if (cfg->require_persistence)
		pf_exp_bool(f, "persistence", true);
	pf_exp_num(f, "max_retired_pages", (double)cfg->max_retired_pages);
}

/* One GPU: its PCI identity, binding, CUDA visibility, persistence and memory health. */
static void judge_gpu(const struct gpu_inventory_cfg *cfg, const struct inv *inv,
		      const struct gpu *g, struct pf_result *res)
{
	struct gpu_verdict v = { .st = PF_STATUS_PASS };
	struct pf_finding *f;
	const char *name = g->cuda_name[0] ? g->cuda_name : g->model[0] ? g->model : "NVIDIA GPU";
	bool unknown_binding;

	add_part(v.msg, sizeof(v.msg), "%s", name);
	if (!g->pci) {
		worse(&v, PF_STATUS_WARN, 19);
		add_part(v.msg, sizeof(v.msg), "listed by the NVIDIA driver but not identified as an "
			 "NVIDIA GPU in the PCI inventory");
		add_part(v.fix, sizeof(v.fix), "check lspci -s %s; a capture may lack the sysfs "
			 "vendor/class files", g->bdf);
	}
	unknown_binding = judge_binding(inv, g, &v);
	judge_cuda_persistence(cfg, inv, g, &v);
	judge_memory(cfg, g, &v);
	/* nothing but the bus address known: say what is missing, never pass */
	if (unknown_binding && v.st == PF_STATUS_PASS && !inv->cuda_ok && g->persistence < 0 &&
	    g->retired < 0 && g->remap_pending < 0)
		v.st = PF_STATUS_SKIP;
	f = pf_add(res, v.st, g->bdf, "%s", v.msg);
	if (v.fix[0])
		pf_remedy(f, "%s", v.fix);
	if (v.code)
		pf_code(f, v.code);
	gpu_observed(f, cfg, inv, g, unknown_binding);
}

/* Xid events of one PCI address. */
struct xid_group {
	char subject[40];
	char pci[16];
	const struct gpu *gpu; /* NULL: not a GPU in the inventory */
	unsigned int xids[32];
	unsigned int counts[32];
	double last_age_h[32]; /* -1 unknown */
	size_t n;
};

static void xid_add(struct xid_group *g, const struct pf_xid *x, double age_h)
{
	size_t i;

	for (i = 0; i < g->n && g->xids[i] != x->xid; i++)
		;
	if (i == g->n) {
		if (g->n == PF_ARRAY_SIZE(g->xids))
			return;
		g->n++;
		g->xids[i] = x->xid;
		g->counts[i] = 0;
		g->last_age_h[i] = age_h;
	}
	g->counts[i]++;
	if (age_h >= 0 && (g->last_age_h[i] < 0 || age_h < g->last_age_h[i]))
		g->last_age_h[i] = age_h;
}

/*
 * Xid 63 (a row remap or page retirement recorded) and 92 (a high rate of
 * corrected single-bit errors) are the memory error containment at work: the
 * GPU keeps running, and the state they leave is what NVML's row remapper
 * reports (judged per GPU: pending warns, failed fails).  They fail only when
 * that state is bad; recorded and healthy, or not known (no NVML), they warn.
 */
static bool xid_is_remap_event(unsigned int xid)
{
	return xid == 63 || xid == 92;
}

static bool remap_state_bad(const struct gpu *g)
{
	return g && (g->remap_pending == 1 || g->remap_failure == 1 || g->retired_pending == 1);
}

static void xid_report(const struct gpu_inventory_cfg *cfg, const struct xid_group *g,
		       struct pf_result *res)
{
	enum pf_status st = PF_STATUS_WARN;
	bool demoted = false, off_bus = false;
	char msg[768] = "";
	cJSON *arr = cJSON_CreateArray();
	struct pf_finding *f;

	for (size_t i = 0; i < g->n; i++) {
		char num[16], age[48] = "";
		const char *meaning = pf_xid_meaning(g->xids[i]);
		cJSON *o = cJSON_CreateObject();

		snprintf(num, sizeof(num), "%u", g->xids[i]);
		if (pf_list_has(cfg->xid_fail, num)) {
			if (xid_is_remap_event(g->xids[i]) && !remap_state_bad(g->gpu))
				demoted = true;
			else
				st = PF_STATUS_FAIL;
			off_bus |= g->xids[i] == 79;
		}
		if (g->last_age_h[i] >= 0)
			snprintf(age, sizeof(age), ", last %.1f h ago", g->last_age_h[i]);
		add_part(msg, sizeof(msg), "Xid %u (%s) x%u%s", g->xids[i],
			 meaning ? meaning : "see NVIDIA's Xid catalogue", g->counts[i], age);
		cJSON_AddNumberToObject(o, "xid", g->xids[i]);
		cJSON_AddNumberToObject(o, "count", g->counts[i]);
		cJSON_AddStringToObject(o, "meaning", meaning ? meaning : "unknown");
		if (g->last_age_h[i] >= 0)
			cJSON_AddNumberToObject(o, "last_age_h", g->last_age_h[i]);
		cJSON_AddItemToArray(arr, o);
	}
	if (demoted && st != PF_STATUS_FAIL) {
		const struct gpu *gp = g->gpu;

		if (gp && gp->remap_pending == 0)
			add_part(msg, sizeof(msg), "a warning: NVML reports no row remap pending or "
				 "failed (%u correctable, %u uncorrectable rows remapped)",
				 gp->remap_corr, gp->remap_unc);
		else
			add_part(msg, sizeof(msg), "a warning: the row-remapper state is unknown "
				 "(NVML not queried), so no pending or failed remap is proven");
	}
	f = pf_add(res, st, g->subject, "%s", msg);
	pf_obs_json(f, "xids", arr);
	/* logged events only accumulate until reboot: --confirm says them once */
	for (size_t i = 0; i < g->n; i++) {
		char key[24];

		snprintf(key, sizeof(key), "xid_%u", g->xids[i]);
		pf_count(f, key, g->counts[i]);
	}
	pf_exp_str(f, "fail_on", cfg->xid_fail);
	if (demoted)
		pf_obs_bool(f, "remap_event_demoted", true);
	if (demoted && st != PF_STATUS_FAIL)
		pf_remedy(f, "the GPU contained the memory error; run nvidia-smi -q -d "
			  "ROW_REMAPPER,ECC and reset the GPU at the next drain if a remap is "
			  "pending; RMA it if remapping fails or Xid 64 appears");
	else if (st == PF_STATUS_FAIL)
		pf_remedy(f, "drain the node and reset the GPU (nvidia-smi -r) or reboot; for ECC "
			  "Xids (48, 63, 64, 92, 94, 95) read nvidia-smi -q -d ECC,ROW_REMAPPER; if "
			  "the Xid returns, run dcgmi diag -r 3 and RMA the GPU");
	else
		pf_remedy(f, "usually an application fault; if it repeats without one, run dcgmi "
			  "diag -r 3 on this GPU");
	/*
	 * NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors) resolves Xid 79,
	 * the GPU fallen off the bus, by restarting the node; the other Xids a site
	 * fails on by resetting the GPU first.
	 */
	if (st == PF_STATUS_FAIL)
		pf_code(f, off_bus ? 20 : 21);
	else
		pf_code(f, demoted ? 22 : 23);
}

/* An Xid not ignored and within the window; *age_h its age (-1 unknown). */
static bool xid_judged(const struct gpu_inventory_cfg *cfg, const struct pf_xid *x,
		       double uptime, double *age_h)
{
	char num[16];

	*age_h = -1;
	snprintf(num, sizeof(num), "%u", x->xid);
	if (pf_list_has(cfg->xid_ignore, num))
		return false;
	if (x->t_s >= 0 && uptime > 0 && uptime >= x->t_s)
		*age_h = (uptime - x->t_s) / 3600.0;
	return !(cfg->xid_window_h > 0 && *age_h > cfg->xid_window_h);
}

static void xid_scan(const struct pf_ctx *ctx, const struct gpu_inventory_cfg *cfg,
		     const struct inv *inv, struct pf_result *res)
{
	pf_autofree char *text = NULL, *err = NULL;
	pf_autofree struct pf_xid *ev = NULL;
	pf_autofree struct xid_group *groups = NULL;
	size_t n_ev = 0, n_groups = 0;
	double uptime;
	struct pf_finding *f;
	int r;

	r = ctx->prov->gpu->kmsg(ctx, &text, &err);
	if (r < 0) {
		pf_add(res, PF_STATUS_SKIP, "xid", "%s; Xid errors not checked",
		       err ? err : "kernel log unavailable");
		return;
	}
	uptime = pf_read_uptime(ctx->fs);
	pf_parse_kmsg_xids(text, &ev, &n_ev);
	groups = pf_xcalloc(n_ev ? n_ev : 1, sizeof(*groups));
	for (size_t i = 0; i < n_ev; i++) {
		const struct pf_xid *x = &ev[i];
		const struct gpu *gpu = NULL;
		double age_h = -1;
		char subject[40];
		size_t k;

		if (!xid_judged(cfg, x, uptime, &age_h))
			continue;
		snprintf(subject, sizeof(subject), "PCI:%s/xid", x->pci);
		for (size_t j = 0; j < inv->n; j++)
			if (pf_xid_matches_bdf(x->pci, inv->gpus[j].bdf)) {
				snprintf(subject, sizeof(subject), "%s/xid", inv->gpus[j].bdf);
				gpu = &inv->gpus[j];
			}
		for (k = 0; k < n_groups && strcmp(groups[k].subject, subject); k++)
			;
		if (k == n_groups) {
			snprintf(groups[k].subject, sizeof(groups[k].subject), "%s", subject);
			snprintf(groups[k].pci, sizeof(groups[k].pci), "%s", x->pci);
			groups[k].gpu = gpu;
			n_groups++;
		}
		xid_add(&groups[k], x, age_h);
	}
	for (size_t k = 0; k < n_groups; k++)
		xid_report(cfg, &groups[k], res);
	if (n_groups == 0) {
		if (cfg->xid_window_h > 0)
			f = pf_add(res, PF_STATUS_PASS, "xid",
				   "no Xid errors in the kernel log within %g h", cfg->xid_window_h);
		else
			f = pf_add(res, PF_STATUS_PASS, "xid", "no Xid errors in the kernel log");
		pf_obs_num(f, "xid_events", 0);
		pf_obs_num(f, "xid_events_outside_window", (double)n_ev);
	}
}

/* Whether the root records PCI driver links at all (then a missing one is a fact). */
static bool bindings_recorded(const struct pf_ctx *ctx)
{
	for (size_t i = 0; i < ctx->node->n_pci; i++) {
		pf_autofree char *target = NULL;
		char path[96];

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", ctx->node->pci[i].bdf);
		if (pf_fs_readlink(ctx->fs, path, &target) == 0)
			return true;
	}
	return false;
}

/* What proves the NVIDIA kernel driver loaded, besides its version file. */
static void driver_proof(struct inv *inv, int n_drv)
{
	inv->proof[0] = '\0';
	if (n_drv > 0) {
		snprintf(inv->proof, sizeof(inv->proof), "/proc/driver/nvidia/gpus lists %d GPU%s",
			 n_drv, n_drv == 1 ? "" : "s");
		return;
	}
	for (size_t i = 0; i < inv->n; i++)
		if (!strcmp(inv->gpus[i].driver, "nvidia")) {
			snprintf(inv->proof, sizeof(inv->proof), "GPU %s is bound to nvidia",
				 inv->gpus[i].bdf);
			return;
		}
	for (size_t i = 0; i < inv->n; i++)
		if (inv->gpus[i].osdev[0]) {
			snprintf(inv->proof, sizeof(inv->proof), "the topology export has %s on GPU %s",
				 inv->gpus[i].osdev, inv->gpus[i].bdf);
			return;
		}
}

/*
 * Gather the GPUs: NVIDIA functions of the PCI inventory, then those the
 * kernel driver initialised that the PCI inventory does not show as NVIDIA.
 * Returns how many are on the bus.
 */
static size_t gather_gpus(const struct pf_ctx *ctx, char **drv_gpus, int n_drv, struct inv *inv)
{
	size_t n_bus;

	for (size_t i = 0; i < ctx->node->n_gpus; i++) {
		int idx = ctx->node->gpus[i].pci;
		const struct pf_pci_dev *pci;

		if (idx < 0 || (size_t)idx >= ctx->node->n_pci)
			continue;
		pci = &ctx->node->pci[idx];
		if (pci->vendor != PF_PCI_VENDOR_NVIDIA)
			continue;
		init_gpu(&inv->gpus[inv->n], pci->bdf, pci);
		inv->gpus[inv->n++].osdev = ctx->node->gpus[i].driver_osdev;
	}
	n_bus = inv->n;
	for (int i = 0; i < n_drv; i++) {
		char bdf[16];

		if (pf_bdf_normalize(drv_gpus[i], bdf) < 0 || find_gpu(inv, bdf))
			continue;
		init_gpu(&inv->gpus[inv->n++], bdf, NULL);
	}
	return n_bus;
}

/* No GPU at all: a fail when the profile expects some, else a skip. */
static int judge_no_gpu(const struct gpu_inventory_cfg *cfg, struct pf_result *res)
{
	struct pf_finding *f;

	if (!cfg->expected_gpus)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus (vendor 0x10de, class 0x0300 "
			       "or 0x0302)");
	f = pf_add(res, PF_STATUS_FAIL, "pci",
		   "no NVIDIA GPU on the PCI bus, expected %llu",
		   (unsigned long long)cfg->expected_gpus);
	pf_code(f, 9);
	pf_remedy(f, "check lspci -d 10de: and the BMC event log; reseat the GPUs or "
		  "the baseboard; the GPUs may have fallen off the bus (reboot)");
	pf_obs_num(f, "gpus", 0);
	pf_exp_num(f, "gpus", (double)cfg->expected_gpus);
	return 0;
}

/*
 * The GPU count: other than expected_gpus fails, fewer on the bus than the
 * driver lists warns.
 */
static void judge_count(const struct gpu_inventory_cfg *cfg, const struct inv *inv, size_t n_bus,
			struct pf_result *res)
{
	struct pf_finding *f;

	if (cfg->expected_gpus && n_bus != cfg->expected_gpus) {
		f = pf_add(res, PF_STATUS_FAIL, "pci", "%zu NVIDIA GPU%s on the PCI bus, expected %llu",
			   n_bus, n_bus == 1 ? "" : "s", (unsigned long long)cfg->expected_gpus);
		pf_code(f, n_bus < cfg->expected_gpus ? 24 : 25);
		pf_remedy(f, "%s", n_bus < cfg->expected_gpus
			  ? "a GPU is missing from the bus: check lspci -d 10de:, the BMC event "
			    "log and dmesg (Xid 79, AER); reseat or RMA it"
			  : "more GPUs than the profile expects: fix gpu_inventory.expected_gpus");
	} else if (n_bus < inv->n) {
		f = pf_add(res, PF_STATUS_WARN, "pci", "%zu NVIDIA GPU%s on the PCI bus, but the "
			   "NVIDIA driver lists %zu", n_bus, n_bus == 1 ? "" : "s", inv->n);
		pf_code(f, 26);
		pf_remedy(f, "compare lspci -d 10de: with /proc/driver/nvidia/gpus; a capture may "
			  "lack the sysfs vendor/class files");
	} else {
		f = pf_add(res, PF_STATUS_PASS, "pci", "%zu NVIDIA GPU%s on the PCI bus", n_bus,
			   n_bus == 1 ? "" : "s");
	}
	pf_obs_num(f, "gpus", (double)n_bus);
	if (n_bus < inv->n)
		pf_obs_num(f, "driver_gpus_not_on_bus", (double)(inv->n - n_bus));
	if (cfg->expected_gpus)
		pf_exp_num(f, "gpus", (double)cfg->expected_gpus);
}

/* Judge the driver, CUDA, NVML, each GPU and the Xid log, in that order. */
static void judge_gpus(const struct pf_ctx *ctx, const struct gpu_inventory_cfg *cfg,
		       struct inv *inv, int n_drv, struct pf_result *res)
{
	pf_autofree char *cuda_why = NULL;
	int cuda_ver = -1;
	char kver[64];
	size_t drv;

	for (size_t i = 0; i < inv->n; i++)
		read_binding(ctx, &inv->gpus[i]);
	inv->live = pf_prov_can(ctx, PF_PROV_NODE);
	inv->bindings_recorded = inv->live || bindings_recorded(ctx);
	driver_proof(inv, n_drv);
	/* pf_add may move findings: the scans refer to the driver finding by index */
	drv = (size_t)(judge_driver(ctx, cfg, inv, res, kver, sizeof(kver)) - res->findings);
	cuda_scan(ctx, inv, drv, res, &cuda_ver, &cuda_why);
	judge_min_cuda(cfg, cuda_ver, cuda_why, res);
	nvml_scan(ctx, inv, drv, kver, res);
	for (size_t i = 0; i < inv->n; i++)
		judge_gpu(cfg, inv, &inv->gpus[i], res);
	xid_scan(ctx, cfg, inv, res);
}

/* Xid events the check would judge, whatever the bus shows now. */
static bool xids_logged(const struct pf_ctx *ctx, const struct gpu_inventory_cfg *cfg)
{
	pf_autofree char *text = NULL, *err = NULL;
	pf_autofree struct pf_xid *ev = NULL;
	size_t n_ev = 0;
	double uptime, age_h;

	if (ctx->prov->gpu->kmsg(ctx, &text, &err) < 0)
		return false;
	uptime = pf_read_uptime(ctx->fs);
	pf_parse_kmsg_xids(text, &ev, &n_ev);
	for (size_t i = 0; i < n_ev; i++)
		if (xid_judged(cfg, &ev[i], uptime, &age_h))
			return true;
	return false;
}

static void judge_no_gpu_xids(const struct gpu_inventory_cfg *cfg, struct pf_result *res)
{
	struct pf_finding *f;

	if (cfg->expected_gpus) {
		judge_no_gpu(cfg, res);
		return;
	}
	f = pf_add(res, PF_STATUS_WARN, "pci", "no NVIDIA GPU on the PCI bus now, but the kernel "
		   "log holds Xid events: a GPU may have fallen off the bus");
	pf_code(f, 27);
	pf_remedy(f, "read the Xid findings; check lspci -d 10de: and the BMC event log; reset "
		  "or reboot to bring the GPU back");
	pf_obs_num(f, "gpus", 0);
}

static int gpu_inventory_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct gpu_inventory_cfg *cfg = config;
	pf_autofree struct gpu *gpus = NULL;
	pf_autostrv char **drv_gpus = NULL;
	struct inv inv = { 0 };
	size_t n_bus;
	int n_drv;

	if (!ctx->node) {
		pf_add(res, PF_STATUS_ERROR, NULL, "the node inventory was not loaded");
		return -ENODATA;
	}
	if (!ctx->prov) {
		pf_add(res, PF_STATUS_ERROR, NULL, "no GPU provider (%s providers)",
		       ctx->prov ? ctx->prov->name : "no");
		return -ENODEV;
	}
	n_drv = pf_fs_list(ctx->fs, "/proc/driver/nvidia/gpus", &drv_gpus);
	if (n_drv < 0)
		n_drv = 0;
	gpus = pf_xcalloc(ctx->node->n_gpus + (size_t)n_drv + 1, sizeof(*gpus));
	inv.gpus = gpus;
	n_bus = gather_gpus(ctx, drv_gpus, n_drv, &inv);
	inv.cuda_hidden = pf_env_isset(ctx, "CUDA_VISIBLE_DEVICES");
	if (inv.n == 0 && !xids_logged(ctx, cfg))
		return judge_no_gpu(cfg, res);
	if (inv.n == 0) {
		/* a GPU that fell off the bus: its Xids are the evidence */
		judge_no_gpu_xids(cfg, res);
		xid_scan(ctx, cfg, &inv, res);
		return 0;
	}
	judge_count(cfg, &inv, n_bus, res);
	judge_gpus(ctx, cfg, &inv, n_drv, res);
	/* a count is the summary of a healthy node; otherwise the first problem is */
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status != PF_STATUS_PASS &&
		    res->findings[i].status != PF_STATUS_SKIP)
			return 0;
	pf_summary(res, "%zu NVIDIA GPU%s on the bus%s", inv.n, inv.n == 1 ? "" : "s",
		   inv.cuda_ok ? "" : " (CUDA not queried)");
	return 0;
}

static const struct pf_code gpu_inventory_codes[] = {
	{ 1, PF_ACTION_NONE, "the NVIDIA driver is loaded but its version is unknown, so min_driver is not judged" },
	{ 2, PF_ACTION_RELOAD_DRIVER, "the NVIDIA kernel driver is not loaded" },
	{ 3, PF_ACTION_RECONFIGURE, "the NVIDIA driver is older than min_driver" },
	{ 4, PF_ACTION_RELOAD_DRIVER, "cuInit fails with NVIDIA GPUs on the PCI bus" },
	{ 5, PF_ACTION_RESET_GPU, "CUDA sees fewer GPUs than are on the PCI bus" },
	{ 6, PF_ACTION_RECONFIGURE, "the driver supports an older CUDA than min_cuda" },
	{ 7, PF_ACTION_RELOAD_DRIVER, "nvmlInit fails: the driver is not loaded or its library and kernel module differ" },
	{ 8, PF_ACTION_RELOAD_DRIVER, "the NVML library and the loaded kernel module are different driver versions" },
	{ 9, PF_ACTION_RESEAT_OR_REPLACE, "no NVIDIA GPU on the PCI bus where the profile expects some" },
	{ 10, PF_ACTION_RELOAD_DRIVER, "a GPU has no kernel driver bound" },
	{ 11, PF_ACTION_RECONFIGURE, "a GPU is bound to vfio-pci (reserved for a VM)" },
	{ 12, PF_ACTION_RECONFIGURE, "a GPU is bound to another driver than nvidia" },
	{ 13, PF_ACTION_RESET_GPU, "a GPU on the PCI bus is not visible to CUDA" },
	{ 14, PF_ACTION_RECONFIGURE, "a GPU's persistence mode is off" },
	{ 15, PF_ACTION_CONTACT_VENDOR, "a GPU has more retired pages than max_retired_pages (RMA)" },
	{ 16, PF_ACTION_RESET_GPU, "a GPU has page retirement pending" },
	{ 17, PF_ACTION_CONTACT_VENDOR, "a GPU's row remapping failed (RMA)" },
	{ 18, PF_ACTION_RESET_GPU, "a GPU has a row remap pending (a reset applies it)" },
	{ 19, PF_ACTION_NONE, "a GPU the NVIDIA driver lists is not identified as an NVIDIA GPU in the PCI inventory" },
	{ 20, PF_ACTION_REBOOT, "Xid 79 (the GPU fell off the bus) in the kernel log, on the fail list" },
	{ 21, PF_ACTION_RESET_GPU, "Xids on the fail list (xid_fail) in the kernel log" },
	{ 22, PF_ACTION_NONE, "a row-remap Xid the GPU contained (no remap pending or failed)" },
	{ 23, PF_ACTION_NONE, "Xids not on the fail list in the kernel log (usually an application fault)" },
	{ 24, PF_ACTION_RESEAT_OR_REPLACE, "fewer NVIDIA GPUs on the PCI bus than the profile expects" },
	{ 25, PF_ACTION_RECONFIGURE, "more NVIDIA GPUs on the PCI bus than the profile expects (gpu_inventory.expected_gpus)" },
	{ 26, PF_ACTION_NONE, "the PCI bus and the NVIDIA driver count different GPUs" },
	{ 27, PF_ACTION_REBOOT, "no NVIDIA GPU on the PCI bus now, but the kernel log holds Xids: a GPU may have fallen off the bus" },
	{ 0 },
};

const struct pf_check pf_check_gpu_inventory = {
	.name = "gpu_inventory",
	.summary = "NVIDIA GPUs on the bus vs the driver, CUDA and NVML; Xid errors",
	.tags = "gpu,static",
	.reads = "node inventory (PCI), /sys/bus/pci/devices/<bdf>/driver, "
		 "/proc/driver/nvidia/{version,gpus/<bdf>/information}, libcuda.so.1, "
		 "libnvidia-ml.so.1, /dev/kmsg (<root>/preflight/kmsg), /proc/uptime",
	.params = gpu_inventory_params,
	.codes = gpu_inventory_codes,
	.cfg_size = sizeof(struct gpu_inventory_cfg),
	.validate = gpu_inventory_validate,
	.timeout_s = 30,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY | PF_CHECK_LOADS_LIBRARIES,
	.run = gpu_inventory_run,
};
