// SPDX-License-Identifier: MIT
/*
 * test_check_pfc_pause.c - the pfc_pause check on recorded roots: a RoCE
 * node written by tests/gen_root.py plus the preflight/ captures each case
 * needs (docs/snapshot.md), and on a fake provider table that stands in
 * for the live backend's two samples.
 */
#include <dirent.h>
#include <string.h>

#include "preflight/net.h"
#include "preflight/node.h"
#include "registry.h"
#include "testutil.h"

#define PFC_ON3 "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n"
#define PFC_OFF "pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off\n"
#define PAUSE_OFF "Pause parameters for X:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n"
#define PAUSE_ON "Pause parameters for X:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n"

struct fixture {
	char *dir;
	char ifs[2][32]; /* the RoCE netdevs gen_root.py wrote */
	size_t n_ifs;
};

/* Generate a root; false (and the test skips) without python3. */
static bool gen(struct fixture *fx, const char *args)
{
	char cmd[1024];

	fx->dir = pf_test_mkdtemp();
	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen_root.py' '%s/root' %s >/dev/null 2>&1",
		 PF_SOURCE_DIR, fx->dir, args);
	if (system(cmd) != 0) {
		print_message("skip: tests/gen_root.py failed (python3 missing?)\n");
		pf_test_rmtree(fx->dir);
		free(fx->dir);
		return false;
	}
	return true;
}

static struct pf_node *load(struct fixture *fx, struct pf_fs **ret_fs)
{
	char root[512], *err = NULL;
	struct pf_node *node = NULL;

	snprintf(root, sizeof(root), "%s/root", fx->dir);
	assert_int_equal(pf_fs_open(root, ret_fs), 0);
	assert_int_equal(pf_node_load(*ret_fs, NULL, &node, &err), 0);
	fx->n_ifs = 0;
	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++) {
			const struct pf_rdma_port *p = &node->rdma[i].ports[j];

			if (p->link_layer == PF_LINK_ETH && p->netdev >= 0 && fx->n_ifs < 2)
				snprintf(fx->ifs[fx->n_ifs++], sizeof(fx->ifs[0]), "%s",
					 node->netdevs[p->netdev].name);
		}
	return node;
}

/* One generated RoCE root shared by the tests; each starts with an empty preflight/. */
static struct fixture roce_fx;
static bool roce_ok;

static int group_setup(void **state)
{
	struct pf_fs *fs = NULL;

	roce_ok = gen(&roce_fx, "--gpus 2 --nics 2 --link-layer eth");
	if (roce_ok) {
		pf_node_free(load(&roce_fx, &fs));
		pf_fs_free(fs);
	}
	return 0;
}

static int group_teardown(void **state)
{
	if (roce_ok) {
		pf_test_rmtree(roce_fx.dir);
		free(roce_fx.dir);
	}
	return 0;
}

static struct fixture setup_roce(void)
{
	char path[512];

	if (!roce_ok)
		skip();
	assert_int_equal(roce_fx.n_ifs, 2);
	snprintf(path, sizeof(path), "%s/root/preflight", roce_fx.dir);
	pf_test_rmtree(path);
	return roce_fx;
}

static void put(const struct fixture *fx, const char *iface, const char *file, const char *text)
{
	char rel[256];

	if (!strncmp(file, "dcb", 3))
		snprintf(rel, sizeof(rel), "root/preflight/dcb/%s/pfc", iface);
	else
		snprintf(rel, sizeof(rel), "root/preflight/ethtool/%s/%s", iface, file);
	pf_test_write(fx->dir, rel, text);
}

/* `ethtool -S` text of an mlx5 port with prio3 counters and storm counters. */
static char *stats_text(uint64_t rx3, uint64_t tx3, uint64_t rx3_us, uint64_t tx3_us,
			uint64_t storm_err, uint64_t storm_warn)
{
	return pf_xasprintf("NIC statistics:\n"
			    "     rx_packets: 1000\n"
			    "     rx_pause_ctrl_phy: %llu\n"
			    "     rx_prio3_pause: %llu\n"
			    "     rx_prio3_pause_duration: %llu\n"
			    "     tx_prio3_pause: %llu\n"
			    "     tx_prio3_pause_duration: %llu\n"
			    "     rx_prio3_pause_transition: 0\n"
			    "     tx_pause_storm_warning_events: %llu\n"
			    "     tx_pause_storm_error_events: %llu\n",
			    (unsigned long long)rx3, (unsigned long long)rx3,
			    (unsigned long long)rx3_us, (unsigned long long)tx3,
			    (unsigned long long)tx3_us, (unsigned long long)storm_warn,
			    (unsigned long long)storm_err);
}

