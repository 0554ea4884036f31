// SPDX-License-Identifier: MIT
/*
 * port_errors - RDMA port error counters: links that flap, corrupt or drop.
 *
 * Reads each counter of the table below by name (pf_port_counter():
 * counters/<name>, the IB PMA, else hw_counters/<name>, the driver's own;
 * Soft-RoCE keeps link_downed and its retry and sequence-error counters in
 * hw_counters/, drivers/infiniband/sw/rxe/rxe_hw_counters.c) of every port
 * in the inventory.  A port with none of the judged counters is a skip
 * naming what is missing, never "clean".  Counters
 * fall in four classes (table below): hard faults of the link itself, soft
 * physical errors, transport errors (loss and retries seen by the RDMA
 * engine) and informational ones that are reported but never judged.
 *
 * Live (root "/"): two samples `window_ms` apart; any increase of a hard
 * counter fails, of a soft or transport counter warns.  PMA error counters
 * saturate at 2^width-1 (a saturated counter hides new errors: warn), mlx5 Q
 * counters are 32-bit and wrap (the change is taken modulo 2^32).
 * Recorded root: the absolute values since boot, per hour of /proc/uptime
 * (at least one hour, so boot-time link events do not look like a storm),
 * against per-class thresholds, as warnings only.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "preflight/check.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/rails.h"
#include "preflight/strbuf.h"

enum ctr_class {
	CTR_HARD,      /* the link went down, retrained or corrupted packets: fail */
	CTR_SOFT,      /* physical errors a marginal link shows first: warn */
	CTR_TRANSPORT, /* loss and retries seen by the RDMA engine: warn */
	CTR_INFO,      /* reported, not judged (application errors, SMP drops) */
};

struct ctr_def {
	const char *name;
	bool hw;              /* in hw_counters/ rather than counters/ */
	unsigned char width;  /* bits */
	enum ctr_class cls;
};

/* Widths: drivers/infiniband/core/sysfs.c (PMA), mlx5 Q counters (32-bit). */
static const struct ctr_def ctrs[] = {
	{ "link_downed", false, 8, CTR_HARD },
	{ "link_error_recovery", false, 8, CTR_HARD },
	{ "local_link_integrity_errors", false, 4, CTR_HARD },
	{ "excessive_buffer_overrun_errors", false, 4, CTR_HARD },
	{ "port_rcv_errors", false, 16, CTR_HARD },
	{ "symbol_error", false, 16, CTR_SOFT },
	{ "port_rcv_remote_physical_errors", false, 16, CTR_SOFT },
	{ "port_xmit_discards", false, 16, CTR_SOFT },
	{ "port_xmit_constraint_errors", false, 8, CTR_SOFT },
	{ "port_rcv_constraint_errors", false, 8, CTR_SOFT },
	{ "port_rcv_switch_relay_errors", false, 16, CTR_INFO },
	{ "VL15_dropped", false, 16, CTR_INFO },
	{ "rx_icrc_encapsulated", true, 64, CTR_SOFT },
	{ "out_of_sequence", true, 32, CTR_TRANSPORT },
	{ "packet_seq_err", true, 32, CTR_TRANSPORT },
	{ "implied_nak_seq_err", true, 32, CTR_TRANSPORT },
	{ "local_ack_timeout_err", true, 32, CTR_TRANSPORT },
	{ "rnr_nak_retry_err", true, 32, CTR_TRANSPORT },
	{ "out_of_buffer", true, 32, CTR_TRANSPORT },
	{ "req_transport_retries_exceeded", true, 32, CTR_TRANSPORT },
	{ "req_rnr_retries_exceeded", true, 32, CTR_TRANSPORT },
	{ "duplicate_request", true, 32, CTR_INFO },
	{ "req_cqe_error", true, 32, CTR_INFO },
	{ "resp_cqe_error", true, 32, CTR_INFO },
	{ "req_remote_access_errors", true, 32, CTR_INFO },
	{ "resp_remote_access_errors", true, 32, CTR_INFO },
	{ "req_remote_invalid_request", true, 32, CTR_INFO },
	{ "resp_local_length_error", true, 32, CTR_INFO },
	/* rxe (drivers/infiniband/sw/rxe/rxe_hw_counters.c): atomic64 */
	{ "out_of_seq_request", true, 64, CTR_TRANSPORT },
	{ "rcvd_seq_err", true, 64, CTR_TRANSPORT },
	{ "retry_exceeded_err", true, 64, CTR_TRANSPORT },
	{ "retry_rnr_exceeded_err", true, 64, CTR_TRANSPORT },
	{ "completer_retry_err", true, 64, CTR_TRANSPORT },
	{ "send_err", true, 64, CTR_TRANSPORT },
	{ "rcvd_rnr_err", true, 64, CTR_INFO },
	{ "send_rnr_err", true, 64, CTR_INFO },
};

