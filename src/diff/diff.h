/* SPDX-License-Identifier: MIT */
/*
 * diff.h - the model under `preflight diff OLD.json NEW.json` (its front end
 * is src/cmd/diff.c): what changed between two reports of a node (before
 * and after a reimage; a node against its golden run).  Checks and findings
 * whose status changed, findings that appeared or went away, observed
 * values that moved.  Output schema preflight.diff/v1, documented in
 * docs/diff.md.
 */
#ifndef PREFLIGHT_DIFF_H
#define PREFLIGHT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define PF_DIFF_SCHEMA "preflight.diff/v1"

/*
 * Compare two preflight.report/v1 documents (@old_name and @new_name name
 * them in the output).  Returns 0 and *ret (a preflight.diff/v1 object,
 * caller deletes; its "worse" is true when something got worse), or -EINVAL
 * with *ret_err (caller frees) when either is not a v1 report.
 */
int pf_diff(const cJSON *old_report, const cJSON *new_report, const char *old_name,
	    const char *new_name, cJSON **ret, char **ret_err);

/* The text view of a diff object; 0 or -EIO. */
int pf_diff_render_text(const cJSON *d, FILE *out);

#endif
