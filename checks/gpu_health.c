// SPDX-License-Identifier: MIT
/*
 * gpu_health - is the GPU healthy: not held down by a hardware slowdown,
 * inside its thermal margin, at its board power, without uncorrected ECC
 * errors or PCIe replays, in persistence mode, with every device node CUDA
 * opens.
 *
 * Per GPU of the inventory, from ctx->prov->gpu->nvml_health (live: NVML;
 * recorded: <root>/preflight/nvml/<bdf>/health), one finding per question,
 * subject "<bdf>/<aspect>":
 *   clocks       nvmlDeviceGetCurrentClocksEventReasons: HW slowdown, HW
 *                thermal or HW power brake set fails, SW thermal warns
 *   thermal      nvmlDeviceGetTemperature against the slowdown threshold
 *                (nvmlDeviceGetTemperatureThreshold): at or above it fails,
 *                closer than min_margin_c warns
 *   power        nvmlDeviceGetPowerManagementLimit below
 *                ...DefaultLimit * min_power_pct warns (a power cap)
 *   ecc          nvmlDeviceGetTotalEccErrors(UNCORRECTED): volatile (since
 *                the driver loaded) above 0 fails; aggregate (the board's
 *                life) above ecc_aggregate_max warns
 *   pcie_replay  nvmlDeviceGetPcieReplayCounter above pcie_replay_max warns
 *   persistence  nvmlDeviceGetPersistenceMode disabled warns
 * A query the GPU does not support (NVML_ERROR_NOT_SUPPORTED), that the
 * library lacks or that a snapshot did not record is a skip naming it.
 *
 * Device nodes, subject "/dev/...", from ctx->prov->devnodes (live: /dev;
 * recorded: <root>/preflight/ls/dev/.ls and ls/dev/nvidia-caps):
 * nvidiactl and nvidia-uvm (CUDA fails without them; NVIDIA/gpu-operator
 * #2685 reported Ready without nvidia-uvm), one nvidia<N> per GPU, and
 * nvidia-uvm-tools and every nvidia-caps entry as character devices (warn).
 */
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

struct gpu_health_cfg {
	uint64_t min_margin_c;
	uint64_t min_power_pct;
	uint64_t ecc_aggregate_max;
	uint64_t pcie_replay_max;
	bool persistence;
	bool devnodes;
};

static const struct pf_param gpu_health_params[] = {
	PF_PARAM_U64(struct gpu_health_cfg, min_margin_c, "10", 0, 100, "C",
		     "warn when the GPU is closer than this to its slowdown temperature"),
	PF_PARAM_U64(struct gpu_health_cfg, min_power_pct, "100", 0, 100, "%",
		     "warn when the power limit is below this share of the board's default"),
	PF_PARAM_U64(struct gpu_health_cfg, ecc_aggregate_max, "0", 0, 1e12, "errors",
		     "warn above this many uncorrected ECC errors over the board's life"),
	PF_PARAM_U64(struct gpu_health_cfg, pcie_replay_max, "0", 0, 1e12, "replays",
		     "warn above this many PCIe replays since the driver loaded"),
	PF_PARAM_BOOL(struct gpu_health_cfg, persistence, "true",
		      "warn when persistence mode is off"),
	PF_PARAM_BOOL(struct gpu_health_cfg, devnodes, "true",
		      "judge the device nodes CUDA opens (/dev/nvidia*)"),
	PF_PARAM_END,
};

/* nvmlClocksEventReason* bits (nvml.h), with how they are judged. */
static const struct {
	unsigned long long bit;
	const char *name;
	enum pf_status st;
} event_bits[] = {
	{ PF_NVML_CLOCKS_EVENT_HW_SLOWDOWN, "HW slowdown", PF_STATUS_FAIL },
	{ PF_NVML_CLOCKS_EVENT_HW_THERMAL, "HW thermal slowdown", PF_STATUS_FAIL },
	{ PF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE, "HW power brake slowdown", PF_STATUS_FAIL },
	{ PF_NVML_CLOCKS_EVENT_SW_THERMAL, "SW thermal slowdown", PF_STATUS_WARN },
	{ PF_NVML_CLOCKS_EVENT_GPU_IDLE, "GPU idle", PF_STATUS_PASS },
	{ PF_NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS, "applications clocks", PF_STATUS_PASS },
	{ PF_NVML_CLOCKS_EVENT_SW_POWER_CAP, "SW power cap", PF_STATUS_PASS },
	{ PF_NVML_CLOCKS_EVENT_SYNC_BOOST, "sync boost", PF_STATUS_PASS },
	{ PF_NVML_CLOCKS_EVENT_DISPLAY_CLOCK, "display clock", PF_STATUS_PASS },
};

