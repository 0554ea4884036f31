// SPDX-License-Identifier: MIT
/*
 * test_ip_rules.c - the IPv4 policy routing rules fact: `ip -4 rule show`
 * text as iproute2 prints it, the live RTM_GETRULE dump against a real
 * kernel (rules added in a private network namespace), the snapshot's
 * record of it, and the sysctl check judging strict rp_filter with the
 * live rules and addresses of two veths in one subnet.
 *
 * The namespace tests need root (`ip netns add`) and skip with a reason
 * otherwise; the namespace is removed in the teardown and by atexit.
 */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "preflight/net_facts.h"
#include "snapshot.h"
#include "netns.h"
#include "testutil.h"

/*
 * Two veths in 192.0.2.0/24 (two rails of one subnet) with RHEL-style
 * per-rail source rules: "from <rail-ip> lookup <rail table>".
 */
static int group_setup(void **state)
{
	pf_test_netns_create("pftest_rule",
			     "ip -n %1$s link add r0 type veth peer name r1 2>/dev/null && "
			     "ip -n %1$s link set r0 up && ip -n %1$s link set r1 up && "
			     "ip -n %1$s addr add 192.0.2.1/24 dev r0 && "
			     "ip -n %1$s addr add 192.0.2.2/24 dev r1 && "
			     "ip -n %1$s route add 192.0.2.0/24 dev r0 src 192.0.2.1 table 101 && "
			     "ip -n %1$s route add 192.0.2.0/24 dev r1 src 192.0.2.2 table 102 && "
			     "ip -n %1$s rule add pref 100 from 192.0.2.1 lookup 101 && "
			     "ip -n %1$s rule add pref 101 from 192.0.2.2 iif lo lookup 102 && "
			     "ip -n %1$s rule add pref 200 not from 10.9.0.0/16 to 10.8.0.1 fwmark 3 "
			     "table 7 && ip -n %1$s rule add pref 300 from all oif r1 blackhole",
			     "cannot create the veth pair, its addresses or rules");
	return 0;
}

static int group_teardown(void **state)
{
	pf_test_netns_remove();
	return 0;
}

static const struct pf_ip_rule *by_pref(const struct pf_ip_rules *r, uint32_t pref)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].pref == pref)
			return &r->v[i];
	fail_msg("no rule with pref %u", pref);
	return NULL;
}

static void assert_rules(const struct pf_ip_rules *r)
{
	const struct pf_ip_rule *x;

	assert_int_equal(r->n, 7); /* local, 4 added, main, default */
	x = by_pref(r, 0);
	assert_int_equal(x->table, 255);
	assert_int_equal(x->src.prefix, 0);
	x = by_pref(r, 100);
	assert_int_equal(x->src.addr, 0xc0000201);
	assert_int_equal(x->src.prefix, 32);
	assert_int_equal(x->table, 101);
	assert_int_equal(x->action, PF_RULE_LOOKUP);
	assert_false(x->other);
	x = by_pref(r, 101);
	assert_string_equal(x->iif, "lo");
	assert_int_equal(x->table, 102);
	x = by_pref(r, 200);
	assert_true(x->invert);
	assert_true(x->other); /* fwmark */
	assert_int_equal(x->src.prefix, 16);
	assert_int_equal(x->dst.addr, 0x0a080001);
	assert_int_equal(x->table, 7);
	x = by_pref(r, 300);
	assert_string_equal(x->oif, "r1");
	assert_int_equal(x->action, PF_RULE_BLOCK);
	assert_int_equal(by_pref(r, 32766)->table, 254);
}

/* The kernel's own answer, and its text read back the same. */
static void test_live_dump(void **state)
{
	pf_autofree struct pf_ip_rules *live = pf_xcalloc(1, sizeof(*live));
	pf_autofree struct pf_ip_rules *back = pf_xcalloc(1, sizeof(*back));
	pf_autofree char *text = NULL;
	int self = pf_test_netns_enter(), r;

	r = pf_providers_live.ip_rules(NULL, live);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_rules(live);
	text = pf_format_ip_rule(live);
	assert_int_equal(pf_parse_ip_rule(text, back), 0);
	assert_rules(back);
}

/* What `ip -4 rule show` prints (iproute2 6.1), parsed as the kernel dumps it. */
static void test_iproute2_text(void **state)
{
	pf_autofree struct pf_ip_rules *text = pf_xcalloc(1, sizeof(*text));
	pf_autofree char *out = NULL;
	char cmd[160];
	FILE *p;
	size_t n;

	pf_test_netns_leave(pf_test_netns_enter()); /* skips without the namespace */
	out = pf_xcalloc(1, 8192);
	snprintf(cmd, sizeof(cmd), "ip -n %s -4 rule show", pf_test_netns_name());
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, 8191, p);
	assert_int_equal(pclose(p), 0);
	out[n] = '\0';
	assert_int_equal(pf_parse_ip_rule(out, text), 0);
	assert_rules(text);
}

