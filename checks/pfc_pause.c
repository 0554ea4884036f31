// SPDX-License-Identifier: MIT
/*
 * pfc_pause - lossless RoCE: PFC on the RoCE priority, no global pause
 * beside it, and no pause storm or pause pressure on an idle node.
 *
 * For each RoCE netdev (the netdev of an RDMA port whose link layer is
 * Ethernet) it reads the PFC configuration (DCB ieee_pfc), the 802.3x pause
 * parameters (ethtool -a) and the driver counters (ethtool -S) through the
 * providers.  Counters are sampled twice, window_ms apart (live; a snapshot
 * may carry stats.after and preflight/window_ms), and judged on deltas:
 * pause storm events increasing fail; the fraction of the window a priority
 * spent paused warns or fails; pause frames arriving at an idle node warn.
 * With one sample (a snapshot), storm events above zero fail and large
 * since-boot pause counts, normalised by /proc/uptime, warn.
 * Subjects: "<if>" (configuration), "<if>/storm", "<if>/prio<p>".
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/net.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"

struct pfc_pause_cfg {
	uint64_t roce_prio;
	int64_t roce_dscp;
	bool require_pfc;
	uint64_t window_ms;
	double warn_pause_pct, fail_pause_pct;
	double idle_rx_pause_per_s;
	double boot_pause_pct, boot_pause_per_s;
};

#define WINDOW_MAX_MS 30000

static const struct pf_param pfc_pause_params[] = {
	PF_PARAM_U64(struct pfc_pause_cfg, roce_prio, "3", 0, 7, NULL,
		     "the 802.1p priority that carries RoCE traffic; PFC must be on for it"),
	PF_PARAM_I64(struct pfc_pause_cfg, roce_dscp, "-1", -1, 63, NULL,
		     "the DSCP RoCE traffic carries where rdma_cm's configfs default_roce_tos "
		     "does not say (NCCL_IB_TC / 4: 106 -> 26); under DSCP trust it must map to "
		     "roce_prio. -1: not stated, 26 (NVIDIA's usual) is assumed and a mismatch "
		     "only warns"),
	PF_PARAM_BOOL(struct pfc_pause_cfg, require_pfc, "true",
		      "fail when PFC is off on roce_prio (false for lossy RoCE fabrics)"),
	PF_PARAM_U64(struct pfc_pause_cfg, window_ms, "1000", 0, WINDOW_MAX_MS, "ms",
		     "interval between the two counter samples; 0 judges one sample since boot"),
	PF_PARAM_DOUBLE(struct pfc_pause_cfg, warn_pause_pct, "1", 0, 100, "%",
			"warn when a priority spends more of the window paused (rx or tx)"),
	PF_PARAM_DOUBLE(struct pfc_pause_cfg, fail_pause_pct, "10", 0, 100, "%",
			"fail when a priority spends more of the window paused (rx or tx)"),
	PF_PARAM_DOUBLE(struct pfc_pause_cfg, idle_rx_pause_per_s, "0", 0, 1e12, "frames/s",
			"warn when more pause frames per second arrive on a priority of the idle node"),
	PF_PARAM_DOUBLE(struct pfc_pause_cfg, boot_pause_pct, "1", 0, 100, "%",
			"one sample: warn when a priority was paused more of the time since boot"),
	PF_PARAM_DOUBLE(struct pfc_pause_cfg, boot_pause_per_s, "100", 0, 1e12, "frames/s",
			"one sample: warn above this many pause frames (rx+tx) per second since boot"),
	PF_PARAM_END,
};

/* At profile time: a warning threshold above the failing one is a usage error. */
static int pfc_pause_validate(const void *config, char **ret_err)
{
	const struct pfc_pause_cfg *cfg = config;

	if (cfg->warn_pause_pct > cfg->fail_pause_pct)
		return pf_param_invalid(ret_err, "pfc_pause.warn_pause_pct %g is above "
					"pfc_pause.fail_pause_pct %g", cfg->warn_pause_pct,
					cfg->fail_pause_pct);
	return 0;
}

/* Everything read about one RoCE netdev. */
struct roce_if {
	const char *name;
	bool live;
	char port[64]; /* "mlx5_0/1" */
	const struct pf_rail_port *role; /* not a compute rail: warns at most; NULL a rail */
	int r_pfc, r_pause, r_stats, r_after;
	struct pf_pfc pfc;
	struct pf_pause pause;
	struct pf_stats s0, s1;
};

/* What a check says about a provider outcome that is not a value. */
static const char *outcome(int r)
{
	return r == -EOPNOTSUPP ? "not supported by the driver"
	       : r == -ENOENT	? "not in the snapshot"
				: strerror(-r);
}

