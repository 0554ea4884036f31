// SPDX-License-Identifier: MIT
/*
 * node_hwloc.c - the node inventory from an lstopo XML export.
 *
 * Placeholder until the hwloc loader lands: every call fails with
 * -ENOTSUP and says so.
 */
#include "preflight/node.h"

int pf_node_load_hwloc(const struct pf_fs *fs, const char *xml_path, struct pf_node **ret,
		       char **ret_err)
{
	(void)fs;
	(void)ret;
	if (ret_err)
		*ret_err = pf_xasprintf("%s: hwloc topology input not built yet", xml_path);
	return -ENOTSUP;
}
