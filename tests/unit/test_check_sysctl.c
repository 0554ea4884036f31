// SPDX-License-Identifier: MIT
/*
 * test_check_sysctl.c - the sysctl check on the fixture roots under
 * tests/fixtures/sysctl-* (pass, fail, missing, garbage) and on small
 * temporary roots for the multi-rail rules.
 */
#include <string.h>
#include <unistd.h>

#include "preflight/node.h"
#include "testutil.h"

static const char *const globals[] = {
	"net.core.rmem_max", "net.core.wmem_max", "net.core.rmem_default",
	"net.core.wmem_default", "net.core.netdev_max_backlog", "net.ipv4.tcp_rmem",
	"net.ipv4.tcp_wmem", "kernel.numa_balancing", "vm.zone_reclaim_mode",
};

static double num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static size_t count(const struct pf_result *res, enum pf_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		n += res->findings[i].status == st;
	return n;
}

static void test_pass(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-pass"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	for (size_t i = 0; i < PF_ARRAY_SIZE(globals); i++)
		pf_test_need(&res, globals[i], PF_STATUS_PASS);
	/* both RoCE rails; not the plain Ethernet port, IPoIB or loopback */
	f = pf_test_need(&res, "net.ipv4.conf.ens1f0np0.arp_ignore", PF_STATUS_PASS);
	/* all=1 wins over the interface's 0 */
	assert_true(num(f->observed, "value") == 1);
	assert_string_equal(cJSON_GetObjectItem(f->expected, "one_of")->valuestring, "1,2");
	f = pf_test_need(&res, "net.ipv4.conf.ens1f0np0.rp_filter", PF_STATUS_PASS);
	assert_string_equal(cJSON_GetObjectItem(f->expected, "one_of")->valuestring, "0,2");
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.arp_announce", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.arp_ignore", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.arp_announce", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.rp_filter", PF_STATUS_PASS);
	assert_int_equal(res.n_findings, PF_ARRAY_SIZE(globals) + 6);
	for (size_t i = 0; i < res.n_findings; i++) {
		assert_null(strstr(res.findings[i].subject, "eno1"));
		assert_null(strstr(res.findings[i].subject, "ib0"));
		assert_null(res.findings[i].remedy);
	}
	f = pf_test_need(&res, "net.ipv4.tcp_rmem", PF_STATUS_PASS);
	assert_true(num(f->observed, "value") == 16777216); /* the third field */
	assert_string_equal(f->message, "16777216 (>= 16777216)");
	pf_result_release(&res);
}

