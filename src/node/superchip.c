// SPDX-License-Identifier: MIT
/*
 * superchip.c - whether a GPU is the GPU of a Grace superchip (GH200,
 * GB200, GB300, GB10), attached to its CPU by NVLink-C2C, by its PCI device
 * ID.  The IDs are NVIDIA's own lists: the "Compatible GPUs" table of
 * NVIDIA/open-gpu-kernel-modules README.md (GH200 2342, GB200 2941, GB300
 * 31c2 and 31c3, GB10 2e12) and gpu/devid_names.py of NVIDIA/gpu-admin-tools
 * (GH200 2342, 2343, 2345, 2348).  A PCIe card in a Grace server (an L40S,
 * an H100 PCIe) is none of these.
 */
#include "preflight/node.h"

static const uint16_t superchip_ids[] = {
	0x2342, 0x2343, 0x2345, 0x2348, /* GH200 */
	0x2941,                         /* GB200 */
	0x31c2, 0x31c3,                 /* GB300 */
	0x2e12,                         /* GB10 (DGX Spark) */
};

bool pf_gpu_is_superchip(const struct pf_pci_dev *d)
{
	if (d->vendor != PF_PCI_VENDOR_NVIDIA)
		return false;
	for (size_t i = 0; i < PF_ARRAY_SIZE(superchip_ids); i++)
		if (d->device == superchip_ids[i])
			return true;
	return false;
}
