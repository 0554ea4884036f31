// SPDX-License-Identifier: MIT
/*
 * gpu_nic_numa - every GPU has an RDMA NIC close to it on the PCI tree and
 * on its NUMA node.
 *
 * From the inventory (sysfs or an lstopo export): for each GPU, the nearest
 * RDMA NIC by PCI path class (PIX < PXB < PHB < NODE < SYS, see
 * src/pci_path.c; ties go to the NIC on the GPU's NUMA node, then to one no
 * earlier GPU took, then by name)
 * and whether the two share a NUMA node.  The GPU -> NIC map is reported as
 * observed values: it is the per-rank choice NCCL_IB_HCA should follow.
 * Expected class: `worst_class` when set, else the class most GPUs of the
 * node achieve, so one GPU left without its rail NIC on a rail-aligned node
 * fails while a node built without switches is not judged against PIX.
 * A GPU whose nearest NIC is on another NUMA node fails (require_numa).
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_nic.h"
#include "preflight/node.h"

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
		pf_remedy(f, "this GPU has no NIC at the distance its peers have: check that its "
			  "rail NIC is present and bound to its driver (lspci -d 15b3:, "
			  "ibv_devinfo) and seated in the slot behind the GPU's PCIe switch; "
			  "if the layout is intended, set gpu_nic_numa.worst_class=%s", cls);
	} else if (p->cls == PF_PATH_UNKNOWN) {
		v = VERDICT_UNKNOWN;
		f = pf_add(res, PF_STATUS_WARN, gpu,
			   "GPU %s: nearest RDMA NIC %s is on another host bridge and the NUMA "
			   "node of one of them is unknown", gpu, nic->name);
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

static int gpu_nic_numa_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct gpu_nic_numa_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	enum pf_path_class expected = PF_PATH_UNKNOWN;
	size_t n = 0, n_nics = 0, n_far = 0, n_numa = 0, n_unknown = 0, n_unplaced = 0, len = 0;
	char map[1024] = "";
	bool inferred = !cfg->worst_class[0];

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	/* an enum: the profile accepts only these class names */
	if (!inferred)
		PF_BUG_ON(pf_path_class_from_name(cfg->worst_class, &expected) < 0 ||
			  expected == PF_PATH_UNKNOWN);
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

		if (nic_selected(cfg, d) && !placed(&node->pci[d->pci]))
			pf_add(res, PF_STATUS_WARN, d->name,
			       "%s: PCI path '%s' leads to no host bridge; not considered as a NIC",
			       d->name, node->pci[d->pci].path ? node->pci[d->pci].path : "");
	}
	if (inferred)
		expected = majority(pairs, n);
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
			if (len < sizeof(map))
				len += (size_t)snprintf(map + len, sizeof(map) - len, "%s-",
							i ? "," : "");
			continue;
		}
		switch (judge(res, node, cfg, &pairs[i], expected, inferred)) {
		case VERDICT_NUMA: n_numa++; break;
		case VERDICT_FAR: n_far++; break;
		case VERDICT_UNKNOWN: n_unknown++; break;
		default: break;
		}
		if (len < sizeof(map))
			len += (size_t)snprintf(map + len, sizeof(map) - len, "%s%s",
						i ? "," : "", node->rdma[pairs[i].nic].name);
	}
	if (n_far + n_numa + n_unknown + n_unplaced == 0) {
		pf_summary(res, "%zu GPU%s, each with a NIC at %s or nearer (%s) on its NUMA node; "
			   "nearest NIC by GPU: %s", n, n == 1 ? "" : "s",
			   pf_path_class_name(expected), inferred ? "as most GPUs here" : "profile",
			   map);
	} else {
		char what[256];
		size_t w = 0;

		what[0] = '\0';
		if (n_numa)
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%zu with no NIC on its "
					      "NUMA node", w ? ", " : "", n_numa);
		if (n_far)
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%zu with no NIC at %s "
					      "or nearer (%s)", w ? ", " : "", n_far,
					      pf_path_class_name(expected),
					      inferred ? "as most GPUs here" : "profile");
		if (n_unknown)
			w += (size_t)snprintf(what + w, sizeof(what) - w, "%s%zu with unknown NUMA "
					      "locality", w ? ", " : "", n_unknown);
		if (n_unplaced)
			snprintf(what + w, sizeof(what) - w, "%s%zu not placed on the PCI tree",
				 w ? ", " : "", n_unplaced);
		pf_summary(res, "%zu of %zu GPU%s: %s; nearest NIC by GPU: %s",
			   n_far + n_numa + n_unknown + n_unplaced, n, n == 1 ? "" : "s", what, map);
	}
	return 0;
}

const struct pf_check pf_check_gpu_nic_numa = {
	.name = "gpu_nic_numa",
	.summary = "every GPU has an RDMA NIC near it on the PCI tree and on its NUMA node",
	.tags = "rdma,gpu,topology,static",
	.reads = "the inventory: canonical PCI paths of GPUs and RDMA devices and their NUMA "
		 "nodes, from /sys/bus/pci/devices/*/{numa_node,local_cpulist}, "
		 "/sys/class/infiniband/*/device, or an lstopo XML export (--topology, "
		 "<root>/preflight/topology.xml)",
	.params = gpu_nic_numa_params,
	.cfg_size = sizeof(struct gpu_nic_numa_cfg),
	.timeout_s = 5,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY,
	.run = gpu_nic_numa_run,
};
