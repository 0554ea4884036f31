// SPDX-License-Identifier: MIT
/*
 * gdr_loopback - RDMA WRITE loopback bandwidth per GPU/NIC pair, from host
 * memory and from GPU memory (GPUDirect RDMA), like perftest's ib_write_bw.
 *
 * Pairs: each GPU with its own rail in the rail model (rails.h: the
 * lowest-numbered compute rail serving that GPU, its port included), a GPU
 * the model gives no rail with its nearest NIC (src/node/gpu_nic.c, the map
 * gpu_nic_numa reports); with `nics` set, each GPU with its nearest NIC
 * among them; or the `pairs` list; without GPUs, every RDMA port.  Per NIC
 * port a host-memory run (buffers on the NIC's NUMA node), then per pair a
 * GPU-memory run (nvidia-peermem or DMA-BUF registration), through the
 * engine in src/traffic/loopback.c.  Verdicts: host >= host_min_fraction of the
 * port rate (warn below host_warn_fraction), GPU >= gpu_min_fraction of
 * the same NIC's host figure, the written data intact, and every WRITE of
 * the loopback's own QPs completed successfully (a retry exhausted is an
 * IBV_WC_RETRY_EXC_ERR / RNR_RETRY_EXC_ERR completion).  The port's error
 * counters are port-wide (every QP on the port counts: storage, other
 * jobs): their increase across the runs is reported as context, not judged.
 *
 * The check's deadline comes from its settings (gdr_loopback_deadline_s):
 * 15 s, plus per run (two per pair: host and GPU) the time the timed and
 * warm-up WRs take at 25 Gb/s (or duration_ms) plus 2 s of setup and one
 * completion timeout (timeout_ms plus cq_mod WRITEs at 25 Gb/s x
 * host_min_fraction; a slower port needs duration_ms or --timeout), for up to 8 pairs one after another; with `parallel`
 * one host round and two GPU rounds (GPUs sharing a NIC take turns).
 * --timeout overrides it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_nic.h"
#include "preflight/gpu_provider.h"
#include "preflight/loopback.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"
#include "preflight/rdma_select.h"

struct gdr_loopback_cfg {
	uint64_t msg_size, tx_depth, cq_mod, iterations, warmup, duration_ms, timeout_ms;
	double host_min_fraction, host_warn_fraction, gpu_min_fraction, expect_gbps;
	char *pairs;
	bool use_gpu, parallel;
	char *gpu_reg;
	char *nics;
	char *gdr_level;
};

static const struct pf_param gdr_loopback_params[] = {
	PF_PARAM_U64(struct gdr_loopback_cfg, msg_size, "8388608", 1, 1073741824, "bytes",
		     "bytes per RDMA WRITE (ib_write_bw -s; AzNHC uses 8 MiB, perftest 64 KiB)"),
	PF_PARAM_U64(struct gdr_loopback_cfg, tx_depth, "128", 1, 8192, "WRs",
		     "WRITEs outstanding (ib_write_bw -t)"),
	PF_PARAM_U64(struct gdr_loopback_cfg, cq_mod, "100", 1, 8192, "WRs",
		     "signal every cq_mod-th WRITE (ib_write_bw -Q; at most tx_depth)"),
	PF_PARAM_U64(struct gdr_loopback_cfg, iterations, "5000", 1, 1e9, "WRs",
		     "timed WRITEs per run (ib_write_bw -n)"),
	PF_PARAM_U64(struct gdr_loopback_cfg, warmup, "1000", 0, 1e9, "WRs",
		     "WRITEs before the timed run"),
	PF_PARAM_U64(struct gdr_loopback_cfg, duration_ms, "0", 0, 600000, "ms",
		     "time the run by duration instead of iterations (0: iterations)"),
	PF_PARAM_U64(struct gdr_loopback_cfg, timeout_ms, "2000", 10, 60000, "ms",
		     "a run with no completion for this long fails"),
	PF_PARAM_DOUBLE(struct gdr_loopback_cfg, host_min_fraction, "0.90", 0, 1, "of port rate",
			"host-memory bandwidth below this fraction of the port rate fails"),
	PF_PARAM_DOUBLE(struct gdr_loopback_cfg, host_warn_fraction, "0.95", 0, 1,
			"of port rate", "host-memory bandwidth below this fraction warns"),
	PF_PARAM_DOUBLE(struct gdr_loopback_cfg, gpu_min_fraction, "0.90", 0, 1,
			"of host bandwidth",
			"GPU-memory bandwidth below this fraction of the NIC's host figure fails"),
	PF_PARAM_DOUBLE(struct gdr_loopback_cfg, expect_gbps, "0", 0, 10000, "Gb/s",
			"the rate every port is held to instead of its rate file (a soft-RoCE "
			"rig or a VF whose nominal rate is not what it can carry); 0: the port's "
			"rate"),
	PF_PARAM_STRING(struct gdr_loopback_cfg, pairs, "",
			"explicit pairs \"GPU_BDF=mlx5_0/1,...\" (a bare \"mlx5_2/1\" runs host "
			"memory only); empty: each GPU with its nearest NIC"),
	PF_PARAM_BOOL(struct gdr_loopback_cfg, use_gpu, "true",
		      "also run from GPU memory (GPUDirect RDMA)"),
	PF_PARAM_BOOL(struct gdr_loopback_cfg, parallel, "false",
		      "run all NICs at once (loads PCIe like a job) instead of one after another"),
	PF_PARAM_ENUM(struct gdr_loopback_cfg, gpu_reg, "auto",
		      "GPU memory registration: auto (peermem, then DMA-BUF), peermem, dmabuf",
		      "auto", "peermem", "dmabuf"),
	PF_PARAM_STRING(struct gdr_loopback_cfg, nics, "",
			"RDMA devices GPUs may be paired with, as in NCCL_IB_HCA "
			"(\"mlx5_0,mlx5_1\"); empty: every physical function (never a VF)"),
	PF_PARAM_ENUM(struct gdr_loopback_cfg, gdr_level, "auto",
		      "judge GPU runs only on pairs NCCL uses GPUDirect RDMA for "
		      "(NCCL_NET_GDR_LEVEL): auto (NCCL's default: PXB, P2C for a Grace GPU), "
		      "PIX, PXB, P2C (Grace: "
		      "GPU on C2C, NIC on that CPU), PHB, SYS",
		      "auto", "PIX", "PXB", "P2C", "PHB", "SYS"),
	PF_PARAM_END,
};

/*
 * At profile time: thresholds in order, and the syntax of each pair
 * ("BDF=mlx5_0/1" or "mlx5_0[/1]"); whether the GPU and NIC exist is the
 * node's business and judged in run().
 */
