// SPDX-License-Identifier: MIT
/*
 * test_check_gpu_inventory.c - gpu_inventory over hand-built inventories,
 * small roots and the fake CUDA/NVML tables.
 */
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "fake_gpu.h"
#include "preflight/parse.h"

static const char *const BDFS[] = { "0000:1b:00.0", "0000:43:00.0", "0000:52:00.0",
				    "0000:61:00.0" };

#define DRIVER_LINE "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"

/* A root where the driver is loaded and bound to @n GPUs. */
static void make_root(struct pf_fake_fix *f, int n)
{
	pf_test_write(f->root, "proc/driver/nvidia/version", DRIVER_LINE);
	pf_test_write(f->root, "proc/uptime", "7200.00 1000.00\n");
	for (int i = 0; i < n; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "proc/driver/nvidia/gpus/%s/information", BDFS[i]);
		pf_test_write(f->root, rel, "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   123\n");
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", BDFS[i]);
		pf_test_symlink(f->root, rel, "../../../../bus/pci/drivers/nvidia");
	}
}

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	pf_fake_gpu_reset(4, BDFS);
	pf_fake.kmsg = "";
	pf_fake_node_init(&f->node, 4, BDFS, 1);
	make_root(f, 4);
	*state = f;
	return 0;
}

static void run(struct pf_fake_fix *f, const char *const *sets)
{
	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_inventory", f->root, pf_fake_providers(), &f->node.node, sets,
			       &f->res);
}

static enum pf_status status_of(const struct pf_fake_fix *f, const char *subject)
{
	const struct pf_finding *x = pf_test_finding(&f->res, subject);

	if (!x)
		fail_msg("no finding for %s", subject);
	return x->status;
}

static void healthy(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	run(f, (const char *[]){ "gpu_inventory.expected_gpus=4", NULL });
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	assert_int_equal(status_of(f, "pci"), PF_STATUS_PASS);
	assert_int_equal(status_of(f, "driver"), PF_STATUS_PASS);
	assert_int_equal(status_of(f, "cuda"), PF_STATUS_PASS);
	assert_int_equal(status_of(f, "nvml"), PF_STATUS_PASS);
	assert_int_equal(status_of(f, "xid"), PF_STATUS_PASS);
	x = pf_test_finding(&f->res, "0000:43:00.0");
	assert_non_null(x);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_non_null(strstr(x->message, "CUDA device 1"));
	assert_non_null(strstr(x->message, "bound to nvidia"));
	assert_non_null(strstr(x->message, "persistence on"));
	x = pf_test_finding(&f->res, "driver");
	assert_non_null(strstr(x->message, "550.54.15"));
	assert_string_equal(cJSON_GetObjectItem(x->observed, "cuda_version")->valuestring, "12.4");
	assert_string_equal(cJSON_GetObjectItem(x->observed, "nvml_driver_version")->valuestring,
			    "550.54.15");
}

