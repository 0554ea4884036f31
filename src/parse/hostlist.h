/* SPDX-License-Identifier: MIT */
/*
 * hostlist.h - Slurm hostlist expressions ("n[1-3,7],gpu-[001-010]-ib"), as
 * SLURM_JOB_NODELIST spells an allocation (src/parse/hostlist.c).
 *
 * Semantics follow Slurm's src/common/hostlist.c: names are separated by
 * ',', ' ' or tab outside brackets; a bracket holds ','-separated numbers and
 * lo-hi ranges; the width of lo pads every number of that range with zeros
 * ("[08-10]" -> 08 09 10); several bracket groups in one name expand as a
 * product, the leftmost varying slowest ("r[1-2]n[1-2]" -> r1n1 r1n2 r2n1
 * r2n2); text may follow the last bracket ("gpu-[1-2]-ib").  Stricter than
 * Slurm: an unmatched or nested bracket, an empty item, lo > hi or a
 * negative number is an error rather than a literal name.
 */
#ifndef PREFLIGHT_HOSTLIST_H
#define PREFLIGHT_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/strbuf.h"

/* Slurm's MAX_RANGE: more hosts than this is taken as a mistake. */
#define PF_HOSTLIST_MAX 65536
/* The longest host name expanded (a DNS name's limit). */
#define PF_HOSTNAME_MAX 253

struct pf_hostlist {
	char **hosts; /* in expression order, duplicates kept */
	size_t n;
};

/*
 * Expand @text into @hl (cleared first).  At most @max hosts (0: none
 * allowed past PF_HOSTLIST_MAX); the count is computed before anything is
 * expanded, so "n[0-999999999]" costs nothing.  Returns the number of hosts,
 * -EINVAL on a syntax error, -E2BIG past @max or a name past PF_HOSTNAME_MAX;
 * on error @why (if not NULL) gets a sentence naming the offending text.
 */
int pf_hostlist_expand(const char *text, size_t max, struct pf_hostlist *hl,
		       struct pf_strbuf *why);
void pf_hostlist_release(struct pf_hostlist *hl);

/* The longest name pf_hostlist_one_name() takes. */
#define PF_NODE_NAME_MAX 255

/*
 * True when @name is one plain node name that scontrol reads as exactly one
 * node: 1 to PF_NODE_NAME_MAX bytes of [A-Za-z0-9._-], not starting with '-'
 * (an option) or '.', and not the keyword ALL in any case (scontrol(1):
 * "update NodeName=ALL" acts on every node).  Everything a hostlist or
 * node_list expression is made of is refused: brackets and ranges
 * ("n[1-9]"), ',' and blanks between names, and the '*', '?', '^', '!',
 * '~' and '=' of patterns.  A NodeSet name of slurm.conf still looks plain:
 * the caller asks `scontrol show node` before it acts (docs/slurm.md).
 * The one rule of `--drain` (src/slurm) and of `fleet --drain-suspects`.
 */
bool pf_hostlist_one_name(const char *name);

static inline void pf_hostlist_releasep(struct pf_hostlist *hl)
{
	pf_hostlist_release(hl);
}
#define pf_autohostlist PF_CLEANUP(pf_hostlist_releasep)

#endif
