/* SPDX-License-Identifier: MIT */
/*
 * registry.h - the table of checks expanded from checks/checks.def.
 */
#ifndef PREFLIGHT_REGISTRY_H
#define PREFLIGHT_REGISTRY_H

#include "preflight/check.h"

/* All checks in run order; *ret_n receives the count. */
const struct pf_check *const *pf_registry(size_t *ret_n);
const struct pf_check *pf_registry_find(const char *name);
/*
 * The check and code-table entry of finding code @code ("PF-MEMLOCK-001",
 * any case): 0, or -ENOENT when no check has that code.
 */
int pf_registry_find_code(const char *code, const struct pf_check **ret_check,
			  const struct pf_code **ret_code);

/*
 * Validate one descriptor: name [a-z0-9_]+, summary, run, param table
 * (unique keys, offsets inside cfg_size, defaults that parse within bounds).
 * -EINVAL with *ret_err describing the first problem.
 */
int pf_check_validate(const struct pf_check *c, char **ret_err);
/* Validate a table of checks (each descriptor, plus unique names). */
int pf_registry_validate(const struct pf_check *const *checks, size_t n, char **ret_err);

#endif