/* min_cuda: the driver's CUDA version (cuDriverGetVersion) against the jobs' toolkit */
static void min_cuda(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;
	static const char *const bad[] = { "gpu_inventory.min_cuda=12", NULL };
	static const char *const bad2[] = { "gpu_inventory.min_cuda=12.4.1", NULL };

	/* unset: no judgement */
	run(f, NULL);
	assert_null(pf_test_finding(&f->res, "cuda_version"));
	/* 12.4 driver, 12.4 and 12.2 toolkits */
	run(f, (const char *[]){ "gpu_inventory.min_cuda=12.4", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_PASS);
	run(f, (const char *[]){ "gpu_inventory.min_cuda=11.8", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_PASS);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* too old: both versions named */
	run(f, (const char *[]){ "gpu_inventory.min_cuda=12.10", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_FAIL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	x = pf_test_finding(&f->res, "cuda_version");
	assert_non_null(strstr(x->message, "up to 12.4"));
	assert_non_null(strstr(x->message, "CUDA 12.10"));
	assert_non_null(strstr(x->remedy, "12.10"));
	/* the version unknown: a skip of that finding, never a failure */
	pf_fake.driver_version = 0;
	run(f, (const char *[]){ "gpu_inventory.min_cuda=12.10", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_SKIP);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_fake.cuda_load = -ENOENT;
	run(f, (const char *[]){ "gpu_inventory.min_cuda=12.10", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_SKIP);
	pf_fake.cuda_load = 0;
	pf_fake.driver_version = 12040;
	/* a cuInit failure still knows the driver's version */
	pf_fake.init_error = PF_CUDA_ERROR_NO_DEVICE;
	run(f, (const char *[]){ "gpu_inventory.min_cuda=12.6", NULL });
	assert_int_equal(status_of(f, "cuda_version"), PF_STATUS_FAIL);
	pf_fake.init_error = PF_CUDA_SUCCESS;
	/* MAJOR.MINOR only, checked when the profile is built */
	pf_test_config_rejected("gpu_inventory", bad, "gpu_inventory.min_cuda");
	pf_test_config_rejected("gpu_inventory", bad2, "gpu_inventory.min_cuda");
}

/* Under a recorded root CUDA is never asked: min_cuda is a skip. */
static void min_cuda_recorded(void **state)
{
	struct pf_fake_fix *f = *state;
	struct pf_result res;

	pf_result_init(&res);
	pf_test_run_check_node("gpu_inventory", f->root, &pf_providers_recorded, &f->node.node,
			       (const char *[]){ "gpu_inventory.min_cuda=12.4", NULL }, &res);
	assert_int_equal(pf_test_finding(&res, "cuda_version")->status, PF_STATUS_SKIP);
	pf_result_release(&res);
}

static void no_gpu_skips(void **state)
{
	struct pf_fake_fix *f = *state;
	char path[512];

	pf_fake_node_init(&f->node, 0, BDFS, 1);
	/* the driver still lists them: not a skip */
	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_WARN);
	assert_int_equal(status_of(f, "pci"), PF_STATUS_WARN);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus", f->root);
	pf_test_rmtree(path);
	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "no NVIDIA GPU on the PCI bus"));
	/* expecting GPUs turns that into a failure */
	run(f, (const char *[]){ "gpu_inventory.expected_gpus=8", NULL });
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	assert_int_equal(status_of(f, "pci"), PF_STATUS_FAIL);
}

static void expected_count(void **state)
{
	struct pf_fake_fix *f = *state;

	run(f, (const char *[]){ "gpu_inventory.expected_gpus=8", NULL });
	assert_int_equal(status_of(f, "pci"), PF_STATUS_FAIL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_finding(&f->res, "pci")->message, "4 NVIDIA GPUs on the PCI bus, expected 8"));
	/* the summary (JUnit's failure message) says what failed, not "4 NVIDIA GPUs on the bus" */
	assert_non_null(strstr(f->res.summary, "pci: 4 NVIDIA GPUs on the PCI bus, expected 8"));
}

/* The bus has 4 GPUs, the driver reports 3: the missing one fails. */
static void count_mismatch(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.n = 3;
	memcpy(pf_fake.bus_id[1], pf_fake.bus_id[3], sizeof(pf_fake.bus_id[1])); /* 43:00.0 gone */
	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	x = pf_test_finding(&f->res, "cuda");
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "CUDA sees 3 of 4"));
	assert_non_null(strstr(x->message, "0000:43:00.0"));
	assert_non_null(x->remedy);
	assert_int_equal(status_of(f, "0000:43:00.0"), PF_STATUS_FAIL);
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_PASS);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:43:00.0")->message, "not visible to CUDA"));
}

static void missing_libcuda(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.cuda_load = -ENOENT;
	run(f, NULL);
	x = pf_test_finding(&f->res, "cuda");
	assert_int_equal(x->status, PF_STATUS_ERROR);
	assert_non_null(strstr(x->message, "libcuda.so.1"));
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
	/* the rest of the inventory still reports */
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_PASS);
}

