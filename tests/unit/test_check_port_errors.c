// SPDX-License-Identifier: MIT
/*
 * test_check_port_errors.c - the port_errors check on temporary roots with
 * hand-written counter files: absolute values normalised by uptime (the
 * recorded-root mode), missing, N/A and garbage counters, and the sampling
 * window, with a thread that bumps a counter while the check sleeps.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "registry.h"
#include "testutil.h"

#define PORT1 "sys/class/infiniband/mlx5_0/ports/1/"
#define PORT2 "sys/class/infiniband/mlx5_1/ports/1/"

static const char *const pma[] = {
	"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
	"port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors", "port_xmit_discards",
	"port_xmit_constraint_errors", "port_rcv_constraint_errors",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors", "VL15_dropped",
	"port_xmit_data", "port_rcv_data", NULL,
};

static const char *const hw[] = {
	"out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "rnr_nak_retry_err",
	"implied_nak_seq_err", "out_of_buffer", "rx_write_requests", "np_cnp_sent", NULL,
};

struct tnode {
	struct pf_node node;
	struct pf_rdma_dev rdma[2];
	struct pf_rdma_port ports[2];
};

static void build(struct tnode *t)
{
	static char mlx5_0[] = "mlx5_0", mlx5_1[] = "mlx5_1";

	memset(t, 0, sizeof(*t));
	t->ports[0].num = 1;
	t->ports[1].num = 1;
	t->rdma[0] = (struct pf_rdma_dev){ .name = mlx5_0, .pci = -1, .ports = &t->ports[0],
					   .n_ports = 1 };
	t->rdma[1] = (struct pf_rdma_dev){ .name = mlx5_1, .pci = -1, .ports = &t->ports[1],
					   .n_ports = 1 };
	t->node = (struct pf_node){ .source = "sysfs", .rdma = t->rdma, .n_rdma = 2 };
}

/* Zero counters for both ports, and an uptime. */
static void write_zero(const char *root, const char *uptime)
{
	char rel[256];

	for (const char *const *port = (const char *const[]){ PORT1, PORT2, NULL }; *port; port++) {
		for (size_t i = 0; pma[i]; i++) {
			snprintf(rel, sizeof(rel), "%scounters/%s", *port, pma[i]);
			pf_test_write(root, rel, "0\n");
		}
		for (size_t i = 0; hw[i]; i++) {
			snprintf(rel, sizeof(rel), "%shw_counters/%s", *port, hw[i]);
			pf_test_write(root, rel, "0\n");
		}
	}
	/* data and op counters are not errors: large values are fine */
	pf_test_write(root, PORT1 "counters/port_xmit_data", "98765432109\n");
	pf_test_write(root, PORT1 "hw_counters/rx_write_requests", "4000000000\n");
	if (uptime)
		pf_test_write(root, "proc/uptime", uptime);
}

/* A counting wait: how often and how long the check asked to wait. */
static unsigned int waits;
static double waited_ms;

static int counting_live_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	waits++;
	waited_ms += ms;
	return pf_live_wait(ctx, ms, ret_ms);
}

/* The recorded providers, but waiting for real: a temporary root standing for a live node. */
static const struct pf_providers *live_wait_providers(void)
{
	static struct pf_providers p;

	p = pf_providers_recorded;
	p.name = "test-live-wait";
	p.caps = PF_PROV_ELAPSES; /* time passes on the temporary root between samples */
	p.wait = counting_live_wait;
	return &p;
}

static void run_check_prov(const char *root, struct pf_node *node, const char *const *sets,
			   const struct pf_providers *prov, struct pf_result *res);

static void run_check(const char *root, struct pf_node *node, const char *const *sets,
		      struct pf_result *res)
{
	run_check_prov(root, node, sets, &pf_providers_recorded, res);
}

static void run_check_prov(const char *root, struct pf_node *node, const char *const *sets,
			   const struct pf_providers *prov, struct pf_result *res)
{
	/* the deadline covers the longest window with a margin */
	assert_true(pf_registry_find("port_errors")->timeout_s * 1000 >= 10000 + 2000);
	pf_test_run_check_node("port_errors", root, prov, node, sets, res);
}

