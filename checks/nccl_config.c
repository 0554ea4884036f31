// SPDX-License-Identifier: MIT
/*
 * nccl_config.c - NCCL's own settings agree with the node.
 *
 * The configuration is read as NCCL reads it (src/facts/nccl_job.c over
 * src/parse/nccl_conf.c): the environment (ctx->prov->env: under `srun
 * preflight` the job's; in a Slurm prolog the prolog's, which is not the
 * job's, so then only the files count), then NCCL_CONF_FILE or ~/.nccl.conf
 * of the job's user, then /etc/nccl.conf, each applied without overwriting.
 * Judged against the inventory:
 *
 *   NCCL_IB_HCA          every name matches a device/port; every active compute
 *                        rail is selected (partial_rails: warn or fail)
 *   NCCL_IB_GID_INDEX    a RoCE v2 GID with an address on every selected RoCE port
 *   NCCL_NET_GDR_LEVEL=LOC, NCCL_NET_GDR_READ=0, NCCL_IB_DISABLE=1,
 *   NCCL_P2P_DISABLE=1   where what they turn off works: what it costs
 *   NCCL_NET_GDR_C2C=0   on a Grace GPU's own NICs (P2C), by the installed
 *                        NCCL's version (on by default from 2.27)
 *   NCCL_SOCKET_IFNAME   selects an existing interface that is up
 *   NCCL_TOPO_FILE       readable; the GPUs and NICs an NCCL topology names exist
 *   /dev/infiniband      uverbs<N> of every RDMA device NCCL may use (and
 *                        rdma_cm) present and openable by the job's user
 *
 * Nothing set anywhere is a pass: "NCCL defaults".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/nccl_conf.h"
#include "preflight/nccl_job.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"

struct nccl_config_cfg {
	char *nics;
	char *partial_rails;
	char *rdma_cm;
};

static const struct pf_param nccl_config_params[] = {
	PF_PARAM_STRING(struct nccl_config_cfg, nics, "",
			"the compute rails (RDMA device names, comma-separated) NCCL_IB_HCA must "
			"select; empty: the active ports of NICs that share a PCIe switch with a GPU "
			"(all active ports when none does)"),
	PF_PARAM_ENUM(struct nccl_config_cfg, partial_rails, "warn",
		      "when NCCL_IB_HCA selects only some active compute rails: warn or fail "
		      "(fail only against the rails listed in nics)",
		      "warn", "fail"),
	PF_PARAM_ENUM(struct nccl_config_cfg, rdma_cm, "warn",
		      "/dev/infiniband/rdma_cm missing or not openable (NCCL itself does not open "
		      "it; UCX, MPI and NVSHMEM do): warn, fail or ignore",
		      "warn", "fail", "ignore"),
	PF_PARAM_END,
};

/* The variables this check reads from the environment and the files. */
static const char *const judged[] = {
	"NCCL_IB_HCA",        "NCCL_IB_GID_INDEX",   "NCCL_IB_ADDR_FAMILY",
	"NCCL_IB_ROCE_VERSION_NUM", "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ",
	"NCCL_IB_DISABLE",    "NCCL_P2P_DISABLE",    "NCCL_P2P_LEVEL",
	"NCCL_SOCKET_IFNAME", "NCCL_TOPO_FILE",     "NCCL_DMABUF_ENABLE",
	"NCCL_NET",           "NCCL_NET_PLUGIN",     "NCCL_IB_ADDR_RANGE",
	"NCCL_SOCKET_FAMILY", "NCCL_NET_GDR_C2C",
	"NCCL_MNNVL_ENABLE", /* judged against the NVLink fabric (judge_mnnvl) */
};

struct state {
	const struct pf_ctx *ctx;
	const struct nccl_config_cfg *cfg;
	const struct pf_node *node;
	struct pf_result *res;
	struct pf_nccl_job_conf job; /* the settings, the job's user, whether the env is the job's */
	struct pf_nccl_iflist hca;
	bool *compute;         /* per node->rdma: a compute rail */
	size_t n_active;       /* active IB/Ethernet ports of compute rails */
};

/* NCCL's strtoll(value, NULL, 0) for an integer parameter (NCCL_PARAM). */
static long long nccl_int(const char *v)
{
	return strtoll(v, NULL, 0);
}

static const char *value(const struct state *st, const char *name)
{
	const struct pf_nccl_var *v = pf_nccl_conf_get(&st->job.conf, name);

	return v ? v->value : NULL;
}

static const char *origin(const struct state *st, const char *name)
{
	const struct pf_nccl_var *v = pf_nccl_conf_get(&st->job.conf, name);

	return v ? v->origin : "";
}

/* A finding about a variable: subject the name, observed its value and where it is set. */
static struct pf_finding *var_finding(struct state *st, enum pf_status s, const char *name,
				      const char *fmt, ...) PF_PRINTF(4, 5);
static struct pf_finding *var_finding(struct state *st, enum pf_status s, const char *name,
				      const char *fmt, ...)
{
	char msg[512];
	struct pf_finding *f;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	f = pf_add(st->res, s, name, "%s=%s (%s): %s", name, value(st, name), origin(st, name), msg);
	pf_obs_str(f, "value", value(st, name));
	pf_obs_str(f, "set_in", origin(st, name));
	return f;
}

static bool port_usable(const struct pf_rdma_port *p)
{
	return p->state == 4 && (p->link_layer == PF_LINK_IB || p->link_layer == PF_LINK_ETH);
}

/*
 * Compute rails: cfg->nics, else the devices with a compute port in the rail
 * model by the site's declaration and the node's rules, NCCL_IB_HCA aside
 * (which the model would otherwise take as the rails: docs/rails.md), else (no model) NICs sharing a PCIe switch with a
 * GPU, else all.
 */
static void find_rails(struct state *st)
{
	const struct pf_node *node = st->node;
	const struct pf_rails *rails = st->ctx->rails;
	size_t near = 0;

	st->compute = pf_xcalloc(node->n_rdma + 1, sizeof(*st->compute));
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		if (st->cfg->nics[0]) {
			st->compute[i] = pf_list_has(st->cfg->nics, d->name);
			continue;
		}
		if (rails) {
			for (size_t j = 0; j < d->n_ports; j++) {
				const struct pf_rail_port *rp =
					pf_rails_port(rails, (int)i, d->ports[j].num);

				/* NCCL_IB_HCA aside: the rails it is judged against */
				st->compute[i] |= rp && rp->rules_compute;
			}
			near += st->compute[i];
			continue;
		}
		if (d->pci < 0 || !node->pci[d->pci].path)
			continue;
		for (size_t g = 0; g < node->n_gpus && !st->compute[i]; g++) {
			const struct pf_pci_dev *gp = &node->pci[node->gpus[g].pci];
			const struct pf_pci_dev *np = &node->pci[d->pci];
			enum pf_path_class c;

			if (gp->path && pf_node_path_classify(node, gp, gp->numa_node, np,
							      np->numa_node, &c) == 0 &&
			    (c == PF_PATH_PIX || c == PF_PATH_PXB))
				st->compute[i] = true;
		}
		near += st->compute[i];
	}
	if (!st->cfg->nics[0] && !rails && !near)
		for (size_t i = 0; i < node->n_rdma; i++)
			st->compute[i] = true;
	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; st->compute[i] && j < node->rdma[i].n_ports; j++)
			st->n_active += port_usable(&node->rdma[i].ports[j]);
}

/* --- NCCL_IB_HCA --------------------------------------------------------- */

/* "mlx5_4" or "mlx5_4:2" for a port of a multi-port device. */
static void port_name(const struct pf_rdma_dev *d, const struct pf_rdma_port *p, char *buf,
		      size_t len)
{
	if (d->n_ports > 1)
		snprintf(buf, len, "%s:%u", d->name, p->num);
	else
		snprintf(buf, len, "%s", d->name);
}

/* Split "mlx5_12" into "mlx5_" and 12; false without a numeric suffix. */
static bool split_num(const char *s, size_t *ret_prefix, long *ret_n)
{
	size_t len = strlen(s), i = len;

	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == len || len - i > 6)
		return false;
	*ret_prefix = i;
	*ret_n = strtol(s + i, NULL, 10);
	return true;
}

/* Append names, runs of 3+ consecutive numbers as "mlx5_4..mlx5_7". */
static void compact(char **names, size_t n, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, pi, pj;
		long ni, nj;

		if (split_num(names[i], &pi, &ni))
			while (j < n && split_num(names[j], &pj, &nj) && pj == pi &&
			       !strncmp(names[i], names[j], pi) && nj == ni + (long)(j - i))
				j++;
		if (j - i >= 3) {
			used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s..%s",
						 used ? ", " : "", names[i], names[j - 1]);
			i = j;
		} else {
			used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s",
						 used ? ", " : "", names[i]);
			i++;
		}
	}
}

