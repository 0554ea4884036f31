// SPDX-License-Identifier: MIT
/*
 * test_check_nvlink_links.c - nvlink_links over the fake NVML table: links
 * active and counted by device ID, a PCIe GPU (NOT_SUPPORTED) skipped, the
 * error counters over a window (a table whose wait elapses) and since boot,
 * the common link speed against the node's other GPUs of the model.
 */
#include <string.h>

#include "fake_gpu.h"

static const char *const BDFS[] = { "0000:1b:00.0", "0000:43:00.0" };

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	pf_fake_gpu_reset(2, BDFS);
	pf_fake_node_init(&f->node, 2, BDFS, 0); /* 10de:2330, an H100 SXM */
	pf_test_write(f->root, "proc/uptime", "36000.00 1000.00\n");
	*state = f;
	return 0;
}

static void run_with(struct pf_fake_fix *f, const struct pf_providers *p, const char *const *sets)
{
	pf_result_release(&f->res);
	pf_test_run_check_node("nvlink_links", f->root, p, &f->node.node, sets, &f->res);
}

static void run(struct pf_fake_fix *f, const char *const *sets)
{
	run_with(f, pf_fake_providers(), sets);
}

static int instant_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	*ret_ms = ms;
	return 0;
}

/* The fake providers with time that elapses: the live window. */
static const struct pf_providers *window_providers(void)
{
	static struct pf_providers p;

	p = *pf_fake_providers();
	p.caps |= PF_PROV_ELAPSES;
	p.wait = instant_wait;
	return &p;
}

static void healthy(void **state)
{
	struct pf_fake_fix *f = *state;

	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_PASS,
			  "18 NVLink links active, as a H100 SXM");
	pf_test_need_text(&f->res, "0000:43:00.0/errors", PF_STATUS_PASS, "since boot");
	run_with(f, window_providers(), NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need_text(&f->res, "0000:43:00.0/errors", PF_STATUS_PASS,
			  "over the sampling window");
}

static void link_down(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.link_down[1][5] = 1;
	pf_fake.link_down[1][17] = 1;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/links", PF_STATUS_FAIL,
			  "2 of 18 NVLink links inactive: 5, 17");
	assert_string_equal(pf_test_must_find(&f->res, "0000:43:00.0/links")->code,
			    "PF-NVLINK-LINKS-001");
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_PASS, NULL);
}

static void too_few(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.nvlinks = 12; /* what NVML answers past link 11: INVALID_ARGUMENT */
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_FAIL,
			  "12 NVLink links, expected for 18");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/links")->code,
			    "PF-NVLINK-LINKS-002");
	/* a model not in the table: every link it reports, active */
	f->node.pci[0].device = 0x20b0; /* A100 SXM4 */
	f->node.pci[1].device = 0x20b0;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_PASS, "12 NVLink links active");
	run(f, (const char *[]){ "nvlink_links.expected_links=18", NULL });
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_FAIL, "expected 18");
}

/* A PCIe GPU: NVML_ERROR_NOT_SUPPORTED on link 0 is a skip naming the query. */
static void pcie_gpu(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.nvlinks = 0;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_SKIP,
			  "nvmlDeviceGetNvLinkState: not supported");
	assert_null(pf_test_finding(&f->res, "0000:1b:00.0/errors"));
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	/* links without counters */
	pf_fake.nvlinks = 18;
	pf_fake.link_err_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/errors", PF_STATUS_SKIP,
			  "nvmlDeviceGetNvLinkErrorCounter: not "
	       "supported");
}

static void window(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_providers *p = window_providers();

	/* old errors since boot do not count in a window */
	pf_fake.link_err[0][3][PF_NVML_NVLINK_ERROR_DL_CRC_FLIT] = 100000;
	pf_fake.link_err_step = 3; /* link 0's counters grow at every read */
	run_with(f, p, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/errors", PF_STATUS_FAIL, "recovery 3");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/errors")->code,
			    "PF-NVLINK-LINKS-003");
	assert_true(strstr(pf_test_must_find(&f->res, "0000:1b:00.0/errors")->message,
		    "replay 3") != NULL);
}

static void window_soft(void **state)
{
	struct pf_fake_fix *f = *state;

	/* only replay and CRC grow: warn */
	pf_fake.link_err_step = 2;
	pf_fake.link_err_step_mask = 1u << PF_NVML_NVLINK_ERROR_DL_REPLAY |
				     1u << PF_NVML_NVLINK_ERROR_DL_CRC_FLIT;
	run_with(f, window_providers(), NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/errors", PF_STATUS_WARN,
			  "replay 2, crc_flit 2 in 1.0 s");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/errors")->code,
			    "PF-NVLINK-LINKS-004");
	assert_int_equal(f->res.status, PF_STATUS_WARN);
}

