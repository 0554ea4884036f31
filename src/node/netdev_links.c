// SPDX-License-Identifier: MIT
/*
 * netdev_links.c - what /sys/class/net says about each netdev beyond its
 * own attributes: a bond's or team's members and whether the netdev is a
 * PCI function's (pf_node_netdev_links(), node.h).  Read once, by either
 * loader, so that checks judge the model instead of asking sysfs again.
 */
#include <stdio.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/node.h"
#include "preflight/macro.h"

/* bonding/slaves ("eth0 eth1"), else the lower_<if> links; NULL when neither names one. */
static char **read_slaves(const struct pf_fs *fs, const char *ifname)
{
	pf_autofree char *line = NULL;
	pf_autostrv char **names = NULL;
	char **out = NULL;
	size_t n = 0;
	int k;

	if (pf_fs_readf_line(fs, &line, "/sys/class/net/%s/bonding/slaves", ifname) == 0) {
		for (char *save = NULL, *t = strtok_r(line, " \t", &save); t;
		     t = strtok_r(NULL, " \t", &save)) {
			out = pf_xrealloc(out, (n + 2) * sizeof(*out));
			out[n++] = pf_xstrdup(t);
			out[n] = NULL;
		}
		return out;
	}
	{
		char dir[64 + 256];

		snprintf(dir, sizeof(dir), "/sys/class/net/%s", ifname);
		k = pf_fs_list(fs, dir, &names);
	}
	for (int i = 0; i < k; i++) {
		if (strncmp(names[i], "lower_", 6) || !names[i][6])
			continue;
		out = pf_xrealloc(out, (n + 2) * sizeof(*out));
		out[n++] = pf_xstrdup(names[i] + 6);
		out[n] = NULL;
	}
	return out;
}

void pf_node_netdev_links(const struct pf_fs *fs, struct pf_node *node)
{
	if (!fs)
		return; /* a topology export alone: no sysfs beside it */
	for (size_t i = 0; i < node->n_netdevs; i++) {
		struct pf_netdev *nd = &node->netdevs[i];
		char path[64 + 256];

		nd->slaves = read_slaves(fs, nd->name);
		snprintf(path, sizeof(path), "/sys/class/net/%s/device", nd->name);
		nd->is_virtual = pf_fs_exists(fs, path) == 0;
	}
}