static void cuinit_errors(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.init_error = PF_CUDA_ERROR_NO_DEVICE;
	run(f, NULL);
	x = pf_test_finding(&f->res, "cuda");
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "CUDA_ERROR_NO_DEVICE"));
	pf_fake.init_error = PF_CUDA_ERROR_SYSTEM_NOT_READY;
	run(f, NULL);
	assert_non_null(strstr(pf_test_finding(&f->res, "cuda")->remedy, "nvidia-fabricmanager"));
	pf_fake.init_error = PF_CUDA_ERROR_STUB_LIBRARY;
	run(f, NULL);
	x = pf_test_finding(&f->res, "cuda");
	assert_int_equal(x->status, PF_STATUS_ERROR);
	assert_non_null(strstr(x->message, "stub"));
}

/*
 * The version file absent under a root: what else is recorded decides.  The
 * driver listing its GPUs, or a GPU bound to nvidia, proves it loaded (pass;
 * warn when min_driver cannot be judged); nothing recorded either way is a
 * skip naming what is missing; a root that records PCI driver links but none
 * for the GPUs fails them. 
 */
static void driver_not_loaded(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;
	char path[512];

	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/version", f->root);
	unlink(path);
	/* the driver lists its GPUs: loaded, version not recorded */
	run(f, NULL);
	x = pf_test_finding(&f->res, "driver");
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_non_null(strstr(x->message, "/proc/driver/nvidia/gpus lists 4 GPUs"));
	run(f, (const char *[]){ "gpu_inventory.min_driver=550.54.15", NULL });
	assert_int_equal(status_of(f, "driver"), PF_STATUS_WARN);
	assert_non_null(strstr(pf_test_finding(&f->res, "driver")->message, "min_driver"));
	/* no listing, but GPUs bound to nvidia: still proven */
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus", f->root);
	pf_test_rmtree(path);
	run(f, NULL);
	x = pf_test_finding(&f->res, "driver");
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_non_null(strstr(x->message, "GPU 0000:1b:00.0 is bound to nvidia"));
	/* nothing recorded either way (e.g. a topology export alone): skips, no fail */
	for (int i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver", f->root, BDFS[i]);
		unlink(path);
	}
	pf_fake.cuda_load = -ENOENT;
	pf_fake.nvml_load = -ENOENT;
	run(f, NULL);
	assert_int_equal(status_of(f, "driver"), PF_STATUS_SKIP);
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_SKIP);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:1b:00.0")->message,
			       "binding not recorded"));
	assert_int_not_equal(f->res.status, PF_STATUS_FAIL);
	/* the root records bindings (GPU 0 on vfio-pci): the unbound GPUs fail */
	pf_test_symlink(f->root, "sys/bus/pci/devices/0000:1b:00.0/driver",
			"../../../../bus/pci/drivers/vfio-pci");
	run(f, NULL);
	assert_int_equal(status_of(f, "0000:43:00.0"), PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:43:00.0")->message,
			       "no kernel driver bound"));
}

static void min_driver(void **state)
{
	struct pf_fake_fix *f = *state;

	run(f, (const char *[]){ "gpu_inventory.min_driver=550.127", NULL });
	assert_int_equal(status_of(f, "driver"), PF_STATUS_FAIL);
	run(f, (const char *[]){ "gpu_inventory.min_driver=550.54.15", NULL });
	assert_int_equal(status_of(f, "driver"), PF_STATUS_PASS);
	run(f, (const char *[]){ "gpu_inventory.min_driver=535.104", NULL });
	assert_int_equal(status_of(f, "driver"), PF_STATUS_PASS);
}

static void wrong_binding(void **state)
{
	struct pf_fake_fix *f = *state;
	char path[512];

	/* GPU 2: bound to vfio-pci, not initialised by nvidia; GPU 3: no driver */
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s", f->root, BDFS[2]);
	pf_test_rmtree(path);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/gpus/%s", f->root, BDFS[3]);
	pf_test_rmtree(path);
	pf_test_symlink(f->root, "sys/bus/pci/devices/0000:52:00.0/driver",
			"../../../../bus/pci/drivers/vfio-pci");
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver", f->root, BDFS[3]);
	unlink(path);
	pf_fake.n = 2;
	run(f, NULL);
	assert_int_equal(status_of(f, "0000:52:00.0"), PF_STATUS_FAIL); /* not visible to CUDA */
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:52:00.0")->message, "vfio-pci"));
	assert_int_equal(status_of(f, "0000:61:00.0"), PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:61:00.0")->message,
			       "no kernel driver bound"));
}

