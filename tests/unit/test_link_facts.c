// SPDX-License-Identifier: MIT
/*
 * test_link_facts.c - the link-health facts on bytes: FEC statistics and
 * module EEPROM replies of ethtool netlink, and the SFF-8636 / CMIS
 * decoder with the module's own thresholds.
 *
 * No public capture of these replies exists, so the messages are built
 * here with libnl as the kernel lays them out (include/uapi/linux/
 * ethtool_netlink.h; the FEC arrays as net/ethtool/fec.c puts them: the
 * total, then one u64 per lane), and the EEPROM pages are filled at the
 * offsets of SFF-8636 rev 2.10a and CMIS 5.2 (src/parse/optics.c lists
 * them).  Failing first: a hot optic (temperature past its high alarm)
 * and a lane whose corrected FEC blocks rise are caught; healthy ones pass.
 */
#include <string.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "preflight/link_facts.h"
#include "preflight/optics.h"
#include "testutil.h"

/* An ethtool genl reply of @cmd with a FEC statistics nest: @lanes per-lane values. */
static struct nl_msg *fec_reply(uint64_t corr_total, const uint64_t *corr_lanes, size_t lanes,
				uint64_t uncorr)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint64_t arr[1 + PF_FEC_LANES];
	struct nlattr *st;

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_FEC_GET_REPLY, 1));
	assert_int_equal(nla_put_u32(msg, ETHTOOL_A_FEC_ACTIVE, ETHTOOL_FEC_RS_BIT), 0);
	st = nla_nest_start(msg, ETHTOOL_A_FEC_STATS);
	arr[0] = corr_total;
	for (size_t i = 0; i < lanes; i++)
		arr[1 + i] = corr_lanes[i];
	assert_int_equal(nla_put(msg, ETHTOOL_A_FEC_STAT_CORRECTED,
				 (int)((1 + lanes) * sizeof(uint64_t)), arr), 0);
	assert_int_equal(nla_put(msg, ETHTOOL_A_FEC_STAT_UNCORR, sizeof(uncorr), &uncorr), 0);
	nla_nest_end(msg, st);
	return msg;
}

static int parse_msg(struct nl_msg *msg, struct pf_fec *ret)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	int r = pf_ethtool_parse_fec(h, h->nlmsg_len, ret);

	nlmsg_free(msg);
	return r;
}

static void test_fec_parse_lanes(void **state)
{
	static const uint64_t lanes[4] = { 10, 20, 30, 40 };
	struct pf_fec f;

	assert_int_equal(parse_msg(fec_reply(100, lanes, 4, 7), &f), 0);
	assert_true(f.has_stats);
	assert_int_equal(f.active, ETHTOOL_FEC_RS_BIT);
	assert_true(f.corrected.has);
	assert_int_equal(f.corrected.total, 100);
	assert_int_equal(f.corrected.n_lanes, 4);
	assert_int_equal(f.corrected.lane[3], 40);
	assert_true(f.uncorrectable.has);
	assert_int_equal(f.uncorrectable.total, 7);
	assert_int_equal(f.uncorrectable.n_lanes, 0);
	assert_false(f.corrected_bits.has);
}

/* The kernel's answer for a driver without get_fec_stats/get_fecparam (veth). */
static void test_fec_not_supported(void **state)
{
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} m = { .h = { .nlmsg_len = sizeof(m), .nlmsg_type = NLMSG_ERROR },
		.e = { .error = -EOPNOTSUPP } };
	struct pf_fec f;
	uint8_t data[128];
	size_t n;

	assert_int_equal(pf_ethtool_parse_fec(&m, sizeof(m), &f), -EOPNOTSUPP);
	assert_int_equal(pf_ethtool_parse_module_eeprom(&m, sizeof(m), data, sizeof(data), &n),
			 -EOPNOTSUPP);
}

static void test_fec_malformed(void **state)
{
	struct nl_msg *msg = nlmsg_alloc();
	struct nlattr *st;
	uint8_t odd[12] = { 0 };
	struct pf_fec f;

	genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_FEC_GET_REPLY, 1);
	st = nla_nest_start(msg, ETHTOOL_A_FEC_STATS);
	nla_put(msg, ETHTOOL_A_FEC_STAT_CORRECTED, sizeof(odd), odd); /* not a u64 array */
	nla_nest_end(msg, st);
	assert_int_equal(parse_msg(msg, &f), -EBADMSG);
}

