// SPDX-License-Identifier: MIT
/*
 * fabric_svc.c - the services of the NVLink fabric as their own tools
 * report them (nvlink_fabric): systemd's state of nvidia-fabricmanager and
 * nvidia-imex (`systemctl show -p LoadState -p ActiveState -p SubState`),
 * Fabric Manager's version (`nv-fabricmanager --version`) and the IMEX
 * domain's status (`nvidia-imex-ctl -N -j`).
 *
 * Each tool is found in the system directories only (pf_tool_path: a
 * root-owned executable nobody else may replace, never from PATH), run
 * with a minimal environment and killed with its process group at a
 * deadline (pf_nv_run), as mlxlink.c runs mlxlink.  Recorded:
 * preflight/fabric/<file>, the same text (docs/snapshot.md), written by
 * pf_record_fabric_svc() on a node with an NVIDIA GPU or NVSwitch, with the
 * node list IMEX reads when config.cfg names another than the default (a
 * .cfg file only: a snapshot is handed on, so nothing else is copied).
 */
#include <errno.h>
#include <string.h>

#include "preflight/fabric_svc.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "record.h"

/* systemctl answers from memory, the version from the binary: a second; IMEX asks its peers. */
#define SVC_DEADLINE_MS 3000
#define IMEX_DEADLINE_MS 5000

struct svc {
	const char *tool, *file;
	const char *args[8]; /* after argv[0] */
	unsigned int deadline_ms;
};

static const struct svc svcs[PF_SVC_N] = {
	[PF_SVC_FM_UNIT] = { "systemctl", "fabricmanager.unit",
			     { "show", "-p", "LoadState", "-p", "ActiveState", "-p", "SubState",
			       "nvidia-fabricmanager.service" }, SVC_DEADLINE_MS },
	[PF_SVC_FM_VERSION] = { "nv-fabricmanager", "fabricmanager.version", { "--version" },
				SVC_DEADLINE_MS },
	[PF_SVC_IMEX_UNIT] = { "systemctl", "imex.unit",
			       { "show", "-p", "LoadState", "-p", "ActiveState", "-p", "SubState",
				 "nvidia-imex.service" }, SVC_DEADLINE_MS },
	[PF_SVC_IMEX_STATUS] = { "nvidia-imex-ctl", "imex.status.json", { "-N", "-j" },
				 IMEX_DEADLINE_MS },
};

const char *pf_fabric_svc_tool(enum pf_fabric_svc which)
{
	return (unsigned int)which < PF_SVC_N ? svcs[which].tool : NULL;
}

const char *pf_fabric_svc_file(enum pf_fabric_svc which)
{
	return (unsigned int)which < PF_SVC_N ? svcs[which].file : NULL;
}

int pf_fabric_svc_run(const char *path, enum pf_fabric_svc which, char **ret_text)
{
	char *argv[PF_ARRAY_SIZE(svcs[0].args) + 2] = { (char *)path };

	*ret_text = NULL;
	if ((unsigned int)which >= PF_SVC_N)
		return -EINVAL;
	for (size_t i = 0; i < PF_ARRAY_SIZE(svcs[which].args) && svcs[which].args[i]; i++)
		argv[i + 1] = (char *)svcs[which].args[i];
	return pf_nv_run(path, argv, svcs[which].deadline_ms, ret_text);
}

int pf_live_fabric_svc(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text)
{
	char path[64];

	(void)ctx;
	*ret_text = NULL;
	if ((unsigned int)which >= PF_SVC_N)
		return -EINVAL;
	if (pf_tool_path(svcs[which].tool, path, sizeof(path)) < 0)
		return -ENOPKG;
	return pf_fabric_svc_run(path, which, ret_text);
}

int pf_recorded_fabric_svc(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text)
{
	pf_autofree char *rel = NULL;

	*ret_text = NULL;
	if ((unsigned int)which >= PF_SVC_N)
		return -EINVAL;
	rel = pf_xasprintf("/preflight/fabric/%s", svcs[which].file);
	return pf_fs_read_full(ctx->fs, rel, 0, ret_text, NULL);
}

/* Whether the node has an NVIDIA GPU or NVSwitch (class 0x0680) on its PCI bus. */
static bool has_nvidia_fabric_parts(const struct pf_node *node)
{
	if (node->n_gpus)
		return true;
	for (size_t i = 0; i < node->n_pci; i++)
		if (node->pci[i].vendor == PF_PCI_VENDOR_NVIDIA && (node->pci[i].class >> 8) == 0x0680)
			return true;
	return false;
}

/* IMEX's node list when config.cfg names another file than the default (copied as is). */
static int copy_imex_nodes(struct pf_record *rec)
{
	pf_autofree char *config = NULL;
	char path[256];
	int r;

	size_t n;

	if (pf_fs_read_full(rec->ctx->fs, "/etc/nvidia-imex/config.cfg", 256 * 1024, &config,
			    NULL) < 0)
		return 0;
	pf_imex_nodes_path(config, path, sizeof(path));
	if (!strcmp(path, "/etc/nvidia-imex/nodes_config.cfg"))
		return 0; /* the snapshot's file table copies it */
	n = strlen(path);
	if (n < 4 || strcmp(path + n - 4, ".cfg") || strstr(path, "/../")) {
		/* a snapshot is shared: never copy a file that is no IMEX list (/etc/shadow) */
		rec->skip(rec, path, "IMEX_NODE_CONFIG_FILE does not name a .cfg file: not copied");
		return 0;
	}
	r = rec->copy(rec, path);
	if (r < 0)
		pf_record_skip(rec, path, r);
	return r == -ENOSPC || r == -EDQUOT || r == -EROFS ? r : 0;
}

int pf_record_fabric_svc(struct pf_record *rec)
{
	pf_autofree char *err = NULL;
	struct pf_node *node = NULL;
	int r = 0;

	if (pf_node_load(rec->ctx->fs, NULL, &node, &err) < 0)
		return 0; /* no inventory: the node facts say why */
	if (!has_nvidia_fabric_parts(node)) {
		pf_node_free(node);
		return 0;
	}
	pf_node_free(node);
	for (int w = 0; w < PF_SVC_N && r >= 0; w++) {
		pf_autofree char *text = NULL, *rel = NULL;
		int q = rec->ctx->prov->fabric_svc(rec->ctx, (enum pf_fabric_svc)w, &text);

		if (q == -ENOPKG)
			continue; /* the tool is not installed: nothing to say */
		rel = pf_xasprintf("preflight/fabric/%s", svcs[w].file);
		if (!pf_record_answer(rec, rel, q))
			continue;
		r = pf_record_put_text(rec, rel, text ? text : "");
	}
	return r < 0 ? r : copy_imex_nodes(rec);
}
