/* SPDX-License-Identifier: MIT */
/*
 * node.h - the node inventory, read once and shared by every check.
 *
 * Built from sysfs under the root (src/node/node_sysfs.c) or from an lstopo XML
 * export through hwloc (src/node/node_hwloc.c); both fill the same model.  Checks
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
#define PF_PCI_VENDOR_AMAZON 0x1d0f /* its RDMA functions are EFA (1d0f:efa0..efa3) */

struct pf_pci_dev {
	char bdf[16];        /* "0000:17:00.0", lower-case */
	char *path;          /* canonical sysfs path under the root, or hwloc-synthesised */
	uint16_t vendor, device;
	/*
	 * The subsystem IDs, read for bridges only (0 unknown): NCCL tells a
	 * Broadcom PEX switch's level by them (pf_pci_bcm_gen()).
	 */
	uint16_t subsys_vendor, subsys_device;
	uint32_t class;      /* 0x030200 */
	int numa_node;       /* -1 unknown (after the local_cpulist fallback) */
	/*
	 * The sysfs loader reads local_cpulist and the link only for bridges,
	 * network, InfiniBand, display, accelerator and NVSwitch-class functions
	 * (local_cpulist also wherever numa_node reads -1); chipset functions
	 * leave them unknown.
	 */
	char *local_cpulist; /* "0-39" or NULL */
	double cur_speed_gts, max_speed_gts; /* 0 unknown */
	int cur_width, max_width;            /* 0 unknown */
	int parent;          /* index of the upstream bridge in node->pci, -1 at a root port */
};

struct pf_gpu {
	int pci;             /* index into node->pci */
	/*
	 * hwloc export: an OS device below the GPU that only a loaded NVIDIA
	 * driver creates ("cuda0", "nvml0"), proof of the driver; "" none.
	 */
	char driver_osdev[16];
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
	int rate_err;        /* reading ports/<n>/rate: 0, else -errno (rate NULL) */
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
	/* a bond's or team's members: bonding/slaves, else its lower_* links; NULL-terminated, NULL none */
	char **slaves;
	bool is_virtual;     /* no /sys/class/net/<if>/device: no PCI function's (bond, veth, ...) */
};

struct pf_numa {
	int id;
	char *cpulist;
};

/*
 * What a model's source does not hold (pf_node.lacks): a topology export
 * has the PCI tree, GPUs, NICs and ports, not the files beside them.  A
 * check asks pf_node_holds(), never the source's name.
 */
enum pf_node_lack {
	PF_NODE_NO_PORT_RATES = 1u << 0,   /* ports' rate files */
	PF_NODE_NO_PORT_LIST = 1u << 1,    /* a device without ports may have some */
	PF_NODE_NO_PORT_COUNTERS = 1u << 2, /* ports' counters/ and hw_counters/ */
	PF_NODE_NO_LINK_ATTRS = 1u << 3,   /* PCI functions' current/max link speed and width */
	PF_NODE_NO_IOMMU = 1u << 4,        /* IOMMU groups */
};

