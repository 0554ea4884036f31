// SPDX-License-Identifier: MIT
/*
 * nccl_job.c - NCCL's configuration for the job, through the providers
 * (include/preflight/nccl_job.h).
 */
#include <string.h>

#include "preflight/nccl_job.h"
#include "preflight/providers.h"

void pf_nccl_job_conf_load(const struct pf_ctx *ctx, const char *const names[], size_t n_names,
			   struct pf_nccl_job_conf *ret)
{
	pf_autofree char *script = NULL, *conf_file = NULL, *home = NULL;
	bool recorded_env = pf_prov_holds_process(ctx);
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->user_known = ctx->prov->job_user(ctx, &ret->user) == 0;
	r = pf_env(ctx, "SLURM_SCRIPT_CONTEXT", &script);
	if (r == -ENOSYS || !recorded_env) {
		ret->env_note = "the environment was not recorded: only the files are judged";
	} else if (r == 0 && (!strncmp(script, "prolog", 6) || !strncmp(script, "epilog", 6))) {
		ret->env_note = "in a Slurm prolog/epilog the environment is not the job's: only the "
				"files are judged (srun preflight --only nccl_config judges the job's)";
	} else {
		ret->env_judged = true;
	}
	if (ret->env_judged) {
		for (size_t i = 0; i < n_names; i++) {
			pf_autofree char *v = NULL;

			if (pf_env(ctx, names[i], &v) == 0)
				pf_nccl_conf_set(&ret->conf, names[i], v, "environment");
		}
		(void)pf_env(ctx, "NCCL_CONF_FILE", &conf_file);
		(void)pf_env(ctx, "HOME", &home);
	}
	/* NCCL 2.30+ takes $HOME, older ones the passwd home of the real uid */
	/* the user's files with the job user's rights: never what only root may read */
	pf_nccl_conf_load_files(ctx->fs, conf_file,
				home && home[0] ? home : ret->user_known ? ret->user.home : NULL,
				ret->user_known ? &(struct pf_nccl_reader){ ret->user.uid,
									    ret->user.gids,
									    ret->user.n_gids }
						: NULL,
				&ret->conf);
}

void pf_nccl_job_conf_release(struct pf_nccl_job_conf *c)
{
	pf_nccl_conf_release(&c->conf);
}
