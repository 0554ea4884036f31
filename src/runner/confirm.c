// SPDX-License-Identifier: MIT
/*
 * confirm.c - `--confirm N`: re-run a failing static check before its fail
 * counts (confirm.h).  A settling link, a transient "in use" or one noisy
 * sample must not drain a node: the fail stands only when every re-run fails
 * as well.
 */
#include <string.h>

#include "confirm.h"

/* How many re-runs @c gets: traffic never (minutes each), a windowed check once. */
static unsigned int reruns_for(const struct pf_check *c, unsigned int times)
{
	if (c->flags & PF_CHECK_TRAFFIC)
		return 0;
	if (c->flags & PF_CHECK_WINDOWED)
		return times ? 1 : 0;
	return times;
}

/* @run failed at first; @again (re-run @k of @of) did not: @again's result, said so. */
static void not_confirmed(struct pf_run *run, struct pf_run *again, unsigned int k,
			  unsigned int of)
{
	pf_autofree char *first = pf_xstrdup(run->res.summary ? run->res.summary : "failed");
	struct pf_finding *f;

	pf_result_release(&run->res);
	run->res = again->res;
	f = pf_add(&run->res, PF_STATUS_WARN, NULL,
		   "failed on the first run (%s), not on re-run %u of %u: not confirmed, "
		   "so not a fail", first, k, of);
	pf_obs_num(f, "attempts", k + 1);
	pf_remedy(f, "a transient fault: watch this check's next runs; if it recurs, run "
		  "'preflight --only %s' by hand", run->check->name);
	f->code_num = PF_CODE_NOT_CONFIRMED;
	pf_code_resolve(f, run->check->name, PF_ACTION_NONE);
	/* the summary the check gave described a run that no longer stands */
	free(run->res.summary);
	run->res.summary = NULL;
	pf_result_finish(&run->res);
}

void pf_confirm_fails(const struct pf_ctx *ctx, struct pf_run *runs, size_t n,
		      unsigned int times, const struct pf_runner_opts *opts)
{
	for (size_t i = 0; i < n; i++) {
		struct pf_run *run = &runs[i];
		unsigned int of = reruns_for(run->check, times);

		if (run->res.status != PF_STATUS_FAIL || !of)
			continue;
		for (unsigned int k = 1; k <= of && !pf_runner_interrupted(); k++) {
			struct pf_run again = { .check = run->check, .cfg = run->cfg };

			pf_runner_run(ctx, &again, 1, opts);
			run->duration_ms += again.duration_ms;
			run->attempts = k + 1;
			/*
			 * Only a re-run that judged the node healthy (pass, warn) takes the
			 * fail back; one that could not decide (error, skip) is no
			 * evidence either way, and the first run's stands.
			 */
			if (again.res.status == PF_STATUS_PASS || again.res.status == PF_STATUS_WARN) {
				not_confirmed(run, &again, k, of);
				break;
			}
			pf_result_release(&again.res);
		}
	}
}
