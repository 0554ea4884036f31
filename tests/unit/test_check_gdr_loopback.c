// SPDX-License-Identifier: MIT
/*
 * test_check_gdr_loopback.c - the gdr_loopback check on generated roots
 * (tests/gen_root.py) with the software verbs device and the fake CUDA:
 * pairing, verdict rules, counters, RoCE GIDs from sysfs, skips and errors.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "fake_verbs.h"
#include "rdma_roots.h"
#include "preflight/rdma_select.h"
#include "registry.h"
#include "testutil.h"

static char gpus[8][16];
static const char *gpu_ptrs[8];
static int n_gpus;
static char *counter_file;

/* The NVIDIA GPUs gen_root.py wrote, in directory order. */
static void scan_gpus(const char *root)
{
	char dir[512];
	struct dirent **ents;
	int n;

	snprintf(dir, sizeof(dir), "%s/sys/bus/pci/devices", root);
	n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n > 0);
	n_gpus = 0;
	for (int i = 0; i < n; i++) {
		char path[1024], buf[16] = "";
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/vendor", dir, ents[i]->d_name);
		f = fopen(path, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = '\0';
			fclose(f);
		}
		if (strncmp(buf, "0x10de", 6) == 0 && n_gpus < 8) {
			snprintf(gpus[n_gpus], sizeof(gpus[0]), "%.15s", ents[i]->d_name);
			gpu_ptrs[n_gpus] = gpus[n_gpus];
			n_gpus++;
		}
		free(ents[i]);
	}
	free(ents);
}

/* A generated node with the fake verbs device and CUDA set up to match. */
static char *setup(const char *args, int n_nics, uint8_t ll)
{
	char *root = pf_test_gen_root(args);

	scan_gpus(root);
	pf_fake_gpu_reset(n_gpus, gpu_ptrs);
	pf_fake_verbs_reset(n_nics, ll);
	return root;
}

static void teardown(char *root)
{
	pf_test_rmtree(root);
	free(root);
}

/* Small, fast runs: the fake's clock is virtual, but the memcpy is real. */
#define FAST "gdr_loopback.msg_size=65536", "gdr_loopback.iterations=500", \
	     "gdr_loopback.warmup=50"

static void run(const char *root, const char *const *sets, struct pf_result *res)
{
	pf_result_init(res);
	pf_test_run_check("gdr_loopback", root, pf_fake_verbs_providers(), sets, res);
}

static double obs_num(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static const char *obs_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static void test_pass(void **state)
{
	char *root = setup("--gpus 2 --nics 2", 2, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.devs[0].gbps = pf_fake_verbs.devs[1].gbps = 392;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_float_equal(obs_num(f, "gbps"), 392, 0.05);
	assert_float_equal(obs_num(f, "port_rate_gbps"), 400, 0.001);
	assert_string_equal(obs_str(f, "registration"), "host");
	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "registration"), "peermem");
	snprintf(subject, sizeof(subject), "%s -> mlx5_1/1", gpus[1]);
	assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1 counters")->status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "2 ports, 2 GPU pairs"));
	assert_int_equal(pf_fake_verbs.live, 0);
	assert_int_equal(pf_fake.allocs, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_host_thresholds(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.use_gpu=false", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	/* 0.93 of 400: below the 0.95 warning line */
	pf_fake_verbs.devs[0].gbps = 372;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(f->remedy);
	assert_int_equal(res.n_findings, 2); /* no GPU run: host and counters */
	pf_result_release(&res);

	/* 0.875 of 400: below 0.90 */
	pf_fake_verbs.devs[0].gbps = 350;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "below 90%"));
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* the profile moves the line */
	{
		const char *lax[] = { FAST, "gdr_loopback.use_gpu=false",
				      "gdr_loopback.host_min_fraction=0.8",
				      "gdr_loopback.host_warn_fraction=0.85", NULL };

		run(root, lax, &res);
		assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
		pf_result_release(&res);
	}
	teardown(root);
}