static void fmt_prios(char *buf, size_t len, uint8_t mask)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int p = 0; p < PF_PRIOS; p++)
		if (mask & (1u << p))
			n += (size_t)snprintf(buf + n, len - n, "%s%d", n ? "," : "", p);
	if (!n)
		snprintf(buf, len, "none");
}

/*
 * The DSCP of the port's RoCE traffic: rdma_cm's default ToS for the port
 * (configfs, present when someone created /sys/kernel/config/rdma_cm/<dev>),
 * else the profile's roce_dscp.
 */
#define ASSUMED_ROCE_DSCP 26

static unsigned int roce_dscp(const struct pf_ctx *ctx, const struct roce_if *nd,
			      const struct pfc_pause_cfg *cfg, char *src, size_t len,
			      bool *ret_assumed)
{
	char dev[64];
	unsigned int port;
	uint64_t tos;

	if (sscanf(nd->port, "%63[^/]/%u", dev, &port) == 2 &&
	    pf_fs_readf_u64(ctx->fs, &tos, "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos",
			    dev, port) == 0 && tos < 256) {
		snprintf(src, len, "rdma_cm default_roce_tos %llu", (unsigned long long)tos);
		*ret_assumed = false;
		return (unsigned int)(tos >> 2);
	}
	if (cfg->roce_dscp >= 0) {
		snprintf(src, len, "the profile's roce_dscp");
		*ret_assumed = false;
		return (unsigned int)cfg->roce_dscp;
	}
	/* nothing on the node says which DSCP RoCE carries: an assumption, never a fail */
	snprintf(src, len, "assumed: set pfc_pause.roce_dscp");
	*ret_assumed = true;
	return ASSUMED_ROCE_DSCP;
}

/*
 * Trust: PFC on roce_prio protects RoCE only if RoCE lands there.  Under
 * DSCP trust (DSCP entries in the DCB APP table) the DSCP's entry decides;
 * under PCP trust only a VLAN tag does, which no file shows: a warning
 * saying so, never a fail.  Lossy fabrics (require_pfc false) and ports
 * whose table was not read are not judged.
 */
static void judge_trust(const struct pf_ctx *ctx, struct pf_result *res, const struct roce_if *nd,
			const struct pfc_pause_cfg *cfg)
{
	unsigned int prio = (unsigned int)cfg->roce_prio, dscp, lands;
	char subject[96], src[64], prios[32];
	bool assumed, dscp_assumed;
	struct pf_finding *f;

	if (nd->r_pfc != 0 || !nd->pfc.has_app || !cfg->require_pfc)
		return;
	snprintf(subject, sizeof(subject), "%s/trust", nd->name);
	fmt_prios(prios, sizeof(prios), nd->pfc.pfc_en);
	dscp = roce_dscp(ctx, nd, cfg, src, sizeof(src), &dscp_assumed);
	if (!nd->pfc.dscp_mapped) {
		if (nd->pfc.pfc_en & 1u) {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: PCP trust; priority 0 has PFC "
				   "too, so untagged RoCE is lossless", nd->port);
		} else {
			f = pf_add(res, PF_STATUS_WARN, subject,
				   "%s: PCP trust (no DSCP entry in the DCB APP table): RoCE reaches "
				   "priority %u only if it is VLAN-tagged with PCP %u; untagged RoCE "
				   "runs on priority 0, where PFC is off (lossy)", nd->port, prio, prio);
			pf_code(f, 1);
			pf_remedy(f, "on a DSCP-marked network trust DSCP: mlnx_qos -i %s --trust dscp "
				  "(or dcb app add dev %s dscp-prio %u:%u); on a PCP network send RoCE "
				  "VLAN-tagged with PCP %u", nd->name, nd->name, dscp, prio, prio);
		}
		pf_obs_str(f, "trust", "pcp");
		return;
	}
	assumed = !(nd->pfc.dscp_mapped & (1ull << dscp));
	/* a DSCP without an entry keeps the NIC's default map; mlx5's is DSCP / 8 */
	lands = assumed ? dscp >> 3 : nd->pfc.dscp_prio[dscp];
	if (lands == prio) {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: DSCP trust: DSCP %u (%s) lands on "
			   "priority %u%s", nd->port, dscp, src, lands,
			   assumed ? " (no entry: the NIC's default DSCP / 8)" : "");
	} else if (nd->pfc.pfc_en & (1u << lands)) {
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: DSCP trust: DSCP %u (%s) lands on "
			   "priority %u (PFC on there), not on roce_prio %u", nd->port, dscp, src,
			   lands, prio);
		pf_code(f, 2);
		pf_remedy(f, "set pfc_pause.roce_prio=%u if that is the design, or map DSCP %u to "
			  "priority %u: dcb app add dev %s dscp-prio %u:%u", lands, dscp, prio,
			  nd->name, dscp, prio);
	} else {
		f = pf_add(res, assumed || dscp_assumed ? PF_STATUS_WARN : PF_STATUS_FAIL, subject,
			   "%s: DSCP trust: RoCE traffic (DSCP %u, %s) lands on priority %u%s, where "
			   "PFC is off (PFC on: %s): lossy RoCE", nd->port, dscp, src, lands,
			   assumed ? " (no entry: the NIC's default DSCP / 8 assumed)" : "", prios);
		pf_code(f, 3);
		pf_remedy(f, "map RoCE's DSCP to the PFC priority: dcb app add dev %s dscp-prio "
			  "%u:%u (mlnx_qos -i %s --dscp2prio set,%u,%u), or mark RoCE with a DSCP "
			  "that maps there (NCCL_IB_TC, rdma_cm default_roce_tos)", nd->name, dscp,
			  prio, nd->name, dscp, prio);
	}
	pf_obs_str(f, "trust", "dscp");
	pf_obs_num(f, "dscp", dscp);
	pf_obs_num(f, "priority", lands);
	pf_exp_num(f, "priority", prio);
}

