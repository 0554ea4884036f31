// SPDX-License-Identifier: MIT
/*
 * gpu_nic.c - the GPU -> nearest RDMA NIC map shared by gpu_nic_numa and
 * gdr_loopback (rules in include/preflight/gpu_nic.h).
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_nic.h"

int pf_node_effective_numa(const struct pf_node *node, const struct pf_pci_dev *d)
{
	if (d->numa_node >= 0)
		return d->numa_node;
	return node->n_numa <= 1 ? (node->n_numa == 1 ? node->numa[0].id : 0) : -1;
}

bool pf_pci_dev_placed(const struct pf_pci_dev *d)
{
	enum pf_path_class c;

	return d->path && pf_pci_path_classify(d->path, 0, d->path, 0, &c) == 0;
}

static bool nic_selected(const char *nics, const struct pf_rdma_dev *d)
{
	return d->pci >= 0 && (!nics || !nics[0] || pf_list_has(nics, d->name));
}

/*
 * Has @d a port that carries traffic: ACTIVE, or of unknown state (an export
 * without port states is not judged here)?  A device with no ports counts as
 * usable too: nothing says it is down.
 */
static bool nic_up(const struct pf_rdma_dev *d)
{
	for (size_t i = 0; i < d->n_ports; i++)
		if (d->ports[i].state == 0 || d->ports[i].state == 4)
			return true;
	return d->n_ports == 0;
}

/* Is candidate (cls, numa, index) nearer than the current pick? */
static bool better(const struct pf_node *node, const struct pf_gpu_nic_pair *p,
		   const size_t *taken, enum pf_path_class cls, int numa, size_t cand)
{
	int rc = pf_path_class_rank(cls), rp = pf_path_class_rank(p->cls);
	bool cand_local, cur_local, cand_up, cur_up;

	if (p->nic < 0 || rc < rp)
		return true;
	if (rc > rp)
		return false;
	/* as near: a NIC whose port is up before one that is down (NCCL skips those) */
	cand_up = nic_up(&node->rdma[cand]);
	cur_up = nic_up(&node->rdma[p->nic]);
	if (cand_up != cur_up)
		return cand_up;
	cand_local = numa >= 0 && numa == p->gpu_numa;
	cur_local = p->nic_numa >= 0 && p->nic_numa == p->gpu_numa;
	if (cand_local != cur_local)
		return cand_local;
	if (taken[cand] != taken[p->nic])
		return taken[cand] < taken[p->nic];
	return strcmp(node->rdma[cand].name, node->rdma[p->nic].name) < 0;
}

/* Pick the nearest NIC of p->gpu; @taken counts the GPUs each NIC already serves. */
static void pair_gpu(const struct pf_node *node, const char *nics, struct pf_gpu_nic_pair *p,
		     size_t *taken)
{
	p->nic = -1;
	p->cls = PF_PATH_UNKNOWN;
	p->gpu_numa = pf_node_effective_numa(node, p->gpu);
	p->nic_numa = -1;
	p->n_at_best = 0;
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];
		const struct pf_pci_dev *nic;
		enum pf_path_class cls;
		int numa;

		if (!nic_selected(nics, d))
			continue;
		nic = &node->pci[d->pci];
		numa = pf_node_effective_numa(node, nic);
		if (!pf_pci_dev_placed(nic) ||
		    pf_node_path_classify(node, p->gpu, p->gpu_numa, nic, numa, &cls) < 0)
			continue; /* gpu_nic_numa reports unplaced NICs once */
		if (p->nic >= 0 && pf_path_class_rank(cls) == pf_path_class_rank(p->cls))
			p->n_at_best++;
		if (better(node, p, taken, cls, numa, i)) {
			if (p->nic < 0 || pf_path_class_rank(cls) < pf_path_class_rank(p->cls))
				p->n_at_best = 1;
			p->nic = (int)i;
			p->cls = cls;
			p->nic_numa = numa;
		}
	}
	if (p->nic >= 0)
		taken[p->nic]++;
}

size_t pf_gpu_nic_pairs(const struct pf_node *node, const char *nics, const char *ignore_gpus,
			struct pf_gpu_nic_pair **ret)
{
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	pf_autofree size_t *taken = NULL;
	size_t n = 0;

	pairs = pf_xcalloc(node->n_gpus + 1, sizeof(*pairs));
	taken = pf_xcalloc(node->n_rdma + 1, sizeof(*taken));
	for (size_t i = 0; i < node->n_gpus; i++) {
		const struct pf_pci_dev *gpu = &node->pci[node->gpus[i].pci];

		if (ignore_gpus && pf_list_has(ignore_gpus, gpu->bdf))
			continue;
		pairs[n].gpu = gpu;
		if (pf_pci_dev_placed(gpu)) {
			pair_gpu(node, nics, &pairs[n], taken);
		} else {
			pairs[n].nic = -1;
			pairs[n].cls = PF_PATH_UNKNOWN;
			pairs[n].gpu_numa = pf_node_effective_numa(node, gpu);
			pairs[n].nic_numa = -1;
		}
		n++;
	}
	*ret = PF_TAKE_PTR(pairs);
	return n;
}