static void absolute(void **state)
{
	struct pf_fake_fix *f = *state;

	/* 10 h uptime: 2000 CRC errors is 200/h, above 100/h */
	pf_fake.link_err[0][3][PF_NVML_NVLINK_ERROR_DL_CRC_DATA] = 2000;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/errors", PF_STATUS_WARN,
			  "crc_data 2000 over 10.0 h");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/errors")->code,
			    "PF-NVLINK-LINKS-005");
	run(f, (const char *[]){ "nvlink_links.errors_per_hour=500", NULL });
	pf_test_need_text(&f->res, "0000:1b:00.0/errors", PF_STATUS_PASS, NULL);
	pf_fake.link_err[1][0][PF_NVML_NVLINK_ERROR_DL_RECOVERY] = 11;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/errors", PF_STATUS_WARN, "recovery 11");
}

/* A recorded root: preflight/nvml/<bdf>/nvlink as the snapshot writes it. */
static void recorded(void **state)
{
	struct pf_fake_fix *f = *state;
	const char *const bdfs[] = { "0000:1b:00.0" };

	pf_fake_node_init(&f->node, 1, bdfs, 0);
	f->node.pci[0].device = 0x2941; /* GB200 */
	pf_test_write(f->root, "preflight/nvml/0000:1b:00.0/nvlink",
		      "architecture 10\nlinks 2\nlink0.state 1\nlink0.replay 0\nlink0.recovery 0\n"
		      "link0.crc_flit 0\nlink0.crc_data 0\nlink1.state 0\n");
	run_with(f, &pf_providers_recorded, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_FAIL,
			  "1 of 2 NVLink links inactive: 1");
	pf_test_write(f->root, "preflight/nvml/0000:1b:00.0/nvlink", "links 1\nlink0.state error 3\n");
	run_with(f, &pf_providers_recorded, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_SKIP, "not supported");
}

static const char *const EIGHT[] = {
	"0000:1b:00.0", "0000:43:00.0", "0000:52:00.0", "0000:61:00.0",
	"0000:9d:00.0", "0000:c3:00.0", "0000:d1:00.0", "0000:df:00.0",
};

static void eight_gpus(struct pf_fake_fix *f)
{
	pf_fake_gpu_reset(8, EIGHT);
	pf_fake_node_init(&f->node, 8, EIGHT, 0);
}

/* 8 GPUs at one speed pass: the rule must not drain a healthy HGX node. */
static void speed_healthy(void **state)
{
	struct pf_fake_fix *f = *state;

	eight_gpus(f);
	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	for (size_t i = 0; i < 8; i++) {
		char subject[48];

		snprintf(subject, sizeof(subject), "%s/speed", EIGHT[i]);
		pf_test_need_text(&f->res, subject, PF_STATUS_PASS,
				  "NVLink at 25781 MBps, as fast as the other GPUs of this model");
	}
	/* the floor at the speed itself passes */
	run(f, (const char *[]){ "nvlink_links.min_speed_mbps=25781", NULL });
	assert_int_equal(f->res.status, PF_STATUS_PASS);
}

static void speed_one_slow(void **state)
{
	struct pf_fake_fix *f = *state;

	eight_gpus(f);
	pf_fake.nvlink_speed[5] = 20000;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:c3:00.0/speed", PF_STATUS_WARN,
			  "NVLink at 20000 MBps, below the 25781 MBps of another GPU");
	assert_string_equal(pf_test_must_find(&f->res, "0000:c3:00.0/speed")->code,
			    "PF-NVLINK-LINKS-006");
	pf_test_need_text(&f->res, "0000:1b:00.0/speed", PF_STATUS_PASS, NULL);
	assert_int_equal(f->res.status, PF_STATUS_WARN);
	/* below the profile's floor: fail, on that GPU only */
	run(f, (const char *[]){ "nvlink_links.min_speed_mbps=25000", NULL });
	pf_test_need_text(&f->res, "0000:c3:00.0/speed", PF_STATUS_FAIL,
			  "NVLink at 20000 MBps, below the profile's 25000");
	assert_string_equal(pf_test_must_find(&f->res, "0000:c3:00.0/speed")->code,
			    "PF-NVLINK-LINKS-007");
	pf_test_need_text(&f->res, "0000:df:00.0/speed", PF_STATUS_PASS, NULL);
	/* another model is not a peer: each of a mixed pair judged alone */
	f->node.pci[5].device = 0x20b0;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:c3:00.0/speed", PF_STATUS_PASS, "NVLink at 20000 MBps");
	assert_int_equal(f->res.status, PF_STATUS_PASS);
}

