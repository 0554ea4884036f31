// SPDX-License-Identifier: MIT
/*
 * test_parse_ethtool.c - the text parsers of `ethtool -S`, `ethtool -I -a`,
 * `ethtool` and `dcb pfc show`, and the netlink reply parsers on message
 * bytes built here with libnl (as the kernel would send them).
 */
#include <limits.h>
#include <string.h>

#include <linux/dcbnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/socket.h>

#include "preflight/net_facts.h"
#include "testutil.h"

static uint64_t stat_of(const struct pf_stats *s, const char *name)
{
	uint64_t v = 0;

	assert_int_equal(pf_stats_get(s, name, &v), 0);
	return v;
}

/* --- ethtool -S --- */

static void test_stats_basic(void **state)
{
	struct pf_stats s = { 0 };
	uint64_t v;

	assert_int_equal(pf_parse_ethtool_stats("NIC statistics:\n"
						"     rx_prio3_pause: 12\n"
						"     tx_prio3_pause_duration: 18446744073709551615\n"
						"     tx_pause_storm_error_events: 0\n",
						&s),
			 3);
	assert_int_equal(stat_of(&s, "rx_prio3_pause"), 12);
	assert_true(stat_of(&s, "tx_prio3_pause_duration") == UINT64_MAX);
	assert_int_equal(pf_stats_get(&s, "rx_prio0_pause", &v), -ENOENT);
	pf_stats_release(&s);
	assert_null(s.v);
}

static void test_stats_variations(void **state)
{
	struct pf_stats s = { 0 };

	/* No header, tabs, CRLF, garbage lines, a blank line, a value too large. */
	assert_int_equal(pf_parse_ethtool_stats("\trx_pause_ctrl_phy:\t7\r\n"
						"garbage without colon\n"
						"\n"
						"rx_global_pause: notanumber\n"
						"  tx_global_pause :  5  \n"
						"overflow: 18446744073709551616\n"
						"weird name [0]: 3\n",
						&s),
			 3);
	assert_int_equal(stat_of(&s, "rx_pause_ctrl_phy"), 7);
	assert_int_equal(stat_of(&s, "tx_global_pause"), 5);
	assert_int_equal(stat_of(&s, "weird name [0]"), 3);
	pf_stats_release(&s);

	/* A header with no counters is an empty, valid dump; nothing at all is not. */
	assert_int_equal(pf_parse_ethtool_stats("NIC statistics:\n", &s), 0);
	pf_stats_release(&s);
	assert_int_equal(pf_parse_ethtool_stats("hello\nworld\n", &s), -EINVAL);
	assert_int_equal(pf_parse_ethtool_stats("", &s), -EINVAL);
	assert_int_equal(pf_parse_ethtool_stats("no stats available\n", &s), -EOPNOTSUPP);
	assert_int_equal(pf_parse_ethtool_stats("Cannot get stats information: Operation not supported\n", &s),
			 -EOPNOTSUPP);
}

/* The real dumps in ../shared: each must parse completely. */
static void shared_stats_real_dumps(void **state)
{
	static const struct {
		const char *file;
		const char *name;
		uint64_t value;
	} dumps[] = {
		{ "lkml-bpf-20240619-xdp-regression-ethtool-S-mlx5-kernel-6.5.txt",
		  "tx_global_pause_duration", 5961284324ULL },
		{ "lkml-bpf-20240619-xdp-regression-ethtool-S-mlx5-kernel-5.15.txt",
		  "tx_pause_ctrl_phy", 5745055 },
		{ "cx4lx-25g-ethtool-S-grep-pause-pci-control.txt", "tx_global_pause_duration",
		  555665182 },
		{ "cx4lx-25g-ethtool-S-grep-discard-buffer.txt", "rx_steer_missed_packets", 24627 },
		{ "byteps-issue-179-ethtool-S-grep-prio-before.txt", "rx_prio0_bytes",
		  88034564921216ULL },
	};
	pf_autofree char *dir = pf_test_shared_or_skip("fixtures/tool-outputs");
	struct pf_fs *fs = NULL;

	assert_int_equal(pf_fs_open(dir, &fs), 0);
	for (size_t i = 0; i < PF_ARRAY_SIZE(dumps); i++) {
		char path[256], *text = NULL;
		struct pf_stats s = { 0 };
		size_t lines = 0;
		int n;

		snprintf(path, sizeof(path), "/%s", dumps[i].file);
		assert_int_equal(pf_fs_read_full(fs, path, 0, &text, NULL), 0);
		for (const char *p = text; *p; p++)
			lines += *p == '\n' && p[1] != '\0' && p[1] != '\n';
		n = pf_parse_ethtool_stats(text, &s);
		assert_true(n > 0);
		/* Every line but the "NIC statistics:" header is a counter. */
		assert_int_equal((size_t)n + (strstr(text, "NIC statistics") ? 1 : 0), lines + 1);
		assert_true(stat_of(&s, dumps[i].name) == dumps[i].value);
		pf_stats_release(&s);
		free(text);
	}
	pf_fs_free(fs);
}