static void test_zero_pass(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	write_zero(*state, "7200.00 14000.00\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 2);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "2.0 h uptime");
	assert_int_equal(cJSON_GetObjectItem(f->observed, "uptime_s")->valueint, 7200);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_symbol_error_short_uptime(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	write_zero(*state, "600.5 1000.0\n");
	pf_test_write(*state, PORT1 "counters/symbol_error", "50000\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN); /* never fail on history */
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "symbol_error 50000");
	assert_non_null(f->remedy);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f->observed, "counters"),
					     "symbol_error")->valueint, 50000);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* the same count over 10000 hours is 5/h: under the soft threshold */
	pf_test_write(*state, "proc/uptime", "36000000.00 1.0\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_hard_and_boot_events(void **state)
{
	struct tnode t;
	struct pf_result res;

	build(&t);
	/* one link_downed right after boot is normal: rates use at least one hour */
	write_zero(*state, "120.0 100.0\n");
	pf_test_write(*state, PORT1 "counters/link_downed", "1\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	pf_test_write(*state, PORT1 "counters/link_downed", "6\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0/1")->message, "link_downed 6");
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0/1")->remedy, "cable");
	pf_result_release(&res);

	/* ignoring the counter */
	run_check(*state, &t.node, (const char *const[]){ "port_errors.ignore=link_downed", NULL },
		  &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_saturated_and_transport(void **state)
{
	struct tnode t;
	struct pf_result res;

	build(&t);
	write_zero(*state, "360000.0 1.0\n");
	/* 4-bit counter at 15: saturated, its true count is unknown */
	pf_test_write(*state, PORT2 "counters/excessive_buffer_overrun_errors", "15\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_1/1")->message, "saturated at 15");
	pf_result_release(&res);

	/* transport counters have their own, higher threshold */
	write_zero(*state, "3600.0 1.0\n");
	pf_test_write(*state, PORT2 "hw_counters/out_of_sequence", "3000\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_test_write(*state, PORT2 "hw_counters/out_of_sequence", "4000\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_1/1")->message,
				"out_of_sequence 4000");
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_1/1")->remedy, "PFC");
	pf_result_release(&res);
}

static void test_missing_and_garbage(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	/* only mlx5_1 has counters */
	pf_test_write(*state, PORT2 "counters/symbol_error", "0\n");
	pf_test_write(*state, PORT2 "counters/link_downed", "garbage\n");
	pf_test_write(*state, "sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	run_check(*state, &t.node, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message,
				"no counters/ or hw_counters/ directory in the snapshot");
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "link_downed holds 'garbage'");
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);

	/* a port without PMA */
	pf_test_write(*state, PORT2 "counters/symbol_error", "N/A (no PMA)\n");
	pf_test_write(*state, PORT2 "counters/link_downed", "N/A (no PMA)\n");
	run_check(*state, &t.node, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "no PMA");
	pf_result_release(&res);
}

static void test_no_uptime_ignore_ports(void **state)
{
	struct tnode t;
	struct pf_result res;

	build(&t);
	write_zero(*state, NULL);
	pf_test_write(*state, PORT1 "counters/port_rcv_errors", "3\n");
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0/1")->message, "unknown uptime");
	pf_result_release(&res);

	run_check(*state, &t.node, (const char *const[]){ "port_errors.ignore_ports=mlx5_0", NULL },
		  &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_SKIP);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_edge_configs(void **state)
{
	pf_autofree char *empty = NULL;
	struct tnode t;
	struct pf_result res;

	build(&t);
	write_zero(*state, "100.0 1.0\n");
	/* refused when the profile is built (exit 64), never reaches run() */
	pf_test_config_rejected("port_errors",
				(const char *const[]){ "port_errors.mode=sometimes", NULL },
				"port_errors.mode");

	t.node.n_rdma = 0;
	run_check(*state, &t.node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);

	/* an inventory from an lstopo export over a root without counters */
	build(&t);
	t.node.source = "hwloc";
	t.node.lacks = PF_NODE_NO_PORT_RATES | PF_NODE_NO_PORT_LIST | PF_NODE_NO_PORT_COUNTERS |
		       PF_NODE_NO_LINK_ATTRS | PF_NODE_NO_IOMMU; /* as node_hwloc.c says */
	empty = pf_test_mkdtemp();
	run_check(empty, &t.node, NULL, &res);
	pf_test_rmtree(empty);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_int_equal(res.n_findings, 1);
	pf_test_assert_contains(res.findings[0].message, "topology export");
	pf_result_release(&res);

	run_check(*state, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);
}

/*
 * The sampling window (the live mode), forced on a temporary root: the
 * counter files do not change unless a thread changes them mid-window.
 */

struct bump {
	const char *root;
	const char *rel, *value;
};

static void *bump_later(void *arg)
{
	const struct bump *b = arg;
	struct timespec ts = { 0, 80 * 1000000L };
	char tmp[PATH_MAX], path[PATH_MAX];

	nanosleep(&ts, NULL);
	/* write beside and rename, so the check never reads a half-written file */
	snprintf(tmp, sizeof(tmp), "%s.new", b->rel);
	pf_test_write(b->root, tmp, b->value);
	snprintf(tmp, sizeof(tmp), "%s/%s.new", b->root, b->rel);
	snprintf(path, sizeof(path), "%s/%s", b->root, b->rel);
	assert_int_equal(rename(tmp, path), 0);
	return NULL;
}

static void run_window_with_bump_sets(const char *root, struct pf_node *node, const char *rel,
				      const char *value, const char *const *sets,
				      struct pf_result *res);

static void run_window_with_bump(const char *root, struct pf_node *node, const char *rel,
				 const char *value, struct pf_result *res)
{
	static const char *const sets[] = { "port_errors.mode=window",
					    "port_errors.window_ms=300", NULL };

	run_window_with_bump_sets(root, node, rel, value, sets, res);
}

static void run_window_with_bump_sets(const char *root, struct pf_node *node, const char *rel,
				      const char *value, const char *const *sets,
				      struct pf_result *res)
{
	struct bump b = { root, rel, value };
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, bump_later, &b), 0);
	run_check_prov(root, node, sets, live_wait_providers(), res);
	pthread_join(th, NULL);
}

