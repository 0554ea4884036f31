// SPDX-License-Identifier: MIT
/*
 * test_check_nic_link_speed.c - nic_link_speed on roots written by
 * tests/gen_root.py: healthy IB and RoCE, one slow port, a degraded width,
 * a port down, an ignored port, RoCE MTU and netdev speed mismatches, a
 * device without a PCI parent, a second HCA model, profile expectations,
 * the linkmodes provider, no devices at all; the real qib0 capture and an
 * lstopo export (states without rates).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/net.h"
#include "testutil.h"

struct run {
	char *root;
	struct pf_result res;
};

static void run_on(struct run *r, const char *gen_args, const struct pf_providers *prov,
		   const char *const *sets)
{
	r->root = pf_test_gen_root(gen_args);
	pf_test_run_check("nic_link_speed", r->root, prov, sets, &r->res);
}

static void run_free(struct run *r)
{
	pf_result_release(&r->res);
	pf_test_rmtree(r->root);
	free(r->root);
}

static const struct pf_finding *finding(const struct run *r, const char *subject)
{
	return pf_test_must_find(&r->res, subject);
}

static double obs_num(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	if (!cJSON_IsNumber(v))
		fail_msg("%s: observed.%s missing", f->subject, key);
	return v->valuedouble;
}

static const char *obs_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static size_t count(const struct run *r, enum pf_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < r->res.n_findings; i++)
		n += r->res.findings[i].status == st;
	return n;
}

static void test_healthy(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 8 --nics 8", NULL, NULL);
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	assert_int_equal(count(&r, PF_STATUS_PASS), 8);
	assert_string_equal(r.res.summary, "8 ports ACTIVE at 400 Gb/s");
	f = finding(&r, "mlx5_0/1");
	assert_true(obs_num(f, "rate_gbps") == 400);
	assert_string_equal(obs_str(f, "width"), "4X");
	assert_string_equal(obs_str(f, "speed"), "NDR");
	assert_string_equal(obs_str(f, "state"), "ACTIVE");
	assert_string_equal(obs_str(f, "phys_state"), "LinkUp");
	assert_string_equal(obs_str(f, "netdev"), "ib0");
	assert_null(f->remedy);
	run_free(&r);
}

static void test_slow_port(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 4 --nics 4 --slow-port mlx5_3", NULL, NULL);
	assert_int_equal(r.res.status, PF_STATUS_FAIL);
	assert_int_equal(count(&r, PF_STATUS_FAIL), 1);
	f = finding(&r, "mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "100 Gb/s (4X EDR)"));
	assert_non_null(strstr(f->message, "at least 400 Gb/s"));
	assert_true(obs_num(f, "rate_gbps") == 100);
	assert_true(cJSON_GetObjectItem(f->expected, "min_rate_gbps")->valuedouble == 400);
	assert_non_null(strstr(f->remedy, "mlx5_3"));
	assert_int_equal(finding(&r, "mlx5_2/1")->status, PF_STATUS_PASS);
	/* the summary (JUnit's failure message, Slurm's reason) says which port and why */
	assert_string_equal(r.res.summary, "1 of 4 ports not at the expected state or rate "
			    "(first: mlx5_3/1: active at 100 Gb/s (4X EDR), expected at least "
			    "400 Gb/s like its siblings of the same model)");

	/* without inference and without a profile rate there is nothing to compare with */
	run_free(&r);
	run_on(&r, "--gpus 4 --nics 4 --slow-port mlx5_3", NULL,
	       (const char *const[]){ "nic_link_speed.infer=false", NULL });
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
}

static void test_degraded_width(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 4 --nics 4 --width-port mlx5_2", NULL, NULL);
	f = finding(&r, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "200 Gb/s (2X NDR)"));
	assert_non_null(strstr(f->message, "2 lanes"));
	assert_string_equal(obs_str(f, "width"), "2X");
	assert_string_equal(cJSON_GetObjectItem(f->expected, "width")->valuestring, "4X");
	assert_int_equal(count(&r, PF_STATUS_FAIL), 1);
	run_free(&r);
}