/* --- ethtool -I -a --- */

static void test_pause_text(void **state)
{
	struct pf_pause pa;

	assert_int_equal(pf_parse_ethtool_pause("Pause parameters for ens1f0np0:\n"
						"Autonegotiate:\toff\n"
						"RX:\t\ton\n"
						"TX:\t\ton\n"
						"Statistics:\n"
						"  tx_pause_frames: 1266552\n"
						"  rx_pause_frames: 18446744073709551615\n",
						&pa),
			 0);
	assert_false(pa.autoneg);
	assert_true(pa.rx && pa.tx && pa.has_stats);
	assert_int_equal(pa.tx_frames, 1266552);
	assert_true(pa.rx_frames == UINT64_MAX);

	/* Autoneg on with the negotiated lines, no statistics, spaces instead of tabs. */
	assert_int_equal(pf_parse_ethtool_pause("  Autonegotiate: on\r\n  RX: off\n  TX: off\n"
						"RX negotiated: on\nTX negotiated: on\n",
						&pa),
			 0);
	assert_true(pa.autoneg);
	assert_false(pa.rx || pa.tx || pa.has_stats);

	assert_int_equal(pf_parse_ethtool_pause("netlink error: Operation not supported\n", &pa),
			 -EOPNOTSUPP);
	assert_int_equal(pf_parse_ethtool_pause("Autonegotiate: off\nRX: on\n", &pa), -EINVAL);
	assert_int_equal(pf_parse_ethtool_pause("RX: maybe\nTX: on\n", &pa), -EINVAL);
}

/* --- dcb pfc show --- */

static void test_pfc_text(void **state)
{
	struct pf_pfc pfc;

	assert_int_equal(pf_parse_dcb_pfc("pfc-cap 8 macsec-bypass off delay 7 \n"
					  "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off \n",
					  &pfc),
			 0);
	assert_int_equal(pfc.pfc_cap, 8);
	assert_int_equal(pfc.delay, 7);
	assert_false(pfc.mbc);
	assert_int_equal(pfc.pfc_en, 0x08);
	assert_false(pfc.has_counters);

	/* With -s: 64-bit counters; tabs; priorities missing from the map are off. */
	assert_int_equal(pf_parse_dcb_pfc("pfc-cap 4 macsec-bypass on delay 0\n"
					  "\tprio-pfc 3:on 5:on\n"
					  "garbage 1:2\n"
					  "requests 0:0 1:0 2:0 3:18446744073709551615 4:0 5:9 6:0 7:0\n"
					  "indications 0:0 1:0 2:0 3:42 4:0 5:0 6:0 7:1\n",
					  &pfc),
			 0);
	assert_int_equal(pfc.pfc_en, 0x28);
	assert_true(pfc.mbc);
	assert_true(pfc.has_counters);
	assert_true(pfc.requests[3] == UINT64_MAX);
	assert_int_equal(pfc.requests[5], 9);
	assert_int_equal(pfc.indications[3], 42);
	assert_int_equal(pfc.indications[7], 1);

	/* Out-of-range priorities and junk tokens are ignored. */
	assert_int_equal(pf_parse_dcb_pfc("prio-pfc 0:on 9:on x:on 2:maybe\n", &pfc), 0);
	assert_int_equal(pfc.pfc_en, 0x01);

	assert_int_equal(pf_parse_dcb_pfc("Attribute read: Operation not supported\n", &pfc),
			 -EOPNOTSUPP);
	assert_int_equal(pf_parse_dcb_pfc("pfc-cap 8 macsec-bypass off delay 0\n", &pfc), -EINVAL);
	assert_int_equal(pf_parse_dcb_pfc("", &pfc), -EINVAL);
}