static void test_fail(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-fail"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);

	f = pf_test_need(&res, "net.core.rmem_max", PF_STATUS_FAIL);
	assert_true(num(f->observed, "value") == 212992);
	assert_true(num(f->expected, "min") == 16777216);
	pf_test_assert_contains(f->message, "212992, expected >= 16777216");
	pf_test_assert_contains(f->remedy, "sysctl -w net.core.rmem_max=16777216");
	pf_test_assert_contains(f->remedy, "/etc/sysctl.d/");
	/* issue 31 item 12: where the 16 MiB comes from and how a profile lowers it */
	pf_test_assert_contains(f->remedy, "provisioning runbook");
	pf_test_assert_contains(f->remedy, "{\"checks\": {\"sysctl\": {\"rmem_max\": <bytes>}}}");
	pf_test_assert_contains(f->remedy, "sysctl.warn_only=net.core.rmem_max");
	f = pf_test_need(&res, "net.core.wmem_max", PF_STATUS_FAIL);
	pf_test_assert_contains(f->remedy, "--set sysctl.wmem_max=<bytes>");
	pf_test_need(&res, "net.core.rmem_default", PF_STATUS_WARN);
	pf_test_need(&res, "net.core.wmem_default", PF_STATUS_PASS);
	pf_test_need(&res, "net.core.netdev_max_backlog", PF_STATUS_WARN);
	f = pf_test_need(&res, "net.ipv4.tcp_rmem", PF_STATUS_WARN);
	assert_true(num(f->observed, "value") == 6291456);
	pf_test_assert_contains(f->remedy, "raise the last field");
	pf_test_assert_contains(f->remedy, "net.ipv4.tcp_rmem=\"<min> <default> 16777216\"");
	pf_test_need(&res, "net.ipv4.tcp_wmem", PF_STATUS_PASS);
	f = pf_test_need(&res, "kernel.numa_balancing", PF_STATUS_WARN);
	pf_test_assert_contains(f->remedy, "sysctl -w kernel.numa_balancing=0");
	pf_test_need(&res, "vm.zone_reclaim_mode", PF_STATUS_PASS);

	/* strict rp_filter on one rail: max(all=0, if=1) = 1 */
	f = pf_test_need(&res, "net.ipv4.conf.ens1f0np0.rp_filter", PF_STATUS_FAIL);
	assert_true(num(f->observed, "value") == 1);
	pf_test_assert_contains(f->message, "1, expected one of 0,2");
	pf_test_assert_contains(f->remedy, "sysctl -w net.ipv4.conf.ens1f0np0.rp_filter=0");
	f = pf_test_need(&res, "net.ipv4.conf.ens1f0np0.arp_ignore", PF_STATUS_FAIL);
	pf_test_assert_contains(f->remedy, "net.ipv4.conf.ens1f0np0.arp_ignore=1");
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.arp_announce", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.rp_filter", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.arp_ignore", PF_STATUS_PASS);
	/* the summary leads with the first failure */
	pf_test_assert_contains(res.summary, "4 of 15 subjects fail (first: net.core.rmem_max: ");
	for (size_t i = 0; i < res.n_findings; i++)
		if (res.findings[i].status != PF_STATUS_PASS)
			assert_non_null(res.findings[i].remedy);
	pf_result_release(&res);
}

