// SPDX-License-Identifier: MIT
/*
 * link_health - links about to fail: FEC errors over a window and the
 * pluggable module's own alarms (issue 34, items 1 and 2 in part).
 *
 * For each RoCE netdev (the rail roles as pfc_pause applies them: compute
 * rails judged, other roles on a RoCE node warn at most, on an InfiniBand
 * node left out), through ctx->prov->link_nl (preflight/link_facts.h):
 *
 *  - FEC (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS), two samples
 *    window_ms apart (a snapshot: fec.nl and fec.after.nl, preflight/
 *    window_ms): any uncorrectable block fails (a frame lost); corrected
 *    blocks per lane (the total where the driver does not split them) give
 *    a lower bound of the pre-FEC bit error rate (each corrected block held
 *    at least one bit error), judged against pre_fec_ber_warn/_fail.
 *  - The driver's PHY counters in `ethtool -S` at the same two samples
 *    (mlx5's PPCNT statistical group): rx_corrected_bits_phy over
 *    rx_bits_phy (else the link rate) is the pre-FEC BER, per lane from
 *    rx_err_lane_<n>_phy, judged against the same thresholds; a symbol FEC
 *    could not correct (rx_pcs_symbol_err_phy) fails.
 *  - The module (ETHTOOL_MSG_MODULE_EEPROM_GET, SFF-8636 or CMIS):
 *    temperature, supply voltage, per-lane TX bias, TX and RX power against
 *    the module's own thresholds: past an alarm fails, past a warning warns,
 *    naming the lane.  Lanes judged: the netdev's lanes (link modes) when
 *    known, else every lane of the module.
 *
 * Every ACTIVE InfiniBand port: symbol_error plus link_error_recovery over
 * the bits it could receive (its rate over the window live, over the uptime
 * under --root) against IBTA's 1e-12 bit error rate (ib_ber_max).
 *
 * A driver without the operation (the kernel answers EOPNOTSUPP, as for
 * veth and virtio-net) is a skip finding naming that answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/link_facts.h"
#include "preflight/net.h"
#include "preflight/node.h"
#include "preflight/optics.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"

struct link_health_cfg {
	uint64_t window_ms;
	double pre_fec_ber_warn, pre_fec_ber_fail;
	double ib_ber_max;
	double effective_ber_max;
};

static const struct pf_param link_health_params[] = {
	PF_PARAM_U64(struct link_health_cfg, window_ms, "1000", 0, 10000, "ms",
		     "FEC sampling window on the live node (0: no second sample, FEC not judged)"),
	PF_PARAM_DOUBLE(struct link_health_cfg, pre_fec_ber_warn, "1e-6", 0, 1, "",
			"warn when the pre-FEC bit error rate (lower bound from corrected "
			"blocks per lane over the window) exceeds this"),
	PF_PARAM_DOUBLE(struct link_health_cfg, pre_fec_ber_fail, "1e-5", 0, 1, "",
			"fail when the pre-FEC bit error rate lower bound exceeds this"),
	PF_PARAM_DOUBLE(struct link_health_cfg, ib_ber_max, "1e-12", 0, 1, "",
			"InfiniBand: fail when symbol errors and link error recoveries per bit "
			"(over the window live, since boot under --root) exceed this (IBTA's "
			"1e-12 bit error rate)"),
	PF_PARAM_DOUBLE(struct link_health_cfg, effective_ber_max, "1e-12", 0, 1, "",
			"where mlxlink is installed: fail when its effective (post-FEC) "
			"physical BER exceeds this"),
	PF_PARAM_END,
};

enum {
	CODE_FEC_UNCORRECTABLE = 1,
	CODE_BER_FAIL = 2,
	CODE_BER_WARN = 3,
	CODE_OPTIC_ALARM = 4,
	CODE_OPTIC_WARN = 5,
	CODE_PHY_BER_FAIL = 6,
	CODE_PHY_BER_WARN = 7,
	CODE_PHY_SYMBOL_ERRORS = 8,
	CODE_IB_BER = 9,
	CODE_MLXLINK_EFFECTIVE = 10,
	CODE_MLXLINK_RAW_FAIL = 11,
	CODE_MLXLINK_RAW_WARN = 12,
};

/* Of an InfiniBand port: the counters the BER budget is judged on, at the two samples. */
static const char *const ib_ctrs[2] = { "symbol_error", "link_error_recovery" };

