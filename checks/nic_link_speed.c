// SPDX-License-Identifier: MIT
/*
 * nic_link_speed - every RDMA port is ACTIVE/LinkUp at the rate and width
 * it should run at; for RoCE also its netdev's speed and MTU.
 *
 * Reads the inventory (ports of /sys/class/infiniband/<dev>: state,
 * phys_state, rate, link_layer, active_mtu where present; the netdev of
 * each port) and, for RoCE netdevs, the link speed from the linkmodes
 * provider (ethtool netlink; `ethtool <if>` text under --root) with
 * /sys/class/net/<if>/speed as the fallback.
 *
 * A port that is not ACTIVE/LinkUp fails, and its rate is not judged (mlx5
 * RoCE reports 40 Gb/s on a down port).  An ACTIVE port fails below the
 * profile's min_rate_gbps, and - by default - below the best rate or width
 * of the ports of the same HCA model on this node, so one 100 Gb/s port
 * among 400 Gb/s siblings or a 2X link among 4X ones fails without any
 * configuration.  RoCE: the netdev speed must equal the port rate, and its
 * MTU must give the RoCE path MTU wanted (fail) and reach the site MTU
 * (warn).  A port's state is judged for every RDMA device, also those
 * without a PCI function (rxe, scif0, a VF whose function is not recorded);
 * only the rate expectations need a PCI model and are not applied to them.
 *
 * Roles come from the rail model (rails.h, docs/rails.md): compute rails
 * are held to the rate and width above, among the compute rails of their
 * HCA model; storage and front-end ports are judged for being up and at the
 * best rate of their own role and link layer, as warns at most; unused ports
 * (down and never linked, SR-IOV VFs of a present PF) are a skip naming the
 * reason.  On a node whose rails the model found by rate alone (no NIC
 * beside a GPU), a slower port of the rails' link layer may be a degraded
 * rail: it is held to its HCA model's best like a rail, unless every port of
 * its card runs at that lower rate (a card cabled for another network).
 * With `nics` set, the listed devices are the rails and the others a second
 * group; a never-cabled port outside them is not judged.
 *
 * RoCE LAG (mlx5_bond_<n>): the port's netdev is the bond, whose speed is
 * the sum of its slaves'; the port rate is one physical port's.  The port
 * is judged against each slave (bonding/slaves, else lower_* links), never
 * against the bond's sum; a slave that is down fails (a LAG on one leg).
 */
#include <math.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/net.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/rails.h"
#include "preflight/strbuf.h"

/* RoCEv2 headers the kernel subtracts from the netdev MTU (iboe_get_mtu()). */
#define ROCE_HEADER_BYTES 96
#define MAX_PROBLEMS 6
#define MAX_LAG_SLAVES 8

struct nic_link_speed_cfg {
	double min_rate_gbps;
	uint64_t min_width;
	uint64_t expected_ports;
	bool infer;
	uint64_t active_mtu;
	uint64_t roce_netdev_mtu;
	char *ignore;
	char *nics;
};

static const struct pf_param nic_link_speed_params[] = {
	PF_PARAM_DOUBLE(struct nic_link_speed_cfg, min_rate_gbps, "0", 0, 1e6, "Gb/s",
			"minimum rate of every ACTIVE port; 0: only the inferred expectation"),
	PF_PARAM_U64(struct nic_link_speed_cfg, min_width, "0", 0, 12, "lanes",
		     "minimum link width (4 for 4X); 0: only the inferred expectation"),
	PF_PARAM_U64(struct nic_link_speed_cfg, expected_ports, "0", 0, 1024, "ports",
		     "number of RDMA ports the node must have (not counting ignored ones); "
		     "0: any"),
	PF_PARAM_BOOL(struct nic_link_speed_cfg, infer, "true",
		      "ports of the same HCA model must match the best rate and width among "
		      "them"),
	PF_PARAM_U64(struct nic_link_speed_cfg, active_mtu, "4096", 256, 4096, "bytes",
		     "IB MTU every port should get; for RoCE the netdev MTU must allow it "
		     "(4096 needs at least 4192)"),
	PF_PARAM_U64(struct nic_link_speed_cfg, roce_netdev_mtu, "9000", 0, 65536, "bytes",
		     "site MTU of RoCE netdevs; below it (but enough for active_mtu) warns; "
		     "0: not judged"),
	PF_PARAM_STRING(struct nic_link_speed_cfg, ignore, "",
			"ports not to judge: \"mlx5_0/1\" or a whole device \"mlx5_4\""),
	PF_PARAM_STRING(struct nic_link_speed_cfg, nics, "",
			"the workload's RDMA devices (as NCCL_IB_HCA, e.g. \"mlx5_0,mlx5_3\"): "
			"compared only with each other; a never-cabled port outside them is "
			"not judged; empty: every device"),
	PF_PARAM_END,
};

/* The best ACTIVE rate and width among ports of one HCA model. */
struct group_best {
	double rate_gbps;
	int width;
	int n_ports;
};

struct problem {
	enum pf_status status;
	unsigned int code; /* nic_link_speed_codes[]; 0 for an error */
	char text[160];
	char remedy[320];
};

struct verdict {
	struct problem p[MAX_PROBLEMS];
	size_t n;
};

static void problem(struct verdict *v, enum pf_status st, unsigned int code, const char *remedy,
		    const char *fmt, ...) PF_PRINTF(5, 6);
static void problem(struct verdict *v, enum pf_status st, unsigned int code, const char *remedy,
		    const char *fmt, ...)
{
	va_list ap;

	if (v->n == MAX_PROBLEMS)
		return;
	v->p[v->n].status = st;
	v->p[v->n].code = code;
	va_start(ap, fmt);
	vsnprintf(v->p[v->n].text, sizeof(v->p[v->n].text), fmt, ap);
	va_end(ap);
	snprintf(v->p[v->n].remedy, sizeof(v->p[v->n].remedy), "%s", remedy);
	v->n++;
}

/* Add @text to @sb with "<dev>" and "<netdev>" filled in. */
static void add_remedy(struct pf_strbuf *sb, const char *text, const char *dev, const char *netdev)
{
	while (*text) {
		if (!strncmp(text, "<dev>", 5)) {
			pf_strbuf_adds(sb, dev);
			text += 5;
		} else if (!strncmp(text, "<netdev>", 8)) {
			pf_strbuf_adds(sb, netdev);
			text += 8;
		} else {
			pf_strbuf_addch(sb, *text++);
		}
	}
}

