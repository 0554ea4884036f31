// SPDX-License-Identifier: MIT
/*
 * test_check_fabric_loopback.c - the fabric_loopback check on generated
 * roots (tests/gen_root.py) with the fake verbs device and the fake
 * RDMA-CM: rails and rounds, triangulation, every finding, skips, and the
 * golden reports of a healthy 8-rail run and a bad-cable run
 * (tests/golden/fabric_loopback_*.txt; PF_UPDATE_GOLDEN=1 rewrites them).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_gpu.h"
#include "fake_rdmacm.h"
#include "fake_verbs.h"
#include "rdma_roots.h"
#include "registry.h"
#include "report.h"
#include "testutil.h"

#define FAST "fabric_loopback.msg_size=65536", "fabric_loopback.iterations=500", \
	     "fabric_loopback.warmup=50", "fabric_loopback.timeout_ms=100"

static char *setup(const char *args, int n, uint8_t ll)
{
	char *root = pf_test_gen_root(args);

	pf_fake_verbs_reset(n, ll);
	pf_fake_rdmacm_reset(n);
	return root;
}

static void teardown(char *root)
{
	assert_int_equal(pf_fake_verbs.live, 0);
	assert_int_equal(pf_fake_rdmacm.live_ids, 0);
	assert_int_equal(pf_fake_rdmacm.live_channels, 0);
	if (pf_fake_rdmacm.misuse)
		fail_msg("RDMA-CM misuse: %s", pf_fake_rdmacm.misuse_why);
	pf_test_rmtree(root);
	free(root);
}

static void run_with(const char *root, const struct pf_providers *prov, const char *const *sets,
		     struct pf_result *res)
{
	pf_result_init(res);
	pf_test_run_check("fabric_loopback", root, prov, sets, res);
}

static void run(const char *root, const char *const *sets, struct pf_result *res)
{
	run_with(root, pf_fake_fabric_providers(), sets, res);
}

static size_t count(const struct pf_result *res, enum pf_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		n += res->findings[i].status == st;
	return n;
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

/*
 * The check's result as `--format @fmt` prints it, with the timings fixed
 * and the host-dependent note (whether this machine's libnuma can bind to
 * the generated node's NUMA nodes) left out.
 */
static char *render(struct pf_result *res, const char *const *sets, enum pf_format fmt)
{
	const struct pf_check *c = pf_registry_find("fabric_loopback");
	struct pf_profile prof;
	struct pf_run run = { .check = c, .res = *res, .duration_ms = 0 };
	struct pf_report rep = { .version = "0.1.0", .root = "/", .profile = "generic",
				 .started_at = 1763790192, .runs = &run, .n_runs = 1 };
	char *buf = NULL, *err = NULL;
	size_t len = 0;
	FILE *f;

	pf_profile_init(&prof);
	for (size_t i = 0; sets && sets[i]; i++)
		pf_profile_add_set(&prof, sets[i]);
	assert_int_equal(pf_config_build(c, &prof, &run.cfg, &err), 0);
	snprintf(rep.hostname, sizeof(rep.hostname), "gen-node");
	snprintf(rep.kernel, sizeof(rep.kernel), "6.8.0-generated");
	for (size_t i = 0; i < res->n_findings; i++)
		cJSON_DeleteItemFromObjectCaseSensitive(res->findings[i].observed, "note");
	run.res = *res;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(pf_render(&rep, fmt, f, false), 0);
	assert_int_equal(fclose(f), 0);
	pf_config_free(c, run.cfg);
	pf_profile_release(&prof);
	return buf;
}

#define PF_BINARY_DIR_OR_TMP "/tmp"

