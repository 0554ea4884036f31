// SPDX-License-Identifier: MIT
/*
 * gpu_nic_numa - every GPU has an RDMA NIC close to it on the PCI tree and
 * on its NUMA node.
 *
 * From the inventory (sysfs or an lstopo export): for each GPU, the nearest
 * RDMA NIC by PCI path class (PIX < PXB < PHB < NODE < SYS, see
 * src/node/pci_path.c; ties go to the NIC on the GPU's NUMA node, then to one no
 * earlier GPU took, then by name)
 * and whether the two share a NUMA node.  The GPU -> NIC map is reported as
 * observed values: it is the per-rank choice NCCL_IB_HCA should follow.
 * Expected class: `worst_class` when set, else the class most GPUs of the
 * node achieve, so one GPU left without its rail NIC on a rail-aligned node
 * fails while a node built without switches is not judged against PIX.
 * A GPU whose nearest NIC is on another NUMA node fails (require_numa).
 *
 * Rail coverage: GPUs and NICs are counted per PCIe switch (the deepest
 * bridge a GPU shares with its nearest NIC; the NICs below it).  A switch with fewer NICs per GPU than the
 * node's usual (the ratio most switches have; on a tie the richer one)
 * lost a rail: a GPU there that shares its NIC with an earlier GPU fails,
 * naming the NICs of gpu_nic_numa.nics that are missing.  A node built with
 * 2 GPUs per NIC on every switch is its own usual and passes.  A NIC listed
 * in gpu_nic_numa.nics that is not on the node fails.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_nic.h"
#include "preflight/node.h"
#include "preflight/strbuf.h"

struct gpu_nic_numa_cfg {
	char *worst_class;
	bool require_numa;
	char *nics;
	char *ignore_gpus;
};

static const struct pf_param gpu_nic_numa_params[] = {
	PF_PARAM_ENUM(struct gpu_nic_numa_cfg, worst_class, "",
		      "worst acceptable PCI distance from a GPU to its nearest NIC: PIX, PXB, "
		      "PHB, NODE or SYS; empty infers it from the node (the class most GPUs "
		      "achieve)", "", "PIX", "PXB", "PHB", "NODE", "SYS"),
	PF_PARAM_BOOL(struct gpu_nic_numa_cfg, require_numa, "true",
		      "fail a GPU whose nearest NIC is on another NUMA node"),
	PF_PARAM_STRING(struct gpu_nic_numa_cfg, nics, "",
			"RDMA devices that count as NICs, e.g. \"mlx5_0,mlx5_1\" (as in "
			"NCCL_IB_HCA); empty for all with a PCI function"),
	PF_PARAM_BDF_LIST(struct gpu_nic_numa_cfg, ignore_gpus, "",
			  "GPU PCI addresses not to judge, e.g. \"0000:17:00.0\""),
	PF_PARAM_END,
};

static int rank(enum pf_path_class c)
{
	return pf_path_class_rank(c);
}

static bool placed(const struct pf_pci_dev *d)
{
	return pf_pci_dev_placed(d);
}

static bool nic_selected(const struct gpu_nic_numa_cfg *cfg, const struct pf_rdma_dev *d)
{
	return d->pci >= 0 && (!cfg->nics[0] || pf_list_has(cfg->nics, d->name));
}

/* The class most GPUs achieve; on a tie the nearer one. */
static enum pf_path_class majority(const struct pf_gpu_nic_pair *pairs, size_t n)
{
	size_t count[PF_PATH_UNKNOWN + 1] = { 0 };
	enum pf_path_class best = PF_PATH_UNKNOWN;
	size_t best_n = 0;

	for (size_t i = 0; i < n; i++)
		if (pairs[i].nic >= 0)
			count[pairs[i].cls]++;
	for (int c = PF_PATH_PIX; c <= PF_PATH_UNKNOWN; c++) {
		if (count[c] > best_n ||
		    (count[c] == best_n && count[c] > 0 && rank(c) < rank(best))) {
			best = (enum pf_path_class)c;
			best_n = count[c];
		}
	}
	return best;
}

static const char *class_meaning(enum pf_path_class c)
{
	switch (c) {
	case PF_PATH_PIX: return "behind one PCIe switch";
	case PF_PATH_PXB: return "across several PCIe switches";
	case PF_PATH_PHB: return "through the PCIe host bridge";
	case PF_PATH_NODE: return "across host bridges of one NUMA node";
	case PF_PATH_SYS: return "across NUMA nodes";
	default: return "on different host bridges with an unknown NUMA node";
	}
}