/* --- ethtool <if> --- */

static void test_settings_text(void **state)
{
	struct pf_linkmodes lm;

	assert_int_equal(pf_parse_ethtool_settings("Settings for ens1f0np0:\n"
						   "\tSupported ports: [ FIBRE ]\n"
						   "\tSpeed: 400000Mb/s\n"
						   "\tLanes: 4\n"
						   "\tDuplex: Full\n"
						   "\tAuto-negotiation: on\n"
						   "\tLink detected: yes\n",
						   &lm),
			 0);
	assert_int_equal(lm.speed_mbps, 400000);
	assert_int_equal(lm.lanes, 4);
	assert_int_equal(lm.duplex, 1);
	assert_int_equal(lm.autoneg, 1);

	assert_int_equal(pf_parse_ethtool_settings("Speed: Unknown!\nDuplex: Unknown! (255)\n", &lm), 0);
	assert_true(lm.speed_mbps == PF_SPEED_UNKNOWN);
	assert_int_equal(lm.duplex, -1);
	assert_int_equal(pf_parse_ethtool_settings("Duplex: Full\n", &lm), -EINVAL);
}

/* --- netlink bytes --- */

/* A copy of the message bytes of @msg (what recv(2) would return). */
static void *msg_bytes(struct nl_msg *msg, size_t *ret_len)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	void *buf = pf_xmalloc(nlh->nlmsg_len);

	memcpy(buf, nlh, nlh->nlmsg_len);
	*ret_len = nlh->nlmsg_len;
	nlmsg_free(msg);
	return buf;
}

static struct nl_msg *genl_reply(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	/* The family id is dynamic; the parser goes by the genl command. */
	assert_non_null(genlmsg_put(msg, 1234, 1, 27, 0, 0, cmd, ETHTOOL_GENL_VERSION));
	return msg;
}

static void put_header(struct nl_msg *msg, int attr, const char *ifname)
{
	struct nlattr *nest = nla_nest_start(msg, attr);

	nla_put_u32(msg, ETHTOOL_A_HEADER_DEV_INDEX, 4);
	nla_put_string(msg, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	nla_nest_end(msg, nest);
}

/* An NLMSG_ERROR reply carrying @err (negative errno). */
static void *error_bytes(int err, size_t *ret_len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, 0);
	struct nlmsgerr e = { .error = err };

	assert_non_null(msg);
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	return msg_bytes(msg, ret_len);
}

static void test_nl_linkmodes(void **state)
{
	struct nl_msg *msg = genl_reply(ETHTOOL_MSG_LINKMODES_GET_REPLY);
	struct pf_linkmodes lm;
	void *buf;
	size_t len;

	put_header(msg, ETHTOOL_A_LINKMODES_HEADER, "ens1f0np0");
	nla_put_u8(msg, ETHTOOL_A_LINKMODES_AUTONEG, 1);
	nla_put_u32(msg, ETHTOOL_A_LINKMODES_SPEED, 400000);
	nla_put_u8(msg, ETHTOOL_A_LINKMODES_DUPLEX, DUPLEX_FULL);
	nla_put_u32(msg, ETHTOOL_A_LINKMODES_LANES, 4);
	nla_put_u32(msg, 60, 1); /* an attribute from a newer kernel: ignored */
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, len, &lm), 0);
	assert_int_equal(lm.speed_mbps, 400000);
	assert_int_equal(lm.lanes, 4);
	assert_int_equal(lm.duplex, 1);
	assert_int_equal(lm.autoneg, 1);
	/* Truncated bytes. */
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, len - 3, &lm), -EBADMSG);
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, 0, &lm), -ENODATA);
	free(buf);

	/* A down link: SPEED_UNKNOWN, DUPLEX_UNKNOWN, no lanes. */
	msg = genl_reply(ETHTOOL_MSG_LINKMODES_GET_REPLY);
	nla_put_u32(msg, ETHTOOL_A_LINKMODES_SPEED, SPEED_UNKNOWN);
	nla_put_u8(msg, ETHTOOL_A_LINKMODES_DUPLEX, DUPLEX_UNKNOWN);
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, len, &lm), 0);
	assert_true(lm.speed_mbps == PF_SPEED_UNKNOWN);
	assert_int_equal(lm.duplex, -1);
	assert_int_equal(lm.lanes, 0);
	free(buf);

	/* A reply to another command is not a link-modes reply. */
	msg = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, len, &lm), -EBADMSG);
	free(buf);

	buf = error_bytes(-ENODEV, &len);
	assert_int_equal(pf_ethtool_parse_linkmodes(buf, len, &lm), -ENODEV);
	free(buf);
}

