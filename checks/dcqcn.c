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
 *       read with mstconfig/mlxconfig through the nv_query provider, asked
 *       once for every card before any port is judged (one query per card
 *       with all its ports' parameters, the cards in parallel); a RoCE
 *       LAG's bond is judged by P1 and P2
 *
 * Upstream mlx5 has no ecn directory: then the NV configuration decides
 * (its RoCE-priority bit clear in the current column fails; clear only for
 * next boot warns).  The counters are port-wide, not per priority: CNPs
 * ignored on a storage priority look the same as on the RoCE priority, so
 * they warn, never fail.  So is the notification point: NP off on the RoCE
 * priority with NP on for another is on.  No evidence at all is a skip; a
 * warn with `required` when the tool is missing or is there and failed
 * (named by its first "-E-" line, judged on the text, so live and recorded
 * agree).  InfiniBand ports are the subnet manager's business.
 */
#include <stdlib.h>
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

/*
 * Another priority whose roce_np switch is on, or -1.  The notification
 * point answers CNPs for the port, not for a priority (NVIDIA's DCQCN
 * guide: any priority enabled for NP sets it), so NP off on the RoCE
 * priority with NP on for another is not NP off.
 */
static int np_elsewhere(const struct pf_ctx *ctx, const char *ifname, unsigned int prio)
{
	for (unsigned int q = 0; q < 8; q++) {
		uint64_t on = 0;

		if (q != prio && pf_fs_readf_u64(ctx->fs, &on, "/sys/class/net/%s/ecn/roce_np/"
						 "enable/%u", ifname, q) == 0 && on)
			return (int)q;
	}
	return -1;
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
		int other;
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
		if (!on && i == 0 && (other = np_elsewhere(ctx, ifname, prio)) >= 0) {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: DCQCN %s on for the port "
				   "(enable/%u is 0, enable/%d is 1: the notification point is "
				   "port-wide, any priority enabled enables it)", port, roles[i][1],
				   prio, other);
			pf_obs_num(f, "enabled_via_prio", other);
		} else if (on) {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: DCQCN %s on for priority %u",
				   port, roles[i][1], prio);
		} else {
			f = pf_add(res, cfg->required ? PF_STATUS_FAIL : PF_STATUS_WARN, subject,
				   "%s: DCQCN %s is OFF for priority %u: congestion is left to PFC "
				   "(pause storms, a slow job)", port, roles[i][1], prio);
			pf_code(f, 1);
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
		pf_code(f, 2);
	} else {
		f = pf_add(res, cfg->required ? PF_STATUS_FAIL : PF_STATUS_WARN, port,
			   "%s: DCQCN is OFF for priority %u: %s%s is 0x%llx (bit %u clear)%s: "
			   "congestion is left to PFC (pause storms, a slow job)", ifname, prio, param,
			   v->has_current ? "" : " (next boot; this firmware does not report the "
			   "current value)", (unsigned long long)(v->has_current ? v->cur : v->next),
			   prio, next ? ", set for the next boot" : "");
		pf_code(f, 1);
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

/* What decided a port: nothing, or a finding from the NV configuration or the counters. */
struct verdict {
	bool decided;
	bool tool_missing; /* no mstconfig/mlxconfig on the node (-ENOPKG) */
	bool tool_failed;  /* the tool is there and failed, hung or printed no value */
	char why[400];     /* when not decided by the NV configuration: why not */
};

/*
 * The line that names a tool's failure: its first "-E-" line ("-E- Failed
 * to open the device"), else its first line that is not blank.
 */
static void first_line(const char *text, char *buf, size_t len)
{
	const char *t = text ? text : "", *e = NULL;

	for (const char *l = t; l && !e; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l + strspn(l, " \t"), "-E-", 3))
			e = l + strspn(l, " \t");
	if (!e)
		e = t + strspn(t, " \t\n");
	snprintf(buf, len, "%.*s", (int)strcspn(e, "\n"), e);
	if (!*buf)
		snprintf(buf, len, "no output");
}

/* The card's answer that holds @name of the port at @bdf; NULL when none was asked. */
static const struct pf_nv_ask *find_ask(const struct pf_nv_ask *asks, size_t n, const char *bdf,
					const char *name, size_t *ret_idx)
{
	for (size_t i = 0; i < n; i++)
		for (size_t m = 0; m < asks[i].n_names; m++)
			if (!strcmp(asks[i].names[m], name) && !strcmp(asks[i].name_bdf[m], bdf)) {
				*ret_idx = m;
				return &asks[i];
			}
	return NULL;
}