static void config_observed(struct pf_finding *f, const struct roce_if *nd,
			    const struct pfc_pause_cfg *cfg, const char *prios);

/* The configuration finding: PFC on roce_prio, no global pause beside PFC. */
static void judge_config(struct pf_result *res, const struct roce_if *nd,
			 const struct pfc_pause_cfg *cfg)
{
	unsigned int prio = (unsigned int)cfg->roce_prio;
	bool pfc_known = nd->r_pfc == 0, pause_known = nd->r_pause == 0;
	bool pfc_on = pfc_known && (nd->pfc.pfc_en & (1u << prio));
	bool global = pause_known && (nd->pause.rx || nd->pause.tx);
	bool global_clash = global && pfc_known && nd->pfc.pfc_en;
	char prios[32], pause_txt[48];
	struct pf_finding *f;

	fmt_prios(prios, sizeof(prios), pfc_known ? nd->pfc.pfc_en : 0);
	if (pause_known)
		snprintf(pause_txt, sizeof(pause_txt), "global pause rx %s, tx %s",
			 nd->pause.rx ? "on" : "off", nd->pause.tx ? "on" : "off");
	else
		snprintf(pause_txt, sizeof(pause_txt), "global pause %s", outcome(nd->r_pause));

	if (nd->r_pfc == -EINVAL && !nd->live) {
		f = pf_add(res, PF_STATUS_ERROR, nd->name,
			   "%s: preflight/dcb/%s/pfc is not `dcb pfc show` output", nd->port, nd->name);
	} else if (nd->r_pause == -EINVAL && !nd->live) {
		f = pf_add(res, PF_STATUS_ERROR, nd->name,
			   "%s: preflight/ethtool/%s/pause is not `ethtool -a` output", nd->port,
			   nd->name);
	} else if (nd->r_pfc < 0 && nd->r_pfc != -EOPNOTSUPP && nd->r_pfc != -ENOENT) {
		f = pf_add(res, PF_STATUS_ERROR, nd->name, "cannot read the PFC configuration (%s): %s",
			   nd->port, strerror(-nd->r_pfc));
	} else if (nd->r_pause < 0 && nd->r_pause != -EOPNOTSUPP && nd->r_pause != -ENOENT) {
		f = pf_add(res, PF_STATUS_ERROR, nd->name,
			   "cannot read the pause parameters (%s): %s", nd->port,
			   strerror(-nd->r_pause));
	} else if (global_clash && !(pfc_known && !pfc_on && cfg->require_pfc)) {
		/*
		 * mlx5e_get_pauseparam() reports the PFCC register's global
		 * pprx/pptx, apart from PFC's pfcrx/pfctx: whether firmware keeps
		 * reporting them on after PFC is enabled is not known from a
		 * capture yet, so this must not drain a node (issue 22 item 15).
		 */
		f = pf_add(res, PF_STATUS_WARN, nd->name, "%s: PFC %s for priority %u (enabled: %s); "
			   "%s alongside PFC (as the driver reports it; whether ConnectX firmware "
			   "reports global pause on beside PFC is unverified)", nd->port,
			   pfc_on ? "on" : "off", prio, prios, pause_txt);
		pf_code(f, 4);
		pf_remedy(f, "turn global pause off so that only PFC pauses the link: "
			  "ethtool -A %s autoneg off rx off tx off (and on the switch port); "
			  "if it reads on again right after, the firmware reports it beside PFC",
			  nd->name);
	} else if (pfc_known && !pfc_on && cfg->require_pfc) {
		f = pf_add(res, PF_STATUS_FAIL, nd->name, "%s: PFC off for priority %u (enabled: %s); %s%s",
			   nd->port, prio, prios, pause_txt, global_clash ? " alongside PFC" : "");
		pf_code(f, 5);
		pf_remedy(f, "enable PFC on priority %u%s: dcb pfc set dev %s prio-pfc %u:on "
			  "(or mlnx_qos -i %s --pfc with priority %u set), and on the switch "
			  "port; persist it in the NIC's or the node's network configuration",
			  prio, global ? " and turn global pause off (ethtool -A ... rx off tx off)" : "",
			  nd->name, prio, nd->name, prio);
	} else if (nd->r_pfc == -ENOENT) {
		f = pf_add(res, PF_STATUS_SKIP, nd->name,
			   "%s: PFC configuration not in the snapshot (preflight/dcb/%s/pfc); %s",
			   nd->port, nd->name, pause_txt);
	} else if (nd->r_pfc == -EOPNOTSUPP && cfg->require_pfc) {
		f = pf_add(res, PF_STATUS_WARN, nd->name,
			   "%s: the driver reports no PFC configuration (DCB not supported); %s",
			   nd->port, pause_txt);
		pf_code(f, 6);
		pf_remedy(f, "load a driver with DCB support or check PFC in the NIC firmware "
			  "tool and on the switch; set require_pfc=false for a lossy RoCE fabric");
	} else {
		f = pf_add(res, PF_STATUS_PASS, nd->name, "%s: PFC %s for priority %u (enabled: %s); %s",
			   nd->port, pfc_on ? "on" : pfc_known ? "off" : outcome(nd->r_pfc), prio,
			   prios, pause_txt);
	}
	config_observed(f, nd, cfg, prios);
}