static int gdr_loopback_validate(const void *config, char **ret_err)
{
	const struct gdr_loopback_cfg *cfg = config;
	pf_autofree char *list = pf_xstrdup(cfg->pairs);
	char *save = NULL;

	if (cfg->host_warn_fraction < cfg->host_min_fraction)
		return pf_param_invalid(ret_err, "gdr_loopback.host_warn_fraction %g is below "
					"gdr_loopback.host_min_fraction %g",
					cfg->host_warn_fraction, cfg->host_min_fraction);
	for (char *tok = strtok_r(list, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char *eq = strchr(tok, '='), *nic = eq ? eq + 1 : tok, *slash = strchr(nic, '/');
		char bdf[16];
		uint64_t v;

		if (eq) {
			*eq = '\0';
			if (pf_bdf_normalize(tok, bdf) < 0)
				return pf_param_invalid(ret_err, "gdr_loopback.pairs: '%s' is not a "
							"PCI address", tok);
		}
		if (slash)
			*slash = '\0';
		if (!*nic)
			return pf_param_invalid(ret_err, "gdr_loopback.pairs: a pair names no RDMA "
						"device");
		if (slash && (pf_parse_u64(slash + 1, &v) < 0 || v == 0 || v > 255))
			return pf_param_invalid(ret_err, "gdr_loopback.pairs: bad port number '%s'",
						slash + 1);
	}
	return 0;
}

#define MAX_DEADLINE_PAIRS 8

/*
 * Seconds one run's WRITEs may take: the warm-up and timed WRs at 25 Gb/s
 * (or duration_ms) and one completion timeout, as the engine scales it for
 * a 25 Gb/s port.  The deadline grants it; the engine cuts a slower run
 * there (opts.max_ms), so that a slow link is measured before the runner
 * kills the check.
 */
static double run_budget_s(const struct gdr_loopback_cfg *cfg)
{
	double run_s;

	if (cfg->duration_ms)
		run_s = (double)cfg->duration_ms / 1000 +
			(double)cfg->warmup * (double)cfg->msg_size * 8 / 25e9;
	else
		run_s = (double)(cfg->warmup + cfg->iterations) * (double)cfg->msg_size * 8 / 25e9;
	return run_s + (double)pf_lb_completion_timeout_ms((unsigned int)cfg->timeout_ms,
							   cfg->msg_size, (unsigned int)cfg->cq_mod,
							   (unsigned int)cfg->tx_depth,
							   25 * cfg->host_min_fraction) / 1000;
}

/* Seconds the runner gives the check for these settings (see the header). */
static unsigned int gdr_loopback_deadline_s(const void *config)
{
	const struct gdr_loopback_cfg *cfg = config;
	double run_s, total;

	/* 2 s of setup, and the flush of a run cut short (at most a timeout more) */
	run_s = run_budget_s(cfg) + 2;
	if (cfg->parallel) /* a host round, then GPU rounds for up to two GPUs per NIC */
		total = 15 + run_s * (cfg->use_gpu ? 3 : 1);
	else
		total = 15 + run_s * (cfg->use_gpu ? 2 : 1) * MAX_DEADLINE_PAIRS;
	return total > 86400 ? 86400 : (unsigned int)total + 1;
}

/*
 * Port-wide counters read around the runs (interfaces.md §6.5 item 4):
 * reported as context, never judged, since other QPs on the port bump them.
 * Each is read by name from counters/, else hw_counters/ (pf_port_counter, src/node/port_counter.c):
 * mlx5 keeps the transport ones in hw_counters/, rxe all of them.
 */
static const struct {
	const char *name;
	unsigned char width;
} ctrs[] = {
	{ "local_ack_timeout_err", 32 },
	{ "out_of_sequence", 32 },
	{ "packet_seq_err", 32 },
	{ "implied_nak_seq_err", 32 },
	{ "rnr_nak_retry_err", 32 },
	{ "req_transport_retries_exceeded", 32 },
	{ "req_rnr_retries_exceeded", 32 },
	{ "req_cqe_error", 32 },
	{ "resp_cqe_error", 32 },
	{ "rx_icrc_encapsulated", 64 },
	/* soft-RoCE rxe's (drivers/infiniband/sw/rxe/rxe_hw_counters.c), all in hw_counters/ */
	{ "retry_exceeded_err", 64 },
	{ "retry_rnr_exceeded_err", 64 },
	{ "rcvd_seq_err", 64 },
	{ "out_of_seq_request", 64 },
	{ "completer_retry_err", 64 },
	{ "send_err", 64 },
	{ "port_xmit_discards", 16 },
	{ "port_rcv_errors", 16 },
	{ "symbol_error", 16 },
	{ "link_downed", 8 },
	{ "link_error_recovery", 8 },
	{ "local_link_integrity_errors", 4 },
	{ "excessive_buffer_overrun_errors", 4 },
};

#define N_CTRS PF_ARRAY_SIZE(ctrs)

struct counters {
	uint64_t v[N_CTRS];
	bool have[N_CTRS];
	bool hw[N_CTRS]; /* read from hw_counters/ (wraps), else counters/ (saturates) */
};

/* One NIC port under test. */
struct nic {
	const struct pf_rdma_dev *dev;
	const struct pf_rdma_port *port;
	char subject[64];     /* "mlx5_0/1" */
	int numa;
	int gid_index;
	bool usable;
	bool asked;           /* named (pairs, nics) or a GPU's paired NIC: DOWN fails */
	struct counters before, after;
	struct pf_lb_opts opts;
	struct pf_lb_result res;
	int rc;
	bool ran;
};

/* One GPU-memory run. */
struct pair {
	char gpu[16];
	size_t nic;
	bool have_cls;
	enum pf_path_class cls;   /* GPU <-> NIC PCI distance */
	bool same_numa;           /* GPU and NIC on one NUMA node (P2C on Grace) */
	bool superchip;           /* a Grace superchip's GPU (C2C to its CPU) */
	bool judged;              /* NCCL uses GPUDirect RDMA here (gdr_level) */
	const char *level_name;   /* "PXB" */
	char subject[96];     /* "0000:17:00.0 -> mlx5_0/1" */
	pf_CUdevice cuda_dev;
	struct pf_lb_opts opts;
	struct pf_lb_result res;
	int rc;
	bool ran;
};

struct plan {
	struct nic *nics;
	size_t n_nics;
	struct pair *pairs;
	size_t n_pairs;
};

static void read_counters(const struct pf_fs *fs, const struct nic *n, struct counters *c)
{
	*c = (struct counters){ 0 };
	for (size_t i = 0; i < N_CTRS; i++)
		c->have[i] = pf_port_counter(fs, n->dev->name, n->port->num, ctrs[i].name, &c->v[i],
					     &c->hw[i], NULL) == 0;
}

/* Index of the NIC port @dev/@port in the plan, adding it; -1 if unknown to the inventory. */
static ssize_t plan_nic(const struct pf_ctx *ctx, struct plan *p, const struct pf_rdma_dev *dev,
			unsigned int portnum)
{
	const struct pf_rdma_port *port = NULL;
	pf_autofree char *gid_env = NULL; /* the job's NCCL_IB_GID_INDEX, as NCCL reads it */
	struct nic *n;

	for (size_t i = 0; i < p->n_nics; i++)
		if (p->nics[i].dev == dev && p->nics[i].port->num == portnum)
			return (ssize_t)i;
	for (size_t i = 0; i < dev->n_ports; i++)
		if (dev->ports[i].num == portnum)
			port = &dev->ports[i];
	if (!port)
		return -1;
	p->nics = pf_xrealloc(p->nics, (p->n_nics + 1) * sizeof(*p->nics));
	n = &p->nics[p->n_nics];
	*n = (struct nic){ .dev = dev, .port = port, .numa = -1, .gid_index = -1 };
	snprintf(n->subject, sizeof(n->subject), "%s/%u", dev->name, portnum);
	if (dev->pci >= 0)
		n->numa = pf_node_effective_numa(ctx->node, &ctx->node->pci[dev->pci]);
	/* the GID NCCL sends from: NCCL_IB_GID_INDEX, the RoCE v2 IPv4 one, else link-local */
	if (port->link_layer == PF_LINK_ETH && ctx->prov->env(ctx, "NCCL_IB_GID_INDEX", &gid_env) < 0)
		gid_env = NULL;
	if (port->link_layer == PF_LINK_ETH &&
	    pf_verbs_gid_index(ctx->fs, dev->name, portnum, gid_env, &n->gid_index) < 0)
		n->gid_index = -1;
	return (ssize_t)p->n_nics++;
}

/*
 * NCCL's path types (src/graph/paths.cc, ncclTopoCheckGdr; values from
 * src/include/graph.h): GPUDirect RDMA is used when the GPU-NIC path is at
 * most NCCL_NET_GDR_LEVEL, PXB by default, P2C on C2C platforms.
 */
enum { NCCL_PIX = 4, NCCL_PXB = 5, NCCL_P2C = 6, NCCL_PHB = 8, NCCL_SYS = 9 };

static int gdr_level(const char *s)
{
	static const struct {
		const char *name;
		int level;
	} levels[] = { { "PIX", NCCL_PIX }, { "PXB", NCCL_PXB }, { "P2C", NCCL_P2C },
		       { "PHB", NCCL_PHB }, { "SYS", NCCL_SYS } };

	for (size_t i = 0; i < PF_ARRAY_SIZE(levels); i++)
		if (strcmp(s, levels[i].name) == 0)
			return levels[i].level;
	return NCCL_PXB; /* auto */
}

/*
 * NCCL's path type of a pair: PIX, PXB as they are; PHB and NODE are
 * NCCL's PHB, or P2C when the NIC hangs off the GPU's own CPU and P2C is
 * allowed (the GPU reaches that CPU over C2C on Grace); SYS and unknown SYS.
 */
static int nccl_path(const struct pair *q, int level)
{
	switch (q->cls) {
	case PF_PATH_PIX:
		return NCCL_PIX;
	case PF_PATH_PXB:
		return NCCL_PXB;
	case PF_PATH_PHB:
	case PF_PATH_NODE:
		return level >= NCCL_P2C && q->same_numa ? NCCL_P2C : NCCL_PHB;
	default:
		return NCCL_SYS;
	}
}

static void plan_pair(const struct pf_ctx *ctx, struct plan *p, const char *gpu, size_t nic)
{
	const struct pf_node *node = ctx->node;
	const struct nic *n = &p->nics[nic];
	int gi = pf_node_pci_index(node, gpu);
	struct pair *q;

	p->pairs = pf_xrealloc(p->pairs, (p->n_pairs + 1) * sizeof(*p->pairs));
	q = &p->pairs[p->n_pairs++];
	*q = (struct pair){ .nic = nic, .cuda_dev = -1, .cls = PF_PATH_UNKNOWN };
	snprintf(q->gpu, sizeof(q->gpu), "%s", gpu);
	snprintf(q->subject, sizeof(q->subject), "%s -> %s", gpu, n->subject);
	if (gi >= 0 && n->dev->pci >= 0) {
		const struct pf_pci_dev *g = &node->pci[gi], *d = &node->pci[n->dev->pci];
		int gn = pf_node_effective_numa(node, g), dn = pf_node_effective_numa(node, d);

		q->have_cls = g->path && d->path &&
			      pf_node_path_classify(node, g, gn, d, dn, &q->cls) == 0;
		q->same_numa = gn >= 0 && gn == dn;
		q->superchip = pf_gpu_is_superchip(g);
	}
}

/* "BDF=mlx5_0/1" or "mlx5_0[/1]"; errors become findings. */
static int plan_explicit(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
			 struct plan *p, struct pf_result *res)
{
	pf_autofree char *list = pf_xstrdup(cfg->pairs);
	char *save = NULL;

	for (char *tok = strtok_r(list, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char *eq = strchr(tok, '='), *nicname = eq ? eq + 1 : tok, *slash;
		const struct pf_rdma_dev *dev;
		unsigned int portnum = 1;
		char gpu[16] = "";
		ssize_t ni;

		if (eq) {
			*eq = '\0';
			if (pf_bdf_normalize(tok, gpu) < 0 || pf_node_pci_index(ctx->node, gpu) < 0)
				return pf_error(res, -EINVAL, "gdr_loopback.pairs: '%s' is not a GPU "
						"on this node's PCI bus", tok);
		}
		slash = strchr(nicname, '/');
		if (slash) {
			uint64_t v;

			*slash = '\0';
			if (pf_parse_u64(slash + 1, &v) < 0 || v == 0 || v > 255)
				return pf_error(res, -EINVAL, "gdr_loopback.pairs: bad port number "
						"'%s'", slash + 1);
			portnum = (unsigned int)v;
		}
		dev = pf_node_rdma(ctx->node, nicname);
		if (!dev)
			return pf_error(res, -ENODEV, "gdr_loopback.pairs: no RDMA device '%s' in "
					"/sys/class/infiniband", nicname);
		ni = plan_nic(ctx, p, dev, portnum);
		if (ni < 0)
			return pf_error(res, -ENODEV, "gdr_loopback.pairs: %s has no port %u", nicname,
					portnum);
		p->nics[ni].asked = true;
		if (gpu[0] && cfg->use_gpu)
			plan_pair(ctx, p, gpu, (size_t)ni);
	}
	return 0;
}

/* The NICs GPUs may be paired with: the `nics` list, else the default rule (rdma_select.h). */
static char *nic_list(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg)
{
	const struct pf_node *node = ctx->node;
	char *list = pf_xstrdup("");

	if (cfg->nics[0]) {
		free(list);
		return pf_xstrdup(cfg->nics);
	}
	for (size_t i = 0; i < node->n_rdma; i++) {
		char *next;

		if (!pf_rdma_default_candidate(ctx->fs, node, &node->rdma[i]))
			continue;
		next = pf_xasprintf("%s%s%s", list, list[0] ? "," : "", node->rdma[i].name);
		free(list);
		list = next;
	}
	return list;
}

static bool nic_allowed(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
			const struct pf_rdma_dev *dev)
{
	return cfg->nics[0] ? pf_list_has(cfg->nics, dev->name)
			    : pf_rdma_default_candidate(ctx->fs, ctx->node, dev);
}

/*
 * GPU @bdf's own rail in the rail model: the lowest-numbered compute rail
 * that serves it, of a device the run may use; NULL none (or with `nics`).
 */
static const struct pf_rail_port *own_rail(const struct pf_ctx *ctx,
					   const struct gdr_loopback_cfg *cfg, const char *bdf)
{
	const struct pf_rails *rails = ctx->rails;
	const struct pf_node *node = ctx->node;
	const struct pf_rail_port *best = NULL;

	if (cfg->nics[0] || !rails)
		return NULL;
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *rp = &rails->ports[i];

		if (rp->role != PF_ROLE_COMPUTE || rp->gpu < 0 || (size_t)rp->gpu >= node->n_gpus ||
		    strcmp(node->pci[node->gpus[rp->gpu].pci].bdf, bdf) ||
		    !nic_allowed(ctx, cfg, &node->rdma[rp->rdma]))
			continue;
		if (!best || rp->rail < best->rail)
			best = rp;
	}
	return best;
}

static int plan_default(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
			struct plan *p)
{
	const struct pf_node *node = ctx->node;
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	pf_autofree char *nics = nic_list(ctx, cfg);
	size_t n = nics[0] ? pf_gpu_nic_pairs(node, nics, NULL, &pairs) : 0;
	size_t n_paired = 0;

	for (size_t i = 0; i < n; i++) {
		const struct pf_rail_port *rail = own_rail(ctx, cfg, pairs[i].gpu->bdf);
		const struct pf_rdma_dev *dev;
		unsigned int port;
		ssize_t ni;

		if (rail) {
			dev = &node->rdma[rail->rdma];
			port = rail->port;
		} else {
			/* no rail of its own in the model: its nearest NIC, judged by gdr_level */
			if (pairs[i].nic < 0)
				continue;
			dev = &node->rdma[pairs[i].nic];
			if (!dev->n_ports)
				continue;
			port = dev->ports[0].num;
		}
		ni = plan_nic(ctx, p, dev, port);
		if (ni < 0)
			continue;
		p->nics[ni].asked = true;
		n_paired++;
		if (cfg->use_gpu)
			plan_pair(ctx, p, pairs[i].gpu->bdf, (size_t)ni);
	}
	if (n_paired)
		return 0;
	/* no GPU (or none placed): host memory on every allowed port */
	for (size_t i = 0; i < node->n_rdma; i++)
		for (size_t j = 0; j < node->rdma[i].n_ports; j++)
			if (nic_allowed(ctx, cfg, &node->rdma[i])) {
				ssize_t ni = plan_nic(ctx, p, &node->rdma[i],
						      node->rdma[i].ports[j].num);

				if (ni >= 0)
					p->nics[ni].asked = cfg->nics[0] != '\0';
			}
	return 0;
}

/* The rate a port is held to: expect_gbps, else its rate file. */
static double port_rate(const struct gdr_loopback_cfg *cfg, const struct nic *n)
{
	return cfg->expect_gbps > 0 ? cfg->expect_gbps : n->port->rate_gbps;
}

static void base_opts(const struct gdr_loopback_cfg *cfg, const struct pf_verbs_api *api,
		      const struct nic *n, uint64_t page_size, struct pf_lb_opts *o)
{
	pf_lb_opts_default(o);
	o->page_size = (size_t)page_size;
	o->api = api;
	o->dev = n->dev->name;
	o->port = n->port->num;
	o->gid_index = n->gid_index;
	o->msg_size = cfg->msg_size;
	o->tx_depth = (unsigned int)cfg->tx_depth;
	o->cq_mod = (unsigned int)cfg->cq_mod;
	o->warmup = cfg->warmup;
	o->iterations = cfg->iterations;
	o->duration_ms = cfg->duration_ms;
	o->timeout_ms = (unsigned int)cfg->timeout_ms;
	/* a run below this fails anyway: the completion timeout waits for its batch at it */
	o->min_gbps = port_rate(cfg, n) * cfg->host_min_fraction;
	o->max_ms = (uint64_t)(run_budget_s(cfg) * 1000);
	o->numa_node = n->numa;
}

struct job {
	size_t nic;             /* index in plan.nics */
	const struct pf_lb_opts *opts;
	struct pf_lb_result *res;
	int *rc;
	pthread_t thread;
	bool started;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	*j->rc = pf_loopback_run(j->opts, j->res);
	return NULL;
}

/* Run @n jobs one after another, or all at once. */
static void run_jobs(struct job *jobs, size_t n, bool parallel)
{
	for (size_t i = 0; i < n; i++) {
		if (parallel && pthread_create(&jobs[i].thread, NULL, job_main, &jobs[i]) == 0)
			jobs[i].started = true;
		else
			job_main(&jobs[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (jobs[i].started)
			pthread_join(jobs[i].thread, NULL);
}

/*
 * Run @n jobs; in parallel, in rounds that use each NIC at most once (two
 * GPUs sharing a NIC would each see half of it).
 */
static void run_rounds(const struct pf_ctx *ctx, const char *what, struct job *jobs, size_t n,
		       size_t n_nics, bool parallel)
{
	pf_autofree struct job *round = NULL;
	pf_autofree bool *done = NULL, *busy = NULL;
	size_t left = n;

	if (!parallel) {
		for (size_t i = 0; i < n; i++) {
			pf_progress(ctx, "%s %zu/%zu", what, i + 1, n);
			run_jobs(&jobs[i], 1, false);
		}
		return;
	}
	round = pf_xcalloc(n + 1, sizeof(*round));
	done = pf_xcalloc(n + 1, sizeof(*done));
	busy = pf_xcalloc(n_nics + 1, sizeof(*busy));
	while (left) {
		size_t k = 0;

		memset(busy, 0, (n_nics + 1) * sizeof(*busy));
		for (size_t i = 0; i < n; i++) {
			if (done[i] || busy[jobs[i].nic])
				continue;
			busy[jobs[i].nic] = done[i] = true;
			round[k++] = jobs[i];
			left--;
		}
		pf_progress(ctx, "%s %zu-%zu/%zu", what, n - left - k + 1, n - left, n);
		run_jobs(round, k, true);
	}
}

static void observe_run(struct pf_finding *f, const struct pf_lb_opts *o,
			const struct pf_lb_result *r)
{
	pf_obs_str(f, "memory", o->mem == PF_LB_GPU ? "gpu" : "host");
	pf_obs_num(f, "msg_size", (double)o->msg_size);
	pf_obs_num(f, "tx_depth", o->tx_depth);
	if (r->stage == PF_LB_DONE || r->stage == PF_LB_VERIFY) {
		pf_obs_num(f, "gbps", r->gbps);
		pf_obs_num(f, "iterations", (double)r->iterations);
		pf_obs_num(f, "seconds", r->seconds);
	}
	if (r->cut_short)
		pf_obs_bool(f, "cut_short", true);
	if (r->reg)
		pf_obs_str(f, "registration", r->reg);
	if (o->mem == PF_LB_HOST && r->reg)
		pf_obs_bool(f, "numa_local", r->numa_local);
	if (r->mtu)
		pf_obs_num(f, "path_mtu", r->mtu);
	if (o->gid_index >= 0)
		pf_obs_num(f, "gid_index", o->gid_index);
	if (r->stage != PF_LB_DONE)
		pf_obs_str(f, "stage", pf_lb_stage_name(r->stage));
	if (r->wc_status)
		pf_obs_str(f, "wc_status", pf_ibv_wc_status_name(r->wc_status));
	if (r->slots)
		pf_obs_num(f, "slots", r->slots);
	if (r->stage == PF_LB_VERIFY && r->slots)
		pf_obs_num(f, "bad_slot", r->bad_slot);
	if (r->reg && strcmp(r->reg, "dmabuf") == 0)
		pf_obs_num(f, "page_size", (double)r->page_size);
	if (r->note[0])
		pf_obs_str(f, "note", r->note);
}

/* A run that did not produce a figure: fail with the engine's reason. */
static void judge_failed_run(struct pf_result *res, const char *subject, int rc,
			     const struct pf_lb_opts *o, const struct pf_lb_result *r)
{
	const char *mem = o->mem == PF_LB_GPU ? "GPU-memory" : "host-memory";
	struct pf_finding *f;

	if (rc == -ETIMEDOUT && r->below_gbps > 0)
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %s loopback slow or stalled: below "
			   "%.3g Gb/s, under the %.3g Gb/s it is held to (%s)", subject, mem,
			   r->below_gbps, o->min_gbps, r->err);
	else
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s: %s loopback failed: %s", subject,
			   mem, r->err);
	pf_code(f, rc == -ETIMEDOUT && r->below_gbps > 0 ? 1 : 2);
	observe_run(f, o, r);
	if (r->below_gbps > 0)
		pf_obs_num(f, "below_gbps", r->below_gbps);
	switch (rc) {
	case -EBADMSG:
		pf_remedy(f, "data written by the NIC arrived corrupted: check the PCIe link of "
			  "the NIC%s (pcie_link check, AER errors in dmesg), update the NIC "
			  "firmware, and replace the card if it persists",
			  o->mem == PF_LB_GPU ? " and of the GPU, and ACS/IOMMU settings on the "
						"switch between them" : "");
		break;
	case -EFAULT:
		pf_remedy(f, "%s", o->mem == PF_LB_GPU
			  ? "load nvidia_peermem (modprobe nvidia-peermem) or use the DMA-BUF path "
			    "(NVIDIA open kernel modules, CUDA >= 11.7, rdma-core >= 34); see the "
			    "nvidia_peermem check"
			  : "raise RLIMIT_MEMLOCK to unlimited (see the memlock check)");
		break;
	case -ETIMEDOUT:
		if (r->below_gbps > 0) {
			pf_remedy(f, "the port moved data far below the rate it is held to, or "
				  "stalled: check the negotiated link speed (nic_link_speed), "
				  "pause storms (pfc_pause) and errors (port_errors); compare with "
				  "ib_write_bw -d %s -i %u --report_gbits", o->dev, o->port);
			break;
		}
		/* fall through */
	case -EIO:
		pf_remedy(f, "the NIC stopped completing WRITEs: look for errors in dmesg "
			  "(mlx5_core), check the port_errors and pfc_pause checks, reset the "
			  "device (mlxfwreset) or reboot");
		break;
	case -ENETDOWN:
	case -EADDRNOTAVAIL:
		pf_remedy(f, "bring the port up with an address: IB needs a subnet manager (LID), "
			  "RoCE an IPv4 address on the netdev (RoCE v2 GID); see nic_link_speed");
		break;
	default:
		pf_remedy(f, "run ib_write_bw -d %s -i %u on this port to reproduce; check "
			  "ibv_devinfo and dmesg", o->dev, o->port);
		break;
	}
}

static void judge_host(struct pf_result *res, const struct gdr_loopback_cfg *cfg,
		       const struct nic *n)
{
	/* floors calibrated at MTU 4096 scale with the path MTU's goodput (rdma_select.h) */
	double scale = pf_rdma_mtu_scale(n->port->link_layer, n->res.mtu);
	double rate = port_rate(cfg, n), min = rate * cfg->host_min_fraction * scale,
	       warn = rate * cfg->host_warn_fraction * scale, bw = n->res.gbps;
	const char *of = cfg->expect_gbps > 0 ? "expected rate (expect_gbps)" : "port rate";
	struct pf_finding *f;

	if (n->rc) {
		judge_failed_run(res, n->subject, n->rc, &n->opts, &n->res);
		return;
	}
	if (rate <= 0) {
		f = pf_add(res, PF_STATUS_WARN, n->subject, "%s: host memory %.1f Gb/s; the port "
			   "rate is unknown, so it is not judged", n->subject, bw);
		pf_code(f, 3);
		pf_remedy(f, "check /sys/class/infiniband/%s/ports/%u/rate", n->dev->name,
			  n->port->num);
	} else if (bw < min) {
		f = pf_add(res, PF_STATUS_FAIL, n->subject, "%s: host memory %.1f Gb/s, %.0f%% of "
			   "the %.0f Gb/s %s, below %.0f%%", n->subject, bw, 100 * bw / rate,
			   rate, of, 100 * cfg->host_min_fraction * scale);
		pf_code(f, 4);
		pf_remedy(f, "the NIC cannot reach its port rate from host memory: check its PCIe "
			  "link (pcie_link check: speed and width), the NUMA placement of the "
			  "buffers, PCIe relaxed ordering and MaxReadReq (mlxconfig), and the NIC "
			  "firmware; compare with ib_write_bw -d %s --report_gbits", n->dev->name);
	} else if (bw < warn) {
		f = pf_add(res, PF_STATUS_WARN, n->subject, "%s: host memory %.1f Gb/s, %.0f%% of "
			   "the %.0f Gb/s %s, below %.0f%%", n->subject, bw, 100 * bw / rate,
			   rate, of, 100 * cfg->host_warn_fraction * scale);
		pf_code(f, 5);
		pf_remedy(f, "close to the limit: rerun with a larger msg_size or more iterations; "
			  "check the PCIe link and NUMA placement of %s", n->dev->name);
	} else {
		f = pf_add(res, PF_STATUS_PASS, n->subject, "%s: host memory %.1f Gb/s, %.0f%% of "
			   "the %.0f Gb/s %s", n->subject, bw, 100 * bw / rate, rate, of);
	}
	observe_run(f, &n->opts, &n->res);
	pf_obs_num(f, "port_rate_gbps", n->port->rate_gbps);
	if (cfg->expect_gbps > 0)
		pf_exp_num(f, "expect_gbps", cfg->expect_gbps);
	pf_exp_num(f, "min_gbps", min);
	pf_exp_num(f, "warn_below_gbps", warn);
	if (scale < 1)
		pf_exp_num(f, "mtu_scale", scale);
}

/*
 * A pair NCCL would not use GPUDirect RDMA on (beyond gdr_level): its
 * figure is measured and reported, not judged; a registration NCCL would
 * not attempt is not judged either.  Corruption and transfer errors still
 * fail (judge_gpu), they are faults of the NIC's path whatever NCCL does.
 */
static void judge_unused_pair(struct pf_result *res, const struct pair *q)
{
	const char *cls = q->have_cls ? pf_path_class_name(q->cls) : "unknown";
	struct pf_finding *f;

	if (q->rc)
		f = pf_add(res, PF_STATUS_PASS, q->subject, "%s: GPU memory not registered (%s); "
			   "not judged: the path is %s and NCCL does not use GPUDirect RDMA there "
			   "(NCCL_NET_GDR_LEVEL %s), it stages through host memory", q->subject,
			   q->res.err, cls, q->level_name);
	else
		f = pf_add(res, PF_STATUS_PASS, q->subject, "%s: GPU memory %.1f Gb/s via %s, "
			   "measured, not judged: the path is %s and NCCL does not use GPUDirect "
			   "RDMA there (NCCL_NET_GDR_LEVEL %s), it stages through host memory",
			   q->subject, q->res.gbps, q->res.reg, cls, q->level_name);
	observe_run(f, &q->opts, &q->res);
	pf_obs_str(f, "path", cls);
	pf_obs_bool(f, "judged", false);
	pf_exp_str(f, "gdr_level", q->level_name);
}

static void judge_gpu(struct pf_result *res, const struct gdr_loopback_cfg *cfg,
		      const struct plan *p, const struct pair *q)
{
	const struct nic *n = &p->nics[q->nic];
	bool have_host = n->ran && !n->rc;
	double ref = have_host ? n->res.gbps : port_rate(cfg, n) * cfg->host_min_fraction;
	double min = ref * cfg->gpu_min_fraction, bw = q->res.gbps;
	struct pf_finding *f;

	if (!q->judged && (!q->rc || q->rc == -EFAULT)) {
		judge_unused_pair(res, q);
		return;
	}
	if (q->rc) {
		judge_failed_run(res, q->subject, q->rc, &q->opts, &q->res);
		return;
	}
	if (ref <= 0) {
		f = pf_add(res, PF_STATUS_WARN, q->subject, "%s: GPU memory %.1f Gb/s via %s; no "
			   "host figure or port rate to judge it against", q->subject, bw,
			   q->res.reg);
		pf_code(f, 6);
		pf_remedy(f, "check the host-memory run of %s", n->subject);
	} else if (bw < min) {
		f = pf_add(res, PF_STATUS_FAIL, q->subject, "%s: GPU memory %.1f Gb/s via %s, %.0f%% "
			   "of %s %.1f Gb/s, below %.0f%%", q->subject, bw, q->res.reg,
			   100 * bw / ref, have_host ? "host memory" : "the port's minimum", ref,
			   100 * cfg->gpu_min_fraction);
		pf_code(f, 7);
		pf_remedy(f, "GPUDirect RDMA is slow on this pair: check that GPU and NIC share a "
			  "PCIe switch (gpu_nic_numa), that ACS is off on that switch and the IOMMU "
			  "in passthrough (nvidia_peermem check), the GPU's PCIe link (pcie_link), "
			  "and the GPU clocks; compare with ib_write_bw -d %s --use_cuda",
			  n->dev->name);
	} else {
		f = pf_add(res, PF_STATUS_PASS, q->subject, "%s: GPU memory %.1f Gb/s via %s, %.0f%% "
			   "of %s", q->subject, bw, q->res.reg, 100 * bw / ref,
			   have_host ? "host memory" : "the port's minimum");
	}
	observe_run(f, &q->opts, &q->res);
	pf_obs_num(f, "reference_gbps", ref);
	if (q->have_cls)
		pf_obs_str(f, "path", pf_path_class_name(q->cls));
	pf_exp_num(f, "min_gbps", min);
}

/*
 * The port's counters as context: the loopback's own QPs are judged by
 * their completions (judge_host/judge_gpu); the counters count every QP
 * on the port, so a rise is reported, never failed.
 */
static void judge_counters(struct pf_result *res, const struct nic *n)
{
	char list[256] = "";
	size_t used = 0, n_judged = 0, n_up = 0;
	cJSON *inc = cJSON_CreateObject();
	struct pf_finding *f;
	char subject[96];

	for (size_t i = 0; i < N_CTRS; i++) {
		struct pf_counter_delta d;

		if (!n->before.have[i] || !n->after.have[i])
			continue;
		if (pf_counter_delta(n->before.v[i], n->after.v[i], ctrs[i].width,
				     !n->after.hw[i], &d) < 0 &&
		    pf_counter_delta(n->before.v[i], n->after.v[i], 64, false, &d) < 0)
			continue;
		n_judged++;
		if (!d.delta)
			continue;
		n_up++;
		cJSON_AddNumberToObject(inc, ctrs[i].name, (double)d.delta);
		if (used + 2 < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s +%llu",
						 used ? ", " : "", ctrs[i].name,
						 (unsigned long long)d.delta);
	}
	if (!n_judged) {
		cJSON_Delete(inc);
		return; /* no counters: said in the host finding's observed values */
	}
	snprintf(subject, sizeof(subject), "%s counters", n->subject);
	if (n_up) {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: port-wide error counters rose during "
			   "the loopback: %s; not judged: every QP on the port counts them (storage, "
			   "other jobs); the loopback's own QPs are judged by their completions",
			   n->subject, list);
		pf_remedy(f, "context only: if they keep rising when the port is idle, see the "
			  "port_errors check");
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "%s: none of %zu port-wide error counters "
			   "rose during the loopback", n->subject, n_judged);
	}
	pf_obs_json(f, "increased", inc);
	pf_obs_num(f, "counters_read", (double)n_judged);
	pf_obs_num(f, "counters_judged", (double)n_judged); /* v1 name of counters_read */
	pf_obs_bool(f, "judged", false);
}

