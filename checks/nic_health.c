// SPDX-License-Identifier: MIT
/*
 * nic_health - the firmware and driver health of each RDMA NIC through
 * devlink (include/uapi/linux/devlink.h): its health reporters and the
 * firmware it runs.
 *
 * For the PCI function of every RDMA device of the inventory, the devlink
 * instance "pci/<bdf>" in two dumps from ctx->prov->devlink_dump (live:
 * generic netlink; recorded: the same reply bytes, preflight/devlink/):
 *   - DEVLINK_CMD_HEALTH_REPORTER_GET: each reporter's state and error and
 *     recovery counts.  mlx5 registers fw (firmware syndromes), fw_fatal
 *     (the firmware stopped: the device is reset), tx and rx (queue
 *     timeouts and errors) (drivers/net/ethernet/mellanox/mlx5/core/health.c,
 *     en/reporter_tx.c, en/reporter_rx.c).  A reporter in the error state,
 *     or fw_fatal with any error since the driver loaded, fails; errors of
 *     another reporter that recovered warn.
 *   - DEVLINK_CMD_INFO_GET: driver, PSID (fixed "fw.psid" or "board.id"),
 *     running and stored "fw.version".  A stored version other than the
 *     running one warns: a flashed firmware waits for activation (a reset
 *     or reboot), so the node runs other firmware than the next boot will.
 *     The versions are observed values of the finding, so `preflight fleet`
 *     and `preflight diff` see them per node.
 * No devlink family in the kernel, or no instance for a NIC, is a skip
 * with the kernel's answer.
 *
 * The kernel log since boot (ctx->prov->gpu->kmsg: /dev/kmsg live,
 * <root>/preflight/kmsg recorded) holds what devlink may not (a driver
 * without the reporters, a reporter re-created by a reload): mlx5's health
 * messages per PCI function (pf_parse_kmsg_mlx5(), health.c's texts).  A
 * fatal event ("Fatal error <n> detected", "device's health compromised")
 * whose recovery failed or never started fails; one the driver recovered
 * from warns.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/devlink.h"
#include "preflight/gpu_provider.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

struct nic_health_cfg {
	bool warn_fw_pending;
	char *ignore_reporters;
};

static const struct pf_param nic_health_params[] = {
	PF_PARAM_BOOL(struct nic_health_cfg, warn_fw_pending, "true",
		      "warn when the stored firmware differs from the running one (an "
		      "activation pending)"),
	PF_PARAM_STRING(struct nic_health_cfg, ignore_reporters, "",
			"devlink health reporters not judged, by name (e.g. tx)"),
	PF_PARAM_END,
};

/* A dump as parsed: its -errno, or its entries. */
struct dumps {
	int health_r, info_r;
	struct pf_devlink_reporter *rep;
	size_t n_rep;
	struct pf_devlink_info *info;
	size_t n_info;
};

static int fetch(const struct pf_ctx *ctx, struct dumps *d)
{
	pf_autofree void *hb = NULL, *ib = NULL;
	size_t hl = 0, il = 0;

	d->health_r = ctx->prov->devlink_dump(ctx, PF_DEVLINK_HEALTH, &hb, &hl);
	if (d->health_r >= 0)
		d->health_r = pf_devlink_parse_health(hb, hl, &d->rep, &d->n_rep);
	d->info_r = ctx->prov->devlink_dump(ctx, PF_DEVLINK_INFO, &ib, &il);
	if (d->info_r >= 0)
		d->info_r = pf_devlink_parse_info(ib, il, &d->info, &d->n_info);
	return 0;
}

static const struct pf_devlink_info *info_of(const struct dumps *d, const char *bdf)
{
	for (size_t i = 0; i < d->n_info; i++)
		if (!strcmp(d->info[i].bus, "pci") && !strcmp(d->info[i].dev, bdf))
			return &d->info[i];
	return NULL;
}