/* Report: the PFC and pause state read, and what the port is held to. */
static void config_observed(struct pf_finding *f, const struct roce_if *nd,
			    const struct pfc_pause_cfg *cfg, const char *prios)
{
	if (nd->r_pfc == 0) {
		pf_obs_str(f, "pfc_enabled", prios);
		pf_obs_num(f, "pfc_cap", nd->pfc.pfc_cap);
	} else {
		pf_obs_str(f, "pfc", outcome(nd->r_pfc));
	}
	if (nd->r_pause == 0) {
		pf_obs_bool(f, "global_pause_rx", nd->pause.rx);
		pf_obs_bool(f, "global_pause_tx", nd->pause.tx);
		if (nd->pause.has_stats) {
			pf_obs_num(f, "global_pause_rx_frames", (double)nd->pause.rx_frames);
			pf_obs_num(f, "global_pause_tx_frames", (double)nd->pause.tx_frames);
		}
	} else {
		pf_obs_str(f, "global_pause", outcome(nd->r_pause));
	}
	pf_exp_num(f, "pfc_prio", (double)cfg->roce_prio);
	pf_exp_bool(f, "pfc_required", cfg->require_pfc);
	pf_exp_str(f, "global_pause", "off");
}

/*
 * A counter over the window: its delta when both samples have it and it did
 * not go backwards (driver reload), else -ENOENT.
 */
static int delta_of(const struct roce_if *nd, const char *name, uint64_t *ret)
{
	uint64_t a, b;

	if (nd->r_after < 0 || pf_stats_get(&nd->s0, name, &a) < 0 ||
	    pf_stats_get(&nd->s1, name, &b) < 0 || b < a)
		return -ENOENT;
	*ret = b - a;
	return 0;
}

static void judge_storm(struct pf_result *res, const struct roce_if *nd, double window_ms)
{
	static const char *const names[] = { "tx_pause_storm_error_events",
					     "tx_pause_storm_warning_events" };
	uint64_t v[2] = { 0, 0 }, d[2] = { 0, 0 };
	bool have = false, windowed = true;
	char subject[96];
	struct pf_finding *f;

	/* Either counter may be absent; one that is present must be in both samples. */
	for (int i = 0; i < 2; i++) {
		if (pf_stats_get(&nd->s0, names[i], &v[i]) < 0)
			continue;
		have = true;
		if (delta_of(nd, names[i], &d[i]) < 0)
			windowed = false;
	}
	if (!have) /* the device has no stall detection */
		return;
	snprintf(subject, sizeof(subject), "%s/storm", nd->name);
	if (windowed && (d[0] || d[1])) {
		f = pf_add(res, PF_STATUS_FAIL, subject,
			   "%s: pause storm in progress: %llu error and %llu warning events in %.1f s",
			   nd->port, (unsigned long long)d[0], (unsigned long long)d[1],
			   window_ms / 1e3);
		pf_code(f, 7);
	} else if (!windowed && (v[0] || v[1])) {
		f = pf_add(res, PF_STATUS_FAIL, subject,
			   "%s: %llu pause storm error and %llu warning events since boot",
			   nd->port, (unsigned long long)v[0], (unsigned long long)v[1]);
		pf_code(f, 7);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: no pause storm events%s", nd->port,
			   windowed ? " in the window" : " since boot");
	}
	if (f->status != PF_STATUS_PASS)
		pf_remedy(f, "a receiver on this link stalled and kept the link paused, and the NIC "
			  "stopped sending pause: find the stuck host or port (rx_discards_phy, "
			  "outbound_pci_stalled_*), reload the NIC (devlink dev reload) and check the "
			  "switch's PFC watchdog before returning the node to service");
	pf_obs_num(f, "storm_error_events", (double)(windowed ? d[0] : v[0]));
	pf_obs_num(f, "storm_warning_events", (double)(windowed ? d[1] : v[1]));
	pf_obs_str(f, "over", windowed ? "window" : "since boot");
	if (windowed)
		pf_obs_num(f, "window_ms", window_ms);
	pf_exp_num(f, "storm_events", 0);
}

