// SPDX-License-Identifier: MIT
/*
 * fleet_nvl.c - NVLink domains across the fleet.  nvlink_fabric observes
 * each GPU's cluster_uuid and clique_id (nvmlDeviceGetGpuFabricInfoV); a
 * node whose GPUs report a non-zero cluster UUID is in a multi-node NVLink
 * domain (a GB200/GB300 NVL72 rack).  Nodes are grouped by cluster UUID; in
 * each cluster the non-zero clique most nodes report is the majority (ties:
 * the lower ID), and a node reporting another clique, or clique 0 (the tray
 * is in no partition of the rack, Azure/azhpc-images PR #506), is named,
 * as is a node whose own GPUs report more than one (cluster, clique): jobs
 * spanning those nodes cannot share memory over NVLink.
 *
 * Clique IDs are assigned by the fabric manager of each cluster (NVML,
 * nvmlGpuFabricClique_v1_t), so one clique number in two clusters is two
 * separate domains, not a fault.  HGX/DGX nodes (Fabric Manager leaves the
 * cluster UUID zero) and GPUs without a fabric are not recorded: a fleet of
 * them shows no section.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet_nvl.h"
#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "table.h"

#define ZERO_UUID "00000000-0000-0000-0000-000000000000"

struct nvl_rec {
	size_t node;
	char *host, *uuid;
	unsigned long clique;
	bool split; /* its GPUs report more than one (cluster, clique) */
	bool live;
	/* of its cluster, after finish */
	unsigned long majority;
	size_t of, n_cluster;
};

struct fl_nvl {
	struct nvl_rec *recs;
	size_t n, cap;
	size_t n_odd;
};

struct fl_nvl *fl_nvl_new(void)
{
	return pf_xcalloc(1, sizeof(struct fl_nvl));
}

void fl_nvl_free(struct fl_nvl *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->recs[i].host);
		free(w->recs[i].uuid);
	}
	free(w->recs);
	free(w);
}

static const char *str_of(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

/* A UUID as nvlink_fabric prints it: 8-4-4-4-12 lower-case hex digits. */
static bool uuid_ok(const char *s)
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";

	if (!s || strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		bool hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');

		if (shape[i] == '-' ? s[i] != '-' : !hex)
			return false;
	}
	return true;
}

/* A clique ID: a whole number that fits NVML's unsigned int. */
static bool clique_of(const cJSON *obs, unsigned long *ret)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obs, "clique_id");

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4294967295.0 ||
	    v->valuedouble != (double)(unsigned long)v->valuedouble)
		return false;
	*ret = (unsigned long)v->valuedouble;
	return true;
}

void fl_nvl_add_report(struct fl_nvl *w, const cJSON *checks, size_t node, const char *host)
{
	const char *uuid = NULL;
	unsigned long clique = 0;
	bool split = false;
	const cJSON *chk, *fd;

	cJSON_ArrayForEach(chk, checks) {
		const char *name = str_of(chk, "name");

		if (!name || strcmp(name, "nvlink_fabric"))
			continue;
		cJSON_ArrayForEach(fd, cJSON_GetObjectItemCaseSensitive(chk, "findings")) {
			const cJSON *obs = cJSON_GetObjectItemCaseSensitive(fd, "observed");
			const char *u = str_of(obs, "cluster_uuid");
			unsigned long c;

			if (!uuid_ok(u) || !clique_of(obs, &c))
				continue;
			if (!uuid && strcmp(u, ZERO_UUID)) {
				uuid = u;
				clique = c;
			} else if (uuid && (c != clique || strcmp(u, uuid))) {
				split = true;
			} else if (!uuid) {
				split = true; /* a GPU outside any cluster, perhaps beside one inside */
			}
		}
	}
	if (!uuid)
		return; /* no GPU in a cluster: HGX/DGX, PCIe, or no fabric */
	PF_GROW(w->recs, w->n, w->cap);
	w->recs[w->n++] = (struct nvl_rec){
		.node = node, .host = pf_xstrdup(host), .uuid = pf_xstrdup(uuid),
		.clique = clique, .split = split };
}

static int cmp_rec(const void *a, const void *b)
{
	const struct nvl_rec *x = a, *y = b;
	int c = strcmp(x->uuid, y->uuid);

	if (!c && x->clique != y->clique)
		c = x->clique < y->clique ? -1 : 1;
	return c ? c : strcmp(x->host, y->host);
}

