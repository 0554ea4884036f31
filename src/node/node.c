// SPDX-License-Identifier: MIT
/*
 * node.c - the inventory model's common helpers: create, free, notes,
 * lookups by address or name, and the PCIe link classification that both
 * loaders (node_sysfs.c, node_hwloc.c) finish with.
 */
#include <stdarg.h>
#include <string.h>

#include "preflight/node.h"
#include "preflight/parse.h"

struct pf_node *pf_node_new(const char *source)
{
	struct pf_node *node = pf_xcalloc(1, sizeof(*node));

	node->source = source;
	return node;
}

void pf_node_note(struct pf_node *node, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		line = pf_xstrdup("(out of memory formatting a note)");
	while (node->notes && node->notes[n])
		n++;
	node->notes = pf_xrealloc(node->notes, (n + 2) * sizeof(*node->notes));
	node->notes[n] = line;
	node->notes[n + 1] = NULL;
}

struct pf_node *pf_node_free(struct pf_node *node)
{
	if (!node)
		return NULL;
	for (size_t i = 0; i < node->n_pci; i++) {
		free(node->pci[i].path);
		free(node->pci[i].local_cpulist);
	}
	free(node->pci);
	free(node->gpus);
	for (size_t i = 0; i < node->n_rdma; i++) {
		struct pf_rdma_dev *d = &node->rdma[i];

		for (size_t p = 0; p < d->n_ports; p++) {
			free(d->ports[p].state_name);
			free(d->ports[p].phys_state_name);
			free(d->ports[p].rate);
			free(d->ports[p].speed_name);
		}
		free(d->ports);
		free(d->name);
		free(d->hca_type);
		free(d->board_id);
	}
	free(node->rdma);
	for (size_t i = 0; i < node->n_netdevs; i++) {
		free(node->netdevs[i].name);
		free(node->netdevs[i].operstate);
		pf_strv_free(node->netdevs[i].slaves);
	}
	free(node->netdevs);
	for (size_t i = 0; i < node->n_numa; i++)
		free(node->numa[i].cpulist);
	free(node->numa);
	pf_strv_free(node->notes);
	free(node);
	return NULL;
}

int pf_node_pci_index(const struct pf_node *node, const char *bdf)
{
	char norm[16];

	if (!node || !bdf)
		return -1;
	if (!pf_is_bdf(bdf)) {
		if (pf_bdf_normalize(bdf, norm) < 0)
			return -1;
		bdf = norm;
	}
	for (size_t i = 0; i < node->n_pci; i++)
		if (!strcmp(node->pci[i].bdf, bdf))
			return (int)i;
	return -1;
}

void pf_node_classify_links(struct pf_node *node)
{
	for (size_t i = 0; i < node->n_rdma; i++) {
		struct pf_rdma_dev *d = &node->rdma[i];

		if (d->pci < 0 || (size_t)d->pci >= node->n_pci ||
		    node->pci[d->pci].vendor != PF_PCI_VENDOR_AMAZON)
			continue;
		for (size_t j = 0; j < d->n_ports; j++)
			d->ports[j].link_layer = PF_LINK_UNKNOWN;
	}
}

const struct pf_pci_dev *pf_node_pci(const struct pf_node *node, const char *bdf)
{
	int i = pf_node_pci_index(node, bdf);

	return i < 0 ? NULL : &node->pci[i];
}

const struct pf_rdma_dev *pf_node_rdma(const struct pf_node *node, const char *name)
{
	for (size_t i = 0; node && name && i < node->n_rdma; i++)
		if (!strcmp(node->rdma[i].name, name))
			return &node->rdma[i];
	return NULL;
}

const struct pf_netdev *pf_node_netdev(const struct pf_node *node, const char *name)
{
	for (size_t i = 0; node && name && i < node->n_netdevs; i++)
		if (!strcmp(node->netdevs[i].name, name))
			return &node->netdevs[i];
	return NULL;
}
