// SPDX-License-Identifier: MIT
/*
 * test_check_nvlink_fabric.c - each rule of nvlink_fabric with the healthy
 * and the failing value of each field, over the fake NVML table (which
 * answers as the driver does: versioned struct, NOT_SUPPORTED on a GPU
 * without a fabric), the IMEX channel rule over recorded listings, the
 * recorded gpu_fabric file giving the live verdict, and the services behind
 * the fabric over recorded preflight/fabric/ facts: Fabric Manager on an
 * NVSwitch baseboard, IMEX and its node list in a domain, and the healthy
 * HGX H100, B200 and GB200 nodes none of which fails.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#define DRIVER "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release " \
	"Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n"
#define UNIT_ACTIVE "LoadState=loaded\nActiveState=active\nSubState=running\n"
#define UNIT_DEAD "LoadState=loaded\nActiveState=inactive\nSubState=dead\n"
#define UNIT_FAILED "LoadState=loaded\nActiveState=failed\nSubState=failed\n"
#define UNIT_STARTING "LoadState=loaded\nActiveState=activating\nSubState=start\n"
#define UNIT_NONE "LoadState=not-found\nActiveState=inactive\nSubState=dead\n"
#define FM_550 "Fabric Manager version is : 550.54.15\n"

/* Remove @rel under @root. */
static void rm_file(const char *root, const char *rel)
{
	char *path = pf_xasprintf("%s/%s", root, rel);

	assert_int_equal(unlink(path), 0);
	free(path);
}

/* An NVSwitch function (10de:22a3, class 0x0680) beside the GPUs: an HGX H100 baseboard. */
static void add_nvswitch(struct pf_fake_fix *f)
{
	struct pf_pci_dev *p = &f->node.pci[f->node.node.n_pci++];

	*p = f->node.pci[0];
	snprintf(p->bdf, sizeof(p->bdf), "0000:05:00.0");
	p->device = 0x22a3;
	p->class = 0x068000;
}

/* A healthy HGX: Fabric Manager active, of the driver's version. */
static void write_fm(struct pf_fake_fix *f, const char *unit, const char *version)
{
	pf_test_write(f->root, "proc/driver/nvidia/version", DRIVER);
	pf_test_write(f->root, "preflight/fabric/fabricmanager.unit", unit);
	pf_test_write(f->root, "preflight/fabric/fabricmanager.version", version);
}

static void test_fabric_manager(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	pf_fake_gpu_fabric_healthy();
	add_nvswitch(f);
	write_fm(f, UNIT_ACTIVE, FM_550);
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need_text(&f->res, "nvidia-fabricmanager", PF_STATUS_PASS, "active (running)");
	pf_test_need_text(&f->res, "nvidia-fabricmanager version", PF_STATUS_PASS, "550.54.15");
	assert_null(pf_test_finding(&f->res, "nvidia-imex")); /* no domain: IMEX not judged */
	/* stopped, failed: the NVSwitches are not configured */
	pf_test_write(f->root, "preflight/fabric/fabricmanager.unit", UNIT_DEAD);
	run(f, NULL, NULL);
	x = pf_test_need_text(&f->res, "nvidia-fabricmanager", PF_STATUS_FAIL, "inactive (dead)");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-012");
	pf_test_write(f->root, "preflight/fabric/fabricmanager.unit", UNIT_FAILED);
	run(f, NULL, NULL);
	pf_test_need_text(&f->res, "nvidia-fabricmanager", PF_STATUS_FAIL, "failed");
	/* starting: not yet a fault */
	pf_test_write(f->root, "preflight/fabric/fabricmanager.unit", UNIT_STARTING);
	run(f, NULL, NULL);
	x = pf_test_need(&f->res, "nvidia-fabricmanager", PF_STATUS_WARN);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-019");
	/* no unit: it may run in the GPU Operator's driver container */
	pf_test_write(f->root, "preflight/fabric/fabricmanager.unit", UNIT_NONE);
	run(f, NULL, NULL);
	pf_test_need_text(&f->res, "nvidia-fabricmanager", PF_STATUS_SKIP, "container");
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* a version other than the driver's */
	pf_test_write(f->root, "preflight/fabric/fabricmanager.version",
		      "Fabric Manager version is : 535.161.08\n");
	run(f, NULL, NULL);
	x = pf_test_need_text(&f->res, "nvidia-fabricmanager version", PF_STATUS_FAIL,
			      "535.161.08 on driver 550.54.15");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-013");
	/* absent facts: skips naming them */
	rm_file(f->root, "proc/driver/nvidia/version");
	run(f, NULL, NULL);
	pf_test_need_text(&f->res, "nvidia-fabricmanager version", PF_STATUS_SKIP,
			  "/proc/driver/nvidia/version");
	rm_file(f->root, "preflight/fabric/fabricmanager.version");
	rm_file(f->root, "preflight/fabric/fabricmanager.unit");
	run(f, NULL, NULL);
	pf_test_need_text(&f->res, "nvidia-fabricmanager", PF_STATUS_SKIP,
			  "preflight/fabric/fabricmanager.unit");
	pf_test_need_text(&f->res, "nvidia-fabricmanager version", PF_STATUS_SKIP, "not recorded");
}