/* The GPU and what NVML answered for it. */
struct gpu {
	const char *bdf;
	char subject[48];
	struct pf_nvml_health h;
};

static const char *aspect_subject(struct gpu *g, const char *aspect)
{
	snprintf(g->subject, sizeof(g->subject), "%s/%s", g->bdf, aspect);
	return g->subject;
}

/*
 * True when every fact of @facts is answered; else a skip (not supported,
 * not asked, not recorded) or an error (any other NVML code) naming the query.
 */
static bool have(struct pf_result *res, struct gpu *g, const char *aspect, const int *facts,
		 size_t n, bool live)
{
	for (size_t i = 0; i < n; i++) {
		const struct pf_nvml_val *v = &g->h.v[facts[i]];
		const char *q = pf_nvml_health_queries[facts[i]];
		struct pf_finding *f;

		if (!v->known) {
			pf_add(res, PF_STATUS_SKIP, aspect_subject(g, aspect), "%s %s", q,
			       live ? "is not in this libnvidia-ml (driver too old)"
				    : "was not recorded");
			return false;
		}
		if (v->r == PF_NVML_SUCCESS)
			continue;
		if (v->r == PF_NVML_ERROR_NOT_SUPPORTED || v->r == PF_NVML_ERROR_NO_PERMISSION) {
			pf_add(res, PF_STATUS_SKIP, aspect_subject(g, aspect), "%s: %s", q,
			       v->r == PF_NVML_ERROR_NOT_SUPPORTED ? "not supported on this GPU"
								    : "no permission (run as root)");
		} else {
			f = pf_add(res, PF_STATUS_ERROR, aspect_subject(g, aspect),
				   "%s failed: NVML error %u", q, v->r);
			pf_obs_num(f, "nvml_error", v->r);
		}
		return false;
	}
	return true;
}

static void judge_clocks(struct pf_result *res, struct gpu *g, bool live)
{
	static const int facts[] = { PF_NVML_H_CLOCK_EVENTS };
	pf_autostrbuf struct pf_strbuf bad = PF_STRBUF_INIT, all = PF_STRBUF_INIT;
	enum pf_status st = PF_STATUS_PASS;
	unsigned long long mask;
	size_t n_bad = 0, n_all = 0;
	struct pf_finding *f;
	char hex[24];

	if (!have(res, g, "clocks", facts, 1, live))
		return;
	mask = g->h.v[PF_NVML_H_CLOCK_EVENTS].v;
	for (size_t i = 0; i < PF_ARRAY_SIZE(event_bits); i++) {
		if (!(mask & event_bits[i].bit))
			continue;
		pf_strbuf_item(&all, &n_all, 9, "%s", event_bits[i].name);
		if (event_bits[i].st == PF_STATUS_PASS)
			continue;
		pf_strbuf_item(&bad, &n_bad, 9, "%s", event_bits[i].name);
		if (event_bits[i].st > st)
			st = event_bits[i].st;
	}
	snprintf(hex, sizeof(hex), "0x%llx", mask);
	if (st == PF_STATUS_PASS) {
		f = pf_add(res, st, aspect_subject(g, "clocks"), "no slowdown holds the clocks "
			   "(event reasons %s%s%s)", hex, n_all ? ": " : "", n_all ? all.buf : "");
	} else {
		f = pf_add(res, st, aspect_subject(g, "clocks"), "%s active (event reasons %s)",
			   bad.buf, hex);
		if (st == PF_STATUS_FAIL) {
			pf_remedy(f, "a hardware slowdown at rest is the board's cooling or power "
				  "supply: check fans, airflow and the PSUs (nvidia-smi -q -d "
				  "PERFORMANCE); replace the board if it persists");
			pf_code(f, 1);
		} else {
			pf_remedy(f, "the driver is slowing the GPU for heat: check the node's cooling "
				  "(nvidia-smi -q -d TEMPERATURE,PERFORMANCE)");
			pf_code(f, 2);
		}
	}
	pf_obs_str(f, "clocks_event_reasons", hex);
}

