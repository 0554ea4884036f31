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
 *   ROCE_CC_PRIO_MASK_P<n>   the firmware NV configuration that enables
 *       DCQCN per priority on upstream (inbox) mlx5, whose debugfs cc_params/
 *       holds only rp_ and np_ tuning (drivers/infiniband/hw/mlx5/cong.c);
 *       read with mstconfig/mlxconfig through the nv_query provider
 *
 * Upstream mlx5 has no ecn directory: then the NV configuration decides
 * (its RoCE-priority bit clear in the current column fails; clear only for
 * next boot warns).  The counters are port-wide, not per priority: CNPs
 * ignored on a storage priority look the same as on the RoCE priority, so
 * they warn, never fail.  No evidence at all is a skip (a warn with
 * `required` when the tool is missing on the live node).  InfiniBand ports
 * are the subnet manager's business.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/fs.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"

struct dcqcn_cfg {
	uint64_t roce_prio;
	bool required;
	char *ignore;
};

static const struct pf_param dcqcn_params[] = {
	PF_PARAM_U64(struct dcqcn_cfg, roce_prio, "3", 0, 7, NULL,
		     "the 802.1p priority that carries RoCE traffic (as pfc_pause.roce_prio); DCQCN "
		     "must be on for it"),
	PF_PARAM_BOOL(struct dcqcn_cfg, required, "true",
		      "fail when DCQCN is off and warn when it cannot be decided on the live node "
		      "(false: warn and skip, for fabrics that run RoCE without it)"),
	PF_PARAM_STRING(struct dcqcn_cfg, ignore, "",
			"RDMA devices or netdevs not to judge, e.g. storage or front-end ports "
			"(\"mlx5_8,mlx5_an0\")"),
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
			pf_obs_num(pf_last(res), "cnp_dscp", (double)v);
		if (pf_fs_readf_u64(ctx->fs, &v, "/sys/class/net/%s/ecn/roce_np/cnp_802p_prio",
				    ifname) == 0)
			pf_obs_num(pf_last(res), "cnp_802p_prio", (double)v);
	}
	return any;
}

/* What decided a port: nothing, or a finding from the NV configuration or the counters. */
struct verdict {
	bool decided;
	bool tool_missing; /* no mstconfig/mlxconfig on the node (-ENOPKG) */
	char why[320]; /* when not decided by the NV configuration: why not */
};

/* The tool's first line ("-E- Failed to open the device"), for a message. */
static void first_line(const char *text, char *buf, size_t len)
{
	const char *t = text ? text + strspn(text, " \t\n") : "";

	snprintf(buf, len, "%.*s", (int)strcspn(t, "\n"), t);
	if (!*buf)
		snprintf(buf, len, "no output");
}

static void nv_finding(const struct dcqcn_cfg *cfg, const char *port, const char *ifname,
		       const char *param, const char *bdf, const struct pf_nv_value *v,
		       struct pf_result *res)
{
	unsigned int prio = (unsigned int)cfg->roce_prio;
	uint64_t bit = 1ull << prio;
	bool cur = v->has_current ? (v->cur & bit) : (v->next & bit);
	bool next = v->has_next ? (v->next & bit) : cur;
	struct pf_finding *f;