static void judge_hca_names(struct state *st)
{
	const struct pf_node *node = st->node;
	const struct pf_nccl_iflist *l = &st->hca;

	for (size_t e = 0; e < l->n; e++) {
		bool found = false;
		struct pf_finding *f;
		char entry[80];

		for (size_t i = 0; i < node->n_rdma && !found; i++)
			for (size_t j = 0; j < node->rdma[i].n_ports && !found; j++)
				found = pf_nccl_ifentry_matches(l, e, node->rdma[i].name,
								(int)node->rdma[i].ports[j].num);
		if (found)
			continue;
		if (l->e[e].port >= 0)
			snprintf(entry, sizeof(entry), "%s:%d", l->e[e].prefix, l->e[e].port);
		else
			snprintf(entry, sizeof(entry), "%s", l->e[e].prefix);
		/* NCCL's matchIfList ignores absent names: a fleet-wide list may be a union */
		f = var_finding(st, PF_STATUS_WARN, "NCCL_IB_HCA",
				"'%s' matches no RDMA device%s%s", entry,
				l->e[e].port >= 0 ? " port" : "",
				l->exclude ? " (excluding it changes nothing: a typo?)" :
				node->n_rdma ? " (NCCL ignores it: a typo, or a name of another "
				"node type?)" : " (the node has none)");
		pf_code(f, 1);
		pf_obs_str(f, "unmatched", entry);
		pf_remedy(f, "name devices as `ibv_devices` or /sys/class/infiniband lists them "
			  "(%s%s); without '=' an entry is a prefix (mlx5_1 also selects mlx5_10)",
			  node->n_rdma ? node->rdma[0].name : "none",
			  node->n_rdma > 1 ? ", ..." : "");
	}
}

/* Does NCCL_IB_HCA select an ACTIVE port of any RDMA device, compute rail or not? */
static bool selects_any_port(const struct state *st)
{
	const struct pf_node *node = st->node;

	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++)
			if (port_usable(&node->rdma[i].ports[j]) &&
			    pf_nccl_iflist_selects(&st->hca, node->rdma[i].name,
						   (int)node->rdma[i].ports[j].num))
				return true;
	return false;
}

static void judge_hca(struct state *st)
{
	const struct pf_node *node = st->node;
	const char *v = value(st, "NCCL_IB_HCA");
	char **used = NULL, **excluded = NULL;
	size_t n_used = 0, n_excl = 0;
	char list[512];
	struct pf_finding *f = NULL;

	pf_nccl_iflist_parse(v, &st->hca);
	if (!v)
		return;
	judge_hca_names(st);
	used = pf_xcalloc(st->n_active + 1, sizeof(*used));
	excluded = pf_xcalloc(st->n_active + 1, sizeof(*excluded));
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		for (size_t j = 0; st->compute[i] && j < d->n_ports; j++) {
			const struct pf_rdma_port *p = &d->ports[j];
			char name[96];

			if (!port_usable(p))
				continue;
			port_name(d, p, name, sizeof(name));
			if (pf_nccl_iflist_selects(&st->hca, d->name, (int)p->num))
				used[n_used++] = pf_xstrdup(name);
			else
				excluded[n_excl++] = pf_xstrdup(name);
		}
	}
	if (!st->n_active) {
		var_finding(st, PF_STATUS_PASS, "NCCL_IB_HCA", "no active compute rail to select");
	} else if (!n_used) {
		compact(excluded, n_excl, list, sizeof(list));
		/* inferred rails may be the wrong NICs: no rail at all is the evidence */
		f = var_finding(st, st->cfg->nics[0] || !selects_any_port(st) ? PF_STATUS_FAIL
									       : PF_STATUS_WARN,
				"NCCL_IB_HCA",
				"NCCL will use none of the %zu active rails (%s): it falls back to "
				"TCP sockets, a fraction of the fabric's bandwidth", st->n_active, list);
		pf_code(f, 2);
		pf_remedy(f, "fix or unset NCCL_IB_HCA where it is set (%s)", origin(st, "NCCL_IB_HCA"));
	} else if (n_excl) {
		/* fail only against rails the profile names, never inferred ones */
		enum pf_status s = !strcmp(st->cfg->partial_rails, "fail") && st->cfg->nics[0]
					   ? PF_STATUS_FAIL : PF_STATUS_WARN;

		compact(excluded, n_excl, list, sizeof(list));
		f = var_finding(st, s, "NCCL_IB_HCA", "NCCL will use %zu of %zu rails: %s excluded: "
				"inter-node bandwidth drops to %zu/%zu", n_used, st->n_active, list,
				n_used, st->n_active);
		pf_code(f, 3);
		pf_obs_str(f, "excluded", list);
		pf_remedy(f, "select every compute rail (or unset NCCL_IB_HCA) where it is set (%s); "
			  "if these NICs are not compute rails, list the rails in nccl_config.nics",
			  origin(st, "NCCL_IB_HCA"));
	} else {
		f = var_finding(st, PF_STATUS_PASS, "NCCL_IB_HCA", "selects all %zu active compute "
				"rails", st->n_active);
	}
	pf_obs_num(f, "rails_used", (double)n_used);
	pf_exp_num(f, "rails_used", (double)st->n_active);
	for (size_t i = 0; i < n_used; i++)
		free(used[i]);
	for (size_t i = 0; i < n_excl; i++)
		free(excluded[i]);
	free(used);
	free(excluded);
}

/* --- NCCL_IB_GID_INDEX ---------------------------------------------------- */

/* A GID with an address: not ::, not link-local fe80::/64 (NCCL's validGid). */
static bool gid_parse(const char *text, unsigned int w[8])
{
	return sscanf(text, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &w[0], &w[1], &w[2], &w[3], &w[4],
		      &w[5], &w[6], &w[7]) == 8;
}

static bool gid_has_ip(const unsigned int w[8])
{
	bool zero = true;

	for (int i = 0; i < 8; i++)
		zero = zero && !w[i];
	return !zero && !(w[0] == 0xfe80 && !w[1] && !w[2] && !w[3]);
}

static bool gid_v4(const unsigned int w[8])
{
	return !w[0] && !w[1] && !w[2] && !w[3] && !w[4] && w[5] == 0xffff;
}

/* Type and GID of slot @idx: 1 RoCE v2 with an address, 0 not, -errno unreadable. */
static int gid_slot(const struct pf_ctx *ctx, const char *dev, unsigned int port, long idx,
		    bool *ret_v4, char **ret_desc)
{
	pf_autofree char *type = NULL, *gid = NULL;
	unsigned int w[8];
	int r;

	r = pf_fs_readf_line(ctx->fs, &type, "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%ld",
			     dev, port, idx);
	if (r == -ENOENT || r == -EINVAL) {
		*ret_desc = pf_xstrdup("not in use");
		return 0;
	}
	if (r < 0)
		return r;
	r = pf_fs_readf_line(ctx->fs, &gid, "/sys/class/infiniband/%s/ports/%u/gids/%ld", dev,
			     port, idx);
	if (r < 0)
		return r;
	if (!gid_parse(gid, w))
		return -EINVAL;
	*ret_v4 = gid_v4(w);
	*ret_desc = pf_xasprintf("%s %s", type, gid);
	return !strncmp(type, "RoCE v2", 7) && gid_has_ip(w);
}

/* The index NCCL picks by itself (ncclIbGetGidIndex): the first RoCE v2 GID of the family. */
static long auto_gid(const struct pf_ctx *ctx, const char *dev, unsigned int port, bool want_v4)
{
	pf_autostrv char **slots = NULL;
	char path[256];
	long best = -1;
	int n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types", dev, port);
	n = pf_fs_list(ctx->fs, path, &slots);
	for (int i = 0; i < n; i++) {
		pf_autofree char *desc = NULL;
		long idx = strtol(slots[i], NULL, 10);
		bool v4 = false;

		if ((best < 0 || idx < best) && gid_slot(ctx, dev, port, idx, &v4, &desc) == 1 &&
		    v4 == want_v4)
			best = idx;
	}
	return best;
}

/*
 * NCCL_IB_ROCE_VERSION_NUM other than 2 or NCCL_IB_ADDR_RANGE change which GID
 * ncclIbGetGidIndex() accepts (src/transport/net_ib): not modelled, so the
 * index is not judged against RoCE v2 rules (a skip, never a drain).
 */
static bool gid_rules_changed(struct state *st)
{
	const char *ver = value(st, "NCCL_IB_ROCE_VERSION_NUM");
	const char *range = value(st, "NCCL_IB_ADDR_RANGE");
	const char *name = ver && ver[0] && nccl_int(ver) != 2 ? "NCCL_IB_ROCE_VERSION_NUM" :
			   range && range[0] ? "NCCL_IB_ADDR_RANGE" : NULL;

	if (!name)
		return false;
	var_finding(st, PF_STATUS_SKIP, "NCCL_IB_GID_INDEX", "%s=%s changes which GID NCCL "
		    "accepts; the index is not judged against RoCE v2 rules", name, value(st, name));
	return true;
}