static void compare_golden(const char *name, const char *got)
{
	char path[PATH_MAX];
	char *want = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", PF_SOURCE_DIR, name);
	if (getenv("PF_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("missing %s (run with PF_UPDATE_GOLDEN=1)", path);
	assert_true(getdelim(&want, &cap, '\0', f) >= 0);
	fclose(f);
	if (strcmp(want, got)) {
		/* the whole output, for a diff (cmocka truncates the message) */
		snprintf(path, sizeof(path), "%s/%s.got", PF_BINARY_DIR_OR_TMP, name);
		f = fopen(path, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		fail_msg("%s differs from the output (written to %s):\n%s", name, path, got);
	}
	free(want);
}

static void test_healthy_8_rails_golden(void **state)
{
	char *root = setup("--gpus 0 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;
	char *text;

	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	/* ring rounds: 8 flows i -> i+1, 8 flows i -> i+2, each direction judged */
	f = pf_test_must_find(&res, "mlx5_7/1 -> mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_float_equal(obs_num(f, "gbps"), 400, 0.5);
	assert_int_equal((int)obs_num(f, "round"), 1);
	assert_string_equal(obs_str(f, "connection"), "rdma_cm");
	assert_string_equal(obs_str(f, "src_ip"), "10.10.0.8");
	assert_string_equal(obs_str(f, "dst_ip"), "10.10.0.1");
	assert_string_equal(obs_str(f, "memory"), "host");
	f = pf_test_must_find(&res, "mlx5_6/1 -> mlx5_0/1");
	assert_int_equal((int)obs_num(f, "round"), 2);
	assert_int_equal(pf_fake_rdmacm.n_established, 16);
	assert_int_equal(count(&res, PF_STATUS_PASS), 17); /* 16 flows and the counters */
	assert_int_equal(pf_test_must_find(&res, "counters")->status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "8 RoCE rails, 16 flows in 2 rounds over RDMA-CM"));
	text = render(&res, sets, PF_FORMAT_TEXT);
	compare_golden("fabric_loopback_healthy.txt", text);
	free(text);
	text = render(&res, sets, PF_FORMAT_JSON);
	compare_golden("fabric_loopback_healthy.json", text);
	free(text);
	pf_result_release(&res);
	teardown(root);
}

/* One NIC at half rate: it is named, with every partner's figure. */
static void test_bad_cable_golden(void **state)
{
	char *root = setup("--gpus 0 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;
	char *text;

	pf_fake_verbs.devs[3].gbps = 200;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "mlx5_3/1 is slow with all 4 partners: 200 Gb/s from "
				"mlx5_2/1, 200 Gb/s to mlx5_4/1, 200 Gb/s from mlx5_1/1, "
				"200 Gb/s to mlx5_5/1, partners that run at full rate with the "
				"others (ports at 400 Gb/s, minimum 90%)"));
	/* no physical error counter rose: the cable is not blamed without evidence */
	assert_non_null(strstr(f->remedy, "nothing points at the cable"));
	assert_int_equal((int)obs_num(f, "slow_partners"), 4);
	/* the NIC's finding leads; its four flows point at it; the other 12 pass */
	assert_ptr_equal(&res.findings[0], f);
	f = pf_test_must_find(&res, "mlx5_2/1 -> mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "mlx5_3/1 is the slow end"));
	assert_int_equal(count(&res, PF_STATUS_FAIL), 5);
	assert_int_equal(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_4/1")->status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "a NIC is the slow end"));
	text = render(&res, sets, PF_FORMAT_TEXT);
	compare_golden("fabric_loopback_bad_cable.txt", text);
	free(text);
	text = render(&res, sets, PF_FORMAT_JSON);
	compare_golden("fabric_loopback_bad_cable.json", text);
	free(text);
	pf_result_release(&res);
	teardown(root);
}

/* The example: a NIC slow towards two partners, fine receiving: named, with its side. */
static void test_slow_when_sending(void **state)
{
	char *root = setup("--gpus 0 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.pair_gbps[3][4] = 171;
	pf_fake_verbs.pair_gbps[3][5] = 168;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "mlx5_3/1 is slow with 2 partners: 171 Gb/s to "
				"mlx5_4/1, 168 Gb/s to mlx5_5/1, partners that run at full rate "
				"with the others (ports at 400 Gb/s, minimum 90%); slow only when "
				"it sends: its transmit side"));
	assert_string_equal(obs_str(f, "direction"), "send");
	assert_non_null(strstr(f->remedy, "mlx5_3/1's end, on its transmit side; no physical "
				"error counter rose"));
	assert_int_equal(count(&res, PF_STATUS_FAIL), 3);
	pf_result_release(&res);
	teardown(root);
}

/* A slow path between two ports that are fine elsewhere names the pair, not a NIC. */
static void test_single_slow_pair(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.pair_gbps[1][2] = 171;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count(&res, PF_STATUS_FAIL), 1);
	f = pf_test_must_find(&res, "mlx5_1/1 -> mlx5_2/1");
	assert_non_null(strstr(f->message, "171.0 Gb/s, 43% of 400 Gb/s, below 90%; both ends "
				"run at full rate with other partners"));
	assert_non_null(strstr(f->remedy, "from mlx5_1/1 (its transmit side"));
	assert_non_null(strstr(f->remedy, "to mlx5_2/1 (its receive side)"));
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble, 360, 1e-9);
	assert_non_null(strstr(res.summary, "slow pairs"));
	pf_result_release(&res);
	teardown(root);

	/* two rails: the slow end cannot be told */
	root = setup("--gpus 0 --nics 2 --link-layer eth", 2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[1].gbps = 150;
	run(root, sets, &res);
	assert_int_equal(count(&res, PF_STATUS_FAIL), 2);
	assert_non_null(strstr(pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1")->message,
			       "with two rails the slow end cannot be told"));
	assert_null(pf_test_finding(&res, "mlx5_1/1"));
	pf_result_release(&res);
	teardown(root);
}

static void test_arp_timeout_is_specific(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.resolve_timeout_ms=700", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_rdmacm.ports[2].arp_timeout = true;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_1/1 -> mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	/* node-local: resolved without ARP (addr.c), so no ARP advice */
	assert_non_null(strstr(f->message, "mlx5_1/1 cannot reach mlx5_2/1 (10.10.0.3) from "
				"10.10.0.2 (address resolution)"));
	assert_null(strstr(f->remedy, "arp_ignore"));
	assert_non_null(strstr(f->remedy, "without ARP"));
	assert_string_equal(obs_str(f, "cm_event"), "RDMA_CM_EVENT_ADDR_ERROR");
	assert_int_equal((int)obs_num(f, "cm_status"), -ETIMEDOUT);
	assert_string_equal(obs_str(f, "stage"), "resolve_addr");
	assert_int_equal(pf_fake_rdmacm.last_resolve_timeout_ms, 700);
	/* the same port as a source is fine */
	assert_int_equal(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_3/1")->status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "some flows failed"));
	pf_result_release(&res);
	teardown(root);

	/* no route from a rail */
	root = setup("--gpus 0 --nics 3 --link-layer eth", 3, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[0].no_route = true;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_non_null(strstr(f->message, "(no route)"));
	assert_non_null(strstr(f->remedy, "no route between the rails"));
	pf_result_release(&res);
	teardown(root);
}

static void test_rail_only_and_too_few(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *rail_only[] = { FAST, "fabric_loopback.rail_only=true", NULL };
	const char *one[] = { FAST, "fabric_loopback.nics=mlx5_2", NULL };
	struct pf_result res;

	run(root, rail_only, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "rail-only"));
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	pf_result_release(&res);
	run(root, one, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "1 ACTIVE RoCE rail among "
						       "fabric_loopback.nics"));
	pf_result_release(&res);
	teardown(root);

	/*
	 * a port down and never linked beside an ACTIVE one is unused in the
	 * rail model (docs/rails.md): a skip naming the role, left out; one
	 * ACTIVE rail left: skip
	 */
	root = setup("--gpus 0 --nics 2 --down-port mlx5_1", 2, IBV_LINK_LAYER_INFINIBAND);
	run(root, rail_only + 1, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_SKIP);
	assert_non_null(strstr(pf_test_must_find(&res, "mlx5_1/1")->message, "an unused port"));
	assert_non_null(strstr(res.summary, "needs two"));
	pf_result_release(&res);
	/* the same port named in nics is a rail that is down: a failure */
	run(root, (const char *const[]){ FAST, "fabric_loopback.nics=mlx5_0,mlx5_1", NULL }, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);

	/* no RDMA at all */
	root = setup("--gpus 0 --nics 0", 0, IBV_LINK_LAYER_INFINIBAND);
	run(root, rail_only + 1, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "no RDMA devices"));
	pf_result_release(&res);
	teardown(root);
}

static void test_ib_verbs_and_ipoib(void **state)
{
	char *root = setup("--gpus 0 --nics 3", 3, IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *cm[] = { FAST, "fabric_loopback.connect=rdma_cm", NULL };
	const char *cm_short[] = { FAST, "fabric_loopback.connect=cm", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	/* no IPoIB addresses: LID and QPN in-process */
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "connection"), "verbs");
	assert_int_equal((int)obs_num(f, "path_mtu"), 4096);
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	assert_non_null(strstr(res.summary, "over LID/QPN"));
	pf_result_release(&res);

	/* forced RDMA-CM without addresses: each rail fails */
	run(root, cm, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_FAIL);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0/1")->message,
				"ib0) has no IPv4 address");
	pf_result_release(&res);
	teardown(root);

	/* IPoIB addresses: still verbs under auto (NCCL needs no IPoIB); cm: RDMA-CM */
	root = setup("--gpus 0 --nics 3 --file 'preflight/ip/ib0/addr=4: ib0 inet 10.10.0.1/16' "
		     "--file 'preflight/ip/ib1/addr=5: ib1 inet 10.10.0.2/16' "
		     "--file 'preflight/ip/ib2/addr=6: ib2 inet 10.10.0.3/16'",
		     3, IBV_LINK_LAYER_INFINIBAND);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_0/1"), "connection"),
			    "verbs");
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	pf_result_release(&res);
	run(root, cm_short, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_0/1"), "connection"),
			    "rdma_cm");
	assert_int_equal(pf_fake_rdmacm.n_established, 6);
	pf_result_release(&res);
	teardown(root);
}