/* CUDA device ordinals of the pairs' GPUs; a GPU CUDA does not see fails its pair. */
static int map_cuda(const struct pf_ctx *ctx, struct plan *p, const struct pf_cuda_table **ret_cu,
		    char **ret_err)
{
	pf_autofree char (*bdfs)[16] = NULL;
	int n = pf_gpu_cuda_list(ctx, ret_cu, &bdfs, ret_err);

	if (n < 0)
		return n;
	for (size_t i = 0; i < p->n_pairs; i++)
		for (int j = 0; j < n; j++)
			if (strcmp(bdfs[j], p->pairs[i].gpu) == 0)
				p->pairs[i].cuda_dev = j;
	return 0;
}

static enum pf_lb_reg reg_mode(const char *s)
{
	if (strcmp(s, "peermem") == 0)
		return PF_LB_REG_PEERMEM;
	if (strcmp(s, "dmabuf") == 0)
		return PF_LB_REG_DMABUF;
	return PF_LB_REG_AUTO;
}

static void plan_free(struct plan *p)
{
	free(p->nics);
	free(p->pairs);
}

/*
 * Whether traffic can be sent at all: an inventory with RDMA devices, a live
 * node, libibverbs and a device it lists.  Returns 1 with *ret_api set, else
 * what the run returns (a skip or error recorded in @res).
 */