static void judge_thermal(struct pf_result *res, struct gpu *g, const struct gpu_health_cfg *cfg,
			  bool live)
{
	static const int facts[] = { PF_NVML_H_TEMP, PF_NVML_H_TEMP_SLOWDOWN };
	unsigned long long t, lim;
	struct pf_finding *f;

	if (!have(res, g, "thermal", facts, 2, live))
		return;
	t = g->h.v[PF_NVML_H_TEMP].v;
	lim = g->h.v[PF_NVML_H_TEMP_SLOWDOWN].v;
	if (t >= lim) {
		f = pf_add(res, PF_STATUS_FAIL, aspect_subject(g, "thermal"), "%llu C, at or above "
			   "its slowdown temperature %llu C", t, lim);
		pf_remedy(f, "the GPU is throttling for heat: check fans, airflow and the cold "
			  "plate or heat sink");
		pf_code(f, 3);
	} else if (lim - t < cfg->min_margin_c) {
		f = pf_add(res, PF_STATUS_WARN, aspect_subject(g, "thermal"), "%llu C, %llu C below "
			   "its slowdown temperature %llu C (margin under %llu C)", t, lim - t, lim,
			   (unsigned long long)cfg->min_margin_c);
		pf_remedy(f, "a GPU this warm will slow down under load: check the node's cooling");
		pf_code(f, 4);
	} else {
		f = pf_add(res, PF_STATUS_PASS, aspect_subject(g, "thermal"), "%llu C, %llu C below "
			   "its slowdown temperature %llu C", t, lim - t, lim);
	}
	pf_obs_num(f, "temperature_c", (double)t);
	pf_obs_num(f, "slowdown_c", (double)lim);
	pf_exp_num(f, "min_margin_c", (double)cfg->min_margin_c);
}

static void judge_power(struct pf_result *res, struct gpu *g, const struct gpu_health_cfg *cfg,
			bool live)
{
	static const int facts[] = { PF_NVML_H_POWER_LIMIT, PF_NVML_H_POWER_DEFAULT };
	unsigned long long lim, def;
	struct pf_finding *f;

	if (!have(res, g, "power", facts, 2, live))
		return;
	lim = g->h.v[PF_NVML_H_POWER_LIMIT].v;
	def = g->h.v[PF_NVML_H_POWER_DEFAULT].v;
	if (lim * 100 < def * cfg->min_power_pct) {
		f = pf_add(res, PF_STATUS_WARN, aspect_subject(g, "power"), "power limit %.0f W, "
			   "below the board's default %.0f W", lim / 1000.0, def / 1000.0);
		pf_remedy(f, "nvidia-smi -i %s -pl %.0f (as root), and find what set the cap "
			  "(a site script, nvidia-smi in a prolog, DCGM policy)", g->bdf, def / 1000.0);
		pf_code(f, 5);
	} else {
		f = pf_add(res, PF_STATUS_PASS, aspect_subject(g, "power"), "power limit %.0f W "
			   "(default %.0f W)", lim / 1000.0, def / 1000.0);
	}
	pf_obs_num(f, "power_limit_w", lim / 1000.0);
	pf_obs_num(f, "default_limit_w", def / 1000.0);
	pf_exp_num(f, "min_power_pct", (double)cfg->min_power_pct);
}

static void judge_ecc(struct pf_result *res, struct gpu *g, const struct gpu_health_cfg *cfg,
		      bool live)
{
	static const int facts[] = { PF_NVML_H_ECC_VOLATILE, PF_NVML_H_ECC_AGGREGATE };
	unsigned long long vol, agg;
	struct pf_finding *f;

	if (!have(res, g, "ecc", facts, 2, live))
		return;
	vol = g->h.v[PF_NVML_H_ECC_VOLATILE].v;
	agg = g->h.v[PF_NVML_H_ECC_AGGREGATE].v;
	if (vol) {
		f = pf_add(res, PF_STATUS_FAIL, aspect_subject(g, "ecc"), "%llu uncorrected ECC "
			   "error%s since the driver loaded (%llu over the board's life)", vol,
			   vol == 1 ? "" : "s", agg);
		pf_remedy(f, "drain the node and reset the GPU (nvidia-smi -r -i %s) so that row "
			  "remapping takes effect; replace the board if errors return", g->bdf);
		pf_code(f, 6);
	} else if (agg > cfg->ecc_aggregate_max) {
		f = pf_add(res, PF_STATUS_WARN, aspect_subject(g, "ecc"), "%llu uncorrected ECC "
			   "error%s over the board's life (none since the driver loaded)", agg,
			   agg == 1 ? "" : "s");
		pf_remedy(f, "watch this board: compare with its remapped rows (gpu_inventory) and "
			  "ask the vendor when the count grows");
		pf_code(f, 7);
	} else {
		f = pf_add(res, PF_STATUS_PASS, aspect_subject(g, "ecc"), "no uncorrected ECC "
			   "errors since the driver loaded; %llu over the board's life", agg);
	}
	pf_obs_num(f, "uncorrected_volatile", (double)vol);
	pf_obs_num(f, "uncorrected_aggregate", (double)agg);
	pf_exp_num(f, "ecc_aggregate_max", (double)cfg->ecc_aggregate_max);
}

