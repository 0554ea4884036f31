// SPDX-License-Identifier: MIT
/*
 * capture.c - the profile of a known-good node, under `preflight profile
 * capture` (its front end is the run's capture sink, src/cmd/run.c).
 *
 * The static checks have run (the same runner and inventory as a normal
 * run); this file reads their findings' observed values and turns
 * them into profile keys through derivations[] below, one line per
 * (check, key).  A key is written only when the check is in the registry
 * with that parameter (so the table can name checks and keys that are not
 * there yet), the check ran and passed or warned (unless the line says the
 * observation is configuration, not health), and the observation exists.
 * The value is converted to the parameter's type and the whole profile is
 * loaded back and validated before it is handed out.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "capture.h"
#include "profile.h"
#include "report.h"
#include "registry.h"

/* What a derivation sees. */
struct cap_in {
	const struct pf_report *report;
	const struct pf_node *node;
};

/* One (check, key) line: fill *ret with a number or a string and return 1, or 0. */
struct derivation {
	const char *check, *key;
	bool any_status; /* a configuration observation: also taken from a failing check */
	int (*fn)(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		  char **ret_str);
	const char *why; /* for --help of the profile's readers: what the value means */
};

static const cJSON *obs(const struct pf_finding *f, const char *key)
{
	return f->observed ? cJSON_GetObjectItemCaseSensitive(f->observed, key) : NULL;
}

static const char *obs_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = obs(f, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool obs_num(const struct pf_finding *f, const char *key, double *ret)
{
	const cJSON *v = obs(f, key);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return false;
	*ret = v->valuedouble;
	return true;
}

static bool judged(const struct pf_finding *f)
{
	return f->status != PF_STATUS_SKIP;
}

/* A port finding of nic_link_speed: it observes the port state. */
static bool is_port(const struct pf_finding *f)
{
	return judged(f) && obs_str(f, "state") && f->subject && strchr(f->subject, '/');
}

static bool port_active(const struct pf_finding *f)
{
	const char *st = obs_str(f, "state");

	return is_port(f) && st && !strcmp(st, "ACTIVE");
}

/* nic_link_speed.expected_ports: the RDMA ports the check judged here. */
static int d_ports(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		   char **ret_str)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		n += is_port(&res->findings[i]);
	*ret_num = (double)n;
	return n > 0;
}

/* nic_link_speed.min_rate_gbps: the slowest ACTIVE port. */
static int d_min_rate(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		      char **ret_str)
{
	double best = INFINITY, v;

	for (size_t i = 0; i < res->n_findings; i++)
		if (port_active(&res->findings[i]) && obs_num(&res->findings[i], "rate_gbps", &v) &&
		    v > 0 && v < best)
			best = v;
	*ret_num = best;
	return isfinite(best);
}

/* nic_link_speed.min_width: the narrowest ACTIVE port ("4X" -> 4). */
static int d_min_width(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		       char **ret_str)
{
	long best = 0;

	for (size_t i = 0; i < res->n_findings; i++) {
		const char *w = obs_str(&res->findings[i], "width");
		long v;

		if (!port_active(&res->findings[i]) || !w)
			continue;
		v = strtol(w, NULL, 10);
		if (v > 0 && (best == 0 || v < best))
			best = v;
	}
	*ret_num = (double)best;
	return best > 0;
}

/* nic_link_speed.roce_netdev_mtu: the smallest MTU of the RoCE ports' netdevs. */
static int d_netdev_mtu(const struct cap_in *in, const struct pf_result *res, double *ret_num,
			char **ret_str)
{
	double best = INFINITY, v;

	for (size_t i = 0; i < res->n_findings; i++) {
		const char *ll = obs_str(&res->findings[i], "link_layer");

		if (port_active(&res->findings[i]) && ll && !strcmp(ll, "Ethernet") &&
		    obs_num(&res->findings[i], "netdev_mtu", &v) && v > 0 && v < best)
			best = v;
	}
	*ret_num = best;
	return isfinite(best);
}