static int open_verbs(const struct pf_ctx *ctx, const struct pf_verbs_api **ret_api,
		      struct pf_result *res)
{
	pf_autofree char *err = NULL;
	struct ibv_device **list;
	int r, n_dev = 0;

	if (!ctx->node)
		return pf_error(res, -ENODATA, "no node inventory");
	if (!ctx->node->n_rdma)
		return pf_skip(res, "no RDMA devices in /sys/class/infiniband");
	r = ctx->prov->verbs(ctx, ret_api, &err);
	if (r == -ENOMEDIUM)
		return pf_skip(res, "a recorded root cannot send traffic: run gdr_loopback on the "
			       "node itself");
	if (r < 0) {
		struct pf_finding *f = pf_add(res, PF_STATUS_ERROR, NULL, "%s", err);

		pf_remedy(f, "apt-get install ibverbs-providers (Debian/Ubuntu) or dnf install "
			  "rdma-core (RHEL); MOFED/DOCA ships it too");
		return 0;
	}
	/* libibverbs' own view: ENOSYS without ib_uverbs, or an empty list */
	errno = 0;
	list = (*ret_api)->get_device_list(&n_dev);
	if (!list || n_dev == 0) {
		int e = errno;

		if (list)
			(*ret_api)->free_device_list(list);
		return pf_skip(res, "libibverbs lists no RDMA devices%s%s%s",
			       !list ? " (" : "", !list ? strerror(e ? e : ENODEV) : "",
			       !list ? e == ENOSYS ? ": ib_uverbs not loaded?)" : ")" : "");
	}
	(*ret_api)->free_device_list(list);
	return 1;
}

