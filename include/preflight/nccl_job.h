/* SPDX-License-Identifier: MIT */
/*
 * nccl_job.h - NCCL's configuration for the job under judgement, read
 * through a check context (src/facts/nccl_job.c): the nccl_config check
 * judges it, the rail model takes NCCL_IB_HCA from it (docs/rails.md).
 */
#ifndef PREFLIGHT_NCCL_JOB_H
#define PREFLIGHT_NCCL_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/check.h"
#include "preflight/job.h"
#include "preflight/nccl_conf.h"

struct pf_nccl_job_conf {
	struct pf_nccl_conf conf; /* the variables, each with where it is set */
	bool env_judged;          /* the environment is the job's and known */
	const char *env_note;     /* why it is not (static text), or NULL */
	struct pf_job_user user;  /* the job's user, when user_known */
	bool user_known;
};

/*
 * Read NCCL's configuration as NCCL does (include/preflight/nccl_conf.h):
 * the variables @names[0..@n_names) of the environment through ctx->prov->env
 * when it is the job's (not in a Slurm prolog or epilog, and known: live, or
 * recorded in a snapshot), then NCCL_CONF_FILE or the user's ~/.nccl.conf,
 * read with the job user's rights, then /etc/nccl.conf, each without
 * overwriting.  Never fails: what could not be read is in @ret (files[].status,
 * env_note).  Release with pf_nccl_job_conf_release().
 */
void pf_nccl_job_conf_load(const struct pf_ctx *ctx, const char *const names[], size_t n_names,
			   struct pf_nccl_job_conf *ret);
void pf_nccl_job_conf_release(struct pf_nccl_job_conf *c);

#endif
