// SPDX-License-Identifier: MIT
/*
 * test_net_netns.c - the live RoCE netdev providers against a real kernel:
 * a veth pair in a private network namespace.
 *
 * veth answers ETHTOOL_MSG_LINKMODES_GET (10000 Mb/s, full duplex), has
 * driver statistics (peer_ifindex, rx_queue_0_xdp_packets, ...) and lacks
 * pause and DCB operations, so the "not supported" outcome is exercised
 * for real.  Needs root (CAP_SYS_ADMIN for `ip netns add`); skips with a
 * reason otherwise.  The namespace is removed in the group teardown and,
 * should the process die first, by an atexit handler.
 */
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "registry.h"
#include "netns.h"
#include "testutil.h"

/* The live providers, as a check's context holds them (the fs is not read). */
static const struct pf_ctx live_ctx = { .prov = &pf_providers_live };

static int group_setup(void **state)
{
	pf_test_netns_create("pftest_net",
			     "ip -n %1$s link add vt0 type veth peer name vt1 2>/dev/null && "
			     "ip -n %1$s link set vt0 up && ip -n %1$s link set vt1 up",
			     "cannot create a veth pair (no veth module?)");
	return 0;
}

static int group_teardown(void **state)
{
	pf_test_netns_remove();
	return 0;
}

static void test_linkmodes_veth(void **state)
{
	struct pf_linkmodes lm;
	int self = pf_test_netns_enter(), r;

	r = pf_providers_live.linkmodes(&live_ctx, "vt0", &lm);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_int_equal(lm.speed_mbps, 10000);
	assert_int_equal(lm.duplex, 1);
}

static void test_pause_not_supported(void **state)
{
	struct pf_pause pa;
	int self = pf_test_netns_enter(), r;

	r = pf_providers_live.pause(&live_ctx, "vt0", &pa);
	pf_test_netns_leave(self);
	assert_int_equal(r, -EOPNOTSUPP);
}

static void test_dcb_not_supported(void **state)
{
	struct pf_pfc pfc;
	int self = pf_test_netns_enter(), r;

	r = pf_providers_live.pfc(&live_ctx, "vt0", &pfc);
	pf_test_netns_leave(self);
	assert_int_equal(r, -EOPNOTSUPP);
}

static void test_driver_stats(void **state)
{
	struct pf_stats s = { 0 };
	uint64_t peer;
	unsigned int vt1;
	int self = pf_test_netns_enter(), r, r2;

	r = pf_providers_live.ethtool_stats(&live_ctx, "vt0", 0, &s);
	vt1 = if_nametoindex("vt1");
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_true(s.n >= 1);
	r2 = pf_stats_get(&s, "peer_ifindex", &peer);
	assert_int_equal(r2, 0);
	assert_true(vt1 > 0);
	assert_int_equal(peer, vt1);
	pf_stats_release(&s);
}

static void test_no_such_device(void **state)
{
	struct pf_linkmodes lm;
	struct pf_stats s = { 0 };
	struct pf_pfc pfc;
	int self = pf_test_netns_enter(), r1, r2, r3;

	r1 = pf_ethtool_linkmodes_get(&pf_ethtool_sys, "pfnosuch0", &lm);
	r2 = pf_ethtool_stats_get("pfnosuch0", &s);
	r3 = pf_dcb_pfc_get("pfnosuch0", &pfc);
	pf_test_netns_leave(self);
	assert_int_equal(r1, -ENODEV);
	assert_int_equal(r2, -ENODEV);
	assert_int_equal(r3, -ENODEV);
}

/*
 * The pfc_pause check end to end on the live providers: vt0 posing as the
 * netdev of a RoCE port.  veth has no DCB and no pause operations and no
 * per-priority counters, so the check warns that PFC cannot be read and
 * says so for the counters; it must not error.
 */
static void test_check_live_veth(void **state)
{
	struct pf_netdev nd = { .name = (char *)"vt0", .rdma_dev = 0, .port = 1 };
	struct pf_rdma_port port = { .num = 1, .link_layer = PF_LINK_ETH, .netdev = 0 };
	struct pf_rdma_dev dev = { .name = (char *)"rxe0", .pci = -1, .ports = &port, .n_ports = 1 };
	struct pf_node node = { .source = "test", .rdma = &dev, .n_rdma = 1, .netdevs = &nd,
				.n_netdevs = 1 };
	const struct pf_check *c = pf_registry_find("pfc_pause");
	struct pf_profile prof;
	struct pf_run run = { 0 };
	struct pf_ctx ctx = { .prov = &pf_providers_live, .node = &node };
	struct pf_fs *fs = NULL;
	const struct pf_finding *f;
	char *err = NULL;
	int self;

	assert_non_null(c);
	pf_profile_init(&prof);
	pf_profile_add_set(&prof, "pfc_pause.window_ms=50");
	assert_int_equal(pf_config_build(c, &prof, &run.cfg, &err), 0);
	assert_int_equal(pf_fs_open("/", &fs), 0);
	ctx.fs = fs;
	run.check = c;
	self = pf_test_netns_enter();
	pf_run_inline(&ctx, &run);
	pf_test_netns_leave(self);
	f = pf_test_finding(&run.res, "vt0");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "DCB not supported"));
	assert_non_null(strstr(f->message, "global pause not supported by the driver"));
	f = pf_test_finding(&run.res, "vt0/prio3");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_null(pf_test_finding(&run.res, "vt0/counters"));
	assert_int_equal(run.res.status, PF_STATUS_WARN);
	pf_result_release(&run.res);
	pf_config_free(c, run.cfg);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