static bool port_up(const struct pf_rdma_port *p)
{
	/* phys_state 0: unknown (an hwloc export carries only the state) */
	return p->state == 4 && (p->phys_state == 5 || p->phys_state == 0);
}

static bool ignored(const struct nic_link_speed_cfg *cfg, const struct pf_rdma_dev *d,
		    const struct pf_rdma_port *p)
{
	char key[96];

	snprintf(key, sizeof(key), "%s/%u", d->name, p->num);
	return pf_list_has(cfg->ignore, d->name) || pf_list_has(cfg->ignore, key);
}

/* How the rail model has a port judged. */
enum judged_as {
	AS_RAIL,   /* a compute rail (or no model entry, or `nics` set): fails */
	AS_OTHER,  /* storage or front-end: up and at its role's rate, warns at most */
	AS_UNUSED, /* unused (down and never linked, a VF of a present PF): a skip */
};

/*
 * What the port is judged as; *ret gets its model entry (NULL with `nics`
 * set, without a PCI function, or without a model: the rules of before).
 */
static enum judged_as judged_as(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
				const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
				const struct pf_rail_port **ret)
{
	const struct pf_rails *rails = ctx->rails;
	const struct pf_rail_port *rp = NULL;

	if (!cfg->nics[0] && d->pci >= 0)
		rp = pf_rails_port(rails, (int)(d - ctx->node->rdma), p->num);
	*ret = rp;
	if (!rp || rp->role == PF_ROLE_COMPUTE)
		return AS_RAIL;
	if (rp->role == PF_ROLE_UNUSED)
		return AS_UNUSED;
	/* rails found by rate alone: a slower port of their link layer may be a degraded rail */
	if (!rp->declared && rails->rule && !strcmp(rails->rule, "fastest") &&
	    rp->link_layer == rails->compute_link)
		return AS_RAIL;
	return AS_OTHER;
}

/*
 * HCA model and link layer (with `nics` set, the workload's devices and the
 * others apart): for a rail, the ports that must behave alike.
 */
static void model_of(const struct nic_link_speed_cfg *cfg, const struct pf_node *node,
		     const struct pf_rdma_dev *d, const struct pf_rdma_port *p, char *buf,
		     size_t len)
{
	const char *ll = p->link_layer == PF_LINK_ETH ? "RoCE" :
			 p->link_layer == PF_LINK_IB ? "IB" : "?";
	const char *role = !cfg->nics[0] ? "" : pf_list_has(cfg->nics, d->name) ? " (nics)" :
			   " (not in nics)";

	if (d->hca_type && *d->hca_type)
		snprintf(buf, len, "%s %s%s", d->hca_type, ll, role);
	else if (d->pci >= 0)
		snprintf(buf, len, "%04x:%04x %s%s", node->pci[d->pci].vendor,
			 node->pci[d->pci].device, ll, role);
	else
		snprintf(buf, len, "%s %s%s", d->name, ll, role);
}

/*
 * The group of ports that must behave alike: a rail's model (model_of); a
 * storage or front-end port's role and link layer, whatever its card.
 */
static void group_of_port(const struct nic_link_speed_cfg *cfg, const struct pf_node *node,
			  const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
			  enum judged_as as, const struct pf_rail_port *rp, char *buf, size_t len)
{
	if (as == AS_OTHER && rp)
		snprintf(buf, len, "%s %s", pf_port_role_name(rp->role),
			 p->link_layer == PF_LINK_ETH ? "RoCE" :
			 p->link_layer == PF_LINK_IB ? "IB" : "?");
	else
		model_of(cfg, node, d, p, buf, len);
}

/* The best of each model, computed once per run. */
struct group {
	char model[96];
	struct group_best best;
};

struct groups {
	struct group *v;
	size_t n;
};

static void groups_free(struct groups *g)
{
	free(g->v);
}

static struct group_best *group_of(const struct groups *g, const char *model)
{
	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].model, model))
			return &g->v[i].best;
	return NULL;
}

static void build_groups(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
			 struct groups *g)
{
	const struct pf_node *node = ctx->node;
	size_t cap = 0;
	char m[96];

	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];

		if (d->pci < 0)
			continue;
		for (size_t k = 0; k < d->n_ports; k++) {
			const struct pf_rdma_port *p = &d->ports[k];
			const struct pf_rail_port *rp;
			struct group_best *best;
			enum judged_as as;

			if (ignored(cfg, d, p))
				continue;
			as = judged_as(ctx, cfg, d, p, &rp);
			if (as == AS_UNUSED)
				continue;
			group_of_port(cfg, node, d, p, as, rp, m, sizeof(m));
			best = group_of(g, m);
			if (!best) {
				if (g->n == cap) {
					cap = cap ? cap * 2 : 4;
					g->v = pf_xrealloc(g->v, cap * sizeof(*g->v));
				}
				memset(&g->v[g->n], 0, sizeof(g->v[g->n]));
				snprintf(g->v[g->n].model, sizeof(g->v[g->n].model), "%s", m);
				best = &g->v[g->n++].best;
			}
			best->n_ports++;
			if (!port_up(p) || p->rate_gbps <= 0)
				continue;
			if (p->rate_gbps > best->rate_gbps) {
				best->rate_gbps = p->rate_gbps;
				best->width = p->width;
			} else if (p->rate_gbps == best->rate_gbps && p->width > best->width) {
				best->width = p->width;
			}
		}
	}
}

static const char *rate_text(const struct pf_rdma_port *p, char *buf, size_t len)
{
	if (p->speed_name && *p->speed_name)
		snprintf(buf, len, "%g Gb/s (%dX %s)", p->rate_gbps, p->width, p->speed_name);
	else
		snprintf(buf, len, "%g Gb/s (%dX)", p->rate_gbps, p->width);
	return buf;
}

/* The smallest netdev MTU that gives a RoCE path MTU of @ib_mtu. */
static int64_t netdev_mtu_for(uint64_t ib_mtu)
{
	return (int64_t)ib_mtu + ROCE_HEADER_BYTES;
}