/* The asked tool call as a person would type it, for a message. */
static void tool_call(const struct pf_nv_ask *a, char *buf, size_t len)
{
	int off = snprintf(buf, len, "mstconfig -d %s -e q", a->bdf);

	for (size_t m = 0; m < a->n_names && off > 0 && (size_t)off < len; m++)
		off += snprintf(buf + off, len - (size_t)off, " %s", a->names[m]);
}

/*
 * One parameter from its card's answer: a finding, or why not in @why.
 * The same text gives the same verdict live and recorded: a table without
 * the parameter's row is the tool's failure, as a non-zero exit is.
 */
static bool judge_param(const struct dcqcn_cfg *cfg, const struct pf_nv_ask *a, size_t m,
			const char *subject, const char *ifname, const char *bdf,
			struct pf_result *res, struct verdict *vt, char *why, size_t len)
{
	const char *param = a->names[m];
	struct pf_nv_value v;
	char call[400], line[160];
	int r = a->name_r[m] < 0 ? a->name_r[m] : a->r;

	tool_call(a, call, sizeof(call));
	if (r == -ENOPKG) {
		vt->tool_missing = true;
		snprintf(why, len, "neither mstconfig (mstflint) nor mlxconfig is installed to "
			 "read %s", param);
		return false;
	}
	if (r == -ENOENT) {
		snprintf(why, len, "preflight/mstconfig/%s/%s not captured", bdf, param);
		return false;
	}
	if (r == -ETIMEDOUT) {
		vt->tool_failed = true;
		snprintf(why, len, "%.200s did not answer in time", call);
		return false;
	}
	if (r < 0 && r != -EIO) {
		vt->tool_failed = r == -ENOEXEC; /* installed, and would not run */
		snprintf(why, len, "%.200s failed: %s", call, strerror(-r));
		return false;
	}
	first_line(a->text, line, sizeof(line));
	if (r == -EIO) {
		vt->tool_failed = true;
		snprintf(why, len, "%.200s failed: %.160s", call, line);
		return false;
	}
	r = pf_parse_mlxconfig_query(a->text ? a->text : "", param, &v);
	if (r < 0 || !(v.has_current || v.has_next)) {
		vt->tool_failed = true;
		snprintf(why, len, "%.200s printed no value of %s (%.120s)", call, param, line);
		return false;
	}
	nv_finding(cfg, subject, ifname, param, bdf, &v, res);
	return true;
}