static void observe(struct pf_finding *f, const struct pf_node *node,
		    const struct pf_gpu_nic_pair *p,
		    enum pf_path_class expected, bool inferred, bool require_numa)
{
	const struct pf_rdma_dev *nic = &node->rdma[p->nic];

	pf_obs_str(f, "nic", nic->name);
	pf_obs_str(f, "nic_pci", node->pci[nic->pci].bdf);
	pf_obs_str(f, "class", pf_path_class_name(p->cls));
	if (p->gpu_numa >= 0)
		pf_obs_num(f, "gpu_numa", p->gpu_numa);
	if (p->nic_numa >= 0)
		pf_obs_num(f, "nic_numa", p->nic_numa);
	if (p->gpu_numa >= 0 && p->nic_numa >= 0)
		pf_obs_bool(f, "same_numa", p->gpu_numa == p->nic_numa);
	pf_obs_bool(f, "gdr_default", pf_path_gdr_default(p->cls));
	pf_obs_num(f, "nics_at_class", (double)p->n_at_best);
	pf_exp_str(f, "worst_class", pf_path_class_name(expected));
	pf_exp_str(f, "worst_class_from", inferred ? "node" : "profile");
	if (require_numa)
		pf_exp_bool(f, "same_numa", true);
}

enum verdict { VERDICT_OK, VERDICT_NUMA, VERDICT_FAR, VERDICT_UNKNOWN };

static enum verdict judge(struct pf_result *res, const struct pf_node *node,
			  const struct gpu_nic_numa_cfg *cfg, const struct pf_gpu_nic_pair *p,
			  enum pf_path_class expected, bool inferred)
{
	const struct pf_rdma_dev *nic = &node->rdma[p->nic];
	enum verdict v = VERDICT_OK;
	const char *gpu = p->gpu->bdf, *cls = pf_path_class_name(p->cls);
	bool numa_bad = cfg->require_numa && p->gpu_numa >= 0 && p->nic_numa >= 0 &&
			p->gpu_numa != p->nic_numa;
	bool far = p->cls != PF_PATH_UNKNOWN && rank(p->cls) > rank(expected);
	struct pf_finding *f;

	if (numa_bad) {
		v = VERDICT_NUMA;
		f = pf_add(res, PF_STATUS_FAIL, gpu,
			   "GPU %s (NUMA %d): nearest RDMA NIC %s is on NUMA node %d (%s, %s)", gpu,
			   p->gpu_numa, nic->name, p->nic_numa, cls, class_meaning(p->cls));
		pf_code(f, 1);
		pf_remedy(f, "no NIC shares this GPU's NUMA node: install or move a NIC onto a "
			  "root complex of NUMA node %d, or check that its NIC is detected (lspci, "
			  "ibv_devinfo); until then traffic of this GPU crosses the socket "
			  "interconnect and NCCL disables GPUDirect RDMA for it", p->gpu_numa);
	} else if (far) {
		v = VERDICT_FAR;
		f = pf_add(res, PF_STATUS_FAIL, gpu,
			   "GPU %s: nearest RDMA NIC %s is %s (%s), expected %s or nearer%s", gpu,
			   nic->name, cls, class_meaning(p->cls), pf_path_class_name(expected),
			   inferred ? " like most GPUs of this node" : "");
		pf_code(f, 2);
		pf_remedy(f, "this GPU has no NIC at the distance its peers have: check that its "
			  "rail NIC is present and bound to its driver (lspci -d 15b3:, "
			  "ibv_devinfo) and seated in the slot behind the GPU's PCIe switch; "
			  "if the layout is intended, set gpu_nic_numa.worst_class=%s", cls);
	} else if (p->cls == PF_PATH_UNKNOWN) {
		v = VERDICT_UNKNOWN;
		f = pf_add(res, PF_STATUS_WARN, gpu,
			   "GPU %s: nearest RDMA NIC %s is on another host bridge and the NUMA "
			   "node of one of them is unknown", gpu, nic->name);
		pf_code(f, 3);
		pf_remedy(f, "the firmware reports no NUMA affinity (numa_node -1): enable "
			  "ACPI SRAT/_PXM (NUMA per socket) in the BIOS so that locality can be "
			  "checked");
	} else {
		f = pf_add(res, PF_STATUS_PASS, gpu, "GPU %s -> %s: %s (%s)%s", gpu, nic->name, cls,
			   class_meaning(p->cls),
			   pf_path_gdr_default(p->cls) ? ", GPUDirect RDMA by default"
						       : ", no GPUDirect RDMA by default");
	}
	observe(f, node, p, expected, inferred, cfg->require_numa);
	return v;
}