struct ibport {
	const struct pf_rdma_dev *dev;
	const struct pf_rdma_port *port;
	const struct pf_rail_port *role; /* not a compute rail: warns at most; NULL judged */
	int r0[2], r1[2];
	uint64_t v0[2], v1[2];
};

/* One RoCE netdev and what was read of it. */
struct link {
	const char *name;
	const char *bdf; /* its RDMA device's PCI function, NULL none */
	char port[48];
	const struct pf_rail_port *role; /* not a compute rail: warns at most; NULL judged */
	struct pf_linkmodes lm;
	int r_lm, r_fec0, r_fec1, r_st0, r_st1;
	struct pf_fec fec0, fec1;
	struct pf_stats st0, st1; /* `ethtool -S`, at the FEC samples */
};

static size_t collect(const struct pf_node *node, const struct pf_rails *rails,
		      struct pf_result *res, struct link **ret, size_t *ret_ports)
{
	struct link *v = NULL;
	size_t n = 0, ports = 0;

	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *dev = &node->rdma[i];

		for (size_t j = 0; j < dev->n_ports; j++) {
			const struct pf_rdma_port *port = &dev->ports[j];
			const struct pf_rail_port *rp;
			enum pf_roce_rule rule = pf_rails_roce_rule(rails, (int)i, port->num, &rp);
			const char *name;
			bool dup = false;

			if (port->link_layer != PF_LINK_ETH)
				continue;
			ports++;
			if (rule == PF_ROCE_SKIP) {
				pf_rails_skip_port(res, dev->name, rp, "FEC and optics are");
				continue;
			}
			if (port->netdev < 0 || (size_t)port->netdev >= node->n_netdevs)
				continue;
			name = node->netdevs[port->netdev].name;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(v[k].name, name)) {
					dup = true;
					if (rule == PF_ROCE_JUDGE)
						v[k].role = NULL;
				}
			if (dup)
				continue;
			v = pf_xrealloc(v, (n + 1) * sizeof(*v));
			memset(&v[n], 0, sizeof(v[n]));
			v[n].name = name;
			v[n].bdf = dev->pci >= 0 && (size_t)dev->pci < node->n_pci ?
					   node->pci[dev->pci].bdf : NULL;
			v[n].role = rule == PF_ROCE_SOFT ? rp : NULL;
			snprintf(v[n].port, sizeof(v[n].port), "%s/%u", dev->name, port->num);
			n++;
		}
	}
	*ret = v;
	*ret_ports = ports;
	return n;
}

/* A fact the kernel or the snapshot did not give: skip (not supported, not captured) or error. */
static void unavailable(struct pf_result *res, const struct link *l, const char *what,
			const char *subject, int r)
{
	if (r == -EOPNOTSUPP)
		pf_add(res, PF_STATUS_SKIP, subject, "%s: %s not supported by the driver "
		       "(kernel: %s)", l->port, what, strerror(-r));
	else if (r == -ENOENT)
		pf_add(res, PF_STATUS_SKIP, subject, "%s: %s not in the snapshot", l->port, what);
	else if (r == -ENOSYS) /* a provider table without the fact */
		pf_add(res, PF_STATUS_SKIP, subject, "%s: %s not provided (%s)", l->port, what,
		       strerror(-r));
	else if (r == -EPROTONOSUPPORT)
		pf_add(res, PF_STATUS_SKIP, subject, "%s: %s needs ethtool netlink (kernel 5.13 "
		       "or later)", l->port, what);
	else
		pf_add(res, PF_STATUS_ERROR, subject, "%s: cannot read %s: %s", l->port, what,
		       strerror(-r));
}

/* The bit rate of one lane in b/s, 0 when unknown. */
static double lane_bps(const struct link *l, bool per_lane)
{
	double bps;

	if (l->r_lm < 0 || l->lm.speed_mbps == PF_SPEED_UNKNOWN || l->lm.speed_mbps == 0)
		return 0;
	bps = (double)l->lm.speed_mbps * 1e6;
	return per_lane && l->lm.lanes ? bps / l->lm.lanes : bps;
}