static void nvml_health(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.persistence[0] = 0;
	pf_fake.retired[1] = 100;
	pf_fake.remap_failure[2] = 1;
	pf_fake.remap_pending[3] = 1;
	run(f, NULL);
	x = pf_test_finding(&f->res, "0000:1b:00.0");
	assert_int_equal(x->status, PF_STATUS_WARN);
	assert_non_null(strstr(x->remedy, "nvidia-persistenced"));
	x = pf_test_finding(&f->res, "0000:43:00.0");
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "100 retired pages"));
	assert_int_equal(status_of(f, "0000:52:00.0"), PF_STATUS_FAIL);
	assert_int_equal(status_of(f, "0000:61:00.0"), PF_STATUS_WARN);
	/* thresholds are parameters */
	run(f, (const char *[]){ "gpu_inventory.max_retired_pages=200",
				 "gpu_inventory.require_persistence=false", NULL });
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_PASS);
	assert_int_equal(status_of(f, "0000:43:00.0"), PF_STATUS_PASS);
}

static void nvml_absent_or_mismatched(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake.nvml_load = -ENOENT;
	run(f, NULL);
	assert_int_equal(status_of(f, "nvml"), PF_STATUS_SKIP);
	assert_non_null(strstr(pf_test_finding(&f->res, "nvml")->message, "libnvidia-ml.so.1"));
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_fake.nvml_load = 0;
	snprintf(pf_fake.nvml_driver, sizeof(pf_fake.nvml_driver), "560.35.03");
	run(f, NULL);
	assert_int_equal(status_of(f, "nvml"), PF_STATUS_FAIL);
	pf_fake.nvml_init_error = PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH;
	run(f, NULL);
	assert_int_equal(status_of(f, "nvml"), PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_finding(&f->res, "nvml")->message, "mismatch"));
}

static void xids(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	/* uptime 7200 s: 7000 s is 0.06 h ago, 100 s is 1.97 h ago */
	pf_fake.kmsg =
		"6,100,100000000,-;NVRM: Xid (PCI:0000:43:00): 31, pid=1234, name=python, Ch 00000008\n"
		" SUBSYSTEM=pci\n"
		"3,101,7000000000,-;NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
		"3,102,7000100000,-;NVRM: GPU 0000:1b:00.0: GPU has fallen off the bus.\n"
		"3,103,7001000000,-;NVRM: Xid (PCI:0000:1b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n";
	run(f, NULL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	x = pf_test_finding(&f->res, "0000:1b:00.0/xid");
	assert_non_null(x);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "Xid 79 (GPU has fallen off the bus) x2"));
	x = pf_test_finding(&f->res, "0000:43:00.0/xid");
	assert_int_equal(x->status, PF_STATUS_WARN);
	assert_non_null(strstr(x->message, "GPU memory page fault"));
	assert_null(pf_test_finding(&f->res, "xid"));
	/* a 1 h window drops the Xid 31 from 1.97 h ago */
	run(f, (const char *[]){ "gpu_inventory.xid_window_h=1", NULL });
	assert_null(pf_test_finding(&f->res, "0000:43:00.0/xid"));
	assert_non_null(pf_test_finding(&f->res, "0000:1b:00.0/xid"));
	/* ignored and demoted */
	run(f, (const char *[]){ "gpu_inventory.xid_ignore=31", "gpu_inventory.xid_fail=48", NULL });
	assert_null(pf_test_finding(&f->res, "0000:43:00.0/xid"));
	assert_int_equal(status_of(f, "0000:1b:00.0/xid"), PF_STATUS_WARN);
}

/*
 * Xid 63/92 are the row remapper at work: a warning while NVML shows no
 * remap pending or failed (or cannot say), a failure when one is.
 */
