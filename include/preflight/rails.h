/* SPDX-License-Identifier: MIT */
/*
 * rails.h - what each RDMA port of a node is for and where it plugs in
 * (src/node/rails.c; docs/rails.md).
 *
 * Built once per run from the inventory, before any check runs: every port
 * of every RDMA device gets a role with the reason for it, a rail index when
 * it is a compute rail, and an identity (link layer, rate, IPv4 subnet,
 * InfiniBand subnet prefix and SM LID, LLDP neighbour) that says where it
 * plugs in.
 *
 * Roles, first rule that applies:
 *  1. declared by the site (pf_rails_spec): compute, storage, frontend or
 *     unused, by device name or "device:port";
 *  2. NCCL_IB_HCA, when the job's NCCL configuration sets it and it selects
 *     a port of this node: compute exactly when it selects the port, in
 *     NCCL's syntax (pf_nccl_iflist_selects); one that selects none is
 *     named in the reasons and the rules below decide;
 *  3. compute: a port of a NIC that shares a PCIe switch with a GPU (PIX or
 *     PXB: the NICs NCCL gives each GPU, with GPUDirect RDMA by default);
 *  4. on a node where no NIC shares a switch with a GPU (no GPUs, PCIe
 *     servers with every device on a root port, VMs): compute when it is of
 *     the link layer most ports that are up have, at the highest rate among
 *     those (NCCL's topology search prefers the fastest NICs);
 *  5. otherwise unused when it is down and never had a link since boot
 *     (link_downed 0), frontend when its link layer is not the compute
 *     rails' (an Ethernet port on an InfiniBand node), else storage.
 * A GPU's own rail that is down stays compute: the checks fail it.
 *
 * Rail index: compute ports in the order of the first GPU each serves (the
 * GPU's nearest NIC, else the first GPU on its switch; GPUs in PCI order, as
 * CUDA and NCCL number them), then by name, so rail i is the same GPU's rail
 * on a DGX H100 (mlx5_0,3,4,5,6,9,10,11) and an HGX (mlx5_0..7).
 */
#ifndef PREFLIGHT_RAILS_H
#define PREFLIGHT_RAILS_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/fs.h"
#include "preflight/net.h"
#include "preflight/node.h"

enum pf_port_role {
	PF_ROLE_COMPUTE,
	PF_ROLE_STORAGE,
	PF_ROLE_FRONTEND,
	PF_ROLE_UNUSED,
	PF_ROLE_COUNT,
};

struct pf_rail_port {
	int rdma;              /* index into node->rdma */
	unsigned int port;     /* 1-based port number */
	enum pf_port_role role;
	bool declared;         /* the role came from the site, not from the rules */
	/*
	 * Compute by the site's declaration and the node's rules alone, with
	 * NCCL_IB_HCA aside: what nccl_config judges NCCL_IB_HCA against.
	 */
	bool rules_compute;
	char reason[256];      /* why this role, in words */
	int rail;              /* rail index among the compute ports, -1 for other roles */
	int gpu;               /* the GPU it serves: index into node->gpus, -1 none */
	/* identity: where it plugs in */
	enum pf_link_layer link_layer;
	double rate_gbps;      /* 0 unknown */
	bool up;               /* ACTIVE, or of unknown state */
	bool never_linked;     /* down, no partner (Polling/Disabled), link_downed 0 since boot */
	char netdev[32];       /* "" none */
	char subnet[48];       /* IPv4 subnet of its netdev, "10.1.0.0/24"; "" unknown */
	char ib_subnet[24];    /* GID subnet prefix, "fe80:0000:0000:0000"; "" not IB or unknown */
	unsigned int sm_lid;   /* 0 unknown */
	/* the LLDP neighbour of its netdev (lldpd): "" unknown */
	char lldp_chassis[PF_LLDP_VALUE_MAX]; /* system name, else chassis id */
	char lldp_port[PF_LLDP_VALUE_MAX];    /* port id */
};

