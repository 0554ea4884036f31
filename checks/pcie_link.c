// SPDX-License-Identifier: MIT
/*
 * pcie_link - every GPU and RDMA NIC runs its PCIe link at full speed and
 * width, and peer-to-peer between a GPU and its nearest NIC is not
 * redirected to the root complex by ACS.
 *
 * Link: current_link_{speed,width} against max_link_{speed,width} of each
 * GPU and RDMA NIC function (from the inventory).  A link below what both
 * the device and its upstream port support fails ("x8 on an x16 GPU"); a
 * link held down only by the upstream port's own maximum warns (the slot
 * limits it); a GPU below its maximum speed at full width warns, since NVIDIA
 * GPUs lower the link speed when idle; the GPU of a Grace superchip (a GH200/
 * GB200 device ID directly below an NVIDIA root port) warns, since its data
 * moves over NVLink-C2C.  Unknown values are never a pass: a link
 * file that reads "Unknown" is an error; files a snapshot or an hwloc export
 * did not record are a skip, and so is an SR-IOV virtual function.
 *
 * ACS: for each GPU, the bridges on the path to its nearest NIC (through
 * the deepest common bridge); their config space is walked for the ACS
 * extended capability and P2P Request/Completion Redirect or Egress Control
 * enabled warns.  Extended config space is readable only by root: otherwise
 * a skip finding says so.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

#define SPEED_EPS 0.05     /* GT/s: "8 GT/s" vs "8.0 GT/s PCIe" */
#define MAX_DEPTH 64       /* bridges above a device; more means a corrupt model */
#define REDIRECT_BITS (PF_PCI_ACS_RR | PF_PCI_ACS_CR | PF_PCI_ACS_EC)

struct pcie_link_cfg {
	bool check_acs;
	double gpu_idle_gts;
	char *ignore;
};

static const struct pf_param pcie_link_params[] = {
	PF_PARAM_BOOL(struct pcie_link_cfg, check_acs, "true",
		      "read ACS control of the bridges between each GPU and its nearest NIC "
		      "(needs root)"),
	PF_PARAM_DOUBLE(struct pcie_link_cfg, gpu_idle_gts, "64", 0, 64, "GT/s",
			"a GPU at full width and at or below this speed warns instead of failing "
			"(idle GPUs lower their link speed, to Gen1 or to Gen3/Gen4 just off a "
			"job; the load is unknown in a prolog): 64 any speed, 0 fails it"),
	PF_PARAM_STRING(struct pcie_link_cfg, ignore, "",
			"devices not to judge: BDFs (\"0000:17:00.0\") or RDMA device names"),
	PF_PARAM_END,
};

/* A device the check judges: a GPU or an RDMA NIC function. */
struct target {
	int pci;             /* index into node->pci */
	bool gpu;
	const char *name;    /* RDMA device name, or NULL for a GPU */
	char iommu_group[16]; /* "" none or unknown */
	char iommu_type[16];  /* "identity", "DMA", "DMA-FQ", ...; "" none or unknown */
};

static bool iommu_translates(const struct target *t)
{
	return !strcmp(t->iommu_type, "DMA") || !strcmp(t->iommu_type, "DMA-FQ");
}

static const char *subject_of(const struct pf_node *node, const struct target *t)
{
	return t->name ? t->name : node->pci[t->pci].bdf;
}

static void describe(char *buf, size_t len, const struct pf_node *node, const struct target *t)
{
	const struct pf_pci_dev *d = &node->pci[t->pci];

	if (t->gpu)
		snprintf(buf, len, "GPU %s", d->bdf);
	else
		snprintf(buf, len, "NIC %s (%s)", t->name, d->bdf);
}

static void fmt_link(char *buf, size_t len, double gts, int width)
{
	int gen = pf_pci_gen(gts);

	if (gen)
		snprintf(buf, len, "%g GT/s (Gen%d) x%d", gts, gen, width);
	else
		snprintf(buf, len, "%g GT/s x%d", gts, width);
}

static bool link_known(const struct pf_pci_dev *d)
{
	return d->cur_speed_gts > 0 && d->max_speed_gts > 0 && d->cur_width > 0 && d->max_width > 0;
}

/* The sysfs directory of @d under the root. */
static void dev_dir(char *buf, size_t len, const struct pf_pci_dev *d)
{
	if (d->path && !strncmp(d->path, "/sys/", 5))
		snprintf(buf, len, "%s", d->path);
	else
		snprintf(buf, len, "/sys/bus/pci/devices/%s", d->bdf);
}

