// SPDX-License-Identifier: MIT
/*
 * job_recorded.c - the recorded backend of the job user and device
 * listing providers: text under <root>/preflight/ (docs/snapshot.md), and
 * pf_record_job(), which writes it.  A file that was not recorded is
 * -ENOENT; a check says what is missing.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/job.h"
#include "record.h"

int pf_recorded_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	pf_autofree char *text = NULL;
	int r = pf_fs_read_full(ctx->fs, "/preflight/job_user", 0, &text, NULL);

	return r < 0 ? r : pf_parse_job_user(text, ret);
}

/*
 * preflight/ls<dir>: `ls -ln <dir>`; @dir absolute, without "..".  A
 * directory whose subdirectories are listed too (/dev: /dev/infiniband)
 * is a directory there, and its own listing preflight/ls<dir>/.ls.
 */
int pf_recorded_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	pf_autofree char *text = NULL, *path = NULL;
	int r;

	if (dir[0] != '/' || strstr(dir, ".."))
		return -EINVAL;
	path = pf_xasprintf("/preflight/ls%s", dir);
	r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);
	if (r < 0 && r != -ENOENT) {
		pf_autofree char *own = pf_xasprintf("%s/.ls", path);

		r = pf_fs_read_full(ctx->fs, own, 0, &text, NULL);
	}
	return r < 0 ? r : pf_parse_ls_ln(text, ret);
}

/* A provider's text (@r its answer) as @rel. */
static int put_job_fact(struct pf_record *rec, const char *rel, int r, char *text)
{
	pf_autofree char *owned = text;

	if (!pf_record_answer(rec, rel, r))
		return 0;
	return pf_record_put_text(rec, rel, owned);
}

int pf_record_job(struct pf_record *rec, struct pf_job_user *ret_user, bool *ret_known)
{
	const struct pf_ctx *ctx = rec->ctx;
	struct pf_devnodes d = { 0 };
	int r;

	*ret_user = (struct pf_job_user){ 0 };
	r = ctx->prov->job_user(ctx, ret_user);
	*ret_known = r >= 0;
	r = put_job_fact(rec, "preflight/job_user", r,
			 *ret_known ? pf_format_job_user(ret_user) : NULL);
	if (r < 0)
		return r;
	r = ctx->prov->devnodes(ctx, "/dev/infiniband", &d);
	if (r == -ENOENT && pf_prov_can(ctx, PF_PROV_NODE))
		r = 0; /* no directory is a fact: an empty listing */
	r = put_job_fact(rec, "preflight/ls/dev/infiniband", r, r >= 0 ? pf_format_ls_ln(&d) : NULL);
	pf_devnodes_release(&d);
	return r;
}
