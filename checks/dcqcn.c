// SPDX-License-Identifier: MIT
/*
 * dcqcn.c - RoCE congestion control (DCQCN) is on where RoCE traffic runs.
 *
 * DCQCN has two roles per port and priority: the notification point (NP)
 * answers ECN-marked RoCE packets with CNPs, the reaction point (RP) slows
 * its QPs when CNPs arrive.  A reimage that loses the NIC's congestion
 * settings leaves PFC alone to absorb congestion: pause storms and a slow
 * job.  Evidence, best first:
 *
 *   /sys/class/net/<if>/ecn/roce_{np,rp}/enable/<prio>   MLNX_OFED's switches (0/1)
 *   /sys/class/infiniband/<dev>/ports/<p>/hw_counters/    mlx5's CC counters:
 *       rp_cnp_ignored    CNPs that arrived while the RP was off
 *       np_ecn_marked_roce_packets / np_cnp_sent   marked packets never answered
 *
 * Upstream mlx5 has no ecn directory (the switches live in firmware and
 * debugfs): then only the counters can fail a port, and no evidence either
 * way is a skip naming what would decide it.  InfiniBand ports are the
 * subnet manager's business.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/node.h"

struct dcqcn_cfg {
	uint64_t roce_prio;
	bool required;
};

static const struct pf_param dcqcn_params[] = {
	PF_PARAM_U64(struct dcqcn_cfg, roce_prio, "3", 0, 7, NULL,
		     "the 802.1p priority that carries RoCE traffic (as pfc_pause.roce_prio); DCQCN "
		     "must be on for it"),
	PF_PARAM_BOOL(struct dcqcn_cfg, required, "true",
		      "fail when DCQCN is off (false: warn, for fabrics that run RoCE without it)"),
	PF_PARAM_END,
};

static const char *const roles[2][2] = {
	{ "roce_np", "notification point (answers ECN-marked packets with CNPs)" },
	{ "roce_rp", "reaction point (slows down when CNPs arrive)" },
};

/* A hw_counter of the port; -ENOENT when the driver has none. */
static int counter(const struct pf_ctx *ctx, const char *dev, unsigned int port,
		   const char *name, uint64_t *ret)
{
	return pf_fs_readf_u64(ctx->fs, ret, "/sys/class/infiniband/%s/ports/%u/hw_counters/%s",
			       dev, port, name);
}

/* The MLNX_OFED switches; false when the kernel has no ecn directory for @ifname. */
static bool judge_switches(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
			   const char *ifname, const char *port, struct pf_result *res)
{
	unsigned int prio = (unsigned int)cfg->roce_prio;
	bool any = false;

	for (int i = 0; i < 2; i++) {
		char subject[128];
		uint64_t on;
		struct pf_finding *f;
		int r = pf_fs_readf_u64(ctx->fs, &on, "/sys/class/net/%s/ecn/%s/enable/%u", ifname,
					roles[i][0], prio);

		if (r == -ENOENT)
			continue;
		any = true;
		snprintf(subject, sizeof(subject), "%s/%s/prio%u", ifname, roles[i][0], prio);
		if (r < 0) {
			pf_add(res, PF_STATUS_ERROR, subject, "%s: cannot read ecn/%s/enable/%u: %s",
			       port, roles[i][0], prio, strerror(-r));
			continue;
		}
		if (on) {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: DCQCN %s on for priority %u",
				   port, roles[i][1], prio);
		} else {
			f = pf_add(res, cfg->required ? PF_STATUS_FAIL : PF_STATUS_WARN, subject,
				   "%s: DCQCN %s is OFF for priority %u: congestion is left to PFC "
				   "(pause storms, a slow job)", port, roles[i][1], prio);
			pf_remedy(f, "for the running system: echo 1 > /sys/class/net/%s/ecn/%s/"
				  "enable/%u; to keep it across reboots and reimages: mlxconfig -d "
				  "<pci> set ROCE_CC_PRIO_MASK_P<n>=255 and a firmware reset",
				  ifname, roles[i][0], prio);
		}
		pf_obs_num(f, "enabled", (double)on);
		pf_exp_num(f, "enabled", 1);
	}
	if (any) {
		uint64_t v;

		if (pf_fs_readf_u64(ctx->fs, &v, "/sys/class/net/%s/ecn/roce_np/cnp_dscp", ifname) == 0)
			pf_obs_num(&res->findings[res->n_findings - 1], "cnp_dscp", (double)v);
		if (pf_fs_readf_u64(ctx->fs, &v, "/sys/class/net/%s/ecn/roce_np/cnp_802p_prio",
				    ifname) == 0)
			pf_obs_num(&res->findings[res->n_findings - 1], "cnp_802p_prio", (double)v);
	}
	return any;
}