static int no_genl_family(uint8_t cmd, int header_attr, const char *ifname, uint32_t flags,
			  void **ret_buf, size_t *ret_len)
{
	return -EPROTONOSUPPORT;
}

/* A kernel without ethtool netlink (< 5.6): the real SIOCETHTOOL answers for the veth. */
static void test_ioctl_fallback_veth(void **state)
{
	struct pf_ethtool_ops old = pf_ethtool_sys;
	struct pf_providers prov = pf_providers_live;
	struct pf_ctx ctx = { .prov = &prov };
	struct pf_linkmodes lm;
	struct pf_pause pa;
	int self = pf_test_netns_enter(), r_lm, r_pa;

	old.genl = no_genl_family;
	prov.ethtool = &old;
	r_lm = prov.linkmodes(&ctx, "vt0", &lm);
	r_pa = prov.pause(&ctx, "vt0", &pa);
	pf_test_netns_leave(self);
	assert_int_equal(r_lm, 0);
	assert_int_equal(lm.speed_mbps, 10000);
	assert_int_equal(lm.duplex, 1);
	assert_int_equal(r_pa, -EOPNOTSUPP); /* veth has no get_pauseparam */
}

/* RTM_GETADDR dump filtered to one veth, and its `ip -o -4 addr` text round-trip. */
static void test_ipv4_addrs_veth(void **state)
{
	struct pf_ipv4_addrs a0, a1, back;
	pf_autofree char *text = NULL;
	char cidr[24];
	int self = pf_test_netns_enter(), r0, r1, r2;

	assert_int_equal(pf_test_sh("ip -n %1$s addr add 10.9.0.1/24 dev vt0 && "
				    "ip -n %1$s addr add 10.9.1.1/24 dev vt1 && "
				    "ip -n %1$s addr add 192.168.5.5/16 dev vt1", pf_test_netns_name()), 0);
	r0 = pf_providers_live.ipv4_addrs(&live_ctx, "vt0", &a0);
	r1 = pf_providers_live.ipv4_addrs(&live_ctx, "vt1", &a1);
	r2 = pf_providers_live.ipv4_addrs(&live_ctx, "pf-nosuch0", &back);
	pf_test_netns_leave(self);
	assert_int_equal(r0, 0);
	assert_int_equal(a0.n, 1);
	pf_format_ipv4(&a0.v[0], cidr, sizeof(cidr));
	assert_string_equal(cidr, "10.9.0.1/24");
	assert_int_equal(r1, 0);
	assert_int_equal(a1.n, 2);
	assert_false(pf_ipv4_same_subnet(&a0.v[0], &a1.v[0]));
	assert_int_equal(r2, -ENODEV);
	text = pf_format_ip_addr("vt1", 3, &a1);
	assert_int_equal(pf_parse_ip_addr(text, &back), 0);
	assert_int_equal(back.n, 2);
	assert_memory_equal(back.v, a1.v, 2 * sizeof(a1.v[0]));
}

/* What iproute2 prints, real lines; and the subnet rule. */
static void test_ip_addr_text(void **state)
{
	struct pf_ipv4_addrs a;
	struct pf_ipv4_addr x = { 0x0a000001, 24 }, y = { 0x0a0000fe, 16 }, z = { 0x0a010001, 24 };

	assert_int_equal(pf_parse_ip_addr(
		"4: ens1f0np0    inet 192.168.40.2/24 brd 192.168.40.255 scope global ens1f0np0\\"
		"       valid_lft forever preferred_lft forever\n"
		"4: ens1f0np0    inet 10.0.0.3/31 scope global secondary ens1f0np0\n", &a), 0);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.v[0].addr, 0xc0a82802);
	assert_int_equal(a.v[0].prefix, 24);
	assert_int_equal(a.v[1].prefix, 31);
	assert_int_equal(pf_parse_ip_addr("", &a), 0);
	assert_int_equal(a.n, 0);
	assert_int_equal(pf_parse_ip_addr("4: x    inet 300.1.1.1/24 scope global x\n", &a), -EINVAL);
	assert_int_equal(pf_parse_ip_addr("4: x    inet 10.1.1.1/33 scope global x\n", &a), -EINVAL);
	assert_true(pf_ipv4_same_subnet(&x, &y));  /* 10.0.0.0/16 holds 10.0.0.1 */
	assert_false(pf_ipv4_same_subnet(&x, &z));
}

static void test_wait(void **state)
{
	double ms = 0;

	/* Not namespaced, but live: the sampling window sleeps at least as asked. */
	assert_int_equal(pf_providers_live.wait(NULL, 20, &ms), 0);
	assert_true(ms >= 20.0);
	assert_true(ms < 2000.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linkmodes_veth),
		cmocka_unit_test(test_pause_not_supported),
		cmocka_unit_test(test_dcb_not_supported),
		cmocka_unit_test(test_driver_stats),
		cmocka_unit_test(test_no_such_device),
		cmocka_unit_test(test_check_live_veth),
		cmocka_unit_test(test_ioctl_fallback_veth),
		cmocka_unit_test(test_ipv4_addrs_veth),
		cmocka_unit_test(test_ip_addr_text),
		cmocka_unit_test(test_wait),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
