/* SPDX-License-Identifier: MIT */
/*
 * select.h - which checks of the registry a run selects: the default is the
 * checks tagged static (milliseconds, no traffic), so that a bare
 * `preflight` on a terminal never sits for minutes; all adds the traffic
 * tests and the sampling checks, only picks checks or tags, skip removes
 * checks or tags from either.  The options that fill it are the run's
 * (src/cmd/run_opts.c: --only, --skip, --all, `profile capture`).
 */
#ifndef PREFLIGHT_SELECT_H
#define PREFLIGHT_SELECT_H

#include <stdbool.h>

#include "preflight/check.h"

/* The tag of the default selection. */
#define PF_SELECT_DEFAULT_TAG "static"

struct pf_select {
	const char *only; /* names and tags, comma- or blank-separated; NULL: none */
	const char *skip; /* likewise */
	bool all;         /* every check, the traffic checks included */
	bool capture;     /* a profile capture: the checks that send no traffic */
};

/*
 * Whether @c runs under @sel, and when not, why (*ret_why, a static string;
 * @ret_why may be NULL).
 */
bool pf_select_check(const struct pf_select *sel, const struct pf_check *c, const char **ret_why);

/*
 * Whether every name of @list (comma- or blank-separated) is a registered
 * check or a tag some check carries: 0, or -ENOENT with *ret_unknown (the
 * first that is neither, caller frees).
 */
int pf_select_names_known(const char *list, char **ret_unknown);

#endif