static void test_nl_pause(void **state)
{
	struct nl_msg *msg = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	struct nlattr *nest;
	struct pf_pause pa;
	void *buf;
	size_t len;

	put_header(msg, ETHTOOL_A_PAUSE_HEADER, "ens1f0np0");
	nla_put_u8(msg, ETHTOOL_A_PAUSE_AUTONEG, 0);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_RX, 1);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_TX, 0);
	nest = nla_nest_start(msg, ETHTOOL_A_PAUSE_STATS);
	nla_put_u64(msg, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 5);
	nla_put_u64(msg, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 0x123456789abcULL);
	nla_nest_end(msg, nest);
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_pause(buf, len, &pa), 0);
	assert_true(pa.rx);
	assert_false(pa.tx || pa.autoneg);
	assert_true(pa.has_stats);
	assert_int_equal(pa.tx_frames, 5);
	assert_true(pa.rx_frames == 0x123456789abcULL);
	free(buf);

	/* No statistics nest: the driver reports none. */
	msg = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_RX, 0);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_TX, 0);
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_pause(buf, len, &pa), 0);
	assert_false(pa.has_stats);
	free(buf);

	/* Missing RX/TX is malformed. */
	msg = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_RX, 0);
	buf = msg_bytes(msg, &len);
	assert_int_equal(pf_ethtool_parse_pause(buf, len, &pa), -EBADMSG);
	free(buf);

	/* veth: "netlink error: Operation not supported". */
	buf = error_bytes(-EOPNOTSUPP, &len);
	assert_int_equal(pf_ethtool_parse_pause(buf, len, &pa), -EOPNOTSUPP);
	free(buf);
}

static void *dcb_reply(const struct ieee_pfc *raw, size_t *ret_len)
{
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETDCB, 0);
	struct dcbmsg d = { .dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET };
	struct nlattr *nest;

	assert_non_null(msg);
	assert_int_equal(nlmsg_append(msg, &d, sizeof(d), NLMSG_ALIGNTO), 0);
	nla_put_string(msg, DCB_ATTR_IFNAME, "ens1f0np0");
	nest = nla_nest_start(msg, DCB_ATTR_IEEE);
	if (raw) {
		/* the APP table as dcbnl nests it: a DSCP entry, an EtherType one */
		static const struct dcb_app apps[] = {
			{ .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 3, .protocol = 26 },
			{ .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE, .priority = 5,
			  .protocol = 0x8915 },
		};
		struct nlattr *table;

		nla_put(msg, DCB_ATTR_IEEE_PFC, sizeof(*raw), raw);
		table = nla_nest_start(msg, DCB_ATTR_IEEE_APP_TABLE);
		for (size_t i = 0; i < PF_ARRAY_SIZE(apps); i++)
			nla_put(msg, DCB_ATTR_IEEE_APP, sizeof(apps[i]), &apps[i]);
		nla_nest_end(msg, table);
	}
	nla_nest_end(msg, nest);
	nla_put_u8(msg, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	return msg_bytes(msg, ret_len);
}