void fl_nvl_finish(struct fl_nvl *w, const bool *superseded)
{
	size_t i = 0;

	for (size_t k = 0; k < w->n; k++)
		w->recs[k].live = !superseded[w->recs[k].node];
	if (w->n)
		qsort(w->recs, w->n, sizeof(*w->recs), cmp_rec);
	/* each cluster's run of records (sorted by clique inside): the largest clique run wins */
	while (i < w->n) {
		size_t end = i, best = 0, n_live = 0;
		unsigned long maj = 0;

		while (end < w->n && !strcmp(w->recs[end].uuid, w->recs[i].uuid))
			end++;
		for (size_t k = i; k < end;) {
			size_t run = 0, e = k;

			while (e < end && w->recs[e].clique == w->recs[k].clique)
				run += w->recs[e++].live;
			if (w->recs[k].clique && run > best) { /* clique 0 is no partition */
				best = run;
				maj = w->recs[k].clique;
			}
			n_live += run;
			k = e;
		}
		for (size_t k = i; k < end; k++) {
			struct nvl_rec *r = &w->recs[k];

			r->majority = maj;
			r->of = best;
			r->n_cluster = n_live;
			w->n_odd += r->live && (r->split || !r->clique || r->clique != maj);
		}
		i = end;
	}
}

bool fl_nvl_any(const struct fl_nvl *w)
{
	return w->n > 0;
}

static bool odd(const struct nvl_rec *r)
{
	return r->live && (r->split || !r->clique || r->clique != r->majority);
}

/* Why @r is named, in words. */
static char *why(const struct nvl_rec *r)
{
	if (r->clique == 0 && !r->majority)
		return pf_xstrdup("clique 0: in no NVLink partition, nor is any node of its cluster");
	if (r->clique == 0)
		return pf_xasprintf("clique 0: outside the NVLink partition %zu of %zu nodes of its "
				    "cluster are in (clique %lu)", r->of, r->n_cluster, r->majority);
	if (r->clique != r->majority)
		return pf_xasprintf("clique %lu, while %zu of %zu nodes of its cluster report "
				    "clique %lu", r->clique, r->of, r->n_cluster, r->majority);
	return pf_xstrdup("its GPUs report more than one cluster or clique");
}

cJSON *fl_nvl_to_json(const struct fl_nvl *w)
{
	cJSON *j = cJSON_CreateObject(), *clusters, *arr;
	const char *prev = NULL;

	clusters = cJSON_AddArrayToObject(j, "clusters");
	arr = cJSON_AddArrayToObject(j, "odd");
	for (size_t k = 0; k < w->n; k++) {
		const struct nvl_rec *r = &w->recs[k];
		pf_autofree char *because = NULL;
		cJSON *e;

		if (!prev || strcmp(prev, r->uuid)) {
			prev = r->uuid;
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "cluster_uuid", r->uuid);
			cJSON_AddNumberToObject(e, "nodes", (double)r->n_cluster);
			cJSON_AddNumberToObject(e, "clique_id", (double)r->majority);
			cJSON_AddNumberToObject(e, "clique_nodes", (double)r->of);
			cJSON_AddItemToArray(clusters, e);
		}
		if (!odd(r))
			continue;
		because = why(r);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "node", r->host);
		cJSON_AddStringToObject(e, "cluster_uuid", r->uuid);
		cJSON_AddNumberToObject(e, "clique_id", (double)r->clique);
		cJSON_AddNumberToObject(e, "majority_clique", (double)r->majority);
		cJSON_AddNumberToObject(e, "majority_nodes", (double)r->of);
		cJSON_AddNumberToObject(e, "cluster_nodes", (double)r->n_cluster);
		cJSON_AddBoolToObject(e, "split", r->split);
		cJSON_AddStringToObject(e, "why", because);
		cJSON_AddItemToArray(arr, e);
	}
	return j;
}

void fl_nvl_render_text(const struct fl_nvl *w, FILE *out)
{
	struct pf_table t = { .ncol = 4 };

	if (!w->n_odd) {
		fputs("\nNVLink domains: every node reports its cluster's clique.\n", out);
		return;
	}
	fprintf(out, "\nNVLink domain drift (%zu node%s off their cluster's clique)\n",
		w->n_odd, w->n_odd == 1 ? "" : "s");
	pf_table_row(&t, (const char *const[]){ "NODE", "CLUSTER", "CLIQUE", "WHY" });
	for (size_t k = 0; k < w->n; k++) {
		const struct nvl_rec *r = &w->recs[k];
		pf_autofree char *because = NULL;
		char clique[24];

		if (!odd(r))
			continue;
		because = why(r);
		snprintf(clique, sizeof(clique), "%lu", r->clique);
		pf_table_row(&t, (const char *const[]){ r->host, r->uuid, clique, because });
	}
	pf_table_print(&t, out);
}