static void judge_fec(struct pf_result *res, const struct link *l,
		      const struct link_health_cfg *cfg, double window_ms)
{
	char subject[64], which[16];
	struct pf_finding *f;
	uint64_t d = 0, unc;
	double bps, ber;
	int lane = -1;

	snprintf(subject, sizeof(subject), "%s/fec", l->name);
	if (l->r_fec0 < 0)
		return unavailable(res, l, "FEC statistics", subject, l->r_fec0);
	if (!l->fec0.has_stats || !l->fec0.corrected.has) {
		pf_add(res, PF_STATUS_SKIP, subject, "%s: the driver gives no FEC block counters",
		       l->port);
		return;
	}
	if (l->r_fec1 < 0 || window_ms <= 0) {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: %llu corrected, %llu uncorrectable FEC "
			   "blocks since boot (one sample: not judged)", l->port,
			   (unsigned long long)l->fec0.corrected.total,
			   (unsigned long long)l->fec0.uncorrectable.total);
		pf_obs_num(f, "corrected_blocks", (double)l->fec0.corrected.total);
		return;
	}
	unc = l->fec1.uncorrectable.has && l->fec0.uncorrectable.has &&
	      l->fec1.uncorrectable.total > l->fec0.uncorrectable.total ?
		l->fec1.uncorrectable.total - l->fec0.uncorrectable.total : 0;
	(void)pf_fec_corrected_rise(&l->fec0, &l->fec1, &d, &lane);
	bps = lane_bps(l, lane >= 0);
	ber = bps > 0 ? (double)d / (bps * window_ms / 1000.0) : 0;
	if (lane >= 0)
		snprintf(which, sizeof(which), "lane %d", lane);
	else
		snprintf(which, sizeof(which), "the link");
	if (unc) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %llu uncorrectable FEC blocks in "
			   "%.0f ms: frames are being lost", l->port, (unsigned long long)unc,
			   window_ms);
		pf_code(f, CODE_FEC_UNCORRECTABLE);
	} else if (bps > 0 && ber > cfg->pre_fec_ber_fail) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %s corrected %llu FEC blocks in "
			   "%.0f ms: pre-FEC BER at least %.2g, above %.2g", l->port, which,
			   (unsigned long long)d, window_ms, ber, cfg->pre_fec_ber_fail);
		pf_code(f, CODE_BER_FAIL);
	} else if (bps > 0 && ber > cfg->pre_fec_ber_warn) {
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: %s corrected %llu FEC blocks in "
			   "%.0f ms: pre-FEC BER at least %.2g, above %.2g", l->port, which,
			   (unsigned long long)d, window_ms, ber, cfg->pre_fec_ber_warn);
		pf_code(f, CODE_BER_WARN);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: %llu corrected, 0 uncorrectable FEC "
			   "blocks in %.0f ms%s", l->port, (unsigned long long)d, window_ms,
			   bps > 0 ? "" : " (link speed unknown: BER not estimated)");
	}
	if (f->status == PF_STATUS_FAIL || f->status == PF_STATUS_WARN)
		pf_remedy(f, "clean or reseat the cable or optic of %s, then replace it; check "
			  "the switch port's counters", l->name);
	pf_obs_num(f, "corrected_blocks_window", (double)d);
	pf_obs_num(f, "uncorrectable_blocks_window", (double)unc);
	if (lane >= 0)
		pf_obs_num(f, "lane", lane);
	if (bps > 0)
		pf_obs_num(f, "pre_fec_ber_min", ber);
	pf_obs_num(f, "window_ms", window_ms);
}

/* The rise of statistic @name between the two samples: 0 and *ret, or -ENOENT. */
static int stat_rise(const struct link *l, const char *name, uint64_t *ret)
{
	uint64_t a, b;

	if (pf_stats_get(&l->st0, name, &a) < 0 || pf_stats_get(&l->st1, name, &b) < 0)
		return -ENOENT;
	*ret = b > a ? b - a : 0; /* a counter reset (driver reload) is no error */
	return 0;
}

/*
 * The driver's PHY counters (mlx5: en_stats.c, the PPCNT physical layer
 * statistical group): rx_corrected_bits_phy over rx_bits_phy is the pre-FEC
 * bit error rate itself (not a bound), rx_err_lane_<n>_phy the corrected bits
 * of lane n, rx_pcs_symbol_err_phy the symbols FEC could not correct.  The
 * bits received come from rx_bits_phy where the driver gives it, else the
 * link rate over the window.
 */