/* The RoCE path MTU the kernel derives from a netdev MTU (0 below 256). */
static int roce_mtu_of(int64_t netdev_mtu)
{
	int64_t m = netdev_mtu - ROCE_HEADER_BYTES;

	for (int ib = 4096; ib >= 256; ib /= 2)
		if (m >= ib)
			return ib;
	return 0;
}

/* A netdev's speed in Mb/s: the linkmodes provider when it has one, else sysfs; -1 unknown. */
static int64_t netdev_speed(const struct pf_ctx *ctx, const struct pf_netdev *nd,
			    const char **ret_src)
{
	struct pf_linkmodes lm;

	if (ctx->prov && ctx->prov->linkmodes(ctx, nd->name, &lm) == 0 && lm.speed_mbps != PF_SPEED_UNKNOWN) {
		*ret_src = "ethtool";
		return lm.speed_mbps;
	}
	*ret_src = "sysfs";
	return nd->speed_mbps;
}

/* RoCE: netdev speed and MTU. */
static void judge_netdev(const struct nic_link_speed_cfg *cfg, const struct pf_rdma_port *p,
			 const struct pf_netdev *nd, int64_t speed, const char *speed_src,
			 struct verdict *v, bool up)
{
	if (up) {
		double want = p->rate_gbps * 1000;

		if (speed < 0)
			problem(v, PF_STATUS_WARN, 1,
				"check `ethtool <netdev>`: the driver reports no speed for an "
				"active link",
				"%s speed unknown while the port is ACTIVE", nd->name);
		else if (p->rate_gbps > 0 && fabs((double)speed - want) > 0.5)
			problem(v, PF_STATUS_FAIL, 2,
				"compare `ethtool <netdev>` with the port rate; a forced speed or "
				"a rate cap on the netdev differs from what the port negotiated",
				"%s at %lld Mb/s (%s), port at %g Gb/s", nd->name,
				(long long)speed, speed_src, p->rate_gbps);
	}
	if (nd->mtu >= 0) {
		int roce = roce_mtu_of(nd->mtu);

		if (roce < (int)cfg->active_mtu)
			problem(v, PF_STATUS_FAIL, 3,
				"raise the netdev MTU (ip link set <netdev> mtu 9000, persisted in "
				"the network configuration) and the switch port MTU to match",
				"%s MTU %lld gives RoCE MTU %d, expected %llu (needs MTU >= %lld)",
				nd->name, (long long)nd->mtu, roce,
				(unsigned long long)cfg->active_mtu,
				(long long)netdev_mtu_for(cfg->active_mtu));
		else if (cfg->roce_netdev_mtu && nd->mtu < (int64_t)cfg->roce_netdev_mtu)
			problem(v, PF_STATUS_WARN, 4,
				"set the site MTU on the netdev (ip link set <netdev> mtu 9000) "
				"and on the switch ports",
				"%s MTU %lld below the site MTU %llu", nd->name, (long long)nd->mtu,
				(unsigned long long)cfg->roce_netdev_mtu);
	}
}


/* The slaves of a bond or team netdev, as the inventory read them (at most @max). */
static size_t lag_slaves(const struct pf_netdev *nd, char (*out)[IF_NAMESIZE + 1], size_t max)
{
	size_t n = 0;

	for (char **s = nd->slaves; s && *s && n < max; s++)
		snprintf(out[n++], IF_NAMESIZE + 1, "%s", *s);
	return n;
}

/*
 * RoCE LAG: each slave against the port's own rate.  Returns the slaves as
 * an observed array.
 */
static cJSON *judge_lag(const struct pf_ctx *ctx, const struct pf_rdma_port *p,
			const struct pf_netdev *bond, char (*slaves)[IF_NAMESIZE + 1], size_t n,
			struct verdict *v)
{
	cJSON *arr = cJSON_CreateArray();
	double want = p->rate_gbps * 1000;

	for (size_t i = 0; i < n; i++) {
		const struct pf_netdev *sl = pf_node_netdev(ctx->node, slaves[i]);
		cJSON *o = cJSON_CreateObject();
		const char *src = "sysfs";
		int64_t speed = -1;
		bool down;

		cJSON_AddStringToObject(o, "netdev", slaves[i]);
		cJSON_AddItemToArray(arr, o);
		if (!sl) {
			problem(v, PF_STATUS_WARN, 5, "check `cat /proc/net/bonding/<netdev>`",
				"%s member %s not found under /sys/class/net", bond->name, slaves[i]);
			continue;
		}
		speed = netdev_speed(ctx, sl, &src);
		down = (sl->operstate && strcmp(sl->operstate, "up")) || speed < 0;
		if (sl->operstate)
			cJSON_AddStringToObject(o, "operstate", sl->operstate);
		if (speed >= 0)
			cJSON_AddNumberToObject(o, "speed_mbps", (double)speed);
		if (down) {
			problem(v, PF_STATUS_FAIL, 6,
				"check the cable, transceiver and switch port of the down member "
				"(ethtool, mlxlink); cat /proc/net/bonding/<netdev> shows the LAG state",
				"%s member %s down (%s): the LAG runs on fewer links", bond->name,
				slaves[i], sl->operstate ? sl->operstate : "no speed");
			continue;
		}
		if (p->rate_gbps > 0 && fabs((double)speed - want) > 0.5)
			problem(v, PF_STATUS_FAIL, 7,
				"compare `ethtool` of each bond member with the port rate; reseat or "
				"replace the slow member's cable or transceiver",
				"%s member %s at %lld Mb/s (%s), port at %g Gb/s", bond->name, slaves[i],
				(long long)speed, src, p->rate_gbps);
	}
	return arr;
}

static const char *down_remedy(const struct pf_rdma_port *p)
{
	if (p->phys_state == 5)
		return "the link is up but the port is not ACTIVE: no subnet manager has "
		       "configured it; check opensm or the fabric's SM (sminfo, ibstat)";
	if (p->link_layer == PF_LINK_ETH)
		return "bring the netdev up (ip link set <netdev> up); check the cable or "
		       "transceiver and the switch port (ethtool <netdev>, mlxlink)";
	return "check the cable or transceiver and the switch port (ibstat, mlxlink); "
	       "Polling means the port sees no link partner, Disabled that it was "
	       "administratively disabled";
}


/*
 * A card in its own role: every ACTIVE port of the PCI slot (domain:bus:dev,
 * all functions) of @d runs at @rate, it has 2 or more ports, and none
 * reaches the model's best: the ports of a dual-port card cabled for another
 * network (BlueField-3 2x200G north/south beside 400G compute rails).  One
 * port slow among its card's fast siblings is not.  Returns the ports.
 */
