// SPDX-License-Identifier: MIT
/*
 * fabric_loopback - RDMA WRITE from one NIC of the node to another, through
 * the cables and the switch, triangulated to a NIC or a pair.
 *
 * gdr_loopback's traffic never leaves the NIC; here every byte crosses two
 * cables and the switch, as AzNHC's ib_write_bw between two HCAs of one
 * node does.  Rails: the ACTIVE ports of the node's main link layer among
 * the compute rails of the rail model (rails.h), in rail order (a storage,
 * front-end or unused port is a skip naming its role); with `nics` set, or
 * when the model found no compute rail, the ports of those devices (else of
 * every physical function), in order.  Round
 * 1 sends i -> i+1, round 2 i -> i+2 (mod N, N > 2): every rail sends and
 * receives at once, all flows of a round together (src/traffic/fabric.c).
 * Each direction is judged against min(port rates) x min_fraction; a rail
 * slow with two or more partners that run at full rate elsewhere is named
 * as the bad end, a lone slow pair names the path between the two (the
 * rounds and that rule: src/pairs/ring.c).  `pairs` lists
 * the flows instead.
 *
 * RoCE connects through librdmacm (bound to each rail's own IPv4 address,
 * rdma_resolve_addr/route to the partner's), so the kernel's ARP, routing
 * and rp_filter decide as they do for NCCL: a resolve that times out is a
 * finding about those.  InfiniBand uses RDMA-CM over IPoIB when every rail
 * has an address, else LID and QPN in-process.  Physical error counters of
 * the participating ports are read before and after each round.
 *
 * Deadline (fabric_loopback_deadline_s): 15 s, plus per round the timed and
 * warm-up WRITEs at 25 Gb/s (or duration_ms) and the fresh-pattern pass,
 * 3 s of setup, two resolve timeouts, a connection timeout and a completion
 * timeout (timeout_ms plus cq_mod WRITEs at 25 Gb/s x min_fraction; a slower
 * port needs duration_ms or --timeout).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/fabric.h"
#include "preflight/gpu_nic.h"
#include "preflight/gpu_provider.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "preflight/pairs.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"
#include "preflight/rdma_select.h"

struct fabric_loopback_cfg {
	uint64_t msg_size, tx_depth, cq_mod, iterations, warmup, duration_ms, timeout_ms;
	uint64_t resolve_timeout_ms, slots;
	double min_fraction, expect_gbps;
	char *pairs;
	char *nics;
	char *use_gpu;
	bool rail_only;
	char *gpu_reg;
	char *connect;
};

static const struct pf_param fabric_loopback_params[] = {
	PF_PARAM_U64(struct fabric_loopback_cfg, msg_size, "1048576", 1, 1073741824, "bytes",
		     "bytes per RDMA WRITE (ib_write_bw -s)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, tx_depth, "128", 1, 8192, "WRs",
		     "WRITEs outstanding per flow (ib_write_bw -t)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, cq_mod, "100", 1, 8192, "WRs",
		     "signal every cq_mod-th WRITE (ib_write_bw -Q; at most tx_depth)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, iterations, "5000", 1, 1e9, "WRs",
		     "timed WRITEs per flow (ib_write_bw -n)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, warmup, "500", 0, 1e9, "WRs",
		     "WRITEs before the timed run"),
	PF_PARAM_U64(struct fabric_loopback_cfg, duration_ms, "0", 0, 600000, "ms",
		     "time each flow by duration instead of iterations (0: iterations)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, timeout_ms, "2000", 10, 60000, "ms",
		     "a flow with no completion (or no connection event) for this long fails"),
	PF_PARAM_U64(struct fabric_loopback_cfg, resolve_timeout_ms, "2000", 10, 60000, "ms",
		     "rdma_resolve_addr / rdma_resolve_route timeout (ARP, path query)"),
	PF_PARAM_U64(struct fabric_loopback_cfg, slots, "4", 2, 64, "slots",
		     "distinct WRITE targets per flow, each msg_size; few keep the working set "
		     "in the CPU caches (as perftest's single buffer does), so that all rails at "
		     "once are not bound by DRAM bandwidth"),
	PF_PARAM_DOUBLE(struct fabric_loopback_cfg, min_fraction, "0.90", 0, 1,
			"of the slower port's rate",
			"a direction below this fraction of min(port rates) fails"),
	PF_PARAM_DOUBLE(struct fabric_loopback_cfg, expect_gbps, "0", 0, 10000, "Gb/s",
			"the rate every rail is held to instead of its port's rate file (a "
			"soft-RoCE rig or a VF whose nominal rate is not what it can carry); 0: "
			"the port's rate"),
	PF_PARAM_STRING(struct fabric_loopback_cfg, pairs, "",
			"explicit flows \"mlx5_0:mlx5_1,mlx5_2/1:mlx5_5/1\" (source:destination, "
			"each run both ways); empty: the two ring rounds over every rail"),
	PF_PARAM_STRING(struct fabric_loopback_cfg, nics, "",
			"the compute rails, as in NCCL_IB_HCA (\"mlx5_0,mlx5_1\"); empty: every "
			"physical function (never a VF)"),
	PF_PARAM_ENUM(struct fabric_loopback_cfg, use_gpu, "auto",
		      "each side in its rail GPU's memory (GPUDirect RDMA across the fabric, the "
		      "path jobs use): auto (on a node with NVIDIA GPUs; host memory, with a "
		      "warning, where CUDA or the registration fails), true (an error then), "
		      "false (host memory on each NIC's NUMA node)",
		      "auto", "true", "false"),
	PF_PARAM_BOOL(struct fabric_loopback_cfg, rail_only, "false",
		      "the fabric is rail-only: rails do not reach each other by design, skip"),
	PF_PARAM_ENUM(struct fabric_loopback_cfg, gpu_reg, "auto",
		      "GPU memory registration: auto (peermem, then DMA-BUF), peermem, dmabuf",
		      "auto", "peermem", "dmabuf"),
	PF_PARAM_ENUM(struct fabric_loopback_cfg, connect, "auto",
		      "how QPs connect: auto (RDMA-CM on RoCE when every rail has an IPv4 "
		      "address, else verbs), cm or rdma_cm, verbs (in-process records: LID/QPN, "
		      "on RoCE the GID NCCL picks: NCCL_IB_GID_INDEX, the RoCE v2 IPv4 GID, "
		      "else the link-local one)",
		      "auto", "cm", "rdma_cm", "verbs"),
	PF_PARAM_END,
};

/* "mlx5_0[/1]" into @name and @port; -EINVAL. */
static int parse_end(const char *s, char *name, size_t len, unsigned int *port)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	uint64_t v = 1;

	if (!n || n >= len || (slash && (pf_parse_u64(slash + 1, &v) < 0 || !v || v > 255)))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = '\0';
	*port = (unsigned int)v;
	return 0;
}

/* Calls @fn for each "a:b" of @list; -EINVAL with the bad item in *ret_bad. */
static int each_pair(const char *list, int (*fn)(void *, const char *, unsigned int, const char *,
						 unsigned int),
		     void *arg, char **ret_bad)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char *colon = strchr(tok, ':');
		char a[64], b[64];
		unsigned int pa, pb;
		int r;

		if (!colon || (*colon = '\0', parse_end(tok, a, sizeof(a), &pa)) ||
		    parse_end(colon + 1, b, sizeof(b), &pb) || (!strcmp(a, b) && pa == pb)) {
			if (colon)
				*colon = ':';
			*ret_bad = pf_xstrdup(tok);
			return -EINVAL;
		}
		r = fn ? fn(arg, a, pa, b, pb) : 0;
		if (r)
			return r;
	}
	return 0;
}

static int fabric_loopback_validate(const void *config, char **ret_err)
{
	const struct fabric_loopback_cfg *cfg = config;
	pf_autofree char *bad = NULL;

	if (cfg->cq_mod > cfg->tx_depth)
		return pf_param_invalid(ret_err, "fabric_loopback.cq_mod %llu is above "
					"fabric_loopback.tx_depth %llu",
					(unsigned long long)cfg->cq_mod,
					(unsigned long long)cfg->tx_depth);
	if (each_pair(cfg->pairs, NULL, NULL, &bad) < 0)
		return pf_param_invalid(ret_err, "fabric_loopback.pairs: '%s' is not "
					"\"mlx5_0[/1]:mlx5_1[/1]\" between two ports", bad);
	return 0;
}

#define ROUNDS 2

/*
 * Seconds a flow's WRITEs may take: the warm-up and timed WRs at 25 Gb/s
 * (or duration_ms) and one completion timeout as the engine scales it for
 * a 25 Gb/s port.  The deadline grants it; the engine cuts a slower flow
 * there (opts.max_ms), so that a slow link is measured, not killed.
 */
static double run_budget_s(const struct fabric_loopback_cfg *cfg)
{
	double bits = (double)cfg->msg_size * 8, run_s;

	if (cfg->duration_ms)
		run_s = (double)cfg->duration_ms / 1000 + (double)cfg->warmup * bits / 25e9;
	else
		run_s = (double)(cfg->warmup + cfg->iterations) * bits / 25e9;
	return run_s + (double)pf_lb_completion_timeout_ms((unsigned int)cfg->timeout_ms,
							   cfg->msg_size, (unsigned int)cfg->cq_mod,
							   (unsigned int)cfg->tx_depth,
							   25 * cfg->min_fraction) / 1000;
}

