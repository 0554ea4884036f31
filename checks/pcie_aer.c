// SPDX-License-Identifier: MIT
/*
 * pcie_aer - PCIe Advanced Error Reporting counters of every GPU, RDMA NIC
 * and the bridges between them and their root ports.
 *
 * Reads /sys/bus/pci/devices/<bdf>/aer_dev_{correctable,nonfatal,fatal}
 * (Documentation/ABI/testing/sysfs-bus-pci-devices-aer, kernel 4.19 on;
 * drivers/pci/pcie/aer.c keeps them, one count per error bit since boot).
 * The devices are the inventory's GPU and RDMA functions and every bridge on
 * their chains up to the root port (node->pci[].parent): an error is often
 * logged by the link partner rather than the faulty end, so a bridge's
 * counters speak for the card below it, which the finding names.
 *
 * Fatal or non-fatal (uncorrectable) errors since boot fail: the link lost
 * or corrupted a transaction.  Correctable errors (the link's retry hid
 * them) are judged as a rate, as port_errors does: live (root "/"), over
 * a sampling window, any increase warns; under a recorded root, since boot
 * per hour of /proc/uptime (at least one hour) against correctable_per_hour.
 * A device without the files (AER not enabled, no AER capability, or a
 * kernel before 4.19) is a skip naming what is missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

#define MAX_DEPTH 64 /* bridges above a device; more means a corrupt model */

enum aer_kind { AER_COR, AER_NONFATAL, AER_FATAL, N_KINDS };

static const char *const kind_file[N_KINDS] = {
	"aer_dev_correctable", "aer_dev_nonfatal", "aer_dev_fatal",
};
static const char *const kind_key[N_KINDS] = { "correctable", "nonfatal", "fatal" };
static const char *const kind_word[N_KINDS] = { "correctable", "non-fatal", "fatal" };

struct pcie_aer_cfg {
	char *mode;
	uint64_t window_ms;
	double correctable_per_hour;
	char *ignore, *ignore_devices;
};

static const struct pf_param pcie_aer_params[] = {
	PF_PARAM_ENUM(struct pcie_aer_cfg, mode, "auto",
		      "correctable errors: auto: a sampling window on the live node, since boot "
		      "under --root; or window, absolute", "auto", "window", "absolute"),
	PF_PARAM_U64(struct pcie_aer_cfg, window_ms, "1000", 0, 10000, "ms",
		     "sampling window on the live node (the check's deadline is 15 s)"),
	PF_PARAM_DOUBLE(struct pcie_aer_cfg, correctable_per_hour, "10", 0, 1e12, "errors/h",
			"since boot: warn above this rate of correctable errors per device"),
	PF_PARAM_STRING(struct pcie_aer_cfg, ignore, "",
			"error names not to judge, as the kernel prints them (e.g. UnsupReq)"),
	PF_PARAM_STRING(struct pcie_aer_cfg, ignore_devices, "",
			"devices not to judge: BDFs (\"0000:17:00.0\") or RDMA device names"),
	PF_PARAM_END,
};

/* One read of a device's three files. */
struct sample {
	struct pf_aer_stats s[N_KINDS];
	bool have[N_KINDS];
	size_t n_have;
	int err;               /* first read or parse error */
	enum aer_kind err_kind;
};

struct target {
	int pci;               /* index into node->pci */
	const char *name;      /* RDMA device name, or NULL */
	bool gpu, bridge;
	struct pf_strbuf below; /* for a bridge: the GPUs and NICs below it */
	size_t n_below;
	struct sample a, b;
};

static void read_sample(const struct pf_fs *fs, const char *bdf, struct sample *s)
{
	*s = (struct sample){ 0 };
	for (int k = 0; k < N_KINDS; k++) {
		pf_autofree char *text = NULL;
		char path[128];
		int r;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", bdf, kind_file[k]);
		r = pf_fs_read_full(fs, path, 0, &text, NULL);
		if (r == -ENOENT)
			continue;
		if (r >= 0)
			r = pf_parse_aer_stats(text, &s->s[k]);
		if (r < 0) {
			if (!s->err) {
				s->err = r;
				s->err_kind = k;
			}
			continue;
		}
		s->have[k] = true;
		s->n_have++;
	}
}

