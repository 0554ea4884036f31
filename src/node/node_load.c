// SPDX-License-Identifier: MIT
/*
 * node_load.c - which loader builds the inventory: an lstopo export named on
 * the command line or in the snapshot (node_hwloc.c), else sysfs (node_sysfs.c).
 */
#include "preflight/node.h"

int pf_node_load(const struct pf_fs *fs, const char *topology_xml, struct pf_node **ret,
		 char **ret_err)
{
	pf_autofree char *xml = NULL;

	if (topology_xml)
		return pf_node_load_hwloc(fs, topology_xml, ret, ret_err);
	if (pf_fs_exists(fs, "/preflight/topology.xml") == 1) {
		xml = pf_xasprintf("%s/preflight/topology.xml",
				   pf_fs_is_live(fs) ? "" : pf_fs_root(fs));
		return pf_node_load_hwloc(fs, xml, ret, ret_err);
	}
	return pf_node_load_sysfs(fs, ret, ret_err);
}