static void test_port_down(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 4 --nics 4 --down-port mlx5_1", NULL, NULL);
	f = finding(&r, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "DOWN (Polling)"));
	assert_string_equal(obs_str(f, "state"), "DOWN");
	/* the rate of a port that is not ACTIVE is never judged or reported as its rate */
	assert_null(cJSON_GetObjectItem(f->observed, "rate_gbps"));
	assert_non_null(strstr(f->remedy, "Polling"));
	assert_int_equal(count(&r, PF_STATUS_FAIL), 1);
	run_free(&r);

	/* RoCE: mlx5 shows 40 Gb/s (4X QDR) on a down port; that is not a slow port */
	run_on(&r, "--gpus 4 --nics 4 --link-layer eth --down-port mlx5_0", NULL, NULL);
	f = finding(&r, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "DOWN (Disabled)"));
	assert_null(strstr(f->message, "40 Gb/s"));
	assert_string_equal(obs_str(f, "rate_reported"), "40 Gb/sec (4X QDR)");
	assert_non_null(strstr(f->remedy, "ip link set enp20s0np0 up"));
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_PASS);
	run_free(&r);
}

static void test_ignored_port(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_on(&r, "--gpus 6 --nics 6 --down-port mlx5_1 --slow-port mlx5_4", NULL,
	       (const char *const[]){ "nic_link_speed.ignore=mlx5_1/1,mlx5_4", NULL });
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_SKIP);
	assert_int_equal(finding(&r, "mlx5_4/1")->status, PF_STATUS_SKIP);
	assert_int_equal(count(&r, PF_STATUS_PASS), 4);
	run_free(&r);
}

static void test_roce_mtu_speed(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 4 --nics 4 --link-layer eth --mtu-port mlx5_1 "
		   "--netdev-speed-port mlx5_2", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_0/1")->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(finding(&r, "mlx5_0/1"), "netdev"), "enp20s0np0");
	f = finding(&r, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "MTU 1500 gives RoCE MTU 1024, expected 4096"));
	assert_true(obs_num(f, "netdev_mtu") == 1500);
	assert_non_null(strstr(f->remedy, "enp28s0np0"));
	f = finding(&r, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "100000 Mb/s"));
	assert_true(obs_num(f, "netdev_speed_mbps") == 100000);
	run_free(&r);

	/* enough for a 4096 RoCE MTU but below the site MTU: a warning */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --mtu-port mlx5_1 --roce-mtu-bad 4200",
	       NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_WARN);
	assert_int_equal(r.res.status, PF_STATUS_WARN);
	run_free(&r);
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --mtu-port mlx5_1 --roce-mtu-bad 4200",
	       NULL, (const char *const[]){ "nic_link_speed.roce_netdev_mtu=0", NULL });
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
}

static int fake_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	(void)ctx;
	if (!strcmp(ifname, "enp28s0np0"))
		return -EOPNOTSUPP; /* falls back to sysfs */
	*ret = (struct pf_linkmodes){ .speed_mbps = 200000, .lanes = 4, .duplex = 1 };
	return 0;
}

static void test_linkmodes_provider(void **state)
{
	struct pf_providers prov = pf_providers_recorded;
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	prov.name = "test";
	prov.linkmodes = fake_linkmodes;
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth", &prov, NULL);
	f = finding(&r, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "200000 Mb/s (ethtool)"));
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_PASS);
	run_free(&r);

	prov.linkmodes = pf_providers_none.linkmodes; /* a table without the fact: sysfs speed */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth", &prov, NULL);
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
}

static void test_profile_expectations(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_on(&r, "--gpus 4 --nics 4 --rate 200", NULL,
	       (const char *const[]){ "nic_link_speed.min_rate_gbps=400", NULL });
	assert_int_equal(r.res.status, PF_STATUS_FAIL);
	assert_int_equal(count(&r, PF_STATUS_FAIL), 4);
	run_free(&r);

	run_on(&r, "--gpus 4 --nics 4", NULL,
	       (const char *const[]){ "nic_link_speed.expected_ports=8", NULL });
	assert_int_equal(finding(&r, "ports")->status, PF_STATUS_FAIL);
	assert_non_null(strstr(finding(&r, "ports")->message, "4 RDMA ports, expected 8"));
	run_free(&r);
}