static void test_gpu_threshold(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	pf_fake_verbs.devs[0].gbps = 396;
	pf_fake_verbs.devs[0].gpu_gbps = 0.85 * 396;
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_float_equal(obs_num(f, "reference_gbps"), 396, 0.05);
	assert_non_null(strstr(f->message, "of host memory"));
	pf_result_release(&res);

	pf_fake_verbs.devs[0].gpu_gbps = 0.92 * 396;
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* no peermem: DMA-BUF, reported */
	pf_fake_verbs.peermem = false;
	run(root, sets, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "registration"), "dmabuf");
	assert_non_null(strstr(obs_str(f, "note"), "peermem"));
	pf_result_release(&res);

	/* neither: the pair fails with a remedy naming both paths */
	pf_fake_verbs.dmabuf = false;
	run(root, sets, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->remedy, "nvidia-peermem"));
	assert_int_equal(pf_fake.allocs, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_corruption_fails(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.corrupt_offset = 4096;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "byte 4096"));
	assert_string_equal(obs_str(f, "stage"), "verify");
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);
}

/*
 * Every WRITE target is verified: a NIC that corrupts only data landing in
 * one middle slot fails the node (one target per run used to hide it).
 */
static void test_middle_slot_corruption_fails(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.use_gpu=false", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.corrupt_mr_offset = 3 * 65536 + 5;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "stage"), "verify");
	assert_int_equal(obs_num(f, "bad_slot"), 3);
	assert_non_null(strstr(f->message, "byte 5 of 65536 in slot 3"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * The node's page size comes from the providers (recorded here as
 * preflight/page_size): on a 64 KiB-page kernel the DMA-BUF export covers
 * 64 KiB-aligned ranges and the pair passes.
 */
static void test_dmabuf_node_page_size(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.msg_size=100000",
			       "gdr_loopback.gpu_reg=dmabuf", NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_write(root, "preflight/page_size", "65536\n");
	pf_fake_verbs.page_size = 65536;
	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	run(root, sets, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "registration"), "dmabuf");
	assert_int_equal(obs_num(f, "page_size"), 65536);
	assert_int_equal(pf_fake_verbs.export_dptr % 65536, 0);
	assert_int_equal(pf_fake_verbs.export_size % 65536, 0);
	assert_int_equal(pf_fake.allocs, 0);
	pf_result_release(&res);
	teardown(root);
}

/*
 * NCCL uses GPUDirect RDMA only up to NCCL_NET_GDR_LEVEL (PXB by default,
 * src/graph/paths.cc): a GPU whose nearest NIC is across the socket (SYS)
 * is measured and reported, not held to 0.9x of the host figure, while the
 * PIX pair still is.  Both failed before.
 */
static void test_far_pair_not_judged(void **state)
{
	char *root = setup("--gpus 2 --nics 2 --nic-wrong-socket mlx5_1", 2,
			   IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *sets_sys[] = { FAST, "gdr_loopback.gdr_level=SYS", NULL };
	char near[64], far[64];
	struct pf_result res;
	const struct pf_finding *f;

	snprintf(near, sizeof(near), "%s -> mlx5_0/1", gpus[0]);
	snprintf(far, sizeof(far), "%s -> mlx5_1/1", gpus[1]);
	pf_fake_verbs.devs[0].gpu_gbps = pf_fake_verbs.devs[1].gpu_gbps = 200;
	run(root, sets, &res);
	f = pf_test_must_find(&res, near);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "path"), "PIX");
	f = pf_test_must_find(&res, far);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "not judged"));
	assert_non_null(strstr(f->message, "SYS"));
	assert_non_null(strstr(f->message, "NCCL_NET_GDR_LEVEL PXB"));
	assert_float_equal(obs_num(f, "gbps"), 200, 0.5);
	assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f->observed, "judged")));
	pf_result_release(&res);

	/* an operator who runs NCCL_NET_GDR_LEVEL=SYS judges it */
	run(root, sets_sys, &res);
	assert_int_equal(pf_test_must_find(&res, far)->status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* an unregistrable GPU buffer on the far pair is not a fault NCCL would meet */
	pf_fake_verbs.peermem = pf_fake_verbs.dmabuf = false;
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, near)->status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, far);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "not registered"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * Grace (C2C): NCCL >= 2.27 uses GPUDirect RDMA up to P2C, a NIC on the
 * GPU's own CPU.  With gdr_level=P2C such a pair (NODE, same NUMA node) is
 * judged; the default (PXB) reports it.
 */