/* Plan the GPU pairs' CUDA devices; without CUDA no pair runs (an error finding). */
static void plan_cuda(const struct pf_ctx *ctx, struct plan *p, const struct pf_cuda_table **cu,
		      struct pf_result *res)
{
	pf_autofree char *cuda_err = NULL;
	struct pf_finding *f;

	if (!p->n_pairs || map_cuda(ctx, p, cu, &cuda_err) >= 0)
		return;
	f = pf_add(res, PF_STATUS_ERROR, NULL, "GPU-memory runs impossible: %s", cuda_err);
	pf_remedy(f, "install the NVIDIA driver (libcuda.so.1), or set "
		  "gdr_loopback.use_gpu=false to test host memory only");
	p->n_pairs = 0;
}

/*
 * A port not ACTIVE (rdma_select.h): a fail when it was asked for or no
 * port is ACTIVE, else a warn; the message names its link layer.
 */
static void down_port(struct pf_result *res, const struct nic *n, unsigned int n_active)
{
	bool fails = pf_rdma_down_port_fails(n->asked, n_active);
	struct pf_finding *f;

	f = pf_add(res, fails ? PF_STATUS_FAIL : PF_STATUS_WARN, n->subject, "%s (%s) is %s: no "
		   "loopback possible%s", n->subject, pf_link_layer_word(n->port->link_layer),
		   n->port->state_name ? n->port->state_name : "not ACTIVE",
		   fails ? "" : "; not named in gdr_loopback.nics and other ports are ACTIVE, so "
				"it may be an unused port");
	pf_code(f, 8);
	pf_remedy(f, "bring the link up first (see the nic_link_speed check)%s",
		  fails ? "" : ", or list the compute rails in gdr_loopback.nics");
	pf_obs_str(f, "link_layer", pf_link_layer_word(n->port->link_layer));
}

