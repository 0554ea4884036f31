// SPDX-License-Identifier: MIT
/*
 * test_check_nvlink_fabric.c - each rule of nvlink_fabric with the healthy
 * and the failing value of each field, over the fake NVML table (which
 * answers as the driver does: versioned struct, NOT_SUPPORTED on a GPU
 * without a fabric), the IMEX channel rule over recorded listings, and the
 * recorded gpu_fabric file giving the live verdict.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "preflight/gpu_fabric.h"

static const char *const BDFS[] = { "0000:1b:00.0", "0000:43:00.0" };
static const char *const DOMAIN[] = { "nvlink_fabric.require_domain=true", NULL };

#define CHANNEL_OK "crw-rw-rw- 1 0 0 234, 0 Jan  1 00:00 channel0\n"
#define CHANNEL_ROOT "crw------- 1 0 0 234, 0 Jan  1 00:00 channel0\n"

static int setup(void **state)
{
	struct pf_fake_fix *f = pf_fake_fix_new();

	pf_fake_gpu_reset(2, BDFS);
	pf_fake_node_init(&f->node, 2, BDFS, 0);
	pf_test_write(f->root, "preflight/job_user", "uid=1000\nuser=alice\ngids=1000\n");
	pf_test_write(f->root, "preflight/ls/dev/nvidia-caps-imex-channels", CHANNEL_OK);
	*state = f;
	return 0;
}

static void run(struct pf_fake_fix *f, const struct pf_providers *prov, const char *const *sets)
{
	pf_result_release(&f->res);
	pf_test_run_check_node("nvlink_fabric", f->root, prov ? prov : pf_fake_providers(),
			       &f->node.node, sets, &f->res);
}

static const struct pf_finding *gpu0(struct pf_fake_fix *f)
{
	return pf_test_must_find(&f->res, BDFS[0]);
}

/* GPUs without a fabric (PCIe, or NVML says so): a skip naming the query, never a fail. */
static void test_not_supported_is_skip(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	run(f, NULL, NULL);
	x = pf_test_need(&f->res, BDFS[0], PF_STATUS_SKIP);
	assert_non_null(strstr(x->message, "nvmlDeviceGetGpuFabricInfoV"));
	assert_non_null(strstr(x->message, "NOT_SUPPORTED"));
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->res.summary, "no NVLink fabric"));
	/* no domain expected: the IMEX channels are not judged */
	assert_null(pf_test_finding(&f->res, "/dev/nvidia-caps-imex-channels"));
}

static void test_healthy_passes(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need(&f->res, BDFS[1], PF_STATUS_PASS);
	run(f, NULL, DOMAIN);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need(&f->res, "/dev/nvidia-caps-imex-channels", PF_STATUS_PASS);
}

static void test_state_not_completed(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].state = PF_NVML_GPU_FABRIC_STATE_IN_PROGRESS;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
	assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-001");
	assert_non_null(strstr(gpu0(f)->message, "in progress"));
	pf_test_need(&f->res, BDFS[1], PF_STATUS_PASS);
	pf_fake.fabric[0].state = PF_NVML_GPU_FABRIC_STATE_NOT_STARTED;
	run(f, NULL, NULL);
	assert_non_null(strstr(gpu0(f)->message, "not started"));
}

/* Azure/azhpc-images PR #506: "Insufficient Resources" with clique 0. */
static void test_status_error(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].status = 23;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
	assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-002");
	assert_non_null(strstr(gpu0(f)->message, "NVML_ERROR_INSUFFICIENT_RESOURCES"));
}

static void test_clique_zero(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].clique_id = 0;
	run(f, NULL, NULL); /* an HGX node outside any multi-node domain: not required */
	assert_int_equal(gpu0(f)->status, PF_STATUS_PASS);
	run(f, NULL, DOMAIN);
	assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
	assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-003");
	assert_non_null(strstr(gpu0(f)->message, "clique ID 0"));
}

static void test_cluster_uuid_zero(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	memset(pf_fake.fabric[1].cluster_uuid, 0, PF_NVML_GPU_FABRIC_UUID_LEN);
	run(f, NULL, DOMAIN);
	assert_int_equal(pf_test_must_find(&f->res, BDFS[1])->status, PF_STATUS_FAIL);
	assert_non_null(strstr(pf_test_must_find(&f->res, BDFS[1])->message, "cluster UUID"));
	/* a leading zero byte is not a zero UUID */
	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].cluster_uuid[0] = pf_fake.fabric[1].cluster_uuid[0] = 0;
	run(f, NULL, DOMAIN);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
}