/* RoCE in-process by the sysfs RoCE v2 IPv4 GIDs (connect=verbs), RDMA-CM untouched */
static void test_roce_verbs(void **state)
{
	char *root = setup("--gpus 0 --nics 3 --link-layer eth", 3, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.connect=verbs", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "connection"), "verbs");
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 3);
	assert_non_null(strstr(res.summary, "over GID/QPN"));
	pf_result_release(&res);
	teardown(root);

	/* no IPv4 GID in sysfs: the link-local GID at 0, as NCCL picks it */
	root = setup("--gpus 0 --nics 2 --link-layer eth --gids none", 2, IBV_LINK_LAYER_ETHERNET);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 0);
	pf_result_release(&res);
	teardown(root);
}

static void test_corruption_and_retries(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_fake_verbs.devs[1].corrupt = true;
	pf_fake_verbs.devs[3].wc_error = IBV_WC_RETRY_EXC_ERR;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_non_null(strstr(f->message, "differs from the source"));
	assert_int_equal((int)obs_num(f, "bad_pass"), 1);
	assert_non_null(strstr(f->remedy, "corrupted"));
	f = pf_test_must_find(&res, "mlx5_2/1 -> mlx5_3/1");
	assert_string_equal(obs_str(f, "wc_status"), "IBV_WC_RETRY_EXC_ERR");
	assert_non_null(strstr(f->remedy, "retries exhausted"));
	pf_result_release(&res);
	teardown(root);
}

