// SPDX-License-Identifier: MIT
/*
 * rdma_counters.c - a port counter by name from counters/ or hw_counters/
 * (rdma_counters.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "preflight/macro.h"
#include "preflight/parse.h"
#include "preflight/rdma_counters.h"

int pf_rdma_port_counter(const struct pf_fs *fs, const char *dev, unsigned int port,
			 const char *name, uint64_t *ret, bool *ret_hw)
{
	static const char *const dirs[] = { "counters", "hw_counters" };

	for (size_t i = 0; i < PF_ARRAY_SIZE(dirs); i++) {
		pf_autofree char *text = NULL;
		int r = pf_fs_readf_line(fs, &text, "/sys/class/infiniband/%s/ports/%u/%s/%s", dev,
					 port, dirs[i], name);

		if (r == -ENOENT || r == -ENOTDIR)
			continue;
		if (r < 0)
			return r;
		if (pf_parse_ib_counter(text, ret) < 0)
			return -EINVAL;
		*ret_hw = i == 1;
		return 0;
	}
	return -ENOENT;
}