/* Failing first: lane 2's corrected blocks rise over the window, the others stay. */
static void test_fec_rising_lane(void **state)
{
	static const uint64_t before[4] = { 10, 20, 30, 40 }, after[4] = { 10, 20, 5030, 41 };
	static const uint64_t calm[4] = { 10, 20, 30, 41 };
	struct pf_fec a, b, c;
	uint64_t d;
	int lane;

	assert_int_equal(parse_msg(fec_reply(100, before, 4, 0), &a), 0);
	assert_int_equal(parse_msg(fec_reply(5101, after, 4, 0), &b), 0);
	assert_int_equal(parse_msg(fec_reply(101, calm, 4, 0), &c), 0);
	assert_int_equal(pf_fec_corrected_rise(&a, &b, &d, &lane), 0);
	assert_int_equal(lane, 2);
	assert_int_equal(d, 5000);
	assert_int_equal(pf_fec_corrected_rise(&a, &c, &d, &lane), 0);
	assert_int_equal(d, 1);
	/* RS-FEC on mlx5 gives the total only */
	assert_int_equal(parse_msg(fec_reply(100, NULL, 0, 0), &a), 0);
	assert_int_equal(parse_msg(fec_reply(90, NULL, 0, 0), &b), 0);
	assert_int_equal(pf_fec_corrected_rise(&a, &b, &d, &lane), 0);
	assert_int_equal(lane, -1);
	assert_int_equal(d, 0); /* a counter that went back (reset) is no rise */
}

static void test_eeprom_parse(void **state)
{
	struct nl_msg *msg = nlmsg_alloc();
	uint8_t page[128], out[128];
	struct nlmsghdr *h;
	size_t n = 0;

	for (size_t i = 0; i < sizeof(page); i++)
		page[i] = (uint8_t)i;
	genlmsg_put(msg, 1, 1, 30, 0, 0, ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY, 1);
	nla_put(msg, ETHTOOL_A_MODULE_EEPROM_DATA, sizeof(page), page);
	h = nlmsg_hdr(msg);
	assert_int_equal(pf_ethtool_parse_module_eeprom(h, h->nlmsg_len, out, sizeof(out), &n), 0);
	assert_int_equal(n, 128);
	assert_memory_equal(out, page, 128);
	assert_int_equal(pf_ethtool_parse_module_eeprom(h, h->nlmsg_len, out, 64, &n), -EMSGSIZE);
	nlmsg_free(msg);
}

static void put16(uint8_t *p, unsigned int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Four thresholds (high alarm, low alarm, high warn, low warn) as raw u16. */
static void put_thr(uint8_t *p, unsigned int ha, unsigned int la, unsigned int hw,
		    unsigned int lw)
{
	put16(p, ha);
	put16(p + 2, la);
	put16(p + 4, hw);
	put16(p + 6, lw);
}

/* A QSFP28 (SFF-8636) at @temp_c with thresholds of a typical 100G optic. */
static void sff8636(uint8_t *lo, uint8_t *p3, int temp_c)
{
	memset(lo, 0, 128);
	memset(p3, 0, 128);
	lo[0] = 0x11;
	put16(lo + 22, (unsigned int)(temp_c * 256) & 0xffff);
	put16(lo + 26, 33000);                     /* 3.3 V */
	for (int i = 0; i < 4; i++) {
		put16(lo + 34 + 2 * i, 8000);      /* RX 0.8 mW */
		put16(lo + 42 + 2 * i, 3500);      /* 7 mA */
		put16(lo + 50 + 2 * i, 9000);      /* TX 0.9 mW */
	}
	put_thr(p3 + 0, 75 * 256, 0xfb00 /* -5 C */, 70 * 256, 0);
	put_thr(p3 + 16, 36300, 29700, 34650, 31350);
	put_thr(p3 + 48, 34673, 363, 27542, 912);  /* RX power */
	put_thr(p3 + 56, 6000, 500, 5500, 1000);   /* TX bias */
	put_thr(p3 + 64, 34673, 1000, 27542, 2000); /* TX power */
}

static void test_sff8636_hot_optic(void **state)
{
	uint8_t lo[128], p3[128];
	struct pf_optic_pages pg = { .lower = lo };
	struct pf_optic o;

	pg.upper[0x03] = p3;
	sff8636(lo, p3, 45);
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_int_equal(o.kind, PF_OPTIC_SFF8636);
	assert_int_equal(o.n_lanes, 4);
	assert_true(o.thr[PF_MON_TEMP].has);
	assert_float_equal(o.temp_c, 45.0, 1e-9);
	assert_float_equal(o.vcc_v, 3.3, 1e-9);
	assert_float_equal(o.lane[PF_MON_TX_BIAS][0], 7.0, 1e-9);
	assert_float_equal(o.lane[PF_MON_RX_POWER][3], 0.8, 1e-9);
	assert_float_equal(o.thr[PF_MON_TEMP].low_alarm, -5.0, 1e-9);
	for (int m = 0; m < PF_MON_COUNT; m++)
		for (unsigned int l = 0; l < 4; l++)
			assert_int_equal(pf_optic_level(&o.thr[m], m < PF_MON_TX_BIAS ?
						(m == PF_MON_TEMP ? o.temp_c : o.vcc_v) :
						o.lane[m][l]), PF_OPTIC_OK);
	/* failing first: 72 C warns, 80 C is past the module's own 75 C alarm */
	sff8636(lo, p3, 72);
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_TEMP], o.temp_c), PF_OPTIC_WARN_HIGH);
	sff8636(lo, p3, 80);
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_TEMP], o.temp_c), PF_OPTIC_ALARM_HIGH);
	/* flat memory: no page 03h, so no thresholds and no verdict */
	lo[2] = 0x04;
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_false(o.thr[PF_MON_TEMP].has);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_TEMP], o.temp_c), PF_OPTIC_OK);
}