/* One judged port: its index @idx holds an address GID (@v4: IPv4) described by @desc. */
static void gid_usable(struct state *st, const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
		       const char *subject, long idx, bool v4, bool want_v4, const char *desc)
{
	struct pf_finding *f;
	/* the other family than NCCL's own choice: peers on that family differ */
	long fix = v4 == want_v4 ? -1 : auto_gid(st->ctx, d->name, p->num, want_v4);

	if (fix >= 0) {
		f = pf_add(st->res, PF_STATUS_WARN, subject, "NCCL_IB_GID_INDEX="
			   "%ld: %s, an %s address while the port has %s RoCE "
			   "v2 GIDs: the index NCCL should use here is %ld (nodes "
			   "whose index %ld is %s cannot reach this one)", idx, desc,
			   v4 ? "IPv4" : "IPv6", want_v4 ? "IPv4" : "IPv6", fix,
			   idx, want_v4 ? "IPv4" : "IPv6");
		pf_code(f, 4);
		pf_exp_num(f, "gid_index", (double)fix);
		pf_remedy(f, "unset NCCL_IB_GID_INDEX (NCCL picks per port) or "
			  "remove the extra address; NCCL_IB_ADDR_FAMILY=AF_INET6 "
			  "if the fabric is IPv6");
	} else {
		f = pf_add(st->res, PF_STATUS_PASS, subject, "NCCL_IB_GID_INDEX=%ld: %s", idx, desc);
	}
	pf_obs_str(f, "gid", desc);
}

/* One judged port whose index @idx is no RoCE v2 address GID: the fail; returns NCCL's index. */
static long gid_unusable(struct state *st, const struct pf_rdma_dev *d,
			 const struct pf_rdma_port *p, const char *subject, long idx, bool want_v4,
			 const char *desc)
{
	long fix = auto_gid(st->ctx, d->name, p->num, want_v4);
	struct pf_finding *f;
	char fixmsg[96];

	if (fix >= 0)
		snprintf(fixmsg, sizeof(fixmsg), "the index NCCL should use here is %ld", fix);
	else
		snprintf(fixmsg, sizeof(fixmsg), "no index fits: the port has no RoCE v2 "
			 "GID with an address");
	f = pf_add(st->res, PF_STATUS_FAIL, subject, "NCCL_IB_GID_INDEX=%ld (%s) is not a "
		   "RoCE v2 GID with an address on this port (%s): its QPs cannot "
		   "connect, or go over RoCE v1 / link-local; %s", idx,
		   origin(st, "NCCL_IB_GID_INDEX"), desc, fixmsg);
	pf_code(f, 5);
	pf_obs_str(f, "gid", desc);
	pf_obs_num(f, "gid_index", (double)idx);
	if (fix >= 0) {
		pf_exp_num(f, "gid_index", (double)fix);
		pf_remedy(f, "NCCL's own choice here is %ld: unset NCCL_IB_GID_INDEX (NCCL "
			  "picks per port) or set it to %ld; show_gids lists the table",
			  fix, fix);
	} else {
		pf_remedy(f, "give the netdev of %s an IP address (RoCE v2 GIDs follow "
			  "the addresses); show_gids lists the table", subject);
	}
	return fix;
}

static void judge_gid(struct state *st)
{
	const struct pf_node *node = st->node;
	const char *v = value(st, "NCCL_IB_GID_INDEX"), *fam = value(st, "NCCL_IB_ADDR_FAMILY");
	bool want_v4 = !fam || strcmp(fam, "AF_INET6") != 0;
	long idx, first_fix = -2;
	bool same_fix = true;
	size_t n_judged = 0, bad = 0;

	if (!v || !v[0])
		return;
	idx = (long)nccl_int(v);
	if (idx < 0) {
		var_finding(st, PF_STATUS_PASS, "NCCL_IB_GID_INDEX", "NCCL chooses the GID itself");
		return;
	}
	if (gid_rules_changed(st))
		return;
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		for (size_t j = 0; j < d->n_ports; j++) {
			const struct pf_rdma_port *p = &d->ports[j];
			pf_autofree char *desc = NULL;
			char subject[96];
			bool v4 = false;
			long fix;
			int r;

			if (p->link_layer != PF_LINK_ETH || p->state != 4 ||
			    !pf_nccl_iflist_selects(&st->hca, d->name, (int)p->num))
				continue;
			n_judged++;
			snprintf(subject, sizeof(subject), "%s/%u", d->name, p->num);
			r = gid_slot(st->ctx, d->name, p->num, idx, &v4, &desc);
			if (r < 0) {
				pf_add(st->res, PF_STATUS_ERROR, subject, "NCCL_IB_GID_INDEX=%ld: cannot "
				       "read GID %ld: %s", idx, idx, strerror(-r));
				continue;
			}
			if (r == 1) {
				gid_usable(st, d, p, subject, idx, v4, want_v4, desc);
				continue;
			}
			bad++;
			fix = gid_unusable(st, d, p, subject, idx, want_v4, desc);
			if (first_fix == -2)
				first_fix = fix;
			same_fix = same_fix && fix == first_fix;
		}
	}
	if (!n_judged)
		var_finding(st, PF_STATUS_PASS, "NCCL_IB_GID_INDEX", "no selected RoCE port (InfiniBand "
			    "ports ignore it)");
	else if (bad > 1 && !same_fix)
		pf_code(var_finding(st, PF_STATUS_FAIL, "NCCL_IB_GID_INDEX", "the right index "
				    "differs between ports: no single value fits; leave it unset"), 6);
}

/* --- GPUDirect RDMA, IB, P2P ---------------------------------------------- */

static bool peermem_loaded(const struct pf_ctx *ctx)
{
	return pf_fs_exists(ctx->fs, "/sys/module/nvidia_peermem") == 1 ||
	       pf_fs_exists(ctx->fs, "/sys/module/nv_peer_mem") == 1;
}

/* 1 the DMA-BUF path works (RDMA devices register it, CUDA exports it), 0 not, -1 unknown. */
static int dmabuf_works(const struct state *st, char *why, size_t len)
{
	const struct pf_ctx *ctx = st->ctx;
	const struct pf_gpu_provider *gpu = ctx->prov->gpu;
	char *err = NULL;
	int v, r;

	v = gpu->verbs_dmabuf(ctx, &err);
	free(err);
	err = NULL;
	if (v < 0) {
		snprintf(why, len, "no peer-memory module, DMA-BUF registration unknown");
		return -1;
	}
	if (v == 0) {
		snprintf(why, len, "no peer-memory module, and the RDMA devices refuse DMA-BUF");
		return 0;
	}
	r = gpu->cuda_dmabuf(ctx, st->node->pci[st->node->gpus[0].pci].bdf, &err);
	free(err);
	if (r < 0) {
		snprintf(why, len, "no peer-memory module, CUDA's DMA-BUF support unknown");
		return -1;
	}
	snprintf(why, len, "DMA-BUF: the RDMA devices register it, CUDA %s it",
		 r ? "exports" : "does not export");
	return r ? 1 : 0;
}

static bool dmabuf_disabled(const struct state *st)
{
	const char *v = value(st, "NCCL_DMABUF_ENABLE");

	return v && v[0] && nccl_int(v) == 0;
}

/* 1 GPUDirect RDMA works, 0 it does not, -1 unknown; *why says what decided. */
static int gdr_works(const struct state *st, char *why, size_t len)
{
	if (peermem_loaded(st->ctx)) {
		snprintf(why, len, "the peer-memory module is loaded");
		return 1;
	}
	if (dmabuf_disabled(st)) {
		snprintf(why, len, "no peer-memory module, and NCCL_DMABUF_ENABLE=0 turns the "
			 "DMA-BUF path off");
		return 0;
	}
	return dmabuf_works(st, why, len);
}

/* NCCL's path types, nearest first (topoPathTypeStr, src/graph/topo.cc). */
enum { NP_LOC, NP_NVL, NP_NVB, NP_C2C, NP_PIX, NP_PXB, NP_P2C, NP_PXN, NP_PHB, NP_SYS };
static const char *const nccl_path[] = { "LOC", "NVL", "NVB", "C2C", "PIX",
					 "PXB", "P2C", "PXN", "PHB", "SYS" };

/*
 * ncclGetLevel (src/graph/paths.cc): a path name, exactly as NCCL spells it, else
 * the old numbering when it starts with a digit (0 LOC, 1 PIX, 2 PXB, 3 PHB,
 * 4 and above SYS); anything else leaves NCCL's default.  -1: unset or ignored.
 */
