// SPDX-License-Identifier: MIT
/*
 * nvlink_links - are every GPU's NVLink links up, and clean.
 *
 * Per GPU of the inventory, from ctx->prov->gpu->nvml_nvlink (live: NVML;
 * recorded: <root>/preflight/nvml/<bdf>/nvlink):
 *   <bdf>/links   every link nvmlDeviceGetNvLinkState answers for is
 *                 active (NVML_FEATURE_ENABLED), and there are as many as
 *                 the GPU has: expected_links, or by PCI device ID the 18
 *                 NVLink links of an H100/H200/H800 SXM, a GH200 and a
 *                 GB200/GB300 (NVIDIA's H100 and GB200 NVL72 datasheets;
 *                 device IDs from NVIDIA/open-gpu-kernel-modules README.md,
 *                 as src/node/superchip.c).  A GPU whose link 0 answers
 *                 NVML_ERROR_NOT_SUPPORTED has no NVLink (a PCIe card): skip.
 *   <bdf>/errors  nvmlDeviceGetNvLinkErrorCounter's DL replay, recovery,
 *                 CRC flit and CRC data counters of the active links.  Live:
 *                 read twice window_ms apart; a recovery (the link retrained)
 *                 fails, a replay or CRC error warns.  Recorded: the values
 *                 since the driver loaded per hour of /proc/uptime (at least
 *                 one hour), as port_errors judges a snapshot, warnings only.
 *   <bdf>/speed   the common speed of the active links
 *                 (nvmlDeviceGetFieldValues, NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON):
 *                 below the fastest of the node's other GPUs of the same PCI
 *                 device ID warns (a link trained down: one model on one node
 *                 runs at one speed); below min_speed_mbps (0: off) fails.  No
 *                 table of speeds by generation: the peers are the reference.
 *                 Not known (an older libnvidia-ml, NOT_SUPPORTED, an older
 *                 snapshot): skip naming the query.
 */
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

enum { CTR_REPLAY, CTR_RECOVERY, CTR_CRC_FLIT, CTR_CRC_DATA };

struct nvlink_links_cfg {
	char *mode;
	uint64_t window_ms;
	uint64_t expected_links;
	uint64_t min_speed_mbps;
	double recovery_per_hour, errors_per_hour;
};

static const struct pf_param nvlink_links_params[] = {
	PF_PARAM_ENUM(struct nvlink_links_cfg, mode, "auto",
		      "auto: a sampling window on the live node, values since boot under --root; "
		      "or window, absolute", "auto", "window", "absolute"),
	PF_PARAM_U64(struct nvlink_links_cfg, window_ms, "1000", 0, 10000, "ms",
		     "sampling window of the error counters on the live node"),
	PF_PARAM_U64(struct nvlink_links_cfg, expected_links, "0", 0, PF_NVML_NVLINK_MAX_LINKS,
		     "links", "NVLink links every GPU must have; 0: by its device ID where known"),
	PF_PARAM_U64(struct nvlink_links_cfg, min_speed_mbps, "0", 0, 100000000, "MBps",
		     "fail a GPU whose common NVLink speed is below this; 0: off"),
	PF_PARAM_DOUBLE(struct nvlink_links_cfg, recovery_per_hour, "1", 0, 1e12, "errors/h",
			"absolute mode: warn above this rate of link recoveries"),
	PF_PARAM_DOUBLE(struct nvlink_links_cfg, errors_per_hour, "100", 0, 1e12, "errors/h",
			"absolute mode: warn above this rate of replay and CRC errors"),
	PF_PARAM_END,
};

/* GPUs with 18 NVLink links, by PCI device ID. */
static const struct {
	uint16_t device;
	const char *name;
} eighteen[] = {
	{ 0x2330, "H100 SXM" }, { 0x2324, "H800 SXM" }, { 0x2335, "H200 SXM" },
	{ 0x2342, "GH200" },    { 0x2941, "GB200" },    { 0x31c2, "GB300" }, { 0x31c3, "GB300" },
};