static void xid_remap_events(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.kmsg =
		"4,100,7000000000,-;NVRM: Xid (PCI:0000:1b:00): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.\n"
		"4,101,7001000000,-;NVRM: Xid (PCI:0000:43:00): 92, pid=1, High single-bit ECC error rate\n"
		"4,102,7002000000,-;NVRM: Xid (PCI:0000:52:00): 63, pid=1, Row Remapper\n"
		"4,103,7003000000,-;NVRM: Xid (PCI:0000:61:00): 63, pid=1, Row Remapper\n";
	pf_fake.remap_pending[2] = 1;
	pf_fake.remap_failure[3] = 1;
	run(f, NULL);
	x = pf_test_finding(&f->res, "0000:1b:00.0/xid");
	assert_int_equal(x->status, PF_STATUS_WARN);
	assert_non_null(strstr(x->message, "no row remap pending or failed"));
	assert_int_equal(status_of(f, "0000:43:00.0/xid"), PF_STATUS_WARN);
	assert_int_equal(status_of(f, "0000:52:00.0/xid"), PF_STATUS_FAIL);
	assert_int_equal(status_of(f, "0000:61:00.0/xid"), PF_STATUS_FAIL);
	/* the healthy GPUs do not fail the node */
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_PASS);
	/* no NVML: the state is unknown, a warning that says so */
	pf_fake.nvml_load = -ENOENT;
	run(f, NULL);
	x = pf_test_finding(&f->res, "0000:52:00.0/xid");
	assert_int_equal(x->status, PF_STATUS_WARN);
	assert_non_null(strstr(x->message, "unknown"));
	/* a fatal Xid beside it still fails */
	pf_fake.kmsg = "4,100,7000000000,-;NVRM: Xid (PCI:0000:1b:00): 63, pid=1, Row Remapper\n"
		       "4,101,7000000001,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=1, GPU has fallen off the bus.\n";
	run(f, NULL);
	assert_int_equal(status_of(f, "0000:1b:00.0/xid"), PF_STATUS_FAIL);
}

static void kmsg_not_root(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake.kmsg = NULL;
	run(f, NULL);
	x = pf_test_finding(&f->res, "xid");
	assert_int_equal(x->status, PF_STATUS_SKIP);
	assert_non_null(strstr(x->message, "root"));
	assert_int_equal(f->res.status, PF_STATUS_PASS);
}

/* A recorded root: CUDA is not queried, Xids come from <root>/preflight/kmsg (dmesg form). */
static void recorded_root(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_test_write(f->root, "preflight/kmsg",
		      "[ 7100.123456] NVRM: Xid (PCI:0000:52:00): 48, pid=99, name=train, DBE (0x1) (0x2)\n");
	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_inventory", f->root, &pf_providers_recorded, &f->node.node, NULL,
			       &f->res);
	assert_int_equal(status_of(f, "cuda"), PF_STATUS_SKIP);
	assert_int_equal(status_of(f, "nvml"), PF_STATUS_SKIP);
	assert_int_equal(status_of(f, "0000:52:00.0/xid"), PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:52:00.0/xid")->message,
			       "double-bit ECC"));
	assert_int_equal(status_of(f, "0000:1b:00.0"), PF_STATUS_PASS);
	assert_non_null(strstr(pf_test_finding(&f->res, "0000:1b:00.0")->message, "H100"));
}

static void no_inventory_is_error(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_inventory", f->root, pf_fake_providers(), NULL, NULL, &f->res);
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
}

/*
 * The live GPU provider with no usable driver library (forced with
 * PF_CUDA_PATH/PF_NVML_PATH so the host does not matter): honest error and
 * skip findings naming the libraries, never a pass.
 */
