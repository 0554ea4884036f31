// SPDX-License-Identifier: MIT
/*
 * test_dl_cuda.c - the dlopen loader and the CUDA driver table.
 *
 * A missing library and a missing symbol must become sentences that name
 * the library and what to install; alternatives, optional symbols and
 * symbol versions resolve as declared.  Where the CUDA toolkit's stub
 * libcuda.so exists, every symbol of our table must resolve in it and
 * cuInit must report the stub, not succeed.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_gpu.h"
#include "preflight/gpu.h"

#define STUB "/usr/local/cuda/lib64/stubs/libcuda.so"

static void missing_soname(void **state)
{
	struct tbl { double (*fn)(double); } t;
	static const struct pf_dl_sym syms[] = { { "cos\0", offsetof(struct tbl, fn), false } };
	const struct pf_dl_lib lib = {
		.soname = "libpf-no-such-library.so.7", .env = "PF_TEST_NO_SUCH_ENV",
		.install = "install the pf test package", .syms = syms, .n_syms = 1,
		.table_size = sizeof(t),
	};
	char *err = NULL;

	unsetenv("PF_TEST_NO_SUCH_ENV");
	assert_int_equal(pf_dl_load(&lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "libpf-no-such-library.so.7 not found: install the pf test package"));
	free(err);
}

static void missing_override(void **state)
{
	struct pf_cuda_table t;
	char *err = NULL;

	setenv("PF_CUDA_PATH", "/nonexistent/libcuda.so.1", 1);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "PF_CUDA_PATH=/nonexistent/libcuda.so.1"));
	assert_non_null(strstr(err, "libcuda.so.1"));
	free(err);
	unsetenv("PF_CUDA_PATH");
}

static void missing_symbol(void **state)
{
	struct pf_cuda_table t;
	char *err = NULL;

	memset(&t, 0xff, sizeof(t));
	setenv("PF_CUDA_PATH", pf_test_libm(), 1);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), -ENOSYS);
	assert_non_null(strstr(err, " has no cuInit"));
	assert_non_null(strstr(err, pf_test_libm()));
	assert_non_null(strstr(err, "install the NVIDIA driver"));
	/* a failed load leaves no half-filled table behind */
	assert_null(t.cuInit);
	assert_null(t.cuEventElapsedTime);
	free(err);
	unsetenv("PF_CUDA_PATH");
}

/*
 * As root an override must be a file only root may write (issue 30): a
 * world-writable copy of a real library is refused, never dlopen()ed, and
 * the library is as missing (-ENOENT: the checks skip); so is a relative one.
 */
static void untrusted_override(void **state)
{
	char dir[] = "/tmp/pf-dl-XXXXXX";
	pf_autofree char *lib = NULL, *cmd = NULL;
	struct pf_cuda_table t;
	char *err = NULL;

	if (geteuid() != 0)
		skip(); /* the rule is root's */
	assert_non_null(mkdtemp(dir));
	lib = pf_xasprintf("%s/libcuda.so.1", dir);
	cmd = pf_xasprintf("cp '%s' '%s' && chmod 0666 '%s'", pf_test_libm(), lib, lib);
	assert_int_equal(system(cmd), 0);
	setenv("PF_CUDA_PATH", lib, 1);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "refused as root"));
	assert_non_null(strstr(err, "writable by everyone"));
	assert_non_null(strstr(err, lib));
	free(err);
	err = NULL;
	/* root's own 0644 copy is loaded (and lacks cuInit: it is libm) */
	assert_int_equal(chmod(lib, 0644), 0);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), -ENOSYS);
	free(err);
	err = NULL;
	setenv("PF_CUDA_PATH", "libm.so.6", 1);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "not an absolute path"));
	free(err);
	unsetenv("PF_CUDA_PATH");
	unlink(lib);
	rmdir(dir);
}

struct mtbl {
	double (*first)(double);
	double (*opt)(double);
	size_t (*ver)(const char *);
};