static void test_window(void **state)
{
	static const char *const quick[] = { "port_errors.mode=window", "port_errors.window_ms=0",
					     NULL };
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	/* history does not matter in a window: huge but constant counters pass */
	write_zero(*state, "60.0 1.0\n");
	pf_test_write(*state, PORT1 "counters/symbol_error", "50000\n");
	run_check_prov(*state, &t.node, quick, live_wait_providers(), &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0/1")->message,
				"no error counter increased");
	pf_result_release(&res);

	/* a hard counter increasing during the window fails */
	run_window_with_bump(*state, &t.node, PORT1 "counters/link_downed", "2\n", &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "link_downed +2");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f->observed, "increase"),
					     "link_downed")->valueint, 2);
	assert_true(cJSON_GetObjectItem(f->observed, "window_ms")->valuedouble >= 300);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* a soft counter increasing warns */
	run_window_with_bump(*state, &t.node, PORT1 "counters/symbol_error", "50007\n", &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "symbol_error +7");
	pf_result_release(&res);

	/* a 32-bit Q counter wrapping mid-window is an increase of 10 */
	pf_test_write(*state, PORT2 "hw_counters/packet_seq_err", "4294967291\n");
	run_window_with_bump(*state, &t.node, PORT2 "hw_counters/packet_seq_err", "5\n", &res);
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "packet_seq_err +10 (wrapped)");
	pf_result_release(&res);

	/* a PMA counter stuck at its maximum hides increases: warn */
	pf_test_write(*state, PORT2 "counters/port_rcv_errors", "65535\n");
	run_check_prov(*state, &t.node, quick, live_wait_providers(), &res);
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "port_rcv_errors saturated at 65535");
	pf_test_assert_contains(f->remedy, "perfquery");
	pf_result_release(&res);

	/* info counters are reported, not judged */
	pf_test_write(*state, PORT2 "counters/port_rcv_errors", "0\n");
	run_window_with_bump(*state, &t.node, PORT2 "counters/VL15_dropped", "9\n", &res);
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f->observed, "increase"),
					     "VL15_dropped")->valueint, 9);
	pf_result_release(&res);
}