/* Run host memory on every port that can carry a loopback (a port not ACTIVE: down_port). */
static void run_host(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
		     const struct pf_verbs_api *api, struct plan *p, uint64_t page_size,
		     struct job *jobs, struct pf_result *res)
{
	size_t n_jobs = 0;
	unsigned int n_active = 0;

	for (size_t i = 0; i < p->n_nics; i++)
		n_active += pf_rdma_port_usable(p->nics[i].port);
	for (size_t i = 0; i < p->n_nics; i++) {
		struct nic *n = &p->nics[i];

		base_opts(cfg, api, n, page_size, &n->opts);
		n->opts.mem = PF_LB_HOST;
		n->usable = pf_rdma_port_usable(n->port);
		if (!n->usable) {
			down_port(res, n, n_active);
			continue;
		}
		read_counters(ctx->fs, n, &n->before);
		jobs[n_jobs++] = (struct job){ .nic = i, .opts = &n->opts, .res = &n->res,
					       .rc = &n->rc };
		n->ran = true;
	}
	run_rounds(ctx, "host", jobs, n_jobs, p->n_nics, cfg->parallel);
}

/* Run GPU memory for every pair whose port is usable and whose GPU CUDA sees. */
static void run_pairs(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
		      const struct pf_verbs_api *api, const struct pf_cuda_table *cu,
		      struct plan *p, uint64_t page_size, struct job *jobs, struct pf_result *res)
{
	size_t n_jobs = 0;