static void put_stats(const struct fixture *fx, const char *iface, const char *file,
		      uint64_t rx3, uint64_t tx3, uint64_t rx3_us, uint64_t tx3_us,
		      uint64_t storm_err, uint64_t storm_warn)
{
	char *t = stats_text(rx3, tx3, rx3_us, tx3_us, storm_err, storm_warn);

	put(fx, iface, file, t);
	free(t);
}

/* A healthy port: PFC on 3, pause off, a window with no pause activity. */
static void healthy(const struct fixture *fx, const char *iface)
{
	put(fx, iface, "dcb", PFC_ON3);
	put(fx, iface, "pause", PAUSE_OFF);
	put_stats(fx, iface, "stats", 10, 20, 300, 400, 0, 0);
	put_stats(fx, iface, "stats.after", 10, 20, 300, 400, 0, 0);
}

static void run(struct fixture *fx, const struct pf_providers *prov, const char *const *sets,
		struct pf_result *res)
{
	const struct pf_check *c = pf_registry_find("pfc_pause");
	struct pf_profile prof;
	struct pf_run r = { 0 };
	struct pf_ctx ctx = { 0 };
	struct pf_fs *fs = NULL;
	char *err = NULL;

	assert_non_null(c);
	assert_true(c->flags & PF_CHECK_NEEDS_NODE);
	pf_profile_init(&prof);
	for (size_t i = 0; sets && sets[i]; i++)
		pf_profile_add_set(&prof, sets[i]);
	assert_int_equal(pf_config_build(c, &prof, &r.cfg, &err), 0);
	ctx.node = load(fx, &fs);
	ctx.fs = fs;
	ctx.prov = prov ? prov : &pf_providers_recorded;
	pf_test_assert_providers_complete(ctx.prov);
	r.check = c;
	pf_run_inline(&ctx, &r);
	*res = r.res;
	pf_config_free(c, r.cfg);
	pf_node_free(ctx.node);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

static void done(struct fixture *fx, struct pf_result *res)
{
	pf_result_release(res);
	if (fx->dir != roce_fx.dir) {
		pf_test_rmtree(fx->dir);
		free(fx->dir);
	}
}

static const struct pf_finding *finding(const struct pf_result *res, const char *iface,
					const char *suffix)
{
	char subject[96];
	const struct pf_finding *f;

	snprintf(subject, sizeof(subject), "%s%s", iface, suffix);
	f = pf_test_finding(res, subject);
	if (!f)
		print_message("no finding for %s\n", subject);
	assert_non_null(f);
	return f;
}

static double obs_num(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_healthy(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	pf_test_write(fx.dir, "root/preflight/window_ms", "1000\n");
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(finding(&res, fx.ifs[i], "")->status, PF_STATUS_PASS);
		assert_int_equal(finding(&res, fx.ifs[i], "/storm")->status, PF_STATUS_PASS);
		assert_int_equal(finding(&res, fx.ifs[i], "/prio3")->status, PF_STATUS_PASS);
		assert_string_equal(cJSON_GetObjectItem(finding(&res, fx.ifs[i], "/prio3")->observed,
							"over")->valuestring,
				    "window");
	}
	/* Idle priorities without counters get no finding. */
	assert_null(pf_test_finding(&res, "enp20s0np0/prio0"));
	done(&fx, &res);
}

static void put_app(const struct fixture *fx, const char *iface, const char *text)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "root/preflight/dcb/%s/app", iface);
	pf_test_write(fx->dir, rel, text);
}

/* The RDMA device under @iface in the generated root ("mlx5_0"). */
static void ibdev_of(const struct fixture *fx, const char *iface, char *buf, size_t len)
{
	char path[512];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "%s/root/sys/class/net/%s/device/infiniband", fx->dir, iface);
	d = opendir(path);
	assert_non_null(d);
	buf[0] = '\0';
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			snprintf(buf, len, "%.63s", de->d_name);
	closedir(d);
	assert_true(buf[0]);
}