static char *counter_root;

static void bump_counters(unsigned long wr)
{
	if (wr != 10)
		return;
	pf_test_write(counter_root, "sys/class/infiniband/mlx5_2/ports/1/counters/symbol_error",
		      "7\n");
}

static void bump_link_downed(unsigned long wr)
{
	if (wr == 10)
		pf_test_write(counter_root,
			      "sys/class/infiniband/mlx5_1/ports/1/counters/link_downed", "1\n");
}

static void bump_rxe_link_downed(unsigned long wr)
{
	if (wr == 10)
		pf_test_write(counter_root,
			      "sys/class/infiniband/mlx5_1/ports/1/hw_counters/link_downed", "1\n");
}

/*
 * One device rule with `nics` empty (rdma_select.h), as on the soft-RoCE
 * rig: a RoCE device without a PCI function (rxe) is a rail; a VF is a rail
 * unless its PF is an RDMA device here (VF-only nodes: Azure ND); DOWN
 * ports are findings, a fail when no port is ACTIVE, in the link layer's name.
 */
static void test_default_rails_rule(void **state)
{
	char *root = setup("--gpus 0 --nics 3 --link-layer eth", 3, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_make_soft(root, "mlx5_2");
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "3 RoCE rails"));
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1 -> mlx5_2/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);

	/* every rail a VF whose PF this node does not see: all tested */
	root = setup("--gpus 0 --nics 2 --link-layer eth", 2, IBV_LINK_LAYER_ETHERNET);
	pf_test_make_vf(root, "mlx5_0", NULL);
	pf_test_make_vf(root, "mlx5_1", NULL);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_non_null(strstr(res.summary, "2 RoCE rails"));
	pf_result_release(&res);
	teardown(root);

	/* a VF of a PF that is a rail here: left to its PF */
	root = setup("--gpus 0 --nics 3 --link-layer eth", 3, IBV_LINK_LAYER_ETHERNET);
	pf_test_make_vf(root, "mlx5_2", "mlx5_0");
	run(root, sets, &res);
	assert_non_null(strstr(res.summary, "2 RoCE rails"));
	assert_null(pf_test_finding(&res, "mlx5_1/1 -> mlx5_2/1"));
	pf_result_release(&res);
	teardown(root);

	/* every RoCE port DOWN: fail, in RoCE's words */
	root = setup("--gpus 0 --nics 2 --link-layer eth --down-port mlx5_0,mlx5_1", 2,
		     IBV_LINK_LAYER_ETHERNET);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "mlx5_0/1 (RoCE) is DOWN"));
	assert_non_null(strstr(res.summary, "0 ACTIVE RoCE rails"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * A slow link reads as slow with its figure (the completion timeout waits
 * for a batch at the rate the flow is held to, at most 8 MiB between
 * signalled WRs), a link far slower is cut at the flow's time budget and
 * measured; when every flow connected and only the transfers stalled, the
 * summary says so, not rail_only.
 */
static void test_slow_and_stalled_flows(void **state)
{
	char *root = setup("--gpus 0 --nics 2 --link-layer eth --rate 10", 2,
			   IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { "fabric_loopback.iterations=200", "fabric_loopback.warmup=0",
			       "fabric_loopback.msg_size=8388608", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	for (int i = 0; i < 2; i++)
		pf_fake_verbs.devs[i].gbps = 3;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "3.0 Gb/s, 30% of 10 Gb/s"));
	pf_result_release(&res);

	/* 200 x 8 MiB at 0.05 Gb/s is 4.5 min: cut at the budget, measured */
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(2);
	for (int i = 0; i < 2; i++)
		pf_fake_verbs.devs[i].gbps = 0.05;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "% of 10 Gb/s"));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f->observed, "cut_short")));
	assert_float_equal(obs_num(f, "gbps"), 0.05, 0.002);
	pf_result_release(&res);

	pf_fake_verbs_reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(2);
	pf_fake_verbs.hang = true;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "slow or stalled: below"));
	assert_non_null(strstr(f->remedy, "connection was established"));
	assert_non_null(strstr(res.summary, "2 of 2 connected (RDMA-CM ESTABLISHED) and then "
				"stalled"));
	assert_null(strstr(res.summary, "rail_only"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * Routed L3 (a /31 or /24 per NIC) or a VLAN per rail: node-local RDMA-CM
 * addresses the destination NIC's MAC without routing or ARP (addr.c), so
 * no flow can work on a healthy node; skip with that reason, send nothing.
 */
static void test_distinct_rail_subnets_skip(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth --rail-subnets distinct", 4,
			   IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;

	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "the 4 RoCE rails are in 4 IPv4 subnets"));
	assert_non_null(strstr(res.summary, "one L2 domain"));
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	pf_result_release(&res);
	teardown(root);
}