static void judge_replay(struct pf_result *res, struct gpu *g, const struct gpu_health_cfg *cfg,
			 bool live)
{
	static const int facts[] = { PF_NVML_H_PCIE_REPLAY };
	unsigned long long n;
	struct pf_finding *f;

	if (!have(res, g, "pcie_replay", facts, 1, live))
		return;
	n = g->h.v[PF_NVML_H_PCIE_REPLAY].v;
	if (n > cfg->pcie_replay_max) {
		f = pf_add(res, PF_STATUS_WARN, aspect_subject(g, "pcie_replay"), "%llu PCIe replays "
			   "since the driver loaded (at most %llu expected)", n,
			   (unsigned long long)cfg->pcie_replay_max);
		pf_remedy(f, "a replaying PCIe link is marginal: reseat the GPU or its riser; see "
			  "pcie_link and the AER counters of %s", g->bdf);
		pf_code(f, 8);
	} else {
		f = pf_add(res, PF_STATUS_PASS, aspect_subject(g, "pcie_replay"), "%llu PCIe replays "
			   "since the driver loaded", n);
	}
	pf_obs_num(f, "pcie_replay_counter", (double)n);
	pf_exp_num(f, "pcie_replay_max", (double)cfg->pcie_replay_max);
}

static void judge_persistence(struct pf_result *res, struct gpu *g, bool live)
{
	static const int facts[] = { PF_NVML_H_PERSISTENCE };
	struct pf_finding *f;

	if (!have(res, g, "persistence", facts, 1, live))
		return;
	if (g->h.v[PF_NVML_H_PERSISTENCE].v) {
		f = pf_add(res, PF_STATUS_PASS, aspect_subject(g, "persistence"), "persistence mode "
			   "enabled");
	} else {
		f = pf_add(res, PF_STATUS_WARN, aspect_subject(g, "persistence"), "persistence mode "
			   "disabled: the driver tears the GPU down between jobs and each job "
			   "waits for it to initialise");
		pf_remedy(f, "systemctl enable --now nvidia-persistenced");
		pf_code(f, 9);
	}
	pf_obs_bool(f, "persistence_mode", g->h.v[PF_NVML_H_PERSISTENCE].v != 0);
}

/* One GPU: its facts, then each question. */
static void judge_gpu(const struct pf_ctx *ctx, const struct gpu_health_cfg *cfg, const char *bdf,
		      struct pf_result *res)
{
	struct gpu g = { .bdf = bdf };
	char *why = NULL;
	bool live = pf_prov_can(ctx, PF_PROV_NODE);
	int r = ctx->prov->gpu->nvml_health(ctx, bdf, &g.h, &why);

	if (r < 0) {
		pf_add(res, r == -ENOENT || r == -ENOSYS || r == -ENOMEDIUM ? PF_STATUS_SKIP
									    : PF_STATUS_ERROR,
		       bdf, "NVML health facts: %s", why ? why : strerror(-r));
		free(why);
		return;
	}
	free(why);
	judge_clocks(res, &g, live);
	judge_thermal(res, &g, cfg, live);
	judge_power(res, &g, cfg, live);
	judge_ecc(res, &g, cfg, live);
	judge_replay(res, &g, cfg, live);
	if (cfg->persistence)
		judge_persistence(res, &g, live);
}

/* --- device nodes ------------------------------------------------------------ */

static bool is_chr(const struct pf_devnodes *d, const char *name)
{
	const struct pf_devnode *n = pf_devnodes_find(d, name);

	return n && n->type == 'c';
}

static void judge_required(struct pf_result *res, const struct pf_devnodes *d, const char *name,
			   enum pf_status bad, unsigned int code, const char *why)
{
	char subject[64];
	struct pf_finding *f;