/*
 * Trust: PFC on priority 3 protects RoCE only if RoCE lands there.  DSCP
 * trust with DSCP 26 mapped to 0 is lossy RoCE (it passed before: the APP
 * table was never read); PCP trust cannot be seen through (a warning); no
 * table captured, or a lossy fabric: not judged.
 */
static void test_trust(void **state)
{
	static const char *const lossy[] = { "pfc_pause.require_pfc=false", NULL };
	static const char *const dscp26[] = { "pfc_pause.roce_dscp=26", NULL };
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;
	char dev[64], rel[256];

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	pf_test_write(fx.dir, "root/preflight/window_ms", "1000\n");

	/* no APP table captured: nothing said about trust */
	run(&fx, NULL, NULL, &res);
	assert_null(pf_test_finding(&res, "enp20s0np0/trust"));
	pf_result_release(&res);

	put_app(&fx, fx.ifs[0], "dscp-prio 26:3 48:6\n");
	put_app(&fx, fx.ifs[1], "dscp-prio 0:0 26:0\n");
	/*
	 * Nothing on the node says which DSCP RoCE carries: 26 is assumed and a
	 * mismatch only warns (a site marking RoCE with another DSCP is healthy)
	 */
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(finding(&res, fx.ifs[0], "/trust")->status, PF_STATUS_PASS);
	f = finding(&res, fx.ifs[1], "/trust");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "(DSCP 26, assumed: set pfc_pause.roce_dscp)"));
	pf_result_release(&res);
	/* the profile states it: evidence enough to fail */
	run(&fx, NULL, dscp26, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = finding(&res, fx.ifs[1], "/trust");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "(DSCP 26, the profile's roce_dscp) lands on priority 0"));
	assert_non_null(strstr(f->remedy, "dscp-prio 26:3"));
	pf_result_release(&res);

	/* no entry for 26: the NIC's default DSCP / 8 = 3; the port's own ToS overrides */
	put_app(&fx, fx.ifs[1], "dscp-prio 0:0 24:3\n");
	run(&fx, NULL, NULL, &res);
	assert_int_equal(finding(&res, fx.ifs[1], "/trust")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	ibdev_of(&fx, fx.ifs[1], dev, sizeof(dev));
	snprintf(rel, sizeof(rel), "root/sys/kernel/config/rdma_cm/%s/ports/1/default_roce_tos", dev);
	pf_test_write(fx.dir, rel, "0\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[1], "/trust");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "(DSCP 0, rdma_cm default_roce_tos 0)"));
	pf_result_release(&res);

	/* PCP trust: a warning naming what decides it */
	put_app(&fx, fx.ifs[1], "\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[1], "/trust");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "only if it is VLAN-tagged with PCP 3"));
	pf_result_release(&res);

	/* a lossy RoCE fabric: trust is not judged */
	run(&fx, NULL, lossy, &res);
	snprintf(rel, sizeof(rel), "%s/trust", fx.ifs[1]);
	assert_null(pf_test_finding(&res, rel));
	done(&fx, &res);
}

static void test_storm_one_priority(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	/* Port 1: prio 3 paused (tx) for 500 ms of a 1 s window, one storm error event. */
	put_stats(&fx, fx.ifs[1], "stats.after", 10, 5020, 300, 500400, 1, 1);
	pf_test_write(fx.dir, "root/preflight/window_ms", "1000\n");
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = finding(&res, fx.ifs[1], "/prio3");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "priority 3 paused 50.0 %"));
	assert_true(obs_num(f, "paused_pct") > 49.9 && obs_num(f, "paused_pct") < 50.1);
	assert_int_equal(obs_num(f, "tx_pause_frames"), 5000);
	assert_non_null(f->remedy);
	f = finding(&res, fx.ifs[1], "/storm");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_int_equal(obs_num(f, "storm_error_events"), 1);
	/* A device with only the error counter, still judged over the window. */
	put(&fx, fx.ifs[0], "stats", "NIC statistics:\n     tx_pause_storm_error_events: 4\n");
	put(&fx, fx.ifs[0], "stats.after", "NIC statistics:\n     tx_pause_storm_error_events: 4\n");
	pf_result_release(&res);
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "/storm");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(cJSON_GetObjectItem(f->observed, "over")->valuestring, "window");
	healthy(&fx, fx.ifs[0]);
	pf_result_release(&res);
	run(&fx, NULL, NULL, &res);
	/* The other port stays healthy. */
	assert_int_equal(finding(&res, fx.ifs[0], "/prio3")->status, PF_STATUS_PASS);
	assert_int_equal(finding(&res, fx.ifs[0], "/storm")->status, PF_STATUS_PASS);
	done(&fx, &res);
}