/*
 * A port that is not a compute rail (here declared storage, docs/rails.md):
 * a hard counter increasing in the window warns, naming the role; the
 * compute rail beside it still fails.
 */
static void test_storage_port_warns(void **state)
{
	static const char *const sets[] = { "port_errors.mode=window", "port_errors.window_ms=300",
					    "rails.storage=mlx5_0", NULL };
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	write_zero(*state, "60.0 1.0\n");
	run_window_with_bump_sets(*state, &t.node, PORT1 "counters/link_downed", "2\n", sets, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "link_downed +2");
	pf_test_assert_contains(f->message, "(a storage port, not a compute rail: warns at most)");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "role")->valuestring, "storage");
	pf_result_release(&res);

	write_zero(*state, "60.0 1.0\n");
	run_window_with_bump_sets(*state, &t.node, PORT2 "counters/link_downed", "2\n", sets, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1/1")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
}

/*
 * Never wait on files that cannot change: a topology export without counters
 * skips at once, and mode=window on a snapshot (the recorded providers) is one
 * sample judged since boot; the live wait goes through ctx->prov->wait.
 */
static void test_no_wait_without_live_counters(void **state)
{
	static const char *const win[] = { "port_errors.mode=window", "port_errors.window_ms=300",
					   NULL };
	static const char *const long_win[] = { "port_errors.mode=window",
						"port_errors.window_ms=3000", NULL };
	struct tnode t;
	struct pf_result res;
	struct timespec t0, t1;
	char *empty;

	/* a topology export: decided from the inventory, no wait (not 3 s) */
	build(&t);
	t.node.source = "hwloc";
	t.node.lacks = PF_NODE_NO_PORT_RATES | PF_NODE_NO_PORT_LIST | PF_NODE_NO_PORT_COUNTERS |
		       PF_NODE_NO_LINK_ATTRS | PF_NODE_NO_IOMMU; /* as node_hwloc.c says */
	empty = pf_test_mkdtemp();
	waits = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_check_prov(empty, &t.node, long_win, live_wait_providers(), &res);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pf_test_rmtree(empty);
	free(empty);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_int_equal(waits, 0);
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	pf_result_release(&res);

	/* a snapshot: no wait, one sample judged since boot, and the summary says so */
	build(&t);
	write_zero(*state, "7200.0 1.0\n");
	run_check(*state, &t.node, win, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_assert_contains(res.summary, "one sample");
	assert_non_null(
		cJSON_GetObjectItem(pf_test_must_find(&res, "mlx5_0/1")->observed, "uptime_s"));
	pf_result_release(&res);

	/* a live-standing root: the check waits through the provider, once */
	waits = 0;
	waited_ms = 0;
	run_check_prov(*state, &t.node, win, live_wait_providers(), &res);
	assert_int_equal(waits, 1);
	assert_true(waited_ms == 300);
	assert_true(cJSON_GetObjectItem(pf_test_must_find(&res, "mlx5_0/1")->observed,
					"window_ms")->valuedouble >= 300);
	pf_result_release(&res);
}

/*
 * Generated roots (tests/gen_root.py) and a real capture, through the loader.
 */

static char *gen(const char *dir, const char *args)
{
	char cmd[PATH_MAX + 512];

	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen_root.py' '%s/root' %s >/dev/null", PF_SOURCE_DIR,
		 dir, args);
	assert_int_equal(system(cmd), 0);
	return pf_xasprintf("%s/root", dir);
}

static struct pf_node *load(const char *root)
{
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	char *err = NULL;

	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	pf_fs_free(fs);
	return node;
}

