// SPDX-License-Identifier: MIT
/*
 * port_counter.c - one RDMA port counter by name, wherever the driver puts it.
 *
 * The IB PMA counters are /sys/class/infiniband/<dev>/ports/<n>/counters/
 * (drivers/infiniband/core/sysfs.c, Documentation/ABI/stable/
 * sysfs-class-infiniband); a driver's own counters are hw_counters/ (its
 * rdma_stat_desc table).  Soft-RoCE has no counters/ at all: its
 * link_downed, retry and sequence-error counters are in hw_counters/
 * (drivers/infiniband/sw/rxe/rxe_hw_counters.c).  So a counter is looked up
 * by name in counters/ first, then in hw_counters/.
 */
#include <errno.h>
#include <stdlib.h>

#include "preflight/fs.h"
#include "preflight/node.h"
#include "preflight/parse.h"

int pf_port_counter(const struct pf_fs *fs, const char *dev, unsigned int port,
		    const char *name, uint64_t *ret, bool *ret_hw, char **ret_text)
{
	static const char *const dirs[] = { "counters", "hw_counters" };
	int r = -ENOENT;

	*ret = 0;
	if (ret_text)
		*ret_text = NULL;
	for (size_t k = 0; k < 2 && r == -ENOENT; k++) {
		char *text = NULL;

		r = pf_fs_readf_line(fs, &text, "/sys/class/infiniband/%s/ports/%u/%s/%s", dev,
				     port, dirs[k], name);
		if (r != -ENOENT && ret_hw)
			*ret_hw = k == 1;
		if (r == 0)
			r = pf_parse_ib_counter(text, ret);
		if (r < 0 && r != -ENOENT && ret_text)
			*ret_text = text;
		else
			free(text);
	}
	return r;
}
