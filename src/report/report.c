// SPDX-License-Identifier: MIT
/*
 * report.c - report metadata, verdict, and the JSON renderer.
 */
#include <math.h>
#include <string.h>
#include <sys/utsname.h>

#include "profile.h"
#include "report.h"

static void copy_line(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%.*s", (int)strcspn(src, "\n"), src);
}

void pf_report_describe_node(struct pf_report *r, const struct pf_fs *fs)
{
	struct utsname u;

	snprintf(r->hostname, sizeof(r->hostname), "unknown");
	snprintf(r->kernel, sizeof(r->kernel), "unknown");
	if (pf_fs_is_live(fs)) {
		if (uname(&u) == 0) {
			copy_line(r->hostname, sizeof(r->hostname), u.nodename);
			copy_line(r->kernel, sizeof(r->kernel), u.release);
		}
		return;
	}
	{
		pf_autofree char *host = NULL, *kernel = NULL;

		if (pf_fs_read_line(fs, "/proc/sys/kernel/hostname", &host) == 0 && *host)
			copy_line(r->hostname, sizeof(r->hostname), host);
		else if (pf_fs_read_line(fs, "/etc/hostname", &host) == 0 && *host)
			copy_line(r->hostname, sizeof(r->hostname), host);
		if (pf_fs_read_line(fs, "/proc/sys/kernel/osrelease", &kernel) == 0 && *kernel)
			copy_line(r->kernel, sizeof(r->kernel), kernel);
	}
}

void pf_report_counts(const struct pf_report *r, size_t counts[PF_STATUS_COUNT])
{
	memset(counts, 0, PF_STATUS_COUNT * sizeof(counts[0]));
	for (size_t i = 0; i < r->n_runs; i++)
		counts[r->runs[i].res.status]++;
}

enum pf_status pf_report_verdict(const struct pf_report *r)
{
	size_t c[PF_STATUS_COUNT];

	pf_report_counts(r, c);
	if (c[PF_STATUS_FAIL])
		return PF_STATUS_FAIL;
	if (c[PF_STATUS_ERROR])
		return PF_STATUS_ERROR;
	if (c[PF_STATUS_WARN])
		return PF_STATUS_WARN;
	return PF_STATUS_PASS;
}

/* Milliseconds rounded to 0.1 so that the JSON stays short. */
static double round_ms(double ms)
{
	return round(ms * 10.0) / 10.0;
}