/* A GB200 GPU (device 2941) implies a domain without the profile saying so. */
static void test_gb200_implies_domain(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].clique_id = 0;
	f->node.pci[0].device = 0x2941;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
	/* and a GB200 whose NVML says NOT_SUPPORTED fails */
	pf_fake.fabric_rc[0] = PF_NVML_ERROR_NOT_SUPPORTED;
	run(f, NULL, NULL);
	assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-007");
}

static void test_split_domain(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[1].clique_id = 2;
	run(f, NULL, DOMAIN);
	assert_string_equal(pf_test_must_find(&f->res, BDFS[1])->code, "PF-NVLINK-FABRIC-004");
}

/* Each health-mask field with its failing value, and 0xaa (all four "false") healthy. */
static void test_health_mask(void **state)
{
	static const struct {
		unsigned int mask;
		const char *named;
	} bad[] = {
		{ 0x1a9, "bandwidth degraded" },
		{ 0x1a6, "route recovery in progress" },
		{ 0x19a, "route unhealthy" },
		{ 0x16a, "access-timeout recovery in progress" },
		{ 0x5aa, "insufficient NVLinks" },
		{ 0x2aa, "system GUID" },
		{ 0x21aa, "no partition assigned" },
	};
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].health_mask = 0xaa; /* NVIDIA/nccl#2186's mask */
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_PASS);
	pf_fake.fabric[0].health_mask = 0x11aa; /* partition assigned */
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_PASS);
	for (size_t i = 0; i < PF_ARRAY_SIZE(bad); i++) {
		pf_fake.fabric[0].health_mask = bad[i].mask;
		run(f, NULL, NULL);
		assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
		assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-005");
		if (!strstr(gpu0(f)->message, bad[i].named))
			fail_msg("0x%x: '%s' lacks '%s'", bad[i].mask, gpu0(f)->message,
				 bad[i].named);
	}
}

static void test_health_summary(void **state)
{
	struct pf_fake_fix *f = *state;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[0].health_summary = PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_FAIL);
	pf_fake.fabric[0].health_summary = PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_WARN);
	assert_string_equal(gpu0(f)->code, "PF-NVLINK-FABRIC-006");
}

/* A driver that knows only v2 (535): asked again with v2, no summary. */
static void test_v2_driver_and_no_symbol(void **state)
{
	struct pf_fake_fix *f = *state;
	const cJSON *v;

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric_max_version = 2;
	pf_fake.fabric[0].health_summary = PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_PASS); /* v2 has no summary to read */
	v = cJSON_GetObjectItem(gpu0(f)->observed, "struct_version");
	assert_non_null(v);
	assert_int_equal(v->valueint, 2);
	pf_fake.no_fabric_sym = true;
	run(f, NULL, NULL);
	assert_int_equal(gpu0(f)->status, PF_STATUS_SKIP);
	assert_non_null(strstr(gpu0(f)->message, "nvmlDeviceGetGpuFabricInfoV"));
}

static void test_imex_channels(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake_gpu_fabric_healthy();
	pf_test_write(f->root, "preflight/ls/dev/nvidia-caps-imex-channels", "");
	run(f, NULL, DOMAIN);
	x = pf_test_need(&f->res, "/dev/nvidia-caps-imex-channels", PF_STATUS_FAIL);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-008");
	pf_test_write(f->root, "preflight/ls/dev/nvidia-caps-imex-channels", CHANNEL_ROOT);
	run(f, NULL, DOMAIN);
	x = pf_test_need(&f->res, "/dev/nvidia-caps-imex-channels", PF_STATUS_FAIL);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-009");
	assert_non_null(strstr(x->message, "uid 1000"));
}