/* Is @anc a bridge above @pci? */
static bool below(const struct pf_node *node, int pci, int anc)
{
	for (int p = node->pci[pci].parent, depth = 0; p >= 0 && (size_t)p < node->n_pci &&
	     depth < 64; p = node->pci[p].parent, depth++)
		if (p == anc)
			return true;
	return false;
}

/*
 * The deepest bridge above both @a and @b (the PCIe switch, or root port,
 * that a GPU and its NIC share); -1 when they part at the host bridge.
 */
static int common_bridge(const struct pf_node *node, int a, int b)
{
	for (int p = node->pci[a].parent, depth = 0; p >= 0 && (size_t)p < node->n_pci &&
	     depth < 64; p = node->pci[p].parent, depth++)
		if (below(node, b, p))
			return p;
	return -1;
}

struct sw {
	int pci;
	size_t gpus, nics;
};

static struct sw *sw_get(struct sw **v, size_t *n, int pci)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].pci == pci)
			return &(*v)[i];
	*v = pf_xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = (struct sw){ .pci = pci };
	return &(*v)[(*n)++];
}

/* NICs named in gpu_nic_numa.nics that the node does not have, listed in @sb. */
static size_t missing_nics(const struct pf_node *node, const char *nics, struct pf_strbuf *sb)
{
	pf_autofree char *copy = pf_xstrdup(nics);
	size_t n = 0;

	for (char *save = NULL, *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		if (pf_node_rdma(node, t))
			continue;
		pf_strbuf_adds(pf_strbuf_sep(sb, ", "), t);
		n++;
	}
	return n;
}

/*
 * Rail coverage; returns the GPUs failed.  @pairs in GPU order: a GPU that
 * shares its NIC with an earlier GPU on a switch short of NICs fails.
 */
static size_t judge_coverage(struct pf_result *res, const struct pf_node *node,
			     const struct gpu_nic_numa_cfg *cfg, struct pf_gpu_nic_pair *pairs,
			     size_t n, bool *failed)
{
	pf_autofree struct sw *sws = NULL;
	pf_autofree int *dom = pf_xcalloc(n + 1, sizeof(*dom));
	size_t n_sw = 0, best_votes = 0, n_bad = 0;
	size_t usual_g = 0, usual_n = 0;
	pf_autostrbuf struct pf_strbuf missing_sb = PF_STRBUF_INIT;
	size_t n_missing = cfg->nics[0] ? missing_nics(node, cfg->nics, &missing_sb) : 0;
	const char *missing = missing_sb.buf;

	for (size_t i = 0; i < n; i++) {
		int s = pairs[i].nic < 0 ? -1 :
			common_bridge(node, (int)(pairs[i].gpu - node->pci), node->rdma[pairs[i].nic].pci);

		dom[i] = s;
		if (s >= 0)
			sw_get(&sws, &n_sw, s)->gpus++;
	}
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		if (!nic_selected(cfg, d))
			continue;
		for (size_t k = 0; k < n_sw; k++)
			if (below(node, d->pci, sws[k].pci))
				sws[k].nics++;
	}
	/* the usual NICs per GPU: the ratio most switches with GPUs and NICs have */
	for (size_t a = 0; a < n_sw; a++) {
		size_t votes = 0;

		if (!sws[a].gpus || !sws[a].nics)
			continue;
		for (size_t b = 0; b < n_sw; b++)
			votes += sws[b].gpus && sws[b].nics * sws[a].gpus == sws[a].nics * sws[b].gpus;
		if (votes > best_votes ||
		    (votes == best_votes && sws[a].nics * usual_g > usual_n * sws[a].gpus)) {
			best_votes = votes;
			usual_g = sws[a].gpus;
			usual_n = sws[a].nics;
		}
	}
	for (size_t i = 0; usual_g && i < n; i++) {
		struct pf_gpu_nic_pair *p = &pairs[i];
		int s = dom[i];
		const struct sw *w = NULL;
		const struct pf_gpu_nic_pair *first = NULL;
		struct pf_finding *f;

		for (size_t k = 0; k < n_sw && s >= 0; k++)
			if (sws[k].pci == s)
				w = &sws[k];
		/* short of NICs: fewer per GPU than usual (none at all is the class rule's) */
		if (p->nic < 0 || !w || !w->nics || w->nics * usual_g >= usual_n * w->gpus)
			continue;
		for (size_t j = 0; j < i && !first; j++)
			if (pairs[j].nic == p->nic && dom[j] == s)
				first = &pairs[j];
		if (!first)
			continue;
		n_bad++;
		failed[i] = true;
		f = pf_add(res, PF_STATUS_FAIL, p->gpu->bdf, "GPU %s shares %s with %s: its PCIe "
			   "switch %s has %zu NIC%s for %zu GPUs where this node's switches have %zu "
			   "for %zu%s%s", p->gpu->bdf, node->rdma[p->nic].name, first->gpu->bdf,
			   node->pci[w->pci].bdf, w->nics, w->nics == 1 ? "" : "s", w->gpus, usual_n,
			   usual_g, n_missing ? "; missing from gpu_nic_numa.nics: " : "",
			   n_missing ? missing : "");
		pf_code(f, 4);
		pf_remedy(f, "a rail NIC is gone from this switch and its GPU falls back to the "
			  "sibling's NIC at half bandwidth: check lspci -d 15b3: and dmesg (mlx5_core, "
			  "AER) for the missing NIC, reseat or replace it; if the layout is intended, "
			  "list the NICs in gpu_nic_numa.nics");
		pf_obs_str(f, "nic", node->rdma[p->nic].name);
		pf_obs_str(f, "shared_with", first->gpu->bdf);
		pf_obs_str(f, "switch", node->pci[w->pci].bdf);
		pf_obs_num(f, "switch_gpus", (double)w->gpus);
		pf_obs_num(f, "switch_nics", (double)w->nics);
		pf_exp_num(f, "nics_per_gpu", (double)usual_n / (double)usual_g);
		if (n_missing)
			pf_obs_str(f, "missing_nics", missing);
	}
	if (n_missing) {
		struct pf_finding *f = pf_add(res, PF_STATUS_FAIL, "nics", "%zu NIC%s listed in "
					      "gpu_nic_numa.nics not on the node: %s", n_missing,
					      n_missing == 1 ? "" : "s", missing);
		pf_code(f, 5);

		pf_remedy(f, "check lspci -d 15b3:, ibv_devinfo and dmesg for the missing NIC; "
			  "reseat or replace it");
		pf_obs_str(f, "missing", missing);
		pf_exp_str(f, "nics", cfg->nics);
		n_bad++;
	}
	return n_bad;
}