static void alternatives_optional_versions(void **state)
{
	static const struct pf_dl_sym syms[] = {
		{ "pf_no_such_fn\0cos\0", offsetof(struct mtbl, first), false },
		{ "pf_no_such_fn2\0", offsetof(struct mtbl, opt), true },
	};
	static const struct pf_dl_sym vsyms[] = {
		{ "strlen\0", offsetof(struct mtbl, ver), false },
	};
	const struct pf_dl_lib lib = {
		.soname = "libm.so.6", .env = "PF_TEST_NO_SUCH_ENV", .install = "x",
		.syms = syms, .n_syms = 2, .table_size = sizeof(struct mtbl),
	};
	const struct pf_dl_lib vlib = {
		.soname = "libc.so.6", .env = "PF_TEST_NO_SUCH_ENV", .install = "x",
		.version = "GLIBC_2.2.5", .syms = vsyms, .n_syms = 1,
		.table_size = sizeof(struct mtbl),
	};
	const struct pf_dl_lib badver = {
		.soname = "libc.so.6", .env = "PF_TEST_NO_SUCH_ENV", .install = "x",
		.version = "PF_NO_SUCH_VERSION_9", .syms = vsyms, .n_syms = 1,
		.table_size = sizeof(struct mtbl),
	};
	struct mtbl t = { 0 };
	char *err = NULL;

	assert_int_equal(pf_dl_load(&lib, &t, &err), 0);
	assert_non_null(t.first);
	assert_true(fabs(t.first(0.0) - 1.0) < 1e-12); /* it is cos */
	assert_null(t.opt);
#if defined(__x86_64__)
	assert_int_equal(pf_dl_load(&vlib, &t, &err), 0);
	assert_int_equal(t.ver("abcd"), 4);
	assert_int_equal(pf_dl_load(&badver, &t, &err), -ENOSYS);
	assert_non_null(strstr(err, "has no strlen"));
	free(err);
#endif
}

/* pf_dl_cuda() loads once: a later change of the environment changes nothing. */
static void once(void **state)
{
	const struct pf_cuda_table *t = NULL;
	char *e1 = NULL, *e2 = NULL;

	setenv("PF_CUDA_PATH", "/nonexistent/once/libcuda.so.1", 1);
	assert_true(pf_dl_cuda(&t, &e1) < 0);
	setenv("PF_CUDA_PATH", "libm.so.6", 1);
	assert_true(pf_dl_cuda(&t, &e2) < 0);
	assert_string_equal(e1, e2);
	assert_non_null(strstr(e1, "/nonexistent/once/"));
	free(e1);
	free(e2);
	unsetenv("PF_CUDA_PATH");
}

/* Every symbol name of our table exists in the real driver API (the toolkit's stub). */
static void real_stub(void **state)
{
	struct pf_cuda_table t;
	char *err = NULL;
	char msg[160];
	pf_CUresult r;

	if (access(STUB, R_OK) != 0)
		skip();
	setenv("PF_CUDA_PATH", STUB, 1);
	assert_int_equal(pf_dl_load(&pf_dl_cuda_lib, &t, &err), 0);
	unsetenv("PF_CUDA_PATH");
	for (size_t i = 0; i < pf_dl_cuda_lib.n_syms; i++) {
		void *p;

		memcpy(&p, (char *)&t + pf_dl_cuda_lib.syms[i].offset, sizeof(p));
		assert_non_null(p);
	}
	r = t.cuInit(0);
	assert_int_not_equal(r, PF_CUDA_SUCCESS);
	pf_cuda_strerror(&t, r, msg, sizeof(msg));
	print_message("stub cuInit: %s\n", msg);
	assert_int_equal(r, PF_CUDA_ERROR_STUB_LIBRARY);
}

static void devices_and_strerror(void **state)
{
	static const char *const bdfs[] = { "0000:1b:00.0", "0000:9a:00.0" };
	const struct pf_cuda_table *cu;
	char (*list)[16] = NULL;
	char *err = NULL, msg[128];
	pf_CUresult cr = 0;

	pf_fake_gpu_reset(2, bdfs);
	assert_string_equal(pf_fake.bus_id[0], "0000:1B:00.0");
	assert_int_equal(pf_fake_gpu_provider.cuda(NULL, &cu, &err), 0);
	assert_int_equal(pf_cuda_devices(cu, &list, &cr), 2);
	assert_string_equal(list[0], "0000:1b:00.0");
	assert_string_equal(list[1], "0000:9a:00.0");
	free(list);
	assert_string_equal(pf_cuda_strerror(cu, PF_CUDA_ERROR_NO_DEVICE, msg, sizeof(msg)),
			    "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
	assert_string_equal(pf_cuda_strerror(cu, 12345, msg, sizeof(msg)), "CUDA error 12345");
	pf_fake.init_error = PF_CUDA_ERROR_NO_DEVICE;
	assert_int_equal(pf_cuda_devices(cu, &list, &cr), -EIO);
	assert_int_equal(cr, PF_CUDA_ERROR_NO_DEVICE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_soname),
		cmocka_unit_test(missing_override),
		cmocka_unit_test(missing_symbol),
		cmocka_unit_test(untrusted_override),
		cmocka_unit_test(alternatives_optional_versions),
		cmocka_unit_test(once),
		cmocka_unit_test(real_stub),
		cmocka_unit_test(devices_and_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