static void judge_phy(struct pf_result *res, const struct link *l,
		      const struct link_health_cfg *cfg, double window_ms)
{
	char subject[64], name[32], which[16] = "the link";
	uint64_t corr, bits, sym = 0, d;
	double ber, lane_ber, worst = -1;
	unsigned int lanes = 0;
	struct pf_finding *f;
	uint64_t v;

	snprintf(subject, sizeof(subject), "%s/phy", l->name);
	if (l->r_st0 < 0)
		return unavailable(res, l, "ethtool statistics (PHY counters)", subject, l->r_st0);
	if (pf_stats_get(&l->st0, "rx_corrected_bits_phy", &v) < 0) {
		pf_add(res, PF_STATUS_SKIP, subject, "%s: the driver gives no PHY error counters "
		       "(no rx_corrected_bits_phy in its ethtool statistics)", l->port);
		return;
	}
	if (l->r_st1 < 0 || window_ms <= 0 || stat_rise(l, "rx_corrected_bits_phy", &corr) < 0) {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: %llu bits corrected since boot (one "
			   "sample: not judged)", l->port, (unsigned long long)v);
		pf_obs_num(f, "corrected_bits", (double)v);
		return;
	}
	(void)stat_rise(l, "rx_pcs_symbol_err_phy", &sym);
	if (stat_rise(l, "rx_bits_phy", &bits) < 0 || bits == 0)
		bits = (uint64_t)(lane_bps(l, false) * window_ms / 1000.0);
	/* the lanes the link uses (link modes), else as many as the driver counts */
	for (lanes = 0; lanes < 8; lanes++) {
		snprintf(name, sizeof(name), "rx_err_lane_%u_phy", lanes);
		if (stat_rise(l, name, &d) < 0)
			break;
	}
	if (l->r_lm == 0 && l->lm.lanes && l->lm.lanes < lanes)
		lanes = l->lm.lanes;
	for (unsigned int i = 0; i < lanes; i++) {
		snprintf(name, sizeof(name), "rx_err_lane_%u_phy", i);
		(void)stat_rise(l, name, &d);
		lane_ber = bits ? (double)d / ((double)bits / lanes) : 0;
		if (lane_ber > worst) {
			worst = lane_ber;
			snprintf(which, sizeof(which), "lane %u", i);
		}
	}
	ber = bits ? (double)corr / (double)bits : 0;
	if (worst > ber)
		ber = worst;
	else
		snprintf(which, sizeof(which), "the link");
	if (sym) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %llu symbol errors FEC could not "
			   "correct in %.0f ms (rx_pcs_symbol_err_phy): frames are being lost",
			   l->port, (unsigned long long)sym, window_ms);
		pf_code(f, CODE_PHY_SYMBOL_ERRORS);
	} else if (bits && ber > cfg->pre_fec_ber_fail) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: pre-FEC BER %.2g on %s from the "
			   "PHY counters (%llu bits corrected in %.0f ms), above %.2g", l->port, ber,
			   which, (unsigned long long)corr, window_ms, cfg->pre_fec_ber_fail);
		pf_code(f, CODE_PHY_BER_FAIL);
	} else if (bits && ber > cfg->pre_fec_ber_warn) {
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: pre-FEC BER %.2g on %s from the "
			   "PHY counters (%llu bits corrected in %.0f ms), above %.2g", l->port, ber,
			   which, (unsigned long long)corr, window_ms, cfg->pre_fec_ber_warn);
		pf_code(f, CODE_PHY_BER_WARN);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: %llu bits corrected, no uncorrected "
			   "symbol in %.0f ms%s", l->port, (unsigned long long)corr, window_ms,
			   bits ? "" : " (bits received unknown: BER not computed)");
	}
	if (f->status == PF_STATUS_FAIL || f->status == PF_STATUS_WARN)
		pf_remedy(f, "clean or reseat the cable or optic of %s, then replace it; check "
			  "the switch port's counters", l->name);
	pf_obs_num(f, "corrected_bits_window", (double)corr);
	pf_obs_num(f, "uncorrected_symbols_window", (double)sym);
	if (bits) {
		pf_obs_num(f, "bits_window", (double)bits);
		pf_obs_num(f, "pre_fec_ber", ber);
	}
	pf_obs_num(f, "window_ms", window_ms);
}

