// SPDX-License-Identifier: MIT
/*
 * test_check_gpu_health.c - gpu_health over the fake NVML table (each rule
 * with its healthy and failing value, a query not supported is a skip
 * naming it) and device-node listings written into a small root.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"

static const char *const BDFS[] = { "0000:1b:00.0", "0000:43:00.0" };

#define LS_DEV                                                                 \
	"crw-rw-rw- 1 0 0 195,   0 Nov 28 09:00 nvidia0\n"                     \
	"crw-rw-rw- 1 0 0 195,   1 Nov 28 09:00 nvidia1\n"                     \
	"crw-rw-rw- 1 0 0 195, 255 Nov 28 09:00 nvidiactl\n"                   \
	"crw-rw-rw- 1 0 0 507,   0 Nov 28 09:00 nvidia-uvm\n"                  \
	"crw-rw-rw- 1 0 0 507,   1 Nov 28 09:00 nvidia-uvm-tools\n"

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	pf_fake_gpu_reset(2, BDFS);
	pf_fake_node_init(&f->node, 2, BDFS, 0);
	pf_test_write(f->root, "preflight/ls/dev/.ls", LS_DEV);
	pf_test_write(f->root, "preflight/ls/dev/nvidia-caps",
		      "cr--r--r-- 1 0 0 237, 1 Nov 28 09:00 nvidia-cap1\n");
	*state = f;
	return 0;
}

static void run(struct pf_fake_fix *f, const char *const *sets)
{
	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_health", f->root, pf_fake_providers(), &f->node.node, sets,
			       &f->res);
}

static void healthy(void **state)
{
	struct pf_fake_fix *f = *state;

	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need_text(&f->res, "0000:1b:00.0/clocks", PF_STATUS_PASS, "GPU idle");
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_PASS, "35 C, 52 C below");
	pf_test_need_text(&f->res, "0000:1b:00.0/power", PF_STATUS_PASS, "700 W");
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/pcie_replay", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/persistence", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia<N>", PF_STATUS_PASS, "2 GPU device nodes");
	pf_test_need_text(&f->res, "/dev/nvidiactl", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia-uvm", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia-uvm-tools", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia-caps", PF_STATUS_PASS, "1 capability device");
}

static void clock_events(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.clock_events[1] = PF_NVML_CLOCKS_EVENT_GPU_IDLE | PF_NVML_CLOCKS_EVENT_HW_SLOWDOWN;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/clocks", PF_STATUS_FAIL, "HW slowdown");
	assert_string_equal(pf_test_must_find(&f->res, "0000:43:00.0/clocks")->code,
			    "PF-GPU-HEALTH-001");
	pf_test_need_text(&f->res, "0000:1b:00.0/clocks", PF_STATUS_PASS, NULL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);

	pf_fake.clock_events[1] = PF_NVML_CLOCKS_EVENT_HW_THERMAL;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/clocks", PF_STATUS_FAIL, "HW thermal slowdown");
	pf_fake.clock_events[1] = PF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/clocks", PF_STATUS_FAIL,
			  "HW power brake slowdown");
	pf_fake.clock_events[1] = PF_NVML_CLOCKS_EVENT_SW_THERMAL | PF_NVML_CLOCKS_EVENT_GPU_IDLE;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/clocks", PF_STATUS_WARN, "SW thermal slowdown");
	assert_string_equal(pf_test_must_find(&f->res, "0000:43:00.0/clocks")->code,
			    "PF-GPU-HEALTH-002");
	/* a power cap reached under load is not a fault */
	pf_fake.clock_events[1] = PF_NVML_CLOCKS_EVENT_SW_POWER_CAP;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/clocks", PF_STATUS_PASS, "SW power cap");
}

static void thermal(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.temp[0] = 80; /* 7 C below 87 */
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_WARN, "margin under 10 C");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/thermal")->code,
			    "PF-GPU-HEALTH-004");
	run(f, (const char *[]){ "gpu_health.min_margin_c=5", NULL });
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_PASS, NULL);
	pf_fake.temp[0] = 87;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_FAIL, "at or above");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/thermal")->code,
			    "PF-GPU-HEALTH-003");
}

static void power(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.power_limit[0] = 500000;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/power", PF_STATUS_WARN,
			  "power limit 500 W, below the board's "
	       "default 700 W");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/power")->code,
			    "PF-GPU-HEALTH-005");
	run(f, (const char *[]){ "gpu_health.min_power_pct=70", NULL });
	pf_test_need_text(&f->res, "0000:1b:00.0/power", PF_STATUS_PASS, NULL);
}

static void ecc(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.ecc_aggregate[0] = 2;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_WARN,
			  "2 uncorrected ECC errors over the board's");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/ecc")->code,
			    "PF-GPU-HEALTH-007");
	run(f, (const char *[]){ "gpu_health.ecc_aggregate_max=2", NULL });
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_PASS, NULL);
	pf_fake.ecc_volatile[0] = 1;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_FAIL,
			  "1 uncorrected ECC error since");
	assert_string_equal(pf_test_must_find(&f->res, "0000:1b:00.0/ecc")->code,
			    "PF-GPU-HEALTH-006");
}