/* The links a GPU of this model has (0: unknown) and its name. */
static unsigned int model_links(const struct pf_pci_dev *d, const char **ret_name)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(eighteen); i++)
		if (d->vendor == PF_PCI_VENDOR_NVIDIA && d->device == eighteen[i].device) {
			*ret_name = eighteen[i].name;
			return 18;
		}
	*ret_name = NULL;
	return 0;
}

struct gpu {
	const struct pf_pci_dev *pci;
	char subject[48];
	struct pf_nvml_nvlink a, b; /* first and second sample */
	bool usable;                /* links answered: judge the counters */
};

static const char *subj(struct gpu *g, const char *what)
{
	snprintf(g->subject, sizeof(g->subject), "%s/%s", g->pci->bdf, what);
	return g->subject;
}

static void judge_links(struct pf_result *res, struct gpu *g, const struct nvlink_links_cfg *cfg)
{
	const struct pf_nvml_nvlink *l = &g->a;
	pf_autostrbuf struct pf_strbuf down = PF_STRBUF_INIT;
	size_t n_down = 0, n_active = 0;
	const char *model = NULL;
	unsigned int want = cfg->expected_links ? (unsigned int)cfg->expected_links
						: model_links(g->pci, &model);
	struct pf_finding *f;

	if (!l->n_links || !l->state[0].known) {
		pf_add(res, PF_STATUS_SKIP, subj(g, "links"), "nvmlDeviceGetNvLinkState %s",
		       l->n_links ? "was not recorded" : "is not in this libnvidia-ml or not recorded");
		return;
	}
	if (l->state[0].r == PF_NVML_ERROR_NOT_SUPPORTED) {
		pf_add(res, PF_STATUS_SKIP, subj(g, "links"), "no NVLink: nvmlDeviceGetNvLinkState: "
		       "not supported on this GPU (a PCIe card)");
		return;
	}
	for (unsigned int i = 0; i < l->n_links; i++) {
		const struct pf_nvml_val *v = &l->state[i];

		if (v->known && v->r == PF_NVML_SUCCESS && v->v)
			n_active++;
		else if (v->known && v->r != PF_NVML_SUCCESS)
			pf_strbuf_item(&down, &n_down, 8, "%u (NVML error %u)", i, v->r);
		else
			pf_strbuf_item(&down, &n_down, 8, "%u", i);
	}
	g->usable = n_active > 0;
	if (n_down) {
		f = pf_add(res, PF_STATUS_FAIL, subj(g, "links"), "%zu of %u NVLink links inactive: "
			   "%s", n_down, l->n_links, down.buf);
		pf_remedy(f, "nvidia-smi nvlink -s -i %s; reset the GPU (nvidia-smi -r) or reboot, "
			  "and on HGX check nvidia-fabricmanager; replace the board or baseboard if "
			  "links stay down", g->pci->bdf);
		pf_code(f, 1);
	} else if (want && l->n_links < want) {
		f = pf_add(res, PF_STATUS_FAIL, subj(g, "links"), "%u NVLink links, %s %u", l->n_links,
			   model ? "expected for" : "expected", want);
		if (model)
			pf_obs_str(f, "model", model);
		pf_remedy(f, "the driver reports fewer links than this GPU has: check the driver "
			  "and fabric manager logs; the vendor if it persists");
		pf_code(f, 2);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subj(g, "links"), "%u NVLink links active%s%s", l->n_links,
			   model ? ", as a " : "", model ? model : "");
	}
	pf_obs_num(f, "links", l->n_links);
	pf_obs_num(f, "active", (double)n_active);
	if (want)
		pf_exp_num(f, "links", want);
}

/* Whether any link's counters are known; the first NVML refusal in *ret_r. */
static bool counters_known(const struct pf_nvml_nvlink *l, pf_nvmlReturn_t *ret_r)
{
	bool any = false;

	*ret_r = PF_NVML_SUCCESS;
	for (unsigned int i = 0; i < l->n_links; i++)
		for (int c = 0; c < PF_NVLINK_N_COUNTERS; c++) {
			const struct pf_nvml_val *v = &l->err[i][c];

			if (v->known && v->r == PF_NVML_SUCCESS)
				any = true;
			else if (v->known && !*ret_r)
				*ret_r = v->r;
		}
	return any;
}

