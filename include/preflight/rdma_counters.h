/* SPDX-License-Identifier: MIT */
/*
 * rdma_counters.h - a port counter by name, wherever the driver keeps it.
 *
 * drivers/infiniband/core/sysfs.c publishes the IBTA PortCounters under
 * ports/<n>/counters/ (mlx5, and IB HCAs) and each driver's own counters
 * under ports/<n>/hw_counters/ (rdma_hw_stats): mlx5's Q counters
 * (out_of_sequence, ...), and for soft-RoCE rxe everything it counts,
 * link_downed included (drivers/infiniband/sw/rxe/rxe_hw_counters.c: rxe
 * has no counters/ directory).  Readers ask by name and learn where the
 * value came from: counters/ saturate at their width, hw_counters/ wrap.
 */
#ifndef PREFLIGHT_RDMA_COUNTERS_H
#define PREFLIGHT_RDMA_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "preflight/fs.h"

/*
 * ports/<port>/counters/<name>, else ports/<port>/hw_counters/<name> of
 * RDMA device @dev.  0 with the value and *ret_hw (from hw_counters/);
 * -ENOENT when neither directory has it; -EINVAL when it does not parse;
 * another -errno when a file exists but cannot be read.
 */
int pf_rdma_port_counter(const struct pf_fs *fs, const char *dev, unsigned int port,
			 const char *name, uint64_t *ret, bool *ret_hw);

#endif
