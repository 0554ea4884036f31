/* SPDX-License-Identifier: MIT */
/*
 * runner.h - runs selected checks in forked children, each with a deadline.
 *
 * A child runs checks and writes each result to a pipe as JSON; the parent
 * reads it, kills the child's process group when a check's deadline passes
 * ("timed out after N s") and turns a crash into an error ("crashed:
 * SIGSEGV") of the check that was running.  Traffic checks, and checks that
 * load vendor libraries when the providers are live, get a child of their
 * own; the others share one, and those after a check that broke it go on in
 * a new one.  Every run ends with a finished, valid result.
 */
#ifndef PREFLIGHT_RUNNER_H
#define PREFLIGHT_RUNNER_H

#include <stdbool.h>
#include <stdio.h>

#include "preflight/check.h"
#include "report.h" /* struct pf_run */

struct pf_runner_opts {
	bool no_fork;           /* run in-process (debugging) */
	/*
	 * The providers are live and load vendor libraries: a check flagged
	 * PF_CHECK_LOADS_LIBRARIES runs in a child of its own.  Recorded
	 * providers load none, and such a check shares a child with the rest.
	 */
	bool libraries_live;
	unsigned int timeout_s; /* overrides each check's deadline when non-zero */
	/*
	 * A terminal: while a check runs, one status line on it (name, the
	 * check's pf_progress() text, elapsed / deadline), redrawn each second
	 * and cleared when the check ends.  NULL: no status line.
	 */
	FILE *progress;
	/*
	 * What the run cannot judge, decided here rather than by each check:
	 * with @node_error set and no inventory in ctx, a check that needs one
	 * (PF_CHECK_NEEDS_NODE) is an error with that message, never a skip;
	 * with @topology_only (an lstopo export is all there is), a check that
	 * does not judge a topology (PF_CHECK_JUDGES_TOPOLOGY) is a skip.
	 */
	const char *node_error;
	bool topology_only;
};

/*
 * Run @runs in order; fills each run's res, duration_ms and timeout_s (a
 * check decided by the policy above is not run: both stay 0).
 */
void pf_runner_run(const struct pf_ctx *ctx, struct pf_run *runs, size_t n,
		   const struct pf_runner_opts *opts);

/*
 * Catch SIGTERM, SIGINT and SIGHUP from now on (pf_runner_run does it too;
 * call it early so a signal during the inventory is caught as well): the
 * first kills the running check's process group and makes it, and every
 * check after it, an error "interrupted by SIGTERM" (the report is still
 * written); a second exits at once with 128 + its number.  Each check's
 * child also dies with preflight (PR_SET_PDEATHSIG).
 */
void pf_runner_catch_signals(void);
/* The signal that interrupted the run, or 0. */
int pf_runner_interrupted(void);
/* "SIGTERM" into @buf. */
const char *pf_signal_name(int sig, char *buf, size_t len);

/* Run one check in this process and finish its result. */
void pf_run_inline(const struct pf_ctx *ctx, struct pf_run *run);

#endif