static int gpu_nic_numa_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct gpu_nic_numa_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	enum pf_path_class expected = PF_PATH_UNKNOWN;
	size_t n = 0, n_nics = 0, n_far = 0, n_numa = 0, n_unknown = 0, n_unplaced = 0;
	size_t n_cover;
	pf_autofree bool *failed = NULL;
	pf_autostrbuf struct pf_strbuf map = PF_STRBUF_INIT;
	bool inferred = !cfg->worst_class[0];

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	/* an enum: the profile accepts only these class names */
	if (!inferred) {
		int r = pf_path_class_from_name(cfg->worst_class, &expected);

		PF_BUG_ON(r < 0 || expected == PF_PATH_UNKNOWN);
	}
	for (size_t i = 0; i < node->n_rdma; i++)
		if (nic_selected(cfg, &node->rdma[i]))
			n_nics++;
	n = pf_gpu_nic_pairs(node, cfg->nics, cfg->ignore_gpus, &pairs);
	if (n == 0)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus%s",
			       node->n_gpus ? " that is not ignored" : "");
	if (n_nics == 0)
		return pf_skip(res, "%zu GPU%s but no RDMA NIC%s: nothing to pair", n,
			       n == 1 ? "" : "s", cfg->nics[0] ? " among gpu_nic_numa.nics" : "");

	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		if (!nic_selected(cfg, d) || placed(&node->pci[d->pci]))
			continue;
		pf_add(res, PF_STATUS_WARN, d->name,
		       "%s: PCI path '%s' leads to no host bridge; not considered as a NIC",
		       d->name, node->pci[d->pci].path ? node->pci[d->pci].path : "");
		pf_code(pf_last(res), 6);
	}
	if (inferred)
		expected = majority(pairs, n);
	failed = pf_xcalloc(n, sizeof(*failed));
	n_cover = judge_coverage(res, node, cfg, pairs, n, failed);
	for (size_t i = 0; i < n; i++) {
		if (pairs[i].nic < 0) {
			struct pf_finding *f;

			f = pf_add(res, PF_STATUS_ERROR, pairs[i].gpu->bdf,
				   placed(pairs[i].gpu)
					   ? "GPU %s: no RDMA NIC could be placed on the PCI tree"
					   : "GPU %s: its PCI path leads to no host bridge; cannot place it",
				   pairs[i].gpu->bdf);
			pf_obs_str(f, "path", pairs[i].gpu->path ? pairs[i].gpu->path : "");
			n_unplaced++;
			pf_strbuf_addf(&map, "%s-", i ? "," : "");
			continue;
		}
		/* its rail-coverage failure is its finding */
		switch (failed[i] ? VERDICT_OK : judge(res, node, cfg, &pairs[i], expected, inferred)) {
		case VERDICT_NUMA: n_numa++; break;
		case VERDICT_FAR: n_far++; break;
		case VERDICT_UNKNOWN: n_unknown++; break;
		default: break;
		}
		pf_strbuf_addf(&map, "%s%s", i ? "," : "", node->rdma[pairs[i].nic].name);
	}
	if (n_cover && n_far + n_numa + n_unknown + n_unplaced == 0) {
		pf_summary(res, "rail coverage: %zu finding%s (a GPU sharing a NIC where its switch "
			   "lost one, or a listed NIC missing); nearest NIC by GPU: %s", n_cover,
			   n_cover == 1 ? "" : "s", map.buf);
	} else if (n_far + n_numa + n_unknown + n_unplaced == 0) {
		pf_summary(res, "%zu GPU%s, each with a NIC at %s or nearer (%s) on its NUMA node; "
			   "nearest NIC by GPU: %s", n, n == 1 ? "" : "s",
			   pf_path_class_name(expected), inferred ? "as most GPUs here" : "profile",
			   map.buf);
	} else {
		pf_autostrbuf struct pf_strbuf what = PF_STRBUF_INIT;

		if (n_numa)
			pf_strbuf_addf(pf_strbuf_sep(&what, ", "), "%zu with no NIC on its NUMA node",
				       n_numa);
		if (n_far)
			pf_strbuf_addf(pf_strbuf_sep(&what, ", "), "%zu with no NIC at %s or nearer (%s)",
				       n_far, pf_path_class_name(expected),
				       inferred ? "as most GPUs here" : "profile");
		if (n_unknown)
			pf_strbuf_addf(pf_strbuf_sep(&what, ", "), "%zu with unknown NUMA locality",
				       n_unknown);
		if (n_unplaced)
			pf_strbuf_addf(pf_strbuf_sep(&what, ", "), "%zu not placed on the PCI tree",
				       n_unplaced);
		pf_summary(res, "%zu of %zu GPU%s: %s; nearest NIC by GPU: %s",
			   n_far + n_numa + n_unknown + n_unplaced, n, n == 1 ? "" : "s", what.buf,
			   map.buf);
	}
	return 0;
}