/* The firmware NV configuration of the port's NIC; vt->why says why it did not decide. */
static void judge_nv(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg, size_t di,
		     size_t pj, const struct pf_nv_ask *asks, size_t n_asks, const char *ifname,
		     const char *port, struct pf_result *res, struct verdict *vt)
{
	const struct pf_rdma_dev *dev = &ctx->node->rdma[di];
	const struct pf_pci_dev *pci;
	char names[PF_NV_MAX_NAMES][32], whys[PF_NV_MAX_NAMES][400];
	bool done[PF_NV_MAX_NAMES] = { false };
	size_t k, n_done = 0;

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
	k = pf_roce_cc_params(ctx->node, di, pj, names, PF_NV_MAX_NAMES);
	for (size_t m = 0; m < k; m++) {
		char subject[144];
		size_t idx = 0;
		const struct pf_nv_ask *a = find_ask(asks, n_asks, pci->bdf, names[m], &idx);

		if (k > 1) /* a RoCE LAG: a finding per bonded port's parameter */
			snprintf(subject, sizeof(subject), "%s/%s", port, names[m]);
		else
			snprintf(subject, sizeof(subject), "%s", port);
		if (!a) {
			snprintf(whys[m], sizeof(whys[m]), "%s was not asked", names[m]);
			continue;
		}
		done[m] = judge_param(cfg, a, idx, subject, ifname, pci->bdf, res, vt, whys[m],
				      sizeof(whys[m]));
		n_done += done[m];
	}
	vt->decided = n_done > 0;
	if (k)
		snprintf(vt->why, sizeof(vt->why), "%s", whys[0]);
	for (size_t m = 0; m < k && n_done; m++) {
		struct pf_finding *f;
		bool hard = (vt->tool_failed || vt->tool_missing) && cfg->required;

		if (done[m])
			continue;
		f = pf_add(res, hard ? PF_STATUS_WARN : PF_STATUS_SKIP, port, "%s: cannot tell "
			   "whether DCQCN is on for priority %u on the bond's %s: %s", ifname,
			   (unsigned int)cfg->roce_prio, names[m], whys[m]);
		pf_code(f, 3);
		pf_remedy(f, "read it by hand: mstconfig -d %s -e q %s", pci->bdf, names[m]);
	}
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
		pf_code(f, 4);
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
		pf_code(f, 5);
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
static void undecided(const struct dcqcn_cfg *cfg, const char *port, const char *ifname,
		      const struct verdict *vt, struct pf_result *res)
{
	bool hard = (vt->tool_missing || vt->tool_failed) && cfg->required;
	struct pf_finding *f;

	f = pf_add(res, hard ? PF_STATUS_WARN : PF_STATUS_SKIP, port,
		   "%s: cannot tell whether DCQCN is on for priority %u: %s, this kernel has no "
		   "ecn/roce_{np,rp} switches (upstream mlx5 keeps the enable in firmware) and "
		   "no congestion has been seen since boot", ifname, (unsigned int)cfg->roce_prio,
		   vt->why);
	pf_code(f, 3);
	if (vt->tool_failed)
		pf_remedy(f, "run the query by hand; \"Failed to open the device\" under Secure "
			  "Boot is the kernel lockdown refusing mstflint's direct access (load "
			  "mstflint_access, or use NVIDIA MFT's mlxconfig with its signed driver); "
			  "an mstflint older than the card does not know it: update it; set "
			  "dcqcn.ignore=<dev> for ports that carry no RoCE");
	else
		pf_remedy(f, "install mstflint (Debian/Ubuntu/RHEL package 'mstflint': mstconfig) "
			  "or NVIDIA MFT (mlxconfig) so preflight can read the firmware's "
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

/* The port's netdev, or NULL. */
static const char *port_ifname(const struct pf_node *node, const struct pf_rdma_port *p)
{
	if (p->netdev >= 0 && (size_t)p->netdev < node->n_netdevs)
		return node->netdevs[p->netdev].name;
	return NULL;
}

/* The firmware's answers, asked once for every card before any port is judged. */
struct nv_answers {
	struct pf_nv_ask *asks;
	size_t n, alloc;
};

static void judge_port(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg, size_t di,
		       size_t pj, const struct nv_answers *nv, struct pf_result *res)
{
	const struct pf_rdma_dev *dev = &ctx->node->rdma[di];
	const struct pf_rdma_port *p = &dev->ports[pj];
	struct verdict vt = { .decided = false };
	const char *ifname = port_ifname(ctx->node, p);
	char port[96];

	snprintf(port, sizeof(port), "%s/%u", dev->name, p->num);
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
	judge_nv(ctx, cfg, di, pj, nv->asks, nv->n, ifname, port, res, &vt);
	if (!judge_counters(ctx, dev, p, ifname, port, (unsigned int)cfg->roce_prio, res) &&
	    !vt.decided)
		undecided(cfg, port, ifname, &vt, res);
}

/* Whether judge_switches() finds MLNX_OFED's switches of @ifname (either role's file). */
static bool has_switches(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
			 const char *ifname)
{
	for (int i = 0; i < 2; i++) {
		uint64_t on;

		if (pf_fs_readf_u64(ctx->fs, &on, "/sys/class/net/%s/ecn/%s/enable/%u", ifname,
				    roles[i][0], (unsigned int)cfg->roce_prio) != -ENOENT)
			return true;
	}
	return false;
}

/* A RoCE port whose verdict needs the firmware: judged, NVIDIA's, without switches. */
static bool needs_nv(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg, size_t di, size_t pj)
{
	const struct pf_rdma_dev *dev = &ctx->node->rdma[di];
	const struct pf_rdma_port *p = &dev->ports[pj];
	const struct pf_rail_port *rp;
	const char *ifname = port_ifname(ctx->node, p);
	pf_autofree char *slaves = NULL;
	char *save = NULL;

	if (p->link_layer != PF_LINK_ETH || !ifname || ignored_port(cfg, dev->name, ifname) ||
	    dev->pci < 0 || (size_t)dev->pci >= ctx->node->n_pci ||
	    ctx->node->pci[dev->pci].vendor != 0x15b3 ||
	    pf_rails_roce_rule(ctx->rails, (int)di, p->num, &rp) == PF_ROCE_SKIP)
		return false;
	/* as judge_switches_or_slaves() decides: the netdev's switches, else its slaves' */
	if (has_switches(ctx, cfg, ifname))
		return false;
	if (pf_fs_readf_line(ctx->fs, &slaves, "/sys/class/net/%s/bonding/slaves", ifname) < 0)
		return true;
	for (char *sl = strtok_r(slaves, " \t", &save); sl; sl = strtok_r(NULL, " \t", &save))
		if (!strchr(sl, '/') && strcmp(sl, ".") && strcmp(sl, "..") &&
		    has_switches(ctx, cfg, sl))
			return false;
	return true;
}

/* One query per card, every port's parameter in it, all cards at once (the provider's). */
static void ask_firmware(const struct pf_ctx *ctx, const struct dcqcn_cfg *cfg,
			 struct nv_answers *nv)
{
	const struct pf_node *node = ctx->node;

	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++) {
			char names[PF_NV_MAX_NAMES][32];
			size_t k;

			if (!needs_nv(ctx, cfg, i, j))
				continue;
			k = pf_roce_cc_params(node, i, j, names, PF_NV_MAX_NAMES);
			for (size_t m = 0; m < k; m++)
				(void)pf_nv_ask_add(&nv->asks, &nv->n, &nv->alloc,
						    node->pci[node->rdma[i].pci].bdf, names[m]);
		}
	if (nv->n && ctx->prov) {
		int r = ctx->prov->nv_query(ctx, nv->asks, nv->n);

		if (r < 0) /* -ENOPKG: no tool; else the provider could not ask at all */
			pf_nv_asks_fail(nv->asks, nv->n, r);
	}
}

static int dcqcn_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct dcqcn_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct nv_answers nv = { NULL, 0, 0 };
	size_t roce = 0, ib = 0;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	ask_firmware(ctx, cfg, &nv);
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
			judge_port(ctx, cfg, i, j, &nv, res);
			if (rule == PF_ROCE_SOFT)
				pf_rails_soften(res, first, rp);
		}
	}
	pf_nv_asks_release(nv.asks, nv.n);
	free(nv.asks);
	if (roce == 0) {
		if (ib)
			return pf_skip(res, "InfiniBand only: congestion control on InfiniBand is the "
				       "subnet manager's");
		return pf_skip(res, node->n_rdma ? "no RoCE port (the RDMA ports are of another "
				       "link layer, e.g. AWS EFA)" : "no RDMA devices");
	}
	return 0;
}