static size_t card_role(const struct pf_node *node, const struct pf_rdma_dev *d, double rate,
			double best)
{
	const char *bdf = node->pci[d->pci].bdf;
	size_t n = 0;

	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *o = &node->rdma[i];

		if (o->pci < 0 || strncmp(node->pci[o->pci].bdf, bdf, 10))
			continue;
		for (size_t k = 0; k < o->n_ports; k++) {
			const struct pf_rdma_port *q = &o->ports[k];

			n++;
			if (port_up(q) && (q->rate_gbps != rate || q->rate_gbps >= best))
				return 0;
		}
	}
	return n >= 2 ? n : 0;
}

enum down_kind { DOWN_UNKNOWN, DOWN_NEVER_CABLED, DOWN_WENT_DOWN };

/*
 * A DOWN port that never had a link since boot (link_downed 0, phys_state
 * Polling or Disabled: no partner, or disabled) from a rail that went down
 * (link_downed > 0).  Unknown without the counter (a topology export).
 */
static enum down_kind down_kind(const struct pf_ctx *ctx, const struct pf_rdma_dev *d,
				const struct pf_rdma_port *p, uint64_t *ret_downed)
{
	/* counters/link_downed, or rxe's hw_counters/link_downed */
	if (pf_port_counter(ctx->fs, d->name, p->num, "link_downed", ret_downed, NULL, NULL) < 0)
		return DOWN_UNKNOWN;
	if (*ret_downed > 0)
		return DOWN_WENT_DOWN;
	if (p->phys_state == 2 || p->phys_state == 3)
		return DOWN_NEVER_CABLED;
	return DOWN_UNKNOWN;
}

/* What judge_port learns about one port before it writes the finding. */
struct port_eval {
	const struct pf_netdev *nd;
	struct verdict v;
	char subject[96], model[96], group[96], rt[64];
	struct group_best best;
	double want_rate;
	int want_width;
	bool up, card_own_role, bond_unrecorded;
	bool no_model;     /* no PCI function: state judged, rate not */
	enum judged_as as; /* by the port's role in the rail model */
	const struct pf_rail_port *rp; /* its model entry, NULL none */
	const char *peers; /* the ports its rate is compared with, in words */
	size_t card_ports, n_slaves;
	enum down_kind dk;
	uint64_t downed;
	const char *speed_src;
	int64_t nd_speed;
	char slaves[MAX_LAG_SLAVES][IF_NAMESIZE + 1];
	cJSON *lag;
};

/*
 * Plan: the port's role and group, the rate and width it is held to (its
 * group's best; a rail's also the profile's minimum; a port whose card runs
 * all its ports slower, outside a GPU's rails, its card's), and for a down
 * port whether it ever had a link.
 */
static void port_plan(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
		      const struct groups *groups, const struct pf_rdma_dev *d,
		      const struct pf_rdma_port *p, struct port_eval *e)
{
	const struct pf_node *node = ctx->node;
	const struct group_best *gb;

	e->nd = p->netdev >= 0 ? &node->netdevs[p->netdev] : NULL;
	e->as = judged_as(ctx, cfg, d, p, &e->rp);
	/* the profile's minimums are the rails': another role is held to its own best */
	e->want_rate = e->as == AS_OTHER ? 0 : cfg->min_rate_gbps;
	e->want_width = e->as == AS_OTHER ? 0 : (int)cfg->min_width;
	e->peers = e->as == AS_OTHER ? "the other ports of its role" :
				       "its siblings of the same model";
	e->up = port_up(p);
	e->speed_src = "sysfs";
	e->nd_speed = -1;
	e->dk = DOWN_UNKNOWN;
	snprintf(e->subject, sizeof(e->subject), "%s/%u", d->name, p->num);
	model_of(cfg, node, d, p, e->model, sizeof(e->model));
	group_of_port(cfg, node, d, p, e->as, e->rp, e->group, sizeof(e->group));
	gb = group_of(groups, e->group);
	e->best = gb ? *gb : (struct group_best){ 0 };
	if (cfg->infer && e->as == AS_RAIL && (!e->rp || e->rp->role != PF_ROLE_COMPUTE) &&
	    e->best.n_ports > 1 && e->up && p->rate_gbps > 0 &&
	    p->rate_gbps < e->best.rate_gbps && d->pci >= 0 &&
	    (e->card_ports = card_role(node, d, p->rate_gbps, e->best.rate_gbps))) {
		/* no GPU's rail, and its card runs all its ports at this rate: its own group */
		e->best.rate_gbps = p->rate_gbps;
		e->best.width = p->width;
		e->card_own_role = true;
	}
	if (cfg->infer && e->best.n_ports > 1) {
		e->want_rate = fmax(e->want_rate, e->best.rate_gbps);
		e->want_width = e->want_width > e->best.width ? e->want_width : e->best.width;
	}
	if (d->pci < 0) {
		/* rxe, scif0: no model to hold the rate to (rxe reports its netdev's) */
		e->no_model = true;
		e->want_rate = 0;
		e->want_width = 0;
	}
	if (!e->up)
		e->dk = down_kind(ctx, d, p, &e->downed);
}