static const struct pf_code gpu_nic_numa_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "a GPU's nearest RDMA NIC is on another NUMA node" },
	{ 2, PF_ACTION_RESEAT_OR_REPLACE, "a GPU's nearest RDMA NIC is farther on the PCI tree than expected (its rail NIC missing or in another slot)" },
	{ 3, PF_ACTION_RECONFIGURE, "a GPU and its nearest NIC are on different host bridges and the firmware reports no NUMA node (BIOS SRAT)" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "a GPU shares a NIC with a sibling GPU: a rail NIC is gone from its PCIe switch" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "NICs the profile lists (gpu_nic_numa.nics) are not on the node" },
	{ 6, PF_ACTION_NONE, "an RDMA NIC's PCI path leads to no host bridge, so it is not considered" },
	{ 0 },
};

const struct pf_check pf_check_gpu_nic_numa = {
	.name = "gpu_nic_numa",
	.summary = "every GPU has an RDMA NIC near it on the PCI tree and on its NUMA node",
	.tags = "rdma,gpu,topology,static",
	.reads = "the inventory: canonical PCI paths of GPUs and RDMA devices and their NUMA "
		 "nodes, from /sys/bus/pci/devices/*/{numa_node,local_cpulist}, "
		 "/sys/class/infiniband/*/device, or an lstopo XML export (--topology, "
		 "<root>/preflight/topology.xml)",
	.params = gpu_nic_numa_params,
	.codes = gpu_nic_numa_codes,
	.cfg_size = sizeof(struct gpu_nic_numa_cfg),
	.timeout_s = 5,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY,
	.run = gpu_nic_numa_run,
};