static void judge_unknown(struct pf_result *res, const struct pf_ctx *ctx,
			  const struct target *t, const char *what)
{
	static const char *const files[] = {
		"current_link_speed", "current_link_width", "max_link_speed", "max_link_width",
	};
	const struct pf_node *node = ctx->node;
	const struct pf_pci_dev *d = &node->pci[t->pci];
	const double vals[] = { d->cur_speed_gts, d->cur_width, d->max_speed_gts, d->max_width };
	char dir[448], physfn[512], missing[128] = "", bad[128] = "", denied[128] = "";
	char uidbuf[32];
	pf_autofree char *pf = NULL;
	struct pf_finding *f;

	dev_dir(dir, sizeof(dir), d);
	/* an SR-IOV virtual function has no link of its own */
	snprintf(physfn, sizeof(physfn), "%s/physfn", dir);
	if (pf_fs_realpath(ctx->fs, physfn, &pf) == 0) {
		const char *slash = strrchr(pf, '/');

		f = pf_add(res, PF_STATUS_SKIP, subject_of(node, t), "%s: a virtual function; its "
			   "link is that of physical function %s", what, slash ? slash + 1 : pf);
		pf_remedy(f, "judge the physical function (it is checked when it is a GPU or RDMA "
			  "device)");
		return;
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(files); i++) {
		char path[512];
		char *list;

		if (vals[i] > 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		list = pf_fs_exists(ctx->fs, path) > 0 ? bad : missing;
		if (list == bad) {
			pf_autofree char *text = NULL;
			int r = pf_fs_read_line(ctx->fs, path, &text);

			if (r == -EACCES || r == -EPERM)
				list = denied;
		}
		snprintf(list + strlen(list), sizeof(missing) - strlen(list), "%s%s",
			 *list ? ", " : "", files[i]);
	}

	if (*denied) {
		f = pf_add(res, PF_STATUS_ERROR, subject_of(node, t),
			   "%s: cannot read %s/{%s}: permission denied%s", what, dir, denied,
			   pf_euid_note(ctx, uidbuf));
		pf_remedy(f, "run preflight as root, or make the link attributes readable");
	} else if (!*bad && !pf_prov_can(ctx, PF_PROV_NODE)) {
		/* a snapshot that did not capture the files: nothing to judge */
		f = pf_add(res, PF_STATUS_SKIP, subject_of(node, t),
			   "%s: the snapshot has no %s", what, missing);
		pf_remedy(f, "capture %s/{current,max}_link_{speed,width} with the snapshot", dir);
	} else if (*bad) {
		f = pf_add(res, PF_STATUS_ERROR, subject_of(node, t),
			   "%s: link state unknown (%s read \"Unknown\" or unparsable)", what, bad);
		pf_remedy(f, "\"Unknown\" means the link is down or the device is in D3cold: "
			  "check 'lspci -vv -s %s' (LnkSta) and dmesg for AER errors", d->bdf);
	} else {
		f = pf_add(res, PF_STATUS_ERROR, subject_of(node, t),
			   "%s: the kernel exposes no %s", what, missing);
		pf_remedy(f, "check the link with 'lspci -vv -s %s' (LnkSta vs LnkCap); the "
			  "sysfs link attributes need Linux 4.13 or later", d->bdf);
	}
	if (d->cur_speed_gts > 0)
		pf_obs_num(f, "speed_gts", d->cur_speed_gts);
	if (d->cur_width > 0)
		pf_obs_num(f, "width", d->cur_width);
	if (*missing)
		pf_obs_str(f, "missing", missing);
	if (*bad)
		pf_obs_str(f, "unknown", bad);
}

/*
 * The GPU of a GH200/GB200 superchip (pf_gpu_is_superchip(): NVIDIA's device
 * IDs) directly below a root port of NVIDIA's own (its Grace CPU's; no
 * switch between): attached to its CPU by NVLink-C2C, which is what NCCL
 * routes it over (the C2C link of src/graph/topo.cc).  Its PCIe function's
 * link is not its data path.  Any other GPU below a Grace root port (an
 * L40S in a slot) is a PCIe card, judged as on x86.
 */
static bool c2c_attached(const struct pf_node *node, const struct pf_pci_dev *d)
{
	const struct pf_pci_dev *rp;

	if (!pf_gpu_is_superchip(d) || d->parent < 0 || (size_t)d->parent >= node->n_pci)
		return false;
	rp = &node->pci[d->parent];
	return rp->parent < 0 && rp->vendor == PF_PCI_VENDOR_NVIDIA && (rp->class >> 8) == 0x0604;
}

/* A link finding's values; @up only when its maximum limits the link. */
static void observe_link(struct pf_finding *f, const struct pf_pci_dev *d,
			 const struct pf_pci_dev *up, double want_gts, int want_width)
{
	pf_obs_str(f, "bdf", d->bdf);
	pf_obs_num(f, "speed_gts", d->cur_speed_gts);
	pf_obs_num(f, "width", d->cur_width);
	if (pf_pci_gen(d->cur_speed_gts))
		pf_obs_num(f, "gen", pf_pci_gen(d->cur_speed_gts));
	pf_exp_num(f, "speed_gts", want_gts);
	pf_exp_num(f, "width", want_width);
	if (up) {
		pf_obs_str(f, "upstream_port", up->bdf);
		pf_obs_num(f, "device_max_speed_gts", d->max_speed_gts);
		pf_obs_num(f, "device_max_width", d->max_width);
	}
}

/*
 * One finding for the link of @t; returns its status.  A device whose
 * values an hwloc export does not record gets no finding: -1.
 */
static int judge_link(struct pf_result *res, const struct pf_ctx *ctx,
		      const struct pcie_link_cfg *cfg, const struct target *t)
{
	const struct pf_node *node = ctx->node;
	const struct pf_pci_dev *d = &node->pci[t->pci];
	const struct pf_pci_dev *up = d->parent >= 0 && (size_t)d->parent < node->n_pci
					      ? &node->pci[d->parent] : NULL;
	double want_gts = d->max_speed_gts;
	int want_width = d->max_width;
	bool slot_limited = false, speed_short, width_short;
	char what[64], cur[48], max[48], dev_max[48];
	struct pf_finding *f;

	describe(what, sizeof(what), node, t);
	if (!link_known(d)) {
		if (!pf_node_holds(node, PF_NODE_NO_LINK_ATTRS))
			return -1;
		judge_unknown(res, ctx, t, what);
		return pf_last(res)->status;
	}
	/* The link trains to what both ends support: the upstream port may cap it. */
	if (up && up->max_speed_gts > 0 && up->max_speed_gts + SPEED_EPS < want_gts) {
		want_gts = up->max_speed_gts;
		slot_limited = true;
	}
	if (up && up->max_width > 0 && up->max_width < want_width) {
		want_width = up->max_width;
		slot_limited = true;
	}
	speed_short = d->cur_speed_gts + SPEED_EPS < want_gts;
	width_short = d->cur_width < want_width;
	fmt_link(cur, sizeof(cur), d->cur_speed_gts, d->cur_width);
	fmt_link(max, sizeof(max), want_gts, want_width);
	fmt_link(dev_max, sizeof(dev_max), d->max_speed_gts, d->max_width);

	if (!speed_short && !width_short && !slot_limited) {
		f = pf_add(res, PF_STATUS_PASS, subject_of(node, t), "%s at %s, its maximum",
			   what, cur);
	} else if (!speed_short && !width_short) {
		f = pf_add(res, PF_STATUS_WARN, subject_of(node, t),
			   "%s at %s: the device supports %s but its upstream port %s only %s",
			   what, cur, dev_max, up->bdf, max);
		pf_code(f, 1);
		pf_remedy(f, "move the card to a slot whose port supports %s, or check the "
			  "BIOS PCIe speed and bifurcation settings of port %s", dev_max, up->bdf);
	} else if (t->gpu && c2c_attached(node, d)) {
		f = pf_add(res, PF_STATUS_WARN, subject_of(node, t),
			   "%s at %s, max %s: it sits directly below an NVIDIA (Grace) root port "
			   "%s, so it is the GPU of a Grace superchip (GH200, GB200) whose data "
			   "moves over NVLink-C2C, not this PCIe link", what, cur, max, up->bdf);
		pf_code(f, 2);
		pf_remedy(f, "confirm the C2C link with 'nvidia-smi c2c -s' (a PCIe GPU in a "
			  "Grace server's slot is judged as any other: 'lspci -vv -s %s')", d->bdf);
	} else if (t->gpu && !width_short && cfg->gpu_idle_gts > 0 &&
		   d->cur_speed_gts <= cfg->gpu_idle_gts + SPEED_EPS) {
		f = pf_add(res, PF_STATUS_WARN, subject_of(node, t),
			   "%s at %s, max %s: likely idle power saving (GPUs lower the link "
			   "speed when idle)", what, cur, max);
		pf_code(f, 3);
		pf_remedy(f, "confirm under load: 'nvidia-smi -q -d PCIE' (Link Gen Current vs Max) "
			  "while a job runs; if it stays low, reseat the GPU and check the BIOS "
			  "PCIe speed setting");
	} else {
		f = pf_add(res, PF_STATUS_FAIL, subject_of(node, t), "%s trained at %s, max %s",
			   what, cur, max);
		if (width_short)
			pf_remedy(f, "reseat the card and its riser or cable; check 'lspci -vv -s %s' "
				  "(LnkSta vs LnkCap), the BIOS bifurcation setting of the slot and "
				  "dmesg for AER errors; x%d carries %d%% of the bandwidth", d->bdf,
				  d->cur_width, d->cur_width * 100 / want_width);
		else
			pf_remedy(f, "check the BIOS PCIe speed setting (Auto/Gen%d) of the slot, "
				  "reseat the card and riser or retimer, and look for AER errors in "
				  "dmesg; the link retrains at the next boot", pf_pci_gen(want_gts));
		pf_code(f, width_short ? 4 : 5);
	}
	observe_link(f, d, slot_limited ? up : NULL, want_gts, want_width);
	return f->status;
}

/*
 * ACS
 */

/* Bridges above @pci, nearest first; returns how many (at most MAX_DEPTH). */
static size_t ancestors(const struct pf_node *node, int pci, int *out)
{
	size_t n = 0;

	for (int p = node->pci[pci].parent; p >= 0 && (size_t)p < node->n_pci && n < MAX_DEPTH;
	     p = node->pci[p].parent)
		out[n++] = p;
	return n;
}

/* A bridge on some GPU-NIC path, with the first pair that crosses it. */
struct bridge {
	int pci;
	int gpu_pci, nic;    /* nic: index into @targets */
	int gpu_target;      /* the GPU: index into @targets */
	unsigned int pairs;
};

static struct bridge *bridge_add(struct bridge *b, size_t *n, int pci, int gpu_target,
				 int gpu_pci, int nic)
{
	for (size_t i = 0; i < *n; i++)
		if (b[i].pci == pci) {
			b[i].pairs++;
			return b;
		}
	b = pf_xrealloc(b, (*n + 1) * sizeof(*b));
	b[(*n)++] = (struct bridge){ .pci = pci, .gpu_pci = gpu_pci, .nic = nic,
				     .gpu_target = gpu_target, .pairs = 1 };
	return b;
}

/*
 * For the GPU at @gpu_pci, the NIC in @targets with the fewest bridges
 * between them through a common bridge; -1 when none shares one.  Fills
 * @path with those bridges (including the common one).
 */
static int nearest_nic(const struct pf_node *node, const struct target *targets, size_t n,
		       int gpu_pci, int *path, size_t *ret_len)
{
	int ga[MAX_DEPTH], na[MAX_DEPTH];
	size_t gn = ancestors(node, gpu_pci, ga);
	size_t best_hops = SIZE_MAX;
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		size_t nn;

		if (targets[i].gpu)
			continue;
		nn = ancestors(node, targets[i].pci, na);
		for (size_t a = 0; a < gn; a++) {
			size_t b;

			for (b = 0; b < nn && na[b] != ga[a]; b++)
				;
			if (b == nn)
				continue;
			/* ga[a] == na[b] is the lowest common bridge */
			if (a + b + 1 < best_hops) {
				size_t len = 0;

				best_hops = a + b + 1;
				best = (int)i;
				for (size_t k = 0; k <= a; k++)
					path[len++] = ga[k];
				for (size_t k = 0; k < b; k++)
					path[len++] = na[k];
				*ret_len = len;
			}
			break;
		}
	}
	return best;
}

