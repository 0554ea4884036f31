// SPDX-License-Identifier: MIT
/*
 * lldp.c - the node's LLDP neighbours, as lldpd's client prints them with
 * `lldpcli -f keyvalue show neighbors` (parsed by src/parse/parse_lldp.c).
 *
 * Live: only where lldpd runs, so a node without it pays two stat calls:
 * when lldpd's control socket exists (/run/lldpd.socket, the default of
 * lldpd's configure; /var/run/lldpd.socket on older builds), lldpcli is
 * looked up in the system directories (pf_tool_path: never from PATH); it
 * runs with a minimal environment and is killed with its process group at a
 * short deadline.  Recorded: preflight/lldp/neighbors, the same text
 * (docs/snapshot.md).
 */
#include <errno.h>
#include <sys/stat.h>

#include "preflight/providers.h"
#include "record.h"

#define LLDP_DEADLINE_MS 1000

static const char *const lldpd_sockets[] = { "/run/lldpd.socket", "/var/run/lldpd.socket" };

static bool lldpd_runs(void)
{
	struct stat st;

	for (size_t i = 0; i < PF_ARRAY_SIZE(lldpd_sockets); i++)
		if (stat(lldpd_sockets[i], &st) == 0 && S_ISSOCK(st.st_mode))
			return true;
	return false;
}

int pf_live_lldp_neighbors(const struct pf_ctx *ctx, char **ret_text)
{
	char path[64];
	char *argv[] = { path, (char *)"-f", (char *)"keyvalue", (char *)"show",
			 (char *)"neighbors", NULL };

	(void)ctx;
	*ret_text = NULL;
	if (!lldpd_runs())
		return -ENOENT; /* the common case first: two stat calls */
	if (pf_tool_path("lldpcli", path, sizeof(path)) < 0)
		return -ENOPKG;
	return pf_nv_run(path, argv, LLDP_DEADLINE_MS, ret_text);
}

int pf_recorded_lldp_neighbors(const struct pf_ctx *ctx, char **ret_text)
{
	*ret_text = NULL;
	return pf_fs_read_full(ctx->fs, "/preflight/lldp/neighbors", 0, ret_text, NULL);
}

/*
 * preflight/lldp/neighbors when the provider answers; nothing, quietly, on
 * a node without lldpcli or without lldpd running (no neighbours either way).
 */
int pf_record_lldp(struct pf_record *rec)
{
	pf_autofree char *text = NULL;
	int r = rec->ctx->prov->lldp_neighbors(rec->ctx, &text);

	if (r == -ENOPKG || r == -ENOENT)
		return 0;
	if (!pf_record_answer(rec, "preflight/lldp/neighbors", r))
		return 0;
	return pf_record_put_text(rec, "preflight/lldp/neighbors", text ? text : "");
}