#define N_CTRS PF_ARRAY_SIZE(ctrs)

struct port_errors_cfg {
	char *mode;
	uint64_t window_ms;
	double hard_per_hour, soft_per_hour, transport_per_hour;
	char *ignore, *ignore_ports;
};

static const struct pf_param port_errors_params[] = {
	PF_PARAM_ENUM(struct port_errors_cfg, mode, "auto",
		      "auto: a sampling window on the live node, absolute values under --root; "
		      "or window, absolute", "auto", "window", "absolute"),
	PF_PARAM_U64(struct port_errors_cfg, window_ms, "1000", 0, 10000, "ms",
		     "sampling window on the live node (the check's deadline is 15 s)"),
	PF_PARAM_DOUBLE(struct port_errors_cfg, hard_per_hour, "1", 0, 1e12, "errors/h",
			"absolute mode: warn above this rate of a hard counter (link_downed, ...)"),
	PF_PARAM_DOUBLE(struct port_errors_cfg, soft_per_hour, "10", 0, 1e12, "errors/h",
			"absolute mode: warn above this rate of a soft counter (symbol_error, ...)"),
	PF_PARAM_DOUBLE(struct port_errors_cfg, transport_per_hour, "3600", 0, 1e12, "errors/h",
			"absolute mode: warn above this rate of a transport counter "
			"(out_of_sequence, local_ack_timeout_err, ...)"),
	PF_PARAM_STRING(struct port_errors_cfg, ignore, "", "counters not to judge, by file name"),
	PF_PARAM_STRING(struct port_errors_cfg, ignore_ports, "",
			"ports not to judge: \"mlx5_4/1\", or a device name for all its ports"),
	PF_PARAM_END,
};

/* One read of a port's counters. */
struct sample {
	uint64_t v[N_CTRS];
	bool have[N_CTRS];
	bool in_hw[N_CTRS];   /* found in hw_counters/ */
	size_t n_have;
	size_t n_judged;      /* of them, not CTR_INFO */
	size_t n_na;          /* "N/A (no PMA)" */
	bool dirs;            /* counters/ or hw_counters/ exists */
	int err;              /* first read or parse error, with the counter and text */
	size_t err_ctr;
	char err_text[48];
};

struct port {
	const char *dev;
	int rdma; /* index in node->rdma */
	unsigned int num;
	char subject[80];
	struct sample a, b;
};

static int read_sample(const struct pf_fs *fs, struct port *p, struct sample *s)
{
	char base[2][160];

	*s = (struct sample){ 0 };
	snprintf(base[0], sizeof(base[0]), "/sys/class/infiniband/%s/ports/%u/counters", p->dev,
		 p->num);
	snprintf(base[1], sizeof(base[1]), "/sys/class/infiniband/%s/ports/%u/hw_counters",
		 p->dev, p->num);
	s->dirs = pf_fs_exists(fs, base[0]) > 0 || pf_fs_exists(fs, base[1]) > 0;
	if (!s->dirs)
		return 0;
	for (size_t i = 0; i < N_CTRS; i++) {
		pf_autofree char *text = NULL;
		int r;

		r = pf_port_counter(fs, p->dev, p->num, ctrs[i].name, &s->v[i], &s->in_hw[i],
				    &text);
		if (r == -ENOENT)
			continue;
		if (r == -EOPNOTSUPP) {
			s->n_na++;
			continue;
		}
		if (r < 0) {
			if (!s->err) {
				s->err = r;
				s->err_ctr = i;
				snprintf(s->err_text, sizeof(s->err_text), "%s", text ? text : "");
			}
			continue;
		}
		s->have[i] = true;
		s->n_have++;
		s->n_judged += ctrs[i].cls != CTR_INFO;
	}
	return 0;
}