	for (size_t i = 0; i < p->n_pairs; i++) {
		struct pair *q = &p->pairs[i];
		struct nic *n = &p->nics[q->nic];
		bool autolvl = strcmp(cfg->gdr_level, "auto") == 0;
		/* auto: NCCL's default, P2C for a Grace GPU (NCCL_NET_GDR_C2C on from 2.27) */
		int level = autolvl ? (q->superchip ? NCCL_P2C : NCCL_PXB)
				    : gdr_level(cfg->gdr_level);

		q->level_name = !autolvl ? cfg->gdr_level : q->superchip ? "P2C" : "PXB";
		q->judged = nccl_path(q, level) <= level;
		if (!n->usable)
			continue;
		if (q->cuda_dev < 0) {
			struct pf_finding *f = pf_add(res, PF_STATUS_FAIL, q->subject, "%s: CUDA does "
						      "not see GPU %s", q->subject, q->gpu);
			pf_code(f, 9);

			pf_remedy(f, "see the gpu_inventory check (CUDA_VISIBLE_DEVICES, driver "
				  "binding, fabric manager)");
			continue;
		}
		base_opts(cfg, api, n, page_size, &q->opts);
		q->opts.mem = PF_LB_GPU;
		q->opts.cu = cu;
		q->opts.gpu = q->cuda_dev;
		q->opts.export_dmabuf = api->cu_export_dmabuf;
		q->opts.reg = reg_mode(cfg->gpu_reg);
		jobs[n_jobs++] = (struct job){ .nic = q->nic, .opts = &q->opts, .res = &q->res,
					       .rc = &q->rc };
		q->ran = true;
	}
	run_rounds(ctx, "pair", jobs, n_jobs, p->n_nics, cfg->parallel);
}