/* gpu_inventory.expected_gpus: the NVIDIA GPUs on the PCI bus. */
static int d_gpus(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		  char **ret_str)
{
	double v;

	for (size_t i = 0; i < res->n_findings; i++)
		if (obs_num(&res->findings[i], "pci_gpus", &v) && v > 0) {
			*ret_num = v;
			return 1;
		}
	if (in->node && in->node->n_gpus) {
		*ret_num = (double)in->node->n_gpus;
		return 1;
	}
	return 0;
}

/* gpu_inventory.min_driver: the kernel driver version of the "driver" finding. */
static int d_driver(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		    char **ret_str)
{
	for (size_t i = 0; i < res->n_findings; i++) {
		const struct pf_finding *f = &res->findings[i];
		const char *v = obs_str(f, "version");

		if (f->subject && !strcmp(f->subject, "driver") && v && *v &&
		    strspn(v, "0123456789.") == strlen(v)) {
			*ret_str = pf_xstrdup(v);
			return 1;
		}
	}
	return 0;
}

/* gpu_nic_numa.worst_class: the farthest any GPU is from its nearest NIC. */
static int d_worst_class(const struct cap_in *in, const struct pf_result *res, double *ret_num,
			 char **ret_str)
{
	enum pf_path_class worst = PF_PATH_UNKNOWN, c;
	bool any = false;

	for (size_t i = 0; i < res->n_findings; i++) {
		const char *name = obs_str(&res->findings[i], "class");

		if (!judged(&res->findings[i]) || !name || pf_path_class_from_name(name, &c) < 0)
			continue;
		if (c == PF_PATH_UNKNOWN)
			return 0; /* not a reference */
		if (!any || pf_path_class_rank(c) > pf_path_class_rank(worst))
			worst = c;
		any = true;
	}
	if (!any)
		return 0;
	*ret_str = pf_xstrdup(pf_path_class_name(worst));
	return 1;
}

/* nvidia_peermem.require: the GPUDirect paths available here. */
static int d_gdr_paths(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		       char **ret_str)
{
	bool peermem = false, dmabuf = false;

	for (size_t i = 0; i < res->n_findings; i++) {
		const char *p = obs_str(&res->findings[i], "peermem");
		const char *d = obs_str(&res->findings[i], "dmabuf");

		peermem |= p && !strcmp(p, "yes");
		dmabuf |= d && !strcmp(d, "yes");
	}
	if (!peermem && !dmabuf)
		return 0;
	*ret_str = pf_xstrdup(peermem && dmabuf ? "both" : peermem ? "peermem" : "dmabuf");
	return 1;
}

/* pfc_pause.roce_prio: the one priority every RoCE netdev has PFC on. */
static int d_roce_prio(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		       char **ret_str)
{
	const char *seen = NULL;

	for (size_t i = 0; i < res->n_findings; i++) {
		const char *p = obs_str(&res->findings[i], "pfc_enabled");

		if (!p)
			continue;
		if (strlen(p) != 1 || p[0] < '0' || p[0] > '7' || (seen && strcmp(seen, p)))
			return 0;
		seen = p;
	}
	if (!seen)
		return 0;
	*ret_num = seen[0] - '0';
	return 1;
}

/* A bandwidth floor at 90% of the slowest measurement (the fleet rule). */
static int min_bw(const struct pf_result *res, const char *key, double *ret_num)
{
	double best = INFINITY, v;

	for (size_t i = 0; i < res->n_findings; i++)
		if (judged(&res->findings[i]) && obs_num(&res->findings[i], key, &v) && v > 0 &&
		    v < best)
			best = v;
	if (!isfinite(best))
		return 0;
	*ret_num = floor(best * 0.9 * 10.0) / 10.0;
	return 1;
}

