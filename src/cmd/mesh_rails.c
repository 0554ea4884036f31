// SPDX-License-Identifier: MIT
/*
 * mesh_rails.c - this node's rail table for the mesh rendezvous: one entry
 * per RDMA port from the node model (device, port, link layer, rate, NUMA,
 * netdev) plus the port's LID and GID 0 from sysfs
 * (Documentation/ABI/stable/sysfs-class-infiniband).  What cannot be read
 * is left out of the entry, never guessed.
 */
#include <stdio.h>

#include "mesh.h"
#include "preflight/fs.h"
#include "preflight/node.h"

static void rails_sysfs(const struct pf_fs *fs, const char *dev, unsigned port, cJSON *e)
{
	char path[256];
	pf_autofree char *lid = NULL, *gid = NULL;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/lid", dev, port);
	if (pf_fs_read_line(fs, path, &lid) == 0)
		cJSON_AddStringToObject(e, "lid", lid);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gids/0", dev, port);
	if (pf_fs_read_line(fs, path, &gid) == 0)
		cJSON_AddStringToObject(e, "gid", gid);
}

cJSON *pf_mesh_rails(const struct pf_fs *fs, const struct pf_node *node)
{
	cJSON *rails = cJSON_CreateArray();

	for (size_t d = 0; node && d < node->n_rdma; d++) {
		const struct pf_rdma_dev *dev = &node->rdma[d];

		for (size_t p = 0; p < dev->n_ports; p++) {
			const struct pf_rdma_port *port = &dev->ports[p];
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "device", dev->name);
			cJSON_AddNumberToObject(e, "port", port->num);
			cJSON_AddStringToObject(e, "link_layer",
						port->link_layer == PF_LINK_IB    ? "InfiniBand" :
						port->link_layer == PF_LINK_ETH   ? "Ethernet" :
										    "unknown");
			if (port->rate)
				cJSON_AddStringToObject(e, "rate", port->rate);
			if (port->state_name)
				cJSON_AddStringToObject(e, "state", port->state_name);
			if (dev->pci >= 0)
				cJSON_AddNumberToObject(e, "numa", node->pci[dev->pci].numa_node);
			if (port->netdev >= 0)
				cJSON_AddStringToObject(e, "netdev", node->netdevs[port->netdev].name);
			rails_sysfs(fs, dev->name, port->num, e);
			if (cJSON_GetArraySize(rails) < PF_MESH_RAILS_MAX)
				cJSON_AddItemToArray(rails, e);
			else
				cJSON_Delete(e);
		}
	}
	return rails;
}