static void test_models_and_virtual(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	/* a 200 Gb/s ConnectX-6 beside 400 Gb/s ConnectX-7s is a different model */
	run_on(&r, "--gpus 4 --nics 4 --storage-nic --no-pci-parent-dev scif0", NULL, NULL);
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	f = finding(&r, "mlx5_4/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_true(obs_num(f, "rate_gbps") == 200);
	assert_string_equal(obs_str(f, "model"), "MT4123 IB");
	/* no PCI function: its state is judged (ACTIVE), its rate is not */
	f = finding(&r, "scif0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "no PCI function: state judged, rate not"));
	run_free(&r);
	/* and it is not one of the HCA ports expected_ports counts */
	run_on(&r, "--gpus 4 --nics 4 --no-pci-parent-dev scif0", NULL,
	       (const char *const[]){ "nic_link_speed.expected_ports=4", NULL });
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
}

/* Soft-RoCE (issue 19, 22 item 4): no PCI function, yet a DOWN port fails. */
static void test_rxe(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	run_on(&r, "--gpus 0 --nics 0 --rxe 2 --link-layer eth", NULL, NULL);
	f = finding(&r, "rxe0/1");
	assert_int_equal(f->status, PF_STATUS_PASS); /* ACTIVE, veth at the port's 10 Gb/s */
	assert_non_null(strstr(f->message, "no PCI function: state judged, rate not"));
	run_free(&r);
	/* the profile's rate is an HCA's: not held against soft-RoCE */
	run_on(&r, "--gpus 0 --nics 0 --rxe 1 --link-layer eth", NULL,
	       (const char *const[]){ "nic_link_speed.min_rate_gbps=400", NULL });
	assert_int_equal(finding(&r, "rxe0/1")->status, PF_STATUS_PASS);
	run_free(&r);
	run_on(&r, "--gpus 0 --nics 0 --rxe 2 --link-layer eth --down-port rxe0,rxe1",
	       NULL, NULL);
	assert_int_equal(r.res.status, PF_STATUS_FAIL);
	f = finding(&r, "rxe0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "DOWN (Disabled)"));
	/* rxe's link_downed is in hw_counters/: known, 0 */
	assert_string_equal(obs_str(f, "down"), "never_cabled");
	assert_int_equal(finding(&r, "rxe1/1")->status, PF_STATUS_FAIL);
	run_free(&r);
	/* beside GPU rails too: rxe is no card of a second role */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --rxe 1 --down-port rxe0", NULL, NULL);
	assert_int_equal(finding(&r, "rxe0/1")->status, PF_STATUS_FAIL);
	run_free(&r);
}

static void test_no_devices(void **state)
{
	struct run r = { 0 };

	(void)state;
	run_on(&r, "--gpus 2 --nics 0", NULL, NULL);
	assert_int_equal(r.res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(r.res.summary, "no RDMA devices"));
	run_free(&r);
	/* unless the profile says there must be some */
	run_on(&r, "--gpus 2 --nics 0", NULL,
	       (const char *const[]){ "nic_link_speed.expected_ports=1", NULL });
	assert_int_equal(r.res.status, PF_STATUS_FAIL);
	/* not "1 of 0 ports not at the expected state or rate" */
	assert_string_equal(r.res.summary, "0 RDMA ports, expected 1");
	run_free(&r);
}

static void shared_capture_qib(void **state)
{
	pf_autofree char *path = pf_test_unpack_shared(
		"fixtures/hwloc-linux/40intel64-2g2n4c+pcilocality.tar.bz2", *state,
		"40intel64-2g2n4c+pci");
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("nic_link_speed", path, NULL, NULL, &res);
	f = pf_test_finding(&res, "qib0/1");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(f->message, "ACTIVE at 40 Gb/s (4X QDR)");
	assert_string_equal(res.summary, "1 port ACTIVE at 40 Gb/s");
	/* a single port: nothing to infer from; a profile rate still applies */
	pf_result_release(&res);
	pf_test_run_check("nic_link_speed", path, NULL,
			  (const char *const[]){ "nic_link_speed.min_rate_gbps=56", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
}

/*
 * mlx5 RoCE LAG: mlx5_bond_0's netdev is bond0, at the sum of its two
 * slaves; the port runs at one slave's rate.  Judged per slave.
 */
static void test_roce_lag(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;
	const cJSON *m;

	(void)state;
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --roce-lag 1", NULL, NULL);
	f = finding(&r, "mlx5_bond_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "LAG bond0 of 2 members"));
	assert_true(obs_num(f, "netdev_speed_mbps") == 800000);
	m = cJSON_GetObjectItemCaseSensitive(f->observed, "lag_members");
	assert_int_equal(cJSON_GetArraySize(m), 2);
	assert_true(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 1), "speed_mbps")->valuedouble ==
		    400000);
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);

	/* one leg down: the LAG runs on half its links */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --roce-lag 1 "
		   "--lag-member-down mlx5_bond_0:1", NULL, NULL);
	f = finding(&r, "mlx5_bond_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "bond0 member enp20s0f1np1 down"));
	run_free(&r);

	/* one leg at 100 Gb/s under a 400 Gb/s port */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --roce-lag 1 "
		   "--lag-member-slow mlx5_bond_0:0", NULL, NULL);
	f = finding(&r, "mlx5_bond_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "member enp20s0f0np0 at 100000 Mb/s"));
	run_free(&r);

	/* a snapshot older than bonding/slaves: a bond by its speed, a warning, not a fail */
	r.root = pf_test_gen_root("--gpus 2 --nics 2 --link-layer eth --roce-lag 1");
	{
		char cmd[PATH_MAX + 128];

		snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/devices/virtual/net/bond0/bonding "
			 "%s/sys/devices/virtual/net/bond0/lower_*", r.root, r.root);
		assert_int_equal(system(cmd), 0);
	}
	pf_test_run_check("nic_link_speed", r.root, NULL, NULL, &r.res);
	f = finding(&r, "mlx5_bond_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "2 x the port rate: a bond"));
	run_free(&r);

	/* the bond's MTU is still the RoCE MTU */
	run_on(&r, "--gpus 2 --nics 2 --link-layer eth --roce-lag 1 --mtu 1500", NULL, NULL);
	f = finding(&r, "mlx5_bond_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "bond0 MTU 1500"));
	run_free(&r);
}

/*
 * Same-model ports in different roles (the rail model, docs/rails.md): a
 * dual-port card of the compute NICs' model cabled at 200 Gb/s for
 * north/south beside 400 Gb/s rails is storage, one of its ports left DOWN
 * on purpose is unused; never cabled vs went down.
 */
static void test_roles_and_never_cabled(void **state)
{
	static const char *const rails[] = { "nic_link_speed.nics=mlx5_0,mlx5_1,mlx5_2,mlx5_3",
					     NULL };
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	/* the card's two ports at 200 Gb/s: storage, held to each other, not to the rails */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1", NULL, NULL);
	f = finding(&r, "mlx5_4/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "role"), "storage");
	assert_int_equal(finding(&r, "mlx5_5/1")->status, PF_STATUS_PASS);
	/* a compute rail's finding is as before: no role of its own to name */
	assert_null(obs_str(finding(&r, "mlx5_2/1"), "role"));
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);

	/*
	 * one of them never cabled, on a card beside no GPU (issue 22 item 5:
	 * a storage or front-end card with one port used): the model calls it
	 * unused, a skip with the reason, never a drain
	 */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_5", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_4/1")->status, PF_STATUS_PASS);
	f = finding(&r, "mlx5_5/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "unused port (down and never linked since boot"));
	assert_string_equal(obs_str(f, "role"), "unused");
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
	/* the issue's own root: RoCE, 8 rails, mlx5_9 of the second-role card uncabled */
	run_on(&r, "--link-layer eth --ns-card 1 --down-port mlx5_9", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_9/1")->status, PF_STATUS_SKIP);
	assert_true(r.res.status != PF_STATUS_FAIL);
	run_free(&r);
	/* still a port of the node for expected_ports */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_5", NULL,
	       (const char *const[]){ "nic_link_speed.expected_ports=6", NULL });
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
	/* the same port listed in nics is a rail: it fails */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_5", NULL,
	       (const char *const[]){ "nic_link_speed.nics=mlx5_0,mlx5_5", NULL });
	assert_int_equal(finding(&r, "mlx5_5/1")->status, PF_STATUS_FAIL);
	run_free(&r);
	/* a GPU's rail never cabled, without nics: still a failure */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_2", NULL, NULL);
	f = finding(&r, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "down"), "never_cabled");
	assert_int_equal(r.res.status, PF_STATUS_FAIL);
	run_free(&r);
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_5", NULL, rails);
	f = finding(&r, "mlx5_5/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "not in nic_link_speed.nics"));
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
}

/* Rails that went down or never came up, and slow ports that are no role: failures. */
static void test_rails_down_and_slow(void **state)
{
	static const char *const rails[] = { "nic_link_speed.nics=mlx5_0,mlx5_1,mlx5_2,mlx5_3",
					     NULL };
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	/* a rail that went down (link_downed counted it): fails and says so */
	run_on(&r, "--gpus 4 --nics 4 --down-port mlx5_1 --file "
		   "/sys/class/infiniband/mlx5_1/ports/1/counters/link_downed=3", NULL, rails);
	f = finding(&r, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "the link went down"));
	assert_string_equal(obs_str(f, "down"), "went_down");
	assert_true(obs_num(f, "link_downed") == 3);
	run_free(&r);

	/* a rail in nics that never came up still fails */
	run_on(&r, "--gpus 4 --nics 4 --down-port mlx5_2", NULL, rails);
	f = finding(&r, "mlx5_2/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "a rail of nic_link_speed.nics never came up"));
	run_free(&r);

	/* a single-port card slow among fast ones is no role: still a failure */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --slow-port mlx5_1 --slow-rate 200", NULL,
	       NULL);
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_FAIL);
	assert_int_equal(finding(&r, "mlx5_4/1")->status, PF_STATUS_PASS);
	run_free(&r);

	/*
	 * one storage port slow beside its fast card-mate (issue 29 item 2):
	 * judged against its role, as a warn; before the rail model it was
	 * held to the rails' 400 Gb/s and failed the node
	 */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --ns-rate 400 --slow-port mlx5_5 "
		   "--slow-rate 200", NULL, NULL);
	f = finding(&r, "mlx5_5/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "expected at least 400 Gb/s like the other ports "
				"of its role"));
	assert_non_null(strstr(f->message, "(a storage port, not a compute rail: warns at most)"));
	assert_string_equal(obs_str(f, "role"), "storage");
	assert_int_equal(r.res.status, PF_STATUS_WARN);
	run_free(&r);
}