/* The range of rates the runs reached, and how many failed. */
struct tally {
	size_t n_fail;
	double host_lo, host_hi, gpu_lo, gpu_hi;
	const char *reg_used;
};

/* Judge every run (host rate and counters, then GPU pairs) and tally the rates. */
static void judge_runs(const struct pf_ctx *ctx, const struct gdr_loopback_cfg *cfg,
		       struct plan *p, struct tally *t, struct pf_result *res)
{
	for (size_t i = 0; i < p->n_nics; i++) {
		struct nic *n = &p->nics[i];

		if (!n->ran)
			continue;
		read_counters(ctx->fs, n, &n->after);
		judge_host(res, cfg, n);
		judge_counters(res, n);
		if (n->rc) {
			t->n_fail++;
		} else {
			t->host_lo = t->host_lo && t->host_lo < n->res.gbps ? t->host_lo : n->res.gbps;
			t->host_hi = t->host_hi > n->res.gbps ? t->host_hi : n->res.gbps;
		}
	}
	for (size_t i = 0; i < p->n_pairs; i++) {
		struct pair *q = &p->pairs[i];

		if (!q->ran)
			continue;
		judge_gpu(res, cfg, p, q);
		if (q->rc && (q->judged || q->rc != -EFAULT)) {
			t->n_fail++;
		} else {
			t->gpu_lo = t->gpu_lo && t->gpu_lo < q->res.gbps ? t->gpu_lo : q->res.gbps;
			t->gpu_hi = t->gpu_hi > q->res.gbps ? t->gpu_hi : q->res.gbps;
			t->reg_used = q->res.reg;
		}
	}
}

/* The summary: host and GPU rate ranges, when any run moved data. */
static void run_summary(const struct gdr_loopback_cfg *cfg, const struct plan *p,
			const struct tally *t, struct pf_result *res)
{
	char gpu[96] = "";

	if (!(t->host_hi > 0 || t->gpu_hi > 0))
		return;
	if (t->gpu_hi > 0)
		snprintf(gpu, sizeof(gpu), ", GPU %.1f-%.1f Gb/s via %s", t->gpu_lo, t->gpu_hi,
			 t->reg_used);
	pf_summary(res, "%zu port%s, %zu GPU pair%s%s: host %.1f-%.1f Gb/s%s%s",
		   p->n_nics, p->n_nics == 1 ? "" : "s", p->n_pairs, p->n_pairs == 1 ? "" : "s",
		   cfg->parallel ? " in parallel" : "", t->host_lo, t->host_hi, gpu,
		   t->n_fail ? "; some runs failed" : "");
}

static int gdr_loopback_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct gdr_loopback_cfg *cfg = config;
	const struct pf_verbs_api *api = NULL;
	const struct pf_cuda_table *cu = NULL;
	pf_autofree struct job *jobs = NULL;
	struct plan p = { 0 };
	struct tally t = { 0 };
	uint64_t page_size = 0;
	int r;

	r = open_verbs(ctx, &api, res);
	if (r <= 0)
		return r;
	r = cfg->pairs[0] ? plan_explicit(ctx, cfg, &p, res) : plan_default(ctx, cfg, &p);
	if (r < 0) {
		plan_free(&p);
		return r;
	}
	if (!p.n_nics) {
		plan_free(&p);
		return pf_skip(res, "no RDMA port to test");
	}
	plan_cuda(ctx, &p, &cu, res);
	/* DMA-BUF ranges are whole pages of the node's page size (0: the engine asks) */
	if (ctx->prov->page_size(ctx, &page_size) < 0)
		page_size = 0;
	jobs = pf_xcalloc(p.n_nics + p.n_pairs + 1, sizeof(*jobs));
	run_host(ctx, cfg, api, &p, page_size, jobs, res);
	run_pairs(ctx, cfg, api, cu, &p, page_size, jobs, res);
	judge_runs(ctx, cfg, &p, &t, res);
	run_summary(cfg, &p, &t, res);
	plan_free(&p);
	return 0;
}

static const struct pf_code gdr_loopback_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "a loopback was slow or stalled below the rate it is held to" },
	{ 2, PF_ACTION_RESEAT_OR_REPLACE, "a loopback failed" },
	{ 3, PF_ACTION_NONE, "host memory was measured but the port rate is unknown, so it is not judged" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "host-memory loopback bandwidth is below the minimum fraction of the port rate" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "host-memory loopback bandwidth is below the warning fraction of the port rate" },
	{ 6, PF_ACTION_NONE, "GPU memory was measured with nothing to judge it against" },
	{ 7, PF_ACTION_RECONFIGURE, "GPU-memory (GPUDirect RDMA) bandwidth is below the minimum fraction of host memory's (placement, ACS, IOMMU)" },
	{ 8, PF_ACTION_RESEAT_OR_REPLACE, "a port is not ACTIVE: no loopback possible" },
	{ 9, PF_ACTION_RESET_GPU, "CUDA does not see the GPU paired with a port" },
	{ 0 },
};

const struct pf_check pf_check_gdr_loopback = {
	.name = "gdr_loopback",
	.summary = "RDMA WRITE loopback bandwidth per GPU/NIC pair, host and GPU memory",
	.tags = "rdma,gpu,gdr,traffic",
	.reads = "libibverbs (RC QPs on each paired port), CUDA (GPU buffers), the inventory "
		 "(GPU -> nearest NIC, port rate, NUMA node), /sys/class/infiniband/*/ports/*/"
		 "{gids,gid_attrs/types} (RoCE v2 GID), {counters,hw_counters}/ before and after",
	.params = gdr_loopback_params,
	.codes = gdr_loopback_codes,
	.cfg_size = sizeof(struct gdr_loopback_cfg),
	.timeout_s = 300,
	.deadline_s = gdr_loopback_deadline_s,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_TRAFFIC,
	.validate = gdr_loopback_validate,
	.run = gdr_loopback_run,
};