struct pf_node {
	const char *source;  /* "sysfs" or "hwloc": for the report, never compared */
	unsigned int lacks;  /* enum pf_node_lack */
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
 * -errno with *ret_err on a failure that leaves no usable model.  Missing
 * sysfs directories are not a failure (a root without /sys/class/infiniband
 * has no RDMA devices); unreadable ones are.
 */
int pf_node_load(const struct pf_fs *fs, const char *topology_xml, struct pf_node **ret,
		 char **ret_err);
/* Sysfs only (src/node/node_sysfs.c). */
int pf_node_load_sysfs(const struct pf_fs *fs, struct pf_node **ret, char **ret_err);
/*
 * From an lstopo XML export (src/node/node_hwloc.c).  @xml_path is a path in the
 * host filesystem, not under the root: pf_node_load() passes --topology as
 * given, or "<root>/preflight/topology.xml".
 */
int pf_node_load_hwloc(const struct pf_fs *fs, const char *xml_path, struct pf_node **ret,
		       char **ret_err);
/*
 * Free a model: every string and array in it is malloc'ed (except source,
 * a literal).  NULL-safe; returns NULL.
 */
struct pf_node *pf_node_free(struct pf_node *node);
PF_DEFINE_AUTO(node_free, struct pf_node *, pf_node_free)
#define pf_autonode PF_CLEANUP(pf_node_freep)

/* Whether @node's source holds every fact of @what (enum pf_node_lack bits). */
static inline bool pf_node_holds(const struct pf_node *node, unsigned int what)
{
	return !(node->lacks & what);
}

/* An empty model with @source ("sysfs", "hwloc"); for loaders. */
struct pf_node *pf_node_new(const char *source);
/*
 * For loaders, once devices and netdevs are known: ports of Amazon EFA
 * devices are not RoCE whatever the loader saw (upstream efa reports the
 * link layer Unspecified, early out-of-tree drivers Ethernet, an lstopo
 * export only the Ethernet PCI class): their link layer becomes unknown.
 */
void pf_node_classify_links(struct pf_node *node);
/*
 * For loaders, once netdevs are known: each netdev's members and whether it
 * is virtual, from /sys/class/net under @fs (src/node/netdev_links.c).
 */
void pf_node_netdev_links(const struct pf_fs *fs, struct pf_node *node);
/* Append a printf-formatted line to node->notes; for loaders. */
void pf_node_note(struct pf_node *node, const char *fmt, ...) PF_PRINTF(2, 3);

/* Lookups; NULL when absent. */
const struct pf_pci_dev *pf_node_pci(const struct pf_node *node, const char *bdf);
/* Index of @bdf in node->pci, or -1. */
int pf_node_pci_index(const struct pf_node *node, const char *bdf);
const struct pf_rdma_dev *pf_node_rdma(const struct pf_node *node, const char *name);
const struct pf_netdev *pf_node_netdev(const struct pf_node *node, const char *name);
/*
 * RDMA port counter @name of port @port of @dev: counters/<name>, else
 * hw_counters/<name> (src/node/port_counter.c; rxe has only hw_counters/).
 * *ret_hw tells which (may be NULL).  -ENOENT in neither, -EOPNOTSUPP for
 * "N/A (no PMA)", -EINVAL not a number, else the read's -errno; on those
 * errors *ret_text (may be NULL) gets the file's text when it was read
 * (caller frees).
 */
int pf_port_counter(const struct pf_fs *fs, const char *dev, unsigned int port,
		    const char *name, uint64_t *ret, bool *ret_hw, char **ret_text);

/*
 * What PCIe carries in one direction (src/node/pcie_share.c): GT/s x lanes x
 * the line encoding (8b/10b up to 5 GT/s, 128b/130b up to 32, FLIT at 64)
 * x PF_PCIE_TLP_EFFICIENCY, the share left by TLP headers and DLLPs at
 * 256-byte payloads.  Gb/s; 0 when either value is unknown.
 */
#define PF_PCIE_TLP_EFFICIENCY 0.9
double pf_pcie_link_gbps(double gts, int width);
/*
 * The fraction (at most 1) of @want[@which] Gb/s that the PCIe links above
 * the function node->pci[@pci[@which]] can carry while each function
 * @pci[i] moves @want[i] Gb/s each way at once (a function listed twice,
 * the two ports of one card, counts twice).  *@ret_link (may be NULL): the
 * index in node->pci of the device whose upstream link is the bottleneck, -1
 * when every link has room or none is known.
 */
double pf_pcie_share(const struct pf_node *node, const int *pci, const double *want, size_t n,
		     size_t which, int *ret_link);
/*
 * pf_pcie_share() counting only the links each flow's buffers cross: rail
 * i's path turns at node->pci[@stop[i]] (the lowest device above both its
 * NIC and the GPU whose memory it moves, pf_pcie_common_above()), whose own
 * upstream link it does not cross; -1 (or @stop NULL): host memory, every
 * link up to the root port.
 */
double pf_pcie_share_to(const struct pf_node *node, const int *pci, const int *stop,
			const double *want, size_t n, size_t which, int *ret_link);
/* The lowest device on the chains of both node->pci[@a] and [@b] (a switch), -1 none. */
int pf_pcie_common_above(const struct pf_node *node, int a, int b);

/*
 * Whether @d is the GPU of a Grace superchip (GH200, GB200, GB300, GB10:
 * NVLink-C2C to its CPU), by NVIDIA's device IDs (src/node/superchip.c).
 */
bool pf_gpu_is_superchip(const struct pf_pci_dev *d);

/*
 * PCI distance between two devices (src/node/pci_path.c), in nvidia-smi's
 * vocabulary, best first.  PIX: at most one PCIe switch between them; PXB:
 * several switches, no host bridge; PHB: through the host bridge (root
 * complex); NODE: across host bridges of one NUMA node; SYS: across NUMA
 * nodes (the socket interconnect); UNKNOWN: different host bridges and a
 * NUMA node unknown (-1).  NCCL has no NODE (it calls that PHB) and uses
 * GPUDirect RDMA by default only up to PXB (NCCL_NET_GDR_LEVEL).
 */
enum pf_path_class {
	PF_PATH_PIX,
	PF_PATH_PXB,
	PF_PATH_PHB,
	PF_PATH_NODE,
	PF_PATH_SYS,
	PF_PATH_UNKNOWN,
};

/* "PIX" ... "SYS", "UNKNOWN". */
const char *pf_path_class_name(enum pf_path_class c);
/* Parse a class name (case-insensitive); -EINVAL for anything else. */
int pf_path_class_from_name(const char *name, enum pf_path_class *ret);
/* Order for "nearest": PIX 0 < PXB < PHB < NODE < UNKNOWN < SYS 5. */
int pf_path_class_rank(enum pf_path_class c);
/* True when NCCL uses GPUDirect RDMA at this distance by default (<= PXB). */
bool pf_path_gdr_default(enum pf_path_class c);
/*
 * Classify the path between two devices from their canonical sysfs paths
 * ("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:10.0/0000:1b:00.0")
 * and NUMA nodes (-1 unknown).  Different host bridges: NODE when the NUMA
 * nodes are equal, SYS when they differ, UNKNOWN when either is -1.  Same
 * host bridge: PHB when they part at the root complex (different root
 * ports); else the (upstream, downstream) bridge pairs below the root port
 * are switches, and one switch on the path is PIX, more is PXB.
 * -EINVAL when a path has no "pci<domain>:<bus>" component followed by a
 * BDF, -E2BIG when it is absurdly deep.
 */
int pf_pci_path_classify(const char *path_a, int numa_a, const char *path_b, int numa_b,
			 enum pf_path_class *ret);
/*
 * The Broadcom PEX generation NCCL sees in switch @sw at @level of a
 * two-level chip (NCCL's getBcmGen(), src/graph/topo.cc): 4 for a PEX88000
 * (1000:c010, subsystem 1000:a0xx, both levels), 5 for a PEX89000 in base
 * mode (1000:c030, subsystem 1000:0xxx on top, 1000:1xxx below), else 0.
 */
int pf_pci_bcm_gen(const struct pf_pci_dev *sw, int level);
/*
 * The class of the GPU<->NIC (or any) path between functions @a and @b of
 * @node as NCCL sees it, the one classifier of such paths for every check:
 * pf_pci_path_classify() of their paths, except that a Broadcom switch and
 * its sub-switch of the same generation count as one switch, as NCCL's
 * ncclTopoFlattenBcmSwitches() fuses them (a DGX A100's GPU and NIC below
 * one PEX88096 are PIX, where sysfs shows two levels, PXB).  The switches'
 * IDs come from node->pci; one not there is not fused.  -EINVAL when either
 * has no path, else pf_pci_path_classify()'s errors.
 */
int pf_node_path_classify(const struct pf_node *node, const struct pf_pci_dev *a, int numa_a,
			  const struct pf_pci_dev *b, int numa_b, enum pf_path_class *ret);

#endif