static unsigned int fabric_loopback_deadline_s(const void *config)
{
	const struct fabric_loopback_cfg *cfg = config;
	double bits = (double)cfg->msg_size * 8, run_s, total;
	unsigned int rounds = ROUNDS, listed = 0;

	/* explicit pairs: at worst each in a round of its own */
	for (const char *c = cfg->pairs; *c; c++)
		listed += *c == ':';
	if (listed > rounds)
		rounds = listed;

	run_s = run_budget_s(cfg);
	run_s += (double)cfg->slots * bits / 25e9; /* the fresh-pattern pass */
	run_s += 3 + 2 * (double)cfg->resolve_timeout_ms / 1000 +
		 (double)cfg->timeout_ms / 1000; /* the connection's */
	total = 15 + rounds * run_s;
	return total > 86400 ? 86400 : (unsigned int)total + 1;
}

/*
 * Physical-layer counters of the participating ports (IBTA PortCounters
 * via drivers/infiniband/core/sysfs.c; widths as port_errors reads them).
 * Port-wide transport counters (out_of_sequence, ...) are left out: every
 * QP on the port bumps them, and the flows are judged by their completions.
 */
static const struct {
	const char *name;
	unsigned char width;
	bool hard; /* the link went down or retrained: fail; else warn */
} ctrs[] = {
	{ "link_downed", 8, true },
	{ "link_error_recovery", 8, true },
	{ "symbol_error", 16, false },
	{ "port_rcv_errors", 16, false },
	{ "local_link_integrity_errors", 4, false },
	{ "excessive_buffer_overrun_errors", 4, false },
	{ "port_rcv_remote_physical_errors", 16, false },
	{ "rx_icrc_encapsulated", 64, false },
};

#define N_CTRS PF_ARRAY_SIZE(ctrs)

struct counters {
	uint64_t v[N_CTRS];
	bool have[N_CTRS];
	bool hw[N_CTRS]; /* read from hw_counters/ (wraps), else counters/ (saturates) */
};

struct rail {
	const struct pf_rdma_dev *dev;
	const struct pf_rdma_port *port;
	char subject[64];   /* "mlx5_0/1" */
	const char *ifname; /* its netdev, or NULL */
	char ip[16];
	struct pf_ipv4_addr a4; /* that address with its prefix */
	int gid_index;      /* RoCE v2 IPv4 GID (sysfs), for connect=verbs; -1 none */
	int numa;
	double rate;        /* Gb/s it is held to: expect_gbps, else the port's rate */
	int gpu;            /* CUDA ordinal for use_gpu, -1 none */
	char gpu_bdf[16];
	bool used;
};

struct flow {
	size_t a, b;        /* rails: a writes to b */
	int round;          /* 1-based */
	struct pf_fab_flow f;
	double min_gbps;
	double pcie_share;  /* of the slower end's rate its PCIe links carry this round, <= 1 */
	int pcie_link;      /* node->pci index of the bottleneck link's device, -1 none */
	bool slow;
	int blamed;         /* a rail the slowness is put on, -1 none */
};

struct plan {
	struct rail *rails;
	size_t n_rails;
	struct counters *before, *after; /* [round - 1][rail], read for the round's rails */
	struct flow *flows;
	size_t n_flows;
	int n_rounds;
	bool cm;
};

static void plan_free(struct plan *p)
{
	free(p->rails);
	free(p->flows);
	free(p->before);
	free(p->after);
}

/* Does rail @x send or receive in @round? */
static bool in_round(const struct plan *p, size_t x, int round)
{
	for (size_t i = 0; i < p->n_flows; i++)
		if (p->flows[i].round == round && (p->flows[i].a == x || p->flows[i].b == x))
			return true;
	return false;
}

static void read_counters(const struct pf_fs *fs, const struct rail *r, struct counters *c)
{
	*c = (struct counters){ 0 };
	for (size_t i = 0; i < N_CTRS; i++)
		c->have[i] = pf_port_counter(fs, r->dev->name, r->port->num, ctrs[i].name, &c->v[i],
					     &c->hw[i], NULL) == 0;
}

static const char *ll_name(enum pf_link_layer ll)
{
	return pf_link_layer_word(ll);
}

static ssize_t find_rail(const struct plan *p, const char *name, unsigned int port)
{
	for (size_t i = 0; i < p->n_rails; i++)
		if (!strcmp(p->rails[i].dev->name, name) && p->rails[i].port->num == port)
			return (ssize_t)i;
	return -1;
}

/*
 * A candidate port not ACTIVE (rdma_select.h): a fail when `nics` names it
 * or no port is ACTIVE, else a warn; the message names its link layer.
 */
static void down_rail(struct pf_result *res, const struct fabric_loopback_cfg *cfg,
		      const struct pf_rdma_port *pt, const char *subject, unsigned int n_active)
{
	bool fails = pf_rdma_down_port_fails(cfg->nics[0] != '\0', n_active);
	struct pf_finding *f;

	f = pf_add(res, fails ? PF_STATUS_FAIL : PF_STATUS_WARN, subject, "%s (%s) is %s: not "
		   "tested%s", subject, ll_name(pt->link_layer),
		   pt->state_name ? pt->state_name : "not ACTIVE",
		   fails ? "" : "; not named in fabric_loopback.nics and other ports are ACTIVE, "
				"so it may be an unused port");
	pf_code(f, 1);
	pf_remedy(f, "bring the link up (see the nic_link_speed check)%s",
		  fails ? "" : ", or list the compute rails in fabric_loopback.nics");
	pf_obs_str(f, "link_layer", ll_name(pt->link_layer));
}

/* The candidate devices: `nics` in its order, else the default rule (rdma_select.h). */
static size_t rail_order(const struct pf_ctx *ctx, const struct fabric_loopback_cfg *cfg,
			 const struct pf_rdma_dev **order)
{
	const struct pf_node *node = ctx->node;
	size_t n_order = 0;

	/* `nics` in its own order (NCCL_IB_HCA's, usually the GPUs'), else the inventory's */
	if (cfg->nics[0]) {
		pf_autofree char *list = pf_xstrdup(cfg->nics);
		char *save = NULL;

		for (char *t = strtok_r(list, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
			const struct pf_rdma_dev *d = pf_node_rdma(node, t);
			bool dup = false;

			for (size_t k = 0; k < n_order; k++)
				dup |= order[k] == d;
			if (d && !dup && n_order < node->n_rdma)
				order[n_order++] = d;
		}
	} else {
		for (size_t i = 0; i < node->n_rdma; i++)
			if (pf_rdma_default_candidate(ctx->fs, node, &node->rdma[i]))
				order[n_order++] = &node->rdma[i];
	}
	return n_order;
}

/* Port number @num of @d; NULL none. */
static const struct pf_rdma_port *port_of(const struct pf_rdma_dev *d, unsigned int num)
{
	for (size_t j = 0; j < d->n_ports; j++)
		if (d->ports[j].num == num)
			return &d->ports[j];
	return NULL;
}

/*
 * Without `nics`: the rail model's compute rails of the candidate devices
 * (rdma_select.h) in rail order into @devs/@ports, a skip finding for each
 * other port of those devices; 0 and nothing added when the model has no
 * compute rail (the devices' ports are the candidates then).
 */
static size_t model_ports(const struct pf_ctx *ctx, const struct fabric_loopback_cfg *cfg,
			  const struct pf_rdma_dev ***devs, const struct pf_rdma_port ***ports,
			  struct pf_result *res)
{
	const struct pf_rails *rails = ctx->rails;
	const struct pf_node *node = ctx->node;
	size_t n = 0;

	if (cfg->nics[0] || !rails || !rails->n_compute)
		return 0;
	*devs = pf_xcalloc(rails->n_compute + 1, sizeof(**devs));
	*ports = pf_xcalloc(rails->n_compute + 1, sizeof(**ports));
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *rp = &rails->ports[i];
		const struct pf_rdma_dev *d = &node->rdma[rp->rdma];
		const struct pf_rdma_port *pt = port_of(d, rp->port);

		/* rail indices run 0..n_compute-1: the slot is the rail */
		if (pt && rp->role == PF_ROLE_COMPUTE && rp->rail >= 0 &&
		    (size_t)rp->rail < rails->n_compute &&
		    pf_rdma_default_candidate(ctx->fs, node, d)) {
			(*devs)[rp->rail] = d;
			(*ports)[rp->rail] = pt;
		}
	}
	/* close the gaps of rails whose device is no candidate */
	for (size_t i = 0; i < rails->n_compute; i++)
		if ((*devs)[i]) {
			(*devs)[n] = (*devs)[i];
			(*ports)[n++] = (*ports)[i];
		}
	for (size_t i = 0; n && i < rails->n_ports; i++) {
		const struct pf_rail_port *rp = &rails->ports[i];
		const struct pf_rdma_dev *d = &node->rdma[rp->rdma];
		struct pf_finding *f;
		char subject[64];

		if (rp->role == PF_ROLE_COMPUTE || !pf_rdma_default_candidate(ctx->fs, node, d))
			continue;
		snprintf(subject, sizeof(subject), "%s/%u", d->name, rp->port);
		f = pf_add(res, PF_STATUS_SKIP, subject, "%s: %s %s port (%s), not a compute rail: "
			   "not looped", subject, rp->role == PF_ROLE_UNUSED ? "an" : "a",
			   pf_port_role_name(rp->role), rp->reason);
		pf_obs_str(f, "role", pf_port_role_name(rp->role));
	}
	return n;
}