static void test_nl_dcb(void **state)
{
	struct ieee_pfc raw = { .pfc_cap = 8, .pfc_en = 0x08, .delay = 7 };
	struct pf_pfc pfc;
	void *buf;
	size_t len;

	raw.requests[3] = 0xfedcba9876543210ULL;
	raw.indications[3] = 99;
	buf = dcb_reply(&raw, &len);
	assert_int_equal(pf_dcb_parse_ieee(buf, len, &pfc), 0);
	assert_int_equal(pfc.pfc_cap, 8);
	assert_int_equal(pfc.pfc_en, 0x08);
	assert_int_equal(pfc.delay, 7);
	assert_true(pfc.has_counters);
	assert_true(pfc.requests[3] == 0xfedcba9876543210ULL);
	assert_int_equal(pfc.indications[3], 99);
	/* DSCP trust: only the DSCP entry counts */
	assert_true(pfc.has_app);
	assert_true(pfc.dscp_mapped == 1ull << 26);
	assert_int_equal(pfc.dscp_prio[26], 3);
	free(buf);

	/* `dcb -N app show` text, and the snapshot's own */
	assert_int_equal(pf_parse_dcb_app("default-prio 0 dscp-prio 24:3 26:3 46:5\n", &pfc), 0);
	assert_true(pfc.has_app && pfc.dscp_mapped == ((1ull << 24) | (1ull << 26) | (1ull << 46)));
	assert_int_equal(pfc.dscp_prio[46], 5);
	assert_int_equal(pf_parse_dcb_app("\n", &pfc), 0);
	assert_true(pfc.has_app && !pfc.dscp_mapped);
	assert_int_equal(pf_parse_dcb_app("dscp-prio 64:3\n", &pfc), -EINVAL);
	assert_int_equal(pf_parse_dcb_app("dscp-prio 26:9\n", &pfc), -EINVAL);

	/* A driver with dcbnl_ops but no ieee_getpfc. */
	buf = dcb_reply(NULL, &len);
	assert_int_equal(pf_dcb_parse_ieee(buf, len, &pfc), -EOPNOTSUPP);
	free(buf);

	buf = error_bytes(-EOPNOTSUPP, &len);
	assert_int_equal(pf_dcb_parse_ieee(buf, len, &pfc), -EOPNOTSUPP);
	free(buf);
}

static void test_gstrings_raw(void **state)
{
	char names[3 * ETH_GSTRING_LEN] = { 0 };
	uint64_t vals[3] = { 1, UINT64_MAX, 3 };
	struct pf_stats s = { 0 };

	strcpy(names, "rx_prio3_pause");
	/* A name that fills all 32 bytes, without a NUL. */
	memcpy(names + ETH_GSTRING_LEN, "rx_prio3_pause_duration_xxxxxxxx", ETH_GSTRING_LEN);
	strcpy(names + 2 * ETH_GSTRING_LEN, "tx_pause_storm_error_events");
	assert_int_equal(pf_ethtool_stats_from_raw(names, 3, vals, 3, &s), 3);
	assert_int_equal(stat_of(&s, "rx_prio3_pause"), 1);
	assert_true(stat_of(&s, "rx_prio3_pause_duration_xxxxxxxx") == UINT64_MAX);
	assert_int_equal(stat_of(&s, "tx_pause_storm_error_events"), 3);
	pf_stats_release(&s);
	assert_int_equal(pf_ethtool_stats_from_raw(names, 3, vals, 2, &s), -EAGAIN);
}

/*
 * Old kernels, answered through the provider's ethtool table as they answer: RHEL 8 (4.18)
 * and anything before 5.6 have no "ethtool" genl family; 5.6-5.9 reject a
 * request carrying ETHTOOL_FLAG_STATS whole ("unrecognized request flags",
 * EOPNOTSUPP; newer policies say EINVAL).
 */
static struct {
	int mode;          /* 0: no genl family; 1: stats flag rejected with @flag_err; 2: no pause op */
	int flag_err;
	int genl_calls, ioctl_calls;
	bool no_glinksettings;
} old_kernel;

static int fake_genl(uint8_t cmd, int header_attr, const char *ifname, uint32_t flags,
		     void **ret_buf, size_t *ret_len)
{
	struct nl_msg *msg;

	old_kernel.genl_calls++;
	if (old_kernel.mode == 0)
		return -EPROTONOSUPPORT;
	if (old_kernel.mode == 2 || (flags & ETHTOOL_FLAG_STATS)) {
		*ret_buf = error_bytes(old_kernel.mode == 2 ? -EOPNOTSUPP : old_kernel.flag_err,
				       ret_len);
		return 0;
	}
	assert_int_equal(cmd, ETHTOOL_MSG_PAUSE_GET);
	msg = genl_reply(ETHTOOL_MSG_PAUSE_GET_REPLY);
	put_header(msg, ETHTOOL_A_PAUSE_HEADER, ifname);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_AUTONEG, 0);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_RX, 1);
	nla_put_u8(msg, ETHTOOL_A_PAUSE_TX, 1);
	*ret_buf = msg_bytes(msg, ret_len);
	return 0;
}