static void test_gen(void **state)
{
	pf_autofree char *root = gen(*state, "--nics 8 --storage-nic --link-layer eth --uptime 600 "
				     "--file /sys/class/infiniband/mlx5_5/ports/1/counters/"
				     "symbol_error=50000 "
				     "--file /sys/class/infiniband/mlx5_8/ports/1/hw_counters/"
				     "out_of_sequence=12");
	struct pf_node *node = load(root);
	struct pf_result res;
	const struct pf_finding *f;

	assert_int_equal(node->n_rdma, 9);
	run_check(root, node, NULL, &res);
	assert_int_equal(res.n_findings, 9);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, "mlx5_5/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "symbol_error 50000");
	pf_test_assert_contains(f->message, "0.2 h uptime");
	assert_int_equal(pf_test_must_find(&res, "mlx5_8/1")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);
}

/*
 * Soft-RoCE (issue 19): no counters/, link_downed and the retry and
 * sequence-error counters in hw_counters/ (rxe_hw_counters.c).  They are
 * read by name and named; a port with only informational counters is not
 * "clean".
 */
static void test_rxe_hw_counters(void **state)
{
	pf_autofree char *root = gen(*state, "--gpus 0 --nics 0 --rxe 2 --link-layer eth "
				     "--uptime 600 "
				     "--file /sys/class/infiniband/rxe1/ports/1/hw_counters/"
				     "link_downed=5");
	struct pf_node *node = load(root);
	struct pf_result res;
	const struct pf_finding *f;

	run_check(root, node, NULL, &res);
	f = pf_test_must_find(&res, "rxe0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "7 error counters within thresholds");
	pf_test_assert_contains(f->message, "link_downed");
	pf_test_assert_contains(f->message, "rcvd_seq_err");
	pf_test_assert_contains(f->message, "retry_exceeded_err");
	f = pf_test_must_find(&res, "rxe1/1");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "link_downed 5");
	pf_result_release(&res);
	pf_node_free(node);
}

/* Only informational counters (duplicate_request): unknown, a skip naming what is missing. */
static void test_only_info_counters(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	pf_test_write(*state, PORT1 "hw_counters/duplicate_request", "0\n");
	pf_test_write(*state, PORT2 "hw_counters/duplicate_request", "0\n");
	pf_test_write(*state, PORT2 "hw_counters/rcvd_seq_err", "0\n");
	pf_test_write(*state, "proc/uptime", "7200.00 0.00\n");
	run_check(*state, &t.node, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0/1");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "error counters unknown");
	pf_test_assert_contains(f->message, "link_downed");
	pf_test_assert_contains(f->message, "read only duplicate_request");
	f = pf_test_must_find(&res, "mlx5_1/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "1 error counters within thresholds");
	pf_test_assert_contains(f->message, "(rcvd_seq_err)");
	pf_result_release(&res);
}

static void shared_capture_mlx4(void **state)
{
	pf_autofree char *root = pf_test_unpack_shared(
		"fixtures/hwloc-linux/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2", *state,
		"32em64t-2n8c+1mic");
	struct pf_node *node;
	struct pf_result res;
	const struct pf_finding *f;

	node = load(root);
	run_check(root, node, NULL, &res);
	/* a real ConnectX-3 port with zero error counters; the capture has no /proc/uptime */
	f = pf_test_must_find(&res, "mlx4_0/1");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "unknown uptime");
	assert_true(res.status == PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		pf_test_in_tmpdir(test_zero_pass),
		pf_test_in_tmpdir(test_symbol_error_short_uptime),
		pf_test_in_tmpdir(test_hard_and_boot_events),
		pf_test_in_tmpdir(test_saturated_and_transport),
		pf_test_in_tmpdir(test_missing_and_garbage),
		pf_test_in_tmpdir(test_rxe_hw_counters),
		pf_test_in_tmpdir(test_only_info_counters),
		pf_test_in_tmpdir(test_no_uptime_ignore_ports),
		pf_test_in_tmpdir(test_edge_configs),
		pf_test_in_tmpdir(test_window),
		pf_test_in_tmpdir(test_storage_port_warns),
		pf_test_in_tmpdir(test_no_wait_without_live_counters),
		pf_test_in_tmpdir(test_gen),
		pf_test_in_tmpdir(shared_capture_mlx4),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