/* The candidate ports, of the fabric's link layer; the others are findings. */
static void plan_rails(const struct pf_ctx *ctx, const struct fabric_loopback_cfg *cfg,
		       struct plan *p, struct pf_result *res, enum pf_link_layer *ret_ll)
{
	const struct pf_node *node = ctx->node;
	size_t n_ib = 0, n_eth = 0, all_ib = 0, all_eth = 0, cap = 0;
	pf_autofree const struct pf_rdma_port **ports = NULL;
	pf_autofree const struct pf_rdma_dev **devs = NULL;
	enum pf_link_layer ll;
	pf_autofree const struct pf_rdma_dev **order = pf_xcalloc(node->n_rdma + 1, sizeof(*order));
	pf_autofree char *gid_env = NULL; /* the job's NCCL_IB_GID_INDEX, as NCCL reads it */
	size_t n_order;

	if (ctx->prov->env(ctx, "NCCL_IB_GID_INDEX", &gid_env) < 0)
		gid_env = NULL;

	cap = model_ports(ctx, cfg, &devs, &ports, res);
	for (size_t k = 0; k < cap; k++) {
		all_ib += ports[k]->link_layer == PF_LINK_IB;
		all_eth += ports[k]->link_layer == PF_LINK_ETH;
		n_ib += pf_rdma_port_usable(ports[k]) && ports[k]->link_layer == PF_LINK_IB;
		n_eth += pf_rdma_port_usable(ports[k]) && ports[k]->link_layer == PF_LINK_ETH;
	}
	n_order = cap ? 0 : rail_order(ctx, cfg, order);
	for (size_t i = 0; i < n_order; i++) {
		const struct pf_rdma_dev *d = order[i];

		for (size_t j = 0; j < d->n_ports; j++) {
			const struct pf_rdma_port *pt = &d->ports[j];

			devs = pf_xrealloc(devs, (cap + 1) * sizeof(*devs));
			ports = pf_xrealloc(ports, (cap + 1) * sizeof(*ports));
			devs[cap] = d;
			ports[cap++] = pt;
			all_ib += pt->link_layer == PF_LINK_IB;
			all_eth += pt->link_layer == PF_LINK_ETH;
			if (pf_rdma_port_usable(pt) && pt->link_layer == PF_LINK_IB)
				n_ib++;
			if (pf_rdma_port_usable(pt) && pt->link_layer == PF_LINK_ETH)
				n_eth++;
		}
	}
	/* the fabric: the link layer most ACTIVE ports have, else most ports */
	ll = n_ib + n_eth ? (n_eth > n_ib ? PF_LINK_ETH : PF_LINK_IB)
			  : (all_eth > all_ib ? PF_LINK_ETH : PF_LINK_IB);
	*ret_ll = ll;
	for (size_t k = 0; k < cap; k++) {
		const struct pf_rdma_port *pt = ports[k];
		char subject[64];
		struct rail *r;

		snprintf(subject, sizeof(subject), "%s/%u", devs[k]->name, pt->num);
		if (pt->link_layer != ll && pt->link_layer != PF_LINK_UNKNOWN &&
		    !pf_rdma_port_usable(pt)) {
			down_rail(res, cfg, pt, subject, (unsigned int)(n_ib + n_eth));
			continue;
		}
		if (pt->link_layer != ll) {
			if (pt->state == 4 && pt->link_layer != PF_LINK_UNKNOWN)
				pf_add(res, PF_STATUS_SKIP, subject, "%s: %s, not a rail of this node's "
				       "%s fabric: not tested", subject, ll_name(pt->link_layer),
				       ll_name(ll));
			continue;
		}
		if (!pf_rdma_port_usable(pt)) {
			down_rail(res, cfg, pt, subject, (unsigned int)(n_ib + n_eth));
			continue;
		}
		p->rails = pf_xrealloc(p->rails, (p->n_rails + 1) * sizeof(*p->rails));
		r = &p->rails[p->n_rails++];
		*r = (struct rail){ .dev = devs[k], .port = pt, .numa = -1, .gpu = -1,
				    .gid_index = -1,
				    .rate = cfg->expect_gbps > 0 ? cfg->expect_gbps : pt->rate_gbps };
		if (pt->link_layer == PF_LINK_ETH &&
		    pf_verbs_gid_index(ctx->fs, devs[k]->name, pt->num, gid_env, &r->gid_index) < 0)
			r->gid_index = -1;
		snprintf(r->subject, sizeof(r->subject), "%s", subject);
		if (pt->netdev >= 0)
			r->ifname = node->netdevs[pt->netdev].name;
		if (devs[k]->pci >= 0)
			r->numa = pf_node_effective_numa(node, &node->pci[devs[k]->pci]);
	}
}

/*
 * Each rail's first IPv4 address.  0 when every rail has one; 1 when some
 * lack one (*ret_missing names them); -errno with an error finding.
 */
static int rail_addresses(const struct pf_ctx *ctx, struct plan *p, char **ret_missing)
{
	char *missing = pf_xstrdup("");
	int n_missing = 0;

	for (size_t i = 0; i < p->n_rails; i++) {
		struct rail *r = &p->rails[i];
		struct pf_ipv4_addrs a = { .n = 0 };
		int rc = r->ifname ? ctx->prov->ipv4_addrs(ctx, r->ifname, &a) : -ENOENT;
		char *next;

		if (rc == 0 && a.n) {
			uint32_t v = a.v[0].addr;

			r->a4 = a.v[0];
			snprintf(r->ip, sizeof(r->ip), "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff,
				 (v >> 8) & 0xff, v & 0xff);
			continue;
		}
		if (rc < 0 && rc != -ENOENT && rc != -ENODEV) {
			free(missing);
			return rc;
		}
		next = pf_xasprintf("%s%s%s (%s)", missing, *missing ? ", " : "", r->subject,
				    r->ifname ? r->ifname : "no netdev");
		free(missing);
		missing = next;
		n_missing++;
	}
	*ret_missing = missing;
	return n_missing ? 1 : 0;
}

static void add_flow(struct plan *p, size_t a, size_t b, int round)
{
	p->flows = pf_xrealloc(p->flows, (p->n_flows + 1) * sizeof(*p->flows));
	p->flows[p->n_flows++] = (struct flow){ .a = a, .b = b, .round = round, .blamed = -1 };
	p->rails[a].used = p->rails[b].used = true;
	if (round > p->n_rounds)
		p->n_rounds = round;
}

/*
 * What src/pairs plans and judges of the flows (caller frees): each flow's
 * ends and round, and once judged whether it ran and was slow.
 */
static struct pf_pair_flow *pair_view(const struct plan *p)
{
	struct pf_pair_flow *v = pf_xcalloc(p->n_flows + 1, sizeof(*v));

	for (size_t i = 0; i < p->n_flows; i++) {
		const struct flow *fl = &p->flows[i];

		v[i] = (struct pf_pair_flow){ .a = fl->a, .b = fl->b, .round = fl->round,
					      .measured = !fl->f.rc, .slow = fl->slow };
	}
	return v;
}

/* The ring rounds over every rail (pf_pairs_ring). */
static void plan_rings(struct plan *p)
{
	pf_autofree struct pf_pair_flow *ring = pf_xcalloc(2 * p->n_rails + 1, sizeof(*ring));
	size_t n = pf_pairs_ring(p->n_rails, ring);

	for (size_t i = 0; i < n; i++)
		add_flow(p, ring[i].a, ring[i].b, ring[i].round);
}

struct explicit_ctx {
	struct plan *p;
	struct pf_result *res;
	int err;
};

/*
 * One listed pair, both ways, into the first round where neither source
 * sends nor destination receives yet (a port carries one flow each way).
 */
static int explicit_pair(void *arg, const char *a, unsigned int pa, const char *b, unsigned int pb)
{
	struct explicit_ctx *x = arg;
	ssize_t ia = find_rail(x->p, a, pa), ib = find_rail(x->p, b, pb);
	size_t ends[2][2];

	if (ia < 0 || ib < 0) {
		struct pf_finding *f = pf_add(x->res, PF_STATUS_SKIP, ia < 0 ? a : b, "%s/%u in "
					      "fabric_loopback.pairs is not an ACTIVE rail of this "
					      "node: pair not tested", ia < 0 ? a : b,
					      ia < 0 ? pa : pb);

		pf_remedy(f, "see the nic_link_speed check, or correct fabric_loopback.pairs");
		return 0;
	}
	ends[0][0] = (size_t)ia, ends[0][1] = (size_t)ib;
	ends[1][0] = (size_t)ib, ends[1][1] = (size_t)ia;
	for (int d = 0; d < 2; d++) {
		pf_autofree struct pf_pair_flow *v = pair_view(x->p);

		add_flow(x->p, ends[d][0], ends[d][1],
			 pf_pairs_free_round(v, x->p->n_flows, ends[d][0], ends[d][1]));
	}
	return 0;
}

static enum pf_lb_reg reg_mode(const char *s)
{
	return !strcmp(s, "peermem") ? PF_LB_REG_PEERMEM
	       : !strcmp(s, "dmabuf") ? PF_LB_REG_DMABUF : PF_LB_REG_AUTO;
}

