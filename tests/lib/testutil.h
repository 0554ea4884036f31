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
#include "profile.h"
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
 * The same with the inventory @node instead of one loaded from @root (@node
 * may be NULL: no inventory; @root may be NULL: no file system).
 */
void pf_test_run_check_node(const char *name, const char *root, const struct pf_providers *prov,
			    struct pf_node *node, const char *const *sets, struct pf_result *res);
/*
 * Fail unless every member of @p (and of its gpu and ethtool tables) is set:
 * a test's table starts from pf_providers_none.  pf_test_run_check*() call it.
 */
void pf_test_assert_providers_complete(const struct pf_providers *p);

/*
 * Write a generated node with tests/gen_root.py @args ("--gpus 8 --nics 8
 * --slow-port mlx5_3") into a fresh temporary directory and return it
 * (malloc'ed; remove with pf_test_rmtree).  The root is the directory itself.
 */
char *pf_test_gen_root(const char *args);

/*
 * Assert that --set @set (one or more, NULL-terminated) is refused when the
 * profile is built, with a message containing @needle (e.g. "check.key").
 */
void pf_test_config_rejected(const char *check, const char *const *sets, const char *needle);

/* The first finding with @subject, or NULL. */
const struct pf_finding *pf_test_finding(const struct pf_result *res, const char *subject);
/* The first finding with @subject; the test fails (listing the findings) without one. */
const struct pf_finding *pf_test_must_find(const struct pf_result *res, const char *subject);
/* pf_test_must_find() of a finding that must have status @st. */
const struct pf_finding *pf_test_need(const struct pf_result *res, const char *subject,
				      enum pf_status st);
/* pf_test_need(), and unless @text is NULL its message contains @text. */
const struct pf_finding *pf_test_need_text(const struct pf_result *res, const char *subject,
					   enum pf_status st, const char *text);
/* True if a line of @notes (NULL-terminated, may be NULL) contains @part. */
bool pf_test_notes_have(char *const *notes, const char *part);
/* The test fails unless @s (may be NULL) contains @part. */
void pf_test_assert_contains(const char *s, const char *part);

/* cmocka state fixtures: *state is a fresh temporary directory (char *), removed after. */
int pf_test_tmpdir_setup(void **state);
int pf_test_tmpdir_teardown(void **state);
/* A test entry with them. */
#define pf_test_in_tmpdir(f) \
	cmocka_unit_test_setup_teardown(f, pf_test_tmpdir_setup, pf_test_tmpdir_teardown)

/*
 * The absolute path of the loaded libm.so.6 (a library that is not the one a
 * dl test asks for): a PF_*_PATH override root accepts must be absolute.
 */
const char *pf_test_libm(void);

/*
 * Real captures beside the checkout (../shared, or $PF_SHARED_DIR when set):
 * the path of @rel below it (malloc'ed), or the calling test is skipped with
 * a message naming what is absent.  Only in tests named shared_* of a binary
 * whose main() returns pf_test_run_group(): ctest runs such a binary twice,
 * as test_x (the other tests) and test_x_shared (the shared_* tests, 77 and
 * so "Skipped" when every one of them was skipped); see docs/testing.md.
 * The skip longjmps out of the test: nothing the test allocated before the
 * call is freed by a cleanup attribute (ASan reports it), so call it first.
 */
char *pf_test_shared_or_skip(const char *rel);
/*
 * pf_test_shared_or_skip() of a tarball (fixtures/hwloc-linux/...) unpacked
 * into @dir with tar; returns @dir/@top (malloc'ed), the capture's root.
 */
char *pf_test_unpack_shared(const char *rel, const char *dir, const char *top);

/*
 * cmocka_run_group_tests() with the selection of $PF_TEST_ONLY ("shared":
 * the shared_* tests, "local": the others, unset: all) and an exit status
 * for ctest: failures (never 77), else 77 when every selected test was
 * skipped for want of ../shared, else 0.
 */
#define pf_test_run_group(tests, setup, teardown)                                   \
	pf_test_finish((pf_test_select(tests, sizeof(tests) / sizeof((tests)[0])),      \
			cmocka_run_group_tests(tests, setup, teardown)))
void pf_test_select(const struct CMUnitTest *tests, size_t n);
int pf_test_finish(int failed);

#endif