static int fake_ioctl(const char *ifname, void *data)
{
	uint32_t cmd;

	old_kernel.ioctl_calls++;
	memcpy(&cmd, data, sizeof(cmd));
	if (cmd == ETHTOOL_GPAUSEPARAM) {
		struct ethtool_pauseparam *pp = data;

		pp->autoneg = 0, pp->rx_pause = 1, pp->tx_pause = 0;
		return 0;
	}
	if (cmd == ETHTOOL_GLINKSETTINGS) {
		struct ethtool_link_settings *ls = data;

		if (old_kernel.no_glinksettings)
			return -EOPNOTSUPP;
		if (ls->link_mode_masks_nwords == 0) { /* the size handshake */
			ls->link_mode_masks_nwords = -3;
			return 0;
		}
		assert_int_equal(ls->link_mode_masks_nwords, 3);
		ls->speed = 100000, ls->duplex = DUPLEX_FULL, ls->autoneg = AUTONEG_ENABLE;
		return 0;
	}
	if (cmd == ETHTOOL_GSET) {
		struct ethtool_cmd *ec = data;

		ethtool_cmd_speed_set(ec, 25000);
		ec->duplex = DUPLEX_FULL, ec->autoneg = AUTONEG_DISABLE;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* A kernel before ethtool netlink has no module EEPROM request either. */
static int fake_eeprom(const char *ifname, const struct pf_eeprom_ask *ask, void **ret_buf,
		       size_t *ret_len)
{
	return -EPROTONOSUPPORT;
}

static void test_old_kernels(void **state)
{
	static const struct pf_ethtool_ops old = { .genl = fake_genl, .ioctl = fake_ioctl,
						   .eeprom = fake_eeprom };
	struct pf_providers prov = pf_providers_live;
	struct pf_ctx ctx = { .prov = &prov };
	struct pf_linkmodes lm;
	struct pf_pause pa;

	prov.ethtool = &old;

	/* 4.18 / 5.4: no genl family: SIOCETHTOOL GPAUSEPARAM and GLINKSETTINGS */
	memset(&old_kernel, 0, sizeof(old_kernel));
	assert_int_equal(prov.pause(&ctx, "ens1f0np0", &pa), 0);
	assert_true(pa.rx && !pa.tx && !pa.autoneg && !pa.has_stats);
	assert_int_equal(prov.linkmodes(&ctx, "ens1f0np0", &lm), 0);
	assert_int_equal(lm.speed_mbps, 100000);
	assert_int_equal(lm.duplex, 1);
	assert_int_equal(lm.autoneg, 1);
	/* a driver with only the legacy get_settings: ETHTOOL_GSET */
	old_kernel.no_glinksettings = true;
	assert_int_equal(prov.linkmodes(&ctx, "ens1f0np0", &lm), 0);
	assert_int_equal(lm.speed_mbps, 25000);
	assert_int_equal(lm.autoneg, 0);

	/* 5.6-5.9: the stats flag rejects the request; asked again without it */
	for (int i = 0; i < 2; i++) {
		memset(&old_kernel, 0, sizeof(old_kernel));
		old_kernel.mode = 1;
		old_kernel.flag_err = i ? -EINVAL : -EOPNOTSUPP;
		assert_int_equal(prov.pause(&ctx, "ens1f0np0", &pa), 0);
		assert_true(pa.rx && pa.tx && !pa.has_stats);
		assert_int_equal(old_kernel.genl_calls, 2);
		assert_int_equal(old_kernel.ioctl_calls, 0);
	}

	/* a driver without get_pauseparam stays "not supported" (no ioctl guess) */
	memset(&old_kernel, 0, sizeof(old_kernel));
	old_kernel.mode = 2;
	assert_int_equal(prov.pause(&ctx, "veth0", &pa), -EOPNOTSUPP);
	assert_int_equal(old_kernel.ioctl_calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_basic),
		cmocka_unit_test(test_stats_variations),
		cmocka_unit_test(shared_stats_real_dumps),
		cmocka_unit_test(test_pause_text),
		cmocka_unit_test(test_pfc_text),
		cmocka_unit_test(test_settings_text),
		cmocka_unit_test(test_nl_linkmodes),
		cmocka_unit_test(test_nl_pause),
		cmocka_unit_test(test_old_kernels),
		cmocka_unit_test(test_nl_dcb),
		cmocka_unit_test(test_gstrings_raw),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
