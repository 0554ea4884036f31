// SPDX-License-Identifier: MIT
/*
 * mlxlink.c - NVIDIA's `mlxlink -d <bdf> -c` (MFT): the physical counters
 * and bit error rates of a ConnectX port as the firmware computes them
 * ("Physical Counters and BER Info": effective and raw physical BER),
 * parsed by src/parse/parse_mlxlink.c for link_health.
 *
 * Optional: only where mlxlink is installed, found in the system
 * directories only (pf_tool_path: a root-owned executable nobody else may
 * replace, never from PATH), run with a minimal environment and killed with
 * its process group at a deadline (pf_nv_run).  Recorded:
 * preflight/mlxlink/<bdf>, the same text (docs/snapshot.md).
 */
#include <errno.h>

#include "preflight/node.h"
#include "preflight/providers.h"
#include "record.h"

/* mlxlink reads the port's registers through the PCI config space: about a second. */
#define MLXLINK_DEADLINE_MS 5000

int pf_live_mlxlink(const struct pf_ctx *ctx, const char *bdf, char **ret_text)
{
	char path[64], dev[32];
	char *argv[] = { path, (char *)"-d", dev, (char *)"-c", NULL };

	(void)ctx;
	*ret_text = NULL;
	if (!pf_is_bdf(bdf))
		return -EINVAL;
	if (pf_tool_path("mlxlink", path, sizeof(path)) < 0)
		return -ENOPKG;
	snprintf(dev, sizeof(dev), "%s", bdf);
	return pf_nv_run(path, argv, MLXLINK_DEADLINE_MS, ret_text);
}

int pf_recorded_mlxlink(const struct pf_ctx *ctx, const char *bdf, char **ret_text)
{
	pf_autofree char *rel = NULL;

	*ret_text = NULL;
	if (!pf_is_bdf(bdf))
		return -EINVAL;
	rel = pf_xasprintf("/preflight/mlxlink/%s", bdf);
	return pf_fs_read_full(ctx->fs, rel, 0, ret_text, NULL);
}

/*
 * preflight/mlxlink/<bdf> for the PCI function of every NVIDIA (Mellanox)
 * RDMA device; nothing, quietly, on a node without mlxlink.
 */
int pf_record_mlxlink(struct pf_record *rec)
{
	pf_autofree char *err = NULL;
	struct pf_node *node = NULL;
	int r = 0;

	if (pf_node_load(rec->ctx->fs, NULL, &node, &err) < 0)
		return 0; /* no inventory: the node facts say why */
	for (size_t i = 0; i < node->n_rdma && r >= 0; i++) {
		const struct pf_rdma_dev *dev = &node->rdma[i];
		const struct pf_pci_dev *pci = dev->pci >= 0 ? &node->pci[dev->pci] : NULL;
		pf_autofree char *text = NULL, *rel = NULL;
		int q;

		if (!pci || pci->vendor != 0x15b3)
			continue;
		q = rec->ctx->prov->mlxlink(rec->ctx, pci->bdf, &text);
		if (q == -ENOPKG)
			break; /* no mlxlink: none of them */
		if (q == -ENOENT)
			continue; /* a snapshot without this function's text */
		rel = pf_xasprintf("preflight/mlxlink/%s", pci->bdf);
		if (!pf_record_answer(rec, rel, q))
			continue;
		r = pf_record_put_text(rec, rel, text ? text : "");
	}
	pf_node_free(node);
	return r < 0 ? r : 0;
}