/* The errors of one file not ignored: their sum and "DLP 1, CmpltTO 2" into @list. */
static uint64_t judged_sum(const struct pcie_aer_cfg *cfg, const struct pf_aer_stats *s,
			   struct pf_strbuf *list, cJSON *obj)
{
	uint64_t sum = 0, ignored_sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		uint64_t c = s->err[i].count;

		if (!c)
			continue;
		if (obj)
			cJSON_AddNumberToObject(obj, s->err[i].name, (double)c);
		if (pf_list_has(cfg->ignore, s->err[i].name)) {
			ignored_sum += c;
			continue;
		}
		if (list)
			pf_strbuf_item(list, &n, 6, "%s %llu", s->err[i].name, (unsigned long long)c);
		sum = c > UINT64_MAX - sum ? UINT64_MAX : sum + c;
	}
	/* a total with no named line behind it: a bit this kernel has no name for */
	if (s->has_total && s->total > sum + ignored_sum) {
		uint64_t rest = s->total - sum - ignored_sum;

		if (list)
			pf_strbuf_item(list, &n, 6, "unnamed %llu", (unsigned long long)rest);
		sum += rest;
	}
	return sum;
}

static void describe(char *buf, size_t len, const struct pf_node *node, const struct target *t)
{
	const char *bdf = node->pci[t->pci].bdf;

	if (t->name)
		snprintf(buf, len, "%s (%s)", t->name, bdf);
	else if (t->gpu)
		snprintf(buf, len, "GPU %s", bdf);
	else
		snprintf(buf, len, "bridge above %s", t->below.buf);
}

static const char *subject_of(const struct pf_node *node, const struct target *t)
{
	return t->name ? t->name : node->pci[t->pci].bdf;
}

/* A device that cannot be judged: skip or error; false when it can be. */
static bool judge_unusable(struct pf_result *res, const struct pf_node *node,
			   const struct target *t, const char *what)
{
	const char *bdf = node->pci[t->pci].bdf;
	struct pf_finding *f;

	if (t->a.err) {
		f = pf_add(res, PF_STATUS_ERROR, subject_of(node, t), "%s: cannot read %s: %s",
			   what, kind_file[t->a.err_kind],
			   t->a.err == -EINVAL ? "not \"NAME count\" lines" : strerror(-t->a.err));
		pf_remedy(f, "check /sys/bus/pci/devices/%s/%s and the kernel's messages", bdf,
			  kind_file[t->a.err_kind]);
		return true;
	}
	if (!t->a.n_have) {
		f = pf_add(res, PF_STATUS_SKIP, subject_of(node, t), "%s: no aer_dev_correctable, "
			   "aer_dev_nonfatal or aer_dev_fatal: AER is not enabled for it (no AER "
			   "capability, pci=noaer, firmware-first error handling) or the kernel is "
			   "older than 4.19", what);
		pf_remedy(f, "enable native AER (kernel CONFIG_PCIEAER, no pci=noaer; the BIOS "
			  "option that hands AER to the OS), or read the errors in the BMC's log");
		return true;
	}
	return false;
}

/*
 * Correctable errors: over the window, or since boot per hour of uptime (at
 * least one); what is wrong goes into @parts and its code into *@code.
 */
static enum pf_status judge_correctable(const struct pcie_aer_cfg *cfg, const struct target *t,
					bool window, double elapsed, double uptime_s,
					struct pf_strbuf *parts, unsigned int *code)
{
	pf_autostrbuf struct pf_strbuf names = PF_STRBUF_INIT;
	double hours = uptime_s > 3600 ? uptime_s / 3600 : 1, rate;
	uint64_t now;