static char *blame_root;

static void bump_symbol_errors(unsigned long wr)
{
	if (wr == 10)
		pf_test_write(blame_root, "sys/class/infiniband/mlx5_3/ports/1/counters/"
			      "symbol_error", "9\n");
}

/*
 * Blame: uniform slowness (every flow slow, a host or spine limit) reads as
 * node-wide, never as a path or cable; a slow rail's cable is blamed only
 * when its physical error counters rose.
 */
static void test_blame_needs_evidence(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	for (int i = 0; i < 4; i++)
		pf_fake_verbs.devs[i].gbps = 200;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_non_null(strstr(f->message, "every flow of the node is slow: a node-wide or "
				"fabric-wide limit"));
	assert_null(strstr(f->message, "path between them"));
	assert_null(strstr(f->remedy, "cable"));
	for (size_t i = 0; i < res.n_findings; i++)
		assert_null(strstr(res.findings[i].message, "is slow with"));
	pf_result_release(&res);
	teardown(root);

	/* a slow rail whose symbol errors rose: now its cable is named */
	root = setup("--gpus 0 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	blame_root = root;
	pf_fake_verbs.devs[3].gbps = 200;
	pf_fake_verbs.on_wr = bump_symbol_errors;
	run(root, sets, &res);
	pf_fake_verbs.on_wr = NULL;
	f = pf_test_must_find(&res, "mlx5_3/1");
	assert_non_null(strstr(f->remedy, "physical error counters rose"));
	assert_non_null(strstr(f->remedy, "reseat or replace its cable"));
	pf_result_release(&res);
	teardown(root);
}

/*
 * expect_gbps holds every rail to a stated rate (a soft-RoCE rig: 10 Gb/s
 * nominal, ~3 real): the healthy rig passes; a rate-limited rail is named
 * with its direction.
 */
static void test_expect_gbps(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth --rate 10", 4,
			   IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.expect_gbps=2.5", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	for (int i = 0; i < 4; i++)
		pf_fake_verbs.devs[i].gbps = 3;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble, 2.25, 1e-9);
	pf_result_release(&res);

	/* tbf on mlx5_2's transmit side: 1 Gb/s to its partners */
	pf_fake_verbs_reset(4, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(4);
	for (int i = 0; i < 4; i++)
		pf_fake_verbs.devs[i].gbps = 3;
	pf_fake_verbs.pair_gbps[2][3] = 1;
	pf_fake_verbs.pair_gbps[2][0] = 1;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "direction"), "send");
	pf_result_release(&res);
	teardown(root);
}

/*
 * Two 400G NICs behind one Gen5 x16 switch uplink (gen_root puts two NICs
 * per switch with 8 NICs and 4 GPUs): with every rail running both ways the
 * uplink carries 32 GT/s x 16 x 128/130 x 0.9 = 454 Gb/s for 800 Gb/s, so
 * a healthy node measures ~220 Gb/s per flow.  The floor follows the
 * uplink's share; a NIC below that share still fails.
 */
static void test_shared_pcie_uplink(void **state)
{
	char *root = setup("--gpus 4 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	double share = 32 * 16 * (128.0 / 130.0) * 0.9 / 800;
	struct pf_result res;
	const struct pf_finding *f;

	for (int i = 0; i < 8; i++)
		pf_fake_verbs.devs[i].gbps = 220;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_float_equal(cJSON_GetObjectItem(f->expected, "pcie_share")->valuedouble, share, 1e-9);
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble,
			   400 * 0.9 * share, 1e-6);
	pf_test_assert_contains(f->message, "the PCIe link of");
	assert_non_null(cJSON_GetObjectItem(f->observed, "pcie_bottleneck"));
	pf_result_release(&res);

	/* one NIC well below its share of the uplink is still named */
	pf_fake_verbs_reset(8, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(8);
	for (int i = 0; i < 8; i++)
		pf_fake_verbs.devs[i].gbps = 220;
	pf_fake_verbs.devs[5].gbps = 100;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_must_find(&res, "mlx5_5/1")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	teardown(root);
}

static void test_counters_per_port(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_result res;
	const struct pf_finding *f;

	counter_root = root;
	pf_fake_verbs.on_wr = bump_counters;
	run(root, sets, &res);
	pf_fake_verbs.on_wr = NULL;
	f = pf_test_must_find(&res, "mlx5_2/1 counters");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "rose during round 1: symbol_error +7"));
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_null(pf_test_finding(&res, "counters"));
	pf_result_release(&res);

	pf_fake_verbs_reset(4, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.on_wr = bump_link_downed;
	run(root, sets, &res);
	pf_fake_verbs.on_wr = NULL;
	f = pf_test_must_find(&res, "mlx5_1/1 counters");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "link_downed +1"));
	pf_result_release(&res);
	teardown(root);

	/* rxe keeps link_downed in hw_counters/ and has no counters/: read by name there */
	root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	counter_root = root;
	pf_test_make_soft(root, "mlx5_1");
	pf_test_make_rxe_counters(root, "mlx5_1");
	pf_fake_verbs.on_wr = bump_rxe_link_downed;
	run(root, sets, &res);
	pf_fake_verbs.on_wr = NULL;
	f = pf_test_must_find(&res, "mlx5_1/1 counters");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "link_downed +1"));
	pf_result_release(&res);
	teardown(root);
}