/* A down port: a problem, or false after a skip finding (never cabled, outside nics). */
static bool judge_down(const struct nic_link_speed_cfg *cfg, const struct pf_rdma_dev *d,
		       const struct pf_rdma_port *p, struct port_eval *e, struct pf_result *res)
{
	struct pf_finding *f;

	if (e->dk == DOWN_NEVER_CABLED && cfg->nics[0] && !pf_list_has(cfg->nics, d->name)) {
		f = pf_add(res, PF_STATUS_SKIP, e->subject, "%s (%s) since boot, never had a link "
			   "(link_downed 0): not cabled, and not in nic_link_speed.nics: not judged",
			   p->state_name ? p->state_name : "state unknown",
			   p->phys_state_name ? p->phys_state_name : "phys_state unknown");
		pf_obs_str(f, "down", "never_cabled");
		pf_obs_num(f, "link_downed", 0);
		return false;
	} else if (e->dk == DOWN_NEVER_CABLED) {
		/* a rail that never came up, or (without nics) a port that may be unused */
		char fix[512];

		snprintf(fix, sizeof(fix), "%s%s", down_remedy(p), cfg->nics[0] ? "" :
			 "; if it is unused on purpose, list the workload's devices in "
			 "nic_link_speed.nics");
		problem(&e->v, PF_STATUS_FAIL, 8, fix,
			"%s (%s), never had a link since boot (link_downed 0): %s",
			p->state_name ? p->state_name : "state unknown",
			p->phys_state_name ? p->phys_state_name : "phys_state unknown",
			cfg->nics[0] ? "a rail of nic_link_speed.nics never came up" :
				       "not cabled or disabled, not a rail that went down");
	} else {
		problem(&e->v, PF_STATUS_FAIL, 9, down_remedy(p), "%s (%s), not ACTIVE (LinkUp)%s",
			p->state_name ? p->state_name : "state unknown",
			p->phys_state_name ? p->phys_state_name : "phys_state unknown",
			e->dk == DOWN_WENT_DOWN ?
			": the link went down (link_downed > 0 since boot)" :
			"; whether it ever had a link is unknown (no link_downed counter)");
	}
	return true;
}

/*
 * A port whose state file gave nothing: whether it is ACTIVE is unknown, so
 * it is never a fail (docs/snapshot.md: absent data is a skip naming what is
 * missing).  Under a root that did not capture it: a skip naming the file;
 * a topology export holds no port files; live: an error, the kernel's file
 * should be there.
 */
static void judge_no_state(const struct pf_ctx *ctx, const struct pf_rdma_dev *d,
			   const struct pf_rdma_port *p, struct port_eval *e,
			   struct pf_result *res)
{
	struct pf_finding *f;

	if (pf_prov_can(ctx, PF_PROV_NODE) && pf_node_holds(ctx->node, PF_NODE_NO_PORT_RATES))
		f = pf_add(res, PF_STATUS_ERROR, e->subject, "cannot read "
			   "/sys/class/infiniband/%s/ports/%u/state: whether the port is ACTIVE "
			   "is unknown", d->name, p->num);
	else if (!pf_node_holds(ctx->node, PF_NODE_NO_PORT_RATES))
		f = pf_add(res, PF_STATUS_SKIP, e->subject, "the topology export carries no "
			   "port state: whether the port is ACTIVE is unknown");
	else
		f = pf_add(res, PF_STATUS_SKIP, e->subject, "not captured: "
			   "/sys/class/infiniband/%s/ports/%u/state is absent under the root, so "
			   "whether the port is ACTIVE is unknown", d->name, p->num);
	pf_obs_str(f, "state", "not captured");
}

/*
 * An ACTIVE port without a rate: an error naming why the file gave nothing,
 * or false after a skip finding (a topology export carries no rates).
 */
static bool judge_no_rate(const struct pf_ctx *ctx, const struct pf_rdma_dev *d,
			  const struct pf_rdma_port *p, struct port_eval *e, struct pf_result *res)
{
	char uidbuf[32];
	int r = p->rate_err;

	if (!pf_node_holds(ctx->node, PF_NODE_NO_PORT_RATES)) {
		struct pf_finding *f = pf_add(res, PF_STATUS_SKIP, e->subject,
					      "ACTIVE; the topology export carries no port rate");

		pf_obs_str(f, "state", p->state_name ? p->state_name : "");
		return false;
	}
	/* why the inventory found no rate: its errno reading the file */
	if (r == -EACCES || r == -EPERM)
		problem(&e->v, PF_STATUS_ERROR, 0, "run preflight as root, or make the file readable",
			"ACTIVE but /sys/class/infiniband/%s/ports/%u/rate is unreadable: %s%s",
			d->name, p->num, strerror(-r), pf_euid_note(ctx, uidbuf));
	else
		problem(&e->v, PF_STATUS_ERROR, 0, "read /sys/class/infiniband/<dev>/ports/<n>/rate",
			"ACTIVE but the rate is unreadable ('%s')",
			p->rate ? p->rate : r < 0 ? strerror(-r) : "absent");
	return true;
}

/* An ACTIVE port with a rate: fewer lanes or a lower rate than it is held to fails. */
static void judge_rate(const struct nic_link_speed_cfg *cfg, const struct pf_rdma_port *p,
		       struct port_eval *e)
{
	rate_text(p, e->rt, sizeof(e->rt));
	if (e->want_width > 0 && p->width > 0 && p->width < e->want_width)
		problem(&e->v, PF_STATUS_FAIL, 10,
			"a lane is down: reseat or replace the cable or transceiver; "
			"mlxlink -d <dev> shows the lane status",
			"active at %s: %d lanes where %s%s %dX", e->rt, p->width,
			cfg->infer && e->best.width == e->want_width ? e->peers :
			"the profile expects", cfg->infer && e->best.width == e->want_width ?
			" run" : "", e->want_width);
	else if (e->want_rate > 0 && p->rate_gbps < e->want_rate - 1e-9)
		problem(&e->v, PF_STATUS_FAIL, 11,
			"reseat or replace the cable or transceiver; check the switch port "
			"speed (mlxlink -d <dev> shows the negotiated speed)",
			"active at %s, expected at least %g Gb/s%s%s", e->rt, e->want_rate,
			cfg->infer && e->best.rate_gbps == e->want_rate &&
			e->want_rate > cfg->min_rate_gbps ? " like " : "",
			cfg->infer && e->best.rate_gbps == e->want_rate &&
			e->want_rate > cfg->min_rate_gbps ? e->peers : "");
}

/*
 * RoCE: the netdev's speed and MTU, or each LAG member's speed; a virtual
 * netdev at a whole multiple of the port rate whose members are not
 * recorded (a snapshot older than bonding/slaves) is a bond, not judged.
 */