	if (cur && next) {
		f = pf_add(res, PF_STATUS_PASS, port, "%s: DCQCN on for priority %u (%s: current "
			   "0x%llx)", ifname, prio, param, (unsigned long long)(v->has_current ? v->cur
										 : v->next));
	} else if (cur) {
		f = pf_add(res, PF_STATUS_WARN, port, "%s: DCQCN is on for priority %u now, but %s "
			   "for the next boot is 0x%llx: the next firmware reset turns it off", ifname,
			   prio, param, (unsigned long long)v->next);
	} else {
		f = pf_add(res, cfg->required ? PF_STATUS_FAIL : PF_STATUS_WARN, port,
			   "%s: DCQCN is OFF for priority %u: %s%s is 0x%llx (bit %u clear)%s: "
			   "congestion is left to PFC (pause storms, a slow job)", ifname, prio, param,
			   v->has_current ? "" : " (next boot; this firmware does not report the "
			   "current value)", (unsigned long long)(v->has_current ? v->cur : v->next),
			   prio, next ? ", set for the next boot" : "");
	}
	if (!(cur && next))
		pf_remedy(f, "mstconfig -d %s set %s=0x%llx (or mlxconfig), then a firmware reset "
			  "(mlxfwreset -d %s reset) or a reboot", bdf, param,
			  (unsigned long long)((v->has_next ? v->next : 0) | bit), bdf);
	if (v->has_current)
		pf_obs_num(f, "current", (double)v->cur);
	if (v->has_next)
		pf_obs_num(f, "next_boot", (double)v->next);
	pf_exp_num(f, "bit", prio);
}

/* The firmware NV configuration of the port's NIC; vt->why says why it did not decide. */
static void judge_nv(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
		     const struct pf_rdma_dev *dev, const struct pf_rdma_port *p,
		     const char *ifname, const char *port, struct pf_result *res,
		     struct verdict *vt)
{
	const struct pf_pci_dev *pci;
	pf_autofree char *text = NULL;
	struct pf_nv_value v;
	char param[48], line[120];
	int r;

	if (dev->pci < 0 || (size_t)dev->pci >= ctx->node->n_pci) {
		snprintf(vt->why, sizeof(vt->why), "no PCI function to query");
		return;
	}
	pci = &ctx->node->pci[dev->pci];
	if (pci->vendor != 0x15b3) {
		snprintf(vt->why, sizeof(vt->why), "not an NVIDIA/Mellanox NIC");
		return;
	}
	if (!ctx->prov) {
		snprintf(vt->why, sizeof(vt->why), "no firmware configuration reader");
		return;
	}
	pf_roce_cc_param(pci->bdf, dev->n_ports, p->num, param, sizeof(param));
	r = ctx->prov->nv_query(ctx, pci->bdf, param, &text);
	if (r == -ENOPKG) {
		/* on the node, or as its snapshot recorded (preflight/mstconfig/no-tool) */
		vt->tool_missing = true;
		snprintf(vt->why, sizeof(vt->why), "neither mstconfig (mstflint) nor "
			 "mlxconfig is installed to read %s", param);
		return;
	}
	if (r == -ENOENT) {
		snprintf(vt->why, sizeof(vt->why), "preflight/mstconfig/%s/%s not captured",
			 pci->bdf, param);
		return;
	}
	if (r == -ETIMEDOUT) {
		snprintf(vt->why, sizeof(vt->why), "mstconfig did not answer for %s in time",
			 pci->bdf);
		return;
	}
	if (r < 0) {
		first_line(text, line, sizeof(line));
		snprintf(vt->why, sizeof(vt->why), "mstconfig -d %s q %s failed: %s", pci->bdf,
			 param, r == -EIO ? line : strerror(-r));
		return;
	}
	r = pf_parse_mlxconfig_query(text, param, &v);
	if (r < 0 || !(v.has_current || v.has_next)) {
		first_line(text, line, sizeof(line));
		pf_add(res, PF_STATUS_ERROR, port, "%s: cannot %s %s in the output of mstconfig -d %s "
		       "(%s)", ifname, r == -ENOENT ? "find" : "parse", param, pci->bdf, line);
		vt->decided = true;
		return;
	}
	nv_finding(cfg, port, ifname, param, pci->bdf, &v, res);
	vt->decided = true;
}

/*
 * The CC counters since boot.  They count the whole port, every priority:
 * CNPs ignored (RP off) or marked packets unanswered (NP off) may belong to
 * a storage priority where DCQCN is off by design, so both branches warn
 * and both are reported.  Returns whether the counters said anything.
 */