static void test_pause_thresholds(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	/* 5 % paused over a 2 s window: warn at the defaults, fail at fail_pause_pct=4. */
	put_stats(&fx, fx.ifs[0], "stats.after", 10, 20, 100300, 400, 0, 0);
	pf_test_write(fx.dir, "root/preflight/window_ms", "2000\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "/prio3");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_int_equal(obs_num(f, "window_ms"), 2000);
	pf_result_release(&res);

	run(&fx, NULL, (const char *const[]){ "pfc_pause.fail_pause_pct=4", NULL }, &res);
	assert_int_equal(finding(&res, fx.ifs[0], "/prio3")->status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* Pause frames arriving at the idle node, without pause time: warn. */
	put_stats(&fx, fx.ifs[0], "stats.after", 17, 20, 300, 400, 0, 0);
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "/prio3");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "7 pause frames arrived"));
	pf_result_release(&res);
	run(&fx, NULL, (const char *const[]){ "pfc_pause.idle_rx_pause_per_s=10", NULL }, &res);
	assert_int_equal(finding(&res, fx.ifs[0], "/prio3")->status, PF_STATUS_PASS);
	done(&fx, &res);
}

static void test_pfc_off_one_port(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	put(&fx, fx.ifs[1], "dcb", PFC_OFF);
	pf_test_write(fx.dir, "root/preflight/window_ms", "1000\n");
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = finding(&res, fx.ifs[1], "");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "PFC off for priority 3 (enabled: none)"));
	assert_non_null(strstr(f->remedy, "prio-pfc 3:on"));
	assert_int_equal(finding(&res, fx.ifs[0], "")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* PFC on 3 is wrong when RoCE runs on priority 5. */
	run(&fx, NULL, (const char *const[]){ "pfc_pause.roce_prio=5", NULL }, &res);
	assert_int_equal(finding(&res, fx.ifs[0], "")->status, PF_STATUS_FAIL);
	assert_int_equal(finding(&res, fx.ifs[0], "/prio5")->status, PF_STATUS_SKIP);
	pf_result_release(&res);

	/* Lossy RoCE: PFC off is accepted. */
	run(&fx, NULL, (const char *const[]){ "pfc_pause.require_pfc=false", NULL }, &res);
	assert_int_equal(finding(&res, fx.ifs[1], "")->status, PF_STATUS_PASS);
	done(&fx, &res);
}

static void test_global_pause_on(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	put(&fx, fx.ifs[0], "pause", PAUSE_ON "Statistics:\n  tx_pause_frames: 5\n  rx_pause_frames: 6\n");
	pf_test_write(fx.dir, "root/preflight/window_ms", "1000\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "");
	/*
	 * PFC on for the RoCE priority, global pause reported on beside it: a
	 * warn until a ConnectX capture shows whether firmware reports this on
	 * a correctly configured port (mlx5e_get_pauseparam; issue 22 item 15)
	 */
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "global pause rx on, tx on alongside PFC"));
	assert_non_null(strstr(f->message, "unverified"));
	assert_non_null(strstr(f->remedy, "ethtool -A"));
	assert_int_equal(obs_num(f, "global_pause_rx_frames"), 6);
	assert_int_equal(finding(&res, fx.ifs[1], "")->status, PF_STATUS_PASS);
	assert_int_equal(res.status, PF_STATUS_WARN);
	done(&fx, &res);

	/* PFC off for the RoCE priority with global pause on still fails */
	fx = setup_roce();
	healthy(&fx, fx.ifs[0]);
	healthy(&fx, fx.ifs[1]);
	put(&fx, fx.ifs[0], "pause", PAUSE_ON);
	put(&fx, fx.ifs[0], "dcb", "pfc-cap 8 macsec-bypass off delay 0\n"
	    "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "PFC off for priority 3"));
	assert_non_null(strstr(f->remedy, "turn global pause off"));
	done(&fx, &res);
}