	if (!t->a.have[AER_COR])
		return PF_STATUS_PASS;
	if (window) {
		uint64_t before = judged_sum(cfg, &t->a.s[AER_COR], NULL, NULL);

		if (!t->b.have[AER_COR])
			return PF_STATUS_PASS;
		now = judged_sum(cfg, &t->b.s[AER_COR], &names, NULL);
		if (now <= before)
			return PF_STATUS_PASS;
		pf_strbuf_sep(parts, "; ");
		pf_strbuf_addf(parts, "correctable errors +%llu in %.1f s (now %s)",
			       (unsigned long long)(now - before), elapsed / 1000, names.buf);
		if (!*code)
			*code = 3;
		return PF_STATUS_WARN;
	}
	now = judged_sum(cfg, &t->a.s[AER_COR], &names, NULL);
	rate = (double)now / hours;
	if (rate <= cfg->correctable_per_hour)
		return PF_STATUS_PASS;
	pf_strbuf_sep(parts, "; ");
	pf_strbuf_addf(parts, "correctable %s (%.3g/h over %s, threshold %g/h)", names.buf, rate,
		       uptime_s > 0 ? "the uptime" : "an unknown uptime, taken as 1 h",
		       cfg->correctable_per_hour);
	if (!*code)
		*code = 4;
	return PF_STATUS_WARN;
}

static void add_remedy(struct pf_finding *f, const struct pf_node *node, const struct target *t,
		       enum pf_status st)
{
	const char *who = t->bridge ? t->below.buf : subject_of(node, t);

	if (st == PF_STATUS_FAIL)
		pf_remedy(f, "the PCIe link lost or corrupted transactions; either end of a link may "
			  "log its errors, so look at %s and the slot, riser or cable between it and "
			  "its upstream port: reseat or replace the card, check `dmesg | grep AER` for "
			  "the first error and the slot's power and cooling; the counters clear only "
			  "at reboot, so reboot after the repair", who);
	else
		pf_remedy(f, "correctable errors are retried by the link, costing bandwidth; a rising "
			  "rate precedes uncorrectable ones: reseat %s, check the riser or cable and "
			  "the slot's signal integrity (`lspci -vvv -s %s`: LnkSta, DevSta)", who,
			  node->pci[t->pci].bdf);
}

static void judge_target(struct pf_result *res, const struct pcie_aer_cfg *cfg,
			 const struct pf_node *node, const struct target *t, bool window,
			 double elapsed, double uptime_s)
{
	pf_autostrbuf struct pf_strbuf parts = PF_STRBUF_INIT;
	unsigned int code = 0;
	enum pf_status st = PF_STATUS_PASS;
	char what[320];
	struct pf_finding *f;

	describe(what, sizeof(what), node, t);
	if (judge_unusable(res, node, t, what))
		return;
	for (int k = AER_FATAL; k > AER_COR; k--) {
		pf_autostrbuf struct pf_strbuf names = PF_STRBUF_INIT;
		uint64_t sum;

		if (!t->a.have[k])
			continue;
		sum = judged_sum(cfg, &t->a.s[k], &names, NULL);
		if (!sum)
			continue;
		pf_strbuf_sep(&parts, "; ");
		pf_strbuf_addf(&parts, "%s errors since boot: %s", kind_word[k], names.buf);
		st = PF_STATUS_FAIL;
		if (!code)
			code = k == AER_FATAL ? 1 : 2;
	}
	st = pf_status_worst(st, judge_correctable(cfg, t, window, elapsed, uptime_s, &parts,
						   &code));
	if (st == PF_STATUS_PASS) {
		f = pf_add(res, st, subject_of(node, t), "%s: no uncorrectable errors since boot, "
			   "correctable %s", what, window ? "not increasing over the window"
							  : "within the rate");
	} else {
		f = pf_add(res, st, subject_of(node, t), "%s: %s", what, parts.buf);
		pf_code(f, code);
		add_remedy(f, node, t, st);
	}
	for (int k = 0; k < N_KINDS; k++) {
		const struct sample *s = window && k == AER_COR && t->b.have[k] ? &t->b : &t->a;
		cJSON *obj;

		if (!s->have[k])
			continue;
		obj = cJSON_CreateObject();
		judged_sum(cfg, &s->s[k], NULL, obj);
		pf_obs_json(f, kind_key[k], obj);
	}
	pf_obs_str(f, "bdf", node->pci[t->pci].bdf);
	if (t->bridge)
		pf_obs_str(f, "above", t->below.buf);
	if (window)
		pf_obs_num(f, "window_ms", elapsed);
	else if (uptime_s > 0)
		pf_obs_num(f, "uptime_s", uptime_s);
	pf_exp_num(f, "fatal", 0);
	pf_exp_num(f, "nonfatal", 0);
	if (!window)
		pf_exp_num(f, "correctable_per_hour", cfg->correctable_per_hour);
}