static void test_p2c_level(void **state)
{
	char *root = setup("--gpus 2 --nics 0 --storage-nic", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *sets_p2c[] = { FAST, "gdr_loopback.gdr_level=P2C", NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	pf_fake_verbs.devs[0].gpu_gbps = 100;
	run(root, sets, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "NODE"));
	pf_result_release(&res);
	run(root, sets_p2c, &res);
	assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);
}

/*
 * A Grace superchip's GPU (GH200) and a NIC on its own CPU are P2C, and NCCL
 * 2.27 uses GPUDirect RDMA there by default (NCCL_NET_GDR_C2C): gdr_level=auto
 * judges the pair, so a slow GPU run fails.  Before, auto meant PXB and the
 * pair was reported, not judged.
 */
static void test_grace_auto_is_p2c(void **state)
{
	char *root = setup("--grace --gpus 2 --nics 2", 2, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *sets_pxb[] = { FAST, "gdr_loopback.gdr_level=PXB", NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	/* gen_root --grace: the first GH200 below its own Grace root port, bus 0x13 */
	snprintf(subject, sizeof(subject), "0000:13:00.0 -> mlx5_0/1");
	pf_fake_verbs.devs[0].gpu_gbps = pf_fake_verbs.devs[1].gpu_gbps = 100;
	run(root, sets, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	run(root, sets_pxb, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "not judged"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * A Broadcom two-level switch (PEX88000, DGX A100) is one switch to NCCL
 * (ncclTopoFlattenBcmSwitches): GPU and NIC below two of its sub-switches
 * are PIX, so gdr_level=PIX judges the pair.  Sysfs alone says PXB, and the
 * pair was reported, not judged, before.
 */
static void test_bcm_switch_is_pix(void **state)
{
	char *root = setup("--gpus 2 --nics 2 --gpus-per-switch 2 --pcie-switch broadcom", 2,
			   IBV_LINK_LAYER_INFINIBAND);
	const char *sets_pix[] = { FAST, "gdr_loopback.gdr_level=PIX", NULL };
	char subject[64];
	struct pf_result res;
	const struct pf_finding *f;

	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	pf_fake_verbs.devs[0].gpu_gbps = pf_fake_verbs.devs[1].gpu_gbps = 200;
	run(root, sets_pix, &res);
	f = pf_test_must_find(&res, subject);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "path"), "PIX");
	pf_result_release(&res);
	teardown(root);
}

/* plan_default pairs GPUs only with the `nics` list, and never with a VF. */
static void test_nics_filter_and_vf(void **state)
{
	char *root = setup("--gpus 2 --nics 1 --storage-nic", 2, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.nics=mlx5_0", NULL };
	const char *plain[] = { FAST, NULL };
	struct pf_result res;

	run(root, sets, &res);
	for (size_t i = 0; i < res.n_findings; i++)
		if (res.findings[i].subject && strstr(res.findings[i].subject, "mlx5_1"))
			fail_msg("paired with mlx5_1 outside gdr_loopback.nics: %s",
				 res.findings[i].message);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* mlx5_1 made a virtual function of mlx5_0: never paired, even without a list */
	pf_test_make_vf(root, "mlx5_1", "mlx5_0");
	run(root, plain, &res);
	for (size_t i = 0; i < res.n_findings; i++)
		if (res.findings[i].subject && strstr(res.findings[i].subject, "mlx5_1"))
			fail_msg("paired with the VF mlx5_1: %s", res.findings[i].message);
	assert_non_null(pf_test_finding(&res, "mlx5_0/1"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * The device rule shared with fabric_loopback (rdma_select.h), `nics`
 * empty, no GPU: a device without a PCI function (rxe) is tested, VFs whose
 * PF is not here are tested, a DOWN port beside an ACTIVE one warns and
 * every port DOWN fails, in the link layer's words.
 */
static void test_default_ports_rule(void **state)
{
	char *root = setup("--gpus 0 --nics 2 --link-layer eth", 2, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_make_soft(root, "mlx5_1");
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);

	root = setup("--gpus 0 --nics 2 --link-layer eth", 2, IBV_LINK_LAYER_ETHERNET);
	pf_test_make_vf(root, "mlx5_0", NULL);
	pf_test_make_vf(root, "mlx5_1", NULL);
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);

	root = setup("--gpus 0 --nics 2 --link-layer eth --down-port mlx5_1", 2,
		     IBV_LINK_LAYER_ETHERNET);
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "mlx5_1/1 (RoCE) is DOWN"));
	assert_int_equal(res.status, PF_STATUS_WARN);
	pf_result_release(&res);
	teardown(root);

	root = setup("--gpus 0 --nics 2 --link-layer eth --down-port mlx5_0,mlx5_1", 2,
		     IBV_LINK_LAYER_ETHERNET);
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "(RoCE) is DOWN"));
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);
}

static void test_error_and_timeout(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.timeout_ms=20", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.fail_wr = 10;
	pf_fake_verbs.fail_status = IBV_WC_RETRY_EXC_ERR;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "wc_status"), "IBV_WC_RETRY_EXC_ERR");
	pf_result_release(&res);

	pf_fake_verbs.fail_wr = -1;
	pf_fake_verbs.hang = true;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	/* 20 ms and 100 x 64 KiB at 360 Gb/s: nothing ever completes, a stall with its bound */
	assert_non_null(strstr(f->message, "no completion for 21 ms"));
	assert_non_null(strstr(f->message, "slow or stalled: below"));
	assert_int_equal(pf_fake_verbs.live, 0);
	pf_result_release(&res);
	teardown(root);
}