/* Not known: a skip naming the query, on that rule only. */
static void speed_unknown(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.nvlink_speed_ret[1] = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.nvlink_speed[0] = 1; /* no peer left to compare with */
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/speed", PF_STATUS_SKIP,
			  "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON): not "
			  "supported");
	pf_test_need_text(&f->res, "0000:43:00.0/links", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/speed", PF_STATUS_PASS, "NVLink at 1 MBps");
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_fake.no_field_values_sym = true;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/speed", PF_STATUS_SKIP,
			  "not in this libnvidia-ml");
	pf_test_need_text(&f->res, "0000:1b:00.0/links", PF_STATUS_PASS, NULL);
	/* a PCIe GPU: no speed finding at all */
	pf_fake.no_field_values_sym = false;
	pf_fake.nvlinks = 0;
	run(f, NULL);
	assert_null(pf_test_finding(&f->res, "0000:1b:00.0/speed"));
}

/* The fake answers as NVML: INVALID_ARGUMENT for a NULL array, a return per field. */
static void fake_field_values(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_nvml_table *nv = NULL;
	struct pf_nvml_field_value fv[2] = {
		{ .field_id = PF_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON }, { .field_id = 1 },
	};
	pf_nvmlDevice_t dev;
	char *why = NULL;

	(void)f;
	assert_int_equal(pf_fake_providers()->gpu->nvml(NULL, &nv, &why), 0);
	assert_int_equal(nv->nvmlInit(), PF_NVML_SUCCESS);
	assert_int_equal(nv->nvmlDeviceGetHandleByIndex(0, &dev), PF_NVML_SUCCESS);
	assert_int_equal(nv->nvmlDeviceGetFieldValues(dev, 1, NULL),
			 PF_NVML_ERROR_INVALID_ARGUMENT);
	assert_int_equal(nv->nvmlDeviceGetFieldValues(dev, 2, fv), PF_NVML_SUCCESS);
	assert_int_equal(fv[0].nvml_return, PF_NVML_SUCCESS);
	assert_int_equal(fv[0].value_type, PF_NVML_VALUE_TYPE_UNSIGNED_INT);
	assert_int_equal(fv[0].value.ui_val, 25781);
	assert_int_equal(fv[1].nvml_return, PF_NVML_ERROR_NOT_SUPPORTED);
	nv->nvmlShutdown();
}

/* Recorded: the speed line read back; a snapshot without it skips that rule only. */
static void speed_recorded(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_test_write(f->root, "preflight/nvml/0000:1b:00.0/nvlink",
		      "links 1\nlink0.state 1\nspeed_mbps 25781\n");
	pf_test_write(f->root, "preflight/nvml/0000:43:00.0/nvlink",
		      "links 1\nlink0.state 1\nspeed_mbps 12000\n");
	f->node.pci[0].device = f->node.pci[1].device = 0x20b0; /* a model of no known link count */
	run_with(f, &pf_providers_recorded, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/speed", PF_STATUS_WARN,
			  "NVLink at 12000 MBps, below the 25781 MBps");
	pf_test_write(f->root, "preflight/nvml/0000:43:00.0/nvlink", "links 1\nlink0.state 1\n");
	run_with(f, &pf_providers_recorded, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/speed", PF_STATUS_SKIP, "not recorded");
	pf_test_need_text(&f->res, "0000:1b:00.0/speed", PF_STATUS_PASS, "NVLink at 25781 MBps");
	pf_test_write(f->root, "preflight/nvml/0000:43:00.0/nvlink",
		      "links 1\nlink0.state 1\nspeed_mbps error 3\n");
	run_with(f, &pf_providers_recorded, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/speed", PF_STATUS_SKIP, "not supported");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(healthy, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(link_down, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(too_few, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(pcie_gpu, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(window, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(window_soft, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(absolute, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(recorded, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(speed_healthy, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(speed_one_slow, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(speed_unknown, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(fake_field_values, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(speed_recorded, setup, pf_fake_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