/* Bridges whose ACS could not be read, reported together. */
struct unread {
	size_t n_missing, n_short;
	const char *first_missing, *first_short;
	size_t short_len;
};

/*
 * One finding for bridge @b, or, when its config file is absent or too
 * short to hold ACS, a note in @u for judge_acs() to report once.
 */
/* ACS redirect on at bridge @d: a warn, with the remedy that fits the IOMMU mode. */
static struct pf_finding *acs_redirect_warn(struct pf_result *res, const struct pf_node *node,
					    const struct pf_pci_dev *d, const char *between,
					    uint16_t ctrl, const struct target *translated)
{
	struct pf_finding *f;
	char redir[64];

	pf_pci_acs_ctrl_names(ctrl & REDIRECT_BITS, redir, sizeof(redir));
	f = pf_add(res, PF_STATUS_WARN, d->bdf, "bridge %s (between %s): ACS %s enabled: "
		   "GPUDirect peer-to-peer is redirected through the root complex", d->bdf,
		   between, redir);
	pf_code(f, 6);
	if (translated)
		pf_remedy(f, "the IOMMU translates DMA for %s (group type %s): ACS redirect is "
			  "what sends its peer traffic to the IOMMU for translation, so do not "
			  "clear it while translation is on; first boot with the IOMMU in "
			  "passthrough (iommu=pt, with intel_iommu=on or amd_iommu=on where "
			  "needed), then disable ACS redirect on this port (pci=disable_acs_redir=%s "
			  "or the BIOS ACS setting)", translated->name ? translated->name
			  : node->pci[translated->pci].bdf, translated->iommu_type, d->bdf);
	else
		pf_remedy(f, "disable ACS redirect on this port: 'setpci -s %s ECAP_ACS+0x6.w=0000' "
			  "(until reboot), or persistently with the kernel parameter "
			  "pci=disable_acs_redir=%s or the BIOS ACS/IOMMU setting; iommu=pt alone keeps "
			  "ACS enabled", d->bdf, d->bdf);
	return f;
}

