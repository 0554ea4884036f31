// SPDX-License-Identifier: MIT
/*
 * test_check_link_health.c - the link_health check on a generated RoCE node
 * (tests/gen_root.py) whose snapshot holds the ethtool netlink replies
 * (preflight/ethtool/<if>/fec.nl, fec.after.nl, module/p00-b0-a50-o0.nl, ...), replayed by
 * the recorded provider through the live parsers.  No public capture of
 * these replies exists: they are built here with libnl per the kernel's
 * uapi (include/uapi/linux/ethtool_netlink.h) and the EEPROM pages at the
 * SFF-8636 offsets (src/parse/optics.c).  Failing first: a hot optic and a
 * lane with rising corrected FEC fail; a healthy link passes; a driver
 * without the operations (the kernel's EOPNOTSUPP, recorded) is a skip.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "preflight/node.h"
#include "preflight/providers.h"
#include "testutil.h"

static char *root;
static char ifname[32];

static int group_setup(void **state)
{
	struct pf_node *node = NULL;
	struct pf_fs *fs = NULL;
	char *err = NULL;

	root = pf_test_gen_root("--gpus 1 --nics 1 --link-layer eth");
	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	for (size_t i = 0; i < node->n_rdma && !*ifname; i++)
		if (node->rdma[i].n_ports && node->rdma[i].ports[0].netdev >= 0)
			snprintf(ifname, sizeof(ifname), "%s",
				 node->netdevs[node->rdma[i].ports[0].netdev].name);
	assert_true(*ifname);
	pf_node_free(node);
	pf_fs_free(fs);
	return 0;
}

static int group_teardown(void **state)
{
	pf_test_rmtree(root);
	free(root);
	return 0;
}

/* Write @len bytes as @rel under the root (its directories made by pf_test_write). */
static void put_bytes(const char *rel, const void *buf, size_t len)
{
	char path[1024];
	FILE *f;

	pf_test_write(root, rel, "");
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void put_msg(const char *file, struct nl_msg *msg)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "preflight/ethtool/%s/%s", ifname, file);
	put_bytes(rel, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);
	nlmsg_free(msg);
}

static struct nl_msg *fec_reply(const uint64_t lanes[4], uint64_t uncorr)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t arr[5] = { lanes[0] + lanes[1] + lanes[2] + lanes[3],
			    lanes[0], lanes[1], lanes[2], lanes[3] };
	struct nlattr *st;

	genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_FEC_GET_REPLY, 1);
	st = nla_nest_start(msg, ETHTOOL_A_FEC_STATS);
	nla_put(msg, ETHTOOL_A_FEC_STAT_CORRECTED, sizeof(arr), arr);
	nla_put(msg, ETHTOOL_A_FEC_STAT_UNCORR, sizeof(uncorr), &uncorr);
	nla_nest_end(msg, st);
	return msg;
}

static struct nl_msg *eeprom_reply(const uint8_t page[128])
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, 1);
	nla_put(msg, ETHTOOL_A_MODULE_EEPROM_DATA, 128, page);
	return msg;
}

static struct nl_msg *not_supported(void)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = -EOPNOTSUPP };

	nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO);
	return msg;
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A QSFP28 at @temp_c, its page 03h thresholds: temperature alarm 75 C, warning 70 C. */
static void put_module(int temp_c)
{
	uint8_t lo[128] = { 0x11 }, p3[128] = { 0 };
	static const unsigned int thr[5][4] = {
		{ 75 * 256, 0xfb00, 70 * 256, 0 }, { 36300, 29700, 34650, 31350 },
		{ 34673, 363, 27542, 912 }, { 6000, 500, 5500, 1000 }, { 34673, 1000, 27542, 2000 },
	};
	static const unsigned int off[5] = { 0, 16, 48, 56, 64 };

	put16(lo + 22, (unsigned int)(temp_c * 256));
	put16(lo + 26, 33000);
	for (int i = 0; i < 4; i++) {
		put16(lo + 34 + 2 * i, 8000);
		put16(lo + 42 + 2 * i, 3500);
		put16(lo + 50 + 2 * i, 9000);
	}
	for (int m = 0; m < 5; m++)
		for (int k = 0; k < 4; k++)
			put16(p3 + off[m] + 2 * k, thr[m][k]);
	put_msg("module/p00-b0-a50-o0.nl", eeprom_reply(lo));
	put_msg("module/p03-b0-a50-o128.nl", eeprom_reply(p3));
}

/* 400 Gb/s over 4 lanes, FEC before and after a 1 s window. */
static void put_link(const uint64_t before[4], const uint64_t after[4], uint64_t unc_after)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "preflight/ethtool/%s/settings", ifname);
	pf_test_write(root, rel, "Settings for x:\n\tSpeed: 400000Mb/s\n\tLanes: 4\n"
				 "\tDuplex: Full\n");
	pf_test_write(root, "preflight/window_ms", "1000\n");
	put_msg("fec.nl", fec_reply(before, 0));
	put_msg("fec.after.nl", fec_reply(after, unc_after));
}

static const struct pf_finding *finding(const struct pf_result *res, const char *what)
{
	char subject[64];

	snprintf(subject, sizeof(subject), "%s/%s", ifname, what);
	return pf_test_finding(res, subject);
}

static const uint64_t calm0[4] = { 10, 20, 30, 40 }, calm1[4] = { 11, 20, 30, 41 };