/* Where Fabric Manager is not judged: GB200 trays, PCIe GPUs without NVSwitches. */
static void test_fabric_manager_not_judged(void **state)
{
	struct pf_fake_fix *f = *state;

	write_fm(f, UNIT_DEAD, "Fabric Manager version is : 535.161.08\n");
	run(f, NULL, NULL); /* PCIe GPUs: NOT_SUPPORTED, no NVSwitch */
	assert_null(pf_test_finding(&f->res, "nvidia-fabricmanager"));
	assert_int_equal(f->res.status, PF_STATUS_SKIP);
	pf_fake_gpu_fabric_healthy();
	f->node.pci[0].device = f->node.pci[1].device = 0x2941; /* GB200: the rack's trays */
	run(f, NULL, NULL);
	assert_null(pf_test_finding(&f->res, "nvidia-fabricmanager"));
	assert_int_equal(pf_test_must_find(&f->res, BDFS[0])->status, PF_STATUS_PASS);
}

#define IMEX_READY(me, peer_status) \
	"{\"nodes\": {\"0\": {\"status\": \"READY\", \"host\": \"10.0.0.1\", \"connections\": " \
	"{\"0\": {\"host\": \"10.0.0.1\", \"status\": \"CONNECTED\"}, \"1\": {\"host\": " \
	"\"10.0.0.2\", \"status\": \"" peer_status "\"}}, \"version\": \"580.95.05\"}, \"1\": " \
	"{\"status\": \"" me "\", \"host\": \"10.0.0.2\", \"connections\": {\"0\": {\"host\": " \
	"\"10.0.0.1\", \"status\": \"CONNECTED\"}}}}, \"status\": \"UP\"}"

static struct pf_netdev eth0 = { .name = (char *)"eth0", .rdma_dev = -1, .speed_mbps = -1,
				 .mtu = -1 };

/* A GB200 tray whose IMEX is healthy: this node is 10.0.0.2 (eth0) in a two-node domain. */
static void write_imex(struct pf_fake_fix *f)
{
	pf_fake_gpu_fabric_healthy();
	f->node.node.netdevs = &eth0;
	f->node.node.n_netdevs = 1;
	pf_test_write(f->root, "preflight/ip/eth0/addr",
		      "2: eth0    inet 10.0.0.2/24 brd 10.0.0.255 scope global eth0\n");
	pf_test_write(f->root, "preflight/fabric/imex.unit", UNIT_ACTIVE);
	pf_test_write(f->root, "preflight/fabric/imex.status.json", IMEX_READY("READY", "CONNECTED"));
	pf_test_write(f->root, "etc/nvidia-imex/nodes_config.cfg", "10.0.0.1\n10.0.0.2\n");
}