static void test_overrides(void **state)
{
	static const char *const lower[] = { "sysctl.rmem_max=200000", "sysctl.wmem_max=4194304",
					     "sysctl.rp_filter=0,1,2", "sysctl.arp_ignore=0",
					     NULL };
	static const char *const demote[] = {
		"sysctl.warn_only=net.core.rmem_max, net.core.wmem_max,rp_filter,arp_ignore", NULL
	};
	static const char *const ignore[] = {
		"sysctl.ignore=net.core.rmem_max,net.core.wmem_max,rp_filter,arp_ignore,"
		"kernel.numa_balancing", NULL
	};
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-fail"), NULL, lower, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "net.core.rmem_max", PF_STATUS_PASS);
	assert_true(num(f->expected, "min") == 200000);
	pf_test_need(&res, "net.core.wmem_max", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.rp_filter", PF_STATUS_PASS);
	/* ens2 has arp_ignore 1 now above the required 0: exact match fails */
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.arp_ignore", PF_STATUS_FAIL);
	pf_result_release(&res);

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-fail"), NULL, demote, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	pf_test_need(&res, "net.core.rmem_max", PF_STATUS_WARN);
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.rp_filter", PF_STATUS_WARN);
	assert_int_equal(count(&res, PF_STATUS_FAIL), 0);
	pf_result_release(&res);

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-fail"), NULL, ignore, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_null(pf_test_finding(&res, "net.core.rmem_max"));
	assert_null(pf_test_finding(&res, "kernel.numa_balancing"));
	assert_null(pf_test_finding(&res, "net.ipv4.conf.ens1f0np0.rp_filter"));
	assert_null(pf_test_finding(&res, "net.ipv4.conf.ens2f0np0.arp_ignore"));
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.arp_announce", PF_STATUS_PASS);
	pf_test_need(&res, "net.core.rmem_default", PF_STATUS_WARN);
	pf_result_release(&res);
}

static void test_missing(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-missing"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	/*
	 * /proc/sys/kernel is there without numa_balancing: a kernel built
	 * without CONFIG_NUMA_BALANCING, nothing to judge (a skip, not an error)
	 */
	f = pf_test_need(&res, "kernel.numa_balancing", PF_STATUS_SKIP);
	assert_string_equal(f->message, "absent: this kernel was built without "
					"CONFIG_NUMA_BALANCING, so there is nothing to judge");
	/*
	 * a sysctl every kernel has, left out of the capture: under --root a
	 * skip naming the file (live, the same absence is an error)
	 */
	f = pf_test_need(&res, "net.ipv4.tcp_wmem", PF_STATUS_SKIP);
	assert_string_equal(f->message, "not captured: /proc/sys/net/ipv4/tcp_wmem is absent "
					"under the root");
	assert_int_equal(count(&res, PF_STATUS_ERROR), 0);
	pf_test_need(&res, "net.core.rmem_max", PF_STATUS_PASS);
	pf_test_need(&res, "vm.zone_reclaim_mode", PF_STATUS_PASS);
	/* no /sys/class/net: the rail rules say why they did not run */
	f = pf_test_need(&res, "net.ipv4.conf", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "0 RoCE netdevs");
	pf_result_release(&res);
}

static void test_garbage(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("sysctl", pf_test_fixture("sysctl-garbage"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	f = pf_test_need(&res, "net.core.rmem_max", PF_STATUS_ERROR);
	assert_string_equal(f->message, "cannot parse /proc/sys/net/core/rmem_max: "
					"unexpected contents");
	pf_test_need(&res, "net.core.wmem_max", PF_STATUS_ERROR);      /* two fields */
	pf_test_need(&res, "net.ipv4.tcp_rmem", PF_STATUS_ERROR);      /* no third field */
	pf_test_need(&res, "kernel.numa_balancing", PF_STATUS_ERROR);  /* empty */
	pf_test_need(&res, "net.ipv4.conf.ens1f0np0.rp_filter", PF_STATUS_ERROR);
	pf_test_need(&res, "net.ipv4.conf.ens2f0np0.rp_filter", PF_STATUS_PASS);
	pf_test_need(&res, "net.core.rmem_default", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.tcp_wmem", PF_STATUS_PASS);
	assert_int_equal(count(&res, PF_STATUS_ERROR), 5);
	pf_result_release(&res);
}

/* `ip -4 rule show` on a host without policy routing. */
static const char default_rules[] = "0:\tfrom all lookup local\n"
				    "32766:\tfrom all lookup main\n"
				    "32767:\tfrom all lookup default\n";

/* A root with the global sysctls passing and the given rails. */
static char *rails_root(void)
{
	static const char *const files[][2] = {
		{ "net/core/rmem_max", "16777216" }, { "net/core/wmem_max", "16777216" },
		{ "net/core/rmem_default", "16777216" }, { "net/core/wmem_default", "16777216" },
		{ "net/core/netdev_max_backlog", "250000" },
		{ "net/ipv4/tcp_rmem", "4096 87380 16777216" },
		{ "net/ipv4/tcp_wmem", "4096 65536 16777216" },
		{ "kernel/numa_balancing", "0" }, { "vm/zone_reclaim_mode", "0" },
	};
	char *dir = pf_test_mkdtemp();

	pf_test_write(dir, "preflight/ip/rule", default_rules);
	for (size_t i = 0; i < PF_ARRAY_SIZE(files); i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "proc/sys/%s", files[i][0]);
		pf_test_write(dir, rel, files[i][1]);
	}
	return dir;
}

/* The recorded IPv4 address of a netdev (`ip -o -4 addr` text); NULL removes it. */
static void set_addr(const char *dir, const char *ifname, const char *cidr)
{
	char rel[160], text[200], path[512];

	snprintf(rel, sizeof(rel), "preflight/ip/%s/addr", ifname);
	if (!cidr) {
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		unlink(path);
		return;
	}
	snprintf(text, sizeof(text), "7: %s    inet %s brd 10.0.0.255 scope global %s\n", ifname,
		 cidr, ifname);
	pf_test_write(dir, rel, text);
}

/* A RoCE (type 1) or IPoIB (32) netdev; RoCE ones get an address in 10.0.0.0/24. */
static void add_rail(const char *dir, const char *ifname, const char *type)
{
	static unsigned int host = 1;
	char rel[160], cidr[32];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/type", ifname);
	pf_test_write(dir, rel, type);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device/infiniband/mlx5_%s/x", ifname, ifname);
	pf_test_write(dir, rel, "");
	snprintf(cidr, sizeof(cidr), "10.0.0.%u/24", host++ % 250 + 1);
	set_addr(dir, ifname, cidr);
}

static void set_conf(const char *dir, const char *ifname, const char *ai, const char *aa,
		     const char *rp)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/arp_ignore", ifname);
	if (ai)
		pf_test_write(dir, rel, ai);
	snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/arp_announce", ifname);
	if (aa)
		pf_test_write(dir, rel, aa);
	snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/rp_filter", ifname);
	if (rp)
		pf_test_write(dir, rel, rp);
}

static void test_single_rail_skips(void **state)
{
	char *dir = rails_root();
	struct pf_result res;
	const struct pf_finding *f;

	add_rail(dir, "eth0", "1");
	add_rail(dir, "ib0", "32"); /* InfiniBand: not RoCE */
	set_conf(dir, "all", "0", "0", "1");
	set_conf(dir, "eth0", "0", "0", "1");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf", PF_STATUS_SKIP);
	assert_string_equal(f->message,
			    "1 RoCE netdev: multi-rail ARP and rp_filter rules do not apply");
	assert_null(pf_test_finding(&res, "net.ipv4.conf.eth0.rp_filter"));
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* A kernel without CONFIG_NUMA (no vm.zone_reclaim_mode), and a root without /proc/sys/kernel. */
static void test_numa_absent_skips(void **state)
{
	char *dir = rails_root();
	char path[512];
	struct pf_result res;
	const struct pf_finding *f;

	snprintf(path, sizeof(path), "%s/proc/sys/vm/zone_reclaim_mode", dir);
	assert_int_equal(unlink(path), 0);
	pf_test_write(dir, "proc/sys/vm/swappiness", "60");
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/numa_balancing", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/proc/sys/kernel", dir);
	assert_int_equal(rmdir(path), 0);
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "vm.zone_reclaim_mode", PF_STATUS_SKIP);
	assert_string_equal(f->message, "absent: this kernel was built without CONFIG_NUMA, so "
					"there is nothing to judge");
	f = pf_test_need(&res, "kernel.numa_balancing", PF_STATUS_SKIP);
	assert_string_equal(f->message, "not captured: /proc/sys/kernel is absent under the root");
	assert_int_equal(count(&res, PF_STATUS_ERROR), 0);
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* arp_ignore 2 (reply only from the sender's subnet) is as right as 1 on shared rails. */
static void test_arp_ignore_two_passes(void **state)
{
	char *dir = rails_root();
	struct pf_result res;

	add_rail(dir, "r0", "1");
	add_rail(dir, "r1", "1");
	set_conf(dir, "all", "0", "2", "0");
	set_conf(dir, "r0", "2", "2", "0");
	set_conf(dir, "r1", "1", "2", "2");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.r0.arp_ignore", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.r1.arp_ignore", PF_STATUS_PASS);
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * Rails on distinct subnets (a /31 or /24 per rail, the common RoCE design):
 * the kernel never sees two routes to one neighbour, so the ARP and
 * rp_filter settings do not matter and are not judged; one rail sharing
 * with another is judged, the lone one is not.  Addresses not captured
 * (an older snapshot): a skip naming them, never a fail.
 */
static void test_rails_distinct_subnets(void **state)
{
	char *dir = rails_root();
	struct pf_result res;
	const struct pf_finding *f;

	add_rail(dir, "r0", "1");
	add_rail(dir, "r1", "1");
	add_rail(dir, "r2", "1");
	set_addr(dir, "r0", "10.1.0.1/24");
	set_addr(dir, "r1", "10.2.0.1/24");
	set_addr(dir, "r2", "10.3.0.1/31");
	set_conf(dir, "all", "0", "0", "1");
	set_conf(dir, "r0", "0", "0", "1");
	set_conf(dir, "r1", "0", "0", "1");
	set_conf(dir, "r2", "0", "0", "1");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message,
				"no two RoCE rails share an IPv4 subnet (r0 10.1.0.1/24");
	assert_null(pf_test_finding(&res, "net.ipv4.conf.r0.rp_filter"));
	pf_result_release(&res);

	/* r2 moves into r0's subnet: those two are judged, r1 is not */
	set_addr(dir, "r2", "10.1.0.7/24");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "net.ipv4.conf.r0.rp_filter", PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "rdma_resolve_addr");
	pf_test_need(&res, "net.ipv4.conf.r2.arp_ignore", PF_STATUS_FAIL);
	assert_null(pf_test_finding(&res, "net.ipv4.conf.r1.rp_filter"));
	pf_result_release(&res);

	/* no recorded addresses: nothing judged, the skip says what is missing */
	set_addr(dir, "r0", NULL);
	set_addr(dir, "r1", NULL);
	set_addr(dir, "r2", NULL);
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "IPv4 addresses of r0, r1, r2 not captured");
	assert_null(pf_test_finding(&res, "net.ipv4.conf.r0.rp_filter"));
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

static void test_rails_effective_value(void **state)
{
	char *dir = rails_root();
	struct pf_result res;
	const struct pf_finding *f;

	add_rail(dir, "r0", "1");
	add_rail(dir, "r1", "1");
	add_rail(dir, "r2", "1");
	/* all=3 raises arp_ignore above the allowed 1,2 on every rail */
	set_conf(dir, "all", "3", "2", "0");
	set_conf(dir, "r0", "1", "2", "2");
	set_conf(dir, "r1", "0", "0", "0");
	set_conf(dir, "r2", "1", NULL, "2"); /* arp_announce missing for r2 only */
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	for (int i = 0; i < 3; i++) {
		char subject[64];

		snprintf(subject, sizeof(subject), "net.ipv4.conf.r%d.arp_ignore", i);
		f = pf_test_need(&res, subject, PF_STATUS_FAIL);
		assert_true(num(f->observed, "value") == 3);
		snprintf(subject, sizeof(subject), "net.ipv4.conf.r%d.rp_filter", i);
		pf_test_need(&res, subject, PF_STATUS_PASS);
	}
	pf_test_need(&res, "net.ipv4.conf.r0.arp_announce", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.r1.arp_announce", PF_STATUS_PASS); /* max(2, 0) */
	/* left out of the capture: a skip naming the file */
	f = pf_test_need(&res, "net.ipv4.conf.r2.arp_announce", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "not captured: /proc/sys/net/ipv4/conf/r2/arp_announce");
	pf_result_release(&res);

	/* the "all" value unreadable: one error for that key, not per rail */
	pf_test_rmtree(dir);
	free(dir);
	dir = rails_root();
	add_rail(dir, "r0", "1");
	add_rail(dir, "r1", "1");
	set_conf(dir, "all", "1", "2", "strict");
	set_conf(dir, "r0", "1", "2", "0");
	set_conf(dir, "r1", "1", "2", "0");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	f = pf_test_need(&res, "net.ipv4.conf.all.rp_filter", PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "cannot parse");
	assert_null(pf_test_finding(&res, "net.ipv4.conf.r0.rp_filter"));
	pf_test_need(&res, "net.ipv4.conf.r0.arp_ignore", PF_STATUS_PASS);
	pf_result_release(&res);

	/* absent from the capture: one skip naming it */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/proc/sys/net/ipv4/conf/all/rp_filter", dir);
		assert_int_equal(unlink(path), 0);
	}
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf.all.rp_filter", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "not captured: /proc/sys/net/ipv4/conf/all/rp_filter");
	assert_null(pf_test_finding(&res, "net.ipv4.conf.r0.rp_filter"));
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* An RDMA port and the netdevs its GID table names (gid_attrs/ndevs/<i>). */
static void add_gid_port(const char *dir, const char *dev, const char *ll, const char *const *ndevs)
{
	char rel[200];

	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/link_layer", dev);
	pf_test_write(dir, rel, ll);
	for (int i = 0; ndevs[i]; i++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/%d", dev, i);
		pf_test_write(dir, rel, ndevs[i]);
	}
	/* an unused GID entry: the kernel refuses the read, a capture has it empty */
	snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/9", dev);
	pf_test_write(dir, rel, "");
}

/* A netdev without a PCI function (veth, bond): only its type. */
static void add_virtual(const char *dir, const char *ifname, const char *cidr)
{
	char rel[160];

	snprintf(rel, sizeof(rel), "sys/class/net/%s/type", ifname);
	pf_test_write(dir, rel, "1");
	set_addr(dir, ifname, cidr);
}

/*
 * Soft-RoCE over veth, a RoCE LAG bond and a VF found the way the kernel
 * finds a RoCE port's netdevs (gid_attrs/ndevs), not by device/infiniband
 * below the netdev: with arp_ignore 0 and rp_filter 1 on two rails in one
 * subnet the multi-rail rules must fire (issue 19: "0 RoCE netdevs").
 */
static void test_rails_from_gid_table(void **state)
{
	static const char *const rxe0[] = { "veth0", "veth0", NULL };
	static const char *const rxe1[] = { "veth1", NULL };
	static const char *const ib[] = { "ib9", NULL };
	char *dir = rails_root();
	struct pf_result res;
	const struct pf_finding *f;

	add_gid_port(dir, "rxe0", "Ethernet", rxe0);
	add_gid_port(dir, "rxe1", "Ethernet", rxe1);
	add_gid_port(dir, "mlx5_7", "InfiniBand", ib);
	add_virtual(dir, "veth0", "192.0.2.1/24");
	add_virtual(dir, "veth1", "192.0.2.2/24");
	add_virtual(dir, "ib9", "192.0.2.9/24");
	set_conf(dir, "all", "0", "2", "1");
	set_conf(dir, "veth0", "0", "2", "1");
	set_conf(dir, "veth1", "1", "2", "0");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "net.ipv4.conf.veth0.arp_ignore", PF_STATUS_FAIL);
	assert_true(num(f->observed, "value") == 0);
	pf_test_need(&res, "net.ipv4.conf.veth1.arp_ignore", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.veth0.rp_filter", PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.veth1.rp_filter", PF_STATUS_FAIL); /* all=1 */
	assert_null(pf_test_finding(&res, "net.ipv4.conf.ib9.rp_filter"));   /* InfiniBand port */
	assert_null(pf_test_finding(&res, "net.ipv4.conf"));
	pf_result_release(&res);

	/* healthy settings on the same rails: no fail */
	set_conf(dir, "all", "1", "2", "0");
	set_conf(dir, "veth0", "1", "2", "2");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.veth0.rp_filter", PF_STATUS_PASS);
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* A bond (RoCE LAG) and a VF's netdev, each an RDMA port's GID netdev. */
static void test_rails_bond_and_vf(void **state)
{
	static const char *const bond[] = { "bond0", "bond0.100", NULL };
	static const char *const vf[] = { "enp1s0v0", NULL };
	char *dir = rails_root();
	struct pf_result res;

	add_gid_port(dir, "mlx5_bond_0", "Ethernet", bond);
	add_gid_port(dir, "mlx5_4", "Ethernet", vf);
	add_virtual(dir, "bond0", "10.20.0.1/24");
	add_virtual(dir, "bond0.100", "10.30.0.1/24");
	add_virtual(dir, "enp1s0v0", "10.20.0.2/24");
	set_conf(dir, "all", "0", "0", "0");
	set_conf(dir, "bond0", "0", "0", "0");
	set_conf(dir, "enp1s0v0", "1", "2", "0");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.bond0.arp_ignore", PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.bond0.arp_announce", PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.enp1s0v0.arp_ignore", PF_STATUS_PASS);
	/* the VLAN is a RoCE netdev too, alone in its subnet: not judged */
	assert_null(pf_test_finding(&res, "net.ipv4.conf.bond0.100.arp_ignore"));
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* Two rails in 192.0.2.0/24 with strict rp_filter and the given rules. */
static void run_policy(const char *rules, enum pf_status want0, struct pf_result *res)
{
	static const char *const rxe0[] = { "veth0", NULL }, *const rxe1[] = { "veth1", NULL };
	char *dir = rails_root();

	add_gid_port(dir, "rxe0", "Ethernet", rxe0);
	add_gid_port(dir, "rxe1", "Ethernet", rxe1);
	add_virtual(dir, "veth0", "192.0.2.1/24");
	add_virtual(dir, "veth1", "192.0.2.2/24");
	set_conf(dir, "all", "1", "2", "1");
	set_conf(dir, "veth0", "1", "2", "1");
	set_conf(dir, "veth1", "1", "2", "1");
	if (rules) {
		pf_test_write(dir, "preflight/ip/rule", rules);
	} else {
		char path[512];

		snprintf(path, sizeof(path), "%s/preflight/ip/rule", dir);
		assert_int_equal(unlink(path), 0);
	}
	pf_test_run_check("sysctl", dir, NULL, NULL, res);
	pf_test_need(res, "net.ipv4.conf.veth0.rp_filter", want0);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * rp_filter 1 with per-rail source policy routing (RHEL's documented
 * multi-rail setup): fib_validate_source() looks the sender up with the
 * rail's own address as source and iif lo, the source rule sends it to the
 * rail's table, the route leaves by the rail: nothing is dropped.
 */
static void test_rp_filter_policy_routing(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	run_policy("0:\tfrom all lookup local\n"
		   "32764:\tfrom 192.0.2.1 lookup 101\n"
		   "32765:\tfrom 192.0.2.2 iif lo lookup 102\n"
		   "32766:\tfrom all lookup main\n"
		   "32767:\tfrom all lookup default\n", PF_STATUS_PASS, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf.veth0.rp_filter", PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "per-rail source routing: rule 32764");
	assert_true(num(f->observed, "rule_table") == 101);
	pf_test_need(&res, "net.ipv4.conf.veth1.rp_filter", PF_STATUS_PASS);
	pf_result_release(&res);

	/*
	 * the soft-RoCE rig's rules (issue 19): local moved below per-address
	 * local rules and per-rail "iif lo" source rules; "to .1" is one host,
	 * not the subnet a sender comes from
	 */
	run_policy("50:\tfrom 192.0.2.1 to 192.0.2.1 lookup local\n"
		   "51:\tfrom 192.0.2.2 to 192.0.2.2 lookup local\n"
		   "100:\tfrom 192.0.2.1 iif lo lookup 101\n"
		   "101:\tfrom 192.0.2.2 iif lo lookup 102\n"
		   "102:\tfrom all to 192.0.2.2 iif lo lookup 101\n"
		   "1000:\tfrom all lookup local\n"
		   "32766:\tfrom all lookup main\n", PF_STATUS_PASS, &res);
	f = pf_test_need(&res, "net.ipv4.conf.veth1.rp_filter", PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "rule 101");
	pf_result_release(&res);

	/* only one rail has its rule: the other still fails */
	run_policy("0:\tfrom all lookup local\n32764:\tfrom 192.0.2.1 lookup 101\n"
		   "32766:\tfrom all lookup main\n", PF_STATUS_PASS, &res);
	pf_test_need(&res, "net.ipv4.conf.veth1.rp_filter", PF_STATUS_FAIL);
	pf_result_release(&res);

	/* a rule for the whole subnet: one table for both rails, main's problem again */
	run_policy("0:\tfrom all lookup local\n100:\tfrom 192.0.2.0/24 lookup 100\n"
		   "32766:\tfrom all lookup main\n", PF_STATUS_FAIL, &res);
	pf_result_release(&res);

	/* the source rule after main: main answers first */
	run_policy("0:\tfrom all lookup local\n32766:\tfrom all lookup main\n"
		   "40000:\tfrom 192.0.2.1 lookup 101\n", PF_STATUS_FAIL, &res);
	pf_result_release(&res);

	/* restricted to another input interface, or to a fwmark: not the reverse lookup */
	run_policy("0:\tfrom all lookup local\n100:\tfrom 192.0.2.1 iif veth0 lookup 101\n"
		   "101:\tfrom 192.0.2.1 fwmark 0x1 lookup 101\n"
		   "32766:\tfrom all lookup main\n", PF_STATUS_FAIL, &res);
	pf_result_release(&res);

	/* a snapshot without the rules: cannot tell, a skip naming the file */
	run_policy(NULL, PF_STATUS_SKIP, &res);
	f = pf_test_need(&res, "net.ipv4.conf.veth0.rp_filter", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "policy routing rules are not captured");
	pf_test_assert_contains(f->remedy, "preflight/ip/rule");
	pf_result_release(&res);
}

/* A support bundle with only /sys: nothing under /proc/sys, one skip saying so. */
static void test_no_proc_sys(void **state)
{
	char *dir = pf_test_mkdtemp();
	struct pf_result res;

	pf_test_write(dir, "sys/class/net/eth0/type", "1");
	pf_test_run_check("sysctl", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_test_assert_contains(res.summary, "/proc/sys is absent under the root");
	assert_int_equal(count(&res, PF_STATUS_ERROR), 0);
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* The node under @root with its inventory loaded (as every run that reads it has). */
static void run_with_node(const char *root, struct pf_result *res)
{
	struct pf_node *node = NULL;
	struct pf_fs *fs = NULL;
	char *err = NULL;

	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load_sysfs(fs, &node, &err), 0);
	pf_fs_free(fs);
	pf_test_run_check_node("sysctl", root, NULL, node, NULL, res);
	pf_node_free(node);
}

/*
 * Issue 29 item 2: with the rail model, the multi-rail rules are about
 * NCCL's rails.  Two RoCE storage ports that share a subnet only with each
 * other (the rails each on their own /24) are a skip naming the role; one
 * with arp_ignore 8 failed the node before.  A storage port in a rail's
 * subnet is still judged: it can answer ARP for the rail's address.
 */
static void test_rails_compute_only(void **state)
{
	char *root = pf_test_gen_root(
		"--gpus 2 --nics 2 --link-layer eth --storage-nic --frontend-eth "
		"--rail-subnets distinct "
		"--file 'preflight/ip/enp2s0np0/addr=3: enp2s0np0    inet 10.99.0.1/24' "
		"--file 'preflight/ip/enp5s0np0/addr=4: enp5s0np0    inet 10.99.0.2/24' "
		"--file /proc/sys/net/ipv4/conf/enp2s0np0/arp_ignore=8");
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	run_with_node(root, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "net.ipv4.conf.enp2s0np0", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "a storage port");
	pf_test_assert_contains(f->message, "shares its subnet with no compute rail");
	pf_test_need(&res, "net.ipv4.conf.enp5s0np0", PF_STATUS_SKIP);
	assert_null(pf_test_finding(&res, "net.ipv4.conf.enp2s0np0.arp_ignore"));
	pf_result_release(&res);
	/* alone (--only sysctl) the run loads the inventory for it too: the same verdict */
	pf_test_run_check("sysctl", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.enp2s0np0", PF_STATUS_SKIP);
	pf_result_release(&res);
	/* with no inventory at all (none readable) every RoCE netdev is judged, as before */
	pf_test_run_check_node("sysctl", root, NULL, NULL, NULL, &res);
	pf_test_need(&res, "net.ipv4.conf.enp2s0np0.arp_ignore", PF_STATUS_FAIL);
	pf_result_release(&res);
	pf_test_rmtree(root);
	free(root);

	/* the storage port in the rails' shared subnet: judged, it fails */
	root = pf_test_gen_root("--gpus 2 --nics 2 --link-layer eth --storage-nic "
				"--file /proc/sys/net/ipv4/conf/enp2s0np0/arp_ignore=8");
	run_with_node(root, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.enp2s0np0.arp_ignore", PF_STATUS_FAIL);
	pf_test_need(&res, "net.ipv4.conf.enp20s0np0.arp_ignore", PF_STATUS_PASS);
	pf_result_release(&res);
	pf_test_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pass),
		cmocka_unit_test(test_fail),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_numa_absent_skips),
		cmocka_unit_test(test_arp_ignore_two_passes),
		cmocka_unit_test(test_rails_distinct_subnets),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_single_rail_skips),
		cmocka_unit_test(test_rails_effective_value),
		cmocka_unit_test(test_rails_from_gid_table),
		cmocka_unit_test(test_rails_bond_and_vf),
		cmocka_unit_test(test_rp_filter_policy_routing),
		cmocka_unit_test(test_rails_compute_only),
		cmocka_unit_test(test_no_proc_sys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
