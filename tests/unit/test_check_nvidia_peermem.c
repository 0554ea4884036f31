// SPDX-License-Identifier: MIT
/*
 * test_check_nvidia_peermem.c - both GPUDirect RDMA paths, each alone,
 * neither, and the unknowns, over small roots and the fake tables.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "fake_verbs.h"

static const char *const BDFS[] = { "0000:1b:00.0", "0000:43:00.0" };

#define PROPRIETARY "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
#define OPEN "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep 25 2025\n"

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	pf_fake_gpu_reset(2, BDFS);
	/* the proprietary module: CUDA reports no DMA-BUF, as the real driver does */
	pf_fake.dmabuf[0] = pf_fake.dmabuf[1] = 0;
	pf_fake_node_init(&f->node, 2, BDFS, 1);
	pf_test_write(f->root, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	pf_test_write(f->root, "proc/driver/nvidia/version", PROPRIETARY);
	pf_test_write(f->root, "proc/modules",
		      "nvidia_uvm 4956160 0 - Live 0x0000000000000000 (POE)\n"
		      "nvidia 54312960 1 nvidia_uvm, Live 0x0000000000000000 (POE)\n");
	pf_test_write(f->root, "sys/module/nvidia/version", "550.54.15\n");
	*state = f;
	return 0;
}

static const struct pf_finding *run(struct pf_fake_fix *f, const struct pf_providers *prov,
				    const char *const *sets)
{
	static struct pf_providers node_fakes;
	const struct pf_finding *x;

	/* the fake libraries stand for the node's own (a capture is pf_providers_recorded) */
	if (prov != &pf_providers_recorded) {
		node_fakes = *(prov ? prov : pf_fake_providers());
		node_fakes.caps |= PF_PROV_NODE;
		prov = &node_fakes;
	}
	pf_result_release(&f->res);
	pf_test_run_check_node("nvidia_peermem", f->root, prov, &f->node.node, sets, &f->res);
	x = pf_test_finding(&f->res, "gpudirect_rdma");
	return x;
}

static const char *obs(const struct pf_finding *x, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(x->observed, key);

	return v ? v->valuestring : NULL;
}

/* The open kernel module, whose CUDA reports DMA-BUF support. */
static void open_module(struct pf_fake_fix *f)
{
	pf_test_write(f->root, "proc/driver/nvidia/version", OPEN);
	pf_fake.dmabuf[0] = pf_fake.dmabuf[1] = 1;
}

/* Proprietary module, no peermem: DMA-BUF is definitely out, so neither path. */
static void neither_fails_with_remedy(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x = run(f, NULL, NULL);

	assert_non_null(x);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_int_equal(f->res.status, PF_STATUS_FAIL);
	assert_string_equal(obs(x, "mode"), "none");
	assert_string_equal(obs(x, "dmabuf_open_module"), "no");
	assert_non_null(strstr(x->remedy, "modprobe nvidia_peermem"));
	assert_non_null(strstr(x->remedy, "/etc/modules-load.d/"));
	assert_non_null(strstr(x->message, "open one"));
}

static void peermem_sysfs(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "sys/module/nvidia_peermem/version", "550.54.15\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "mode"), "peermem");
	assert_non_null(strstr(x->message, "peermem"));
	assert_string_equal(obs(x, "peermem_version"), "550.54.15");
}

static void peermem_proc_modules(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "proc/modules",
		      "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)\n"
		      "nvidia 54312960 1 nvidia_peermem, Live 0x0000000000000000 (POE)\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "peermem_source"), "/proc/modules: nvidia_peermem");
}

static void legacy_memory_peers(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "sys/kernel/mm/memory_peers/nv_mem/version", "1.3-0\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "peermem_source"), "/sys/kernel/mm/memory_peers/nv_mem/version");
	assert_string_equal(obs(x, "peermem_version"), "1.3-0");
}

/* Open module, 6.8 kernel, CUDA attribute 1 on both GPUs, verbs symbol present. */
static void only_dmabuf(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	open_module(f);
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "mode"), "dmabuf");
	assert_non_null(strstr(x->message, "DMA-BUF"));
	assert_non_null(strstr(f->res.summary, "dmabuf"));
	/* one GPU without DMA-BUF support breaks that path */
	pf_fake.dmabuf[1] = 0;
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "0000:43:00.0"));
	pf_fake.dmabuf[1] = 1;
	/* an old libibverbs too */
	pf_fake.verbs_dmabuf = 0;
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_string_equal(obs(x, "dmabuf_ibverbs"), "no");
	pf_fake.verbs_dmabuf = 1;
}