/* The width of counter @i as read: a PMA counter found in hw_counters/ is the driver's 64-bit. */
static unsigned int width_of(const struct sample *s, size_t i)
{
	return s->in_hw[i] && !ctrs[i].hw ? 64 : ctrs[i].width;
}

/* The counters a sample holds, by name, for the message: "link_downed, rcvd_seq_err, ...". */
static void list_read(struct pf_strbuf *sb, const struct sample *s, bool judged_only)
{
	size_t n = 0;

	for (size_t i = 0; i < N_CTRS; i++)
		if (s->have[i] && (!judged_only || ctrs[i].cls != CTR_INFO))
			pf_strbuf_item(sb, &n, 8, "%s", ctrs[i].name);
}

static uint64_t ctr_max(const struct ctr_def *c)
{
	return c->width == 64 ? UINT64_MAX : (UINT64_C(1) << c->width) - 1;
}

static const char *class_name(enum ctr_class c)
{
	static const char *const names[] = { "hard", "soft", "transport", "info" };

	return names[c];
}

/*
 * The remedy and code for the worst class seen on port @p (CTR_INFO: only
 * saturated counters); @history adds the snapshot caveat.
 */
static void add_remedy(struct pf_finding *f, const struct port *p, enum ctr_class worst,
		       bool saturated, bool history)
{
	char clear[96], tail[256];

	snprintf(clear, sizeof(clear), "perfquery -R -C %s -P %u", p->dev, p->num);
	snprintf(tail, sizeof(tail), "%s%s",
		 saturated && worst != CTR_INFO ? "; saturated counters hide new errors until "
						  "cleared" : "",
		 history ? "; a recorded root holds values since boot, so confirm on the node "
			   "itself, where preflight compares two samples" : "");
	switch (worst) {
	case CTR_HARD:
		pf_remedy(f, "the link went down, retrained or corrupted packets: reseat or replace "
			  "the cable or transceiver of this port, check the peer switch port's "
			  "counters (ibqueryerrors, or the switch CLI), then clear the counters (%s) "
			  "and rerun%s", clear, tail);
		pf_code(f, 1);
		break;
	case CTR_SOFT:
		pf_remedy(f, "a marginal link shows these first: clear the counters (%s) and rerun; "
			  "if they keep growing, replace the cable or transceiver%s", clear, tail);
		pf_code(f, 2);
		break;
	case CTR_TRANSPORT:
		pf_remedy(f, "packets were lost or reordered on the fabric: on RoCE check PFC/ECN "
			  "(the pfc_pause check) and the switches' drop counters; on InfiniBand look "
			  "for congestion or a flapping link along the path%s", tail);
		pf_code(f, 3);
		break;
	default: /* only saturated counters */
		pf_remedy(f, "clear the saturated counters (%s) so new errors become visible%s",
			  clear, tail);
		pf_code(f, 4);
		break;
	}
}

static bool ignored(const struct port_errors_cfg *cfg, const struct ctr_def *c)
{
	return pf_list_has(cfg->ignore, c->name);
}