static bool judge_counters(const struct pf_ctx *ctx, const struct pf_rdma_dev *dev,
			   const struct pf_rdma_port *p, const char *ifname, const char *port,
			   unsigned int prio, struct pf_result *res)
{
	uint64_t ignored = 0, marked = 0, sent = 0, handled = 0;
	bool has_ignored = counter(ctx, dev->name, p->num, "rp_cnp_ignored", &ignored) == 0;
	bool has_marked = counter(ctx, dev->name, p->num, "np_ecn_marked_roce_packets", &marked) == 0;
	bool has_sent = counter(ctx, dev->name, p->num, "np_cnp_sent", &sent) == 0;
	bool has_handled = counter(ctx, dev->name, p->num, "rp_cnp_handled", &handled) == 0;
	char subject[112];
	struct pf_finding *f = NULL;
	bool said = false;

	if (has_ignored && ignored > 0) {
		snprintf(subject, sizeof(subject), "%s/rp", port);
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: %llu CNPs arrived and were ignored "
			   "(rp_cnp_ignored, %llu handled): the DCQCN reaction point is off for some "
			   "priority; the counter is port-wide, so which one it is cannot be told here",
			   ifname, (unsigned long long)ignored, (unsigned long long)handled);
		pf_remedy(f, "check ROCE_CC_PRIO_MASK_P<n> bit %u: mstconfig -d <pci> -e q "
			  "ROCE_CC_PRIO_MASK_P<n> (MLNX_OFED: /sys/class/net/%s/ecn/roce_rp/enable/%u)",
			  prio, ifname, prio);
		pf_obs_num(f, "rp_cnp_ignored", (double)ignored);
		pf_obs_num(f, "rp_cnp_handled", (double)handled);
		said = true;
	}
	if (has_marked && has_sent && marked > 0 && sent == 0) {
		snprintf(subject, sizeof(subject), "%s/np", port);
		f = pf_add(res, PF_STATUS_WARN, subject, "%s: %llu ECN-marked RoCE packets arrived "
			   "and no CNP was sent (np_cnp_sent 0): the DCQCN notification point is off "
			   "for the priority they came on (port-wide counters)", ifname,
			   (unsigned long long)marked);
		pf_remedy(f, "check ROCE_CC_PRIO_MASK_P<n> bit %u: mstconfig -d <pci> -e q "
			  "ROCE_CC_PRIO_MASK_P<n> (MLNX_OFED: /sys/class/net/%s/ecn/roce_np/enable/%u)",
			  prio, ifname, prio);
		pf_obs_num(f, "np_ecn_marked_roce_packets", (double)marked);
		pf_obs_num(f, "np_cnp_sent", (double)sent);
		said = true;
	}
	if (!said && ((has_sent && sent > 0) || (has_handled && handled > 0))) {
		snprintf(subject, sizeof(subject), "%s/counters", port);
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: DCQCN at work since boot (CNPs sent "
			   "%llu, handled %llu, none ignored)", ifname, (unsigned long long)sent,
			   (unsigned long long)handled);
		pf_obs_num(f, "np_cnp_sent", (double)sent);
		pf_obs_num(f, "rp_cnp_handled", (double)handled);
		said = true;
	}
	return said;
}

/* Neither the switches, the NV configuration nor the counters decided the port. */
static void undecided(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg, const char *port,
		      const char *ifname, const struct verdict *vt, struct pf_result *res)
{
	bool tool_missing = vt->tool_missing;
	struct pf_finding *f;

	f = pf_add(res, tool_missing && cfg->required ? PF_STATUS_WARN : PF_STATUS_SKIP, port,
		   "%s: cannot tell whether DCQCN is on for priority %u: %s, this kernel has no "
		   "ecn/roce_{np,rp} switches (upstream mlx5 keeps the enable in firmware) and "
		   "no congestion has been seen since boot", ifname, (unsigned int)cfg->roce_prio,
		   vt->why);
	pf_remedy(f, "install mstflint (Debian/Ubuntu/RHEL package 'mstflint': mstconfig) or "
		  "NVIDIA MFT (mlxconfig) so preflight can read the firmware's "
		  "ROCE_CC_PRIO_MASK_P<n>; take snapshots with it installed; set "
		  "dcqcn.ignore=<dev> for ports that carry no RoCE");
}