/* Counter @c of sample @l, summed over its links. */
static unsigned long long ctr_sum(const struct pf_nvml_nvlink *l, int c)
{
	unsigned long long s = 0;

	for (unsigned int i = 0; i < l->n_links; i++)
		if (l->err[i][c].known && l->err[i][c].r == PF_NVML_SUCCESS)
			s += l->err[i][c].v;
	return s;
}

static void judge_errors(struct pf_result *res, struct gpu *g, const struct nvlink_links_cfg *cfg,
			 bool window, double elapsed_ms, double uptime_s)
{
	pf_autostrbuf struct pf_strbuf list = PF_STRBUF_INIT;
	enum pf_status st = PF_STATUS_PASS;
	double hours = uptime_s > 3600 ? uptime_s / 3600 : 1;
	pf_nvmlReturn_t nr;
	size_t n_listed = 0;
	struct pf_finding *f;
	cJSON *vals;

	if (!g->usable)
		return;
	if (!counters_known(&g->a, &nr)) {
		pf_add(res, PF_STATUS_SKIP, subj(g, "errors"), "nvmlDeviceGetNvLinkErrorCounter: %s",
		       nr == PF_NVML_ERROR_NOT_SUPPORTED ? "not supported on this GPU"
		       : nr ? "refused" : "not in this libnvidia-ml or not recorded");
		return;
	}
	vals = cJSON_CreateObject();
	for (int c = 0; c < PF_NVLINK_N_COUNTERS; c++) {
		unsigned long long a = ctr_sum(&g->a, c);
		unsigned long long b = window ? ctr_sum(&g->b, c) : a;
		/* a counter cleared between the samples (a GPU reset) counts from zero */
		unsigned long long d = !window ? a : b >= a ? b - a : b;
		enum pf_status cst = PF_STATUS_PASS;

		cJSON_AddNumberToObject(vals, pf_nvlink_counter_names[c], (double)d);
		if (window && d)
			cst = c == CTR_RECOVERY ? PF_STATUS_FAIL : PF_STATUS_WARN;
		else if (!window && (double)d / hours >
					   (c == CTR_RECOVERY ? cfg->recovery_per_hour
							      : cfg->errors_per_hour))
			cst = PF_STATUS_WARN;
		if (cst == PF_STATUS_PASS)
			continue;
		pf_strbuf_item(&list, &n_listed, 4, "%s %llu", pf_nvlink_counter_names[c], d);
		if (cst > st)
			st = cst;
	}
	if (st == PF_STATUS_PASS)
		f = pf_add(res, st, subj(g, "errors"), "no replay, recovery or CRC errors %s",
			   window ? "over the sampling window" : "above thresholds since boot");
	else if (window)
		f = pf_add(res, st, subj(g, "errors"), "%s in %.1f s", list.buf, elapsed_ms / 1000);
	else
		f = pf_add(res, st, subj(g, "errors"), "%s over %.1f h uptime (since the driver loaded)",
			   list.buf, hours);
	if (st != PF_STATUS_PASS) {
		pf_remedy(f, "nvidia-smi nvlink -e -i %s shows the counters per link; a link that "
			  "keeps recovering or corrupting is a bad GPU, baseboard or NVLink cable "
			  "cartridge: reseat or replace", g->pci->bdf);
		pf_code(f, st == PF_STATUS_FAIL ? 3 : window ? 4 : 5);
	}
	pf_obs_json(f, "counters", vals);
	if (window)
		pf_obs_num(f, "window_ms", elapsed_ms);
	else
		pf_obs_num(f, "uptime_s", uptime_s);
}

#define SPEED_QUERY "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON)"

/* Whether @g's common NVLink speed is known, in *ret_mbps. */
static bool speed_of(const struct gpu *g, unsigned long long *ret_mbps)
{
	const struct pf_nvml_val *v = &g->a.speed_mbps;

	*ret_mbps = v->v;
	return g->usable && v->known && v->r == PF_NVML_SUCCESS;
}