static void judge_bridge(struct pf_result *res, const struct pf_ctx *ctx,
			 const struct target *targets, const struct bridge *b, struct unread *u)
{
	const struct pf_node *node = ctx->node;
	const struct pf_pci_dev *d = &node->pci[b->pci];
	const struct target *nic = &targets[b->nic];
	const struct target *translated = NULL;
	pf_autofree char *buf = NULL;
	char path[512], between[96], names[96], hex[8];
	struct pf_pci_acs acs;
	struct pf_finding *f;
	size_t len = 0;
	int r;

	dev_dir(path, sizeof(path) - 8, d);
	strcat(path, "/config");
	if (b->pairs > 1)
		snprintf(between, sizeof(between), "GPU %s and %s, +%u more pairs",
			 node->pci[b->gpu_pci].bdf, nic->name, b->pairs - 1);
	else
		snprintf(between, sizeof(between), "GPU %s and %s", node->pci[b->gpu_pci].bdf,
			 nic->name);

	r = pf_fs_read_full(ctx->fs, path, PF_PCI_CFG_SPACE_EXP_SIZE, &buf, &len);
	if (r == -ENOENT) {
		if (!u->n_missing++)
			u->first_missing = d->bdf;
		return;
	}
	if (r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, d->bdf, "bridge %s (between %s): cannot read %s: %s",
			   d->bdf, between, path, strerror(-r));
		pf_remedy(f, "check that the bridge is present ('lspci -s %s') and readable", d->bdf);
		return;
	}
	if (len < PF_PCI_CFG_SPACE_SIZE) {
		if (!u->n_short++) {
			u->first_short = d->bdf;
			u->short_len = len;
		}
		return;
	}
	if (iommu_translates(&targets[b->gpu_target]))
		translated = &targets[b->gpu_target];
	else if (iommu_translates(nic))
		translated = nic;
	r = pf_parse_pci_acs((const uint8_t *)buf, len, &acs);
	if (r == -ENOENT || (r == -ENODATA && len == PF_PCI_CFG_SPACE_SIZE)) {
		f = pf_add(res, PF_STATUS_PASS, d->bdf, "bridge %s (between %s): no ACS capability, "
			   "peer-to-peer is not redirected", d->bdf, between);
		pf_obs_bool(f, "acs", false);
		return;
	}
	if (r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, d->bdf, "bridge %s: malformed extended capability "
			   "list in %s: %s", d->bdf, path, strerror(-r));
		pf_remedy(f, "compare with 'lspci -vvv -s %s'; an all-ones header means the "
			  "bridge does not answer config reads", d->bdf);
		return;
	}
	pf_pci_acs_ctrl_names(acs.ctrl, names, sizeof(names));
	if (acs.ctrl & REDIRECT_BITS) {
		f = acs_redirect_warn(res, node, d, between, acs.ctrl, translated);
	} else {
		f = pf_add(res, PF_STATUS_PASS, d->bdf, "bridge %s (between %s): ACS redirect off "
			   "(ACSCtl %s)", d->bdf, between, *names ? names : "none");
	}
	snprintf(hex, sizeof(hex), "0x%04x", acs.ctrl);
	pf_obs_bool(f, "acs", true);
	pf_obs_str(f, "acs_ctrl", hex);
	pf_obs_str(f, "acs_ctrl_bits", names);
	pf_obs_str(f, "gpu", node->pci[b->gpu_pci].bdf);
	pf_obs_str(f, "nic", nic->name);
	if (translated)
		pf_obs_str(f, "iommu_type", translated->iommu_type);
	pf_exp_str(f, "acs_redirect", "off (ReqRedir, CmpltRedir, EgressCtrl clear)");
}