	snprintf(subject, sizeof(subject), "/dev/%s", name);
	if (is_chr(d, name)) {
		f = pf_add(res, PF_STATUS_PASS, subject, "character device present");
		return;
	}
	f = pf_add(res, bad, subject, "%s: %s", pf_devnodes_find(d, name) ? "not a character device"
									  : "missing", why);
	pf_remedy(f, "nvidia-modprobe -u -c=0 creates nvidiactl, nvidia-uvm and nvidia-uvm-tools "
		  "(as root; or modprobe nvidia-uvm), and pass them to containers");
	pf_code(f, code);
}

/* /dev/nvidia<N> count against the GPUs; nvidiactl, nvidia-uvm, nvidia-uvm-tools. */
static void judge_dev(struct pf_result *res, const struct pf_devnodes *d, size_t n_gpus)
{
	size_t n = 0;
	struct pf_finding *f;

	for (size_t i = 0; i < d->n; i++) {
		const char *s = d->v[i].name + 6;

		if (!strncmp(d->v[i].name, "nvidia", 6) && *s && strspn(s, "0123456789") == strlen(s) &&
		    d->v[i].type == 'c')
			n++;
	}
	if (n < n_gpus) {
		f = pf_add(res, PF_STATUS_FAIL, "/dev/nvidia<N>", "%zu GPU device node%s for %zu GPUs "
			   "on the bus: CUDA cannot open the others", n, n == 1 ? "" : "s", n_gpus);
		pf_remedy(f, "nvidia-modprobe -c=<minor> for each GPU (as root), or check that every "
			  "GPU is bound to nvidia (gpu_inventory)");
		pf_code(f, 11);
	} else {
		f = pf_add(res, PF_STATUS_PASS, "/dev/nvidia<N>", "%zu GPU device node%s for %zu "
			   "GPUs", n, n == 1 ? "" : "s", n_gpus);
	}
	pf_obs_num(f, "device_nodes", (double)n);
	pf_exp_num(f, "gpus", (double)n_gpus);
	judge_required(res, d, "nvidiactl", PF_STATUS_FAIL, 10,
		       "every CUDA process opens it first");
	judge_required(res, d, "nvidia-uvm", PF_STATUS_FAIL, 10,
		       "cuInit fails without unified memory (nvidia-uvm not loaded)");
	judge_required(res, d, "nvidia-uvm-tools", PF_STATUS_WARN, 12,
		       "profilers and debuggers (Nsight, cuda-gdb) need it");
}

/* Every /dev/nvidia-caps entry a character device; no directory is fine (no MIG caps). */
static void judge_caps(const struct pf_ctx *ctx, struct pf_result *res, bool live)
{
	struct pf_devnodes d = { 0 };
	pf_autostrbuf struct pf_strbuf bad = PF_STRBUF_INIT;
	size_t n_bad = 0, n_chr = 0;
	struct pf_finding *f;
	int r = ctx->prov->devnodes(ctx, "/dev/nvidia-caps", &d);

	if (r == -ENOENT && live)
		r = 0; /* no directory: as a snapshot records it, an empty listing */
	if (r < 0) {
		pf_add(res, PF_STATUS_SKIP, "/dev/nvidia-caps", "not %s (%s)",
		       live ? "listed" : "recorded", strerror(-r));
		return;
	}
	for (size_t i = 0; i < d.n; i++) {
		if (d.v[i].type == 'c')
			n_chr++;
		else
			pf_strbuf_item(&bad, &n_bad, 4, "%s", d.v[i].name);
	}
	if (n_bad) {
		f = pf_add(res, PF_STATUS_WARN, "/dev/nvidia-caps", "%zu entr%s not a character "
			   "device: %s", n_bad, n_bad == 1 ? "y is" : "ies are", bad.buf);
		pf_remedy(f, "remove them and let nvidia-modprobe recreate /dev/nvidia-caps "
			  "(nvidia-modprobe -f /proc/driver/nvidia/capabilities/...)");
		pf_code(f, 13);
	} else if (!n_chr) {
		f = pf_add(res, PF_STATUS_PASS, "/dev/nvidia-caps", "absent or empty: no capability "
			   "devices (nvidia-modprobe creates them for MIG and IMEX)");
	} else {
		f = pf_add(res, PF_STATUS_PASS, "/dev/nvidia-caps", "%zu capability device%s",
			   n_chr, n_chr == 1 ? "" : "s");
	}
	pf_obs_num(f, "entries", (double)d.n);
	pf_devnodes_release(&d);
}