static void live_provider_without_driver(void **state)
{
	struct pf_fake_fix *f = *state;
	struct pf_providers prov = pf_providers_recorded;
	const struct pf_finding *x;

	setenv("PF_CUDA_PATH", "/nonexistent/libcuda.so.1", 1);
	setenv("PF_NVML_PATH", "/nonexistent/libnvidia-ml.so.1", 1);
	setenv("PF_NCCL_PATH", "/nonexistent/libnccl.so.2", 1);
	prov.name = "live-gpu";
	prov.gpu = &pf_gpu_live;
	pf_result_release(&f->res);
	pf_test_run_check_node("gpu_inventory", f->root, &prov, &f->node.node, NULL, &f->res);
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
	x = pf_test_finding(&f->res, "cuda");
	assert_int_equal(x->status, PF_STATUS_ERROR);
	assert_non_null(strstr(x->message, "libcuda.so.1"));
	x = pf_test_finding(&f->res, "nvml");
	assert_int_equal(x->status, PF_STATUS_SKIP);
	assert_non_null(strstr(x->message, "libnvidia-ml.so.1"));
	/* the root has no dev/kmsg: the Xid scan says so */
	assert_int_equal(pf_test_finding(&f->res, "xid")->status, PF_STATUS_SKIP);

	pf_result_release(&f->res);
	pf_test_run_check_node("nccl_allreduce", f->root, &prov, &f->node.node, NULL, &f->res);
	assert_int_equal(f->res.status, PF_STATUS_ERROR);
	assert_true(pf_test_result_mentions(&f->res, "libcuda.so.1"));

	pf_result_release(&f->res);
	pf_test_run_check_node("nvidia_peermem", f->root, &prov, &f->node.node, NULL, &f->res);
	assert_int_not_equal(f->res.status, PF_STATUS_PASS);
	x = pf_test_finding(&f->res, "gpudirect_rdma");
	assert_string_equal(cJSON_GetObjectItem(x->observed, "dmabuf_cuda")->valuestring, "unknown");
}

/*
 * A real capture (IBM AC922, 6x V100; hwloc's tests): the GPU functions have
 * no sysfs vendor file, so the PCI inventory does not know them as NVIDIA,
 * but /proc/driver/nvidia/gpus lists all six.  The check must say so, not skip.
 */
static void shared_capture_driver_only(void **state)
{
	static const char tar[] = "fixtures/hwloc-linux/nvidiagpunumanodes.tar.bz2";
	pf_autofree char *tmp = NULL, *root = NULL;
	struct pf_node *node = NULL;
	struct pf_result res;
	struct pf_fs *fs = NULL;
	char *err = NULL;
	size_t warned = 0;

	(void)state;
	free(pf_test_shared_or_skip(tar)); /* before a temporary directory is made */
	tmp = pf_test_mkdtemp();
	root = pf_test_unpack_shared(tar, tmp, "nvidiagpunumanodes");
	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load_sysfs(fs, &node, &err), 0);
	pf_fs_free(fs);
	pf_test_run_check_node("gpu_inventory", root, &pf_providers_recorded, node, NULL, &res);
	assert_int_not_equal(res.status, PF_STATUS_SKIP);
	assert_int_not_equal(res.status, PF_STATUS_PASS);
	assert_non_null(pf_test_finding(&res, "pci"));
	assert_int_equal(pf_test_finding(&res, "pci")->status, PF_STATUS_WARN);
	for (size_t i = 0; i < res.n_findings; i++)
		if (res.findings[i].message &&
		    strstr(res.findings[i].message, "not identified as an NVIDIA GPU"))
			warned++;
	assert_int_equal(warned, 6);
	assert_non_null(pf_test_finding(&res, "0004:05:00.0"));
	assert_int_equal(pf_test_finding(&res, "cuda")->status, PF_STATUS_SKIP);
	pf_result_release(&res);
	pf_node_free(node);
	pf_test_rmtree(tmp);
}

/* The live /dev/kmsg reader returns the log or a reason, whatever the host allows. */
static void live_kmsg_reader(void **state)
{
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { 0 };
	char *text = NULL, *err = NULL;
	struct pf_xid *ev = NULL;
	size_t n = 0;
	int r;

	assert_int_equal(pf_fs_open("/", &fs), 0);
	ctx.fs = fs;
	r = pf_gpu_live_kmsg(&ctx, &text, &err);
	if (r < 0) {
		assert_non_null(err);
		print_message("live kmsg: %s\n", err);
	} else {
		assert_non_null(text);
		pf_parse_kmsg_xids(text, &ev, &n);
		print_message("live kmsg: %zu bytes, %zu Xid lines\n", strlen(text), n);
	}
	free(ev);
	free(text);
	free(err);
	pf_fs_free(fs);
}