static void judge_acs(struct pf_result *res, const struct pf_ctx *ctx, const struct target *targets,
		      size_t n)
{
	const struct pf_node *node = ctx->node;
	pf_autofree struct bridge *bridges = NULL;
	size_t n_bridges = 0, n_gpus = 0, n_nics = 0;
	struct unread u = { 0 };
	struct pf_finding *f;
	unsigned int uid;

	for (size_t i = 0; i < n; i++) {
		if (targets[i].gpu)
			n_gpus++;
		else
			n_nics++;
	}
	if (!n_gpus || !n_nics) {
		pf_add(res, PF_STATUS_SKIP, "acs", "ACS not checked: no %s on the PCI bus",
		       n_gpus ? "RDMA NIC" : "GPU");
		return;
	}
	if (pf_prov_can(ctx, PF_PROV_PROCESS | PF_PROV_NODE) && pf_euid(ctx, &uid) == 0 && uid != 0) {
		f = pf_add(res, PF_STATUS_SKIP, "acs", "ACS not checked: reading a bridge's extended "
			   "config space needs root (running as uid %u)", uid);
		pf_remedy(f, "run preflight as root to check ACS on the GPU-NIC paths");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		int path[2 * MAX_DEPTH];
		size_t len = 0;
		int nic;

		if (!targets[i].gpu)
			continue;
		nic = nearest_nic(node, targets, n, targets[i].pci, path, &len);
		if (nic < 0)
			continue;
		for (size_t k = 0; k < len; k++)
			bridges = bridge_add(bridges, &n_bridges, path[k], (int)i, targets[i].pci, nic);
	}
	if (!n_bridges) {
		pf_add(res, PF_STATUS_SKIP, "acs", "ACS not checked: no GPU shares a PCIe switch or "
		       "root port with a NIC, so peer-to-peer crosses the host bridge regardless");
		return;
	}
	for (size_t i = 0; i < n_bridges; i++)
		judge_bridge(res, ctx, targets, &bridges[i], &u);
	if (u.n_short) {
		/* what a non-root reader or capture gets: the first 64 bytes */
		f = pf_add(res, PF_STATUS_SKIP, "acs", "ACS not checked on %zu of %zu bridges "
			   "(%s, ...): their config file holds %zu bytes; ACS lives in extended config "
			   "space, which needs root%s", u.n_short + u.n_missing, n_bridges,
			   u.first_short, u.short_len, u.n_missing ? " (some have no config file)" : "");
		pf_remedy(f, "run preflight as root (or capture the snapshot as root) to check ACS");
		pf_obs_num(f, "config_bytes", (double)u.short_len);
	} else if (u.n_missing) {
		f = pf_add(res, PF_STATUS_SKIP, "acs", "ACS not checked on %zu of %zu bridges "
			   "(%s, ...): no config file under the root", u.n_missing, n_bridges,
			   u.first_missing);
		pf_remedy(f, "capture /sys/bus/pci/devices/<bridge>/config as root with the "
			  "snapshot, or run on the node");
	}
}