static int gdr_level(const char *s)
{
	static const int old[] = { NP_LOC, NP_PIX, NP_PXB, NP_PHB, NP_SYS, NP_SYS };
	long v;

	if (!s)
		return -1;
	for (int i = 0; i <= NP_SYS; i++)
		if (!strcmp(s, nccl_path[i]))
			return i;
	if (s[0] < '0' || s[0] > '9')
		return -1;
	v = strtol(s, NULL, 0);
	return old[v < 0 ? 0 : v > 5 ? 5 : v];
}

/*
 * Our class of a GPU/NIC pair as NCCL's path type (NCCL calls NODE PHB); -1
 * unknown.  A Grace superchip's GPU (NVLink-C2C to its CPU) and a NIC below
 * that CPU's root complex are P2C: ncclTopoComputePaths() (src/graph/paths.cc)
 * merges the GPU's C2C hop to its CPU and the NIC's PHB path to it into
 * PATH_P2C (mergePathType()).
 */
static int nccl_path_of(const struct pf_pci_dev *gpu, enum pf_path_class c)
{
	switch (c) {
	case PF_PATH_PIX:
		return NP_PIX;
	case PF_PATH_PXB:
		return NP_PXB;
	case PF_PATH_PHB:
	case PF_PATH_NODE:
		return pf_gpu_is_superchip(gpu) ? NP_P2C : NP_PHB;
	case PF_PATH_SYS:
		return NP_SYS;
	default:
		return -1;
	}
}

