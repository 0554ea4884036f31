/* SPDX-License-Identifier: MIT */
/*
 * rdma_select.h - which RDMA ports the traffic checks (gdr_loopback,
 * fabric_loopback) test when their `nics` setting is empty: one rule for both.
 *
 * Every RDMA device of /sys/class/infiniband, with or without a PCI function
 * (soft-RoCE rxe and siw have none), InfiniBand and RoCE ports alike.  An
 * SR-IOV virtual function (a PCI function with a physfn link) is left out
 * only when its physical function is itself an RDMA device of this node (an
 * SR-IOV host): on a node that sees only VFs (a VM, Azure ND) the VFs are the
 * rails.  A port that is not ACTIVE is a finding, never dropped: a fail when
 * it was asked for (`nics`, an explicit pair, the GPU's paired NIC) or when
 * no candidate port is ACTIVE, else a warn (an unused port of a second-role
 * card is not evidence against the node).
 */
#ifndef PREFLIGHT_RDMA_SELECT_H
#define PREFLIGHT_RDMA_SELECT_H

#include <stdbool.h>

#include "preflight/fs.h"
#include "preflight/node.h"

/* Is @dev an SR-IOV VF whose PF is an RDMA device of @node (so the PF is tested)? */
bool pf_rdma_vf_of_present_pf(const struct pf_fs *fs, const struct pf_node *node,
			      const struct pf_rdma_dev *dev);

/* Does the default rule (`nics` empty) test @dev? */
bool pf_rdma_default_candidate(const struct pf_fs *fs, const struct pf_node *node,
			       const struct pf_rdma_dev *dev);

/* ACTIVE (4), or unknown (0: an inventory without the state file is not judged here). */
bool pf_rdma_port_usable(const struct pf_rdma_port *port);

/*
 * A port not ACTIVE: does it fail (asked for by name or pairing, or no
 * candidate port ACTIVE at all) rather than warn?
 */
bool pf_rdma_down_port_fails(bool asked_for, unsigned int n_active_candidates);

/* "InfiniBand", "RoCE" or "unknown link layer": the words the findings use. */
const char *pf_link_layer_word(enum pf_link_layer ll);

/*
 * Goodput per wire byte of RDMA WRITE payload at path MTU @mtu bytes:
 * mtu / (mtu + per-packet overhead).  RoCE v2: preamble/SFD 8 + Ethernet 14
 * + FCS 4 + inter-frame gap 12 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 = 82
 * bytes (1024: 92.6%, 4096: 98.0%); InfiniBand: LRH 8 + BTH 12 + ICRC 4 +
 * VCRC 2 = 26.  The RETH of a WRITE's first packet is left out (one per
 * message).  1 when @mtu is unknown (<= 0).
 */
double pf_rdma_mtu_efficiency(enum pf_link_layer ll, int mtu);

/*
 * The factor a bandwidth floor calibrated at MTU 4096 scales by at @mtu:
 * efficiency(mtu) / efficiency(4096), at most 1.
 */
double pf_rdma_mtu_scale(enum pf_link_layer ll, int mtu);

#endif