/*
 * IOMMU
 */

/* The IOMMU group of @t and its type; returns 1 group found, 0 none, -errno. */
static int read_iommu(const struct pf_ctx *ctx, struct target *t, bool *ret_no_type)
{
	pf_autofree char *target = NULL, *type = NULL;
	const char *base;
	char path[128];
	int r;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 ctx->node->pci[t->pci].bdf);
	r = pf_fs_readlink(ctx->fs, path, &target);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	base = strrchr(target, '/');
	snprintf(t->iommu_group, sizeof(t->iommu_group), "%s", base ? base + 1 : target);
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", t->iommu_group);
	r = pf_fs_read_line(ctx->fs, path, &type);
	if (r == -ENOENT) {
		*ret_no_type = true;
		return 1;
	}
	if (r < 0)
		return r;
	snprintf(t->iommu_type, sizeof(t->iommu_type), "%s", type);
	return 1;
}

/* The IOMMU groups of the GPUs and NICs, by type. */
struct iommu_tally {
	struct pf_strbuf translated, other; /* up to 4 listed of each */
	char first_type[16];
	size_t n_group, n_ident, n_trans, n_other, n_notype, n_listed, n_olisted;
	cJSON *types;                       /* subject: type */
};

/* Count one target's group by type: identity, translating, or another. */
static void tally_group(struct iommu_tally *t, const struct target *tg, const char *subj)
{
	char item[80];

	cJSON_AddStringToObject(t->types, subj, tg->iommu_type);
	snprintf(item, sizeof(item), "%s (group %s)", subj, tg->iommu_group);
	if (!strcmp(tg->iommu_type, "identity")) {
		t->n_ident++;
	} else if (iommu_translates(tg)) {
		if (!t->n_trans++)
			snprintf(t->first_type, sizeof(t->first_type), "%s", tg->iommu_type);
		pf_strbuf_item(&t->translated, &t->n_listed, 4, "%s", item);
	} else {
		snprintf(item, sizeof(item), "%s (group %s: %s)", subj, tg->iommu_group,
			 tg->iommu_type);
		t->n_other++;
		pf_strbuf_item(&t->other, &t->n_olisted, 4, "%s", item);
	}
}

/* Gather every target's IOMMU group; false after an error finding (unreadable group). */
static bool gather_groups(struct pf_result *res, const struct pf_ctx *ctx, struct target *targets,
			  size_t n, struct iommu_tally *t)
{
	for (size_t i = 0; i < n; i++) {
		struct target *tg = &targets[i];
		const char *subj = subject_of(ctx->node, tg);
		bool no_type = false;
		int r;

		r = read_iommu(ctx, tg, &no_type);
		if (r < 0) {
			pf_add(res, PF_STATUS_ERROR, "iommu", "%s: cannot read its IOMMU group: %s",
			       subj, strerror(-r));
			return false;
		}
		if (r == 0)
			continue;
		t->n_group++;
		if (no_type) {
			t->n_notype++;
			continue;
		}
		tally_group(t, tg, subj);
	}
	return true;
}