/* One monitor value against its thresholds; @lane -1 for a module-wide one. */
static bool judge_value(struct pf_result *res, const struct link *l, enum pf_optic_mon mon,
			const struct pf_optic_thresholds *t, double v, int lane)
{
	enum pf_optic_level lv = pf_optic_level(t, v);
	bool alarm = lv == PF_OPTIC_ALARM_HIGH || lv == PF_OPTIC_ALARM_LOW;
	bool high = lv == PF_OPTIC_ALARM_HIGH || lv == PF_OPTIC_WARN_HIGH;
	char subject[64], where[24] = "";
	struct pf_finding *f;

	if (lv == PF_OPTIC_OK)
		return false;
	if (lane >= 0)
		snprintf(where, sizeof(where), " lane %d", lane + 1);
	snprintf(subject, sizeof(subject), "%s/module", l->name);
	f = pf_add(res, alarm ? PF_STATUS_FAIL : PF_STATUS_WARN, subject,
		   "%s: module%s %s %.4g %s %s the module's %s %s threshold %.4g", l->port, where,
		   pf_optic_mon_name(mon), v, pf_optic_mon_unit(mon), high ? "above" : "below",
		   high ? "high" : "low", alarm ? "alarm" : "warning",
		   alarm ? (high ? t->high_alarm : t->low_alarm) : (high ? t->high_warn : t->low_warn));
	pf_code(f, alarm ? CODE_OPTIC_ALARM : CODE_OPTIC_WARN);
	pf_obs_str(f, "monitor", pf_optic_mon_name(mon));
	pf_obs_num(f, "value", v);
	if (lane >= 0)
		pf_obs_num(f, "lane", lane + 1);
	pf_remedy(f, mon == PF_MON_TEMP ? "check the airflow and the fans at the NIC; replace "
		  "the module if it stays hot" : "clean the fibre ends and reseat the module of %s; "
		  "replace the module or cable if it persists", l->name);
	return true;
}

static void judge_optic(const struct pf_ctx *ctx, struct pf_result *res, const struct link *l)
{
	char subject[64];
	struct pf_optic o;
	unsigned int lanes;
	size_t bad = 0;
	int r;

	snprintf(subject, sizeof(subject), "%s/module", l->name);
	r = pf_link_optic(ctx, l->name, &o);
	if (r < 0)
		return unavailable(res, l, "module EEPROM (or its type)", subject, r);
	bad += judge_value(res, l, PF_MON_TEMP, &o.thr[PF_MON_TEMP], o.temp_c, -1);
	bad += judge_value(res, l, PF_MON_VCC, &o.thr[PF_MON_VCC], o.vcc_v, -1);
	lanes = o.n_lanes;
	if (l->r_lm == 0 && l->lm.lanes && l->lm.lanes < lanes)
		lanes = l->lm.lanes;
	for (int m = PF_MON_TX_BIAS; m < PF_MON_COUNT; m++)
		for (unsigned int i = 0; o.has[m] && i < lanes; i++)
			bad += judge_value(res, l, (enum pf_optic_mon)m, &o.thr[m], o.lane[m][i],
					   (int)i);
	if (!bad) {
		struct pf_finding *f;

		f = pf_add(res, PF_STATUS_PASS, subject, "%s: module at %.1f C, %u lanes %s", l->port,
			   o.temp_c, lanes, o.thr[PF_MON_TEMP].has ? "within its thresholds" :
			   "(no thresholds: flat memory, not judged)");
		pf_obs_num(f, "temperature_c", o.temp_c);
	}
}

/* The ACTIVE InfiniBand ports of the node, their roles from the rail model. */
static size_t collect_ib(const struct pf_node *node, const struct pf_rails *rails,
			 struct ibport **ret)
{
	struct ibport *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++) {
			const struct pf_rdma_port *port = &node->rdma[i].ports[j];
			const struct pf_rail_port *rp = pf_rails_port(rails, (int)i, port->num);

			if (port->link_layer != PF_LINK_IB || port->state != 4)
				continue;
			v = pf_xrealloc(v, (n + 1) * sizeof(*v));
			memset(&v[n], 0, sizeof(v[n]));
			v[n].dev = &node->rdma[i];
			v[n].port = port;
			v[n].r1[0] = v[n].r1[1] = -ENODATA; /* no second sample yet */
			v[n].role = rp && rp->role != PF_ROLE_COMPUTE ? rp : NULL;
			n++;
		}
	*ret = v;
	return n;
}

static void sample_ib(const struct pf_ctx *ctx, struct ibport *p, int s)
{
	for (int c = 0; c < 2; c++) {
		int *r = s ? &p->r1[c] : &p->r0[c];

		*r = pf_port_counter(ctx->fs, p->dev->name, p->port->num, ib_ctrs[c],
				     s ? &p->v1[c] : &p->v0[c], NULL, NULL);
	}
}