/* MLNX_OFED's switches of a netdev, else of a bond's slaves (RoCE LAG). */
static bool judge_switches_or_slaves(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
				     const char *ifname, const char *port, struct pf_result *res)
{
	pf_autofree char *slaves = NULL;
	char *save = NULL;
	bool any = false;

	if (judge_switches(ctx, cfg, ifname, port, res))
		return true;
	if (pf_fs_readf_line(ctx->fs, &slaves, "/sys/class/net/%s/bonding/slaves", ifname) < 0)
		return false;
	for (char *s = strtok_r(slaves, " \t", &save); s; s = strtok_r(NULL, " \t", &save))
		if (!strchr(s, '/') && strcmp(s, ".") && strcmp(s, ".."))
			any |= judge_switches(ctx, cfg, s, port, res);
	return any;
}

static bool ignored_port(const struct dcqcn_cfg *cfg, const char *dev, const char *ifname)
{
	return pf_list_has(cfg->ignore, dev) || (ifname && pf_list_has(cfg->ignore, ifname));
}

static void judge_port(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
		       const struct pf_rdma_dev *dev, const struct pf_rdma_port *p,
		       struct pf_result *res)
{
	const struct pf_node *node = ctx->node;
	struct verdict vt = { .decided = false };
	const char *ifname = NULL;
	char port[96];

	snprintf(port, sizeof(port), "%s/%u", dev->name, p->num);
	if (p->netdev >= 0 && (size_t)p->netdev < node->n_netdevs)
		ifname = node->netdevs[p->netdev].name;
	if (ignored_port(cfg, dev->name, ifname)) {
		pf_add(res, PF_STATUS_SKIP, port, "ignored (dcqcn.ignore)");
		return;
	}
	if (!ifname) {
		pf_add(res, PF_STATUS_SKIP, port, "RoCE port without a netdev: its ECN switches "
		       "cannot be found");
		return;
	}
	if (judge_switches_or_slaves(ctx, cfg, ifname, port, res))
		return;
	judge_nv(ctx, cfg, dev, p, ifname, port, res, &vt);
	if (!judge_counters(ctx, dev, p, ifname, port, (unsigned int)cfg->roce_prio, res) &&
	    !vt.decided)
		undecided(ctx, cfg, port, ifname, &vt, res);
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

			if (p->link_layer == PF_LINK_IB)
				ib++;
			const struct pf_rail_port *rp;
			enum pf_roce_rule rule = pf_rails_roce_rule(ctx->rails, (int)i, p->num, &rp);
			size_t first = res->n_findings;

			if (p->link_layer != PF_LINK_ETH)
				continue;
			roce++;
			if (rule == PF_ROCE_SKIP) {
				pf_rails_skip_port(res, dev->name, rp, "DCQCN is");
				continue;
			}
			judge_port(ctx, cfg, dev, p, res);
			if (rule == PF_ROCE_SOFT)
				pf_rails_soften(res, first, rp);
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
		 "ecn/roce_np/{cnp_dscp,cnp_802p_prio} (MLNX_OFED; a bond's: its "
		 "bonding/slaves'); the firmware's ROCE_CC_PRIO_MASK_P<n> (mstconfig -d <pci> "
		 "-e q; recorded: preflight/mstconfig/<pci>/<name>); "
		 "/sys/class/infiniband/<dev>/ports/<p>/hw_counters/{np_cnp_sent,"
		 "np_ecn_marked_roce_packets,rp_cnp_handled,rp_cnp_ignored}",
	.params = dcqcn_params,
	.cfg_size = sizeof(struct dcqcn_cfg),
	.timeout_s = 40, /* one mstconfig query per RoCE port, 4 s deadline each */
	.flags = PF_CHECK_NEEDS_NODE,
	.run = dcqcn_run,
};