/*
 * A RoCE port whose netdev is not in the inventory: under --root (a partial
 * capture) a skip naming what is missing; live an error (issue 22 item 13).
 */
static void test_port_without_netdev(void **state)
{
	static char name[] = "mlx5_0";
	struct pf_rdma_port port = { .num = 1, .link_layer = PF_LINK_ETH, .netdev = -1 };
	struct pf_rdma_dev dev = { .name = name, .pci = -1, .ports = &port, .n_ports = 1 };
	struct pf_node node = { .source = "sysfs", .rdma = &dev, .n_rdma = 1 };
	struct pf_providers node_prov;
	char *dir = pf_test_mkdtemp();
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	pf_test_run_check_node("pfc_pause", dir, &pf_providers_recorded, &node, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "netdev not in the snapshot");
	pf_test_assert_contains(f->message, "gid_attrs/ndevs/0");
	pf_result_release(&res);
	/* the same node read live (facts of the node itself): an error */
	node_prov = pf_providers_recorded;
	node_prov.caps = PF_PROV_NODE;
	pf_test_run_check_node("pfc_pause", dir, &node_prov, &node, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "RoCE port has no netdev");
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

static void test_ib_only_and_no_rdma(void **state)
{
	struct fixture fx = { 0 };
	struct pf_result res;

	if (!gen(&fx, "--gpus 2 --nics 2 --link-layer ib"))
		skip();
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "InfiniBand"));
	done(&fx, &res);

	if (!gen(&fx, "--gpus 2 --nics 0"))
		skip();
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "no RDMA devices"));
	done(&fx, &res);
}

static void test_one_sample(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	/* gen_root.py's uptime is 86400 s. */
	put(&fx, fx.ifs[0], "dcb", PFC_ON3);
	put(&fx, fx.ifs[1], "dcb", PFC_ON3);
	/* Port 0: storm events since boot; port 1: 5 % of the uptime paused. */
	put_stats(&fx, fx.ifs[0], "stats", 10, 20, 300, 400, 2, 0);
	put_stats(&fx, fx.ifs[1], "stats", 10, 20, 300, 4320000000ULL, 0, 0);
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "/storm");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "since boot"));
	assert_int_equal(finding(&res, fx.ifs[0], "/prio3")->status, PF_STATUS_PASS);
	f = finding(&res, fx.ifs[1], "/prio3");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_true(obs_num(f, "paused_pct") > 4.99 && obs_num(f, "paused_pct") < 5.01);
	assert_int_equal(obs_num(f, "uptime_s"), 86400);
	assert_int_equal(finding(&res, fx.ifs[1], "/storm")->status, PF_STATUS_PASS);
	/* The pause capture is absent: not judged, said so. */
	f = finding(&res, fx.ifs[0], "");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_non_null(strstr(f->message, "global pause not in the snapshot"));
	pf_result_release(&res);

	/* A frame rate since boot above the bound, no duration counters (dcb -s counters). */
	put(&fx, fx.ifs[1], "stats", "NIC statistics:\n     rx_packets: 5\n");
	put(&fx, fx.ifs[1], "dcb", PFC_ON3 "requests 0:0 1:0 2:0 3:9000000 4:0 5:0 6:0 7:0\n"
					    "indications 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[1], "/prio3");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_string_equal(cJSON_GetObjectItem(f->observed, "source")->valuestring, "dcb");
	assert_int_equal(obs_num(f, "tx_pause_frames"), 9000000);
	done(&fx, &res);
}