static void test_explicit_pairs(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.pairs=mlx5_0:mlx5_3,mlx5_0/1:mlx5_2/1",
			       NULL };
	const char *unknown[] = { FAST, "fabric_loopback.pairs=mlx5_0:mlx5_9", NULL };
	const char *bad1[] = { "fabric_loopback.pairs=mlx5_0", NULL };
	const char *bad2[] = { "fabric_loopback.pairs=mlx5_0:mlx5_0/1", NULL };
	const char *bad3[] = { "fabric_loopback.cq_mod=200", NULL };
	struct pf_result res;

	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_0/1 -> mlx5_3/1"), "round"), 1);
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_3/1 -> mlx5_0/1"), "round"), 1);
	/* mlx5_0 already sends in round 1: its second pair goes to round 2 */
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_0/1 -> mlx5_2/1"), "round"), 2);
	assert_int_equal(pf_fake_rdmacm.n_established, 4);
	assert_non_null(strstr(res.summary, "4 flows in 2 rounds"));
	pf_result_release(&res);

	run(root, unknown, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(pf_test_must_find(&res, "mlx5_9")->message, "not an ACTIVE rail"));
	pf_result_release(&res);

	pf_test_config_rejected("fabric_loopback", bad1, "fabric_loopback.pairs");
	pf_test_config_rejected("fabric_loopback", bad2, "fabric_loopback.pairs");
	pf_test_config_rejected("fabric_loopback", bad3, "fabric_loopback.cq_mod");
	teardown(root);
}

static void test_rail_without_address(void **state)
{
	char *root = setup("--gpus 0 --nics 3 --link-layer eth", 3, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	const char *cm_sets[] = { FAST, "fabric_loopback.connect=cm", NULL };
	char path[PATH_MAX];
	struct pf_result res;
	const struct pf_finding *f;

	/* the first RoCE netdev gen_root names: its address file goes */
	char *cmd;

	snprintf(path, sizeof(path), "%s/preflight/ip", root);
	cmd = pf_xasprintf("rm -f %s/$(ls %s | head -1)/addr", path, path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	/* auto: verbs, every rail tested, the summary says why */
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "connection"), "verbs");
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	pf_test_assert_contains(res.summary, "verbs, not RDMA-CM: mlx5_0/1");
	pf_result_release(&res);
	/* forced RDMA-CM: that rail fails, the two others still run both ways */
	run(root, cm_sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "has no IPv4 address: RDMA-CM cannot connect"));
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1 -> mlx5_2/1")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);
}

static int no_rdmacm(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret, char **ret_err)
{
	*ret_err = pf_xstrdup("librdmacm.so.1 not found: install rdma-core (librdmacm1)");
	return -ENOENT;
}

static void test_libraries_missing(void **state)
{
	char *root = setup("--gpus 0 --nics 2 --link-layer eth", 2, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	struct pf_providers prov = *pf_fake_fabric_providers();
	struct pf_result res;

	prov.rdmacm = no_rdmacm;
	run_with(root, &prov, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_non_null(strstr(res.findings[0].message, "librdmacm.so.1 not found"));
	pf_result_release(&res);
	teardown(root);

	/* InfiniBand without librdmacm falls back to LID/QPN */
	root = setup("--gpus 0 --nics 2", 2, IBV_LINK_LAYER_INFINIBAND);
	run_with(root, &prov, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* libibverbs that lists no device */
	pf_fake_verbs.list_errno = ENOSYS;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.findings[0].message, "ib_uverbs"));
	pf_result_release(&res);
	pf_fake_verbs.list_errno = 0;
	teardown(root);
}

/* The fake CUDA sees the GPUs gen_root wrote under @root, in bus order. */
static void fake_gpus_of(const char *root)
{
	static char bdfs[8][16];
	static const char *ptrs[8];
	char *cmd = pf_xasprintf("cd %s/sys/bus/pci/devices && grep -l 0x10de */vendor | "
				 "cut -d/ -f1 | sort", root);
	FILE *p = popen(cmd, "r");
	int n = 0;

	free(cmd);
	assert_non_null(p);
	while (n < 8 && fscanf(p, "%15s", bdfs[n]) == 1) {
		ptrs[n] = bdfs[n];
		n++;
	}
	pclose(p);
	assert_int_equal(n, 4);
	pf_fake_gpu_reset(n, ptrs);
}

/* The fake 4-rail RoCE node again, its GPUs seen by the fake CUDA. */
static void fresh_gpu_node(const char *root)
{
	pf_fake_verbs_reset(4, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(4);
	fake_gpus_of(root);
}

static void test_gpu_memory(void **state)
{
	char *root = setup("--gpus 4 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.use_gpu=true", NULL };
	const struct pf_finding *f;
	struct pf_result res;

	fake_gpus_of(root);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "memory"), "peermem");
	assert_int_equal(pf_fake_verbs.n_host_regs, 0);
	assert_int_equal(pf_fake.allocs, 0);
	pf_result_release(&res);

	/* forced without CUDA: an error */
	fresh_gpu_node(root);
	pf_fake.cuda_load = -ENOENT;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);
	teardown(root);
}