/* use_gpu: each rail's GPU (the GPUs paired with it, gpu_nic.h) as a CUDA ordinal. */
static int map_gpus(const struct pf_ctx *ctx, const char *nics, struct plan *p,
		    const struct pf_cuda_table **ret_cu, char **ret_err)
{
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	pf_autofree char (*bdfs)[16] = NULL;
	size_t n_pairs;
	int n = pf_gpu_cuda_list(ctx, ret_cu, &bdfs, ret_err);

	if (n < 0)
		return n;
	n_pairs = pf_gpu_nic_pairs(ctx->node, nics[0] ? nics : NULL, NULL, &pairs);
	for (size_t i = 0; i < n_pairs; i++) {
		for (size_t k = 0; k < p->n_rails; k++) {
			struct rail *rl = &p->rails[k];

			if (pairs[i].nic < 0 || &ctx->node->rdma[pairs[i].nic] != rl->dev ||
			    rl->gpu >= 0)
				continue;
			for (int j = 0; j < n; j++)
				if (!strcmp(bdfs[j], pairs[i].gpu->bdf))
					rl->gpu = j;
			snprintf(rl->gpu_bdf, sizeof(rl->gpu_bdf), "%s", pairs[i].gpu->bdf);
		}
	}
	return 0;
}

static double min_rate(const struct rail *a, const struct rail *b)
{
	double ra = a->rate, rb = b->rate;

	return ra < rb ? ra : rb;
}

static void end_opts(const struct rail *r, bool gpu, struct pf_fab_end *e)
{
	e->dev = r->dev->name;
	e->port = r->port->num;
	snprintf(e->ip, sizeof(e->ip), "%s", r->ip);
	e->numa_node = r->numa;
	e->gid_index = r->gid_index;
	e->mem = gpu && r->gpu >= 0 ? PF_LB_GPU : PF_LB_HOST;
	e->gpu = r->gpu;
}

static void flow_opts(const struct fabric_loopback_cfg *cfg, const struct plan *p,
		      const struct pf_verbs_api *api, const struct pf_rdmacm_api *cm,
		      const struct pf_cuda_table *cu, uint64_t page_size, struct flow *fl)
{
	struct pf_fab_opts *o = &fl->f.opts;

	pf_fab_opts_default(o);
	o->api = api;
	o->cm = cm;
	o->conn = p->cm ? PF_FAB_CM : PF_FAB_VERBS;
	end_opts(&p->rails[fl->a], cu != NULL, &o->src);
	end_opts(&p->rails[fl->b], cu != NULL, &o->dst);
	o->msg_size = cfg->msg_size;
	o->tx_depth = (unsigned int)cfg->tx_depth;
	o->cq_mod = (unsigned int)cfg->cq_mod;
	o->warmup = cfg->warmup;
	o->iterations = cfg->iterations;
	o->duration_ms = cfg->duration_ms;
	o->timeout_ms = (unsigned int)cfg->timeout_ms;
	o->min_gbps = min_rate(&p->rails[fl->a], &p->rails[fl->b]) * cfg->min_fraction;
	o->max_ms = (uint64_t)(run_budget_s(cfg) * 1000);
	o->resolve_timeout_ms = (unsigned int)cfg->resolve_timeout_ms;
	o->page_size = (size_t)page_size;
	o->slots = (unsigned int)cfg->slots;
	o->cu = cu;
	o->export_dmabuf = api->cu_export_dmabuf;
	o->reg = reg_mode(cfg->gpu_reg);
}

static double rate_of(const struct rail *r)
{
	return r->rate;
}

/* ---- judgement --------------------------------------------------------- */

static void flow_subject(const struct plan *p, const struct flow *fl, char *buf, size_t len)
{
	snprintf(buf, len, "%s -> %s", p->rails[fl->a].subject, p->rails[fl->b].subject);
}

static void observe_flow(struct pf_finding *f, const struct plan *p, const struct flow *fl)
{
	const struct pf_fab_result *r = &fl->f.res;
	const struct pf_fab_opts *o = &fl->f.opts;

	pf_obs_num(f, "round", fl->round);
	pf_obs_str(f, "connection", o->conn == PF_FAB_CM ? "rdma_cm" : "verbs");
	if (o->conn == PF_FAB_CM) {
		pf_obs_str(f, "src_ip", o->src.ip);
		pf_obs_str(f, "dst_ip", o->dst.ip);
	}
	if (r->stage == PF_FAB_DONE || r->stage == PF_FAB_VERIFY) {
		pf_obs_num(f, "gbps", r->gbps);
		pf_obs_num(f, "iterations", (double)r->iterations);
	}
	pf_obs_num(f, "msg_size", (double)o->msg_size);
	if (r->reg[0])
		pf_obs_str(f, "memory", r->reg[0]);
	if (r->slots)
		pf_obs_num(f, "slots", r->slots);
	if (r->mtu)
		pf_obs_num(f, "path_mtu", r->mtu);
	if (r->stage != PF_FAB_DONE)
		pf_obs_str(f, "stage", pf_fab_stage_name(r->stage));
	if (r->cm_event >= 0) {
		pf_obs_str(f, "cm_event", pf_cm_event_name(r->cm_event));
		pf_obs_num(f, "cm_status", r->cm_status);
	}
	if (r->wc_status)
		pf_obs_str(f, "wc_status", pf_ibv_wc_status_name(r->wc_status));
	if (r->stage == PF_FAB_VERIFY && fl->f.rc == -EBADMSG) {
		pf_obs_num(f, "bad_slot", r->bad_slot);
		pf_obs_num(f, "bad_pass", r->bad_pass);
	}
	if (r->cut_short)
		pf_obs_bool(f, "cut_short", true);
	if (r->note[0])
		pf_obs_str(f, "note", r->note);
	pf_obs_num(f, "src_rate_gbps", rate_of(&p->rails[fl->a]));
	pf_obs_num(f, "dst_rate_gbps", rate_of(&p->rails[fl->b]));
}

/* The remedy of a flow that connected and then failed (not by being slow). */
static void traffic_remedy(struct pf_finding *f, const struct rail *a, const struct rail *b,
			   const struct pf_fab_result *r, int rc)
{
	switch (rc) {
	case -EBADMSG:
		pf_remedy(f, "data arrived corrupted across the fabric: see which other "
			  "flows through %s or %s fail; reseat or replace the cable or "
			  "transceiver, check the PCIe link of both NICs (pcie_link)",
			  a->subject, b->subject);
		break;
	case -EIO:
	case -ETIMEDOUT:
		pf_remedy(f, "WRITEs from %s to %s did not complete%s: look at the link "
			  "(port_errors, mlxlink), the switch ports and PFC (pfc_pause)",
			  a->subject, b->subject, r->wc_status == IBV_WC_RETRY_EXC_ERR
			  ? " (retries exhausted: packets lost on the way)" : "");
		break;
	case -EXDEV:
		pf_remedy(f, "give each rail's netdev its own address (the address must "
			  "belong to the rail's own netdev, as NCCL binds it)");
		break;
	case -EFAULT:
	case -ENOMEM:
		pf_remedy(f, "memory could not be registered: raise RLIMIT_MEMLOCK "
			  "(memlock check); for GPU memory see nvidia_peermem");
		break;
	default:
		pf_remedy(f, "reproduce with ib_write_bw -d %s (server) and ib_write_bw -d "
			  "%s %s (client); check ibv_devinfo and dmesg", b->dev->name,
			  a->dev->name, b->ip[0] ? b->ip : "<server>");
		break;
	}
}

/* A flow that produced no figure: the resolve and connection cases are their own findings. */
static void judge_failed(struct pf_result *res, const struct plan *p, const struct flow *fl,
			 const char *subject)
{
	const struct pf_fab_result *r = &fl->f.res;
	const struct rail *a = &p->rails[fl->a], *b = &p->rails[fl->b];
	int rc = fl->f.rc;
	struct pf_finding *f;

	if ((r->stage == PF_FAB_ADDR || r->stage == PF_FAB_ROUTE) &&
	    (rc == -ETIMEDOUT || rc == -ENETUNREACH || rc == -EHOSTUNREACH)) {
		bool addr_timeout = r->stage == PF_FAB_ADDR && rc == -ETIMEDOUT;

		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %s cannot reach %s (%s) from %s "
			   "(%s): %s", subject, a->subject, b->subject, b->ip, a->ip,
			   addr_timeout ? "address resolution"
			   : r->stage == PF_FAB_ADDR ? "no route" : "route resolution", r->err);
		pf_code(f, 2);
		/*
		 * a node-local destination is resolved without ARP (addr.c:
		 * is_dst_local), so ARP settings cannot be the cause here
		 */
		if (addr_timeout)
			pf_remedy(f, "rdma_resolve_addr timed out for an address of this node, which "
				  "the kernel resolves without ARP: check that %s is up and holds "
				  "%s (ip addr), that rdma_cm is loaded (modprobe rdma_ucm) and "
				  "that %s has a RoCE v2 GID for it (rdma link, show_gids)",
				  b->ifname ? b->ifname : b->subject, b->ip, b->subject);
		else
			pf_remedy(f, "no route between the rails: add routes between the rail "
				  "subnets (ip route / a policy rule per rail), check the switch "
				  "VLANs; if the rails must not reach each other by design, set "
				  "fabric_loopback.rail_only=true");
	} else if (r->stage == PF_FAB_CONNECT && r->cm_event >= 0) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: connection failed: %s", subject,
			   r->err);
		pf_code(f, 3);
		pf_remedy(f, "%s", r->cm_event == PF_CM_EVENT_REJECTED
			  ? "the connection request was rejected: check the port's GID table and "
			    "that rdma_cm is loaded (modprobe rdma_ucm), and for RoCE the RoCE mode "
			    "(cma_roce_mode) on both ends"
			  : r->cm_event == PF_CM_EVENT_CONNECT_ERROR
			  ? "the QP could not be moved to RTR/RTS with the path RDMA-CM found: "
			    "compare the MTU and RoCE mode of both ports, look in dmesg (mlx5_core)"
			  : "the connection request went unanswered: node-local RDMA-CM sends it to "
			    "the destination NIC's own MAC (no routing, no ARP), so the two rails "
			    "must share one L2 domain (same VLAN); otherwise the path drops "
			    "RDMA-CM packets: check the switch (VLAN, PFC/ECN), MTU and the "
			    "port_errors check");
	} else if (rc == -ETIMEDOUT && r->below_gbps > 0) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: slow or stalled: below %.3g Gb/s, "
			   "under the %.3g Gb/s the flow is held to (%s)", subject, r->below_gbps,
			   fl->f.opts.min_gbps, r->err);
		pf_code(f, 4);
		pf_remedy(f, "the connection was established and WRITEs from %s to %s move far "
			  "below the rate or not at all: check the negotiated speed of both ports "
			  "(nic_link_speed), pause storms (pfc_pause), errors (port_errors, "
			  "mlxlink) and the switch ports between them", a->subject, b->subject);
		pf_obs_num(f, "below_gbps", r->below_gbps);
	} else {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: traffic failed: %s", subject, r->err);
		pf_code(f, 5);
		traffic_remedy(f, a, b, r, rc);
	}
	observe_flow(f, p, fl);
}