static void replay_and_persistence(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.pcie_replay[1] = 12;
	pf_fake.persistence[1] = 0;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:43:00.0/pcie_replay", PF_STATUS_WARN, "12 PCIe replays");
	assert_string_equal(pf_test_must_find(&f->res, "0000:43:00.0/pcie_replay")->code,
			    "PF-GPU-HEALTH-008");
	pf_test_need_text(&f->res, "0000:43:00.0/persistence", PF_STATUS_WARN, "disabled");
	assert_string_equal(pf_test_must_find(&f->res, "0000:43:00.0/persistence")->code,
			    "PF-GPU-HEALTH-009");
	run(f, (const char *[]){ "gpu_health.pcie_replay_max=100",
				 "gpu_health.persistence=false", NULL });
	pf_test_need_text(&f->res, "0000:43:00.0/pcie_replay", PF_STATUS_PASS, NULL);
	assert_null(pf_test_finding(&f->res, "0000:43:00.0/persistence"));
	assert_int_equal(f->res.status, PF_STATUS_PASS);
}

/* NVML_ERROR_NOT_SUPPORTED: a skip naming the query, never a fail. */
static void not_supported(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.clock_events_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.temp_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.power_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.ecc_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.pcie_replay_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/clocks", PF_STATUS_SKIP,
			  "nvmlDeviceGetCurrentClocksEventReasons: "
	       "not supported");
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_SKIP,
			  "nvmlDeviceGetTemperature");
	pf_test_need_text(&f->res, "0000:1b:00.0/power", PF_STATUS_SKIP,
			  "nvmlDeviceGetPowerManagementLimit");
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_SKIP,
			  "nvmlDeviceGetTotalEccErrors");
	pf_test_need_text(&f->res, "0000:1b:00.0/pcie_replay", PF_STATUS_SKIP,
			  "nvmlDeviceGetPcieReplayCounter");
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* another NVML error is not a verdict either way */
	pf_fake.ecc_ret = PF_NVML_ERROR_GPU_IS_LOST;
	run(f, NULL);
	pf_test_need_text(&f->res, "0000:1b:00.0/ecc", PF_STATUS_ERROR, "NVML error 15");
}

static void devnodes(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_test_write(f->root, "preflight/ls/dev/.ls",
		      "crw-rw-rw- 1 0 0 195,   0 Nov 28 09:00 nvidia0\n"
		      "crw-rw-rw- 1 0 0 195, 255 Nov 28 09:00 nvidiactl\n"
		      "-rw-r--r-- 1 0 0 0 Nov 28 09:00 nvidia-uvm\n");
	pf_test_write(f->root, "preflight/ls/dev/nvidia-caps",
		      "-rw-r--r-- 1 0 0 0 Nov 28 09:00 nvidia-cap1\n");
	run(f, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia<N>", PF_STATUS_FAIL,
			  "1 GPU device node for 2 GPUs");
	assert_string_equal(pf_test_must_find(&f->res, "/dev/nvidia<N>")->code,
			    "PF-GPU-HEALTH-011");
	pf_test_need_text(&f->res, "/dev/nvidiactl", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia-uvm", PF_STATUS_FAIL, "not a character device");
	assert_string_equal(pf_test_must_find(&f->res, "/dev/nvidia-uvm")->code,
			    "PF-GPU-HEALTH-010");
	pf_test_need_text(&f->res, "/dev/nvidia-uvm-tools", PF_STATUS_WARN, "missing");
	pf_test_need_text(&f->res, "/dev/nvidia-caps", PF_STATUS_WARN, "nvidia-cap1");
	/* not recorded: a skip naming what is missing */
	{
		char *ls = pf_xasprintf("%s/preflight/ls", f->root);

		pf_test_rmtree(ls);
		free(ls);
	}
	run(f, NULL);
	pf_test_need_text(&f->res, "/dev", PF_STATUS_SKIP, "not recorded");
}

/* A recorded root: preflight/nvml/<bdf>/health as the snapshot writes it. */
static void recorded(void **state)
{
	struct pf_fake_fix *f = *state;
	const char *const bdfs[] = { "0000:1b:00.0" };

	pf_fake_node_init(&f->node, 1, bdfs, 0);
	pf_test_write(f->root, "preflight/nvml/0000:1b:00.0/health",
		      "persistence_mode 1\nclocks_event_reasons 65\ntemperature_c 40\n"
		      "temperature_slowdown_c 87\npower_limit_mw 700000\n"
		      "power_default_limit_mw 700000\necc_uncorrected_volatile 0\n"
		      "ecc_uncorrected_aggregate 0\npcie_replay_counter error 3\n");
	pf_test_write(f->root, "preflight/ls/dev/.ls",
		      "crw-rw-rw- 1 0 0 195,   0 Nov 28 09:00 nvidia0\n"
		      "crw-rw-rw- 1 0 0 195, 255 Nov 28 09:00 nvidiactl\n"
		      "crw-rw-rw- 1 0 0 507,   0 Nov 28 09:00 nvidia-uvm\n"
		      "crw-rw-rw- 1 0 0 507,   1 Nov 28 09:00 nvidia-uvm-tools\n");
	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_health", f->root, &pf_providers_recorded, &f->node.node, NULL,
			       &f->res);
	pf_test_need_text(&f->res, "0000:1b:00.0/clocks", PF_STATUS_FAIL, "HW thermal slowdown");
	pf_test_need_text(&f->res, "0000:1b:00.0/pcie_replay", PF_STATUS_SKIP, "not supported");
	pf_test_need_text(&f->res, "0000:1b:00.0/thermal", PF_STATUS_PASS, NULL);
	pf_test_need_text(&f->res, "/dev/nvidia<N>", PF_STATUS_PASS, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(healthy, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(clock_events, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(thermal, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(power, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(ecc, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(replay_and_persistence, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(not_supported, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(devnodes, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(recorded, setup, pf_fake_fix_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