/*
 * The soft-RoCE rig's finding: with the defaults (cq_mod 100 x 8 MiB) a
 * 3 Gb/s link needs 2.2 s per completion, beyond the 2 s floor.  It must
 * read as slow with its figure, and a link that barely moves as "below"
 * a figure, never as a NIC to reset.
 */
static void test_slow_link_reads_slow(void **state)
{
	char *root = setup("--gpus 0 --nics 1 --link-layer eth --rate 10", 1,
			   IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { "gdr_loopback.iterations=200", "gdr_loopback.warmup=0", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.devs[0].gbps = 3;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "host memory 3.0 Gb/s, 30% of the 10 Gb/s port rate"));
	pf_result_release(&res);

	/* 0.3 Gb/s, rxe's under TCG: 200 x 8 MiB is 45 s, cut at the budget, measured */
	pf_fake_verbs_reset(1, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[0].gbps = 0.3;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "host memory 0.3 Gb/s, 3% of the 10 Gb/s port rate"));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f->observed, "cut_short")));
	assert_float_equal(obs_num(f, "gbps"), 0.3, 0.01);
	pf_result_release(&res);

	pf_fake_verbs_reset(1, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.hang = true;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	/*
	 * not one 8 MiB WRITE in 2.008 s, seen at 2.048 s (the pump reads the
	 * clock every 256 empty polls, a millisecond each on the fake)
	 */
	assert_non_null(strstr(f->message, "slow or stalled: below 0.0328 Gb/s, under the 9 Gb/s"));
	assert_null(strstr(f->remedy, "mlxfwreset"));
	assert_non_null(strstr(f->remedy, "nic_link_speed"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * A rig or VF whose rate file is nominal (rxe reports veth's 10 Gb/s) is held
 * to expect_gbps: the healthy 3 Gb/s rig passes at 2.5, and a run below it fails
 * naming the expected rate.
 */
static void test_expect_gbps(void **state)
{
	char *root = setup("--gpus 0 --nics 1 --link-layer eth --rate 10", 1,
			   IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { "gdr_loopback.iterations=200", "gdr_loopback.warmup=0",
			       "gdr_loopback.expect_gbps=3", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.devs[0].gbps = 3;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "100% of the 3 Gb/s expected rate (expect_gbps)"));
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble, 2.7, 1e-9);
	pf_result_release(&res);

	pf_fake_verbs_reset(1, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[0].gbps = 2;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "2.0 Gb/s, 67% of the 3 Gb/s expected rate "
				"(expect_gbps), below 90%"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * RoCE at path MTU 1024 carries at most 92.6% of the line as payload (82
 * bytes of headers, gap and preamble per packet, 98.0% at 4096): the floor,
 * calibrated at 4096, scales by 0.945, so a healthy 350 Gb/s on a 400 Gb/s
 * port at MTU 1024 is not failed (it warns, under 95% scaled).
 */
static void test_mtu_scales_floor(void **state)
{
	char *root = setup("--gpus 0 --nics 1 --link-layer eth", 1, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	assert_float_equal(pf_rdma_mtu_efficiency(PF_LINK_ETH, 1024), 1024.0 / 1106, 1e-12);
	assert_float_equal(pf_rdma_mtu_scale(PF_LINK_ETH, 4096), 1, 1e-12);
	pf_fake_verbs.devs[0].active_mtu = IBV_MTU_1024;
	pf_fake_verbs.devs[0].gbps = 350;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble,
			   360 * pf_rdma_mtu_scale(PF_LINK_ETH, 1024), 1e-9);
	pf_result_release(&res);

	/* at 4096 the same figure fails as before */
	pf_fake_verbs_reset(1, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[0].gbps = 350;
	run(root, sets, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);
}

static void bump_counter(unsigned long wr)
{
	if (wr == 20) {
		FILE *f = fopen(counter_file, "w");

		assert_non_null(f);
		fputs("7\n", f);
		fclose(f);
	}
}

/*
 * Port-wide counters (out_of_sequence here) rise with every QP on the
 * port: storage traffic next to a healthy loopback must not fail the node.
 * They are reported as context; the loopback's own QPs (all completions
 * successful) decide.  This failed the node before.
 */
static void test_port_counter_increase_is_context(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;
	const cJSON *inc;
	char path[1024];

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
		 "out_of_sequence", root);
	counter_file = path;
	pf_fake_verbs.on_wr = bump_counter;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 counters");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "out_of_sequence +7"));
	assert_non_null(strstr(f->message, "not judged"));
	inc = cJSON_GetObjectItemCaseSensitive(f->observed, "increased");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(inc, "out_of_sequence")->valuedouble, 7);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* the loopback's own QP exhausting its retries still fails */
	pf_fake_verbs_reset(1, IBV_LINK_LAYER_INFINIBAND);
	pf_fake_verbs.on_wr = bump_counter;
	pf_fake_verbs.fail_wr = 30;
	pf_fake_verbs.fail_status = IBV_WC_RETRY_EXC_ERR;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "wc_status"), "IBV_WC_RETRY_EXC_ERR");
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1 counters")->status, PF_STATUS_PASS);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	counter_file = NULL;
	teardown(root);

	/* soft-RoCE rxe: no counters/, its counters by name in hw_counters/ */
	root = setup("--gpus 0 --nics 1 --link-layer eth", 1, IBV_LINK_LAYER_ETHERNET);
	pf_test_make_soft(root, "mlx5_0");
	pf_test_make_rxe_counters(root, "mlx5_0");
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_0/ports/1/hw_counters/"
		 "retry_exceeded_err", root);
	counter_file = path;
	pf_fake_verbs.on_wr = bump_counter;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 counters");
	assert_non_null(strstr(f->message, "retry_exceeded_err +7"));
	/* link_downed and rxe's five other error counters were read */
	assert_int_equal((int)cJSON_GetObjectItemCaseSensitive(f->observed,
								"counters_read")->valuedouble, 7);
	pf_result_release(&res);
	counter_file = NULL;
	teardown(root);
}

static void test_roce_gid_from_sysfs(void **state)
{
	char *root = setup("--gpus 1 --nics 1 --link-layer eth --file "
			   "/sys/class/infiniband/mlx5_0/ports/1/gids/1="
			   "0000:0000:0000:0000:0000:ffff:0a00:0001", 1, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	/* the device's RoCE v2 IPv4 GID sits where sysfs says: index 1 */
	pf_fake_verbs.devs[0].roce_gid_index = 1;
	pf_fake_verbs.devs[0].gid[1] = pf_fake_verbs.devs[0].gid[3];
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_int_equal((int)obs_num(f, "gid_index"), 1);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 1);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 1);
	pf_result_release(&res);
	teardown(root);

	/* no IPv4 GID in sysfs (no address on the port): the link-local GID at 0, as NCCL
	 * picks it, and the loopback runs (a healthy port without IPv4 is not failed) */
	root = setup("--gpus 1 --nics 1 --link-layer eth --gids none", 1, IBV_LINK_LAYER_ETHERNET);
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_int_equal((int)obs_num(f, "gid_index"), 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_no_devices_skip(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;

	pf_fake_verbs.list_errno = ENOSYS;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "ib_uverbs"));
	pf_result_release(&res);

	pf_fake_verbs.list_errno = 0;
	pf_fake_verbs.n_devs = 0;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "no RDMA devices"));
	pf_result_release(&res);
	teardown(root);

	/* nothing in sysfs either */
	root = setup("--gpus 1 --nics 0", 0, IBV_LINK_LAYER_INFINIBAND);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);
	teardown(root);
}

