// SPDX-License-Identifier: MIT
/*
 * pcie_share.c - what a PCIe link can carry, and the share of it each of
 * several functions below it gets when they all run at once (two NICs
 * behind one switch uplink, the two ports of one card on one x16 link).
 *
 * A link is described by the device below it: an endpoint's or a switch
 * upstream port's current_link_{speed,width} is its link to the port above.
 * The links above a function are its own and those of each bridge on its
 * chain; a link carries, in each direction, the traffic of every function
 * whose chain it is on.  PCIe is full duplex, so one direction is compared
 * with the sum of the rates the functions below it send (or receive).
 *
 * Only the links a flow's buffers cross count: host memory is reached
 * through the root port, so every link up to it; GPU memory behind the same
 * switch as the NIC is reached through that switch, so the links up to the
 * lowest device above both, not its uplink (NCCL's PIX/PXB paths stay below
 * the root port).
 */
#include "preflight/node.h"

/* PCIe 1.x/2.x encode 8b/10b, 3.0-5.0 128b/130b, 6.0 FLIT mode 242 of 256 bytes. */
static double line_encoding(double gts)
{
	if (gts <= 5.0 + 0.05)
		return 0.8;
	if (gts < 64 - 0.05)
		return 128.0 / 130.0;
	return 242.0 / 256.0;
}

double pf_pcie_link_gbps(double gts, int width)
{
	if (gts <= 0 || width <= 0)
		return 0;
	return gts * width * line_encoding(gts) * PF_PCIE_TLP_EFFICIENCY;
}

/* Is @anc on the chain of @pci (the function itself, or a bridge above it)? */
static bool on_chain(const struct pf_node *node, int pci, int anc)
{
	for (size_t depth = 0; pci >= 0 && (size_t)pci < node->n_pci && depth < 64; depth++) {
		if (pci == anc)
			return true;
		pci = node->pci[pci].parent;
	}
	return false;
}

int pf_pcie_common_above(const struct pf_node *node, int a, int b)
{
	for (size_t depth = 0; a >= 0 && (size_t)a < node->n_pci && depth < 64; depth++) {
		if (a != b && on_chain(node, b, a))
			return a;
		a = node->pci[a].parent;
	}
	return -1;
}

/*
 * Does rail @i's flow cross the upstream link of @d: @d on its chain, and
 * below the device its buffers' path turns at (@stop: -1, host memory, up to
 * the root; a switch, GPU memory behind it: that switch's uplink is not
 * crossed)?
 */
static bool crosses(const struct pf_node *node, int pci, int stop, int d)
{
	if (!on_chain(node, pci, d))
		return false;
	return stop < 0 || (d != stop && on_chain(node, d, stop));
}

double pf_pcie_share_to(const struct pf_node *node, const int *pci, const int *stop,
			const double *want, size_t n, size_t which, int *ret_link)
{
	double share = 1;
	int d = pci[which];
	int top = stop ? stop[which] : -1;

	if (ret_link)
		*ret_link = -1;
	for (size_t depth = 0; d >= 0 && (size_t)d < node->n_pci && depth < 64; depth++) {
		double cap = pf_pcie_link_gbps(node->pci[d].cur_speed_gts, node->pci[d].cur_width);
		double demand = 0;

		if (d == top) /* the buffers' path turns here: its uplink is not crossed */
			break;
		for (size_t i = 0; i < n && cap > 0; i++)
			if (want[i] > 0 && crosses(node, pci[i], stop ? stop[i] : -1, d))
				demand += want[i];
		if (cap > 0 && demand > cap && cap / demand < share) {
			share = cap / demand;
			if (ret_link)
				*ret_link = d;
		}
		d = node->pci[d].parent;
	}
	return share;
}

double pf_pcie_share(const struct pf_node *node, const int *pci, const double *want, size_t n,
		     size_t which, int *ret_link)
{
	return pf_pcie_share_to(node, pci, NULL, want, n, which, ret_link);
}