/*
 * Did a physical-layer counter of rail @x rise in any round (the evidence a
 * cable or transceiver needs before it is blamed)?
 */
static bool phy_evidence(const struct plan *p, size_t x)
{
	for (int round = 1; round <= p->n_rounds; round++) {
		const struct counters *b = &p->before[(size_t)(round - 1) * p->n_rails + x];
		const struct counters *a = &p->after[(size_t)(round - 1) * p->n_rails + x];

		for (size_t i = 0; i < N_CTRS; i++)
			if (b->have[i] && a->have[i] && a->v[i] != b->v[i])
				return true;
	}
	return false;
}

/* The remedy of a rail named as the slow end: a cable only with evidence. */
static void slow_end_remedy(struct pf_finding *f, const struct plan *p, size_t x,
			    const char *side)
{
	const struct rail *r = &p->rails[x];

	if (phy_evidence(p, x))
		pf_remedy(f, "the fault is at %s's end%s and its physical error counters rose "
			  "(see its counters finding): reseat or replace its cable or "
			  "transceiver, check the switch port it lands on (mlxlink -d %s for BER "
			  "and FEC)", r->subject, side, r->dev->name);
	else
		pf_remedy(f, "the fault is at %s's end%s; no physical error counter rose, so "
			  "nothing points at the cable: check the NIC's PCIe link (pcie_link), "
			  "its NUMA placement and firmware, then the switch port it lands on "
			  "(mlxlink -d %s)", r->subject, side, r->dev->name);
}

/*
 * Name the rails slow with two or more partners that are fine elsewhere
 * (pf_pairs_slow_end); their slow flows are put on them.  Returns the count.
 */
static size_t triangulate(struct pf_result *res, const struct fabric_loopback_cfg *cfg,
			  struct plan *p)
{
	pf_autofree struct pf_pair_flow *v = pair_view(p);
	size_t n_blamed = 0;

	for (size_t x = 0; x < p->n_rails; x++) {
		pf_autofree size_t *all = pf_xcalloc(p->n_rails + 1, sizeof(*all));
		char list[512] = "";
		size_t used = 0, n_out = 0, n_in = 0, ok_out = 0, ok_in = 0, n_slow, n_all;
		double lo = 0, ref = 0;
		const char *side = "";
		struct pf_finding *f;

		if (!pf_pairs_slow_end(v, p->n_flows, p->n_rails, x, &n_slow))
			continue;
		n_all = pf_pairs_partners(v, p->n_flows, x, false, all);
		for (size_t i = 0; i < p->n_flows; i++) {
			struct flow *fl = &p->flows[i];
			size_t y;

			if (fl->f.rc || (fl->a != x && fl->b != x))
				continue;
			if (!fl->slow) {
				ok_out += fl->a == x;
				ok_in += fl->b == x;
				continue;
			}
			n_out += fl->a == x;
			n_in += fl->b == x;
			fl->blamed = (int)x;
			y = fl->a == x ? fl->b : fl->a;
			lo = lo && lo < fl->f.res.gbps ? lo : fl->f.res.gbps;
			ref = ref > rate_of(&p->rails[y]) ? ref : rate_of(&p->rails[y]);
			if (used + 2 < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%.0f Gb/s "
							 "%s %s", used ? ", " : "", fl->f.res.gbps,
							 fl->a == x ? "to" : "from",
							 p->rails[y].subject);
		}
		/* slow one way only, and fine the other way: say which side of its link */
		if (n_out && !n_in && ok_in)
			side = "; slow only when it sends: its transmit side";
		else if (n_in && !n_out && ok_out)
			side = "; slow only when it receives: its receive side";
		f = pf_add(res, PF_STATUS_FAIL, p->rails[x].subject, "%s is slow with %s%zu "
			   "partners: %s, partners that run at full rate with the others (ports at "
			   "%.0f Gb/s, minimum %.0f%%)%s", p->rails[x].subject,
			   n_slow == n_all ? "all " : "", n_slow, list, ref,
			   100 * cfg->min_fraction, side);
		pf_code(f, 6);
		slow_end_remedy(f, p, x, !*side ? "" : n_out ? ", on its transmit side"
							    : ", on its receive side");
		pf_obs_str(f, "direction", n_out && n_in ? "both" : n_out ? "send" : "receive");
		pf_obs_num(f, "slow_partners", (double)n_slow);
		pf_obs_num(f, "partners", (double)n_all);
		pf_obs_num(f, "lowest_gbps", lo);
		pf_obs_num(f, "port_rate_gbps", rate_of(&p->rails[x]));
		n_blamed++;
	}
	return n_blamed;
}

/*
 * Where rail @x's buffers in @round turn on the PCIe tree: the lowest
 * device above both its NIC and its GPU when its end of the round's flow
 * moved GPU memory (the traffic stays below that switch), -1 for host
 * memory (every link up to the root port).
 */
static int buffer_turn(const struct pf_node *node, const struct plan *p, size_t x, int round)
{
	const struct rail *r = &p->rails[x];
	bool gpu_mem = false;
	int gpu;

	for (size_t i = 0; i < p->n_flows; i++) {
		const struct flow *fl = &p->flows[i];

		if (fl->round != round)
			continue;
		if ((fl->a == x && fl->f.opts.src.mem == PF_LB_GPU) ||
		    (fl->b == x && fl->f.opts.dst.mem == PF_LB_GPU))
			gpu_mem = true;
	}
	if (!gpu_mem || !r->gpu_bdf[0] || r->dev->pci < 0)
		return -1;
	gpu = pf_node_pci_index(node, r->gpu_bdf);
	return gpu < 0 ? -1 : pf_pcie_common_above(node, r->dev->pci, gpu);
}

/*
 * The share of rail @x's rate its PCIe links carry while every rail of
 * @round runs both ways (two NICs behind one switch uplink, two ports of
 * one card on one link), counting only the links each rail's buffers cross
 * (GPU memory behind the NIC's switch does not cross its uplink); *ret_link
 * the bottleneck's device, -1 none.
 */
static double pcie_share(const struct pf_node *node, const struct plan *p, size_t x, int round,
			 int *ret_link)
{
	pf_autofree int *pci = pf_xcalloc(p->n_rails, sizeof(*pci));
	pf_autofree int *stop = pf_xcalloc(p->n_rails, sizeof(*stop));
	pf_autofree double *want = pf_xcalloc(p->n_rails, sizeof(*want));

	for (size_t i = 0; i < p->n_rails; i++) {
		pci[i] = p->rails[i].dev->pci;
		want[i] = in_round(p, i, round) ? p->rails[i].rate : 0;
		stop[i] = want[i] > 0 ? buffer_turn(node, p, i, round) : -1;
	}
	return pf_pcie_share_to(node, pci, stop, want, p->n_rails, x, ret_link);
}

static void judge_flows(const struct pf_node *node, const struct fabric_loopback_cfg *cfg,
			struct plan *p)
{
	for (size_t i = 0; i < p->n_flows; i++) {
		struct flow *fl = &p->flows[i];
		const struct rail *a = &p->rails[fl->a], *b = &p->rails[fl->b];
		double ra = rate_of(a), rb = rate_of(b);
		int ma = a->port->active_mtu, mb = b->port->active_mtu;
		int mtu = fl->f.res.mtu ? fl->f.res.mtu : ma && ma < mb ? ma : mb ? mb : ma;
		int la, lb;
		double sa = pcie_share(node, p, fl->a, fl->round, &la);
		double sb = pcie_share(node, p, fl->b, fl->round, &lb);

		fl->pcie_share = sa < sb ? sa : sb;
		fl->pcie_link = sa < sb ? la : lb;
		/* a floor calibrated at MTU 4096, scaled by the path MTU's goodput and by
		 * what the PCIe links carry when every rail of the round runs */
		fl->min_gbps = (ra < rb ? ra : rb) * cfg->min_fraction *
			       pf_rdma_mtu_scale(a->port->link_layer, mtu) * fl->pcie_share;
		fl->slow = !fl->f.rc && fl->min_gbps > 0 && fl->f.res.gbps < fl->min_gbps;
	}
}

