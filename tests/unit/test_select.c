// SPDX-License-Identifier: MIT
/*
 * test_select.c - the selection of checks (src/registry/select.c) over the
 * registered table: the static default, --all, a capture, --only by name
 * and tag (a traffic test not through a tag static checks share), --skip,
 * and the names a list may hold.
 */
#include <errno.h>
#include <stdlib.h>

#include "registry.h"
#include "select.h"
#include "testutil.h"

static const struct pf_check *check(const char *name)
{
	const struct pf_check *c = pf_registry_find(name);

	assert_non_null(c);
	return c;
}

static void test_default_is_static(void **state)
{
	const struct pf_select sel = { 0 };
	const char *why = "unset";

	(void)state;
	assert_true(pf_select_check(&sel, check("memlock"), &why));
	assert_null(why);
	assert_false(pf_select_check(&sel, check("nccl_allreduce"), &why));
	assert_string_equal(why, "not static: the default runs the static checks; --all runs "
				 "every check");
	/* pfc_pause samples for seconds: not tagged static, not in the default */
	assert_false(pf_select_check(&sel, check("pfc_pause"), NULL));
}

static void test_all_and_capture(void **state)
{
	const struct pf_select all = { .all = true }, cap = { .capture = true };
	const char *why = NULL;

	(void)state;
	assert_true(pf_select_check(&all, check("nccl_allreduce"), NULL));
	assert_true(pf_select_check(&all, check("pfc_pause"), NULL));
	assert_true(pf_select_check(&cap, check("pfc_pause"), NULL));
	assert_false(pf_select_check(&cap, check("fabric_loopback"), &why));
	assert_string_equal(why, "a capture runs the checks that send no traffic");
}

static void test_only(void **state)
{
	const struct pf_select gpu = { .only = "gpu" }, named = { .only = "memlock, nccl_allreduce" };
	const struct pf_select fabric = { .only = "fabric" };
	const char *why = NULL;

	(void)state;
	/* a tag static checks share selects the static ones, not the traffic test */
	assert_true(pf_select_check(&gpu, check("gpu_inventory"), NULL));
	assert_false(pf_select_check(&gpu, check("nccl_allreduce"), &why));
	assert_string_equal(why, "a traffic test (minutes): a tag that static checks share "
				 "selects the static ones; name it in --only");
	assert_false(pf_select_check(&gpu, check("memlock"), &why));
	assert_string_equal(why, "not in --only");
	/* by name, and by a tag no static check carries */
	assert_true(pf_select_check(&named, check("nccl_allreduce"), NULL));
	assert_true(pf_select_check(&named, check("memlock"), NULL));
	assert_false(pf_select_check(&named, check("sysctl"), NULL));
	assert_true(pf_select_check(&fabric, check("fabric_loopback"), NULL));
}

static void test_skip(void **state)
{
	const struct pf_select skip = { .skip = "gpu,memlock" };
	const struct pf_select only_skip = { .only = "rdma", .skip = "nvidia_peermem" };
	const char *why = NULL;

	(void)state;
	assert_false(pf_select_check(&skip, check("memlock"), &why));
	assert_string_equal(why, "--skip");
	assert_false(pf_select_check(&skip, check("pcie_link"), NULL)); /* by its tag gpu */
	assert_true(pf_select_check(&skip, check("sysctl"), NULL));
	assert_true(pf_select_check(&only_skip, check("memlock"), NULL));
	assert_false(pf_select_check(&only_skip, check("nvidia_peermem"), NULL));
}

static void test_names_known(void **state)
{
	char *unknown = NULL;

	(void)state;
	assert_int_equal(pf_select_names_known("memlock,gpu traffic", &unknown), 0);
	assert_null(unknown);
	assert_int_equal(pf_select_names_known("memlock,nonesuch,gpux", &unknown), -ENOENT);
	assert_string_equal(unknown, "nonesuch");
	free(unknown);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_is_static),
		cmocka_unit_test(test_all_and_capture),
		cmocka_unit_test(test_only),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_names_known),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