/*
 * The kernel release is no gate (NCCL applies none): RHEL 8's 4.18 kernels
 * carry DMA-BUF MRs as a backport, and the probe and CUDA's attribute say
 * so.  This failed "older than 5.12" before.
 */
static void old_kernel_with_backport_passes(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	open_module(f);
	pf_test_write(f->root, "proc/sys/kernel/osrelease", "4.18.0-553.el8_10.x86_64\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "mode"), "dmabuf");
	assert_string_equal(obs(x, "dmabuf_kernel"), "no");
	/* where DMA-BUF is missing, the old kernel is named as a likely cause */
	pf_fake.verbs_dmabuf = 0;
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "older than 5.12"));
}

/*
 * NCCL's probe, errno for errno, over the fake device: ibv_reg_dmabuf_mr
 * with fd -1 answers EBADF where the provider and kernel can register
 * DMA-BUF (yes), EOPNOTSUPP from rdma-core's dummy op when the provider
 * lacks the verb or from a kernel driver without it, EPROTONOSUPPORT from a
 * kernel without the uverbs method (no).  The symbol alone said yes before.
 */
static void dmabuf_probe_errnos(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_providers *prov;
	struct pf_verbs_api no_sym = pf_fake_verbs_api;
	const struct pf_finding *x;
	char *why = NULL;

	pf_fake_verbs_reset(1, IBV_LINK_LAYER_INFINIBAND);
	prov = pf_fake_verbs_providers();
	open_module(f);
	x = run(f, prov, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "dmabuf_ibverbs"), "yes");
	assert_int_equal(pf_fake_verbs.live, 0);

	pf_fake_verbs.dmabuf = false; /* provider without the verb */
	x = run(f, prov, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_string_equal(obs(x, "dmabuf_ibverbs"), "no");
	assert_int_equal(pf_verbs_probe_dmabuf(&pf_fake_verbs_api, &why), 0);
	assert_non_null(strstr(why, "mlx5_0"));
	assert_non_null(strstr(why, "not supported"));
	free(why);
	why = NULL;

	pf_fake_verbs.dmabuf = true;
	pf_fake_verbs.dmabuf_kernel_errno = EPROTONOSUPPORT; /* kernel without the method */
	x = run(f, prov, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_string_equal(obs(x, "dmabuf_ibverbs"), "no");
	pf_fake_verbs.dmabuf_kernel_errno = EOPNOTSUPP; /* driver without reg_user_mr_dmabuf */
	x = run(f, prov, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	pf_fake_verbs.dmabuf_kernel_errno = 0;

	/* libibverbs older than v34: no symbol */
	no_sym.reg_dmabuf_mr = NULL;
	assert_int_equal(pf_verbs_probe_dmabuf(&no_sym, &why), 0);
	assert_non_null(strstr(why, "v34"));
	free(why);
	why = NULL;
	/* no device libibverbs can list: unknown, not no */
	pf_fake_verbs.list_errno = ENOSYS;
	assert_int_equal(pf_verbs_probe_dmabuf(&pf_fake_verbs_api, &why), -ENODEV);
	free(why);
	x = run(f, prov, NULL);
	assert_int_equal(x->status, PF_STATUS_ERROR);
	assert_int_equal(pf_fake_verbs.live, 0);
}

/* NCCL gates GPUDirect RDMA on CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED. */
static void gdr_attribute_gates(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "sys/module/nvidia_peermem/version", "550.54.15\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "gdr_supported"), "yes");
	pf_fake.gdr[1] = 0;
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
	assert_non_null(strstr(x->message, "GPU_DIRECT_RDMA_SUPPORTED 0 on 0000:43:00.0"));
	assert_string_equal(obs(x, "gdr_supported"), "no");
	/* recorded: the fact is a file; absent, it is no gate */
	x = run(f, &pf_providers_recorded, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "gdr_supported"), "unknown");
	pf_test_write(f->root, "preflight/cuda/gdr_supported", "0000:1b:00.0 1\n0000:43:00.0 0\n");
	x = run(f, &pf_providers_recorded, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
}

static void both_and_require(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	open_module(f);
	pf_test_write(f->root, "sys/module/nvidia_peermem/version", "580.95.05\n");
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "mode"), "both");
	x = run(f, NULL, (const char *[]){ "nvidia_peermem.require=both", NULL });
	assert_int_equal(x->status, PF_STATUS_PASS);
	/* peermem only, but DMA-BUF required */
	pf_test_write(f->root, "proc/driver/nvidia/version", PROPRIETARY);
	pf_fake.dmabuf[0] = pf_fake.dmabuf[1] = 0;
	x = run(f, NULL, (const char *[]){ "nvidia_peermem.require=dmabuf", NULL });
	assert_int_equal(x->status, PF_STATUS_FAIL);
	x = run(f, NULL, (const char *[]){ "nvidia_peermem.require=peermem", NULL });
	assert_int_equal(x->status, PF_STATUS_PASS);
	/* refused when the profile is built (exit 64), never reaches run() */
	pf_test_config_rejected("nvidia_peermem",
				(const char *const[]){ "nvidia_peermem.require=sometimes", NULL },
				"require");
}