/* Mark node->pci[@pci] a target and every bridge above it, naming @label below each bridge. */
static void mark_chain(const struct pf_node *node, struct target **by_pci, int pci,
		       const char *name, bool gpu)
{
	struct target *t = by_pci[pci];
	char label[48];
	size_t depth = 0;

	if (!t) {
		t = by_pci[pci] = pf_xcalloc(1, sizeof(*t));
		t->pci = pci;
		t->below = (struct pf_strbuf)PF_STRBUF_INIT;
	}
	t->name = name ? name : t->name;
	t->gpu |= gpu;
	if (name)
		snprintf(label, sizeof(label), "%s", name);
	else
		snprintf(label, sizeof(label), "GPU %s", node->pci[pci].bdf);
	for (int p = node->pci[pci].parent; p >= 0 && (size_t)p < node->n_pci &&
	     depth < MAX_DEPTH; p = node->pci[p].parent, depth++) {
		struct target *b = by_pci[p];

		if (!b) {
			b = by_pci[p] = pf_xcalloc(1, sizeof(*b));
			b->pci = p;
			b->below = (struct pf_strbuf)PF_STRBUF_INIT;
		}
		b->bridge = true;
		pf_strbuf_item(&b->below, &b->n_below, 4, "%s", label);
	}
}

/* The targets in PCI order (deterministic): GPUs, RDMA functions and the bridges above them. */
static struct target **plan(const struct pf_node *node, const struct pcie_aer_cfg *cfg,
			    size_t *ret_n)
{
	struct target **by_pci = pf_xcalloc(node->n_pci + 1, sizeof(*by_pci));
	size_t n = 0;

	for (size_t i = 0; i < node->n_gpus; i++)
		if (node->gpus[i].pci >= 0 && (size_t)node->gpus[i].pci < node->n_pci)
			mark_chain(node, by_pci, node->gpus[i].pci, NULL, true);
	for (size_t i = 0; i < node->n_rdma; i++)
		if (node->rdma[i].pci >= 0 && (size_t)node->rdma[i].pci < node->n_pci &&
		    !pf_list_has(cfg->ignore_devices, node->rdma[i].name))
			mark_chain(node, by_pci, node->rdma[i].pci, node->rdma[i].name, false);
	for (size_t i = 0; i < node->n_pci; i++)
		if (by_pci[i])
			by_pci[n++] = by_pci[i];
	for (size_t i = n; i < node->n_pci; i++)
		by_pci[i] = NULL;
	*ret_n = n;
	return by_pci;
}

static void free_plan(struct target **t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		pf_strbuf_release(&t[i]->below);
		free(t[i]);
	}
	free(t);
}