static struct pf_verbs_api missing_api;

static int missing_verbs(const struct pf_ctx *ctx, const struct pf_verbs_api **ret,
			 char **ret_err)
{
	int r = pf_verbs_load("libibverbs-not-here.so.1", &missing_api, ret_err);

	if (r == 0)
		*ret = &missing_api;
	return r;
}

static void test_no_library(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	struct pf_providers prov = *pf_fake_verbs_providers();
	struct pf_result res;

	prov.verbs = missing_verbs;
	pf_result_init(&res);
	pf_test_run_check("gdr_loopback", root, &prov, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_non_null(strstr(res.findings[0].message, "not found: install rdma-core "
				"(ibverbs-providers)"));
	pf_result_release(&res);

	/* a recorded root sends no traffic */
	pf_result_init(&res);
	pf_test_run_check("gdr_loopback", root, NULL, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "recorded root"));
	pf_result_release(&res);
	teardown(root);
}

/* The real libibverbs on a host without RDMA devices: ENOSYS or an empty list -> skip. */
static void test_real_library_without_devices(void **state)
{
	const struct pf_verbs_api *api = NULL;
	const char *sets[] = { FAST, NULL };
	struct pf_providers prov = *pf_fake_verbs_providers();
	struct ibv_device **list;
	struct pf_result res;
	char *err = NULL, *root;
	int n = 0;

	if (pf_dl_verbs(&api, &err) < 0) {
		free(err);
		skip();
	}
	list = api->get_device_list(&n);
	if (list)
		api->free_device_list(list);
	if (list && n > 0)
		skip(); /* a real RDMA node: not this test's business */

	root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	prov.verbs = pf_providers_live.verbs;
	pf_result_init(&res);
	pf_test_run_check("gdr_loopback", root, &prov, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "libibverbs lists no RDMA devices"));
	pf_result_release(&res);
	teardown(root);
}