/* Open module but libcuda missing: DMA-BUF unknown, no peermem -> error, not pass, not fail. */
static void unknown_is_error(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "proc/driver/nvidia/version", OPEN);
	pf_fake.cuda_load = -ENOENT;
	x = run(f, NULL, NULL);
	assert_int_equal(x->status, PF_STATUS_ERROR);
	assert_string_equal(obs(x, "dmabuf_cuda"), "unknown");
	assert_non_null(strstr(x->message, "libcuda.so.1"));
}

/* A recorded root carries the CUDA and libibverbs facts as files. */
static void recorded_dmabuf(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_test_write(f->root, "proc/driver/nvidia/version", OPEN);
	x = run(f, &pf_providers_recorded, NULL);
	/* facts not recorded: absent data is a skip naming them, never an error or a fail */
	assert_int_equal(x->status, PF_STATUS_SKIP);
	assert_non_null(strstr(x->message, "not recorded"));
	assert_non_null(strstr(x->message, "preflight/cuda/dmabuf_supported"));
	pf_test_write(f->root, "preflight/ibverbs/reg_dmabuf_mr", "1\n");
	pf_test_write(f->root, "preflight/cuda/dmabuf_supported",
		      "0000:1B:00.0 1\n0000:43:00.0 1\n");
	x = run(f, &pf_providers_recorded, NULL);
	assert_int_equal(x->status, PF_STATUS_PASS);
	assert_string_equal(obs(x, "mode"), "dmabuf");
	pf_test_write(f->root, "preflight/cuda/dmabuf_supported", "0\n");
	x = run(f, &pf_providers_recorded, NULL);
	assert_int_equal(x->status, PF_STATUS_FAIL);
}

static void skips(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_node_init(&f->node, 2, BDFS, 0);
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "no RDMA device"));
	pf_fake_node_init(&f->node, 0, BDFS, 1);
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "no NVIDIA GPU"));
}

/* The live probe, where libibverbs.so.1 is installed (no device here: -ENODEV). */
static void live_verbs_probe(void **state)
{
	char *err = NULL;
	int r = pf_gpu_live_verbs_dmabuf(NULL, &err);

	if (r == -ENOENT || r == -ENODEV) {
		print_message("skipped: %s\n", err ? err : strerror(-r));
		free(err);
		skip();
	}
	print_message("the RDMA devices register DMA-BUF: %s\n", r == 1 ? "yes" : "no");
	assert_true(r == 0 || r == 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(neither_fails_with_remedy, setup,
						pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(peermem_sysfs, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(peermem_proc_modules, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(legacy_memory_peers, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(only_dmabuf, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(old_kernel_with_backport_passes, setup,
						pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(dmabuf_probe_errnos, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(gdr_attribute_gates, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(both_and_require, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(unknown_is_error, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(recorded_dmabuf, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(skips, setup, pf_fake_fix_teardown),
		cmocka_unit_test(live_verbs_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