/* No target in a group: untranslated DMA (live, or the snapshot has the groups), else a skip. */
static void judge_no_groups(struct pf_result *res, const struct pf_ctx *ctx)
{
	int groups_dir = pf_fs_exists(ctx->fs, "/sys/kernel/iommu_groups");
	struct pf_finding *f;

	if (pf_prov_can(ctx, PF_PROV_NODE) || groups_dir == 1) {
		f = pf_add(res, PF_STATUS_PASS, "iommu", "no GPU or NIC is in an IOMMU group: "
			   "their DMA is not translated");
		pf_obs_num(f, "iommu_groups", 0);
	} else {
		pf_add(res, PF_STATUS_SKIP, "iommu", "IOMMU mode not judged: the snapshot has "
		       "neither /sys/kernel/iommu_groups nor an iommu_group link for the GPUs "
		       "and NICs");
	}
}

/* Translated DMA warns, another group type (blocked, unmanaged) warns, identity passes. */
static struct pf_finding *judge_group_types(struct pf_result *res, const struct iommu_tally *t,
					    size_t n)
{
	struct pf_finding *f;

	if (t->n_trans) {
		f = pf_add(res, PF_STATUS_WARN, "iommu", "the IOMMU translates DMA (%s) for %zu of %zu "
			   "GPUs and NICs: %s", t->first_type, t->n_trans, n, t->translated.buf);
		pf_code(f, 7);
		pf_remedy(f, "GPUDirect RDMA at full speed wants the IOMMU in passthrough: boot with "
			  "iommu=pt (plus intel_iommu=on or amd_iommu=on where the platform needs "
			  "them), or set a group to identity (echo identity > "
			  "/sys/kernel/iommu_groups/<N>/type with its driver unbound). Translated "
			  "DMA costs an IOTLB lookup per access (misses walk the page tables), a "
			  "map/unmap per registration, and IOTLB invalidations (batched in DMA-FQ, "
			  "one per unmap in strict DMA); peer traffic under ACS goes up to the root "
			  "complex for translation");
	} else if (t->n_other) {
		f = pf_add(res, PF_STATUS_WARN, "iommu", "IOMMU group type neither identity nor "
			   "DMA for %zu GPUs and NICs: %s", t->n_other, t->other.buf);
		pf_code(f, 8);
		pf_remedy(f, "a 'blocked' group allows no DMA and 'unmanaged' means a user-space "
			  "driver (VFIO) owns the device: check that it belongs to this node's jobs");
	} else {
		f = pf_add(res, PF_STATUS_PASS, "iommu", "IOMMU in passthrough (identity) for %zu "
			   "GPUs and NICs%s", t->n_ident, t->n_group < n ?
			   "; the others have no IOMMU group" : "");
	}
	return f;
}

static void judge_iommu(struct pf_result *res, const struct pf_ctx *ctx, struct target *targets,
			size_t n)
{
	struct iommu_tally t = { .translated = PF_STRBUF_INIT, .other = PF_STRBUF_INIT };
	struct pf_finding *f;

	if (!pf_node_holds(ctx->node, PF_NODE_NO_IOMMU)) {
		pf_add(res, PF_STATUS_SKIP, "iommu", "IOMMU mode not judged: the topology export "
		       "holds no IOMMU groups");
		return;
	}
	t.types = cJSON_CreateObject();
	if (!gather_groups(res, ctx, targets, n, &t)) {
		cJSON_Delete(t.types);
	} else if (t.n_group == 0) {
		cJSON_Delete(t.types);
		judge_no_groups(res, ctx);
	} else if (t.n_notype == t.n_group) {
		cJSON_Delete(t.types);
		f = pf_add(res, PF_STATUS_SKIP, "iommu", "IOMMU mode not judged: %zu GPUs and NICs "
			   "are in IOMMU groups but /sys/kernel/iommu_groups/<N>/type is absent (a "
			   "kernel before 5.11, e.g. RHEL 8's 4.18 or Ubuntu 20.04's 5.4)", t.n_group);
		pf_remedy(f, "check /proc/cmdline for iommu=pt (or intel_iommu/amd_iommu settings) "
			  "by hand");
	} else {
		f = judge_group_types(res, &t, n);
		if (t.n_notype)
			pf_obs_num(f, "groups_without_type", (double)t.n_notype);
		pf_obs_json(f, "iommu_types", t.types);
		pf_exp_str(f, "iommu_type", "identity (or no IOMMU translation)");
	}
	pf_strbuf_release(&t.translated);
	pf_strbuf_release(&t.other);
}

