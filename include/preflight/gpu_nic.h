/* SPDX-License-Identifier: MIT */
/*
 * gpu_nic.h - each GPU's nearest RDMA NIC, from the inventory.
 *
 * One pairing rule for every check that needs it (gpu_nic_numa judges the
 * distances, gdr_loopback sends traffic over the pairs): the nearest NIC
 * by PCI path class (PIX < PXB < PHB < NODE < UNKNOWN < SYS); equal
 * classes go to a NIC with a port up (ACTIVE, or of unknown state) over
 * one whose ports are all down (NCCL's IB transport skips ports that are
 * not ACTIVE, so a GPU never uses them: a DGX Spark with 2 of its 4 RoCE
 * ports DOWN), then to the NIC on the GPU's NUMA node, then to the NIC
 * fewer earlier GPUs took (two GPUs and two NICs behind one switch make
 * two rails, not one), then to the name.  A nearer NIC that is down still
 * wins: that GPU's rail is down, and the checks say so.
 */
#ifndef PREFLIGHT_GPU_NIC_H
#define PREFLIGHT_GPU_NIC_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/node.h"

struct pf_gpu_nic_pair {
	const struct pf_pci_dev *gpu;
	int nic;                 /* index into node->rdma, -1 none */
	enum pf_path_class cls;
	int gpu_numa, nic_numa;  /* as judged: -1 unknown */
	size_t n_at_best;        /* NICs at the same class */
};

/*
 * A device's NUMA node for the classifier: its numa_node, or on a node
 * with at most one NUMA node that node (0 when none is listed); -1 unknown.
 */
int pf_node_effective_numa(const struct pf_node *node, const struct pf_pci_dev *dev);

/* Does the device's path lead to a host bridge (can it be placed on the PCI tree)? */
bool pf_pci_dev_placed(const struct pf_pci_dev *dev);

/*
 * Pair every GPU of @node not listed in @ignore_gpus (comma-separated BDFs,
 * may be NULL) with its nearest RDMA device among @nics (comma-separated
 * names as in NCCL_IB_HCA; NULL or empty: every RDMA device with a PCI
 * function).  *ret gets the pairs in GPU order (caller frees; nic is -1
 * when the GPU or no NIC can be placed on the PCI tree); returns their
 * count.  NICs whose path reaches no host bridge are never picked.
 */
size_t pf_gpu_nic_pairs(const struct pf_node *node, const char *nics, const char *ignore_gpus,
			struct pf_gpu_nic_pair **ret);

#endif