/* A port that cannot be judged: skip or error, from its first sample. */
static bool judge_unusable(struct pf_result *res, const struct port *p, bool live)
{
	const struct sample *s = &p->a;
	struct pf_finding *f;

	if (!s->dirs && live) {
		f = pf_add(res, PF_STATUS_SKIP, p->subject, "no counters/ or hw_counters/ directory: "
			   "the driver exposes no port counters");
		pf_remedy(f, "read the counters with the vendor tool (mlxlink -d <pci> -c, "
			  "ethtool -S <netdev>)");
		return true;
	}
	if (!s->dirs) {
		f = pf_add(res, PF_STATUS_SKIP, p->subject, "no counters/ or hw_counters/ directory "
			   "in the snapshot");
		pf_remedy(f, "capture /sys/class/infiniband/%s/ports/%u/{counters,hw_counters} "
			  "with the snapshot, or run on the node", p->dev, p->num);
		return true;
	}
	if (s->err) {
		const char *text = s->err_text;

		if (s->err == -EINVAL)
			f = pf_add(res, PF_STATUS_ERROR, p->subject, "counter %s holds '%s', not a "
				   "number", ctrs[s->err_ctr].name, text);
		else
			f = pf_add(res, PF_STATUS_ERROR, p->subject, "cannot read counter %s: %s",
				   ctrs[s->err_ctr].name, strerror(-s->err));
		pf_remedy(f, "check /sys/class/infiniband/%s/ports/%u/%s/%s and the driver's "
			  "messages in dmesg", p->dev, p->num,
			  s->in_hw[s->err_ctr] ? "hw_counters" : "counters", ctrs[s->err_ctr].name);
		return true;
	}
	if (!s->n_judged) {
		pf_autostrbuf struct pf_strbuf got = PF_STRBUF_INIT;

		list_read(&got, s, false);
		if (s->n_na && !s->n_have)
			f = pf_add(res, PF_STATUS_SKIP, p->subject, "the port has no PMA: its "
				   "counters read \"N/A (no PMA)\"");
		else
			f = pf_add(res, PF_STATUS_SKIP, p->subject, "error counters unknown: none of "
				   "link_downed, symbol_error, port_rcv_errors, out_of_sequence, "
				   "rcvd_seq_err, retry_exceeded_err (or the %zu others judged) in "
				   "counters/ or hw_counters/%s%s", N_CTRS - 6,
				   got.len ? "; read only " : "", got.buf);
		pf_remedy(f, "read the counters with the vendor tool (mlxlink, ethtool -S)");
		return true;
	}
	return false;
}

static void judge_window(struct pf_result *res, const struct port_errors_cfg *cfg,
			 const struct port *p, double window_ms)
{
	enum pf_status st = PF_STATUS_PASS;
	enum ctr_class worst = CTR_INFO;
	bool any_saturated = false;
	pf_autostrbuf struct pf_strbuf list = PF_STRBUF_INIT;
	size_t n_listed = 0, n_judged = 0;
	cJSON *inc = cJSON_CreateObject(), *sat = cJSON_CreateArray();
	struct pf_finding *f;

	for (size_t i = 0; i < N_CTRS; i++) {
		const struct ctr_def *c = &ctrs[i];
		struct pf_counter_delta d;
		int r;

		if (!p->a.have[i] || !p->b.have[i] || ignored(cfg, c))
			continue;
		r = pf_counter_delta(p->a.v[i], p->b.v[i], width_of(&p->b, i), !p->b.in_hw[i], &d);
		if (r == -ERANGE) /* wider than the table says: judge as 64-bit */
			r = pf_counter_delta(p->a.v[i], p->b.v[i], 64, false, &d);
		if (r < 0)
			continue;
		if (c->cls != CTR_INFO)
			n_judged++;
		if (d.delta)
			cJSON_AddNumberToObject(inc, c->name, (double)d.delta);
		if (c->cls == CTR_INFO)
			continue;
		if (d.delta) {
			enum pf_status cs = c->cls == CTR_HARD ? PF_STATUS_FAIL : PF_STATUS_WARN;

			pf_strbuf_item(&list, &n_listed, 4, "%s +%llu%s%s", c->name,
			       (unsigned long long)d.delta, d.saturated ? " (now saturated)" : "",
			       d.reset ? " (cleared meanwhile)" : d.wrapped ? " (wrapped)" : "");
			st = pf_status_worst(st, cs);
			if (c->cls < worst)
				worst = c->cls;
		} else if (d.saturated) {
			/* stuck at its maximum: new errors are invisible */
			pf_strbuf_item(&list, &n_listed, 4, "%s saturated at %llu", c->name,
			       (unsigned long long)p->b.v[i]);
			st = pf_status_worst(st, PF_STATUS_WARN);
			any_saturated = true;
		}
		if (d.saturated)
			cJSON_AddItemToArray(sat, cJSON_CreateString(c->name));
	}

	if (st == PF_STATUS_PASS) {
		pf_autostrbuf struct pf_strbuf names = PF_STRBUF_INIT;

		list_read(&names, &p->b, true);
		f = pf_add(res, st, p->subject, "no error counter increased in %.1f s "
			   "(%zu counters: %s)", window_ms / 1000, n_judged, names.buf);
	} else {
		f = pf_add(res, st, p->subject, "%s in %.1f s", list.buf, window_ms / 1000);
		add_remedy(f, p, worst, any_saturated, false);
	}
	pf_obs_num(f, "window_ms", window_ms);
	pf_obs_json(f, "increase", inc);
	if (cJSON_GetArraySize(sat))
		pf_obs_json(f, "saturated", sat);
	else
		cJSON_Delete(sat);
	pf_exp_num(f, "hard_increase", 0);
	pf_exp_num(f, "soft_increase", 0);
}

