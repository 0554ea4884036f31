/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - shared helpers for the cmocka tests: cmocka's headers in the
 * right order, fixture roots, and running a check against a root.
 */
#ifndef PF_TESTUTIL_H
#define PF_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "preflight/check.h"
#include "preflight/profile.h"
#include "preflight/providers.h"
#include "runner.h"

/* Path of a fixture root under tests/fixtures (static buffer). */
const char *pf_test_fixture(const char *name);

/* A fresh temporary directory (removed by pf_test_rmtree). */
char *pf_test_mkdtemp(void);
void pf_test_rmtree(const char *dir);
/* Write @text to @dir/@rel, creating parent directories. */
void pf_test_write(const char *dir, const char *rel, const char *text);
void pf_test_symlink(const char *dir, const char *rel, const char *target);

/*
 * Run check @name in-process on @root with the given --set overrides
 * (NULL-terminated) and @prov (NULL: the recorded providers); fills @res.
 */
void pf_test_run_check(const char *name, const char *root, const struct pf_providers *prov,
		       const char *const *sets, struct pf_result *res);

/*
 * Write a generated node with tests/gen_root.py @args ("--gpus 8 --nics 8
 * --slow-port mlx5_3") into a fresh temporary directory and return it
 * (malloc'ed; remove with pf_test_rmtree).  The root is the directory itself.
 */
char *pf_test_gen_root(const char *args);

/* The first finding with @subject, or NULL. */
/*
 * Assert that --set @set (one or more, NULL-terminated) is refused when the
 * profile is built, with a message containing @needle (e.g. "check.key").
 */
void pf_test_config_rejected(const char *check, const char *const *sets, const char *needle);

const struct pf_finding *pf_test_finding(const struct pf_result *res, const char *subject);

#endif