/* The kernel's answer for a dump that failed, in words. */
static const char *why(const struct pf_ctx *ctx, int r)
{
	if (r == -ENOENT)
		return pf_prov_can(ctx, PF_PROV_NODE)
			       ? "the kernel has no devlink generic netlink family (ENOENT)"
			       : "the snapshot holds no devlink dump (preflight/devlink/)";
	if (r == -EBADMSG)
		return "the reply is not devlink messages";
	return strerror(-r);
}

static void add_info(struct pf_finding *f, const struct pf_devlink_info *in)
{
	if (!in)
		return;
	if (in->driver[0])
		pf_obs_str(f, "driver", in->driver);
	if (in->psid[0])
		pf_obs_str(f, "psid", in->psid);
	if (in->fw_running[0])
		pf_obs_str(f, "fw_running", in->fw_running);
	if (in->fw_stored[0])
		pf_obs_str(f, "fw_stored", in->fw_stored);
}

static void judge_nic(struct pf_result *res, const struct pf_ctx *ctx,
		      const struct nic_health_cfg *cfg, const struct dumps *d, const char *name,
		      const char *bdf)
{
	const struct pf_devlink_info *in = d->info_r >= 0 ? info_of(d, bdf) : NULL;
	pf_autostrbuf struct pf_strbuf bad = PF_STRBUF_INIT, seen = PF_STRBUF_INIT;
	enum pf_status st = PF_STATUS_PASS;
	unsigned int code = 0;
	size_t n_rep = 0, n_bad = 0, n_seen = 0;
	cJSON *reps = cJSON_CreateObject();
	struct pf_finding *f;

	for (size_t i = 0; d->health_r >= 0 && i < d->n_rep; i++) {
		const struct pf_devlink_reporter *r = &d->rep[i];
		bool fatal = !strcmp(r->name, "fw_fatal");
		cJSON *o;

		if (strcmp(r->bus, "pci") || strcmp(r->dev, bdf))
			continue;
		n_rep++;
		pf_strbuf_item(&seen, &n_seen, 8, "%s", r->name);
		o = cJSON_AddObjectToObject(reps, r->name);
		cJSON_AddStringToObject(o, "state", r->state == PF_DEVLINK_STATE_ERROR ? "error"
						    : r->state == PF_DEVLINK_STATE_HEALTHY ? "healthy"
											  : "unknown");
		cJSON_AddNumberToObject(o, "errors", (double)r->errors);
		cJSON_AddNumberToObject(o, "recovers", (double)r->recovers);
		if (pf_list_has(cfg->ignore_reporters, r->name))
			continue;
		if (r->state == PF_DEVLINK_STATE_ERROR) {
			pf_strbuf_item(&bad, &n_bad, 6, "%s in error state (%llu errors, %llu "
				       "recovered)", r->name, (unsigned long long)r->errors,
				       (unsigned long long)r->recovers);
			st = PF_STATUS_FAIL;
			code = code == 1 || code == 2 ? code : fatal ? 1 : 2;
		} else if (fatal && r->errors) {
			pf_strbuf_item(&bad, &n_bad, 6, "fw_fatal %llu errors since the driver "
				       "loaded", (unsigned long long)r->errors);
			st = PF_STATUS_FAIL;
			code = 1; /* the firmware stopped: before any other */
		} else if (r->errors) {
			pf_strbuf_item(&bad, &n_bad, 6, "%s %llu errors (%llu recovered)", r->name,
				       (unsigned long long)r->errors, (unsigned long long)r->recovers);
			st = pf_status_worst(st, PF_STATUS_WARN);
			code = code ? code : 3;
		}
	}
	if (cfg->warn_fw_pending && in && in->fw_running[0] && in->fw_stored[0] &&
	    strcmp(in->fw_running, in->fw_stored)) {
		pf_strbuf_item(&bad, &n_bad, 6, "firmware %s runs, %s is stored (activation "
			       "pending)", in->fw_running, in->fw_stored);
		st = pf_status_worst(st, PF_STATUS_WARN);
		code = code ? code : 4;
	}
	if (d->health_r < 0 && st == PF_STATUS_PASS) {
		f = pf_add(res, PF_STATUS_SKIP, name, "%s (%s): devlink health unknown: %s", name,
			   bdf, why(ctx, d->health_r));
		pf_remedy(f, "a kernel with devlink (CONFIG_NET_DEVLINK) and a driver that "
			  "registers health reporters (mlx5_core); `devlink health show`");
		cJSON_Delete(reps);
		add_info(f, in);
		return;
	}
	if (!n_rep && st == PF_STATUS_PASS) {
		f = pf_add(res, PF_STATUS_SKIP, name, "%s (%s): no devlink health reporters for "
			   "pci/%s (%zu reporters on the node): the driver registers none",
			   name, bdf, bdf, d->n_rep);
		cJSON_Delete(reps);
		add_info(f, in);
		return;
	}
	if (st == PF_STATUS_PASS) {
		f = pf_add(res, st, name, "%s (%s): %zu devlink health reporters healthy (%s)%s%s",
			   name, bdf, n_rep, seen.buf, in && in->fw_running[0] ? ", firmware " : "",
			   in && in->fw_running[0] ? in->fw_running : "");
	} else {
		f = pf_add(res, st, name, "%s (%s): %s", name, bdf, bad.buf);
		pf_code(f, code);
		if (code == 4)
			pf_remedy(f, "activate the stored firmware (`mlxfwreset -d %s reset`, or "
				  "reboot) or flash back the running one, so every node runs what "
				  "it will boot", bdf);
		else
			pf_remedy(f, "read `devlink health show pci/%s` and `devlink health dump "
				  "show pci/%s reporter <name>`, and the driver's messages (`dmesg "
				  "| grep mlx5`); a fatal firmware error needs a reset of the device "
				  "(`devlink dev reload pci/%s`, or reboot) and, if it returns, the "
				  "vendor's support", bdf, bdf, bdf);
	}
	pf_obs_json(f, "reporters", reps);
	add_info(f, in);
	pf_exp_str(f, "state", "healthy");
	pf_exp_num(f, "fw_fatal_errors", 0);
}