static void judge_roce(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
		       const struct pf_rdma_port *p, struct port_eval *e)
{
	const struct pf_netdev *nd = e->nd;
	if (!nd) {
		problem(&e->v, PF_STATUS_WARN, 12,
			"find the port's netdev with `rdma link show`; without it speed and "
			"MTU cannot be verified",
			"no netdev found for this RoCE port");
		return;
	}
	/* a bond's speed is its slaves' sum: judge the slaves, the bond's MTU */
	if (e->n_slaves && e->up)
		e->lag = judge_lag(ctx, p, nd, e->slaves, e->n_slaves, &e->v);
	if (!e->n_slaves && e->up && p->rate_gbps > 0 && e->nd_speed > 0 && nd->is_virtual &&
	    fmod((double)e->nd_speed, p->rate_gbps * 1000) < 0.5 &&
	    (double)e->nd_speed >= 2 * p->rate_gbps * 1000) {
		e->bond_unrecorded = true;
		problem(&e->v, PF_STATUS_WARN, 13, "capture /sys/class/net/<netdev>/bonding/slaves "
			"(preflight snapshot records it) or run on the node",
			"%s at %lld Mb/s, %g x the port rate: a bond (RoCE LAG) whose members "
			"are not recorded; its speed is their sum, not judged", nd->name,
			(long long)e->nd_speed, (double)e->nd_speed / (p->rate_gbps * 1000));
	}
	judge_netdev(cfg, p, nd, e->nd_speed, e->speed_src, &e->v,
		     e->up && !e->n_slaves && !e->bond_unrecorded);
}

/* Judge: every problem of the port, in order; false when a skip finding was added. */
static bool port_judge(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
		       const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
		       struct port_eval *e, struct pf_result *res)
{
	if (!e->up && !p->state_name) {
		judge_no_state(ctx, d, p, e, res);
		return false;
	}
	if (!e->up) {
		if (!judge_down(cfg, d, p, e, res))
			return false;
	} else if (p->rate_gbps <= 0) {
		if (!judge_no_rate(ctx, d, p, e, res))
			return false;
	} else {
		judge_rate(cfg, p, e);
	}
	if (p->active_mtu > 0 && e->up && p->active_mtu < (int)cfg->active_mtu)
		problem(&e->v, PF_STATUS_WARN, 14,
			p->link_layer == PF_LINK_ETH ? "raise the netdev MTU" :
			"set the partition MTU to 4096 in the subnet manager (opensm partitions.conf "
			"mtu=5)", "active MTU %d, expected %llu", p->active_mtu,
			(unsigned long long)cfg->active_mtu);
	if (e->nd) /* one provider call per netdev: live, it is a netlink request */
		e->nd_speed = p->link_layer == PF_LINK_ETH ?
			      netdev_speed(ctx, e->nd, &e->speed_src) : e->nd->speed_mbps;
	if (p->link_layer == PF_LINK_ETH && e->nd)
		e->n_slaves = lag_slaves(e->nd, e->slaves, MAX_LAG_SLAVES);
	if (p->link_layer == PF_LINK_ETH)
		judge_roce(ctx, cfg, p, e);
	return true;
}

/* Report: the port's finding - its worst problem, every problem's text, their remedies. */
static struct pf_finding *port_finding(const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
				       const struct port_eval *e, struct pf_result *res)
{
	const struct pf_netdev *nd = e->nd;
	pf_autostrbuf struct pf_strbuf msg = PF_STRBUF_INIT, remedy = PF_STRBUF_INIT;
	enum pf_status st = PF_STATUS_PASS;
	unsigned int code = 0; /* the first worst problem's */
	struct pf_finding *f;

	for (size_t i = 0; i < e->v.n; i++)
		st = pf_status_worst(st, e->v.p[i].status);
	for (size_t i = 0; i < e->v.n && !code; i++)
		if (e->v.p[i].status == st)
			code = e->v.p[i].code;
	if (e->v.n == 0) {
		if (nd && p->link_layer == PF_LINK_ETH && e->n_slaves)
			pf_strbuf_addf(&msg, "ACTIVE at %s, LAG %s of %zu members at the port "
				 "rate, MTU %lld", e->rt, nd->name, e->n_slaves, (long long)nd->mtu);
		else if (nd && p->link_layer == PF_LINK_ETH)
			pf_strbuf_addf(&msg, "ACTIVE at %s, %s MTU %lld", e->rt, nd->name,
				 (long long)nd->mtu);
		else if (e->card_own_role)
			pf_strbuf_addf(&msg, "ACTIVE at %s, like every active port of its "
				 "%zu-port card: a role of its own, not held to the model's faster "
				 "ports", e->rt, e->card_ports);
		else
			pf_strbuf_addf(&msg, "ACTIVE at %s", e->rt);
		if (e->no_model)
			pf_strbuf_adds(&msg, " (no PCI function: state judged, rate not)");
	}
	for (size_t i = 0; i < e->v.n; i++) {
		pf_strbuf_adds(pf_strbuf_sep(&msg, "; "), e->v.p[i].text);
		if (e->v.p[i].status != PF_STATUS_PASS && !strstr(remedy.buf, e->v.p[i].remedy))
			add_remedy(pf_strbuf_sep(&remedy, "; "), e->v.p[i].remedy, d->name,
				   nd ? nd->name : "<netdev>");
	}
	if (e->as == AS_OTHER && st == PF_STATUS_FAIL) {
		/* not a compute rail: NCCL does not use it, a job does not wait on it */
		st = PF_STATUS_WARN;
		pf_strbuf_addf(&msg, " (a %s port, not a compute rail: warns at most)",
			       pf_port_role_name(e->rp->role));
	}
	f = pf_add(res, st, e->subject, "%s", msg.buf);
	if (st != PF_STATUS_PASS && remedy.len)
		pf_remedy(f, "%s", remedy.buf);
	if (code)
		pf_code(f, code);
	return f;
}

/* Report: what the port was seen as (state, rate, model, down kind, role, netdev). */
static void port_observed(struct pf_finding *f, const struct pf_node *node,
			  const struct pf_rdma_dev *d, const struct pf_rdma_port *p,
			  struct port_eval *e)
{
	const struct pf_netdev *nd = e->nd;