static void add_str_or_null(cJSON *o, const char *name, const char *v)
{
	if (v && v[0])
		cJSON_AddStringToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

/* "lldp": {"chassis": ..., "port": ...} when a neighbour is known, else null. */
static void add_lldp(cJSON *o, const struct pf_report_port *p)
{
	cJSON *l;

	if (!(p->lldp_chassis && p->lldp_chassis[0]) && !(p->lldp_port && p->lldp_port[0])) {
		cJSON_AddNullToObject(o, "lldp");
		return;
	}
	l = cJSON_AddObjectToObject(o, "lldp");
	add_str_or_null(l, "chassis", p->lldp_chassis);
	add_str_or_null(l, "port", p->lldp_port);
}

/* node.rails: one object per RDMA port, in the inventory's order. */
static cJSON *ports_to_json(const struct pf_report *r)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < r->n_ports; i++) {
		const struct pf_report_port *p = &r->ports[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "device", p->device);
		cJSON_AddNumberToObject(o, "port", p->port);
		cJSON_AddStringToObject(o, "role", p->role);
		cJSON_AddStringToObject(o, "reason", p->reason);
		cJSON_AddBoolToObject(o, "declared", p->declared);
		if (p->rail >= 0)
			cJSON_AddNumberToObject(o, "rail", p->rail);
		else
			cJSON_AddNullToObject(o, "rail");
		add_str_or_null(o, "gpu", p->gpu);
		cJSON_AddStringToObject(o, "link_layer", p->link_layer);
		if (p->rate_gbps > 0)
			cJSON_AddNumberToObject(o, "rate_gbps", p->rate_gbps);
		else
			cJSON_AddNullToObject(o, "rate_gbps");
		cJSON_AddBoolToObject(o, "up", p->up);
		add_str_or_null(o, "netdev", p->netdev);
		add_str_or_null(o, "subnet", p->subnet);
		add_str_or_null(o, "ib_subnet", p->ib_subnet);
		if (p->sm_lid)
			cJSON_AddNumberToObject(o, "sm_lid", p->sm_lid);
		else
			cJSON_AddNullToObject(o, "sm_lid");
		add_lldp(o, p);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *pf_report_to_json(const struct pf_report *r)
{
	cJSON *j = cJSON_CreateObject(), *o, *checks;
	size_t c[PF_STATUS_COUNT];
	char when[32];
	struct tm tm;

	cJSON_AddStringToObject(j, "schema", PF_REPORT_SCHEMA);
	o = cJSON_AddObjectToObject(j, "tool");
	cJSON_AddStringToObject(o, "name", "preflight");
	cJSON_AddStringToObject(o, "version", r->version);
	o = cJSON_AddObjectToObject(j, "node");
	cJSON_AddStringToObject(o, "hostname", r->hostname);
	cJSON_AddStringToObject(o, "kernel", r->kernel);
	cJSON_AddStringToObject(o, "root", r->root);
	if (r->src_inventory) {
		cJSON *src = cJSON_AddObjectToObject(o, "sources");

		cJSON_AddStringToObject(src, "inventory", r->src_inventory);
		if (r->src_topology)
			cJSON_AddStringToObject(src, "topology", r->src_topology);
		cJSON_AddStringToObject(src, "files", r->src_files);
		cJSON_AddStringToObject(src, "providers", r->src_providers);
		cJSON_AddBoolToObject(src, "topology_only", r->topology_only);
	}
	if (r->ports)
		cJSON_AddItemToObject(o, "rails", ports_to_json(r));
	cJSON_AddStringToObject(j, "profile", r->profile);
	gmtime_r(&r->started_at, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(j, "started_at", when);
	cJSON_AddNumberToObject(j, "duration_ms", round_ms(r->duration_ms));
	cJSON_AddStringToObject(j, "verdict", pf_status_name(pf_report_verdict(r)));
	pf_report_counts(r, c);
	o = cJSON_AddObjectToObject(j, "counts");
	for (int s = 0; s < PF_STATUS_COUNT; s++)
		cJSON_AddNumberToObject(o, pf_status_name((enum pf_status)s), (double)c[s]);
	checks = cJSON_AddArrayToObject(j, "checks");
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct pf_run *run = &r->runs[i];
		pf_autojson cJSON *res = pf_result_to_json(&run->res);
		cJSON *chk = cJSON_CreateObject(), *it;

		/* name first, then the result's fields in schema order */
		cJSON_AddStringToObject(chk, "name", run->check->name);
		while ((it = res->child)) {
			cJSON_DetachItemViaPointer(res, it);
			if (!strcmp(it->string, "findings")) {
				cJSON_AddNumberToObject(chk, "duration_ms", round_ms(run->duration_ms));
				if (run->attempts > 1)
					cJSON_AddNumberToObject(chk, "attempts", run->attempts);
			}
			cJSON_AddItemToObject(chk, it->string, it);
		}
		cJSON_AddItemToObject(chk, "config", run->cfg ? pf_config_to_json(run->check, run->cfg)
							      : cJSON_CreateObject());
		cJSON_AddItemToArray(checks, chk);
	}
	if (r->selection) {
		cJSON *ns;

		o = cJSON_AddObjectToObject(j, "selection");
		cJSON_AddStringToObject(o, "mode", r->selection);
		ns = cJSON_AddArrayToObject(o, "not_selected");
		for (size_t i = 0; i < r->n_unselected; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "name", r->unselected[i].name);
			cJSON_AddStringToObject(e, "reason", r->unselected[i].reason);
			cJSON_AddItemToArray(ns, e);
		}
	}
	return j;
}