/*
 * <bdf>/speed of GPU @i: against the fastest other GPU of its PCI device ID
 * (a link trained down warns) and the profile's floor (fails).
 */
static void judge_speed(struct pf_result *res, struct gpu *gpus, size_t n, size_t i,
			const struct nvlink_links_cfg *cfg)
{
	struct gpu *g = &gpus[i];
	const struct pf_nvml_val *v = &g->a.speed_mbps;
	unsigned long long mbps, peer = 0, other;
	size_t n_peers = 0;
	struct pf_finding *f;

	if (!g->usable)
		return;
	if (!speed_of(g, &mbps)) {
		f = pf_add(res, PF_STATUS_SKIP, subj(g, "speed"), SPEED_QUERY ": %s",
			   !v->known ? "not in this libnvidia-ml or not recorded"
			   : v->r == PF_NVML_ERROR_NOT_SUPPORTED ? "not supported on this GPU"
								 : "refused");
		if (v->known)
			pf_obs_num(f, "nvml_return", v->r);
		return;
	}
	for (size_t k = 0; k < n; k++) {
		if (k == i || gpus[k].pci->vendor != g->pci->vendor ||
		    gpus[k].pci->device != g->pci->device || !speed_of(&gpus[k], &other))
			continue;
		n_peers++;
		if (other > peer)
			peer = other;
	}
	if (cfg->min_speed_mbps && mbps < cfg->min_speed_mbps) {
		f = pf_add(res, PF_STATUS_FAIL, subj(g, "speed"), "NVLink at %llu MBps, below the "
			   "profile's %llu", mbps, (unsigned long long)cfg->min_speed_mbps);
		pf_exp_num(f, "min_speed_mbps", (double)cfg->min_speed_mbps);
		pf_code(f, 7);
	} else if (n_peers && mbps < peer) {
		f = pf_add(res, PF_STATUS_WARN, subj(g, "speed"), "NVLink at %llu MBps, below the "
			   "%llu MBps of another GPU of this model on the node", mbps, peer);
		pf_code(f, 6);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subj(g, "speed"), "NVLink at %llu MBps%s", mbps,
			   n_peers ? ", as fast as the other GPUs of this model" : "");
	}
	if (f->status != PF_STATUS_PASS)
		pf_remedy(f, "nvidia-smi nvlink -s -i %s shows each link's speed; a link trained "
			  "below the others: reset the GPU (nvidia-smi -r) or reboot, then reseat "
			  "or replace the GPU, baseboard or NVLink cable cartridge", g->pci->bdf);
	pf_obs_num(f, "speed_mbps", (double)mbps);
	if (n_peers)
		pf_obs_num(f, "peer_speed_mbps", (double)peer);
}

/* The provider's answer for one GPU into @l; false (and a finding) when none. */
static bool sample(const struct pf_ctx *ctx, struct pf_result *res, struct gpu *g,
		   struct pf_nvml_nvlink *l, bool first)
{
	char *why = NULL;
	int r = ctx->prov->gpu->nvml_nvlink(ctx, g->pci->bdf, l, &why);

	if (r < 0 && first)
		pf_add(res, r == -ENOENT || r == -ENOSYS || r == -ENOMEDIUM ? PF_STATUS_SKIP
									    : PF_STATUS_ERROR,
		       g->pci->bdf, "NVLink facts: %s", why ? why : strerror(-r));
	else if (r < 0)
		pf_add(res, PF_STATUS_ERROR, subj(g, "errors"), "second sample: %s",
		       why ? why : strerror(-r));
	free(why);
	return r >= 0;
}