static double threshold(const struct port_errors_cfg *cfg, enum ctr_class c)
{
	switch (c) {
	case CTR_HARD:
		return cfg->hard_per_hour;
	case CTR_SOFT:
		return cfg->soft_per_hour;
	case CTR_TRANSPORT:
		return cfg->transport_per_hour;
	default:
		return INFINITY;
	}
}

static void judge_absolute(struct pf_result *res, const struct port_errors_cfg *cfg,
			   const struct port *p, double uptime_s)
{
	/* at least one hour, so that a link event at boot is not a storm */
	double hours = uptime_s > 3600 ? uptime_s / 3600 : 1;
	enum pf_status st = PF_STATUS_PASS;
	enum ctr_class worst = CTR_INFO;
	bool any_saturated = false;
	pf_autostrbuf struct pf_strbuf list = PF_STRBUF_INIT;
	char when[64];
	size_t n_listed = 0, n_judged = 0;
	cJSON *vals = cJSON_CreateObject(), *sat = cJSON_CreateArray();
	struct pf_finding *f;

	if (uptime_s > 0)
		snprintf(when, sizeof(when), "%.1f h uptime", uptime_s / 3600);
	else
		snprintf(when, sizeof(when), "unknown uptime, taken as 1 h");
	for (size_t i = 0; i < N_CTRS; i++) {
		const struct ctr_def *c = &ctrs[i];
		uint64_t v = p->a.v[i];
		double rate;

		if (!p->a.have[i] || ignored(cfg, c))
			continue;
		if (v)
			cJSON_AddNumberToObject(vals, c->name, (double)v);
		if (c->cls == CTR_INFO)
			continue;
		n_judged++;
		rate = (double)v / hours;
		if (!p->a.in_hw[i] && c->width < 64 && v == ctr_max(c)) {
			pf_strbuf_item(&list, &n_listed, 4, "%s saturated at %llu", c->name,
			       (unsigned long long)v);
			cJSON_AddItemToArray(sat, cJSON_CreateString(c->name));
			any_saturated = true;
		} else if (rate > threshold(cfg, c->cls)) {
			pf_strbuf_item(&list, &n_listed, 4, "%s %llu (%.3g/h, %s threshold %g/h)",
			       c->name, (unsigned long long)v, rate, class_name(c->cls),
			       threshold(cfg, c->cls));
		} else {
			continue;
		}
		st = PF_STATUS_WARN;
		if (c->cls < worst)
			worst = c->cls;
	}

	if (st == PF_STATUS_PASS) {
		pf_autostrbuf struct pf_strbuf names = PF_STRBUF_INIT;

		list_read(&names, &p->a, true);
		f = pf_add(res, st, p->subject, "%zu error counters within thresholds over %s "
			   "(%s)", n_judged, when, names.buf);
	} else {
		f = pf_add(res, st, p->subject, "%s over %s (since boot or last clear)", list.buf,
			   when);
		add_remedy(f, p, worst, any_saturated, true);
	}
	if (uptime_s > 0)
		pf_obs_num(f, "uptime_s", uptime_s);
	pf_obs_json(f, "counters", vals);
	if (cJSON_GetArraySize(sat))
		pf_obs_json(f, "saturated", sat);
	else
		cJSON_Delete(sat);
	pf_exp_num(f, "hard_per_hour", cfg->hard_per_hour);
	pf_exp_num(f, "soft_per_hour", cfg->soft_per_hour);
	pf_exp_num(f, "transport_per_hour", cfg->transport_per_hour);
}