static void judge_devnodes(const struct pf_ctx *ctx, struct pf_result *res, size_t n_gpus)
{
	struct pf_devnodes d = { 0 };
	bool live = pf_prov_can(ctx, PF_PROV_NODE);
	int r = ctx->prov->devnodes(ctx, "/dev", &d);

	if (r < 0) {
		pf_add(res, PF_STATUS_SKIP, "/dev", "device nodes not %s (%s): /dev/nvidia* not "
		       "judged", live ? "listed" : "recorded", strerror(-r));
		return;
	}
	judge_dev(res, &d, n_gpus);
	pf_devnodes_release(&d);
	judge_caps(ctx, res, live);
}

/* --- the check ------------------------------------------------------------- */

static int gpu_health_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct gpu_health_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	size_t n_bad = 0, n_skip = 0, n = 0;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	if (!node->n_gpus)
		return pf_skip(res, "no NVIDIA GPUs on the PCI bus");
	if (!ctx->prov || !ctx->prov->gpu)
		return pf_error(res, -ENOSYS, "no GPU provider");
	for (size_t i = 0; i < node->n_gpus; i++)
		judge_gpu(ctx, cfg, node->pci[node->gpus[i].pci].bdf, res);
	if (cfg->devnodes)
		judge_devnodes(ctx, res, node->n_gpus);
	for (size_t i = 0; i < res->n_findings; i++, n++) {
		enum pf_status st = res->findings[i].status;

		n_bad += st == PF_STATUS_FAIL || st == PF_STATUS_WARN || st == PF_STATUS_ERROR;
		n_skip += st == PF_STATUS_SKIP;
	}
	if (n_skip == n)
		pf_summary(res, "nothing to judge on %zu GPU%s (%zu skipped)", node->n_gpus,
			   node->n_gpus == 1 ? "" : "s", n_skip);
	else if (!n_bad)
		pf_summary(res, "%zu GPU%s healthy (%zu checks, %zu skipped)", node->n_gpus,
			   node->n_gpus == 1 ? "" : "s", n - n_skip, n_skip);
	else
		pf_summary(res, "%zu of %zu GPU health checks not passed on %zu GPU%s", n_bad, n,
			   node->n_gpus, node->n_gpus == 1 ? "" : "s");
	return 0;
}

static const struct pf_code gpu_health_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "a hardware slowdown (HW slowdown, HW thermal or HW "
	  "power brake) holds the GPU's clocks down" },
	{ 2, PF_ACTION_RESEAT_OR_REPLACE, "the driver's thermal slowdown holds the GPU's clocks down" },
	{ 3, PF_ACTION_RESEAT_OR_REPLACE, "the GPU is at or above its slowdown temperature" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "the GPU is closer to its slowdown temperature than the "
	  "profile's margin" },
	{ 5, PF_ACTION_RECONFIGURE, "the GPU's power limit is below the board's default" },
	{ 6, PF_ACTION_RESET_GPU, "uncorrected ECC errors since the driver loaded" },
	{ 7, PF_ACTION_CONTACT_VENDOR, "uncorrected ECC errors over the board's life above the "
	  "profile's maximum" },
	{ 8, PF_ACTION_RESEAT_OR_REPLACE, "PCIe replays above the profile's maximum" },
	{ 9, PF_ACTION_RECONFIGURE, "persistence mode is off" },
	{ 10, PF_ACTION_RELOAD_DRIVER, "/dev/nvidiactl or /dev/nvidia-uvm is missing" },
	{ 11, PF_ACTION_RELOAD_DRIVER, "fewer /dev/nvidia<N> device nodes than GPUs" },
	{ 12, PF_ACTION_RELOAD_DRIVER, "/dev/nvidia-uvm-tools is missing" },
	{ 13, PF_ACTION_RELOAD_DRIVER, "a /dev/nvidia-caps entry is not a character device" },
	{ 0 },
};

const struct pf_check pf_check_gpu_health = {
	.name = "gpu_health",
	.summary = "GPUs not slowed down, within thermal margin and power, no uncorrected ECC, "
		   "device nodes present",
	.tags = "gpu,static",
	.reads = "libnvidia-ml.so.1 (<root>/preflight/nvml/<bdf>/health), /dev/nvidia*, "
		 "/dev/nvidia-caps (<root>/preflight/ls/dev/.ls, ls/dev/nvidia-caps)",
	.params = gpu_health_params,
	.codes = gpu_health_codes,
	.cfg_size = sizeof(struct gpu_health_cfg),
	.timeout_s = 20,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = gpu_health_run,
};