static int nvlink_links_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nvlink_links_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	pf_autofree struct gpu *gpus = NULL;
	bool window, any_usable = false;
	double elapsed = 0;
	size_t n_bad = 0;
	int r;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	if (!node->n_gpus)
		return pf_skip(res, "no NVIDIA GPUs on the PCI bus");
	if (!ctx->prov || !ctx->prov->gpu)
		return pf_error(res, -ENOSYS, "no GPU provider");
	window = !strcmp(cfg->mode, "auto") ? pf_prov_can(ctx, PF_PROV_ELAPSES)
					     : !strcmp(cfg->mode, "window");
	/* a snapshot's counters are one sample: judged since boot */
	if (window && !pf_prov_can(ctx, PF_PROV_ELAPSES))
		window = false;
	gpus = pf_xcalloc(node->n_gpus, sizeof(*gpus));
	for (size_t i = 0; i < node->n_gpus; i++) {
		struct gpu *g = &gpus[i];

		g->pci = &node->pci[node->gpus[i].pci];
		if (!sample(ctx, res, g, &g->a, true))
			continue;
		judge_links(res, g, cfg);
		any_usable |= g->usable;
	}
	if (window && any_usable) {
		pf_progress(ctx, "sampling NVLink error counters for %.1f s",
			    (double)cfg->window_ms / 1000.0);
		r = ctx->prov->wait(ctx, (unsigned int)cfg->window_ms, &elapsed);
		if (r < 0)
			return pf_error(res, r, "cannot wait %llu ms between samples",
					(unsigned long long)cfg->window_ms);
		for (size_t i = 0; i < node->n_gpus; i++)
			if (gpus[i].usable && !sample(ctx, res, &gpus[i], &gpus[i].b, false))
				gpus[i].usable = false;
	}
	for (size_t i = 0; i < node->n_gpus; i++)
		judge_errors(res, &gpus[i], cfg, window, elapsed, pf_read_uptime(ctx->fs));
	for (size_t i = 0; i < node->n_gpus; i++)
		judge_speed(res, gpus, node->n_gpus, i, cfg);
	for (size_t i = 0; i < res->n_findings; i++) {
		enum pf_status st = res->findings[i].status;

		n_bad += st == PF_STATUS_FAIL || st == PF_STATUS_WARN || st == PF_STATUS_ERROR;
	}
	if (!any_usable)
		pf_summary(res, "no NVLink to judge on %zu GPU%s", node->n_gpus,
			   node->n_gpus == 1 ? "" : "s");
	else if (!n_bad)
		pf_summary(res, "NVLink links active and clean on %zu GPU%s (%s)", node->n_gpus,
			   node->n_gpus == 1 ? "" : "s",
			   window ? "over the sampling window" : "since boot, per hour of uptime");
	else
		pf_summary(res, "%zu NVLink finding%s not passed on %zu GPU%s", n_bad,
			   n_bad == 1 ? "" : "s", node->n_gpus, node->n_gpus == 1 ? "" : "s");
	return 0;
}

static const struct pf_code nvlink_links_codes[] = {
	{ 1, PF_ACTION_RESET_GPU, "an NVLink link of the GPU is inactive" },
	{ 2, PF_ACTION_CONTACT_VENDOR, "the GPU reports fewer NVLink links than its model has" },
	{ 3, PF_ACTION_RESEAT_OR_REPLACE, "an NVLink link recovered (retrained) during the "
	  "sampling window" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "NVLink replay or CRC errors during the sampling window" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "NVLink error counters above the profile's rate since "
	  "boot" },
	{ 6, PF_ACTION_RESET_GPU, "the GPU's NVLink runs slower than another GPU of its model on "
	  "the node (a link trained down)" },
	{ 7, PF_ACTION_RESEAT_OR_REPLACE, "the GPU's NVLink speed is below the profile's "
	  "min_speed_mbps" },
	{ 0 },
};

const struct pf_check pf_check_nvlink_links = {
	.name = "nvlink_links",
	.summary = "every NVLink link of every GPU active, as many as the model has, at its "
		   "peers' speed, error counters clean",
	.tags = "gpu,static",
	.reads = "libnvidia-ml.so.1 (<root>/preflight/nvml/<bdf>/nvlink), node inventory (PCI "
		 "device IDs), /proc/uptime (under --root)",
	.params = nvlink_links_params,
	.codes = nvlink_links_codes,
	.cfg_size = sizeof(struct nvlink_links_cfg),
	.timeout_s = 20,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nvlink_links_run,
};