/* Plan: one port record per RDMA port of the inventory; how many in *ret_n. */
static struct port *plan_ports(const struct pf_node *node, size_t *ret_n)
{
	struct port *ports;
	size_t n = 0, n_ports = 0;

	for (size_t i = 0; i < node->n_rdma; i++)
		n_ports += node->rdma[i].n_ports;
	*ret_n = n_ports;
	if (!n_ports)
		return NULL;
	ports = pf_xcalloc(n_ports, sizeof(*ports));
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *rd = &node->rdma[i];

		for (size_t j = 0; j < rd->n_ports; j++) {
			struct port *p = &ports[n++];

			p->dev = rd->name;
			p->rdma = (int)i;
			p->num = rd->ports[j].num;
			snprintf(p->subject, sizeof(p->subject), "%s/%u", rd->name, p->num);
		}
	}
	return ports;
}

/* Run: wait window_ms through the wait provider and take the second sample. */
static int sample_window(const struct pf_ctx *ctx, const struct port_errors_cfg *cfg,
			 struct port *ports, size_t n, double *elapsed, struct pf_result *res)
{
	int r;

	if (!ctx->prov)
		return pf_error(res, -ENOSYS, "no wait provider (%s providers)",
				ctx->prov ? ctx->prov->name : "no");
	pf_progress(ctx, "%zu port%s, sampling for %.1f s", n, n == 1 ? "" : "s",
		    (double)cfg->window_ms / 1000.0);
	r = ctx->prov->wait(ctx, (unsigned int)cfg->window_ms, elapsed);
	if (r < 0)
		return pf_error(res, r, "cannot wait %llu ms between samples: %s",
				(unsigned long long)cfg->window_ms, strerror(-r));
	for (size_t i = 0; i < n; i++)
		read_sample(ctx->fs, &ports[i], &ports[i].b);
	return 0;
}

/* Judge each port (ignored, unusable, over the window or since boot); count the bad. */
static void judge_ports(const struct pf_ctx *ctx, const struct port_errors_cfg *cfg,
			struct port *ports, size_t n, bool window, double elapsed,
			size_t *n_bad, size_t *n_skip, struct pf_result *res)
{
	for (size_t i = 0; i < n; i++) {
		struct port *p = &ports[i];
		const struct pf_rail_port *rp = pf_rails_port(ctx->rails, p->rdma, p->num);
		size_t first = res->n_findings;
		enum pf_status st;

		if (pf_list_has(cfg->ignore_ports, p->subject) || pf_list_has(cfg->ignore_ports, p->dev))
			pf_add(res, PF_STATUS_SKIP, p->subject, "%s ignored by the profile", p->subject);
		else if (judge_unusable(res, p, pf_prov_can(ctx, PF_PROV_NODE)))
			; /* its skip or error is recorded */
		else if (window)
			judge_window(res, cfg, p, elapsed);
		else
			judge_absolute(res, cfg, p, pf_read_uptime(ctx->fs));
		/* errors on a storage, front-end or unused port are worth a look, not a drain */
		if (rp && rp->role != PF_ROLE_COMPUTE)
			pf_rails_soften(res, first, rp);
		st = pf_last(res)->status;
		if (st == PF_STATUS_SKIP)
			(*n_skip)++;
		else if (st != PF_STATUS_PASS)
			(*n_bad)++;
	}
}

