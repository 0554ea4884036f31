/* SPDX-License-Identifier: MIT */
/*
 * parse.h - pure parsers of kernel text formats.  No I/O: each takes the
 * text and returns plain values, so each is unit-tested and fuzzed alone.
 */
#ifndef PREFLIGHT_PARSE_H
#define PREFLIGHT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "preflight/providers.h"

/*
 * Find the row named @name ("Max locked memory") in /proc/<pid>/limits text
 * and parse its soft and hard columns ("unlimited" -> PF_RLIM_UNLIMITED).
 * -ENOENT if the row is absent, -EINVAL if malformed.
 */
int pf_parse_proc_limits(const char *text, const char *name, struct pf_rlimit *ret);

/*
 * Split a sysctl value into whitespace-separated unsigned fields
 * ("4096\t131072\t33554432").  Returns the number of fields (at most @max),
 * -EINVAL on a non-numeric field or none at all, -E2BIG if more than @max.
 */
int pf_parse_u64_fields(const char *text, uint64_t *fields, size_t max);

#endif