struct pf_rails {
	struct pf_rail_port *ports; /* in node->rdma order, then port number */
	size_t n_ports;
	size_t n_compute;
	enum pf_link_layer compute_link; /* the compute rails' link layer; UNKNOWN none or mixed */
	/* how the compute rails were found: "gpu", "fastest", "nccl" (NCCL_IB_HCA), "site" */
	const char *rule;
};

struct pf_rails_spec {
	/*
	 * Roles the site declares (NULL or "" none): comma-separated device
	 * names ("mlx5_8") or "device:port" ("mlx5_8:1"); a port named in
	 * two lists is an error (pf_rails_build: -EINVAL).
	 */
	const char *declared[PF_ROLE_COUNT];
	/*
	 * The IPv4 subnet of netdev @ifname as "a.b.c.d/len" into @buf; 0, or
	 * -errno when unknown.  NULL: subnets are not known.
	 */
	int (*subnet)(void *data, const char *ifname, char *buf, size_t len);
	void *data;
	/*
	 * NCCL_IB_HCA as the job's NCCL reads it (NULL: unset; a list with no
	 * entry and no '^' selects every port, as unset) and where it is set
	 * ("environment", "/etc/nccl.conf:3"; NULL unknown), for the reasons.
	 */
	const char *nccl_ib_hca;
	const char *nccl_ib_hca_origin;
	/* The node's LLDP neighbours by netdev (NULL: none known). */
	const struct pf_lldp_neighbors *lldp;
};

/*
 * The rail model of @node (files under @fs for link_downed, the GID prefix
 * and the SM LID).  -EINVAL with *ret_err when a port is declared twice or a
 * declared name is no RDMA device of the node.
 */
int pf_rails_build(const struct pf_fs *fs, const struct pf_node *node,
		   const struct pf_rails_spec *spec, struct pf_rails **ret, char **ret_err);
struct pf_rails *pf_rails_free(struct pf_rails *rails);
PF_DEFINE_AUTO(rails_free, struct pf_rails *, pf_rails_free)
#define pf_autorails PF_CLEANUP(pf_rails_freep)

/* The entry of port @port of node->rdma[@rdma]; NULL when there is none (or no model). */
const struct pf_rail_port *pf_rails_port(const struct pf_rails *rails, int rdma,
					 unsigned int port);
/* How a RoCE compute-rail requirement (PFC, DCQCN) applies to a RoCE port. */
enum pf_roce_rule {
	PF_ROCE_JUDGE, /* a compute rail (or no model): judged as such */
	PF_ROCE_SOFT,  /* not a compute rail on a RoCE node: judged, warns at most */
	PF_ROCE_SKIP,  /* not a compute rail on a node whose rails are InfiniBand: not judged */
};
/*
 * The rule for port @port of node->rdma[@rdma]; *ret_port (may be NULL)
 * gets its model entry, NULL with PF_ROCE_JUDGE when there is none.
 */
enum pf_roce_rule pf_rails_roce_rule(const struct pf_rails *rails, int rdma, unsigned int port,
				     const struct pf_rail_port **ret_port);

struct pf_result;
/*
 * For PF_ROCE_SKIP: a skip finding "DEV/PORT" saying that @what ("PFC and
 * pause", "DCQCN") is judged on RoCE compute rails only, with the role.
 */
void pf_rails_skip_port(struct pf_result *res, const char *dev, const struct pf_rail_port *rp,
			const char *what);
/*
 * For PF_ROCE_SOFT: findings @first.. of @res that fail become warns, their
 * message ending "(a storage port, not a compute rail: warns at most)", the
 * role in observed.role.
 */
void pf_rails_soften(struct pf_result *res, size_t first, const struct pf_rail_port *rp);

/* "compute", "storage", "frontend", "unused". */
const char *pf_port_role_name(enum pf_port_role role);
/* Parse a role name; -EINVAL for anything else. */
int pf_port_role_from_name(const char *name, enum pf_port_role *ret);

#endif