/* The nearest GPU's NCCL path type from RDMA device i, -1 unknown. */
static int rail_path(const struct state *st, size_t i)
{
	const struct pf_node *node = st->node;
	const struct pf_rdma_dev *d = &node->rdma[i];
	int best = -1;

	if (d->pci < 0 || !node->pci[d->pci].path)
		return -1;
	for (size_t g = 0; g < node->n_gpus; g++) {
		const struct pf_pci_dev *gp = &node->pci[node->gpus[g].pci];
		const struct pf_pci_dev *np = &node->pci[d->pci];
		enum pf_path_class c;
		int t;

		if (!gp->path || pf_node_path_classify(node, gp, gp->numa_node, np,
						       np->numa_node, &c) < 0)
			continue;
		t = nccl_path_of(gp, c);
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

static bool rail_active(const struct state *st, size_t i)
{
	for (size_t j = 0; st->compute[i] && j < st->node->rdma[i].n_ports; j++)
		if (port_usable(&st->node->rdma[i].ports[j]))
			return true;
	return false;
}

/* Whether an active compute rail is P2C to its nearest GPU (a Grace GPU's own NIC). */
static bool has_p2c_rail(const struct state *st)
{
	for (size_t i = 0; i < st->node->n_rdma; i++)
		if (rail_active(st, i) && rail_path(st, i) == NP_P2C)
			return true;
	return false;
}

/*
 * NCCL_VERSION_CODE (major*10000 + minor*100 + patch) of the releases that
 * changed NCCL_NET_GDR_C2C (src/graph/paths.cc): 2.26 added it, off by
 * default; 2.27 turned it on, so GPUDirect RDMA is used up to P2C.
 */
#define NCCL_C2C_PARAM 22600
#define NCCL_C2C_DEFAULT_ON 22700

/*
 * The level ncclTopoCheckGdr() uses when NCCL_NET_GDR_LEVEL is not set: P2C
 * when NCCL_NET_GDR_C2C is on, else PXB.  @c2c: the variable's value, or NULL
 * for NCCL's own default.
 */
static int default_gdr_level(int version, const char *c2c)
{
	bool on;

	if (version < NCCL_C2C_PARAM)
		return NP_PXB; /* no such parameter, no P2C level */
	on = version >= NCCL_C2C_DEFAULT_ON;
	if (c2c && c2c[0])
		on = nccl_int(c2c) != 0;
	return on ? NP_P2C : NP_PXB;
}

struct gdr_loss {
	size_t n_on;        /* rails where NCCL's default uses GPUDirect RDMA */
	size_t n_lost;      /* of those, rails the level turns it off on */
	int worst;          /* the farthest lost rail's path type */
	char lost[256];
};

/*
 * NCCL uses GDR on a pair iff its path type <= the level (ncclTopoCheckGdr(),
 * src/graph/paths.cc).  A rail loses it to @level only where NCCL's default
 * (@on_level: PXB, or P2C with NCCL_NET_GDR_C2C on) would have used it: a rail
 * beyond that, or whose path is unknown, is not counted whatever the level
 * (LOC, 0, NVL and C2C included).
 */
static void gdr_losses(const struct state *st, int on_level, int level, struct gdr_loss *l)
{
	memset(l, 0, sizeof(*l));
	l->worst = -1;
	for (size_t i = 0; i < st->node->n_rdma; i++) {
		int t = rail_path(st, i);
		size_t len = strlen(l->lost);

		if (!rail_active(st, i))
			continue;
		if (t < 0 || t > on_level)
			continue; /* unknown, or off by default too */
		l->n_on++;
		if (t <= level)
			continue;
		l->n_lost++;
		l->worst = t > l->worst ? t : l->worst;
		snprintf(l->lost + len, sizeof(l->lost) - len, "%s%s", len ? ", " : "",
			 st->node->rdma[i].name);
	}
}

/*
 * What the settings do to GPUDirect RDMA: @name the variable that decides
 * (NCCL_NET_GDR_LEVEL replaces NCCL_NET_GDR_C2C's default), @on_level NCCL's
 * default level, @level the one in force.  @version: the installed NCCL's, 0
 * when not needed (no P2C rail), -errno when it could not be read (*vwhy).
 */
struct gdr_setting {
	const char *name;
	int on_level, level, version;
	const char *vwhy;
};

static void gdr_verdict(struct state *st, const struct gdr_setting *g)
{
	bool user = !strcmp(g->name, "NCCL_NET_GDR_LEVEL");
	struct gdr_loss l;
	struct pf_finding *f;
	char why[160], paths[64], how[96];
	int works;

	gdr_losses(st, g->on_level, g->level, &l);
	if (user)
		snprintf(how, sizeof(how), "NCCL takes it as %s", nccl_path[g->level]);
	else
		snprintf(how, sizeof(how), "NCCL's level is %s with it", nccl_path[g->level]);
	if (!l.n_lost) {
		var_finding(st, PF_STATUS_PASS, g->name, "%s: GPUDirect RDMA stays on wherever its "
			    "default uses it", how);
		return;
	}
	snprintf(paths, sizeof(paths), "the nearest GPU is at %s", nccl_path[l.worst]);
	works = gdr_works(st, why, sizeof(why));
	if (works == 0) {
		var_finding(st, PF_STATUS_PASS, g->name, "GPUDirect RDMA is off, and does not work "
			    "here anyway (%s; see nvidia_peermem)", why);
		return;
	}
	if (g->version < 0) {
		/* the P2C rails count only from NCCL 2.27: which one is installed decides */
		f = var_finding(st, PF_STATUS_WARN, g->name, "%s; the installed NCCL's version is "
				"unknown (%s): NCCL 2.27 and later use GPUDirect RDMA on a Grace "
				"GPU's own NICs (P2C) by default, so %zu rails may lose it (%s)",
				how, g->vwhy, l.n_lost, l.lost);
		pf_code(f, 7);
		pf_obs_str(f, "level", nccl_path[g->level]);
		pf_obs_str(f, "rails_without_gdr", l.lost);
		pf_remedy(f, "record the NCCL version (preflight/nccl/version) or run where NCCL "
			  "loads; unset %s where it is set (%s)", g->name, origin(st, g->name));
		return;
	}
	f = var_finding(st, works == 1 && l.n_lost == l.n_on ? PF_STATUS_FAIL : PF_STATUS_WARN,
			g->name, "%s, uses GPUDirect RDMA only up to that path, and "
			"%s on %zu of %zu rails (%s): GPUDirect RDMA is off there %s%s); transfers "
			"stage through host memory, typically 30-60%% lower all-reduce bandwidth",
			how, paths, l.n_lost, l.n_on, l.lost, works == 1 ? "although it works here (" :
			"(whether it would work is unknown: ", why);
	pf_code(f, 8);
	pf_obs_str(f, "level", nccl_path[g->level]);
	pf_obs_str(f, "rails_without_gdr", l.lost);
	pf_obs_str(f, "path", nccl_path[l.worst]);
	if (g->version > 0)
		pf_obs_num(f, "nccl_version", g->version);
	if (user)
		pf_remedy(f, "unset NCCL_NET_GDR_LEVEL where it is set (%s); NCCL's default uses "
			  "GPUDirect RDMA up to PXB (P2C on C2C systems)", origin(st, g->name));
	else
		pf_remedy(f, "unset NCCL_NET_GDR_C2C where it is set (%s); NCCL 2.27 and later use "
			  "GPUDirect RDMA on a Grace GPU's own NICs (P2C) by default",
			  origin(st, g->name));
}

/*
 * NCCL_NET_GDR_LEVEL, and NCCL_NET_GDR_C2C when no level replaces it.  Only a
 * node with P2C rails (Grace superchips) needs the installed NCCL's version:
 * elsewhere P2C and PXB admit the same rails, so every NCCL judges alike.
 */
static void judge_gdr_level(struct state *st)
{
	const char *c2c = value(st, "NCCL_NET_GDR_C2C");
	int level = gdr_level(value(st, "NCCL_NET_GDR_LEVEL"));
	struct gdr_setting g = { .name = level >= 0 ? "NCCL_NET_GDR_LEVEL" : "NCCL_NET_GDR_C2C" };
	pf_autofree char *vwhy = NULL;

	if (level >= 0 && c2c)
		var_finding(st, PF_STATUS_PASS, "NCCL_NET_GDR_C2C", "NCCL_NET_GDR_LEVEL replaces "
			    "it (ncclTopoCheckGdr())");
	if (level < 0 && !c2c)
		return;
	if (!has_p2c_rail(st)) {
		if (level < 0) {
			var_finding(st, PF_STATUS_PASS, g.name, "no GPU shares a Grace CPU with "
				    "a NIC (no P2C path): it changes nothing here");
			return;
		}
		g.on_level = NP_PXB;
		g.level = level;
		gdr_verdict(st, &g);
		return;
	}
	g.version = st->ctx->prov->gpu->nccl_version(st->ctx, &vwhy);
	g.vwhy = vwhy ? vwhy : "";
	/* unknown: judged as 2.27 would, and said to be unknown */
	g.on_level = default_gdr_level(g.version < 0 ? NCCL_C2C_DEFAULT_ON : g.version, NULL);
	g.level = level >= 0 ? level
			     : default_gdr_level(g.version < 0 ? NCCL_C2C_DEFAULT_ON : g.version, c2c);
	gdr_verdict(st, &g);
}
/* NCCL_NET_GDR_READ=0: sends stage through host memory; a tuning knob, never a drain. */
static void judge_gdr_read(struct state *st)
{
	const char *name = "NCCL_NET_GDR_READ", *v = value(st, name);
	struct pf_finding *f;
	char why[160];
	int works;

	if (!v || !v[0] || nccl_int(v) != 0)
		return;
	works = gdr_works(st, why, sizeof(why));
	if (works == 0) {
		var_finding(st, PF_STATUS_PASS, name, "GPUDirect RDMA does not work here anyway "
			    "(%s)", why);
		return;
	}
	f = var_finding(st, PF_STATUS_WARN, name, "sends do not read GPU memory directly%s (%s): "
			"each send is copied to host memory first", works == 1 ?
			" although GPUDirect RDMA works" : "; whether they could is unknown", why);
	pf_code(f, 9);
	pf_remedy(f, "unless disabled on purpose (a tuning choice), unset it where it is set (%s)",
		  origin(st, name));
}

/* NCCL_DMABUF_ENABLE=0 (src/init.cc): without a peer-memory module, GPUDirect RDMA is off. */
static void judge_dmabuf(struct state *st)
{
	const char *name = "NCCL_DMABUF_ENABLE";
	struct pf_finding *f;
	char why[160];
	int works;

	if (!dmabuf_disabled(st))
		return;
	if (peermem_loaded(st->ctx)) {
		var_finding(st, PF_STATUS_PASS, name, "the peer-memory module carries GPUDirect RDMA");
		return;
	}
	works = dmabuf_works(st, why, sizeof(why));
	if (works == 0) {
		var_finding(st, PF_STATUS_PASS, name, "the DMA-BUF path does not work here anyway "
			    "(%s)", why);
		return;
	}
	f = var_finding(st, works == 1 ? PF_STATUS_FAIL : PF_STATUS_WARN, name, "no peer-memory "
			"module, and the DMA-BUF path is turned off: GPUDirect RDMA is off on every "
			"rail (%s%s)", why, works == 1 ? "" : "; whether it would work is unknown");
	pf_code(f, 10);
	pf_remedy(f, "unset NCCL_DMABUF_ENABLE where it is set (%s), or load nvidia_peermem",
		  origin(st, name));
}

static void judge_gdr(struct state *st)
{
	static const char *const names[] = { "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_C2C",
					     "NCCL_NET_GDR_READ", "NCCL_DMABUF_ENABLE" };

	if (!st->node->n_gpus || !st->n_active) {
		for (size_t i = 0; i < PF_ARRAY_SIZE(names); i++)
			if (value(st, names[i]))
				var_finding(st, PF_STATUS_PASS, names[i], "%s", st->node->n_gpus ?
					    "no active RDMA rail: nothing to lose" :
					    "no GPU: nothing to lose");
		return;
	}
	judge_gdr_level(st);
	judge_gdr_read(st);
	judge_dmabuf(st);
}

/* Evidence that an external net plugin (aws-ofi-nccl, UCX, ...) carries NCCL's traffic. */
static const char *net_plugin(const struct state *st)
{
	static const char *const libs[] = {
		"/opt/amazon/ofi-nccl/lib/libnccl-net.so", "/opt/amazon/ofi-nccl/lib64/libnccl-net.so",
		"/usr/lib/x86_64-linux-gnu/libnccl-net.so", "/usr/lib/aarch64-linux-gnu/libnccl-net.so",
		"/usr/lib64/libnccl-net.so", "/usr/local/lib/libnccl-net.so",
	};
	const char *plugin = value(st, "NCCL_NET_PLUGIN"), *net = value(st, "NCCL_NET");

	if (plugin && plugin[0] && strcasecmp(plugin, "none"))
		return "NCCL_NET_PLUGIN";
	if (net && net[0] && strcasecmp(net, "IB") && strcasecmp(net, "Socket"))
		return "NCCL_NET";
	for (size_t i = 0; i < PF_ARRAY_SIZE(libs); i++)
		if (pf_fs_exists(st->ctx->fs, libs[i]) == 1)
			return libs[i];
	return NULL;
}

/* NCCL_IB_DISABLE=1 means TCP only with NCCL's own transports; NCCL_NET=Socket always. */
static void judge_ib_disable(struct state *st)
{
	const char *v = value(st, "NCCL_IB_DISABLE"), *net = value(st, "NCCL_NET");
	const char *name = net && !strcasecmp(net, "Socket") ? "NCCL_NET" :
			   v && v[0] && nccl_int(v) != 0 ? "NCCL_IB_DISABLE" : NULL;
	const char *plugin = name && !strcmp(name, "NCCL_IB_DISABLE") ? net_plugin(st) : NULL;
	struct pf_finding *f;

	if (!name)
		return;
	if (!st->n_active) {
		var_finding(st, PF_STATUS_PASS, name, "no active RDMA rail");
		return;
	}
	if (plugin) {
		var_finding(st, PF_STATUS_PASS, name, "an external net plugin (%s) carries "
			    "inter-node traffic; NCCL's own IB transport is not used", plugin);
		return;
	}
	f = var_finding(st, PF_STATUS_FAIL, name, "NCCL's RDMA transport is off on a node with "
			"%zu active RDMA rails: inter-node traffic goes over TCP sockets, a fraction "
			"of the fabric's bandwidth", st->n_active);
	pf_code(f, 11);
	pf_remedy(f, "unset %s where it is set (%s)", name, origin(st, name));
}

static void judge_p2p(struct state *st)
{
	const struct pf_node *node = st->node;
	const char *dis = value(st, "NCCL_P2P_DISABLE"), *lvl = value(st, "NCCL_P2P_LEVEL");
	const char *name = dis && dis[0] && nccl_int(dis) == 1 ? "NCCL_P2P_DISABLE" :
			   lvl && (!strcmp(lvl, "LOC") || !strcmp(lvl, "0")) ? "NCCL_P2P_LEVEL" : NULL;
	size_t nvswitch = 0;
	struct pf_finding *f;

	if (!name)
		return;
	for (size_t i = 0; i < node->n_pci; i++)
		nvswitch += node->pci[i].vendor == PF_PCI_VENDOR_NVIDIA &&
			    (node->pci[i].class >> 8) == 0x0680;
	if (node->n_gpus < 2) {
		var_finding(st, PF_STATUS_PASS, name, "fewer than 2 GPUs: nothing to lose");
	} else if (nvswitch) {
		f = var_finding(st, PF_STATUS_FAIL, name, "GPU peer-to-peer is off on an NVSwitch "
				"system (%zu NVSwitches, %zu GPUs): intra-node traffic leaves NVLink "
				"for host memory, an order of magnitude slower", nvswitch, node->n_gpus);
		pf_code(f, 12);
		pf_remedy(f, "unset %s where it is set (%s)", name, origin(st, name));
	} else {
		f = var_finding(st, PF_STATUS_WARN, name, "GPU peer-to-peer is off with %zu GPUs: "
				"traffic between them goes through host memory (NVLink bridges, if "
				"any, are unused)", node->n_gpus);
		pf_code(f, 13);
		pf_remedy(f, "unset %s unless P2P is broken on this platform (ACS, IOMMU)", name);
	}
}

/* --- NCCL_SOCKET_IFNAME, NCCL_TOPO_FILE ------------------------------------ */

static bool netdev_up(const struct pf_netdev *nd)
{
	return nd->operstate &&
	       (!strcmp(nd->operstate, "up") || !strcmp(nd->operstate, "unknown"));
}

/*
 * NCCL binds its bootstrap to the first selected interface that has an
 * address of NCCL_SOCKET_FAMILY (ncclFindInterfaces, src/os/linux.cc: it
 * walks getifaddrs() and keeps a family's addresses only).  Interfaces that
 * are up but carry no IPv4 address fail with AF_INET and warn unset (an IPv6
 * address, which preflight does not read, may serve).  true when judged.
 */
static bool judge_socket_family(struct state *st, const struct pf_nccl_iflist *l)
{
	const struct pf_node *node = st->node;
	const char *fam = value(st, "NCCL_SOCKET_FAMILY");
	bool v4_only = fam && !strcmp(fam, "AF_INET");
	size_t n_known = 0, n_v4 = 0;
	struct pf_finding *f;

	if (fam && !v4_only)
		return false; /* AF_INET6 (or a word NCCL ignores): not judged */
	for (size_t i = 0; i < node->n_netdevs; i++) {
		const struct pf_netdev *nd = &node->netdevs[i];
		struct pf_ipv4_addrs a = { 0 };

		if (!netdev_up(nd) || !strcmp(nd->name, "lo") ||
		    !pf_nccl_iflist_selects(l, nd->name, -1) ||
		    st->ctx->prov->ipv4_addrs(st->ctx, nd->name, &a) < 0)
			continue;
		n_known++;
		n_v4 += a.n > 0;
	}
	if (!n_known || n_v4)
		return false;
	f = var_finding(st, v4_only ? PF_STATUS_FAIL : PF_STATUS_WARN, "NCCL_SOCKET_IFNAME",
			"selects interfaces that are up but have no IPv4 address%s: NCCL's bootstrap "
			"%s", v4_only ? " (NCCL_SOCKET_FAMILY=AF_INET)" : "",
			v4_only ? "finds no interface and the job fails at init"
				: "needs an IPv6 address on them (not read by preflight)");
	pf_code(f, 14);
	pf_remedy(f, "give the interface an address (`ip -br addr`) or select one that has it");
	return true;
}

static void judge_socket(struct state *st)
{
	const struct pf_node *node = st->node;
	const char *v = value(st, "NCCL_SOCKET_IFNAME");
	struct pf_nccl_iflist l;
	char up[256] = "", down[256] = "";
	size_t n_up = 0, n_down = 0;
	struct pf_finding *f;
	bool lo_first = false;

	if (!v)
		return;
	if (strlen(v) < 2) { /* ncclFindInterfaces: only a value of 2+ characters is the user's */
		var_finding(st, PF_STATUS_PASS, "NCCL_SOCKET_IFNAME", "NCCL ignores a value this "
			    "short and picks the interface itself");
		return;
	}
	pf_nccl_iflist_parse(v, &l);
	for (size_t i = 0; i < node->n_netdevs; i++) {
		const struct pf_netdev *nd = &node->netdevs[i];
		char *buf = netdev_up(nd) ? up : down;
		size_t len = strlen(buf);

		if (!pf_nccl_iflist_selects(&l, nd->name, -1))
			continue;
		/* only NCCL's default list skips lo; lo is ifindex 1, found first */
		lo_first |= netdev_up(nd) && !strcmp(nd->name, "lo");
		snprintf(buf + len, sizeof(up) - len, "%s%s", len ? ", " : "", nd->name);
		*(netdev_up(nd) ? &n_up : &n_down) += 1;
	}
	if (lo_first) {
		f = var_finding(st, PF_STATUS_WARN, "NCCL_SOCKET_IFNAME", "selects lo (a list set by "
				"the user does not skip it): NCCL's bootstrap binds to the first "
				"interface it finds, lo, and other nodes cannot reach it (selected: %s)",
				up);
		pf_code(f, 15);
		pf_remedy(f, "add lo to the '^' list (NCCL_SOCKET_IFNAME=^lo,docker) or name the "
			  "interface");
		return;
	}
	if (n_up && judge_socket_family(st, &l))
		return;
	if (n_up) {
		f = var_finding(st, PF_STATUS_PASS, "NCCL_SOCKET_IFNAME", "selects %s (up)", up);
		pf_obs_str(f, "up", up);
		if (n_down)
			pf_obs_str(f, "down", down);
		return;
	}
	f = var_finding(st, PF_STATUS_FAIL, "NCCL_SOCKET_IFNAME", "%s%s: NCCL's bootstrap finds no "
			"interface and the job fails at init (\"no socket interface found\")",
			n_down ? "selects only interfaces that are down: " : "selects no interface",
			down);
	pf_code(f, 16);
	pf_remedy(f, "name an interface of `ip -br link` that is up (NCCL's syntax: a prefix, "
		  "'=' exact, '^' excludes)");
}

/* The GPUs (class 03) and NICs (class 02) an NCCL topology XML names. */
static void judge_topo_xml(struct state *st, const char *xml)
{
	char missing[256] = "";
	size_t named = 0, absent = 0;
	struct pf_finding *f;

	for (const char *p = strstr(xml, "<pci "); p; p = strstr(p + 1, "<pci ")) {
		const char *end = strchr(p, '>'), *b = strstr(p, "busid=\""), *c = strstr(p, "class=\"");
		char busid[32], bdf[16];
		size_t len;

		if (!end || !b || b > end)
			continue;
		if (c && c < end && strncmp(c + 7, "0x03", 4) && strncmp(c + 7, "0x02", 4))
			continue; /* bridges may be virtual (ffff:ff:...) */
		len = strcspn(b + 7, "\"");
		snprintf(busid, sizeof(busid), "%.*s", (int)(len < 31 ? len : 31), b + 7);
		named++;
		if (pf_bdf_normalize(busid, bdf) == 0 && pf_node_pci(st->node, bdf))
			continue;
		absent++;
		len = strlen(missing);
		snprintf(missing + len, sizeof(missing) - len, "%s%s", len ? ", " : "", busid);
	}
	if (absent) {
		f = var_finding(st, PF_STATUS_FAIL, "NCCL_TOPO_FILE", "names %zu of %zu GPUs/NICs that "
				"are not on this node's PCI bus (%s): NCCL builds its rings and trees "
				"from a topology that is not this node's", absent, named, missing);
		pf_code(f, 17);
		pf_remedy(f, "use the topology file of this machine type (or dump one with "
			  "NCCL_TOPO_DUMP_FILE on a good node)");
	} else {
		var_finding(st, PF_STATUS_PASS, "NCCL_TOPO_FILE", "readable; %zu GPUs/NICs named, all "
			    "present", named);
	}
}

static void judge_topo(struct state *st)
{
	const char *v = value(st, "NCCL_TOPO_FILE");
	pf_autofree char *xml = NULL;
	struct pf_finding *f;
	int r;

	if (!v || !v[0])
		return;
	if (v[0] != '/') {
		f = var_finding(st, PF_STATUS_WARN, "NCCL_TOPO_FILE", "a relative path: it depends on "
				"the job's working directory");
		pf_code(f, 18);
		pf_remedy(f, "use an absolute path");
		return;
	}
	/* a snapshot copies the file whenever the recorded environment names it */
	/* with the job user's rights: root must not read (and judge) what only root may */
	r = st->job.user_known ? pf_fs_read_as(st->ctx->fs, v, st->job.user.uid, st->job.user.gids,
					   st->job.user.n_gids, 4u << 20, &xml, NULL, NULL)
			   : pf_fs_read_full(st->ctx->fs, v, 4u << 20, &xml, NULL);
	if (r < 0) {
		f = var_finding(st, PF_STATUS_FAIL, "NCCL_TOPO_FILE", "cannot be read (%s): NCCL "
				"ignores it silently and detects the topology itself", strerror(-r));
		pf_code(f, 19);
		pf_remedy(f, "install the file or fix the path where it is set (%s)",
			  origin(st, "NCCL_TOPO_FILE"));
		return;
	}
	if (!strstr(xml, "<system")) {
		var_finding(st, PF_STATUS_WARN, "NCCL_TOPO_FILE", "readable but not an NCCL topology "
			    "(no <system> element)");
		pf_code(pf_last(st->res), 20);
		return;
	}
	judge_topo_xml(st, xml);
}

/* --- /dev/infiniband ------------------------------------------------------- */

static void judge_node(struct state *st, const struct pf_devnodes *dn, const char *name,
		       const char *what, enum pf_status bad)
{
	const struct pf_devnode *n = pf_devnodes_find(dn, name);
	char subject[96];
	struct pf_finding *f;

	snprintf(subject, sizeof(subject), "/dev/infiniband/%s", name);
	if (!n || n->type != 'c') {
		f = pf_add(st->res, bad, subject, "%s: %s", what, n ? "not a character device" :
			   "missing: a job cannot open it (a container or device plugin that did "
			   "not pass it, or ib_uverbs/rdma_ucm not loaded)");
		pf_code(f, 21);
		pf_remedy(f, "pass every /dev/infiniband/uverbs<N> and rdma_cm to the job (device "
			  "plugin / container --device), or modprobe ib_uverbs rdma_ucm");
		return;
	}
	if (st->job.user_known ? pf_job_user_can_rw(&st->job.user, n->uid, n->gid, n->mode)
			   : (n->mode & 0006) == 0006) {
		f = pf_add(st->res, PF_STATUS_PASS, subject, "%s: mode %04o, openable by %s", what,
			   n->mode, st->job.user_known ? "the job's user" : "everyone");
	} else if (!st->job.user_known) {
		f = pf_add(st->res, PF_STATUS_SKIP, subject, "%s: mode %04o, owner %u, group %u: "
			   "whether the job's user may open it depends on who that is (not recorded)",
			   what, n->mode, n->uid, n->gid);
	} else if (n->acl) {
		f = pf_add(st->res, PF_STATUS_WARN, subject, "%s: mode %04o (owner %u, group %u) does "
			   "not let uid %u open it; an ACL may (not evaluated)", what, n->mode, n->uid,
			   n->gid, st->job.user.uid);
		pf_code(f, 22);
		pf_remedy(f, "getfacl %s", subject);
	} else {
		f = pf_add(st->res, bad, subject, "%s: mode %04o, owner %u, group %u: uid %u (groups "
			   "%zu) cannot open it for reading and writing", what, n->mode, n->uid, n->gid,
			   st->job.user.uid, st->job.user.n_gids);
		pf_code(f, 23);
		pf_remedy(f, "rdma-core's udev rules make it 0666; or add the job's user to group %u",
			  n->gid);
	}
	pf_obs_num(f, "mode", n->mode);
	pf_obs_num(f, "uid", n->uid);
	pf_obs_num(f, "gid", n->gid);
}

static void judge_devnodes(struct state *st)
{
	const struct pf_ctx *ctx = st->ctx;
	const struct pf_node *node = st->node;
	struct pf_devnodes dn = { 0 };
	pf_autostrv char **verbs = NULL, **ibdevs = NULL;
	bool live = pf_prov_can(ctx, PF_PROV_NODE);
	int n, r;

	if (!node->n_rdma)
		return;
	r = ctx->prov->devnodes(ctx, "/dev/infiniband", &dn);
	if (r < 0 && (r != -ENOENT || !live)) {
		pf_add(st->res, PF_STATUS_SKIP, "/dev/infiniband", "device nodes not %s (%s): "
		       "uverbs/rdma_cm not judged", live ? "listed" : "recorded", strerror(-r));
		return;
	}
	n = pf_fs_list(ctx->fs, "/sys/class/infiniband_verbs", &verbs);
	if (n < 0 && !live) {
		pf_add(st->res, PF_STATUS_SKIP, "/dev/infiniband", "/sys/class/infiniband_verbs not "
		       "recorded: which uverbs belongs to which device is unknown");
		pf_devnodes_release(&dn);
		return;
	}
	/* uverbs<N> -> its RDMA device, read once */
	ibdevs = pf_xcalloc((size_t)(n > 0 ? n : 0) + 1, sizeof(*ibdevs));
	for (int k = 0; k < n; k++)
		if (pf_fs_readf_line(ctx->fs, &ibdevs[k], "/sys/class/infiniband_verbs/%s/ibdev",
				     verbs[k]) < 0)
			ibdevs[k] = pf_xstrdup(""); /* keeps the vector NULL-terminated at n */
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];
		const char *uv = NULL;
		char what[128];
		bool used = false;

		for (size_t j = 0; j < d->n_ports; j++)
			used = used || pf_nccl_iflist_selects(&st->hca, d->name, (int)d->ports[j].num);
		if (!used)
			continue; /* excluded by NCCL_IB_HCA */
		for (int k = 0; k < n && !uv; k++)
			if (!strcmp(ibdevs[k], d->name))
				uv = verbs[k];
		if (!uv) {
			struct pf_finding *f = pf_add(st->res, PF_STATUS_FAIL, d->name, "no uverbs "
						      "device for %s: ib_uverbs is not loaded or "
						      "the driver did not register it", d->name);
			pf_code(f, 24);

			pf_remedy(f, "modprobe ib_uverbs; check dmesg for the driver of %s", d->name);
			continue;
		}
		snprintf(what, sizeof(what), "verbs device of %s", d->name);
		judge_node(st, &dn, uv, what, PF_STATUS_FAIL);
	}
	if (strcmp(st->cfg->rdma_cm, "ignore"))
		judge_node(st, &dn, "rdma_cm", "RDMA-CM (not opened by NCCL; UCX, MPI, NVSHMEM)",
			   !strcmp(st->cfg->rdma_cm, "fail") ? PF_STATUS_FAIL : PF_STATUS_WARN);
	pf_devnodes_release(&dn);
}

