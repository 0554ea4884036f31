// SPDX-License-Identifier: MIT
/*
 * job_recorded.c - the recorded backend of the job user and device
 * listing providers: text under <root>/preflight/ (docs/snapshot.md).
 * A file that was not recorded is -ENOENT; a check says what is missing.
 */
#include <string.h>

#include "preflight/job.h"

int pf_recorded_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	pf_autofree char *text = NULL;
	int r = pf_fs_read_full(ctx->fs, "/preflight/job_user", 0, &text, NULL);

	return r < 0 ? r : pf_parse_job_user(text, ret);
}

/* preflight/ls<dir>: `ls -ln <dir>`; @dir absolute, without "..". */
int pf_recorded_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	pf_autofree char *text = NULL, *path = NULL;
	int r;

	if (dir[0] != '/' || strstr(dir, ".."))
		return -EINVAL;
	path = pf_xasprintf("/preflight/ls%s", dir);
	r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);
	return r < 0 ? r : pf_parse_ls_ln(text, ret);
}