/* The pause counters of one priority, over the window or since boot. */
struct prio_counts {
	bool have_frames, have_dur;
	uint64_t rx, tx;         /* pause frames */
	uint64_t rx_us, tx_us;   /* time paused */
	const char *source;
};

static bool prio_counts(const struct roce_if *nd, int p, bool windowed, struct prio_counts *ret)
{
	char n_rx[40], n_tx[40], n_rxd[48], n_txd[48];
	struct prio_counts c = { .source = "ethtool -S" };
	int (*get)(const struct roce_if *, const char *, uint64_t *);

	snprintf(n_rx, sizeof(n_rx), "rx_prio%d_pause", p);
	snprintf(n_tx, sizeof(n_tx), "tx_prio%d_pause", p);
	snprintf(n_rxd, sizeof(n_rxd), "rx_prio%d_pause_duration", p);
	snprintf(n_txd, sizeof(n_txd), "tx_prio%d_pause_duration", p);
	if (windowed) {
		get = delta_of;
		c.have_frames = get(nd, n_rx, &c.rx) == 0 && get(nd, n_tx, &c.tx) == 0;
		c.have_dur = get(nd, n_rxd, &c.rx_us) == 0 && get(nd, n_txd, &c.tx_us) == 0;
	} else if (nd->r_stats == 0) {
		c.have_frames = pf_stats_get(&nd->s0, n_rx, &c.rx) == 0 &&
				pf_stats_get(&nd->s0, n_tx, &c.tx) == 0;
		c.have_dur = pf_stats_get(&nd->s0, n_rxd, &c.rx_us) == 0 &&
			     pf_stats_get(&nd->s0, n_txd, &c.tx_us) == 0;
	}
	if (!windowed && !c.have_frames && nd->r_pfc == 0 && nd->pfc.has_counters) {
		/* DCB's per-priority PFC requests (sent) and indications (received). */
		c.have_frames = true;
		c.tx = nd->pfc.requests[p];
		c.rx = nd->pfc.indications[p];
		c.source = "dcb";
	}
	*ret = c;
	return c.have_frames || c.have_dur;
}

/* A priority's pausing over the window or since boot: shares of time and frame rates. */
struct pause_rates {
	bool windowed;
	double secs, rx_pct, tx_pct, pct, rx_rate, rate;
};

static struct pause_rates rates_of(const struct prio_counts *c, bool windowed, double window_ms,
				   double uptime_s)
{
	struct pause_rates r = { .windowed = windowed };

	r.secs = windowed ? window_ms / 1e3 : uptime_s;
	if (r.secs > 0 && c->have_dur) {
		r.rx_pct = 100.0 * (double)c->rx_us / (r.secs * 1e6);
		r.tx_pct = 100.0 * (double)c->tx_us / (r.secs * 1e6);
	}
	r.pct = r.rx_pct > r.tx_pct ? r.rx_pct : r.tx_pct;
	r.rx_rate = r.secs > 0 ? (double)c->rx / r.secs : 0;
	r.rate = r.secs > 0 ? (double)(c->rx + c->tx) / r.secs : 0;
	return r;
}

/*
 * Over a window on an idle node: paused more than fail_pause_pct fails,
 * more than warn_pause_pct or pause frames arriving faster than
 * idle_rx_pause_per_s warn.
 */
static struct pf_finding *judge_window(struct pf_result *res, const struct roce_if *nd, int p,
				       const struct pfc_pause_cfg *cfg, const struct prio_counts *c,
				       const struct pause_rates *r, const char *subject)
{
	if (c->have_dur && r->pct > cfg->fail_pause_pct)
		return pf_add(res, PF_STATUS_FAIL, subject,
			      "%s: priority %d paused %.1f %% of %.1f s (rx %.1f %%, tx %.1f %%) on an idle node",
			      nd->port, p, r->pct, r->secs, r->rx_pct, r->tx_pct);
	if (c->have_dur && r->pct > cfg->warn_pause_pct)
		return pf_add(res, PF_STATUS_WARN, subject,
			      "%s: priority %d paused %.1f %% of %.1f s (rx %.1f %%, tx %.1f %%)", nd->port,
			      p, r->pct, r->secs, r->rx_pct, r->tx_pct);
	if (c->have_frames && c->rx && r->rx_rate > cfg->idle_rx_pause_per_s)
		return pf_add(res, PF_STATUS_WARN, subject,
			      "%s: %llu pause frames arrived on priority %d in %.1f s (%.0f/s) at an idle node",
			      nd->port, (unsigned long long)c->rx, p, r->secs, r->rx_rate);
	return pf_add(res, PF_STATUS_PASS, subject,
		      "%s: priority %d: %llu rx and %llu tx pause frames, paused %.1f %% of %.1f s",
		      nd->port, p, (unsigned long long)c->rx, (unsigned long long)c->tx, r->pct, r->secs);
}