static void test_imex_service(void **state)
{
	struct pf_fake_fix *f = *state;
	const struct pf_finding *x;

	write_imex(f);
	run(f, NULL, NULL); /* not in a domain (HGX): IMEX is not judged */
	assert_null(pf_test_finding(&f->res, "nvidia-imex"));
	assert_null(pf_test_finding(&f->res, "nvidia-imex domain"));
	run(f, NULL, DOMAIN);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need(&f->res, "nvidia-imex", PF_STATUS_PASS);
	pf_test_need_text(&f->res, "nvidia-imex domain", PF_STATUS_PASS, "(10.0.0.2) READY");
	pf_test_need_text(&f->res, "/etc/nvidia-imex/nodes_config.cfg", PF_STATUS_PASS,
			  "this node's 10.0.0.2");
	/* the service stopped or failed */
	pf_test_write(f->root, "preflight/fabric/imex.unit", UNIT_FAILED);
	run(f, NULL, DOMAIN);
	x = pf_test_need(&f->res, "nvidia-imex", PF_STATUS_FAIL);
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-014");
	/* no unit: skip, never fail */
	pf_test_write(f->root, "preflight/fabric/imex.unit", UNIT_NONE);
	run(f, NULL, DOMAIN);
	pf_test_need(&f->res, "nvidia-imex", PF_STATUS_SKIP);
	/* this node's instance not READY; a peer not connected */
	pf_test_write(f->root, "preflight/fabric/imex.status.json",
		      IMEX_READY("WAITING_FOR_PEERS", "CONNECTED"));
	run(f, NULL, DOMAIN);
	x = pf_test_need_text(&f->res, "nvidia-imex domain", PF_STATUS_FAIL, "WAITING_FOR_PEERS");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-015");
	pf_test_write(f->root, "preflight/ip/eth0/addr",
		      "2: eth0    inet 10.0.0.1/24 brd 10.0.0.255 scope global eth0\n");
	pf_test_write(f->root, "preflight/fabric/imex.status.json", IMEX_READY("READY", "INVALID"));
	run(f, NULL, DOMAIN);
	x = pf_test_need_text(&f->res, "nvidia-imex domain", PF_STATUS_WARN, "10.0.0.2 INVALID");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-016");
	/* this node's entry unknown (no address known): the domain's status decides */
	f->node.node.n_netdevs = 0;
	pf_test_write(f->root, "preflight/fabric/imex.status.json", IMEX_READY("READY", "CONNECTED"));
	run(f, NULL, DOMAIN);
	pf_test_need_text(&f->res, "nvidia-imex domain", PF_STATUS_PASS, "domain UP");
	/* the command service off (the tool failed): not recorded, a skip */
	rm_file(f->root, "preflight/fabric/imex.status.json");
	run(f, NULL, DOMAIN);
	pf_test_need_text(&f->res, "nvidia-imex domain", PF_STATUS_SKIP, "not recorded");
	pf_test_write(f->root, "preflight/fabric/imex.status.json", "Connection refused\n");
	run(f, NULL, DOMAIN);
	pf_test_need(&f->res, "nvidia-imex domain", PF_STATUS_SKIP);
}

