/* SPDX-License-Identifier: MIT */
/*
 * capture.h - a profile from a known-good node (the library under
 * `preflight profile capture`; src/cmd/run.c writes what it builds).
 *
 * Turns what the static checks observed on this node (port count, rates and
 * widths, MTUs, GPU count and driver, the GPU-NIC PCI distance class, the
 * GPUDirect path) into the profile keys of those checks, so that the
 * node's identical peers are held to it.  Only keys that exist in the
 * checks' parameter tables are written, and only from checks that passed
 * (or warned): a failing check's observations are not a reference.  The
 * result is checked by loading it back (pf_profile_parse and
 * pf_profile_validate) before it is returned.
 */
#ifndef PREFLIGHT_CAPTURE_H
#define PREFLIGHT_CAPTURE_H

#include <cjson/cJSON.h>

#include "preflight/node.h"
#include "profile.h"
#include "report.h"

/*
 * Build the profile from the finished @report (its runs) and the node
 * inventory @node (may be NULL), on top of @base (may be NULL): the keys
 * of the profile file and the --set overrides the checks ran with are kept
 * (ignore lists, NIC lists, ...), captured values replace theirs.  *ret is
 * the profile object (caller deletes); *ret_notes, when not NULL, receives
 * a NULL-terminated list of one-line notes for the user (checks left out and
 * why), freed with pf_strv_free().  -EINVAL with *ret_err if the built
 * profile does not validate (a bug).
 */
int pf_capture_profile(const struct pf_report *report, const struct pf_node *node,
		       const struct pf_profile *base, cJSON **ret, char ***ret_notes,
		       char **ret_err);

#endif
