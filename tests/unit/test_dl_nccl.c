// SPDX-License-Identifier: MIT
/*
 * test_dl_nccl.c - the NCCL table: missing library and symbol, version
 * strings of both encodings, and, where libnccl.so.2 is installed, the real
 * library's ncclGetVersion.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "preflight/gpu.h"

static void missing_library(void **state)
{
	struct pf_nccl_table t;
	char *err = NULL;

	setenv("PF_NCCL_PATH", "/nonexistent/libnccl.so.2", 1);
	assert_int_equal(pf_dl_load(&pf_dl_nccl_lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "PF_NCCL_PATH=/nonexistent/libnccl.so.2"));
	free(err);
	unsetenv("PF_NCCL_PATH");
}

static void missing_symbol(void **state)
{
	struct pf_nccl_table t;
	char *err = NULL;

	setenv("PF_NCCL_PATH", pf_test_libm(), 1);
	assert_int_equal(pf_dl_load(&pf_dl_nccl_lib, &t, &err), -ENOSYS);
	assert_non_null(strstr(err, " has no ncclGetVersion"));
	assert_non_null(strstr(err, pf_test_libm()));
	assert_non_null(strstr(err, "install NCCL"));
	free(err);
	unsetenv("PF_NCCL_PATH");
}

static void version_strings(void **state)
{
	char buf[32];

	assert_string_equal(pf_nccl_version_string(22809, buf, sizeof(buf)), "2.28.9");
	assert_string_equal(pf_nccl_version_string(21805, buf, sizeof(buf)), "2.18.5");
	assert_string_equal(pf_nccl_version_string(2708, buf, sizeof(buf)), "2.7.8");
	assert_string_equal(pf_nccl_version_string(20900, buf, sizeof(buf)), "2.9.0");
}

/* The installed library, when there is one: every symbol resolves, the version is 2.x. */
static void real_library(void **state)
{
	struct pf_nccl_table t;
	char *err = NULL, buf[32];
	int code = 0;

	unsetenv("PF_NCCL_PATH");
	if (pf_dl_load(&pf_dl_nccl_lib, &t, &err) < 0) {
		print_message("skipped: %s\n", err);
		free(err);
		skip();
	}
	assert_int_equal(t.ncclGetVersion(&code), PF_NCCL_SUCCESS);
	pf_nccl_version_string(code, buf, sizeof(buf));
	print_message("libnccl.so.2 reports %s (%d)\n", buf, code);
	assert_true(code >= 2000);
	assert_true(!strncmp(buf, "2.", 2));
	assert_non_null(t.ncclGetErrorString(PF_NCCL_INVALID_USAGE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_library),
		cmocka_unit_test(missing_symbol),
		cmocka_unit_test(version_strings),
		cmocka_unit_test(real_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