static void test_explicit_pairs(void **state)
{
	char *root = setup("--gpus 2 --nics 2", 2, IBV_LINK_LAYER_INFINIBAND);
	char pairs[128], subject[64];
	const char *sets[] = { FAST, pairs, NULL };
	struct pf_result res;

	/* GPU 0 over the other rail's NIC, and mlx5_0 host only */
	snprintf(pairs, sizeof(pairs), "gdr_loopback.pairs=%s=mlx5_1/1,mlx5_0", gpus[0]);
	run(root, sets, &res);
	snprintf(subject, sizeof(subject), "%s -> mlx5_1/1", gpus[0]);
	assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 5); /* 2 hosts, 2 counters, 1 GPU */
	pf_result_release(&res);

	snprintf(pairs, sizeof(pairs), "gdr_loopback.pairs=0000:99:00.0=mlx5_0/1");
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_non_null(strstr(res.findings[0].message, "0000:99:00.0"));
	pf_result_release(&res);

	snprintf(pairs, sizeof(pairs), "gdr_loopback.pairs=mlx5_0/2");
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_non_null(strstr(res.findings[0].message, "no port 2"));
	pf_result_release(&res);
	teardown(root);
}

static void test_parallel(void **state)
{
	char *root = setup("--gpus 0 --nics 3", 3, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.parallel=true", NULL };
	struct pf_result res;

	/* no GPUs: every port, host memory, all at once */
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_2/1")->status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "in parallel"));
	assert_int_equal(pf_fake_verbs.live, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_parallel_shared_nic(void **state)
{
	char *root = setup("--gpus 2 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, "gdr_loopback.parallel=true", NULL };
	char subject[64];
	struct pf_result res;

	/* both GPUs pair with mlx5_0: they take turns, never two runs on it at once */
	pf_fake_verbs.overlap_wait_ms = 100;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	for (int i = 0; i < 2; i++) {
		snprintf(subject, sizeof(subject), "%.15s -> mlx5_0/1", gpus[i]);
		assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_PASS);
	}
	/* one run at a time: its own two contexts (two transport domains), never four */
	assert_int_equal(pf_fake_verbs.max_open[0], 2);
	assert_int_equal(pf_fake_verbs.live, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_cuda_missing(void **state)
{
	char *root = setup("--gpus 1 --nics 1", 1, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;

	pf_fake.cuda_load = -ENOENT;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_true(pf_test_result_mentions(&res, "libcuda.so.1"));
	/* the host run still happened and passed */
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);
}

static void test_deadline(void **state)
{
	const struct pf_check *c = pf_registry_find("gdr_loopback");
	struct pf_profile prof;
	void *cfg = NULL, *cfg_par = NULL, *cfg_big = NULL;
	char *err = NULL;
	unsigned int d, d_par, d_big;

	assert_non_null(c->deadline_s);
	pf_profile_init(&prof);
	assert_int_equal(pf_config_build(c, &prof, &cfg, &err), 0);
	d = c->deadline_s(cfg);
	/*
	 * ((1000 + 5000) x 8 MiB at 25 Gb/s = 16.1 s, + 2 s + a 2.003 s completion
	 * timeout: 2 s and one 8 MiB WRITE at 22.5 Gb/s) x 2 runs x 8 pairs + 15 s
	 */
	assert_int_equal(d, 337);
	pf_profile_add_set(&prof, "gdr_loopback.parallel=true");
	assert_int_equal(pf_config_build(c, &prof, &cfg_par, &err), 0);
	d_par = c->deadline_s(cfg_par);
	assert_int_equal(d_par, 76); /* one host round and two GPU rounds */
	pf_profile_add_set(&prof, "gdr_loopback.iterations=50000");
	assert_int_equal(pf_config_build(c, &prof, &cfg_big, &err), 0);
	d_big = c->deadline_s(cfg_big);
	assert_true(d_big > d_par * 5);
	pf_config_free(c, cfg);
	pf_config_free(c, cfg_par);
	pf_config_free(c, cfg_big);
	pf_profile_release(&prof);
}

/*
 * Issue 29 item 2: each GPU runs on its own rail from the rail model.  Two
 * NICs share GPU 0's switch; the site declares the first one storage, so
 * GPU 0's rail is the second (before, the nearest NIC by name: the
 * storage port).
 */
static void test_gpu_own_rail(void **state)
{
	char *root = setup("--gpus 2 --nics 4", 4, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *sets_storage[] = { FAST, "rails.storage=mlx5_0", NULL };
	char subject[64];
	struct pf_result res;

	(void)state;
	run(root, sets, &res);
	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	assert_non_null(pf_test_finding(&res, subject));
	pf_result_release(&res);

	run(root, sets_storage, &res);
	snprintf(subject, sizeof(subject), "%s -> mlx5_1/1", gpus[0]);
	assert_int_equal(pf_test_must_find(&res, subject)->status, PF_STATUS_PASS);
	snprintf(subject, sizeof(subject), "%s -> mlx5_0/1", gpus[0]);
	assert_null(pf_test_finding(&res, subject));
	snprintf(subject, sizeof(subject), "%s -> mlx5_2/1", gpus[1]);
	assert_non_null(pf_test_finding(&res, subject));
	pf_result_release(&res);
	teardown(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_host_thresholds),
		cmocka_unit_test(test_gpu_threshold),
		cmocka_unit_test(test_corruption_fails),
		cmocka_unit_test(test_far_pair_not_judged),
		cmocka_unit_test(test_gpu_own_rail),
		cmocka_unit_test(test_p2c_level),
		cmocka_unit_test(test_grace_auto_is_p2c),
		cmocka_unit_test(test_bcm_switch_is_pix),
		cmocka_unit_test(test_nics_filter_and_vf),
		cmocka_unit_test(test_default_ports_rule),
		cmocka_unit_test(test_middle_slot_corruption_fails),
		cmocka_unit_test(test_dmabuf_node_page_size),
		cmocka_unit_test(test_error_and_timeout),
		cmocka_unit_test(test_slow_link_reads_slow),
		cmocka_unit_test(test_expect_gbps),
		cmocka_unit_test(test_mtu_scales_floor),
		cmocka_unit_test(test_port_counter_increase_is_context),
		cmocka_unit_test(test_roce_gid_from_sysfs),
		cmocka_unit_test(test_no_devices_skip),
		cmocka_unit_test(test_no_library),
		cmocka_unit_test(test_real_library_without_devices),
		cmocka_unit_test(test_explicit_pairs),
		cmocka_unit_test(test_parallel),
		cmocka_unit_test(test_parallel_shared_nic),
		cmocka_unit_test(test_cuda_missing),
		cmocka_unit_test(test_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
