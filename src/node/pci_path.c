// SPDX-License-Identifier: MIT
/*
 * pci_path.c - the PCI distance between two devices, from their canonical
 * sysfs paths, in nvidia-smi's vocabulary (PIX, PXB, PHB, NODE, SYS).
 *
 * A path is "/sys/devices/pci<domain>:<bus>/<root port>/<switch up>/<switch
 * down>/.../<device>".  The component that starts with "pci" is the host
 * bridge (root complex); the BDF-shaped components after it are the chain
 * of bridges and, last, the device.  Below the root port, bridges come in
 * (upstream, downstream) pairs, one pair per PCIe switch; counting those
 * pairs rather than raw bridges is what NCCL does when it builds its
 * topology (one "pci" node per switch).  The classifier is pure: it never
 * touches the file system, so the sysfs and hwloc inventories share it;
 * pf_node_path_classify() adds NCCL's fusing of Broadcom two-level switches
 * (ncclTopoFlattenBcmSwitches(), src/graph/topo.cc) from the model's IDs.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "preflight/node.h"
#include "preflight/parse.h"

static const char *const class_names[] = {
	[PF_PATH_PIX] = "PIX",
	[PF_PATH_PXB] = "PXB",
	[PF_PATH_PHB] = "PHB",
	[PF_PATH_NODE] = "NODE",
	[PF_PATH_SYS] = "SYS",
	[PF_PATH_UNKNOWN] = "UNKNOWN",
};

const char *pf_path_class_name(enum pf_path_class c)
{
	if ((unsigned int)c >= PF_ARRAY_SIZE(class_names))
		return "UNKNOWN";
	return class_names[c];
}

int pf_path_class_from_name(const char *name, enum pf_path_class *ret)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(class_names); i++)
		if (!strcasecmp(name, class_names[i])) {
			*ret = (enum pf_path_class)i;
			return 0;
		}
	return -EINVAL;
}

int pf_path_class_rank(enum pf_path_class c)
{
	switch (c) {
	case PF_PATH_PIX: return 0;
	case PF_PATH_PXB: return 1;
	case PF_PATH_PHB: return 2;
	case PF_PATH_NODE: return 3;
	case PF_PATH_UNKNOWN: return 4; /* NODE or SYS: prefer a known NODE */
	default: return 5;
	}
}

bool pf_path_gdr_default(enum pf_path_class c)
{
	/* NCCL_NET_GDR_LEVEL defaults to PXB: GPUDirect RDMA only up to there */
	return c == PF_PATH_PIX || c == PF_PATH_PXB;
}

int pf_pci_bcm_gen(const struct pf_pci_dev *sw, int level)
{
	uint64_t id = (uint64_t)sw->vendor << 48 | (uint64_t)sw->device << 32 |
		      (uint64_t)sw->subsys_vendor << 16 | sw->subsys_device;

	/* the low 12 bits of the subsystem device are the chip's variant */
	if ((id & ~UINT64_C(0xfff)) == UINT64_C(0x1000c0101000a000))
		return 4;
	if ((id & ~UINT64_C(0xfff)) == (UINT64_C(0x1000c03010000000) | (uint64_t)level * 0x1000))
		return 5;
	return 0;
}

/* Whether switch @lower, right below @upper, is fused into it (NCCL's rule). */
static bool bcm_fused(const struct pf_node *node, const char *upper, const char *lower)
{
	const struct pf_pci_dev *u = pf_node_pci(node, upper), *l = pf_node_pci(node, lower);
	int gen;

	if (!u || !l)
		return false;
	gen = pf_pci_bcm_gen(u, 0);
	return gen && pf_pci_bcm_gen(l, 1) == gen;
}

/*
 * The switches of @c from the top, each named by its upstream port
 * (comp[1], comp[3], ...), into @sw; with @node, a Broadcom sub-switch fused
 * into the switch above it is not one of its own.  Fused switches are not
 * fused again (NCCL marks them), so the switch after a pair starts afresh.
 */
static size_t chain_switches(const struct pf_pci_chain *c, const struct pf_node *node,
			     const char *sw[])
{
	size_t n_raw = (c->n - 1) / 2, n = 0;

	for (size_t i = 0; i < n_raw; i++) {
		sw[n++] = c->comp[1 + 2 * i];
		if (node && i + 1 < n_raw && bcm_fused(node, c->comp[1 + 2 * i], c->comp[3 + 2 * i]))
			i++;
	}
	return n;
}

static int classify(const struct pf_node *node, const char *path_a, int numa_a,
		    const char *path_b, int numa_b, enum pf_path_class *ret)
{
	struct pf_pci_chain a, b;
	const char *sw_a[PF_PCI_CHAIN_MAX], *sw_b[PF_PCI_CHAIN_MAX];
	size_t common, n_sw_a, n_sw_b;
	int r;

	r = pf_pci_path_split(path_a, &a);
	if (r < 0)
		return r;
	r = pf_pci_path_split(path_b, &b);
	if (r < 0)
		return r;

	if (strcasecmp(a.root, b.root)) {
		if (numa_a < 0 || numa_b < 0)
			*ret = PF_PATH_UNKNOWN;
		else
			*ret = numa_a == numa_b ? PF_PATH_NODE : PF_PATH_SYS;
		return 0;
	}
	/* different root ports, or a device directly on the host bridge */
	if (a.n < 2 || b.n < 2 || strcasecmp(a.comp[0], b.comp[0])) {
		*ret = PF_PATH_PHB;
		return 0;
	}
	/*
	 * Below the root port (comp[0]) the bridges pair up: comp[1]/comp[2]
	 * is the first switch, comp[3]/comp[4] the next.  A device's switches
	 * are the upstream ports above it, comp[1], comp[3], ... before the
	 * device itself.  Count the switches the two share from the top.
	 */
	n_sw_a = chain_switches(&a, node, sw_a);
	n_sw_b = chain_switches(&b, node, sw_b);
	for (common = 0; common < n_sw_a && common < n_sw_b; common++)
		if (strcasecmp(sw_a[common], sw_b[common]))
			break;
	if (common == 0) {
		/* only the root port in common: traffic turns in the host bridge */
		*ret = PF_PATH_PHB;
		return 0;
	}
	/* the shared lowest switch, plus each side's switches below it */
	*ret = (n_sw_a - common) + (n_sw_b - common) == 0 ? PF_PATH_PIX : PF_PATH_PXB;
	return 0;
}

int pf_pci_path_classify(const char *path_a, int numa_a, const char *path_b, int numa_b,
			 enum pf_path_class *ret)
{
	return classify(NULL, path_a, numa_a, path_b, numa_b, ret);
}

int pf_node_path_classify(const struct pf_node *node, const struct pf_pci_dev *a, int numa_a,
			  const struct pf_pci_dev *b, int numa_b, enum pf_path_class *ret)
{
	if (!a->path || !b->path)
		return -EINVAL;
	return classify(node, a->path, numa_a, b->path, numa_b, ret);
}