/* --- the check ----------------------------------------------------------- */

static void judge_oddities(struct state *st)
{
	for (size_t i = 0; i < st->job.conf.n_odd; i++) {
		struct pf_finding *f = pf_add(st->res, PF_STATUS_WARN, st->job.conf.odd[i].origin,
					      "\"%s = ...\": NCCL reads NAME=VALUE with nothing "
					      "trimmed; this line sets nothing NCCL reads",
					      st->job.conf.odd[i].text);
		pf_code(f, 25);

		pf_remedy(f, "write it as NAME=VALUE without blanks around '='");
	}
}

static void report_config(struct state *st)
{
	struct pf_finding *f;
	size_t n = 0;

	for (size_t i = 0; i < st->job.conf.n; i++)
		n += !strncmp(st->job.conf.vars[i].name, "NCCL_", 5);
	if (!n) {
		f = pf_add(st->res, PF_STATUS_PASS, "config", "NCCL defaults: nothing set in %s%s",
			   st->job.env_judged ? "the environment, " : "", st->job.conf.n_files > 1 ?
			   "the user's file or /etc/nccl.conf" : "/etc/nccl.conf");
	} else {
		f = pf_add(st->res, PF_STATUS_PASS, "config", "%zu NCCL setting%s in effect", n,
			   n == 1 ? "" : "s");
		for (size_t i = 0; i < st->job.conf.n; i++) {
			pf_autofree char *v = NULL;

			if (strncmp(st->job.conf.vars[i].name, "NCCL_", 5))
				continue; /* not NCCL's: never quoted (the file may be a secret) */
			v = pf_xasprintf("%s (%s)", st->job.conf.vars[i].value, st->job.conf.vars[i].origin);
			pf_obs_str(f, st->job.conf.vars[i].name, v);
		}
	}
	for (size_t i = 0; i < st->job.conf.n_files; i++) {
		const struct pf_nccl_conf_file *cf = &st->job.conf.files[i];
		pf_autofree char *s = pf_xasprintf("%s%s", cf->status == 0 ? "read" :
						   cf->status == -ENOENT ? "absent" : "unreadable: ",
						   cf->status == 0 || cf->status == -ENOENT ? "" :
						   strerror(-cf->status));

		pf_obs_str(f, cf->path, s);
	}
	pf_obs_bool(f, "environment_judged", st->job.env_judged);
	if (st->job.user_known)
		pf_obs_num(f, "job_uid", st->job.user.uid);
}