	pf_obs_str(f, "state", p->state_name ? p->state_name : "unknown");
	pf_obs_str(f, "phys_state", p->phys_state_name ? p->phys_state_name : "unknown");
	if (e->up && p->rate_gbps > 0) {
		char w[16];

		snprintf(w, sizeof(w), "%dX", p->width);
		pf_obs_num(f, "rate_gbps", p->rate_gbps);
		pf_obs_str(f, "width", w);
		if (p->speed_name && *p->speed_name)
			pf_obs_str(f, "speed", p->speed_name);
	} else if (p->rate) {
		pf_obs_str(f, "rate_reported", p->rate); /* not trusted on a down port */
	}
	pf_obs_str(f, "link_layer", p->link_layer == PF_LINK_ETH ? "Ethernet" :
		   p->link_layer == PF_LINK_IB ? "InfiniBand" : "unknown");
	pf_obs_str(f, "model", e->model);
	if (!e->up)
		pf_obs_str(f, "down", e->dk == DOWN_NEVER_CABLED ? "never_cabled" :
			   e->dk == DOWN_WENT_DOWN ? "went_down" : "unknown");
	if (!e->up && e->dk != DOWN_UNKNOWN)
		pf_obs_num(f, "link_downed", (double)e->downed);
	if (e->card_own_role) {
		pf_obs_str(f, "role", "card");
		pf_obs_num(f, "card_ports", (double)e->card_ports);
	} else if (e->rp && e->rp->role != PF_ROLE_COMPUTE) {
		/* the report's node.rails has every port's role; here what changed the verdict */
		pf_obs_str(f, "role", pf_port_role_name(e->rp->role));
	}
	if (d->pci >= 0)
		pf_obs_str(f, "pci", node->pci[d->pci].bdf);
	if (p->active_mtu > 0)
		pf_obs_num(f, "active_mtu", p->active_mtu);
	if (nd) {
		pf_obs_str(f, "netdev", nd->name);
		if (e->nd_speed >= 0)
			pf_obs_num(f, "netdev_speed_mbps", (double)e->nd_speed);
		if (nd->mtu >= 0)
			pf_obs_num(f, "netdev_mtu", (double)nd->mtu);
		if (nd->operstate)
			pf_obs_str(f, "operstate", nd->operstate);
	}
	if (e->lag) {
		pf_obs_json(f, "lag_members", e->lag);
		e->lag = NULL;
	}
}

/* Report: what the port was held to. */
static void port_expected(struct pf_finding *f, const struct nic_link_speed_cfg *cfg,
			  const struct pf_rdma_port *p, const struct port_eval *e)
{
	pf_exp_str(f, "state", "ACTIVE");
	pf_exp_str(f, "phys_state", "LinkUp");
	if (e->want_rate > 0)
		pf_exp_num(f, "min_rate_gbps", e->want_rate);
	if (e->want_width > 0) {
		char w[16];

		snprintf(w, sizeof(w), "%dX", e->want_width);
		pf_exp_str(f, "width", w);
	}
	if (p->link_layer == PF_LINK_ETH) {
		pf_exp_num(f, "min_netdev_mtu", (double)netdev_mtu_for(cfg->active_mtu));
		if (cfg->roce_netdev_mtu)
			pf_exp_num(f, "site_netdev_mtu", (double)cfg->roce_netdev_mtu);
	}
}

/*
 * One port: plan what it is held to, judge it, report one finding; false
 * when the rail model calls it unused (a skip with the reason).
 */
static bool judge_port(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
		       const struct groups *groups, const struct pf_rdma_dev *d,
		       const struct pf_rdma_port *p, struct pf_result *res)
{
	struct port_eval e = { .v.n = 0 };
	struct pf_finding *f;

	port_plan(ctx, cfg, groups, d, p, &e);
	if (e.as == AS_UNUSED) {
		f = pf_add(res, PF_STATUS_SKIP, e.subject, "%s (%s): unused port (%s), not judged",
			   p->state_name ? p->state_name : "state unknown",
			   p->phys_state_name ? p->phys_state_name : "phys_state unknown",
			   e.rp->reason);
		pf_obs_str(f, "role", pf_port_role_name(e.rp->role));
		pf_obs_str(f, "state", p->state_name ? p->state_name : "unknown");
		return false;
	}
	if (!port_judge(ctx, cfg, d, p, &e, res))
		return true;
	f = port_finding(d, p, &e, res);
	port_observed(f, ctx->node, d, p, &e);
	port_expected(f, cfg, p, &e);
	return true;
}

/* What the run counted over the ports. */
struct run_tally {
	size_t judged, bad, skipped;
	size_t with_pci;  /* judged ports of a PCI function: what expected_ports counts */
	double rate;
	bool uniform;
};

/* One device: a skip or error when it has nothing to judge, else each of its ports. */
static void judge_device(const struct pf_ctx *ctx, const struct nic_link_speed_cfg *cfg,
			 const struct groups *groups, const struct pf_rdma_dev *d,
			 struct run_tally *t, struct pf_result *res)
{
	if (d->n_ports == 0 && d->pci < 0) {
		pf_add(res, PF_STATUS_SKIP, d->name, "no ports and no PCI function behind this "
		       "RDMA device (virtual or software device): not judged");
		t->skipped++;
		return;
	}
	if (d->n_ports == 0 && !pf_node_holds(ctx->node, PF_NODE_NO_PORT_LIST)) {
		pf_add(res, PF_STATUS_SKIP, d->name, "the topology export records no ports "
		       "for %s: not judged", d->name);
		t->skipped++;
		return;
	}
	if (d->n_ports == 0) {
		struct pf_finding *f = pf_add(res, PF_STATUS_ERROR, d->name,
					      "RDMA device without readable ports");

		pf_remedy(f, "check the driver (dmesg | grep %s)", d->name);
		return;
	}
	for (size_t k = 0; k < d->n_ports; k++) {
		const struct pf_rdma_port *p = &d->ports[k];
		const struct pf_finding *f;

		if (ignored(cfg, d, p)) {
			char key[96];

			snprintf(key, sizeof(key), "%s/%u", d->name, p->num);
			pf_add(res, PF_STATUS_SKIP, key, "ignored by the profile");
			t->skipped++;
			continue;
		}
		if (!judge_port(ctx, cfg, groups, d, p, res)) {
			/* unused: skipped, yet a port of the node (expected_ports) */
			t->skipped++;
			t->with_pci += d->pci >= 0;
			continue;
		}
		f = pf_last(res);
		t->judged++;
		t->with_pci += d->pci >= 0;
		if (f->status == PF_STATUS_FAIL || f->status == PF_STATUS_ERROR)
			t->bad++;
		if (t->rate < 0)
			t->rate = p->rate_gbps;
		else if (t->rate != p->rate_gbps)
			t->uniform = false;
	}
}

/* expected_ports: fewer judged ports fail, more warn; true when the count is off. */
static bool judge_port_count(const struct nic_link_speed_cfg *cfg, const struct run_tally *t,
			     struct pf_result *res)
{
	struct pf_finding *f;

