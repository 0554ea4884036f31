/* SPDX-License-Identifier: MIT */
/*
 * rdma_roots.h - turn a generated root's RDMA device into what the traffic
 * checks' device rule must handle: a device without a PCI function (the
 * sysfs shape of soft-RoCE rxe: /sys/devices/virtual/infiniband/rxe0) and an
 * SR-IOV virtual function (a physfn link to its PF's PCI directory).
 */
#ifndef PF_TEST_RDMA_ROOTS_H
#define PF_TEST_RDMA_ROOTS_H

/* Move <dev>'s sysfs directory under /sys/devices/virtual, without a device link. */
void pf_test_make_soft(const char *root, const char *dev);

/*
 * Give <dev>'s PCI function a physfn link to @pf_dev's PCI function (an RDMA
 * device of the root), or to its own upstream bridge when @pf_dev is NULL (a
 * PF this node does not see as an RDMA device, as in a VM).
 */
void pf_test_make_vf(const char *root, const char *dev, const char *pf_dev);

/*
 * Give <dev>/1 the counters of soft-RoCE rxe: no counters/ directory, and
 * hw_counters/ with rxe's names (rxe_hw_counters.c) at 0.
 */
void pf_test_make_rxe_counters(const char *root, const char *dev);

#endif