static void test_imex_nodes_config(void **state)
{
	struct pf_fake_fix *f = *state;
	const char *path = "/etc/nvidia-imex/nodes_config.cfg";
	const struct pf_finding *x;

	write_imex(f);
	/* absent, with IMEX installed */
	rm_file(f->root, "etc/nvidia-imex/nodes_config.cfg");
	run(f, NULL, DOMAIN);
	x = pf_test_need_text(&f->res, path, PF_STATUS_FAIL, "absent");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-017");
	pf_test_write(f->root, "etc/nvidia-imex/nodes_config.cfg", "# to be filled\n");
	run(f, NULL, DOMAIN);
	pf_test_need_text(&f->res, path, PF_STATUS_FAIL, "lists no IP address");
	/* a line that is no address; not this node's */
	pf_test_write(f->root, "etc/nvidia-imex/nodes_config.cfg", "10.0.0.2\ntray-3\n");
	run(f, NULL, DOMAIN);
	x = pf_test_need_text(&f->res, path, PF_STATUS_WARN, "line 2");
	assert_string_equal(x->code, "PF-NVLINK-FABRIC-018");
	pf_test_write(f->root, "etc/nvidia-imex/nodes_config.cfg", "10.0.0.1\n10.0.0.3\n");
	run(f, NULL, DOMAIN);
	pf_test_need_text(&f->res, path, PF_STATUS_WARN, "none of this node's");
	/* the file config.cfg names is the one read */
	pf_test_write(f->root, "etc/nvidia-imex/config.cfg",
		      "SERVER_PORT=50000\nIMEX_NODE_CONFIG_FILE=/shared/imex/nodes.cfg\n");
	pf_test_write(f->root, "shared/imex/nodes.cfg", "10.0.0.2\n");
	run(f, NULL, DOMAIN);
	pf_test_need(&f->res, "/shared/imex/nodes.cfg", PF_STATUS_PASS);
	assert_null(pf_test_finding(&f->res, path));
	/* no trace of IMEX at all: a skip */
	rm_file(f->root, "etc/nvidia-imex/config.cfg");
	rm_file(f->root, "etc/nvidia-imex/nodes_config.cfg");
	rm_file(f->root, "preflight/fabric/imex.unit");
	run(f, NULL, DOMAIN);
	pf_test_need_text(&f->res, path, PF_STATUS_SKIP, "not installed");
}

/*
 * The healthy nodes of issue 33: an HGX H100 without MNNVL, a B200 without
 * IMEX, a GB200 tray with every field healthy: none fails.
 */
static void test_healthy_nodes(void **state)
{
	struct pf_fake_fix *f = *state;

	/* HGX H100: NVSwitches, Fabric Manager, clique and cluster zero, IMEX absent or down */
	pf_fake_gpu_fabric_healthy();
	for (int i = 0; i < 2; i++) {
		pf_fake.fabric[i].clique_id = 0;
		memset(pf_fake.fabric[i].cluster_uuid, 0, PF_NVML_GPU_FABRIC_UUID_LEN);
	}
	add_nvswitch(f);
	write_fm(f, UNIT_ACTIVE, FM_550);
	pf_test_write(f->root, "preflight/fabric/imex.unit", UNIT_FAILED);
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* B200 (10de:2901): the same, no IMEX installed at all */
	f->node.pci[0].device = f->node.pci[1].device = 0x2901;
	rm_file(f->root, "preflight/fabric/imex.unit");
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	/* GB200 tray: a clique of a cluster, IMEX up, no Fabric Manager of its own */
	f->node.node.n_pci = 2;
	rm_file(f->root, "preflight/fabric/fabricmanager.unit");
	f->node.pci[0].device = f->node.pci[1].device = 0x2941;
	write_imex(f);
	pf_fake.fabric[0].clique_id = pf_fake.fabric[1].clique_id = 32766;
	run(f, NULL, NULL);
	assert_int_equal(f->res.status, PF_STATUS_PASS);
	pf_test_need(&f->res, "nvidia-imex domain", PF_STATUS_PASS);
	pf_test_need(&f->res, "/dev/nvidia-caps-imex-channels", PF_STATUS_PASS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_supported_is_skip, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_healthy_passes, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_state_not_completed, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_status_error, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_clique_zero, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_fabric_manager, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_fabric_manager_not_judged, setup,
						pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_imex_service, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_imex_nodes_config, setup, pf_fake_fix_teardown),
		cmocka_unit_test_setup_teardown(test_healthy_nodes, setup, pf_fake_fix_teardown),
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
