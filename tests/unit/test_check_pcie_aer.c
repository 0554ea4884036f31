// SPDX-License-Identifier: MIT
/*
 * test_check_pcie_aer.c - the AER statistics parser on the kernel's format
 * (drivers/pci/pcie/aer.c: "NAME count" lines and a TOTAL_ERR_* line), and
 * the pcie_aer check on roots written by tests/gen_root.py --aer: healthy,
 * a fatal error on a NIC's upstream bridge, non-fatal on a GPU, correctable
 * rates since boot and over a live window, files absent or unreadable.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight/parse.h"
#include "preflight/providers.h"
#include "testutil.h"

#define COR_ZERO "RxErr 0\nBadTLP 0\nBadDLLP 0\nRollover 0\nTimeout 0\nNonFatalErr 0\n" \
		 "CorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 0\n"

static void test_parse(void **state)
{
	struct pf_aer_stats s;

	(void)state;
	assert_int_equal(pf_parse_aer_stats(COR_ZERO, &s), 0);
	assert_int_equal(s.n, 8);
	assert_true(s.has_total);
	assert_int_equal(pf_aer_sum(&s), 0);
	assert_int_equal(pf_parse_aer_stats("DLP 2\nSDES 0\nCmpltTO 3\nTOTAL_ERR_FATAL 5\n", &s), 0);
	assert_string_equal(s.err[2].name, "CmpltTO");
	assert_int_equal(s.err[2].count, 3);
	assert_int_equal(pf_aer_sum(&s), 5);
	/* without a total line (or a newline at the end) the lines are summed */
	assert_int_equal(pf_parse_aer_stats("DLP 2\nNewBit2027 4", &s), 0);
	assert_int_equal(pf_aer_sum(&s), 6);
	assert_int_equal(pf_parse_aer_stats("", &s), -ENODATA);
	assert_int_equal(pf_parse_aer_stats("DLP\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("DLP -1\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("DLP 0x1\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("DLP 1 2\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("D-LP 1\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("DLP 1\r\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats("TOTAL_ERR_FATAL 1\nTOTAL_ERR_FATAL 1\n", &s), -EINVAL);
	assert_int_equal(pf_parse_aer_stats(NULL, &s), -EINVAL);
}

static size_t count_status(const struct pf_result *res, enum pf_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		n += res->findings[i].status == st;
	return n;
}

static const struct pf_finding *first_with(const struct pf_result *res, enum pf_status st)
{
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status == st)
			return &res->findings[i];
	fail_msg("no finding with that status");
	return NULL;
}

static void run_gen(const char *args, const char *const *sets, struct pf_result *res,
		    char **ret_root)
{
	char *root = pf_test_gen_root(args);

	pf_test_run_check("pcie_aer", root, NULL, sets, res);
	if (ret_root) {
		*ret_root = root;
		return;
	}
	pf_test_rmtree(root);
	free(root);
}

static void test_healthy(void **state)
{
	struct pf_result res;

	(void)state;
	/* 2 GPUs, 2 NICs: per switch a root port, the upstream port, 2 downstream ports */
	run_gen("--gpus 2 --nics 2 --aer", NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 12);
	assert_int_equal(count_status(&res, PF_STATUS_PASS), 12);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0")->message, "mlx5_0 (0000:");
	pf_result_release(&res);
}

static void test_fatal_on_nic_bridge(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;
	cJSON *fatal;

	(void)state;
	run_gen("--gpus 2 --nics 2 --aer --aer-error mlx5_0^1:fatal:DLP=1 "
		"--aer-error mlx5_0^1:fatal:CmpltTO=2", NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 1);
	f = first_with(&res, PF_STATUS_FAIL);
	/* the switch's downstream port above mlx5_0, and only mlx5_0 */
	assert_string_equal(cJSON_GetObjectItem(f->observed, "above")->valuestring, "mlx5_0");
	pf_test_assert_contains(f->message, "bridge above mlx5_0");
	pf_test_assert_contains(f->message, "fatal errors since boot: DLP 1, CmpltTO 2");
	fatal = cJSON_GetObjectItem(f->observed, "fatal");
	assert_int_equal(cJSON_GetObjectItem(fatal, "CmpltTO")->valueint, 2);
	assert_int_equal(f->code_num, 1);
	pf_test_assert_contains(f->remedy, "reseat");
	assert_int_equal(pf_test_must_find(&res, "mlx5_0")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* ignored by name: judged clean */
	run_gen("--gpus 2 --nics 2 --aer --aer-error mlx5_0^1:fatal:DLP=1",
		(const char *const[]){ "pcie_aer.ignore=DLP", NULL }, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_nonfatal_on_gpu_and_root_port(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	/* the GPU's root port (three bridges up) names both endpoints below it */
	run_gen("--gpus 2 --nics 2 --aer --aer-error 0000:13:00.0:nonfatal:UnsupReq=1 "
		"--aer-error mlx5_0^3:nonfatal:MalfTLP=4", NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 2);
	f = pf_test_must_find(&res, "0000:13:00.0");
	pf_test_assert_contains(f->message, "GPU 0000:13:00.0: non-fatal errors since boot: "
				"UnsupReq 1");
	assert_int_equal(f->code_num, 2);
	f = pf_test_must_find(&res, "0000:10:01.0");
	pf_test_assert_contains(f->message, "bridge above GPU 0000:13:00.0, mlx5_0");
	pf_test_assert_contains(f->message, "MalfTLP 4");
	pf_result_release(&res);
}

static void test_correctable_rate(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	/* 500 in 2 h: 250/h, above the default 10/h; a warning, not a fail */
	run_gen("--gpus 1 --nics 1 --aer --uptime 7200 --aer-error mlx5_0:correctable:RxErr=500",
		NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_int_equal(f->code_num, 4);
	pf_test_assert_contains(f->message, "correctable RxErr 500 (250/h");
	pf_result_release(&res);
	/* the same count over 100 days is under the rate; a raised threshold passes too */
	run_gen("--gpus 1 --nics 1 --aer --uptime 8640000 --aer-error mlx5_0:correctable:RxErr=500",
		NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	run_gen("--gpus 1 --nics 1 --aer --uptime 7200 --aer-error mlx5_0:correctable:RxErr=500",
		(const char *const[]){ "pcie_aer.correctable_per_hour=300", NULL }, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_absent_and_garbage(void **state)
{
	struct pf_result res;
	char *root;
	const struct pf_finding *f;

	(void)state;
	run_gen("--gpus 2 --nics 2", NULL, &res, NULL);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_test_assert_contains(res.summary, "no AER statistics");
	pf_test_assert_contains(res.summary, "aer_dev_{correctable,nonfatal,fatal}");
	pf_result_release(&res);

	/* one device without the files is a skip naming them; one with garbage an error */
	root = pf_test_gen_root("--gpus 1 --nics 1 --aer");
	for (const char *const *k = (const char *const[]){ "correctable", "nonfatal", "fatal",
							  NULL }; *k; k++) {
		char rel[128], path[512];

		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/0000:13:00.0/aer_dev_%s", *k);
		snprintf(path, sizeof(path), "%s/%s", root, rel);
		assert_int_equal(unlink(path), 0);
	}
	pf_test_write(root, "sys/class/infiniband/mlx5_0/device/aer_dev_fatal", "DLP one\n");
	pf_test_run_check("pcie_aer", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	f = pf_test_must_find(&res, "0000:13:00.0");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "no aer_dev_correctable, aer_dev_nonfatal or "
				"aer_dev_fatal");
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "cannot read aer_dev_fatal");
	pf_result_release(&res);
	pf_test_rmtree(root);
	free(root);
}

/* A wait that lets one correctable error happen on mlx5_0 meanwhile. */
static const char *window_root;

static int bumping_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	(void)ctx;
	pf_test_write(window_root, "sys/class/infiniband/mlx5_0/device/aer_dev_correctable",
		      "RxErr 7\nBadTLP 1\nTOTAL_ERR_COR 8\n");
	*ret_ms = ms;
	return 0;
}

static void test_window(void **state)
{
	static struct pf_providers p;
	struct pf_result res;
	char *root = pf_test_gen_root("--gpus 1 --nics 1 --aer --uptime 60 "
				      "--aer-error mlx5_0:correctable:RxErr=7");
	const struct pf_finding *f;

	(void)state;
	p = pf_providers_recorded;
	p.name = "test-window";
	p.caps = PF_PROV_ELAPSES;
	p.wait = bumping_wait;
	window_root = root;
	/* 7 since boot in a minute is 7/h: under the rate; one more within the window warns */
	pf_test_run_check("pcie_aer", root, &p, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->code_num, 3);
	pf_test_assert_contains(f->message, "correctable errors +1 in 1.0 s (now RxErr 7, BadTLP 1)");
	pf_result_release(&res);
	/* mode=absolute on the same root: since boot, 8 in (at least) an hour passes */
	pf_test_run_check("pcie_aer", root, &p, (const char *const[]){ "pcie_aer.mode=absolute",
								      NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_test_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_fatal_on_nic_bridge),
		cmocka_unit_test(test_nonfatal_on_gpu_and_root_port),
		cmocka_unit_test(test_correctable_rate),
		cmocka_unit_test(test_absent_and_garbage),
		cmocka_unit_test(test_window),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