/* The mlx5 health messages of the kernel log for the NIC @name at @bdf; true when one is bad. */
static bool judge_log(struct pf_result *res, const struct pf_mlx5_health *ev, size_t n_ev,
		      const char *name, const char *bdf)
{
	const struct pf_mlx5_health *h = NULL;
	char subject[64];
	struct pf_finding *f;

	for (size_t i = 0; i < n_ev && !h; i++)
		if (!strcmp(ev[i].bdf, bdf))
			h = &ev[i];
	if (!h || !(h->fatal + h->compromised))
		return false;
	snprintf(subject, sizeof(subject), "%s/kernel_log", name);
	if (h->recovered) {
		f = pf_add(res, PF_STATUS_WARN, subject, "%s (%s): %u fatal mlx5 health event%s in "
			   "the kernel log since boot, recovered by the driver (last: %s)", name, bdf,
			   h->fatal + h->compromised, h->fatal + h->compromised == 1 ? "" : "s",
			   h->what);
		pf_code(f, 6);
	} else {
		f = pf_add(res, PF_STATUS_FAIL, subject, "%s (%s): fatal mlx5 health event in the "
			   "kernel log since boot, %s (%s)", name, bdf, h->recovery_failed ?
			   "its recovery failed" : "no recovery followed", h->what);
		pf_code(f, 5);
	}
	pf_obs_num(f, "fatal_events", h->fatal + h->compromised);
	pf_obs_num(f, "recoveries", h->recoveries);
	pf_obs_num(f, "recoveries_failed", h->recovery_failed);
	if (h->last_t >= 0)
		pf_obs_num(f, "last_event_s_since_boot", h->last_t);
	pf_remedy(f, "read `dmesg | grep mlx5_core` and `devlink health show pci/%s`; reset the "
		  "device (`devlink dev reload pci/%s`, or reboot) and, if it returns, collect "
		  "`mlxdump` / the health buffer for the vendor", bdf, bdf);
	return true;
}