static int d_busbw(const struct cap_in *in, const struct pf_result *res, double *ret_num,
		   char **ret_str)
{
	return min_bw(res, "busbw_gbps", ret_num);
}

static const struct derivation derivations[] = {
	{ "gpu_inventory", "expected_gpus", false, d_gpus, "NVIDIA GPUs on the PCI bus" },
	{ "gpu_inventory", "min_driver", false, d_driver, "the NVIDIA kernel driver version" },
	{ "nvidia_peermem", "require", false, d_gdr_paths, "GPUDirect RDMA paths available" },
	{ "nic_link_speed", "expected_ports", false, d_ports, "RDMA ports judged" },
	{ "nic_link_speed", "min_rate_gbps", false, d_min_rate, "slowest ACTIVE port" },
	{ "nic_link_speed", "min_width", false, d_min_width, "narrowest ACTIVE port" },
	{ "nic_link_speed", "roce_netdev_mtu", false, d_netdev_mtu, "smallest RoCE netdev MTU" },
	{ "gpu_nic_numa", "worst_class", false, d_worst_class, "farthest GPU-to-nearest-NIC class" },
	{ "pfc_pause", "roce_prio", true, d_roce_prio, "the priority with PFC on" },
	{ "nccl_allreduce", "min_busbw_gbps", false, d_busbw, "90% of the measured busbw" },
};

static const struct pf_run *find_run(const struct pf_report *r, const char *check)
{
	for (size_t i = 0; i < r->n_runs; i++)
		if (!strcmp(r->runs[i].check->name, check))
			return &r->runs[i];
	return NULL;
}

/* The value as the parameter's type; NULL when it does not fit. */
static cJSON *typed(const struct pf_param *prm, double num, const char *str)
{
	switch (prm->type) {
	case PF_PARAM_U64:
	case PF_PARAM_I64:
		if (str || num < prm->min || num > prm->max)
			return NULL;
		return cJSON_CreateNumber(round(num));
	case PF_PARAM_DOUBLE:
		if (str || num < prm->min || num > prm->max)
			return NULL;
		return cJSON_CreateNumber(num);
	case PF_PARAM_STRING:
	case PF_PARAM_ENUM:
		return str ? cJSON_CreateString(str) : NULL;
	case PF_PARAM_BOOL:
		break;
	}
	return NULL;
}

static void note(char ***notes, size_t *n, char *s)
{
	*notes = pf_xrealloc(*notes, (*n + 2) * sizeof(**notes));
	(*notes)[(*n)++] = s;
	(*notes)[*n] = NULL;
}

/* A --set value as JSON of the parameter's type (validated with the rest later). */
static cJSON *set_value(const struct pf_param *prm, const char *v)
{
	switch (prm->type) {
	case PF_PARAM_U64:
	case PF_PARAM_I64:
	case PF_PARAM_DOUBLE:
		return cJSON_CreateNumber(strtod(v, NULL));
	case PF_PARAM_BOOL:
		return cJSON_CreateBool(!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes") ||
					!strcmp(v, "on"));
	case PF_PARAM_STRING:
	case PF_PARAM_ENUM:
		break;
	}
	return cJSON_CreateString(v);
}

/* The keys the user gave (profile file, then --set): the capture keeps them. */
static cJSON *base_checks(const struct pf_profile *base)
{
	cJSON *checks = base && base->checks ? cJSON_Duplicate(base->checks, true)
					     : cJSON_CreateObject();

	for (size_t i = 0; base && i < base->n_sets; i++) {
		const char *set = base->sets[i], *dot = strchr(set, '.'), *eq = strchr(set, '=');
		pf_autofree char *check = NULL, *key = NULL;
		const struct pf_check *c;
		const struct pf_param *prm;
		cJSON *sec;

		if (!dot || !eq || dot > eq)
			continue; /* rejected by pf_profile_validate() before the run */
		check = pf_xasprintf("%.*s", (int)(dot - set), set);
		key = pf_xasprintf("%.*s", (int)(eq - dot - 1), dot + 1);
		c = pf_registry_find(check);
		prm = c ? pf_param_find(c, key) : NULL;
		if (!prm)
			continue;
		sec = cJSON_GetObjectItemCaseSensitive(checks, check);
		if (!sec)
			sec = cJSON_AddObjectToObject(checks, check);
		cJSON_DeleteItemFromObjectCaseSensitive(sec, key);
		cJSON_AddItemToObject(sec, key, set_value(prm, eq + 1));
	}
	return checks;
}