/* --- NCCL_MNNVL_ENABLE against the NVLink fabric (issue 33) ---------------- */

/*
 * Whether every GPU is ready for multi-node NVLink as NCCL's checkMNNVL
 * (src/init.cc) tests it: fabric state completed and a non-zero cluster
 * UUID on each.  1 ready, 0 not (@why names the first GPU and why),
 * -1 unknown (the fabric state not queried or not recorded).
 */
static int mnnvl_ready(const struct state *st, char *why, size_t len)
{
	for (size_t i = 0; i < st->node->n_gpus; i++) {
		const char *bdf = st->node->pci[st->node->gpus[i].pci].bdf;
		struct pf_gpu_fabric fab;
		pf_autofree char *err = NULL;

		if (st->ctx->prov->gpu->gpu_fabric(st->ctx, bdf, &fab, &err) < 0) {
			snprintf(why, len, "%s: %s", bdf, err ? err : "fabric state unknown");
			return -1;
		}
		if (!fab.supported) {
			snprintf(why, len, "%s has no NVLink fabric (NVML_ERROR_NOT_SUPPORTED)", bdf);
			return 0;
		}
		if (fab.state != PF_NVML_GPU_FABRIC_STATE_COMPLETED) {
			snprintf(why, len, "%s's fabric registration is %s", bdf,
				 pf_gpu_fabric_state_name(fab.state));
			return 0;
		}
		if (pf_gpu_fabric_uuid_zero(&fab)) {
			snprintf(why, len, "%s's cluster UUID is zero (no NVLink domain)", bdf);
			return 0;
		}
	}
	snprintf(why, len, "every GPU completed in an NVLink domain");
	return 1;
}