static void test_not_captured_and_unsupported(void **state)
{
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	/* Nothing under preflight/: every subject skips, the check skips. */
	run(&fx, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_int_equal(finding(&res, fx.ifs[0], "")->status, PF_STATUS_SKIP);
	assert_int_equal(finding(&res, fx.ifs[0], "/prio3")->status, PF_STATUS_SKIP);
	pf_result_release(&res);

	/* The tools' "not supported" output is reported as such. */
	put(&fx, fx.ifs[0], "dcb", "Attribute read: Operation not supported\n");
	put(&fx, fx.ifs[0], "pause", "netlink error: Operation not supported\n");
	put(&fx, fx.ifs[0], "stats", "no stats available\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "DCB not supported"));
	assert_non_null(strstr(f->message, "global pause not supported by the driver"));
	f = finding(&res, fx.ifs[0], "/prio3");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "not supported by the driver"));
	pf_result_release(&res);

	/* A capture that is not the tool's output is an error for that netdev. */
	put(&fx, fx.ifs[0], "dcb", "hello\n");
	put(&fx, fx.ifs[0], "stats", "hello\n");
	run(&fx, NULL, NULL, &res);
	f = finding(&res, fx.ifs[0], "");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	assert_non_null(strstr(f->message, "is not `dcb pfc show` output"));
	f = finding(&res, fx.ifs[0], "/counters");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	assert_non_null(strstr(f->message, "is not `ethtool -S` output"));
	done(&fx, &res);
}

/* --- a fake live backend: two different samples, a wait that does not sleep --- */

struct fake_state {
	unsigned int waited_ms;
	int stats_calls;
};
static struct fake_state fake;

static int fake_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	*ret = (struct pf_pfc){ .pfc_cap = 8, .pfc_en = 0x08 };
	return 0;
}

static int fake_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	*ret = (struct pf_pause){ 0 };
	return 0;
}

static int fake_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
		      struct pf_stats *ret)
{
	char *t;
	int r;

	fake.stats_calls++;
	if (!strcmp(ifname, "enp28s0np0"))
		return -EIO;
	/* 250 ms of rx pause in the window: 25 % of 1 s, a fail. */
	t = stats_text(sample ? 400 : 100, 0, sample ? 250000 : 0, 0, 0, 0);
	r = pf_parse_ethtool_stats(t, ret);
	free(t);
	return r < 0 ? r : 0;
}

static int fake_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	fake.waited_ms = ms;
	*ret_ms = ms;
	return 0;
}

static void test_live_window(void **state)
{
	struct pf_providers prov = pf_providers_none;
	struct fixture fx = setup_roce();
	struct pf_result res;
	const struct pf_finding *f;

	prov.name = "fake";
	prov.pfc = fake_pfc;
	prov.pause = fake_pause;
	prov.ethtool_stats = fake_stats;
	prov.wait = fake_wait;
	assert_string_equal(fx.ifs[1], "enp28s0np0");
	fake = (struct fake_state){ 0 };
	run(&fx, &prov, NULL, &res);
	assert_int_equal(fake.waited_ms, 1000);
	assert_int_equal(fake.stats_calls, 3); /* two samples of port 0, one failed read of port 1 */
	f = finding(&res, fx.ifs[0], "/prio3");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "rx 25.0 %"));
	assert_int_equal(obs_num(f, "rx_pause_frames"), 300);
	f = finding(&res, fx.ifs[1], "/counters");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	pf_result_release(&res);

	/* window_ms=0: one sample, no wait. */
	fake = (struct fake_state){ 0 };
	run(&fx, &prov, (const char *const[]){ "pfc_pause.window_ms=0", NULL }, &res);
	assert_int_equal(fake.waited_ms, 0);
	assert_int_equal(fake.stats_calls, 2);
	assert_string_equal(cJSON_GetObjectItem(finding(&res, fx.ifs[0], "/prio3")->observed,
						"over")->valuestring,
			    "since boot");
	done(&fx, &res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_trust),
		cmocka_unit_test(test_storm_one_priority),
		cmocka_unit_test(test_pause_thresholds),
		cmocka_unit_test(test_pfc_off_one_port),
		cmocka_unit_test(test_global_pause_on),
		cmocka_unit_test(test_port_without_netdev),
		cmocka_unit_test(test_ib_only_and_no_rdma),
		cmocka_unit_test(test_one_sample),
		cmocka_unit_test(test_not_captured_and_unsupported),
		cmocka_unit_test(test_live_window),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