static void xid_parser(void **state)
{
	struct pf_xid *ev = NULL;
	size_t n = 0;

	assert_int_equal(pf_parse_kmsg_xids(
		"Nov 23 08:00:01 gpu-047 kernel: NVRM: Xid (PCI:0000:3B:00): 119, pid=1, name=x, Timeout after 6s\n"
		"[  12.5] NVRM: Xid (PCI:0000:3b:00): 13, Graphics SM Warp Exception\n"
		"4,9,5000000,-;NVRM: Xid (0000:3b:00): 62, pid=2\n"
		"4,10,5000001,-;NVRM: Xid (PCI:0000:3b:00): notanumber\n"
		"4,11,5000002,-;nothing here\n", &ev, &n), 3);
	assert_int_equal(n, 3);
	assert_int_equal(ev[0].xid, 119);
	assert_string_equal(ev[0].pci, "0000:3b:00");
	assert_true(ev[0].t_s < 0);
	assert_int_equal(ev[1].xid, 13);
	assert_true(ev[1].t_s > 12.4 && ev[1].t_s < 12.6);
	assert_int_equal(ev[2].xid, 62);
	assert_true(ev[2].t_s > 4.9 && ev[2].t_s < 5.1);
	assert_true(pf_xid_matches_bdf("0000:3b:00", "0000:3b:00.0"));
	assert_false(pf_xid_matches_bdf("0000:3b:00", "0000:3b:01.0"));
	assert_true(pf_xid_matches_bdf("3b:00", "0000:3b:00.0"));
	assert_non_null(pf_xid_meaning(79));
	assert_null(pf_xid_meaning(99999));
	free(ev);
}

static void version_parsers(void **state)
{
	char v[32];
	bool open;
	int maj, min;

	assert_int_equal(pf_parse_nvidia_version(DRIVER_LINE, v, sizeof(v), &open), 0);
	assert_string_equal(v, "550.54.15");
	assert_false(open);
	assert_int_equal(pf_parse_nvidia_version(
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep 25 2025",
		v, sizeof(v), &open), 0);
	assert_string_equal(v, "580.95.05");
	assert_true(open);
	assert_int_equal(pf_parse_nvidia_version("garbage", v, sizeof(v), &open), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("6.8.0-45-generic", &maj, &min), 0);
	assert_int_equal(maj, 6);
	assert_int_equal(min, 8);
	assert_int_equal(pf_parse_kernel_release("5.14.0-427.el9.x86_64", &maj, &min), 0);
	assert_int_equal(min, 14);
	assert_int_equal(pf_parse_kernel_release("x", &maj, &min), -EINVAL);
	assert_true(pf_version_cmp("550.54.15", "550.127") < 0);
	assert_true(pf_version_cmp("560", "550.127.05") > 0);
	assert_int_equal(pf_version_cmp("550.54.15", "550.54.15"), 0);
	assert_true(pf_version_cmp("550.54", "550.54.1") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(healthy, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(no_gpu_skips, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(expected_count, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(count_mismatch, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(missing_libcuda, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(cuinit_errors, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(driver_not_loaded, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(min_driver, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(wrong_binding, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(nvml_health, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(nvml_absent_or_mismatched, setup,
						pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(xids, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(xid_remap_events, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(kmsg_not_root, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(recorded_root, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(no_inventory_is_error, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(live_provider_without_driver, setup,
						pf_fake_fix_teardown),
		cmocka_unit_test(shared_capture_driver_only),
		cmocka_unit_test(live_kmsg_reader),
		cmocka_unit_test(xid_parser),
		cmocka_unit_test(version_parsers),
		cmocka_unit_test_setup_teardown(min_cuda, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(min_cuda_recorded, setup, pf_fake_fix_teardown),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