/*
 * The bit error budget of an InfiniBand link (IBTA: a bit error rate of at
 * most 1e-12): symbol errors and link error recoveries, each at least one
 * bit in error, over the bits the port could receive (its rate over the
 * window live; since boot, at least an hour, under --root), against
 * ib_ber_max.
 */
static void judge_ib(struct pf_result *res, const struct ibport *p,
		     const struct link_health_cfg *cfg, double window_ms, double uptime_s)
{
	char subject[64];
	struct pf_finding *f;
	uint64_t err = 0;
	double secs, ber;
	/* a window without its second sample (the wait failed) is judged since boot */
	bool live = window_ms > 0 && p->r1[0] != -ENODATA;

	snprintf(subject, sizeof(subject), "%s/%u/ber", p->dev->name, p->port->num);
	for (int c = 0; c < 2; c++) {
		int r = live ? (p->r0[c] < 0 ? p->r0[c] : p->r1[c]) : p->r0[c];

		if (r < 0) {
			pf_add(res, PF_STATUS_SKIP, subject, "%s/%u: %s unreadable (%s): the bit error "
			       "budget is not judged", p->dev->name, p->port->num, ib_ctrs[c],
			       strerror(-r));
			return;
		}
		err += live ? (p->v1[c] > p->v0[c] ? p->v1[c] - p->v0[c] : 0) : p->v0[c];
	}
	secs = live ? window_ms / 1000.0 : (uptime_s > 3600 ? uptime_s : 3600);
	if (p->port->rate_gbps <= 0 || (!live && uptime_s < 0)) {
		pf_add(res, PF_STATUS_SKIP, subject, "%s/%u: %s unknown: the bit error budget is not "
		       "judged", p->dev->name, p->port->num, p->port->rate_gbps <= 0 ? "the port "
		       "rate" : "the uptime");
		return;
	}
	ber = (double)err / (p->port->rate_gbps * 1e9 * secs);
	if (ber > cfg->ib_ber_max) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s/%u: %llu symbol errors and link error "
			   "recoveries %s: bit error rate at least %.2g, above %.2g", p->dev->name,
			   p->port->num, (unsigned long long)err, live ? "in the window" :
			   "since boot", ber, cfg->ib_ber_max);
		pf_code(f, CODE_IB_BER);
		pf_remedy(f, "reseat or replace the cable of %s port %u and check the switch "
			  "port's counters (perfquery, mlxlink -d %s -m)", p->dev->name,
			  p->port->num, p->dev->name);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s/%u: %llu symbol errors and link error "
			   "recoveries %s, within the %.2g bit error budget", p->dev->name,
			   p->port->num, (unsigned long long)err, live ? "in the window" :
			   "since boot", cfg->ib_ber_max);
	}
	pf_obs_num(f, "errors", (double)err);
	pf_obs_num(f, "seconds", secs);
	pf_obs_num(f, "ber_min", ber);
	pf_exp_num(f, "ber_max", cfg->ib_ber_max);
}

/*
 * Where mlxlink is installed (or its text recorded): the firmware's own
 * effective (post-FEC) and raw (pre-FEC) physical BER of the port at @bdf,
 * since its counters were last cleared.  No mlxlink: nothing said.
 */
