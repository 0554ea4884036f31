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
 * touches the file system, so the sysfs and hwloc inventories share it.
 */
#include <ctype.h>
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

int pf_pci_path_classify(const char *path_a, int numa_a, const char *path_b, int numa_b,
			 enum pf_path_class *ret)
{
	struct pf_pci_chain a, b;
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
	n_sw_a = (a.n - 1) / 2;
	n_sw_b = (b.n - 1) / 2;
	for (common = 0; common < n_sw_a && common < n_sw_b; common++)
		if (strcasecmp(a.comp[1 + 2 * common], b.comp[1 + 2 * common]))
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