static const struct pf_code dcqcn_codes[] = {
	{ 1, PF_ACTION_RECONFIGURE, "DCQCN (ECN congestion control) is off for the RoCE priority" },
	{ 2, PF_ACTION_RECONFIGURE, "DCQCN is on now but the firmware configuration for the next boot turns it off" },
	{ 3, PF_ACTION_NONE, "whether DCQCN is on cannot be told (the firmware query tool is missing or failed)" },
	{ 4, PF_ACTION_RECONFIGURE, "CNPs arrived and were ignored: the DCQCN reaction point is off for some priority" },
	{ 5, PF_ACTION_RECONFIGURE, "ECN-marked packets arrived and no CNP was sent: the DCQCN notification point is off" },
	{ 0 },
};

const struct pf_check pf_check_dcqcn = {
	.name = "dcqcn",
	.summary = "RoCE congestion control (DCQCN) on for the RoCE priority",
	.tags = "roce,network,static",
	.reads = "/sys/class/net/<roce-if>/ecn/roce_{np,rp}/enable/<prio>, "
		 "ecn/roce_np/{cnp_dscp,cnp_802p_prio} (MLNX_OFED; a bond's: its "
		 "bonding/slaves'); the firmware's ROCE_CC_PRIO_MASK_P<n> (one mstconfig -d "
		 "<pci> -e q per card, every port's name, a LAG's P1 and P2; recorded: "
		 "preflight/mstconfig/<pci>/<name>); "
		 "/sys/class/infiniband/<dev>/ports/<p>/hw_counters/{np_cnp_sent,"
		 "np_ecn_marked_roce_packets,rp_cnp_handled,rp_cnp_ignored}",
	.params = dcqcn_params,
	.codes = dcqcn_codes,
	.cfg_size = sizeof(struct dcqcn_cfg),
	.timeout_s = 40, /* one mstconfig query per card, all at once: 4 s + 1 s a card, <= 24 s */
	.flags = PF_CHECK_NEEDS_NODE,
	.run = dcqcn_run,
};
