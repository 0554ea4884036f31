// SPDX-License-Identifier: MIT
/*
 * mesh_rails.c - this node's rail table for the mesh rendezvous: by default
 * its compute rails in rail order (docs/rails.md), with --nics the ports of
 * the devices named; one entry per port from the node model (device, port,
 * link layer, rate, NUMA, netdev; role, rail index and subnets from the rail
 * model) plus the port's LID and GID 0 from sysfs
 * (Documentation/ABI/stable/sysfs-class-infiniband), on RoCE "gid_index"
 * (the GID the verbs way sends from, NCCL's pick: pf_verbs_gid_index),
 * "gpu" (the BDF of the GPU paired with the device, gpu_nic.h: what
 * --use-gpu sends from), and "ip", the first
 * IPv4 address of the port's netdev (RTM_GETADDR; a recorded root's
 * preflight/ip/<if>/addr): what RDMA-CM connects to; "selected": "nics"
 * on the ports --nics named.  What cannot be read
 * is left out of the entry, never guessed.
 */
#include <stdio.h>
#include <string.h>

#include "mesh.h"
#include "preflight/check.h"
#include "preflight/fs.h"
#include "preflight/gpu_nic.h"
#include "preflight/loopback.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/rails.h"

static void rails_sysfs(const struct pf_fs *fs, const char *dev, unsigned port, bool eth,
			const char *gid_env, cJSON *e)
{
	char path[256];
	pf_autofree char *lid = NULL, *gid = NULL;
	int gidx;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/lid", dev, port);
	if (pf_fs_read_line(fs, path, &lid) == 0)
		cJSON_AddStringToObject(e, "lid", lid);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gids/0", dev, port);
	if (pf_fs_read_line(fs, path, &gid) == 0)
		cJSON_AddStringToObject(e, "gid", gid);
	/* RoCE: the GID this port sends from on the verbs way, as NCCL picks it */
	if (eth && pf_verbs_gid_index(fs, dev, port, gid_env, &gidx) == 0)
		cJSON_AddNumberToObject(e, "gid_index", gidx);
}

static void rails_ip(const struct pf_fs *fs, const char *netdev, cJSON *e)
{
	struct pf_ctx ctx = { .fs = fs, .prov = pf_providers_for(fs) };
	struct pf_ipv4_addrs a = { .n = 0 };
	char buf[24];

	if (!fs || !ctx.prov->ipv4_addrs || ctx.prov->ipv4_addrs(&ctx, netdev, &a) < 0 || !a.n)
		return;
	pf_format_ipv4(&a.v[0], buf, sizeof(buf));
	buf[strcspn(buf, "/")] = '\0';
	cJSON_AddStringToObject(e, "ip", buf);
}

/* Is @name in the comma-separated @list (NULL: every device is)? */
bool pf_mesh_nic_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p; p = strchr(p, ',')) {
		p += *p == ',';
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return !list;
}

/* "lldp": {"chassis": ..., "port": ...} (either null when unknown), or null: none known. */
static void add_lldp(cJSON *e, const struct pf_rail_port *rp)
{
	cJSON *l;

	if (!rp->lldp_chassis[0] && !rp->lldp_port[0]) {
		cJSON_AddNullToObject(e, "lldp");
		return;
	}
	l = cJSON_AddObjectToObject(e, "lldp");
	if (rp->lldp_chassis[0])
		cJSON_AddStringToObject(l, "chassis", rp->lldp_chassis);
	else
		cJSON_AddNullToObject(l, "chassis");
	if (rp->lldp_port[0])
		cJSON_AddStringToObject(l, "port", rp->lldp_port);
	else
		cJSON_AddNullToObject(l, "port");
}

/* The GPU of @pairs paired with RDMA device @d (gpu_nic.h, as NCCL places them), or NULL. */
static const char *rail_gpu(const struct pf_gpu_nic_pair *pairs, size_t n, size_t d)
{
	for (size_t i = 0; i < n; i++)
		if (pairs[i].nic == (int)d)
			return pairs[i].gpu->bdf;
	return NULL;
}

/*
 * The entry of port @p of device @d, with its rail model entry @rp (may be
 * NULL) and the BDF of the GPU paired with it (@gpu, may be NULL).
 */
static cJSON *rail_entry(const struct pf_fs *fs, const struct pf_node *node, size_t d,
			 size_t p, const struct pf_rail_port *rp, const char *gid_env,
			 const char *gpu)
{
	const struct pf_rdma_dev *dev = &node->rdma[d];
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
	if (port->netdev >= 0) {
		cJSON_AddStringToObject(e, "netdev", node->netdevs[port->netdev].name);
		rails_ip(fs, node->netdevs[port->netdev].name, e);
	}
	rails_sysfs(fs, dev->name, port->num, port->link_layer == PF_LINK_ETH, gid_env, e);
	if (gpu)
		cJSON_AddStringToObject(e, "gpu", gpu);
	if (rp) {
		cJSON_AddStringToObject(e, "role", pf_port_role_name(rp->role));
		if (rp->rail >= 0)
			cJSON_AddNumberToObject(e, "rail", rp->rail);
		if (rp->subnet[0])
			cJSON_AddStringToObject(e, "subnet", rp->subnet);
		if (rp->ib_subnet[0])
			cJSON_AddStringToObject(e, "ib_subnet", rp->ib_subnet);
		add_lldp(e, rp);
	}
	return e;
}

static void add_rail(cJSON *rails, cJSON *e)
{
	if (cJSON_GetArraySize(rails) < PF_MESH_RAILS_MAX)
		cJSON_AddItemToArray(rails, e);
	else
		cJSON_Delete(e);
}

cJSON *pf_mesh_rails(const struct pf_fs *fs, const struct pf_node *node,
		     const struct pf_rails *model, const char *nics, const char *gid_env)
{
	cJSON *rails = cJSON_CreateArray();
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	/* the GPU-NIC pairing once for the whole table */
	size_t n_pairs = node ? pf_gpu_nic_pairs(node, NULL, NULL, &pairs) : 0;

	/* by default the compute rails in rail order: rail i meets rail i on every node type */
	if (!nics && node && model) {
		for (size_t i = 0; i < model->n_compute; i++)
			for (size_t k = 0; k < model->n_ports; k++) {
				const struct pf_rail_port *rp = &model->ports[k];

				if (rp->rail == (int)i)
					add_rail(rails, rail_entry(fs, node, (size_t)rp->rdma,
								   rp->port - 1u, rp, gid_env,
								   rail_gpu(pairs, n_pairs,
									    (size_t)rp->rdma)));
			}
		return rails;
	}
	for (size_t d = 0; node && d < node->n_rdma; d++) {
		const struct pf_rdma_dev *dev = &node->rdma[d];

		if (!pf_mesh_nic_listed(nics, dev->name))
			continue;

		for (size_t p = 0; p < dev->n_ports; p++) {
			const struct pf_rdma_port *port = &dev->ports[p];
			cJSON *e;

			e = rail_entry(fs, node, d, p, pf_rails_port(model, (int)d, port->num),
				       gid_env, rail_gpu(pairs, n_pairs, d));
			/* named by the operator: compared whatever its role (pf_rail_compat()) */
			if (nics)
				cJSON_AddStringToObject(e, "selected", "nics");
			add_rail(rails, e);
		}
	}
	return rails;
}