/* Every measured flow slow (two or more): a limit of the node or fabric, not of one cable. */
static bool uniformly_slow(const struct plan *p)
{
	size_t n = 0, n_slow = 0;

	for (size_t i = 0; i < p->n_flows; i++) {
		n += !p->flows[i].f.rc;
		n_slow += p->flows[i].slow;
	}
	return n >= 2 && n_slow == n;
}

/*
 * A slow flow no rail was blamed for: uniform slowness is node-wide or
 * fabric-wide; the path between the two is blamed only when both ends run
 * at full rate with other partners, a cable only with physical errors.
 */
static struct pf_finding *slow_pair(struct pf_result *res, const struct fabric_loopback_cfg *cfg,
				    const struct plan *p, const struct flow *fl,
				    const char *subject, double ref)
{
	const struct rail *a = &p->rails[fl->a], *b = &p->rails[fl->b];
	pf_autofree struct pf_pair_flow *v = pair_view(p);
	double bw = fl->f.res.gbps;
	bool phy = phy_evidence(p, fl->a) || phy_evidence(p, fl->b);
	const char *why;
	struct pf_finding *f;

	if (p->n_rails < 3)
		why = "with two rails the slow end cannot be told";
	else if (uniformly_slow(p))
		why = "every flow of the node is slow: a node-wide or fabric-wide limit (host "
		      "memory or PCIe, the switch's uplinks), not one cable";
	else if (pf_pairs_fine_elsewhere(v, p->n_flows, fl->a, fl->b) &&
		 pf_pairs_fine_elsewhere(v, p->n_flows, fl->b, fl->a))
		why = "both ends run at full rate with other partners: the path between them "
		      "is at fault";
	else
		why = "which end is slow cannot be told from these flows";
	f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %.1f Gb/s, %.0f%% of %.0f Gb/s, below %.0f%%; "
		   "%s", subject, bw, 100 * bw / ref, ref, 100 * fl->min_gbps / ref, why);
	pf_code(f, 7);
	if (p->n_rails >= 3 && uniformly_slow(p))
		pf_remedy(f, "look at what all rails share: host memory bandwidth and the buffers' "
			  "NUMA placement (use_gpu=true sends from GPU memory as jobs do), the "
			  "PCIe links (pcie_link), the switch's uplinks; compare one flow alone "
			  "(fabric_loopback.pairs=%s:%s)", a->subject, b->subject);
	else
		pf_remedy(f, "%s from %s (its transmit side: %sthe switch port it lands on) to %s "
			  "(its receive side), and the switch's route between those two switch "
			  "ports%s", phy ? "physical error counters rose: inspect the link"
				     : "no physical error counter rose: inspect the path",
			  a->subject, phy ? "cable, transceiver, " : "", b->subject,
			  p->n_rails < 3 ? "; add a third rail to fabric_loopback.nics or pairs to "
					   "tell which end" : "");
	return f;
}

static void report_flows(struct pf_result *res, const struct pf_node *node,
			 const struct fabric_loopback_cfg *cfg, const struct plan *p)
{
	for (size_t i = 0; i < p->n_flows; i++) {
		const struct flow *fl = &p->flows[i];
		const struct rail *a = &p->rails[fl->a], *b = &p->rails[fl->b];
		double ra = rate_of(a), rb = rate_of(b), ref = ra < rb ? ra : rb;
		double bw = fl->f.res.gbps;
		struct pf_finding *f;
		char subject[160];

		flow_subject(p, fl, subject, sizeof(subject));
		if (fl->f.rc) {
			judge_failed(res, p, fl, subject);
			continue;
		}
		if (ref <= 0) {
			f = pf_add(res, PF_STATUS_WARN, subject, "%s: %.1f Gb/s; a port rate is "
				   "unknown, so it is not judged", subject, bw);
			pf_code(f, 8);
			pf_remedy(f, "check /sys/class/infiniband/*/ports/*/rate of both ports");
		} else if (fl->slow && fl->blamed >= 0) {
			f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %.1f Gb/s, %.0f%% of %.0f Gb/s, "
				   "below %.0f%%: %s is the slow end", subject, bw, 100 * bw / ref,
				   ref, 100 * fl->min_gbps / ref, p->rails[fl->blamed].subject);
			pf_code(f, 9);
			pf_remedy(f, "see the finding for %s", p->rails[fl->blamed].subject);
		} else if (fl->slow) {
			f = slow_pair(res, cfg, p, fl, subject, ref);
		} else if (fl->pcie_share < 1 && fl->pcie_link >= 0) {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: %.1f Gb/s, %.0f%% of %.0f Gb/s "
				   "(the PCIe link of %s carries %.0f%% of what this round's rails "
				   "below it send)", subject, bw, 100 * bw / ref, ref,
				   node->pci[fl->pcie_link].bdf, 100 * fl->pcie_share);
		} else {
			f = pf_add(res, PF_STATUS_PASS, subject, "%s: %.1f Gb/s, %.0f%% of %.0f Gb/s",
				   subject, bw, 100 * bw / ref, ref);
		}
		observe_flow(f, p, fl);
		pf_exp_num(f, "min_gbps", fl->min_gbps);
		if (fl->pcie_share < 1 && fl->pcie_link >= 0) {
			pf_exp_num(f, "pcie_share", fl->pcie_share);
			pf_obs_str(f, "pcie_bottleneck", node->pci[fl->pcie_link].bdf);
		}
	}
}

/* Counter increases of the ports of round @round, against each port. */
static void judge_counters(struct pf_result *res, const struct plan *p, size_t *n_read,
			   size_t *n_up, int round)
{
	for (size_t x = 0; x < p->n_rails; x++) {
		const struct rail *r = &p->rails[x];
		const struct counters *b = &p->before[(size_t)(round - 1) * p->n_rails + x];
		const struct counters *a = &p->after[(size_t)(round - 1) * p->n_rails + x];
		char list[256] = "", subject[96];
		size_t used = 0;
		bool hard = false, up = false;
		cJSON *inc;
		struct pf_finding *f;

		if (!in_round(p, x, round))
			continue;
		inc = cJSON_CreateObject();
		for (size_t i = 0; i < N_CTRS; i++) {
			struct pf_counter_delta d;

			if (!b->have[i] || !a->have[i])
				continue;
			if (pf_counter_delta(b->v[i], a->v[i], ctrs[i].width, !a->hw[i], &d) < 0 &&
			    pf_counter_delta(b->v[i], a->v[i], 64, false, &d) < 0)
				continue;
			(*n_read)++;
			if (!d.delta)
				continue;
			up = true;
			hard |= ctrs[i].hard;
			cJSON_AddNumberToObject(inc, ctrs[i].name, (double)d.delta);
			if (used + 2 < sizeof(list))
				used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s +%llu",
							 used ? ", " : "", ctrs[i].name,
							 (unsigned long long)d.delta);
		}
		if (!up) {
			cJSON_Delete(inc);
			continue;
		}
		(*n_up)++;
		snprintf(subject, sizeof(subject), "%s counters", r->subject);
		f = pf_add(res, hard ? PF_STATUS_FAIL : PF_STATUS_WARN, subject, "%s: error "
			   "counters rose during round %d: %s", r->subject, round, list);
		pf_code(f, hard ? 10 : 11);
		pf_remedy(f, "%s", hard ? "the link went down or retrained under traffic: reseat "
			  "or replace the cable or transceiver, check the switch port"
			  : "physical errors under traffic: a marginal cable, transceiver or switch "
			    "port; watch the port_errors check, check mlxlink BER");
		pf_obs_json(f, "increased", inc);
		pf_obs_num(f, "round", round);
	}
}

/* ---- run --------------------------------------------------------------- */

/* What the run needs besides the plan: the libraries and how flows connect. */
struct run {
	const struct pf_ctx *ctx;
	const struct fabric_loopback_cfg *cfg;
	struct pf_result *res;
	const struct pf_verbs_api *api;
	const struct pf_rdmacm_api *cm;
	const struct pf_cuda_table *cu;
	bool gpu;   /* the flows send from GPU memory */
	enum pf_link_layer ll;
	char *note; /* for the summary: how InfiniBand flows connect without librdmacm */
};

/*
 * Whether there is anything to send between: two ACTIVE rails, a fabric
 * whose rails reach each other, a live node.  0 to go on, else the check's
 * result is made (a skip) and 1.
 */
static int plan_or_skip(struct run *x, struct plan *p)
{
	const struct fabric_loopback_cfg *cfg = x->cfg;

	if (!x->ctx->node->n_rdma)
		return pf_skip(x->res, "no RDMA devices in /sys/class/infiniband"), 1;
	plan_rails(x->ctx, cfg, p, x->res, &x->ll);
	if (p->n_rails < 2)
		return pf_skip(x->res, "%zu ACTIVE %s rail%s%s: traffic between NICs needs two",
			       p->n_rails, ll_name(x->ll), p->n_rails == 1 ? "" : "s",
			       cfg->nics[0] ? " among fabric_loopback.nics" : ""), 1;
	if (cfg->rail_only)
		return pf_skip(x->res, "rail-only fabric (fabric_loopback.rail_only): the rails do "
			       "not reach each other by design"), 1;
	return 0;
}