/*
 * Since boot: not judged without an uptime; paused more than boot_pause_pct
 * or more frames than boot_pause_per_s warn.
 */
static struct pf_finding *judge_since_boot(struct pf_result *res, const struct roce_if *nd, int p,
					   const struct pfc_pause_cfg *cfg,
					   const struct prio_counts *c, const struct pause_rates *r,
					   const char *subject)
{
	if (r->secs <= 0)
		return pf_add(res, PF_STATUS_PASS, subject,
			      "%s: priority %d: %llu rx and %llu tx pause frames since boot (uptime "
			      "unknown: not judged)",
			      nd->port, p, (unsigned long long)c->rx, (unsigned long long)c->tx);
	return pf_add(res, (c->have_dur && r->pct > cfg->boot_pause_pct) ||
			   (c->have_frames && r->rate > cfg->boot_pause_per_s) ?
			   PF_STATUS_WARN : PF_STATUS_PASS, subject,
		      "%s: priority %d: %llu rx and %llu tx pause frames since boot (%.1f/s), "
		      "paused %.1f %% of %.0f s",
		      nd->port, p, (unsigned long long)c->rx, (unsigned long long)c->tx, r->rate,
		      r->pct, r->secs);
}

/* Report: the counters, the rates, what they were measured over and held to. */
static void prio_observed(struct pf_finding *f, const struct pfc_pause_cfg *cfg,
			  const struct prio_counts *c, const struct pause_rates *r,
			  double window_ms, double uptime_s)
{
	bool windowed = r->windowed;

	pf_obs_num(f, "rx_pause_frames", (double)c->rx);
	pf_obs_num(f, "tx_pause_frames", (double)c->tx);
	if (c->have_dur) {
		pf_obs_num(f, "rx_pause_us", (double)c->rx_us);
		pf_obs_num(f, "tx_pause_us", (double)c->tx_us);
		pf_obs_num(f, "paused_pct", r->pct);
	}
	if (r->secs > 0)
		pf_obs_num(f, "rx_pause_per_s", r->rx_rate);
	pf_obs_str(f, "over", windowed ? "window" : "since boot");
	pf_obs_num(f, windowed ? "window_ms" : "uptime_s", windowed ? window_ms : uptime_s);
	pf_obs_str(f, "source", c->source);
	if (windowed) {
		pf_exp_num(f, "max_paused_pct_warn", cfg->warn_pause_pct);
		pf_exp_num(f, "max_paused_pct_fail", cfg->fail_pause_pct);
		pf_exp_num(f, "max_rx_pause_per_s", cfg->idle_rx_pause_per_s);
	} else {
		pf_exp_num(f, "max_boot_paused_pct", cfg->boot_pause_pct);
		pf_exp_num(f, "max_boot_pause_per_s", cfg->boot_pause_per_s);
	}
}

static void judge_prio(struct pf_result *res, const struct roce_if *nd, int p,
		       const struct pfc_pause_cfg *cfg, double window_ms, double uptime_s)
{
	bool roce = (uint64_t)p == cfg->roce_prio;
	bool windowed = nd->r_after == 0;
	struct prio_counts c;
	struct pause_rates r;
	char subject[96];
	struct pf_finding *f;

	snprintf(subject, sizeof(subject), "%s/prio%d", nd->name, p);
	if (!prio_counts(nd, p, windowed, &c) && windowed) {
		/* Counters absent from one sample: judge what there is since boot. */
		windowed = false;
		prio_counts(nd, p, false, &c);
	}
	if (!c.have_frames && !c.have_dur) {
		bool pfc_on = nd->r_pfc == 0 && (nd->pfc.pfc_en & (1u << p));

		if (roce)
			pf_add(res, PF_STATUS_SKIP, subject,
			       "%s: no per-priority pause counters for priority %d (%s)", nd->port, p,
			       nd->r_stats < 0 ? outcome(nd->r_stats)
			       : pfc_on	       ? "the driver has none"
					       : "mlx5 shows them only where PFC is on");
		return;
	}
	if (!roce && !(c.rx || c.tx || c.rx_us || c.tx_us))
		return; /* an idle priority RoCE does not use */

	r = rates_of(&c, windowed, window_ms, uptime_s);
	f = windowed ? judge_window(res, nd, p, cfg, &c, &r, subject) :
		       judge_since_boot(res, nd, p, cfg, &c, &r, subject);
	if (f->status == PF_STATUS_FAIL || (f->status == PF_STATUS_WARN && windowed))
		pf_remedy(f, "the fabric is pausing this idle node: look for congestion or a pause "
			  "storm upstream (switch PFC counters and watchdog, a stuck peer), check that "
			  "the switch's PFC priority and buffer settings match priority %d", p);
	else if (f->status == PF_STATUS_WARN)
		pf_remedy(f, "heavy pausing since boot: compare with a live run (window_ms) to see "
			  "whether it continues; check the switch's PFC counters for this port");
	pf_code(f, windowed ? 8 : 9);
	prio_observed(f, cfg, &c, &r, window_ms, uptime_s);
}