static int pcie_aer_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct pcie_aer_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct target **t;
	size_t n = 0, n_fail = 0, n_warn = 0, n_skip = 0, n_have = 0;
	double elapsed = 0, uptime_s;
	bool window;
	int r = 0;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	if (!strcmp(cfg->mode, "auto"))
		window = pf_prov_can(ctx, PF_PROV_ELAPSES);
	else
		window = !strcmp(cfg->mode, "window") && pf_prov_can(ctx, PF_PROV_ELAPSES);
	t = plan(node, cfg, &n);
	if (!n) {
		free_plan(t, n);
		return pf_skip(res, "no GPU or RDMA NIC on the PCI bus");
	}
	for (size_t i = 0; i < n; i++) {
		read_sample(ctx->fs, node->pci[t[i]->pci].bdf, &t[i]->a);
		n_have += t[i]->a.n_have > 0;
	}
	if (!n_have) {
		r = pf_skip(res, "no AER statistics (/sys/bus/pci/devices/<bdf>/aer_dev_{correctable,"
			    "nonfatal,fatal}) on any of %zu devices (GPUs, NICs and their bridges): "
			    "AER not enabled, firmware-first error handling, a kernel before 4.19%s",
			    n, pf_prov_can(ctx, PF_PROV_NODE) ? "" : ", or a snapshot without them");
		free_plan(t, n);
		return r;
	}
	if (window) {
		pf_progress(ctx, "%zu devices, sampling for %.1f s", n, (double)cfg->window_ms / 1000);
		r = ctx->prov->wait(ctx, (unsigned int)cfg->window_ms, &elapsed);
		if (r < 0) {
			r = pf_error(res, r, "cannot wait %llu ms between samples: %s",
				     (unsigned long long)cfg->window_ms, strerror(-r));
			free_plan(t, n);
			return r;
		}
		for (size_t i = 0; i < n; i++)
			read_sample(ctx->fs, node->pci[t[i]->pci].bdf, &t[i]->b);
	}
	uptime_s = pf_read_uptime(ctx->fs);
	for (size_t i = 0; i < n; i++) {
		enum pf_status st;

		if (pf_list_has(cfg->ignore_devices, node->pci[t[i]->pci].bdf)) {
			pf_add(res, PF_STATUS_SKIP, subject_of(node, t[i]), "%s ignored by the "
			       "profile", node->pci[t[i]->pci].bdf);
			n_skip++;
			continue;
		}
		judge_target(res, cfg, node, t[i], window, elapsed, uptime_s);
		st = pf_last(res)->status;
		n_fail += st == PF_STATUS_FAIL || st == PF_STATUS_ERROR;
		n_warn += st == PF_STATUS_WARN;
		n_skip += st == PF_STATUS_SKIP;
	}
	if (n_fail || n_warn)
		pf_summary(res, "%zu of %zu devices with uncorrectable errors or unreadable counters, "
			   "%zu with correctable errors above the %s", n_fail, n, n_warn,
			   window ? "window's zero" : "rate");
	else
		pf_summary(res, "%zu of %zu devices free of PCIe errors (%zu without AER statistics "
			   "or ignored)", n - n_skip, n, n_skip);
	free_plan(t, n);
	return 0;
}

static const struct pf_code pcie_aer_codes[] = {
	{ 1, PF_ACTION_RESEAT_OR_REPLACE, "fatal PCIe errors since boot on a GPU, NIC or a "
					  "bridge above one" },
	{ 2, PF_ACTION_RESEAT_OR_REPLACE, "non-fatal uncorrectable PCIe errors since boot" },
	{ 3, PF_ACTION_RESEAT_OR_REPLACE, "correctable PCIe errors increased over the window" },
	{ 4, PF_ACTION_RESEAT_OR_REPLACE, "correctable PCIe errors since boot above the rate" },
	{ 0 },
};

const struct pf_check pf_check_pcie_aer = {
	.name = "pcie_aer",
	.summary = "no uncorrectable PCIe errors since boot and few correctable ones on GPUs, "
		   "NICs and the bridges above them",
	.tags = "pcie,gpu,rdma,static",
	.reads = "/sys/bus/pci/devices/<bdf>/aer_dev_{correctable,nonfatal,fatal} of each GPU, "
		 "RDMA NIC and bridge up to the root port; /proc/uptime (under --root)",
	.params = pcie_aer_params,
	.codes = pcie_aer_codes,
	.cfg_size = sizeof(struct pcie_aer_cfg),
	.timeout_s = 15,
	.flags = PF_CHECK_NEEDS_NODE,
	.run = pcie_aer_run,
};
