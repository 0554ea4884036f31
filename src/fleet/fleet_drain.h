/* SPDX-License-Identifier: MIT */
/*
 * fleet_drain.h - the words of `fleet --drain-suspects`' scontrol lines,
 * shared by the mesh view and the wiring view (fleet_drain.c).  A host name
 * and a reason come from reports: hostile bytes that must not reach a shell
 * an operator pastes the lines into, nor name a set of nodes (ALL, a
 * hostlist), nor a node that did not report.  Private to src/fleet.
 */
#ifndef PREFLIGHT_FLEET_DRAIN_H
#define PREFLIGHT_FLEET_DRAIN_H

#include <stdbool.h>

#include "strmap.h"

/*
 * Why @host is not printed as a drain, or NULL when it may be: one plain
 * node name (pf_hostlist_one_name(): never ALL, a hostlist or a pattern)
 * that is some report's own node.hostname (a key of @own).
 */
const char *fl_drain_refusal(const char *host, const struct pf_strmap *own);
/* A copy of @s (caller frees) with all but [A-Za-z0-9 ._:,/()%=-] as '_': safe inside "...". */
char *fl_drain_text(const char *s);

#endif