/* libibverbs and a device it lists: 0, else an error or a skip is made and 1. */
static int open_verbs(struct run *x)
{
	pf_autofree char *err = NULL;
	struct ibv_device **list;
	int n_dev = 0, r;

	r = x->ctx->prov->verbs(x->ctx, &x->api, &err);
	if (r == -ENOMEDIUM)
		return pf_skip(x->res, "a recorded root cannot send traffic: run fabric_loopback on "
			       "the node itself"), 1;
	if (r < 0) {
		struct pf_finding *f = pf_add(x->res, PF_STATUS_ERROR, NULL, "%s", err);

		pf_remedy(f, "apt-get install ibverbs-providers (Debian/Ubuntu) or dnf install "
			  "rdma-core (RHEL)");
		return 1;
	}
	errno = 0;
	list = x->api->get_device_list(&n_dev);
	if (list)
		x->api->free_device_list(list);
	if (!list || !n_dev)
		return pf_skip(x->res, "libibverbs lists no RDMA devices%s",
			       !list && errno == ENOSYS ? " (ib_uverbs not loaded?)" : ""), 1;
	return 0;
}

/*
 * How flows connect: auto is RDMA-CM on RoCE when every rail has an IPv4
 * address, else verbs (InfiniBand always: NCCL needs no IPoIB), with records
 * swapped in-process; cm/rdma_cm and verbs force one way.
 * A rail RDMA-CM cannot address fails and leaves the plan.  0 to go on,
 * else the result is made and 1 (or pf_error()'s -errno).
 */
static int choose_connection(struct run *x, struct plan *p)
{
	const struct fabric_loopback_cfg *cfg = x->cfg;
	pf_autofree char *missing = NULL, *cm_err = NULL;
	size_t k = 0;
	int r;

	r = rail_addresses(x->ctx, p, &missing);
	if (r < 0)
		return pf_error(x->res, r, "cannot read the rails' IPv4 addresses: %s",
				strerror(-r));
	p->cm = !strcmp(cfg->connect, "rdma_cm") || !strcmp(cfg->connect, "cm") ||
		(!strcmp(cfg->connect, "auto") && x->ll == PF_LINK_ETH && r == 0);
	if (!p->cm && x->ll == PF_LINK_ETH && !strcmp(cfg->connect, "auto"))
		x->note = pf_xasprintf("verbs, not RDMA-CM: %s without an IPv4 address",
				       missing && *missing ? missing : "a rail");
	r = p->cm ? x->ctx->prov->rdmacm(x->ctx, &x->cm, &cm_err) : 0;
	if (r < 0 && x->ll == PF_LINK_IB && !strcmp(cfg->connect, "auto")) {
		x->note = pf_xasprintf("LID/QPN in-process: %s", cm_err ? cm_err : "no librdmacm");
		p->cm = false;
	} else if (r < 0) {
		struct pf_finding *f = pf_add(x->res, PF_STATUS_ERROR, NULL, "%s",
					      cm_err ? cm_err : "no librdmacm provider");

		pf_remedy(f, "apt-get install librdmacm1 (Debian/Ubuntu) or dnf install "
			  "librdmacm (RHEL)");
		return 1;
	}
	if (!p->cm || !missing || !*missing)
		return 0;
	/* a rail RDMA-CM cannot address is a rail no job can reach either */
	for (size_t i = 0; i < p->n_rails; i++) {
		struct pf_finding *f;

		if (p->rails[i].ip[0]) {
			p->rails[k++] = p->rails[i];
			continue;
		}
		f = pf_add(x->res, PF_STATUS_FAIL, p->rails[i].subject, "%s (%s) has no IPv4 "
			   "address: RDMA-CM cannot connect to it", p->rails[i].subject,
			   p->rails[i].ifname ? p->rails[i].ifname : "no netdev");
		pf_code(f, 12);
		pf_remedy(f, "give the rail's netdev its address (netplan / NetworkManager), "
			  "as NCCL and the job's RoCE connections need it");
	}
	p->n_rails = k;
	return p->n_rails < 2;
}

/*
 * RoCE over RDMA-CM between two NICs of one node works only when the rails
 * share one L2 domain: for a node-local destination the kernel neither
 * routes nor ARPs, it addresses the destination NIC's own MAC
 * (drivers/infiniband/core/addr.c: rdma_set_src_addr_rcu, is_dst_local,
 * addr_resolve_neigh).  Rails in different subnets (routed L3 with a /31
 * per NIC, a VLAN per rail) cannot reach each other this way, however
 * healthy: 1 with a skip made, else 0.
 */
static int distinct_subnets(struct run *x, const struct plan *p)
{
	char first[20], other[20];
	size_t n_subnets = 0;

	if (!p->cm || x->ll != PF_LINK_ETH)
		return 0;
	for (size_t i = 0; i < p->n_rails; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = pf_ipv4_same_subnet(&p->rails[i].a4, &p->rails[k].a4);
		n_subnets += !seen;
	}
	if (n_subnets < 2)
		return 0;
	pf_format_ipv4(&p->rails[0].a4, first, sizeof(first));
	pf_format_ipv4(&p->rails[1].a4, other, sizeof(other));
	pf_skip(x->res, "the %zu RoCE rails are in %zu IPv4 subnets (%s on %s, %s on %s, ...): a "
		"routed L3 or per-rail-VLAN fabric, where NIC-to-NIC traffic inside one node "
		"cannot flow (node-local RDMA-CM addresses the destination NIC's MAC without "
		"routing or ARP, which needs one L2 domain); the cross-node mesh tests these "
		"fabrics", p->n_rails, n_subnets, first, p->rails[0].subject, other,
		p->rails[1].subject);
	return 1;
}

/*
 * use_gpu: each rail's GPU as a CUDA ordinal.  "auto" on a node without
 * NVIDIA GPUs, "false", or "auto" where CUDA cannot be used (a warning): host
 * memory.  "true" without CUDA is an error; a rail without a GPU warns.
 * 0 to go on, else the result is made and 1.
 */
static int plan_memory(struct run *x, struct plan *p)
{
	const struct fabric_loopback_cfg *cfg = x->cfg;
	bool forced = !strcmp(cfg->use_gpu, "true");
	pf_autofree char *gerr = NULL;
	struct pf_finding *f;

	if (!strcmp(cfg->use_gpu, "false") || (!forced && !x->ctx->node->n_gpus))
		return 0;
	if (map_gpus(x->ctx, cfg->nics, p, &x->cu, &gerr) < 0) {
		f = pf_add(x->res, forced ? PF_STATUS_ERROR : PF_STATUS_WARN, NULL,
			   "GPU-memory flows impossible: %s%s", gerr, forced ? "" :
			   "; the flows send from host memory, not from the GPU memory jobs use");
		pf_code(f, 13);
		pf_remedy(f, "install the NVIDIA driver (libcuda.so.1) and see gpu_inventory, "
			  "or set fabric_loopback.use_gpu=false");
		return forced;
	}
	x->gpu = true;
	for (size_t i = 0; forced && i < p->n_rails; i++) {
		if (!p->rails[i].used || p->rails[i].gpu >= 0)
			continue;
		f = pf_add(x->res, PF_STATUS_WARN, p->rails[i].subject, "%s: %s; its flows use "
			   "host memory", p->rails[i].subject, p->rails[i].gpu_bdf[0]
			   ? "CUDA does not see its GPU" : "no GPU is paired with it");
		pf_code(f, 14);
		pf_remedy(f, "see the gpu_nic_numa and gpu_inventory checks");
	}
	return 0;
}

/*
 * The flows: the explicit pairs, else the two rings; with use_gpu, each
 * rail's GPU (a rail without one warns and sends from host memory).  0 to
 * go on, else the result is made and 1.
 */
static int plan_flows(struct run *x, struct plan *p)
{
	const struct fabric_loopback_cfg *cfg = x->cfg;

	if (cfg->pairs[0]) {
		struct explicit_ctx ex = { .p = p, .res = x->res };
		pf_autofree char *bad = NULL;

		each_pair(cfg->pairs, explicit_pair, &ex, &bad);
	} else {
		plan_rings(p);
	}
	if (!p->n_flows)
		return pf_skip(x->res, "no pair of fabric_loopback.pairs is testable"), 1;
	return plan_memory(x, p);
}