/* No switches: the CC counters since boot are the only evidence. */
static void judge_counters(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
			   const struct pf_rdma_dev *dev, const struct pf_rdma_port *p,
			   const char *ifname, const char *port, struct pf_result *res)
{
	enum pf_status bad = cfg->required ? PF_STATUS_FAIL : PF_STATUS_WARN;
	uint64_t ignored = 0, marked = 0, sent = 0, handled = 0;
	bool has_ignored = counter(ctx, dev->name, p->num, "rp_cnp_ignored", &ignored) == 0;
	bool has_marked = counter(ctx, dev->name, p->num, "np_ecn_marked_roce_packets", &marked) == 0;
	bool has_sent = counter(ctx, dev->name, p->num, "np_cnp_sent", &sent) == 0;
	bool has_handled = counter(ctx, dev->name, p->num, "rp_cnp_handled", &handled) == 0;
	struct pf_finding *f;

	if (has_ignored && ignored > 0) {
		/*
		 * The counter is port-wide: CNPs for a flow on a priority where the
		 * RP is off by design count too.  None ever handled means the RP is
		 * off everywhere, the RoCE priority included; some handled, a warning.
		 */
		bool none_handled = has_handled && handled == 0;

		f = pf_add(res, none_handled ? bad : PF_STATUS_WARN, port,
			   "%s: %llu CNPs arrived and were ignored (rp_cnp_ignored)%s", ifname,
			   (unsigned long long)ignored,
			   none_handled ? " and none was ever handled: the DCQCN reaction point is off"
					: ": the DCQCN reaction point is off for some priority (is it on "
					  "for the RoCE priority?)");
		pf_remedy(f, "enable the reaction point on priority %u: mlxconfig -d <pci> set "
			  "ROCE_CC_PRIO_MASK_P<n>=255 and a firmware reset (MLNX_OFED: echo 1 > "
			  "/sys/class/net/%s/ecn/roce_rp/enable/%u)", (unsigned int)cfg->roce_prio,
			  ifname, (unsigned int)cfg->roce_prio);
	} else if (has_marked && has_sent && marked > 0 && sent == 0) {
		f = pf_add(res, bad, port, "%s: %llu ECN-marked RoCE packets arrived and no CNP "
			   "was sent (np_cnp_sent 0): the DCQCN notification point is off", ifname,
			   (unsigned long long)marked);
		pf_remedy(f, "enable the notification point on priority %u: mlxconfig -d <pci> set "
			  "ROCE_CC_PRIO_MASK_P<n>=255 and a firmware reset (MLNX_OFED: echo 1 > "
			  "/sys/class/net/%s/ecn/roce_np/enable/%u)", (unsigned int)cfg->roce_prio,
			  ifname, (unsigned int)cfg->roce_prio);
	} else if ((has_sent && sent > 0) || (has_handled && handled > 0)) {
		f = pf_add(res, PF_STATUS_PASS, port, "%s: DCQCN at work since boot (CNPs sent %llu, "
			   "handled %llu, none ignored)", ifname, (unsigned long long)sent,
			   (unsigned long long)handled);
	} else {
		f = pf_add(res, PF_STATUS_SKIP, port, "%s: no evidence either way: this kernel has no "
			   "ecn/roce_{np,rp} switches (upstream mlx5 keeps them in firmware) and no "
			   "congestion has been seen since boot", ifname);
		pf_remedy(f, "decide with MLNX_OFED's /sys/class/net/%s/ecn/, mlxconfig -d <pci> "
			  "query ROCE_CC_PRIO_MASK_P1, or (as root) /sys/kernel/debug/mlx5/<pci>/"
			  "cc_params/", ifname);
	}
	if (has_sent)
		pf_obs_num(f, "np_cnp_sent", (double)sent);
	if (has_marked)
		pf_obs_num(f, "np_ecn_marked_roce_packets", (double)marked);
	if (has_handled)
		pf_obs_num(f, "rp_cnp_handled", (double)handled);
	if (has_ignored)
		pf_obs_num(f, "rp_cnp_ignored", (double)ignored);
}

static int dcqcn_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct dcqcn_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	size_t roce = 0, ib = 0;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *dev = &node->rdma[i];

		for (size_t j = 0; j < dev->n_ports; j++) {
			const struct pf_rdma_port *p = &dev->ports[j];
			char port[96];
			const char *ifname;

			if (p->link_layer == PF_LINK_IB)
				ib++;
			if (p->link_layer != PF_LINK_ETH)
				continue;
			roce++;
			snprintf(port, sizeof(port), "%s/%u", dev->name, p->num);
			if (p->netdev < 0 || (size_t)p->netdev >= node->n_netdevs) {
				pf_add(res, PF_STATUS_SKIP, port, "RoCE port without a netdev: its ECN "
				       "switches cannot be found");
				continue;
			}
			ifname = node->netdevs[p->netdev].name;
			if (!judge_switches(ctx, cfg, ifname, port, res))
				judge_counters(ctx, cfg, dev, p, ifname, port, res);
		}
	}
	if (roce == 0) {
		if (ib)
			return pf_skip(res, "InfiniBand only: congestion control on InfiniBand is the "
				       "subnet manager's");
		return pf_skip(res, node->n_rdma ? "no RoCE port (the RDMA ports are of another "
				       "link layer, e.g. AWS EFA)" : "no RDMA devices");
	}
	return 0;
}

const struct pf_check pf_check_dcqcn = {
	.name = "dcqcn",
	.summary = "RoCE congestion control (DCQCN) on for the RoCE priority",
	.tags = "roce,network,static",
	.reads = "/sys/class/net/<roce-if>/ecn/roce_{np,rp}/enable/<prio>, "
		 "ecn/roce_np/{cnp_dscp,cnp_802p_prio} (MLNX_OFED); "
		 "/sys/class/infiniband/<dev>/ports/<p>/hw_counters/{np_cnp_sent,"
		 "np_ecn_marked_roce_packets,rp_cnp_handled,rp_cnp_ignored}",
	.params = dcqcn_params,
	.cfg_size = sizeof(struct dcqcn_cfg),
	.timeout_s = 5,
	.flags = PF_CHECK_NEEDS_NODE,
	.run = dcqcn_run,
};
