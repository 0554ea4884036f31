// SPDX-License-Identifier: MIT
/*
 * test_check_nccl_allreduce.c - nccl_allreduce over the fake CUDA and NCCL
 * tables: the fake all-reduce really sums every rank's buffer and its
 * streams' clocks run at pf_fake.algbw_gbps, so the reported algbw and busbw
 * are known exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

static const char *const BDFS[] = { "0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0",
				    "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
				    "0000:ba:00.0", "0000:db:00.0" };

/* Small sizes keep the fake's host memory small: 4 KiB .. 64 KiB. */
#define SMALL "nccl_allreduce.min_bytes=4096", "nccl_allreduce.max_bytes=65536", \
	"nccl_allreduce.iters=3", "nccl_allreduce.warmup=1"

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	*state = f;
	return 0;
}

static void run(struct pf_fake_fix *f, int n, const char *const *sets)
{
	pf_fake_node_init(&f->node, n, BDFS, 1);
	pf_result_release(&f->res);
	pf_test_run_check_node("nccl_allreduce", f->root, pf_fake_providers(), &f->node.node, sets,
			       &f->res);
}

static double num(const struct pf_finding *x, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(x->observed, key);

	assert_non_null(v);
	return v->valuedouble;
}

static void busbw_for(struct pf_fake_fix *f, int n, double factor)
{
	const struct pf_finding *x;

	pf_fake_gpu_reset(n, BDFS);
	pf_fake.algbw_gbps = 100;
	run(f, n, (const char *[]){ SMALL, NULL });
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* 4, 8, 16, 32 and 64 KiB */
	assert_int_equal(f->res.n_findings, 5);
	x = pf_test_finding(&f->res, "allreduce 64 KiB");
	assert_non_null(x);
	assert_true(fabs(num(x, "algbw_gbps") - 100) < 1e-3);
	assert_true(fabs(num(x, "busbw_gbps") - 100 * factor) < 1e-3);
	assert_int_equal((int)num(x, "gpus"), n);
	assert_int_equal((int)num(x, "bytes"), 65536);
	/* 64 KiB at 100 GB/s */
	assert_true(fabs(num(x, "time_us") - 65536 / 100e9 * 1e6) < 1e-3);
	assert_string_equal(cJSON_GetObjectItem(x->observed, "nccl_version")->valuestring, "2.28.9");
	assert_non_null(strstr(x->message, "NCCL 2.28.9"));
	/* warm-up plus timed iterations per size, every one a real sum */
	assert_int_equal(pf_fake.allreduce_calls, 5 * (1 + 3));
	/* nothing leaked: buffers, streams, events, communicators */
	assert_int_equal(pf_fake.allocs, 0);
}

static void busbw_factor(void **state)
{
	struct pf_fake_fix *f = *state;

	busbw_for(f, 2, 1.0);
	busbw_for(f, 4, 1.5);
	busbw_for(f, 8, 1.75);
}

static void threshold(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake_gpu_reset(4, BDFS);
	pf_fake.algbw_gbps = 100; /* busbw 150 */
	run(f, 4, (const char *[]){ SMALL, "nccl_allreduce.min_busbw_gbps=200", NULL });
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	x = pf_test_finding(&f->res, "allreduce 64 KiB");
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(x->remedy);
	assert_non_null(strstr(x->message, "expected at least 200.00 GB/s"));
	/* smaller sizes are reported, not judged */
	assert_int_equal(pf_test_finding(&f->res, "allreduce 4 KiB")->status, PF_STATUS_PASS);
	run(f, 4, (const char *[]){ SMALL, "nccl_allreduce.min_busbw_gbps=140", NULL });
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	assert_non_null(strstr(f->res.summary, "busbw 150.00 GB/s at 64 KiB over 4 GPUs"));
}

/* The check verifies the sums: a fake that gets rank 0 wrong must fail it. */
static void wrong_sum_fails(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake_gpu_reset(4, BDFS);
	pf_fake.corrupt = true;
	run(f, 4, (const char *[]){ SMALL, NULL });
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	x = pf_test_finding(&f->res, "allreduce 4 KiB");
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "GPU 0 holds 11, expected 10"));
	assert_int_equal(pf_fake.allocs, 0);
}

static void one_gpu_skips(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_reset(1, BDFS);
	run(f, 1, (const char *[]){ SMALL, NULL });
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "at least 2"));
	/* without an inventory, CUDA's count decides */
	pf_result_release(&f->res);
	pf_test_run_check_node("nccl_allreduce", f->root, pf_fake_providers(), NULL,
			       (const char *[]){ SMALL, NULL }, &f->res);
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "1 CUDA device"));
}

static void missing_libraries(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_reset(2, BDFS);
	pf_fake.nccl_load = -ENOENT;
	run(f, 2, (const char *[]){ SMALL, NULL });
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
	assert_true(pf_test_result_mentions(&f->res, "libnccl.so.2"));
	pf_fake_gpu_reset(2, BDFS);
	pf_fake.cuda_load = -ENOENT;
	run(f, 2, (const char *[]){ SMALL, NULL });
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
	assert_true(pf_test_result_mentions(&f->res, "libcuda.so.1"));
}

static void recorded_root_skips(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_reset(2, BDFS);
	pf_fake_node_init(&f->node, 2, BDFS, 1);
	pf_result_release(&f->res);
	pf_test_run_check_node("nccl_allreduce", f->root, &pf_providers_recorded, &f->node.node,
			       NULL, &f->res);
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "live node"));
}

static void bad_sizes(void **state)
{
	struct pf_fake_fix *f = *state;

	(void)f;
	/* refused when the profile is built (exit 64), never reaches run() */
	pf_test_config_rejected("nccl_allreduce",
				(const char *const[]){ "nccl_allreduce.min_bytes=65536",
						       "nccl_allreduce.max_bytes=4096", NULL },
				"nccl_allreduce.min_bytes");
}

/* A size that is not a power of two still ends exactly at max_bytes. */
static void odd_max(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_reset(2, BDFS);
	run(f, 2, (const char *[]){ "nccl_allreduce.min_bytes=4096", "nccl_allreduce.max_bytes=10000",
				    "nccl_allreduce.iters=1", "nccl_allreduce.warmup=0", NULL });
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	assert_int_equal(f->res.n_findings, 3); /* 4096, 8192, 10000 */
	assert_int_equal((int)num(&f->res.findings[2], "bytes"), 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(busbw_factor, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(threshold, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(wrong_sum_fails, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(one_gpu_skips, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(missing_libraries, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(recorded_root_skips, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(bad_sizes, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(odd_max, setup, pf_fake_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