/*
 * Issue 31 item 9: the same node as test_shared_pcie_uplink sending from GPU
 * memory.  Each NIC's GPU sits behind the same switch, so its buffers never
 * cross the switch's uplink: the floor is not lowered by the uplink's share,
 * and a rail at 55% of its rate (220 of 400 Gb/s, a DGX A100 rail) fails; a
 * healthy node of the same shape at 380 Gb/s has no fail (gen_root gives
 * the odd NICs no GPU: they send host memory and warn that they do).
 */
static void test_shared_uplink_gpu_memory(void **state)
{
	char *root = setup("--gpus 4 --nics 8 --link-layer eth", 8, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, "fabric_loopback.use_gpu=true", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	fake_gpus_of(root);
	for (int i = 0; i < 8; i++)
		pf_fake_verbs.devs[i].gbps = 220;
	run(root, sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "memory"), "peermem");
	assert_null(cJSON_GetObjectItem(f->expected, "pcie_share"));
	assert_float_equal(cJSON_GetObjectItem(f->expected, "min_gbps")->valuedouble, 400 * 0.9,
			   1e-6);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);

	pf_fake_verbs_reset(8, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(8);
	fake_gpus_of(root);
	for (int i = 0; i < 8; i++)
		pf_fake_verbs.devs[i].gbps = 380;
	run(root, sets, &res);
	/* healthy: no fail; the odd NICs have no GPU of their own (a warn each) */
	assert_int_equal(count(&res, PF_STATUS_FAIL), 0);
	assert_int_equal(count(&res, PF_STATUS_WARN), 4);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_1/1")->message, "no GPU is paired");
	pf_result_release(&res);
	teardown(root);
}

/*
 * use_gpu=auto (the default) on a GPU node sends from GPU memory, the path
 * jobs use; where CUDA cannot load, or GPU memory cannot be registered, the
 * flows are measured from host memory with a warning, never an error or a
 * fail of the fabric.
 */
static void test_gpu_auto(void **state)
{
	char *root = setup("--gpus 4 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *sets[] = { FAST, NULL };
	const struct pf_finding *f;
	struct pf_result res;

	fake_gpus_of(root);
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_string_equal(obs_str(f, "memory"), "peermem");
	assert_int_equal(pf_fake_verbs.n_host_regs, 0);
	pf_result_release(&res);

	/* no libcuda: host memory, one warning */
	fresh_gpu_node(root);
	pf_fake.cuda_load = -ENOENT;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(count(&res, PF_STATUS_WARN), 1);
	pf_test_assert_contains(res.findings[0].message, "GPU-memory flows impossible");
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "memory"), "host");
	pf_result_release(&res);

	/* neither nvidia-peermem nor DMA-BUF: measured again from host memory */
	fresh_gpu_node(root);
	pf_fake_verbs.peermem = false;
	pf_fake_verbs.dmabuf = false;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, "gpu_memory");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "8 of 8 flows");
	f = pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "memory"), "host");
	assert_int_equal(pf_fake.allocs, 0);
	pf_result_release(&res);
	teardown(root);
}