static int pcie_link_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct pcie_link_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	pf_autofree struct target *targets = NULL;
	size_t n = 0, n_pass = 0, n_short = 0, n_unknown = 0, n_unrecorded = 0;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	targets = pf_xcalloc(node->n_gpus + node->n_rdma + 1, sizeof(*targets));
	for (size_t i = 0; i < node->n_gpus; i++)
		if (node->gpus[i].pci >= 0 && (size_t)node->gpus[i].pci < node->n_pci)
			targets[n++] = (struct target){ .pci = node->gpus[i].pci, .gpu = true };
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *rd = &node->rdma[i];
		bool dup = false;

		if (rd->pci < 0 || (size_t)rd->pci >= node->n_pci)
			continue;
		for (size_t k = 0; k < n; k++)
			dup |= targets[k].pci == rd->pci;
		if (!dup)
			targets[n++] = (struct target){ .pci = rd->pci, .name = rd->name };
	}
	if (!n)
		return pf_skip(res, "no GPU or RDMA NIC on the PCI bus");

	for (size_t i = 0; i < n; i++) {
		const char *bdf = node->pci[targets[i].pci].bdf;

		if (pf_list_has(cfg->ignore, bdf) ||
		    (targets[i].name && pf_list_has(cfg->ignore, targets[i].name))) {
			pf_add(res, PF_STATUS_SKIP, subject_of(node, &targets[i]),
			       "%s ignored by the profile", bdf);
			continue;
		}
		switch (judge_link(res, ctx, cfg, &targets[i])) {
		case PF_STATUS_PASS:
			n_pass++;
			break;
		case PF_STATUS_WARN:
		case PF_STATUS_FAIL:
			n_short++;
			break;
		case -1:
			n_unrecorded++;
			break;
		default:
			n_unknown++;
			break;
		}
	}
	if (n_unrecorded) {
		struct pf_finding *f;

		f = pf_add(res, PF_STATUS_SKIP, "links", "the topology export records no current and "
			   "maximum link speed and width for %zu of %zu GPUs and NICs", n_unrecorded, n);
		pf_remedy(f, "run preflight on the node itself, or on a sysfs snapshot (sysfs has "
			  "both)");
	}
	judge_iommu(res, ctx, targets, n);
	if (cfg->check_acs)
		judge_acs(res, ctx, targets, n);

	if (n_short)
		pf_summary(res, "%zu of %zu GPU and NIC links below their maximum%s", n_short, n,
			   n_unknown + n_unrecorded ? ", others unknown" : "");
	else if (n_unknown)
		pf_summary(res, "%zu of %zu GPU and NIC links unknown, %zu at their maximum",
			   n_unknown + n_unrecorded, n, n_pass);
	else if (n_pass)
		pf_summary(res, "%zu of %zu GPU and NIC links at their maximum speed and width%s",
			   n_pass, n, n_unrecorded ? " (the rest not recorded)" : "");
	else if (n_unrecorded)
		pf_summary(res, "link speed and width not recorded for %zu GPUs and NICs",
			   n_unrecorded);
	return 0;
}

static const struct pf_code pcie_link_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "the device could link faster than its slot's upstream port allows (move the card, or the BIOS slot setting)" },
	{ 2, PF_ACTION_NONE, "a Grace superchip's GPU below its own root port shows a reduced PCIe link (its data moves over NVLink-C2C)" },
	{ 3, PF_ACTION_NONE, "a GPU's link runs at a lower speed, likely idle power saving (confirm under load)" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "the link trained at fewer lanes than its maximum" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "the link trained at a lower speed than its maximum" },
	{ 6, PF_ACTION_RECONFIGURE, "ACS redirect is on at a bridge between a GPU and a NIC: peer-to-peer goes through the root complex" },
	{ 7, PF_ACTION_RECONFIGURE, "the IOMMU translates DMA for GPUs or NICs (not passthrough)" },
	{ 8, PF_ACTION_RECONFIGURE, "an IOMMU group of a GPU or NIC is neither identity nor DMA (blocked, or owned by VFIO)" },
	{ 0 },
};

const struct pf_check pf_check_pcie_link = {
	.name = "pcie_link",
	.summary = "GPUs and RDMA NICs run at full PCIe speed and width; no ACS redirect between them",
	.tags = "pcie,gpu,rdma,static",
	.reads = "/sys/bus/pci/devices/<bdf>/{current,max}_link_{speed,width} of GPUs, RDMA NICs "
		 "and their upstream ports; /sys/bus/pci/devices/<bridge>/config (ACS, as root); "
		 "/sys/bus/pci/devices/<bdf>/iommu_group, /sys/kernel/iommu_groups/<N>/type",
	.params = pcie_link_params,
	.codes = pcie_link_codes,
	.cfg_size = sizeof(struct pcie_link_cfg),
	.timeout_s = 5,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY,
	.run = pcie_link_run,
};