/*
 * A RoCE port without a netdev: live an error; under --root (a partial
 * capture: only /sys/class/infiniband and the PCI tree) a skip naming what
 * is missing.
 */
static void no_netdev(struct pf_result *res, const struct pf_rdma_dev *dev,
		      const struct pf_rdma_port *port, bool live)
{
	struct pf_finding *f;
	char subject[64];

	snprintf(subject, sizeof(subject), "%s/%u", dev->name, port->num);
	if (!live) {
		f = pf_add(res, PF_STATUS_SKIP, subject, "RoCE port's netdev not in the snapshot "
			   "(no /sys/class/net entry named by /sys/class/infiniband/%s/ports/%u/"
			   "gid_attrs/ndevs/0 or under its PCI function): PFC and pause not judged",
			   dev->name, port->num);
		pf_remedy(f, "capture /sys/class/net and the ports' gid_attrs with the snapshot "
			  "(preflight snapshot records them), or run on the node");
		return;
	}
	f = pf_add(res, PF_STATUS_ERROR, subject,
		   "RoCE port has no netdev: its PFC and pause state cannot be read");
	pf_remedy(f, "check that the port's netdev exists (rdma link show) and "
		  "that the snapshot includes /sys/class/net");
}

/*
 * The RoCE netdevs of the node, once each; findings for RoCE ports without
 * one, and for ports their role leaves out.
 */
static size_t collect(const struct pf_node *node, const struct pf_rails *rails, bool live,
		      struct pf_result *res, struct roce_if **ret, size_t *ret_ports)
{
	struct roce_if *v = NULL;
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
				pf_rails_skip_port(res, dev->name, rp, "PFC and pause are");
				continue;
			}
			if (port->netdev < 0 || (size_t)port->netdev >= node->n_netdevs) {
				no_netdev(res, dev, port, live);
				continue;
			}
			name = node->netdevs[port->netdev].name;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(v[k].name, name)) {
					dup = true;
					/* a netdev with a compute rail among its ports is a rail */
					if (rule == PF_ROCE_JUDGE)
						v[k].role = NULL;
				}
			if (dup)
				continue;
			v = pf_xrealloc(v, (n + 1) * sizeof(*v));
			memset(&v[n], 0, sizeof(v[n]));
			v[n].name = name;
			v[n].role = rule == PF_ROCE_SOFT ? rp : NULL;
			snprintf(v[n].port, sizeof(v[n].port), "%s/%u", dev->name, port->num);
			n++;
		}
	}
	*ret = v;
	*ret_ports = ports;
	return n;
}

/* No RoCE port: say what the RDMA ports are instead (InfiniBand, EFA, unknown). */
static int skip_no_roce(const struct pf_node *node, struct pf_result *res)
{
	size_t ib = 0, other = 0;

	if (node->n_rdma == 0)
		return pf_skip(res, "no RDMA devices: no RoCE netdevs to check");
	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++) {
			if (node->rdma[i].ports[j].link_layer == PF_LINK_IB)
				ib++;
			else
				other++;
		}
	if (other == 0)
		return pf_skip(res, "no RoCE netdevs: every RDMA port is InfiniBand (PFC and pause "
			       "apply to Ethernet links)");
	return pf_skip(res, "no RoCE ports: %zu InfiniBand, %zu of another link layer (e.g. "
		       "AWS EFA, whose SRD transport needs no PFC)", ib, other);
}