/*
 * NCCL_MNNVL_ENABLE (NCCL_PARAM MNNVLEnable, default 2: auto): 1 makes a
 * multi-node communicator fail ("MNNVL is not supported on this system")
 * when the fabric is not ready; 0 turns a ready domain's NVLink between
 * trays off (traffic goes over the network).  Unset or 2: NCCL decides,
 * nothing to judge.
 */
static void judge_mnnvl(struct state *st)
{
	const char *v = value(st, "NCCL_MNNVL_ENABLE");
	struct pf_finding *f;
	char why[192];
	long long n;
	int ready;

	if (!v)
		return;
	n = nccl_int(v);
	if (n != 0 && n != 1)
		return;
	ready = mnnvl_ready(st, why, sizeof(why));
	if (ready < 0) {
		var_finding(st, PF_STATUS_SKIP, "NCCL_MNNVL_ENABLE", "the NVLink fabric state is "
			    "unknown (%s): not judged", why);
	} else if (n == 1 && !ready) {
		f = var_finding(st, PF_STATUS_FAIL, "NCCL_MNNVL_ENABLE", "multi-node NVLink forced "
				"on, but %s: a multi-node communicator fails with 'MNNVL is not "
				"supported on this system'", why);
		pf_remedy(f, "unset NCCL_MNNVL_ENABLE (NCCL then decides), or fix the fabric as "
			  "nvlink_fabric says");
		pf_code(f, 101);
	} else if (n == 0 && ready) {
		f = var_finding(st, PF_STATUS_WARN, "NCCL_MNNVL_ENABLE", "multi-node NVLink off "
				"although %s: traffic between trays goes over the network", why);
		pf_remedy(f, "unset NCCL_MNNVL_ENABLE unless it works around a known NCCL problem "
			  "(e.g. NVIDIA/nccl#2186)");
		pf_code(f, 102);
	} else {
		var_finding(st, PF_STATUS_PASS, "NCCL_MNNVL_ENABLE", "%s, as the fabric allows (%s)",
			    n ? "on" : "off", why);
	}
}

static int nccl_config_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	struct state st = { .ctx = ctx, .cfg = config, .node = ctx->node, .res = res };
	enum pf_status worst = PF_STATUS_PASS;

	if (!st.node)
		return pf_error(res, -ENODATA, "no node inventory");
	/* a CPU or storage node in the same Slurm cluster: no NCCL job runs here */
	if (!st.node->n_gpus)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus: NCCL does not run on this node");
	pf_nccl_job_conf_load(ctx, judged, PF_ARRAY_SIZE(judged), &st.job);
	find_rails(&st);
	report_config(&st);
	judge_oddities(&st);
	judge_hca(&st);
	judge_gid(&st);
	judge_gdr(&st);
	judge_ib_disable(&st);
	judge_p2p(&st);
	judge_socket(&st);
	judge_topo(&st);
	judge_devnodes(&st);
	judge_mnnvl(&st);
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status != PF_STATUS_SKIP)
			worst = pf_status_worst(worst, res->findings[i].status);
	if (st.job.env_note)
		pf_summary(res, "%s; %s", worst == PF_STATUS_PASS ? "NCCL's settings agree with the "
			   "node" : "NCCL's settings disagree with the node", st.job.env_note);
	pf_nccl_job_conf_release(&st.job);
	free(st.compute);
	return 0;
}

static const struct pf_code nccl_config_codes[] = {
	{ 1, PF_ACTION_RECONFIGURE, "an NCCL_IB_HCA entry matches no RDMA device" },
	{ 2, PF_ACTION_RECONFIGURE, "NCCL_IB_HCA selects none of the active rails: NCCL falls back to sockets" },
	{ 3, PF_ACTION_RECONFIGURE, "NCCL_IB_HCA excludes some active rails" },
	{ 4, PF_ACTION_RECONFIGURE, "NCCL_IB_GID_INDEX names a GID of another address family than the port's RoCE v2 GIDs" },
	{ 5, PF_ACTION_RECONFIGURE, "NCCL_IB_GID_INDEX is not a RoCE v2 GID with an address on a port" },
	{ 6, PF_ACTION_RECONFIGURE, "the right NCCL_IB_GID_INDEX differs between ports: no single value fits" },
	{ 7, PF_ACTION_RECONFIGURE, "an NCCL GPUDirect RDMA level may turn it off on a Grace GPU's NICs (NCCL version unknown)" },
	{ 8, PF_ACTION_RECONFIGURE, "an NCCL GPUDirect RDMA level turns it off on some rails" },
	{ 9, PF_ACTION_RECONFIGURE, "NCCL's sends do not read GPU memory directly (NCCL_NET_GDR_READ)" },
	{ 10, PF_ACTION_RECONFIGURE, "no peer-memory module and the DMA-BUF path is turned off: GPUDirect RDMA is off" },
	{ 11, PF_ACTION_RECONFIGURE, "NCCL's RDMA transport is off on a node with active RDMA rails" },
	{ 12, PF_ACTION_RECONFIGURE, "GPU peer-to-peer is off on an NVSwitch system" },
	{ 13, PF_ACTION_RECONFIGURE, "GPU peer-to-peer is off" },
	{ 14, PF_ACTION_RECONFIGURE, "NCCL_SOCKET_IFNAME selects interfaces that have no IPv4 address" },
	{ 15, PF_ACTION_RECONFIGURE, "NCCL_SOCKET_IFNAME selects lo" },
	{ 16, PF_ACTION_RECONFIGURE, "NCCL_SOCKET_IFNAME selects no interface that is up: the job fails at init" },
	{ 17, PF_ACTION_RECONFIGURE, "NCCL_TOPO_FILE names GPUs or NICs that are not on this node" },
	{ 18, PF_ACTION_RECONFIGURE, "NCCL_TOPO_FILE is a relative path" },
	{ 19, PF_ACTION_RECONFIGURE, "NCCL_TOPO_FILE cannot be read" },
	{ 20, PF_ACTION_RECONFIGURE, "NCCL_TOPO_FILE is not an NCCL topology" },
	{ 21, PF_ACTION_RECONFIGURE, "a device node a job needs (uverbs, rdma_cm) is missing or not a character device" },
	{ 22, PF_ACTION_RECONFIGURE, "a device node's mode does not let the job's user open it (an ACL may)" },
	{ 23, PF_ACTION_RECONFIGURE, "the job's user cannot open a device node for reading and writing" },
	{ 24, PF_ACTION_RELOAD_DRIVER, "an RDMA device has no uverbs device: ib_uverbs is not loaded or did not register it" },
	{ 25, PF_ACTION_RECONFIGURE, "an nccl.conf line sets nothing NCCL reads" },
	{ 101, PF_ACTION_RECONFIGURE, "NCCL_MNNVL_ENABLE=1 where the NVLink fabric is not ready" },
	{ 102, PF_ACTION_RECONFIGURE, "NCCL_MNNVL_ENABLE=0 on a ready multi-node NVLink domain" },
	{ 0 },
};

const struct pf_check pf_check_nccl_config = {
	.name = "nccl_config",
	.summary = "NCCL's configuration files and environment agree with the node",
	.tags = "nccl,rdma,network,static",
	.reads = "the environment (NCCL_*, HOME), NCCL_CONF_FILE or ~/.nccl.conf, /etc/nccl.conf; "
		 "/sys/class/infiniband/<dev>/ports/<p>/{state,link_layer,gids/<i>,"
		 "gid_attrs/types/<i>}; /sys/class/net/<if>/operstate; NCCL_TOPO_FILE; "
		 "/sys/module/{nvidia_peermem,nv_peer_mem}; /sys/class/infiniband_verbs/*/ibdev; "
		 "/dev/infiniband (modes, owners) and the job's user (SLURM_JOB_UID or the real "
		 "uid); with NCCL_MNNVL_ENABLE set, each GPU's NVLink fabric state "
		 "(nvmlDeviceGetGpuFabricInfoV, <root>/preflight/nvml/gpu_fabric)",
	.params = nccl_config_params,
	.codes = nccl_config_codes,
	.cfg_size = sizeof(struct nccl_config_cfg),
	.timeout_s = 15,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nccl_config_run,
};