/* `nics` sets the ring's order; undeclared rail-only fabrics fail every flow, with the hint */
static void test_nics_order_and_unreachable_rails(void **state)
{
	char *root = setup("--gpus 0 --nics 4 --link-layer eth", 4, IBV_LINK_LAYER_ETHERNET);
	const char *order[] = { FAST, "fabric_loopback.nics=mlx5_3,mlx5_0,mlx5_2", NULL };
	const char *sets[] = { FAST, NULL };
	struct pf_result res;

	run(root, order, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_3/1 -> mlx5_0/1"), "round"), 1);
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_0/1 -> mlx5_2/1"), "round"), 1);
	assert_int_equal((int)obs_num(pf_test_must_find(&res, "mlx5_2/1 -> mlx5_3/1"), "round"), 1);
	assert_null(pf_test_finding(&res, "mlx5_1/1 -> mlx5_2/1"));
	pf_result_release(&res);

	for (int i = 0; i < 4; i++)
		pf_fake_rdmacm.ports[i].arp_timeout = true;
	run(root, sets, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count(&res, PF_STATUS_FAIL), 8);
	assert_non_null(strstr(res.summary, "no flow connected (rails that do not reach each "
					    "other by design: rail_only)"));
	pf_result_release(&res);

	/* librdmacm could not move the QP on the reply */
	pf_fake_rdmacm_reset(4);
	pf_fake_rdmacm.ports[0].conn_resp_errno = EINVAL;
	run(root, sets, &res);
	assert_non_null(strstr(pf_test_must_find(&res, "mlx5_3/1 -> mlx5_0/1")->remedy, "RTR/RTS"));
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1 -> mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	teardown(root);
}

static void test_deadline_follows_settings(void **state)
{
	const struct pf_check *c = pf_registry_find("fabric_loopback");
	struct pf_profile prof;
	void *cfg = NULL;
	char *err = NULL;
	unsigned int base, longer;

	pf_profile_init(&prof);
	assert_int_equal(pf_config_build(c, &prof, &cfg, &err), 0);
	base = c->deadline_s(cfg);
	pf_config_free(c, cfg);
	pf_profile_add_set(&prof, "fabric_loopback.duration_ms=30000");
	assert_int_equal(pf_config_build(c, &prof, &cfg, &err), 0);
	longer = c->deadline_s(cfg);
	pf_config_free(c, cfg);
	pf_profile_release(&prof);
	/* 15 s + 2 rounds x (5500 MiB at 25 Gb/s + 64 MiB + 3 s + 2 x 2 s + 2 x 2 s) */
	assert_int_equal(base, 41);
	assert_true(longer >= base + 55); /* 30 s per round instead of the WRITE count */
}

/*
 * Issue 29 item 2: by default the compute rails of the rail model are
 * looped, in rail order.  A storage port of the rails' own link layer (an
 * IB ConnectX-6 at 200G beside no GPU) was a third ring member before; an
 * Ethernet front-end port is not looped either.  `nics` still decides.
 */
static void test_model_rails_only(void **state)
{
	char *root = setup("--gpus 2 --nics 2 --storage-nic --frontend-eth", 4,
			   IBV_LINK_LAYER_INFINIBAND);
	const char *sets[] = { FAST, NULL };
	const char *with_storage[] = { FAST, "fabric_loopback.nics=mlx5_0,mlx5_1,mlx5_2", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	run(root, sets, &res);
	assert_int_not_equal(res.status, PF_STATUS_FAIL);
	assert_non_null(pf_test_finding(&res, "mlx5_0/1 -> mlx5_1/1"));
	assert_null(pf_test_finding(&res, "mlx5_1/1 -> mlx5_2/1"));
	assert_null(pf_test_finding(&res, "mlx5_2/1 -> mlx5_0/1"));
	f = pf_test_must_find(&res, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "a storage port"));
	f = pf_test_must_find(&res, "mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "a frontend port"));
	pf_result_release(&res);
	/* named in nics, the storage port is looped */
	run(root, with_storage, &res);
	assert_non_null(pf_test_finding(&res, "mlx5_1/1 -> mlx5_2/1"));
	pf_result_release(&res);
	teardown(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_8_rails_golden),
		cmocka_unit_test(test_bad_cable_golden),
		cmocka_unit_test(test_slow_when_sending),
		cmocka_unit_test(test_single_slow_pair),
		cmocka_unit_test(test_arp_timeout_is_specific),
		cmocka_unit_test(test_rail_only_and_too_few),
		cmocka_unit_test(test_default_rails_rule),
		cmocka_unit_test(test_model_rails_only),
		cmocka_unit_test(test_slow_and_stalled_flows),
		cmocka_unit_test(test_distinct_rail_subnets_skip),
		cmocka_unit_test(test_blame_needs_evidence),
		cmocka_unit_test(test_expect_gbps),
		cmocka_unit_test(test_shared_pcie_uplink),
		cmocka_unit_test(test_gpu_auto),
		cmocka_unit_test(test_ib_verbs_and_ipoib),
		cmocka_unit_test(test_roce_verbs),
		cmocka_unit_test(test_corruption_and_retries),
		cmocka_unit_test(test_counters_per_port),
		cmocka_unit_test(test_explicit_pairs),
		cmocka_unit_test(test_rail_without_address),
		cmocka_unit_test(test_libraries_missing),
		cmocka_unit_test(test_gpu_memory),
		cmocka_unit_test(test_shared_uplink_gpu_memory),
		cmocka_unit_test(test_nics_order_and_unreachable_rails),
		cmocka_unit_test(test_deadline_follows_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
