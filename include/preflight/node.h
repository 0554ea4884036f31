/* SPDX-License-Identifier: MIT */
/*
 * node.h - the node inventory, read once and shared by every check.
 *
 * Built from sysfs under the root (src/node_sysfs.c) or from an lstopo XML
 * export through hwloc (src/node_hwloc.c); both fill the same model.  Checks
 * that set PF_CHECK_NEEDS_NODE find it in ctx->node.  Indexes link the
 * tables: -1 means "none".
 */
#ifndef PREFLIGHT_NODE_H
#define PREFLIGHT_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/fs.h"

#define PF_PCI_VENDOR_NVIDIA 0x10de
#define PF_PCI_VENDOR_MELLANOX 0x15b3

struct pf_pci_dev {
	char bdf[16];        /* "0000:17:00.0", lower-case */
	char *path;          /* canonical sysfs path under the root, or hwloc-synthesised */
	uint16_t vendor, device;
	uint32_t class;      /* 0x030200 */
	int numa_node;       /* -1 unknown (after the local_cpulist fallback) */
	char *local_cpulist; /* "0-39" or NULL */
	double cur_speed_gts, max_speed_gts; /* 0 unknown */
	int cur_width, max_width;            /* 0 unknown */
	int parent;          /* index of the upstream bridge in node->pci, -1 at a root port */
};

struct pf_gpu {
	int pci;             /* index into node->pci */
};

enum pf_link_layer {
	PF_LINK_UNKNOWN,
	PF_LINK_IB,
	PF_LINK_ETH,
};

struct pf_rdma_port {
	unsigned int num;    /* 1-based */
	int state;           /* 4 = ACTIVE; 0 unknown */
	char *state_name;    /* "ACTIVE" */
	int phys_state;      /* 5 = LinkUp; 0 unknown */
	char *phys_state_name;
	char *rate;          /* as the kernel prints it: "400 Gb/sec (4X NDR)" */
	double rate_gbps;    /* 0 unknown */
	int width;           /* lanes: 1, 2, 4, 8, 12; 0 unknown */
	char *speed_name;    /* "NDR", "" for old-kernel SDR */
	enum pf_link_layer link_layer;
	int active_mtu;      /* bytes, 0 unknown */
	int netdev;          /* index into node->netdevs, -1 none */
};

struct pf_rdma_dev {
	char *name;          /* "mlx5_0" */
	int pci;             /* index into node->pci, -1 when there is no PCI parent */
	char *hca_type;      /* "MT4129" or NULL */
	char *board_id;      /* or NULL */
	struct pf_rdma_port *ports;
	size_t n_ports;
};

struct pf_netdev {
	char *name;
	int rdma_dev;        /* index into node->rdma, -1 none */
	unsigned int port;   /* RDMA port number, 0 none */
	int64_t speed_mbps;  /* -1 unknown (down link: EINVAL) */
	int64_t mtu;         /* -1 unknown */
	char *operstate;     /* "up", or NULL */
};

struct pf_numa {
	int id;
	char *cpulist;
};

struct pf_node {
	const char *source;  /* "sysfs" or "hwloc" */
	struct pf_pci_dev *pci;
	size_t n_pci;
	struct pf_gpu *gpus;
	size_t n_gpus;
	struct pf_rdma_dev *rdma;
	size_t n_rdma;
	struct pf_netdev *netdevs;
	size_t n_netdevs;
	struct pf_numa *numa;
	size_t n_numa;
	char **notes;        /* what inventory skipped, e.g. "scif0: no PCI parent"; NULL-terminated */
};

/*
 * Read the inventory under @fs; with @topology_xml (a file, or NULL to use
 * <root>/preflight/topology.xml when present) from hwloc instead.
 * -errno with *ret_err on a failure that leaves no usable model.
 */
int pf_node_load(const struct pf_fs *fs, const char *topology_xml, struct pf_node **ret,
		 char **ret_err);
struct pf_node *pf_node_free(struct pf_node *node);

/* Lookups; NULL when absent. */
const struct pf_pci_dev *pf_node_pci(const struct pf_node *node, const char *bdf);

#endif