static void test_text_edge_cases(void **state)
{
	pf_autofree struct pf_ip_rules *r = pf_xcalloc(1, sizeof(*r));

	assert_int_equal(pf_parse_ip_rule("0:\tfrom all lookup local\n"
					  "50:\tfrom all to 10.0.0.0/8 lookup rail0 proto static\n"
					  "60:\tfrom all lookup main suppress_prefixlength 0\n"
					  "70:\tfrom 10.1.1.1 iif eth0 [detached] lookup 5\n"
					  "80:\tfrom all goto 32766\n"
					  "90:\tfrom all uidrange 1000-2000 lookup 9\n", r), 0);
	assert_int_equal(r->n, 6);
	assert_int_equal(r->v[1].table, PF_RULE_TABLE_NAMED);
	assert_false(r->v[1].other);
	assert_int_equal(r->v[1].dst.prefix, 8);
	assert_int_equal(r->v[2].table, 254);
	assert_false(r->v[2].other);
	assert_string_equal(r->v[3].iif, "eth0");
	assert_int_equal(r->v[4].action, PF_RULE_GOTO);
	assert_true(r->v[5].other);
	assert_int_equal(pf_parse_ip_rule("", r), 0);
	assert_int_equal(r->n, 0);
	assert_int_equal(pf_parse_ip_rule("from all lookup main\n", r), -EINVAL);
	assert_int_equal(pf_parse_ip_rule("5:\tfrom 300.1.1.1 lookup 7\n", r), -EINVAL);
	assert_int_equal(pf_parse_ip_rule("5:\tfrom all lookup\n", r), -EINVAL);
}

/* A provider table with only the live rules: what the snapshot records. */
static const struct pf_providers *rules_only(void)
{
	static struct pf_providers p;

	p = pf_providers_none;
	p.name = "rules-only";
	p.ip_rules = pf_live_ip_rules;
	pf_test_assert_providers_complete(&p);
	return &p;
}

static void test_snapshot_records_rules(void **state)
{
	pf_autofree struct pf_ip_rules *back = pf_xcalloc(1, sizeof(*back));
	struct pf_snapshot_opts opts = { .prov = rules_only() };
	struct pf_snapshot_stats st;
	struct pf_fs *src = NULL, *rec = NULL;
	struct pf_ctx ctx = { 0 };
	char *top = pf_test_mkdtemp(), dst[512], *err = NULL;
	int self, r;

	snprintf(dst, sizeof(dst), "%s/snap", top);
	pf_test_write(top, "src/proc/sys/kernel/hostname", "n1");
	{
		char srcdir[512];

		snprintf(srcdir, sizeof(srcdir), "%s/src", top);
		assert_int_equal(pf_fs_open(srcdir, &src), 0);
	}
	self = pf_test_netns_enter();
	r = pf_snapshot_write(src, dst, &opts, &st, &err);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_int_equal(pf_fs_open(dst, &rec), 0);
	ctx.fs = rec;
	assert_int_equal(pf_providers_recorded.ip_rules(&ctx, back), 0);
	assert_rules(back);
	pf_fs_free(rec);
	pf_fs_free(src);
	pf_test_rmtree(top);
	free(top);
}

/* A generated root for the sysfs and /proc/sys side of two rxe ports over r0/r1. */
static char *rxe_root(void)
{
	static const char *const files[][2] = {
		{ "proc/sys/net/core/rmem_max", "16777216" },
		{ "proc/sys/net/core/wmem_max", "16777216" },
		{ "proc/sys/net/core/rmem_default", "16777216" },
		{ "proc/sys/net/core/wmem_default", "16777216" },
		{ "proc/sys/net/core/netdev_max_backlog", "250000" },
		{ "proc/sys/net/ipv4/tcp_rmem", "4096 87380 16777216" },
		{ "proc/sys/net/ipv4/tcp_wmem", "4096 65536 16777216" },
		{ "proc/sys/kernel/numa_balancing", "0" }, { "proc/sys/vm/zone_reclaim_mode", "0" },
		{ "sys/class/infiniband/rxe0/ports/1/link_layer", "Ethernet" },
		{ "sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0", "r0" },
		{ "sys/class/infiniband/rxe1/ports/1/link_layer", "Ethernet" },
		{ "sys/class/infiniband/rxe1/ports/1/gid_attrs/ndevs/0", "r1" },
		{ "sys/class/net/r0/type", "1" }, { "sys/class/net/r1/type", "1" },
	};
	static const char *const conf[] = { "all", "r0", "r1" };
	char *dir = pf_test_mkdtemp();

	for (size_t i = 0; i < PF_ARRAY_SIZE(files); i++)
		pf_test_write(dir, files[i][0], files[i][1]);
	for (size_t i = 0; i < PF_ARRAY_SIZE(conf); i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/arp_ignore", conf[i]);
		pf_test_write(dir, rel, "1");
		snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/arp_announce", conf[i]);
		pf_test_write(dir, rel, "2");
		snprintf(rel, sizeof(rel), "proc/sys/net/ipv4/conf/%s/rp_filter", conf[i]);
		pf_test_write(dir, rel, "1");
	}
	return dir;
}