static void judge_mlxlink(const struct pf_ctx *ctx, struct pf_result *res,
			  const struct link_health_cfg *cfg, const char *label, const char *bdf)
{
	pf_autofree char *text = NULL;
	struct pf_mlxlink_ber b;
	struct pf_finding *f;
	char subject[64];
	int r;

	if (!bdf)
		return;
	r = ctx->prov->mlxlink(ctx, bdf, &text);
	if (r == -ENOPKG || r == -ENOENT || r == -ENOSYS)
		return;
	snprintf(subject, sizeof(subject), "%s/mlxlink", label);
	if (r < 0) {
		pf_add(res, PF_STATUS_SKIP, subject, "%s: mlxlink -d %s -c failed (%s): its BER is not "
		       "judged", label, bdf, strerror(-r));
		return;
	}
	if (pf_parse_mlxlink_ber(text, &b) < 0) {
		pf_add(res, PF_STATUS_SKIP, subject, "%s: mlxlink -d %s -c shows no physical BER",
		       label, bdf);
		return;
	}
	if (b.has_eff && b.eff_ber > cfg->effective_ber_max) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: effective physical BER %.2g after FEC "
			   "(mlxlink), above %.2g", label, b.eff_ber, cfg->effective_ber_max);
		pf_code(f, CODE_MLXLINK_EFFECTIVE);
	} else if (b.has_raw && b.raw_ber > cfg->pre_fec_ber_fail) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: raw physical BER %.2g before FEC "
			   "(mlxlink), above %.2g", label, b.raw_ber, cfg->pre_fec_ber_fail);
		pf_code(f, CODE_MLXLINK_RAW_FAIL);
	} else if (b.has_raw && b.raw_ber > cfg->pre_fec_ber_warn) {
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: raw physical BER %.2g before FEC "
			   "(mlxlink), above %.2g", label, b.raw_ber, cfg->pre_fec_ber_warn);
		pf_code(f, CODE_MLXLINK_RAW_WARN);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: mlxlink's physical BER within the "
			   "thresholds (raw %.2g, effective %.2g)", label, b.has_raw ? b.raw_ber : 0,
			   b.has_eff ? b.eff_ber : 0);
	}
	if (f->status == PF_STATUS_FAIL || f->status == PF_STATUS_WARN)
		pf_remedy(f, "clean or reseat the cable or optic of %s (mlxlink -d %s -m shows the "
			  "module), then replace it; compare with the switch port's BER", label, bdf);
	if (b.has_raw)
		pf_obs_num(f, "raw_ber", b.raw_ber);
	if (b.has_eff)
		pf_obs_num(f, "effective_ber", b.eff_ber);
	if (b.has_eff_errors)
		pf_obs_num(f, "effective_errors", (double)b.eff_errors);
}

static int link_health_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct link_health_cfg *cfg = config;
	pf_autofree struct link *v = NULL;
	pf_autofree struct ibport *ib = NULL;
	bool live = pf_prov_can(ctx, PF_PROV_NODE);
	double window_ms = 0;
	bool sampled = false;
	size_t n, n_ib, ports;
	int r;

	if (!ctx->node)
		return pf_error(res, -ENODATA, "no node inventory");
	n = collect(ctx->node, ctx->rails, res, &v, &ports);
	n_ib = collect_ib(ctx->node, ctx->rails, &ib);
	if (ports == 0 && n_ib == 0)
		return pf_skip(res, "no RoCE or active InfiniBand ports");
	for (size_t i = 0; i < n_ib; i++) {
		sample_ib(ctx, &ib[i], 0);
		sampled |= live && (ib[i].r0[0] == 0 || ib[i].r0[1] == 0);
	}
	for (size_t i = 0; i < n; i++) {
		v[i].r_lm = ctx->prov->linkmodes(ctx, v[i].name, &v[i].lm);
		v[i].r_fec0 = pf_link_fec(ctx, v[i].name, 0, &v[i].fec0);
		v[i].r_fec1 = -ENODATA;
		v[i].r_st0 = ctx->prov->ethtool_stats(ctx, v[i].name, 0, &v[i].st0);
		v[i].r_st1 = -ENODATA;
		sampled |= v[i].r_fec0 == 0 || v[i].r_st0 == 0;
	}
	if (sampled && cfg->window_ms > 0) {
		r = ctx->prov->wait(ctx, (unsigned int)cfg->window_ms, &window_ms);
		for (size_t i = 0; r == 0 && window_ms > 0 && i < n; i++) {
			if (v[i].r_fec0 == 0)
				v[i].r_fec1 = pf_link_fec(ctx, v[i].name, 1, &v[i].fec1);
			if (v[i].r_st0 == 0)
				v[i].r_st1 = ctx->prov->ethtool_stats(ctx, v[i].name, 1, &v[i].st1);
		}
		for (size_t i = 0; live && r == 0 && window_ms > 0 && i < n_ib; i++)
			sample_ib(ctx, &ib[i], 1);
	}
	for (size_t i = 0; i < n_ib; i++) {
		size_t first = res->n_findings;

		/* a snapshot's counters are one sample: judged since boot */
		judge_ib(res, &ib[i], cfg, live ? window_ms : 0, pf_read_uptime(ctx->fs));
		{
			char label[48];

			snprintf(label, sizeof(label), "%s/%u", ib[i].dev->name, ib[i].port->num);
			judge_mlxlink(ctx, res, cfg, label, ib[i].dev->pci >= 0 &&
				      (size_t)ib[i].dev->pci < ctx->node->n_pci ?
				      ctx->node->pci[ib[i].dev->pci].bdf : NULL);
		}
		if (ib[i].role)
			pf_rails_soften(res, first, ib[i].role);
	}
	for (size_t i = 0; i < n; i++) {
		size_t first = res->n_findings;

		judge_fec(res, &v[i], cfg, window_ms);
		judge_phy(res, &v[i], cfg, window_ms);
		judge_mlxlink(ctx, res, cfg, v[i].port, v[i].bdf);
		judge_optic(ctx, res, &v[i]);
		if (v[i].role)
			pf_rails_soften(res, first, v[i].role);
		pf_stats_release(&v[i].st0);
		pf_stats_release(&v[i].st1);
	}
	return 0;
}