static int pfc_pause_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct pfc_pause_cfg *cfg = config;
	const struct pf_providers *prov = ctx->prov;
	pf_autofree struct roce_if *nds = NULL;
	double window_ms = 0, uptime_s;
	size_t n, ports;
	bool sampled = false;
	int r;

	if (!ctx->node)
		return pf_error(res, -ENODATA, "no node inventory");

	n = collect(ctx->node, ctx->rails, pf_prov_can(ctx, PF_PROV_NODE), res, &nds, &ports);
	if (ports == 0)
		return skip_no_roce(ctx->node, res);

	for (size_t i = 0; i < n; i++) {
		nds[i].live = pf_prov_can(ctx, PF_PROV_NODE);
		nds[i].r_pfc = prov->pfc(ctx, nds[i].name, &nds[i].pfc);
		nds[i].r_pause = prov->pause(ctx, nds[i].name, &nds[i].pause);
		nds[i].r_stats = prov->ethtool_stats(ctx, nds[i].name, 0, &nds[i].s0);
		nds[i].r_after = -ENODATA;
		sampled |= nds[i].r_stats == 0;
	}
	if (sampled && cfg->window_ms > 0) {
		r = prov->wait(ctx, (unsigned int)cfg->window_ms, &window_ms);
		for (size_t i = 0; r == 0 && window_ms > 0 && i < n; i++)
			if (nds[i].r_stats == 0)
				nds[i].r_after = prov->ethtool_stats(ctx, nds[i].name, 1, &nds[i].s1);
	}
	uptime_s = pf_read_uptime(ctx->fs);

	for (size_t i = 0; i < n; i++) {
		const struct roce_if *nd = &nds[i];
		size_t first = res->n_findings;

		judge_config(res, nd, cfg);
		judge_trust(ctx, res, nd, cfg);
		if (nd->r_stats < 0 && nd->r_stats != -EOPNOTSUPP && nd->r_stats != -ENOENT) {
			char subject[96];

			snprintf(subject, sizeof(subject), "%s/counters", nd->name);
			if (nd->r_stats == -EINVAL && !nd->live)
				pf_add(res, PF_STATUS_ERROR, subject,
				       "%s: preflight/ethtool/%s/stats is not `ethtool -S` output",
				       nd->port, nd->name);
			else
				pf_add(res, PF_STATUS_ERROR, subject,
				       "%s: cannot read driver statistics: %s", nd->port,
				       strerror(-nd->r_stats));
		} else if (nd->r_after < 0 && nd->r_after != -ENODATA && nd->r_after != -ENOENT) {
			char subject[96];

			snprintf(subject, sizeof(subject), "%s/counters", nd->name);
			pf_add(res, PF_STATUS_ERROR, subject,
			       "%s: cannot read the second sample of driver statistics: %s", nd->port,
			       strerror(-nd->r_after));
		}
		judge_storm(res, nd, window_ms);
		for (int p = 0; p < PF_PRIOS; p++)
			judge_prio(res, nd, p, cfg, window_ms, uptime_s);
		if (nd->role)
			pf_rails_soften(res, first, nd->role);
	}
	for (size_t i = 0; i < n; i++) {
		pf_stats_release(&nds[i].s0);
		pf_stats_release(&nds[i].s1);
	}
	return 0;
}

static const struct pf_code pfc_pause_codes[] = {
	{ 1, PF_ACTION_RECONFIGURE, "PCP trust: untagged RoCE runs on priority 0, where PFC is off" },
	{ 2, PF_ACTION_RECONFIGURE, "DSCP trust: RoCE's DSCP lands on another PFC priority than roce_prio" },
	{ 3, PF_ACTION_RECONFIGURE, "DSCP trust: RoCE's DSCP lands on a priority where PFC is off (lossy RoCE)" },
	{ 4, PF_ACTION_RECONFIGURE, "global pause is reported on alongside PFC" },
	{ 5, PF_ACTION_RECONFIGURE, "PFC is off for the RoCE priority" },
	{ 6, PF_ACTION_RECONFIGURE, "the driver reports no PFC configuration (no DCB support)" },
	{ 7, PF_ACTION_REBOOT, "the NIC's pause-storm watchdog fired: a receiver stalled and kept the link paused" },
	{ 8, PF_ACTION_NONE, "the fabric paused this idle node during the window (congestion or a storm upstream)" },
	{ 9, PF_ACTION_NONE, "heavy pausing on this port since boot" },
	{ 0 },
};

const struct pf_check pf_check_pfc_pause = {
	.name = "pfc_pause",
	.summary = "PFC on the RoCE priority, no global pause, no pause storm or pressure",
	.tags = "roce,network",
	.reads = "DCB ieee_pfc (rtnetlink; preflight/dcb/<if>/pfc), ethtool pause parameters "
		 "(netlink; preflight/ethtool/<if>/pause), ethtool -S counters (SIOCETHTOOL; "
		 "preflight/ethtool/<if>/stats[.after], preflight/window_ms), /proc/uptime",
	.params = pfc_pause_params,
	.codes = pfc_pause_codes,
	.cfg_size = sizeof(struct pfc_pause_cfg),
	.timeout_s = WINDOW_MAX_MS / 1000 + 10,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_WINDOWED,
	.validate = pfc_pause_validate,
	.run = pfc_pause_run,
};