/*
 * The check on the live providers (addresses and rules from the kernel):
 * strict rp_filter on two rails of one subnet passes with the per-rail
 * source rules and fails once one rule is deleted.
 */
static void test_sysctl_with_live_rules(void **state)
{
	char *dir;
	struct pf_result res;
	const struct pf_finding *f;
	int self = pf_test_netns_enter();

	dir = rxe_root();
	pf_test_run_check("sysctl", dir, &pf_providers_live, NULL, &res);
	f = pf_test_need(&res, "net.ipv4.conf.r0.rp_filter", PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "rule 100");
	f = pf_test_need(&res, "net.ipv4.conf.r1.rp_filter", PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "rule 101");
	pf_result_release(&res);

	assert_int_equal(pf_test_sh("ip -n %s rule del pref 101", pf_test_netns_name()), 0);
	pf_test_run_check("sysctl", dir, &pf_providers_live, NULL, &res);
	assert_int_equal(pf_test_sh("ip -n %s rule add pref 101 from 192.0.2.2 iif lo lookup 102",
				    pf_test_netns_name()),
			 0);
	pf_test_netns_leave(self);
	pf_test_need(&res, "net.ipv4.conf.r0.rp_filter", PF_STATUS_PASS);
	pf_test_need(&res, "net.ipv4.conf.r1.rp_filter", PF_STATUS_FAIL);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * A snapshot of soft-RoCE rails (veths without a PCI function, found by the
 * GID table) records their addresses, so sysctl judges the snapshot as it
 * judges the source (issue 19: snapshot = live).
 */
static void test_snapshot_virtual_rails(void **state)
{
	struct pf_snapshot_opts opts = { .prov = &pf_providers_recorded };
	struct pf_snapshot_stats st;
	struct pf_result res;
	struct pf_fs *src = NULL;
	char *dir = rxe_root(), dst[512], *err = NULL;
	const char *const rails[] = { "r0", "r1" };

	pf_test_write(dir, "preflight/ip/r0/addr", "5: r0    inet 192.0.2.1/24 scope global r0\n");
	pf_test_write(dir, "preflight/ip/r1/addr", "6: r1    inet 192.0.2.2/24 scope global r1\n");
	pf_test_write(dir, "preflight/ip/rule", "0:\tfrom all lookup local\n"
		      "32766:\tfrom all lookup main\n");
	pf_test_write(dir, "sys/class/net/r0/ifindex", "5");
	pf_test_write(dir, "sys/class/net/r1/ifindex", "6");
	snprintf(dst, sizeof(dst), "%s.snap", dir);
	assert_int_equal(pf_fs_open(dir, &src), 0);
	assert_int_equal(pf_snapshot_write(src, dst, &opts, &st, &err), 0);
	pf_fs_free(src);
	for (int pass = 0; pass < 2; pass++) {
		pf_test_run_check("sysctl", pass ? dst : dir, NULL, NULL, &res);
		for (size_t i = 0; i < PF_ARRAY_SIZE(rails); i++) {
			char subject[64];

			snprintf(subject, sizeof(subject), "net.ipv4.conf.%s.rp_filter", rails[i]);
			pf_test_need(&res, subject, PF_STATUS_FAIL); /* strict, no source rules */
		}
		pf_result_release(&res);
	}
	pf_test_rmtree(dst);
	pf_test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_edge_cases),
		cmocka_unit_test(test_live_dump),
		cmocka_unit_test(test_iproute2_text),
		cmocka_unit_test(test_snapshot_records_rules),
		cmocka_unit_test(test_sysctl_with_live_rules),
		cmocka_unit_test(test_snapshot_virtual_rails),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