/*
 * Issue 29 item 2: nic_link_speed judges by the rail model's roles.  Each
 * case failed the node before.
 */
static void test_rail_model_roles(void **state)
{
	struct run r = { 0 };
	const struct pf_finding *f;

	(void)state;
	/* a storage port at 200G (the rails' model) beside 400G rails: its own role */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --ns-rate 400 --slow-port mlx5_4,mlx5_5 "
		   "--slow-rate 200", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_4/1")->status, PF_STATUS_PASS);
	assert_int_equal(finding(&r, "mlx5_5/1")->status, PF_STATUS_PASS);
	assert_int_equal(r.res.status, PF_STATUS_PASS);
	run_free(&r);
	/* a storage port that went down: a warn naming the role, not a drain */
	run_on(&r, "--gpus 4 --nics 4 --ns-card 1 --down-port mlx5_5 --file "
		   "/sys/class/infiniband/mlx5_5/ports/1/counters/link_downed=2", NULL, NULL);
	f = finding(&r, "mlx5_5/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "the link went down"));
	assert_non_null(strstr(f->message, "a storage port, not a compute rail"));
	assert_int_equal(r.res.status, PF_STATUS_WARN);
	run_free(&r);
	/* a port the site declares storage, slower than the rails: held to its role */
	run_on(&r, "--gpus 0 --nics 4 --slow-port mlx5_3 --slow-rate 200", NULL,
	       (const char *const[]){ "rails.storage=mlx5_3", NULL });
	f = finding(&r, "mlx5_3/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "role"), "storage");
	run_free(&r);
	/* and the profile's rail minimum is not held against it */
	run_on(&r, "--gpus 0 --nics 4 --slow-port mlx5_3 --slow-rate 200", NULL,
	       (const char *const[]){ "rails.storage=mlx5_3", "nic_link_speed.min_rate_gbps=400",
				      NULL });
	assert_int_equal(finding(&r, "mlx5_3/1")->status, PF_STATUS_PASS);
	assert_int_equal(finding(&r, "mlx5_0/1")->status, PF_STATUS_PASS);
	run_free(&r);
	/* an Ethernet front-end port on an IB node, MTU 1500: a warn at most */
	run_on(&r, "--frontend-eth --mtu-port mlx5_8", NULL, NULL);
	f = finding(&r, "mlx5_8/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_string_equal(obs_str(f, "role"), "frontend");
	assert_non_null(strstr(f->message, "a frontend port, not a compute rail"));
	run_free(&r);
	/* a compute rail slow on a GPU node still fails, whatever its card */
	run_on(&r, "--gpus 4 --nics 4 --slow-port mlx5_2 --slow-rate 200", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_2/1")->status, PF_STATUS_FAIL);
	run_free(&r);
	/*
	 * no NIC beside a GPU: the model finds the rails by rate, and a slower
	 * port of theirs may be a degraded rail: still a failure ...
	 */
	run_on(&r, "--gpus 0 --nics 4 --slow-port mlx5_1 --slow-rate 200", NULL, NULL);
	assert_int_equal(finding(&r, "mlx5_1/1")->status, PF_STATUS_FAIL);
	run_free(&r);
	/* ... unless its whole card runs at that rate (a card cabled for another network) */
	run_on(&r, "--gpus 0 --nics 4 --ns-card 1", NULL, NULL);
	f = finding(&r, "mlx5_4/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "role"), "card");
	run_free(&r);
}

static void shared_hwloc_export(void **state)
{
	char cmd[2 * PATH_MAX + 64];
	pf_autofree char *path = pf_test_shared_or_skip("fixtures/hwloc-xml/topo.jwb0001.xml");
	const char *tmp = *state;
	struct pf_result res;
	const struct pf_finding *f;

	/* an lstopo export as the root's own preflight/topology.xml: states, no rates */
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/preflight' && cp '%s' '%s/preflight/topology.xml'",
		 tmp, path, tmp);
	assert_int_equal(system(cmd), 0);
	pf_test_run_check("nic_link_speed", tmp, NULL, NULL, &res);
	f = pf_test_finding(&res, "mlx5_0/1");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "no port rate"));
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_string_equal(res.summary, "4 ports ACTIVE; the topology export carries no rates");
	pf_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_slow_port),
		cmocka_unit_test(test_degraded_width),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_ignored_port),
		cmocka_unit_test(test_roce_mtu_speed),
		cmocka_unit_test(test_linkmodes_provider),
		cmocka_unit_test(test_profile_expectations),
		cmocka_unit_test(test_models_and_virtual),
		cmocka_unit_test(test_rxe),
		cmocka_unit_test(test_no_devices),
		pf_test_in_tmpdir(shared_capture_qib),
		pf_test_in_tmpdir(shared_hwloc_export),
		cmocka_unit_test(test_roce_lag),
		cmocka_unit_test(test_roles_and_never_cabled),
		cmocka_unit_test(test_rails_down_and_slow),
		cmocka_unit_test(test_rail_model_roles),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