int pf_capture_profile(const struct pf_report *report, const struct pf_node *node,
		       const struct pf_profile *base, cJSON **ret, char ***ret_notes,
		       char **ret_err)
{
	const struct cap_in in = { report, node };
	pf_autojson cJSON *prof = cJSON_CreateObject();
	cJSON *checks;
	char **notes = NULL;
	size_t n_notes = 0, n_all;
	const struct pf_check *const *all = pf_registry(&n_all);
	char when[32];
	struct tm tm;
	int r;

	gmtime_r(&report->started_at, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	{
		pf_autofree char *name = pf_xasprintf("captured-%s", report->hostname);
		pf_autofree char *desc = pf_xasprintf(
			"captured by preflight profile capture on %s (kernel %s, root %s) at %s%s%s",
			report->hostname, report->kernel, report->root, when,
			base && base->path ? ", on top of " : "",
			base && base->path ? base->path : "");

		cJSON_AddStringToObject(prof, "name", name);
		cJSON_AddStringToObject(prof, "description", desc);
	}
	checks = base_checks(base);
	cJSON_AddItemToObject(prof, "checks", checks);

	for (size_t i = 0; i < PF_ARRAY_SIZE(derivations); i++) {
		const struct derivation *d = &derivations[i];
		const struct pf_check *c = pf_registry_find(d->check);
		const struct pf_param *prm = c ? pf_param_find(c, d->key) : NULL;
		const struct pf_run *run = find_run(report, d->check);
		pf_autofree char *str = NULL;
		double num = 0;
		cJSON *sec, *v;

		if (!prm || !run)
			continue;
		if (!d->any_status && run->res.status != PF_STATUS_PASS &&
		    run->res.status != PF_STATUS_WARN) {
			if (run->res.status != PF_STATUS_SKIP)
				note(&notes, &n_notes,
				     pf_xasprintf("%s.%s not captured: %s is %s on this node",
						  d->check, d->key, d->check,
						  pf_status_name(run->res.status)));
			continue;
		}
		if (d->fn(&in, &run->res, &num, &str) <= 0)
			continue;
		v = typed(prm, num, str);
		if (!v) {
			note(&notes, &n_notes, pf_xasprintf("%s.%s not captured: observed value out "
							    "of the parameter's range", d->check,
							    d->key));
			continue;
		}
		sec = cJSON_GetObjectItemCaseSensitive(checks, d->check);
		if (!sec)
			sec = cJSON_AddObjectToObject(checks, d->check);
		cJSON_DeleteItemFromObjectCaseSensitive(sec, d->key);
		cJSON_AddItemToObject(sec, d->key, v);
	}

	/* load it back: every emitted key must be one the checks accept */
	{
		pf_autofree char *text = pf_json_print(prof, false);
		struct pf_profile p;

		pf_profile_init(&p);
		r = pf_profile_parse(&p, text, "captured profile", ret_err);
		if (r == 0)
			r = pf_profile_validate(&p, all, n_all, ret_err);
		pf_profile_release(&p);
	}
	if (r < 0) {
		pf_strv_free(notes);
		return r;
	}
	*ret = PF_TAKE_PTR(prof);
	if (ret_notes)
		*ret_notes = notes ? notes : pf_xcalloc(1, sizeof(char *));
	else
		pf_strv_free(notes);
	return 0;
}
