/* SPDX-License-Identifier: MIT */
/*
 * confirm.h - `--confirm N`: a fail must hold before it drains.
 *
 * confirm.c re-runs each failing static check (a windowed one once more, a
 * traffic test never) and keeps the fail only when every re-run fails too;
 * counts.c remembers, per boot, the counts that fails rest on (Xid events,
 * errors since boot) so that one that stopped rising is reported once.
 */
#ifndef PREFLIGHT_CONFIRM_H
#define PREFLIGHT_CONFIRM_H

#include <cjson/cJSON.h>

#include "runner.h"

/* The most re-runs --confirm takes. */
#define PF_CONFIRM_MAX 10

/*
 * Re-run every failed run of @runs that is not a traffic test, up to @times
 * times (PF_CHECK_WINDOWED: once).  A re-run that passes or warns ends it:
 * that result replaces the fail, with a warn finding (code PF-<CHECK>-900)
 * saying which run failed and which did not.  A re-run that errors or skips
 * decides nothing, and the fail stands unless a later one passes.
 * run->attempts counts the runs.
 */
void pf_confirm_fails(const struct pf_ctx *ctx, struct pf_run *runs, size_t n,
		      unsigned int times, const struct pf_runner_opts *opts);

/* Code numbers every check has without declaring them (docs/codes.md). */
#define PF_CODE_NOT_CONFIRMED 900 /* failed, then passed a re-run: not drained */
#define PF_CODE_REPORTED_BEFORE 901 /* the same counts a run of this boot reported */

/*
 * The counts state of @dir (counts.json) for the boot @boot_id: *ret the
 * previous runs' counts (an object "check/subject" -> {name: value}), or
 * NULL when there is none yet, it belongs to another boot, or it cannot be
 * trusted; then *ret_warn (caller frees) says why when it is not simply
 * absent.  The directory is opened by the output walk (nothing another user
 * controls is followed) and the file must be a regular file owned by root
 * or the caller, not writable by others, at most 1 MiB.  Returns 0, or
 * -errno when the directory itself is refused (*ret_warn says which part).
 */
int pf_counts_load(const char *dir, const char *boot_id, cJSON **ret, char **ret_warn);

/*
 * Turn each fail of @runs whose counts @prev already holds, none risen,
 * into a warn (code PF-<CHECK>-901, action none) that says so; the check's
 * status follows.  @prev may be NULL (nothing changes).
 */
void pf_counts_apply(const cJSON *prev, struct pf_run *runs, size_t n);

/*
 * The state to save after this run: @prev's entries for checks that did not
 * run, and this run's counts for those that did.  Caller deletes.
 */
cJSON *pf_counts_next(const cJSON *prev, const struct pf_run *runs, size_t n, const char *boot_id);

/* Write @state to @dir/counts.json atomically (the output walk); 0 or -errno, *ret_err (may be NULL). */
int pf_counts_save(const char *dir, const cJSON *state, char **ret_err);

#endif
