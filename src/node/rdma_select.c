// SPDX-License-Identifier: MIT
/*
 * rdma_select.c - which RDMA ports the traffic checks test (rdma_select.h).
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/rdma_select.h"
#include "preflight/macro.h"

bool pf_rdma_vf_of_present_pf(const struct pf_fs *fs, const struct pf_node *node,
			      const struct pf_rdma_dev *dev)
{
	const char *path = dev->pci >= 0 ? node->pci[dev->pci].path : NULL;
	pf_autofree char *link = NULL, *pf = NULL;
	const char *bdf;

	if (!path)
		return false;
	link = pf_xasprintf("%s/physfn", path);
	if (pf_fs_realpath(fs, link, &pf) < 0)
		return false; /* not a VF, or its PF is not visible (a VM) */
	bdf = strrchr(pf, '/');
	bdf = bdf ? bdf + 1 : pf;
	for (size_t i = 0; i < node->n_rdma; i++)
		if (node->rdma[i].pci >= 0 && strcmp(node->pci[node->rdma[i].pci].bdf, bdf) == 0)
			return true;
	return false;
}

bool pf_rdma_default_candidate(const struct pf_fs *fs, const struct pf_node *node,
			       const struct pf_rdma_dev *dev)
{
	return !pf_rdma_vf_of_present_pf(fs, node, dev);
}

bool pf_rdma_port_usable(const struct pf_rdma_port *port)
{
	return port->state == 0 || port->state == 4;
}

bool pf_rdma_down_port_fails(bool asked_for, unsigned int n_active_candidates)
{
	return asked_for || n_active_candidates == 0;
}

const char *pf_link_layer_word(enum pf_link_layer ll)
{
	return ll == PF_LINK_IB ? "InfiniBand" : ll == PF_LINK_ETH ? "RoCE" : "unknown link layer";
}

double pf_rdma_mtu_efficiency(enum pf_link_layer ll, int mtu)
{
	double overhead = ll == PF_LINK_IB ? 26 : 82;

	return mtu > 0 ? (double)mtu / ((double)mtu + overhead) : 1;
}

double pf_rdma_mtu_scale(enum pf_link_layer ll, int mtu)
{
	double s = pf_rdma_mtu_efficiency(ll, mtu) / pf_rdma_mtu_efficiency(ll, 4096);

	return mtu > 0 && s < 1 ? s : 1;
}