static const struct pf_code link_health_codes[] = {
	{ CODE_FEC_UNCORRECTABLE, PF_ACTION_RESEAT_OR_REPLACE,
	  "uncorrectable FEC blocks over the window: the link loses frames" },
	{ CODE_BER_FAIL, PF_ACTION_RESEAT_OR_REPLACE,
	  "corrected FEC blocks put the pre-FEC bit error rate above pre_fec_ber_fail" },
	{ CODE_BER_WARN, PF_ACTION_RESEAT_OR_REPLACE,
	  "corrected FEC blocks put the pre-FEC bit error rate above pre_fec_ber_warn" },
	{ CODE_OPTIC_ALARM, PF_ACTION_RESEAT_OR_REPLACE,
	  "a module monitor (temperature, voltage, a lane's bias or power) past its alarm "
	  "threshold" },
	{ CODE_OPTIC_WARN, PF_ACTION_RESEAT_OR_REPLACE,
	  "a module monitor past its warning threshold" },
	{ CODE_PHY_BER_FAIL, PF_ACTION_RESEAT_OR_REPLACE,
	  "the driver's PHY counters put the pre-FEC bit error rate (link or lane) above "
	  "pre_fec_ber_fail" },
	{ CODE_PHY_BER_WARN, PF_ACTION_RESEAT_OR_REPLACE,
	  "the driver's PHY counters put the pre-FEC bit error rate above pre_fec_ber_warn" },
	{ CODE_PHY_SYMBOL_ERRORS, PF_ACTION_RESEAT_OR_REPLACE,
	  "symbol errors FEC could not correct over the window (rx_pcs_symbol_err_phy)" },
	{ CODE_IB_BER, PF_ACTION_RESEAT_OR_REPLACE,
	  "an InfiniBand port's symbol errors and link error recoveries exceed the bit error "
	  "budget (ib_ber_max, IBTA 1e-12)" },
	{ CODE_MLXLINK_EFFECTIVE, PF_ACTION_RESEAT_OR_REPLACE,
	  "mlxlink's effective (post-FEC) physical BER above effective_ber_max: errors pass FEC" },
	{ CODE_MLXLINK_RAW_FAIL, PF_ACTION_RESEAT_OR_REPLACE,
	  "mlxlink's raw (pre-FEC) physical BER above pre_fec_ber_fail" },
	{ CODE_MLXLINK_RAW_WARN, PF_ACTION_RESEAT_OR_REPLACE,
	  "mlxlink's raw (pre-FEC) physical BER above pre_fec_ber_warn" },
	{ 0 },
};

const struct pf_check pf_check_link_health = {
	.name = "link_health",
	.summary = "FEC, PHY and bit errors and transceiver alarms of RoCE and InfiniBand links",
	.tags = "roce,network",
	.reads = "ethtool netlink ETHTOOL_MSG_FEC_GET (stats) and `ethtool -S` (PHY "
		 "counters) twice, window_ms apart, and "
		 "ETHTOOL_MSG_MODULE_EEPROM_GET (SFF-8636 page 00h/03h, CMIS 00h/01h/02h/11h); "
		 "under --root preflight/ethtool/<if>/fec.nl, fec.after.nl, stats, stats.after, "
		 "module/*.nl, preflight/window_ms; InfiniBand ports' counters/symbol_error and "
		 "link_error_recovery (twice live, once with /proc/uptime under --root); "
		 "`mlxlink -d <bdf> -c` where installed (preflight/mlxlink/<bdf>)",
	.params = link_health_params,
	.codes = link_health_codes,
	.flags = PF_CHECK_NEEDS_NODE,
	.cfg_size = sizeof(struct link_health_cfg),
	.timeout_s = 20,
	.run = link_health_run,
};