/* The fabric-handle probe: attribute 0, an import refused, healthy; no handle leaks. */
static void test_fabric_handle_probe(void **state)
{
	struct pf_fake_fix *f = *state;
	const char *subj = "0000:1b:00.0 fabric handle";
	const struct pf_finding *x;

	pf_fake_gpu_fabric_healthy();
	run(f, NULL, DOMAIN);
	pf_test_need(&f->res, subj, PF_STATUS_PASS);
	assert_int_equal(pf_fake.mem_handles, 0);
	run(f, NULL, NULL); /* outside a domain (an H100 reports the attribute too): not run */
	assert_null(pf_test_finding(&f->res, subj));
	pf_fake.fabric_import_error = PF_CUDA_ERROR_NOT_PERMITTED;
	run(f, NULL, DOMAIN);
	x = pf_test_need(&f->res, subj, PF_STATUS_FAIL);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-011");
	assert_non_null(strstr(x->message, "cuMemImportFromShareableHandle"));
	assert_non_null(strstr(x->message, "CUDA_ERROR_NOT_PERMITTED"));
	assert_int_equal(pf_fake.mem_handles, 0);
	pf_fake.fabric_import_error = 0;
	pf_fake.fabric_handle[0] = 0;
	run(f, NULL, DOMAIN);
	x = pf_test_need(&f->res, subj, PF_STATUS_FAIL);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-010");
	/* a GPU whose registration has not completed is judged by that alone */
	pf_fake.fabric[0].state = PF_NVML_GPU_FABRIC_STATE_IN_PROGRESS;
	run(f, NULL, DOMAIN);
	assert_null(pf_test_finding(&f->res, subj));
}

/* The recorded file, as the snapshot writes it, gives the verdict the fake NVML gave. */
static void test_recorded_same_verdict(void **state)
{
	struct pf_fake_fix *f = *state;
	struct pf_gpu_fabric fab = { 0 };
	char line[2][PF_GPU_FABRIC_LINE_MAX], *text;
	enum pf_status live[2];

	pf_fake_gpu_fabric_healthy();
	pf_fake.fabric[1].clique_id = 0;
	run(f, NULL, DOMAIN);
	for (int i = 0; i < 2; i++) {
		char *why = NULL;
		struct pf_ctx ctx = { .prov = pf_fake_providers() };

		assert_int_equal(pf_gpu_live_fabric(&ctx, BDFS[i], &fab, &why), 0);
		pf_gpu_fabric_format(BDFS[i], &fab, line[i], sizeof(line[i]));
		live[i] = pf_test_must_find(&f->res, BDFS[i])->status;
	}
	text = pf_xasprintf("%s\n%s\n", line[0], line[1]);
	pf_test_write(f->root, "preflight/nvml/gpu_fabric", text);
	free(text);
	run(f, &pf_providers_recorded, DOMAIN);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pf_test_must_find(&f->res, BDFS[i])->status, live[i]);
	assert_int_equal(live[0], PF_STATUS_PASS);
	assert_int_equal(live[1], PF_STATUS_FAIL);
}

static void test_format_parse(void **state)
{
	struct pf_gpu_fabric a = { .supported = true, .version = 3, .state = 3, .status = 23,
				   .clique_id = 32766, .health_mask = 0xaa, .health_summary = 3 };
	struct pf_gpu_fabric b;
	char line[PF_GPU_FABRIC_LINE_MAX];

	(void)state;
	a.cluster_uuid[15] = 0x7f;
	pf_gpu_fabric_format("0000:1b:00.0", &a, line, sizeof(line));
	assert_int_equal(pf_parse_gpu_fabric(line, "0000:1b:00.0", &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(pf_parse_gpu_fabric(line, "0000:43:00.0", &b), -ENOENT);
	assert_int_equal(pf_parse_gpu_fabric("0000:1b:00.0 not_supported\n", "0000:1b:00.0", &b), 0);
	assert_false(b.supported);
	assert_int_equal(pf_parse_gpu_fabric("0000:1b:00.0 v3 state=3\n", "0000:1b:00.0", &b),
			 -EINVAL);
	assert_int_equal(pf_parse_gpu_fabric("0000:1b:00.0 v2 state=3 status=0 clique=1 "
					     "cluster=zz health=0x0\n", "0000:1b:00.0", &b),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_supported_is_skip, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_healthy_passes, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_state_not_completed, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_status_error, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_clique_zero, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_cluster_uuid_zero, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_gb200_implies_domain, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_split_domain, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_health_mask, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_health_summary, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_v2_driver_and_no_symbol, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_imex_channels, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_fabric_handle_probe, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_recorded_same_verdict, setup, pf_fake_fix_teardown),
		cmocka_unit_test(test_format_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