	if (!cfg->expected_ports || t->with_pci == cfg->expected_ports)
		return false;
	f = pf_add(res, t->with_pci < cfg->expected_ports ? PF_STATUS_FAIL : PF_STATUS_WARN,
		   "ports", "%zu RDMA ports, expected %llu", t->with_pci,
		   (unsigned long long)cfg->expected_ports);
	pf_obs_num(f, "ports", (double)t->with_pci);
	pf_exp_num(f, "ports", (double)cfg->expected_ports);
	pf_remedy(f, "check that every HCA is seated and its driver loaded "
		  "(lspci -d 15b3:, ibstat, dmesg | grep mlx5)");
	pf_code(f, t->with_pci < cfg->expected_ports ? 15 : 16);
	return t->with_pci < cfg->expected_ports;
}

/* The summary: the first bad port, a short port count, or the one rate all ports run at. */
static void run_summary(const struct nic_link_speed_cfg *cfg, const struct pf_node *node,
			const struct run_tally *t, size_t bad, struct pf_result *res)
{
	size_t judged = t->judged, bad_ports = t->bad;

	if (bad_ports) {
		const struct pf_finding *first = NULL;

		for (size_t i = 0; i < res->n_findings && !first; i++)
			if (res->findings[i].status == PF_STATUS_FAIL ||
			    res->findings[i].status == PF_STATUS_ERROR)
				first = &res->findings[i];
		pf_summary(res, "%zu of %zu port%s not at the expected state or rate (first: %s: %s)%s",
			   bad_ports, judged, judged == 1 ? "" : "s",
			   first && first->subject ? first->subject : "?",
			   first ? first->message : "?",
			   bad > bad_ports ? "; fewer ports than expected" : "");
	} else if (bad) {
		pf_summary(res, "%zu RDMA port%s, expected %llu", judged, judged == 1 ? "" : "s",
			   (unsigned long long)cfg->expected_ports);
	}
	else if (t->rate == 0 && t->uniform && !pf_node_holds(node, PF_NODE_NO_PORT_RATES))
		pf_summary(res, "%zu port%s ACTIVE; the topology export carries no rates", judged,
			   judged == 1 ? "" : "s");
	else if (t->uniform && t->rate > 0)
		pf_summary(res, "%zu port%s ACTIVE at %g Gb/s", judged, judged == 1 ? "" : "s",
			   t->rate);
}

static int nic_link_speed_run(const struct pf_ctx *ctx, const void *config,
			      struct pf_result *res)
{
	const struct nic_link_speed_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct groups groups PF_CLEANUP(groups_free) = { 0 };
	struct run_tally t = { .rate = -1, .uniform = true };
	size_t bad;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	build_groups(ctx, cfg, &groups);
	for (size_t i = 0; i < node->n_rdma; i++)
		judge_device(ctx, cfg, &groups, &node->rdma[i], &t, res);
	bad = t.bad + judge_port_count(cfg, &t, res);
	if (t.judged == 0 && !cfg->expected_ports) {
		if (t.skipped == 0)
			return pf_skip(res, "no RDMA devices under /sys/class/infiniband");
		pf_summary(res, "no RDMA port judged (%zu skipped)", t.skipped);
		return 0;
	}
	run_summary(cfg, node, &t, bad, res);
	return 0;
}

static const struct pf_code nic_link_speed_codes[] = {
	{ 1, PF_ACTION_NONE, "a RoCE port is ACTIVE but its netdev reports no speed" },
	{ 2, PF_ACTION_RECONFIGURE, "a RoCE port's netdev speed differs from the port rate (a forced speed or a rate cap)" },
	{ 3, PF_ACTION_RECONFIGURE, "a RoCE netdev's MTU gives a RoCE MTU below the expected active MTU" },
	{ 4, PF_ACTION_RECONFIGURE, "a RoCE netdev's MTU is below the site MTU" },
	{ 5, PF_ACTION_NONE, "a member of a RoCE LAG is not found under /sys/class/net" },
	{ 6, PF_ACTION_RESEAT_OR_REPLACE, "a member of a RoCE LAG is down: the LAG runs on fewer links" },
	{ 7, PF_ACTION_RESEAT_OR_REPLACE, "a member of a RoCE LAG runs slower than the port rate" },
	{ 8, PF_ACTION_RESEAT_OR_REPLACE, "a port never had a link since boot (not cabled or disabled)" },
	{ 9, PF_ACTION_RESEAT_OR_REPLACE, "a port is not ACTIVE (its link went down, or whether it ever had one is unknown)" },
	{ 10, PF_ACTION_RESEAT_OR_REPLACE, "a port is ACTIVE with fewer lanes than expected" },
	{ 11, PF_ACTION_RESEAT_OR_REPLACE, "a port is ACTIVE at a lower rate than expected" },
	{ 12, PF_ACTION_NONE, "no netdev found for a RoCE port: speed and MTU cannot be verified" },
	{ 13, PF_ACTION_NONE, "a bond (RoCE LAG) whose members are not recorded: its speed is not judged" },
	{ 14, PF_ACTION_RECONFIGURE, "a port's active MTU is below the expected one (netdev MTU, or the subnet manager's partition MTU)" },
	{ 15, PF_ACTION_RESEAT_OR_REPLACE, "fewer RDMA ports than the profile expects" },
	{ 16, PF_ACTION_RECONFIGURE, "more RDMA ports than the profile expects" },
	{ 0 },
};

const struct pf_check pf_check_nic_link_speed = {
	.name = "nic_link_speed",
	.summary = "RDMA ports ACTIVE at the expected rate and width; RoCE netdev speed and MTU",
	.tags = "rdma,static",
	.reads = "/sys/class/infiniband/*/ports/*/{state,phys_state,rate,link_layer,active_mtu}, "
		 "/sys/class/infiniband/*/ports/*/{counters,hw_counters}/link_downed, "
		 "/sys/class/infiniband/*/{hca_type,device}, /sys/class/net/<roce-if>/"
		 "{speed,mtu,operstate}, ethtool link modes of RoCE netdevs",
	.params = nic_link_speed_params,
	.codes = nic_link_speed_codes,
	.cfg_size = sizeof(struct nic_link_speed_cfg),
	.timeout_s = 10,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY,
	.run = nic_link_speed_run,
};