static int port_errors_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct port_errors_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	pf_autofree struct port *ports = NULL;
	size_t n = 0, n_bad = 0, n_skip = 0;
	bool window, window_on_snapshot = false;
	double elapsed = 0;
	int r;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	/* an enum: the profile accepts only auto, window and absolute */
	if (!strcmp(cfg->mode, "auto"))
		window = pf_prov_can(ctx, PF_PROV_ELAPSES);
	else
		window = !strcmp(cfg->mode, "window");
	ports = plan_ports(node, &n);
	if (!n)
		return pf_skip(res, "no RDMA ports on this node");

	/* decide from the inventory and the first sample before any wait */
	for (size_t i = 0; i < n; i++)
		read_sample(ctx->fs, &ports[i], &ports[i].a);
	if (!pf_node_holds(node, PF_NODE_NO_PORT_COUNTERS)) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= ports[i].a.dirs;
		if (!any)
			return pf_skip(res, "the inventory comes from a topology export, which holds no "
				       "port counters (%zu ports)", n);
	}
	/*
	 * A snapshot's counter files cannot change (a table whose wait lets no
	 * time pass stands for one): never wait on them; their one sample is
	 * judged since boot.
	 */
	if (window && !pf_prov_can(ctx, PF_PROV_ELAPSES)) {
		window = false;
		window_on_snapshot = true;
	}
	if (window) {
		r = sample_window(ctx, cfg, ports, n, &elapsed, res);
		if (r < 0)
			return r;
	}
	judge_ports(ctx, cfg, ports, n, window, elapsed, &n_bad, &n_skip, res);
	if (!n_bad && n_skip == n)
		pf_summary(res, "no port counters to judge (%zu ports skipped)", n);
	else if (!n_bad)
		pf_summary(res, "%zu of %zu ports clean %s%s", n - n_skip, n,
			   window ? "over the sampling window" : "since boot (per hour of uptime)",
			   window_on_snapshot ? " (mode=window on a snapshot: its counters are one "
						"sample, judged since boot)" : "");
	else if (window)
		pf_summary(res, "%zu of %zu ports with errors or unreadable counters in a %.1f s window",
			   n_bad, n, elapsed / 1000);
	else
		pf_summary(res, "%zu of %zu ports with error counters above thresholds or unreadable "
			   "(since boot)", n_bad, n);
	return 0;
}

static const struct pf_code port_errors_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "a hard error counter rose: the link went down, retrained or corrupted packets" },
	{ 2, PF_ACTION_RESEAT_OR_REPLACE, "a physical error counter a marginal link shows first rose (symbol errors and the like)" },
	{ 3, PF_ACTION_RECONFIGURE, "transport error counters rose: packets lost or reordered on the fabric (PFC/ECN, congestion)" },
	{ 4, PF_ACTION_NONE, "error counters are saturated: new errors are invisible until they are cleared" },
	{ 0 },
};

const struct pf_check pf_check_port_errors = {
	.name = "port_errors",
	.summary = "RDMA port error counters do not increase (live) or stay low (since boot)",
	.tags = "rdma,static",
	.reads = "/sys/class/infiniband/<dev>/ports/<n>/counters/*, .../hw_counters/*, "
		 "/proc/uptime (under --root)",
	.params = port_errors_params,
	.codes = port_errors_codes,
	.cfg_size = sizeof(struct port_errors_cfg),
	.timeout_s = 15,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_JUDGES_TOPOLOGY | PF_CHECK_WINDOWED,
	.run = port_errors_run,
};