/* Round by round: the rails' counters, all the round's flows at once, the counters again. */
static void run_rounds(struct run *x, struct plan *p)
{
	const struct pf_ctx *ctx = x->ctx;
	uint64_t page_size = 0;

	if (ctx->prov->page_size(ctx, &page_size) < 0)
		page_size = 0;
	p->before = pf_xcalloc((size_t)p->n_rounds * p->n_rails, sizeof(*p->before));
	p->after = pf_xcalloc((size_t)p->n_rounds * p->n_rails, sizeof(*p->after));
	for (int round = 1; round <= p->n_rounds; round++) {
		pf_autofree struct pf_fab_flow *batch = NULL;
		size_t k = 0;

		for (size_t i = 0; i < p->n_rails; i++)
			if (in_round(p, i, round))
				read_counters(ctx->fs, &p->rails[i],
					      &p->before[(size_t)(round - 1) * p->n_rails + i]);
		batch = pf_xcalloc(p->n_flows + 1, sizeof(*batch));
		for (size_t i = 0; i < p->n_flows; i++) {
			if (p->flows[i].round != round)
				continue;
			flow_opts(x->cfg, p, x->api, x->cm, x->gpu ? x->cu : NULL, page_size,
				  &p->flows[i]);
			batch[k++].opts = p->flows[i].f.opts;
		}
		pf_progress(ctx, "round %d/%d: %zu flows", round, p->n_rounds, k);
		pf_fabric_round(batch, k);
		k = 0;
		for (size_t i = 0; i < p->n_flows; i++)
			if (p->flows[i].round == round)
				p->flows[i].f = batch[k++];
		for (size_t i = 0; i < p->n_rails; i++)
			if (in_round(p, i, round))
				read_counters(ctx->fs, &p->rails[i],
					      &p->after[(size_t)(round - 1) * p->n_rails + i]);
	}
}

/*
 * use_gpu=auto: flows whose GPU memory could not be registered for RDMA
 * (no nvidia-peermem, no DMA-BUF: what gdr_loopback and nvidia_peermem
 * judge) are measured again, one at a time, from host memory, with a
 * warning; the fabric is still tested.
 */
static void retry_from_host(struct run *x, struct plan *p)
{
	char first[sizeof(p->flows[0].f.res.err) + 2 * sizeof(p->rails[0].subject) + 8] = "";
	size_t n = 0;
	struct pf_finding *f;

	if (!x->gpu || !strcmp(x->cfg->use_gpu, "true"))
		return;
	for (size_t i = 0; i < p->n_flows; i++) {
		struct flow *fl = &p->flows[i];
		struct pf_fab_flow one = { .opts = fl->f.opts };

		if (!fl->f.rc || fl->f.res.stage != PF_FAB_MEMORY ||
		    (fl->f.opts.src.mem != PF_LB_GPU && fl->f.opts.dst.mem != PF_LB_GPU))
			continue;
		if (!n++)
			snprintf(first, sizeof(first), "%s -> %s: %s", p->rails[fl->a].subject,
				 p->rails[fl->b].subject, fl->f.res.err);
		one.opts.src.mem = one.opts.dst.mem = PF_LB_HOST;
		pf_fabric_round(&one, 1);
		fl->f = one;
	}
	if (!n)
		return;
	f = pf_add(x->res, PF_STATUS_WARN, "gpu_memory", "GPU memory could not be registered "
		   "for RDMA in %zu of %zu flows (first: %s); they were measured again, one at a "
		   "time, from host memory", n, p->n_flows, first);
	pf_code(f, 15);
	pf_remedy(f, "see the gdr_loopback and nvidia_peermem checks (nvidia-peermem, DMA-BUF); "
		  "fabric_loopback.use_gpu=false measures host memory only");
	pf_obs_num(f, "flows", (double)n);
}

/* The counters of every round: a pass finding when none rose. */
static void judge_all_counters(struct pf_result *res, struct plan *p)
{
	size_t n_read = 0, n_up = 0, n_used = 0;
	struct pf_finding *f;

	for (int round = 1; round <= p->n_rounds; round++)
		judge_counters(res, p, &n_read, &n_up, round);
	if (!n_read || n_up)
		return;
	for (size_t i = 0; i < p->n_rails; i++)
		n_used += p->rails[i].used;
	f = pf_add(res, PF_STATUS_PASS, "counters", "no physical error counter rose on the "
		   "%zu ports during the rounds", n_used);
	pf_obs_num(f, "counters_read", (double)n_read);
}

/* The check's one line: rails, flows, how they connected, the range of rates, what went wrong. */
static void summarize(struct run *x, const struct plan *p, size_t n_blamed)
{
	size_t n_slow = 0, n_failed = 0, n_connected = 0;
	double lo = 0, hi = 0;
	char range[160];

	for (size_t i = 0; i < p->n_flows; i++) {
		const struct flow *fl = &p->flows[i];

		/* past the connection: RDMA-CM ESTABLISHED (or the QPs at RTS) */
		n_connected += fl->f.res.stage >= PF_FAB_TRANSFER;
		if (fl->f.rc) {
			n_failed++;
			continue;
		}
		n_slow += fl->slow;
		lo = lo && lo < fl->f.res.gbps ? lo : fl->f.res.gbps;
		hi = hi > fl->f.res.gbps ? hi : fl->f.res.gbps;
	}
	if (hi > 0)
		snprintf(range, sizeof(range), "%.1f-%.1f Gb/s", lo, hi);
	else if (n_connected)
		snprintf(range, sizeof(range), "no flow completed: %zu of %zu connected (%s) and "
			 "then stalled or failed in the transfer", n_connected, p->n_flows,
			 p->cm ? "RDMA-CM ESTABLISHED" : "QPs at RTS");
	else
		snprintf(range, sizeof(range), "no flow connected (rails that do not reach "
			 "each other by design: rail_only)");
	pf_summary(x->res, "%zu %s rails, %zu flows in %d round%s over %s: %s%s%s%s%s",
		   p->n_rails, x->ll == PF_LINK_ETH ? "RoCE" : "InfiniBand", p->n_flows,
		   p->n_rounds, p->n_rounds == 1 ? "" : "s",
		   p->cm ? "RDMA-CM" : x->ll == PF_LINK_ETH ? "GID/QPN" : "LID/QPN", range,
		   n_blamed ? "; a NIC is the slow end" : n_slow ? "; slow pairs" : "",
		   n_failed ? "; some flows failed" : "", x->note ? "; " : "", x->note ? x->note : "");
}

static int fabric_loopback_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	struct run x = { .ctx = ctx, .cfg = config, .res = res, .ll = PF_LINK_IB };
	struct plan p = { 0 };
	int r;

	if (!ctx->node)
		return pf_error(res, -ENODATA, "no node inventory");
	r = plan_or_skip(&x, &p);
	if (!r)
		r = open_verbs(&x);
	if (!r)
		r = choose_connection(&x, &p);
	if (!r)
		r = distinct_subnets(&x, &p);
	if (!r)
		r = plan_flows(&x, &p);
	if (!r) {
		size_t n_blamed;

		run_rounds(&x, &p);
		retry_from_host(&x, &p);
		judge_flows(ctx->node, x.cfg, &p);
		n_blamed = triangulate(res, x.cfg, &p);
		report_flows(res, ctx->node, x.cfg, &p);
		judge_all_counters(res, &p);
		summarize(&x, &p, n_blamed);
	}
	plan_free(&p);
	free(x.note);
	return r < 0 ? r : 0;
}

static const struct pf_code fabric_loopback_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "a rail port is not ACTIVE: not tested" },
	{ 2, PF_ACTION_RECONFIGURE, "one rail cannot reach another (address or route resolution failed)" },
	{ 3, PF_ACTION_RECONFIGURE, "an RDMA-CM connection between two rails failed" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "a flow between two rails was slow or stalled below the rate it is held to" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "traffic between two rails failed" },
	{ 6, PF_ACTION_RESEAT_OR_REPLACE, "a rail is slow with partners that run at full rate with the others: it is the slow end" },
	{ 7, PF_ACTION_RESEAT_OR_REPLACE, "a flow's bandwidth is below the minimum fraction of the port rate" },
	{ 8, PF_ACTION_NONE, "a flow was measured but a port rate is unknown, so it is not judged" },
	{ 9, PF_ACTION_RESEAT_OR_REPLACE, "a flow is below the minimum and another rail is its slow end" },
	{ 10, PF_ACTION_RESEAT_OR_REPLACE, "hard error counters rose under traffic: the link went down or retrained" },
	{ 11, PF_ACTION_RESEAT_OR_REPLACE, "error counters rose under traffic" },
	{ 12, PF_ACTION_RECONFIGURE, "a rail has no IPv4 address: RDMA-CM cannot connect to it" },
	{ 13, PF_ACTION_NONE, "GPU-memory flows are impossible; the flows use host memory" },
	{ 14, PF_ACTION_NONE, "a rail has no GPU CUDA sees: its flows use host memory" },
	{ 15, PF_ACTION_RELOAD_DRIVER, "GPU memory could not be registered for RDMA in some flows (peer memory or DMA-BUF)" },
	{ 0 },
};

const struct pf_check pf_check_fabric_loopback = {
	.name = "fabric_loopback",
	.summary = "RDMA WRITE between the node's NICs through the switch, triangulated",
	.tags = "rdma,traffic,fabric",
	.reads = "libibverbs and librdmacm (RC QPs between rails: RDMA-CM bound to each rail's "
		 "IPv4 address, or LID/QPN on InfiniBand), the inventory (ACTIVE ports, link "
		 "layer, rate, NUMA node, netdev), the rails' IPv4 addresses (ipv4 provider), "
		 "/sys/class/infiniband/*/ports/*/{counters,hw_counters}/ before and after "
		 "each round, CUDA with use_gpu",
	.params = fabric_loopback_params,
	.codes = fabric_loopback_codes,
	.cfg_size = sizeof(struct fabric_loopback_cfg),
	.timeout_s = 120,
	.deadline_s = fabric_loopback_deadline_s,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_TRAFFIC,
	.validate = fabric_loopback_validate,
	.run = fabric_loopback_run,
};