static void test_healthy_passes(void **state)
{
	struct pf_result res;

	put_link(calm0, calm1, 0);
	put_module(45);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(finding(&res, "fec")->status, PF_STATUS_PASS);
	assert_int_equal(finding(&res, "module")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_hot_optic_fails(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	put_link(calm0, calm1, 0);
	put_module(80);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = finding(&res, "module");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "temperature 80"));
	assert_non_null(strstr(f->message, "alarm threshold 75"));
	assert_int_equal(f->code_num, 4);
	pf_result_release(&res);

	put_module(72); /* past the warning only */
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(finding(&res, "module")->code_num, 5);
	pf_result_release(&res);
}

static void test_rising_lane_fails(void **state)
{
	static const uint64_t hot[4] = { 10, 20, 5000030, 40 };
	struct pf_result res;
	const struct pf_finding *f;

	put_link(calm0, hot, 0);
	put_module(45);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = finding(&res, "fec");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "lane 2"));
	assert_int_equal(f->code_num, 2);
	pf_result_release(&res);

	put_link(calm0, calm1, 3); /* uncorrectable blocks: lost frames */
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(finding(&res, "fec")->status, PF_STATUS_FAIL);
	assert_int_equal(finding(&res, "fec")->code_num, 1);
	pf_result_release(&res);
}

static void test_not_supported_skips(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	put_link(calm0, calm1, 0);
	put_msg("fec.nl", not_supported());
	put_msg("module/p00-b0-a50-o0.nl", not_supported());
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	f = finding(&res, "fec");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "not supported by the driver"));
	assert_non_null(strstr(f->message, "Operation not supported"));
	assert_int_equal(finding(&res, "module")->status, PF_STATUS_SKIP);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);
}

/*
 * `ethtool -S` of an mlx5 port before and after the window: @corr bits
 * corrected in all, @lane2 of them on lane 2, @sym symbols FEC could not
 * correct, 4e11 bits received (400 Gb/s for 1 s).
 */
static void put_phy(uint64_t corr, uint64_t lane2, uint64_t sym)
{
	char rel[256], text[1024];

	for (int after = 0; after < 2; after++) {
		snprintf(rel, sizeof(rel), "preflight/ethtool/%s/%s", ifname,
			 after ? "stats.after" : "stats");
		snprintf(text, sizeof(text),
			 "NIC statistics:\n"
			 "     rx_bytes: 123\n"
			 "     rx_bits_phy: %llu\n"
			 "     rx_pcs_symbol_err_phy: %llu\n"
			 "     rx_corrected_bits_phy: %llu\n"
			 "     rx_err_lane_0_phy: %llu\n"
			 "     rx_err_lane_1_phy: 0\n"
			 "     rx_err_lane_2_phy: %llu\n"
			 "     rx_err_lane_3_phy: 0\n",
			 after ? 900000000000ULL : 500000000000ULL, after ? (unsigned long long)sym : 0,
			 after ? 1000 + (unsigned long long)corr : 1000,
			 after ? (unsigned long long)(corr - lane2) : 0,
			 after ? (unsigned long long)lane2 : 0);
		pf_test_write(root, rel, text);
	}
}

static void drop_phy(void)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/preflight/ethtool/%s/stats", root, ifname);
	unlink(rel);
	snprintf(rel, sizeof(rel), "%s/preflight/ethtool/%s/stats.after", root, ifname);
	unlink(rel);
}

/* A healthy mlx5 port: 100 corrected bits in 4e11 (BER 2.5e-10) passes. */
static void test_phy_healthy_passes(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	put_link(calm0, calm1, 0);
	put_module(45);
	put_phy(100, 50, 0);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = finding(&res, "phy");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "100 bits corrected");
	pf_result_release(&res);
	drop_phy();
}

/* A bad lane: 2e5 of 2.4e5 corrected bits on lane 2 (1e11 bits a lane: 2e-6) warns, more fails. */
static void test_phy_bad_lane(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	put_link(calm0, calm1, 0);
	put_module(45);
	put_phy(240000, 200000, 0);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	f = finding(&res, "phy");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "lane 2");
	assert_int_equal(f->code_num, 7);
	pf_result_release(&res);

	put_phy(3000000, 2000000, 0); /* lane 2 at 2e-5 */
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	f = finding(&res, "phy");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "pre-FEC BER 2e-05 on lane 2");
	assert_int_equal(f->code_num, 6);
	pf_result_release(&res);

	put_phy(100, 50, 3); /* symbols FEC could not correct: frames lost */
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	f = finding(&res, "phy");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "3 symbol errors FEC could not correct");
	assert_int_equal(f->code_num, 8);
	pf_result_release(&res);
	drop_phy();
}

/* A driver without PHY counters (not mlx5), and a snapshot without the statistics: skips. */
static void test_phy_absent_skips(void **state)
{
	char rel[256];
	struct pf_result res;

	put_link(calm0, calm1, 0);
	put_module(45);
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_assert_contains(finding(&res, "phy")->message, "not in the snapshot");
	assert_int_equal(finding(&res, "phy")->status, PF_STATUS_SKIP);
	pf_result_release(&res);

	snprintf(rel, sizeof(rel), "preflight/ethtool/%s/stats", ifname);
	pf_test_write(root, rel, "NIC statistics:\n     rx_packets: 5\n     rx_bytes: 400\n");
	pf_test_run_check("link_health", root, &pf_providers_recorded, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(finding(&res, "phy")->status, PF_STATUS_SKIP);
	pf_test_assert_contains(finding(&res, "phy")->message, "no PHY error counters");
	pf_result_release(&res);
	drop_phy();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_passes),
		cmocka_unit_test(test_hot_optic_fails),
		cmocka_unit_test(test_rising_lane_fails),
		cmocka_unit_test(test_not_supported_skips),
		cmocka_unit_test(test_phy_healthy_passes),
		cmocka_unit_test(test_phy_bad_lane),
		cmocka_unit_test(test_phy_absent_skips),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