static int nic_health_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nic_health_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct dumps d = { 0 };
	size_t n = 0, n_bad = 0, n_skip = 0, n_ev = 0;
	pf_autofree struct pf_mlx5_health *ev = NULL;
	pf_autofree char *log = NULL, *log_err = NULL;
	int log_r;

	if (!node)
		return pf_error(res, -ENODATA, "no node inventory");
	for (size_t i = 0; i < node->n_rdma; i++)
		n += node->rdma[i].pci >= 0 && (size_t)node->rdma[i].pci < node->n_pci;
	if (!n)
		return pf_skip(res, "no RDMA NIC on the PCI bus");
	fetch(ctx, &d);
	log_r = ctx->prov->gpu->kmsg(ctx, &log, &log_err);
	if (log_r < 0)
		pf_add(res, PF_STATUS_SKIP, "kernel_log", "%s; mlx5 health messages not checked",
		       log_err ? log_err : "kernel log unavailable");
	else
		pf_parse_kmsg_mlx5(log, &ev, &n_ev);
	if (d.health_r < 0 && d.health_r != -ENOENT && d.health_r != -EOPNOTSUPP) {
		free(d.info);
		return pf_error(res, d.health_r, "devlink health reporters: %s",
				why(ctx, d.health_r));
	}
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *rd = &node->rdma[i];
		enum pf_status st;

		if (rd->pci < 0 || (size_t)rd->pci >= node->n_pci)
			continue;
		judge_nic(res, ctx, cfg, &d, rd->name, node->pci[rd->pci].bdf);
		st = pf_last(res)->status;
		if (judge_log(res, ev, n_ev, rd->name, node->pci[rd->pci].bdf)) {
			n_bad++;
			continue;
		}
		n_bad += st == PF_STATUS_FAIL || st == PF_STATUS_WARN;
		n_skip += st == PF_STATUS_SKIP;
	}
	if (n_skip == n)
		pf_summary(res, "no devlink health for %zu NICs: %s", n,
			   d.health_r < 0 ? why(ctx, d.health_r) : "no reporters for them");
	else if (n_bad)
		pf_summary(res, "%zu of %zu NICs with firmware or driver health errors or a pending "
			   "firmware", n_bad, n);
	else
		pf_summary(res, "%zu of %zu NICs healthy by devlink", n - n_skip, n);
	free(d.rep);
	free(d.info);
	return 0;
}

static const struct pf_code nic_health_codes[] = {
	{ 1, PF_ACTION_CONTACT_VENDOR, "the NIC's firmware stopped (devlink fw_fatal reporter "
				       "errors or error state)" },
	{ 2, PF_ACTION_RELOAD_DRIVER, "a devlink health reporter of the NIC is in error state" },
	{ 3, PF_ACTION_NONE, "a devlink health reporter counted errors it recovered from" },
	{ 4, PF_ACTION_REBOOT, "the stored NIC firmware differs from the running one (activation "
			       "pending)" },
	{ 5, PF_ACTION_REBOOT,
	  "a fatal mlx5 health event in the kernel log since boot, not recovered" },
	{ 6, PF_ACTION_NONE, "a fatal mlx5 health event in the kernel log that the driver "
			     "recovered from" },
	{ 0 },
};

const struct pf_check pf_check_nic_health = {
	.name = "nic_health",
	.summary = "RDMA NICs' devlink health reporters healthy, firmware activated",
	.tags = "rdma,static",
	.reads = "devlink generic netlink: DEVLINK_CMD_HEALTH_REPORTER_GET and DEVLINK_CMD_INFO_GET "
		 "dumps (under --root: preflight/devlink/health.nl, info.nl); the kernel log "
		 "(/dev/kmsg; preflight/kmsg)",
	.params = nic_health_params,
	.codes = nic_health_codes,
	.cfg_size = sizeof(struct nic_health_cfg),
	.timeout_s = 10,
	/* the kernel log is read through ctx->prov->gpu (its kmsg member) */
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nic_health_run,
};