static void test_cmis_lane_rx_power(void **state)
{
	uint8_t lo[128] = { 0 }, p1[128] = { 0 }, p2[128] = { 0 }, p11[128] = { 0 };
	struct pf_optic_pages pg = { .lower = lo };
	uint8_t want[4];
	struct pf_optic o;

	pg.upper[0x01] = p1;
	pg.upper[0x02] = p2;
	pg.upper[0x11] = p11;
	lo[0] = 0x19; /* OSFP */
	put16(lo + 14, 50 * 256);
	put16(lo + 16, 33000);
	p1[160 - 128] = 1 << 3; /* TX bias x2 */
	put_thr(p2 + 0, 80 * 256, 0, 75 * 256, 5 * 256);
	put_thr(p2 + 8, 36300, 29700, 34650, 31350);
	put_thr(p2 + 48, 50000, 1000, 40000, 2000);   /* TX power */
	put_thr(p2 + 56, 7500, 1000, 7000, 1500);     /* TX bias, raw (x2 applies) */
	put_thr(p2 + 64, 50000, 500, 40000, 1000);    /* RX power */
	for (int i = 0; i < 8; i++) {
		put16(p11 + (154 - 128) + 2 * i, 20000);
		put16(p11 + (170 - 128) + 2 * i, 4000);
		put16(p11 + (186 - 128) + 2 * i, 15000);
	}
	put16(p11 + (186 - 128) + 2 * 5, 800); /* lane 6 (index 5): RX 0.08 mW */
	assert_int_equal(pf_optic_pages_wanted(PF_OPTIC_CMIS, want, 4), 3);
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_int_equal(o.kind, PF_OPTIC_CMIS);
	assert_int_equal(o.n_lanes, 8);
	assert_float_equal(o.lane[PF_MON_TX_BIAS][0], 16.0, 1e-9); /* 4000 * 2 uA * 2 */
	assert_float_equal(o.thr[PF_MON_TX_BIAS].high_alarm, 30.0, 1e-9);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_RX_POWER], o.lane[PF_MON_RX_POWER][0]),
			 PF_OPTIC_OK);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_RX_POWER], o.lane[PF_MON_RX_POWER][5]),
			 PF_OPTIC_WARN_LOW);
	put16(p11 + (186 - 128) + 2 * 5, 100);
	assert_int_equal(pf_optic_decode(&pg, &o), 0);
	assert_int_equal(pf_optic_level(&o.thr[PF_MON_RX_POWER], o.lane[PF_MON_RX_POWER][5]),
			 PF_OPTIC_ALARM_LOW);
	assert_string_equal(pf_optic_mon_name(PF_MON_RX_POWER), "RX power");
}

static void test_sfp_not_decoded(void **state)
{
	uint8_t lo[128] = { 0x03 };
	struct pf_optic_pages pg = { .lower = lo };
	struct pf_optic o;

	assert_int_equal(pf_optic_decode(&pg, &o), -EOPNOTSUPP);
	pg.lower = NULL;
	assert_int_equal(pf_optic_decode(&pg, &o), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fec_parse_lanes),
		cmocka_unit_test(test_fec_not_supported),
		cmocka_unit_test(test_fec_malformed),
		cmocka_unit_test(test_fec_rising_lane),
		cmocka_unit_test(test_eeprom_parse),
		cmocka_unit_test(test_sff8636_hot_optic),
		cmocka_unit_test(test_cmis_lane_rx_power),
		cmocka_unit_test(test_sfp_not_decoded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
