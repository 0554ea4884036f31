// SPDX-License-Identifier: MIT
/*
 * mesh_judge.c - the verdict of `preflight mesh` on one rank (docs/mesh.md):
 * the matrix every rank sent (second gather), triangulated into suspects
 * (src/pairs/triage.c), and the "mesh" check of this rank's report.
 *
 * The first finding, subject "mesh", holds the observations every reader
 * (`preflight fleet`) relies on: "table", "measurements" (every flow of the
 * run), "suspects", "not_comparable" and "untested" (mesh_compat.c).  A
 * flow that was not comparable is no measurement: left out of the
 * triangulation and of this node's verdict.  Then one finding per suspect
 * that touches this node and per flow this node failed to send, a skip per
 * record of this node that was not comparable or untested, and a skip per
 * rank that never came.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "preflight/macro.h"
#include "preflight/parse.h"
#include "preflight/result.h"

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool whole(double v, double max)
{
	return v >= 0 && v < max && v == floor(v);
}

/* Finite and in [0, @max]: NaN, an infinity (a forged 1e400 parses as one) or past it is not. */
static bool in_range(double v, double max)
{
	return isfinite(v) && v >= 0 && v <= max;
}

/*
 * A measurement from rank @src as received: every field checked (hostile
 * input), its source the rank that sent it (a rank speaks only of its own
 * sends), every number finite and in range.
 */
static bool measurement_ok(const cJSON *m, uint32_t src, uint32_t size)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(m, "error");

	return cJSON_IsObject(m) && num_of(m, "src") == src && whole(num_of(m, "dst"), size) &&
	       num_of(m, "dst") != src && whole(num_of(m, "round"), 1e6) &&
	       whole(num_of(m, "rail"), PF_MESH_RAILS_MAX) && str_of(m, "src_dev") &&
	       str_of(m, "dst_dev") && in_range(num_of(m, "gbps"), PF_MESH_GBPS_MAX) &&
	       in_range(num_of(m, "seconds"), PF_MESH_SECONDS_MAX) &&
	       in_range(num_of(m, "bytes"), PF_MESH_BYTES_MAX) && (!e || cJSON_IsString(e));
}

/* The valid measurements of rank @rank's @list into @all. */
static void matrix_add(cJSON *all, const cJSON *list, uint32_t rank, uint32_t size)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, list)
		if (measurement_ok(m, rank, size))
			cJSON_AddItemToArray(all, cJSON_Duplicate(m, true));
}

/* @gathered's measurements but rank @self's (UINT32_MAX: none left out). */
static cJSON *matrix_of(const cJSON *gathered, uint32_t size, uint32_t self)
{
	cJSON *all = cJSON_CreateArray();
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(gathered, "ranks")) {
		double rank = num_of(e, "rank");

		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")) ||
		    !whole(rank, size) || rank == self)
			continue;
		matrix_add(all, cJSON_GetObjectItemCaseSensitive(e, "measurements"), (uint32_t)rank,
			   size);
	}
	return all;
}

cJSON *pf_mesh_matrix(const cJSON *gathered, uint32_t size)
{
	return matrix_of(gathered, size, UINT32_MAX);
}

/* Rank @r's host and the device of its rail @rail, from the rendezvous table. */
static void names(const cJSON *table, uint32_t r, uint32_t rail, const char **host,
		  const char **dev)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"), (int)r);

	*host = str_of(e, "host");
	*dev = rail == UINT32_MAX ? NULL
				  : str_of(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e,
						   "rails"), (int)rail), "device");
}

static cJSON *suspect_json(const struct pf_mesh_suspect *s, const cJSON *table)
{
	cJSON *j = cJSON_CreateObject();
	const char *host, *dev, *phost, *pdev;

	cJSON_AddStringToObject(j, "kind", pf_mesh_kind_name(s->kind));
	cJSON_AddStringToObject(j, "dir", pf_mesh_dir_name(s->dir));
	if (s->kind == PF_MESH_FABRIC) {
		/* a rail index of the fabric: no rank, no host, no device */
		cJSON_AddNumberToObject(j, "rail", s->rail);
		cJSON_AddNumberToObject(j, "nodes_bad", s->n_nodes_bad);
		cJSON_AddNumberToObject(j, "nodes", s->n_nodes);
		cJSON_AddNumberToObject(j, "ratio", round(s->ratio * 1000) / 1000);
		cJSON_AddNumberToObject(j, "n_slow", (double)s->n_slow);
		cJSON_AddNumberToObject(j, "n_seen", (double)s->n_seen);
		return j;
	}
	names(table, s->node, s->rail, &host, &dev);
	cJSON_AddNumberToObject(j, "rank", s->node);
	cJSON_AddStringToObject(j, "host", host ? host : "");
	if (s->kind != PF_MESH_NODE) {
		cJSON_AddNumberToObject(j, "rail", s->rail);
		cJSON_AddStringToObject(j, "device", dev ? dev : "");
	}
	if (s->kind == PF_MESH_PATH) {
		names(table, s->peer, s->rail, &phost, &pdev);
		cJSON_AddNumberToObject(j, "peer_rank", s->peer);
		cJSON_AddStringToObject(j, "peer_host", phost ? phost : "");
	}
	cJSON_AddNumberToObject(j, "ratio", round(s->ratio * 1000) / 1000);
	cJSON_AddNumberToObject(j, "n_slow", (double)s->n_slow);
	cJSON_AddNumberToObject(j, "n_seen", (double)s->n_seen);
	return j;
}

struct verdict {
	enum pf_status st;
	size_t n_sent, n_failed, n_suspects_here;
	bool any;
};

static void worst(struct verdict *v, enum pf_status st)
{
	v->st = v->any ? pf_status_worst(v->st, st) : st;
	v->any = true;
}

/* The port rate of rank @rank's rail @rail in the table (@data), in Gb/s; 0 unknown. */
static double rail_rate(void *data, uint32_t rank, uint32_t rail)
{
	const cJSON *table = data;
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"),
					    (int)rank);

	/* a peer's table is hostile: pf_parse_port_gbps() bounds it */
	return pf_parse_port_gbps(str_of(cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(e, "rails"), (int)rail), "rate"));
}

/* Triangulate the comparable flows of the matrix: the suspects as JSON, the triage in @t. */
static cJSON *suspects(const cJSON *matrix, const cJSON *table, const struct pf_mesh_index *ix,
		       struct pf_mesh_triage *t)
{
	size_t n = (size_t)cJSON_GetArraySize(matrix), i = 0;
	pf_autofree struct pf_mesh_obs *obs = pf_xcalloc(n + 1, sizeof(*obs));
	cJSON *out = cJSON_CreateArray();
	const cJSON *m;

	cJSON_ArrayForEach(m, matrix) {
		if (pf_mesh_flow_not_comparable(ix, m, NULL, 0))
			continue;
		obs[i++] = (struct pf_mesh_obs){
			.src = (uint32_t)num_of(m, "src"), .dst = (uint32_t)num_of(m, "dst"),
			.rail = (uint32_t)num_of(m, "rail"),
			.value = str_of(m, "error") ? 0 : num_of(m, "gbps"),
		};
	}
	n = i;
	/* the slower end's port rate sets what a flow can reach (mixed node types) */
	pf_mesh_obs_scale(obs, n, rail_rate, (void *)table);
	if (!n || pf_mesh_triangulate(obs, n, PF_MESH_SLOW_FRACTION, t) < 0)
		*t = (struct pf_mesh_triage){ .healthy_median = NAN };
	for (size_t k = 0; k < t->n; k++)
		cJSON_AddItemToArray(out, suspect_json(&t->suspects[k], table));
	return out;
}

/*
 * The suspect of another rank that explains a flow @m failing: its
 * destination node, or the destination's rail the flow ran on, slow or dead
 * with every partner in either direction (a flow also needs the receiver's
 * ACKs and READ-back answers: a receiver that sends slowly fails the flows
 * into it too), or the fabric's suspect of that rail index.  NULL when none
 * does (a path between two nodes explains nothing: two nodes cannot tell
 * which end it is).
 */
static const struct pf_mesh_suspect *explained_by(const struct pf_mesh_triage *t, const cJSON *m,
						  uint32_t rank)
{
	double dst = num_of(m, "dst"), rail = num_of(m, "rail");

	for (size_t k = 0; t && k < t->n; k++) {
		const struct pf_mesh_suspect *s = &t->suspects[k];

		if (s->kind == PF_MESH_FABRIC && s->rail == rail)
			return s;
		if (s->node == rank || s->node != dst)
			continue;
		if (s->kind == PF_MESH_NODE || (s->kind == PF_MESH_RAIL && s->rail == rail))
			return s;
	}
	return NULL;
}

/* Did this rank's own open or memory fail (an error, not a verdict on the fabric)? */
static bool own_stage(const cJSON *m)
{
	const char *stage = str_of(m, "stage");

	return stage && (!strcmp(stage, "open") || !strcmp(stage, "memory"));
}

/*
 * This rank's verdict on the flows it sent (failed ones counted): a failed
 * flow fails the sender, unless a suspect at the other end explains it
 * (then it is evidence against that suspect: a warn here, so that one lossy
 * cable does not drain every node that sent to it).
 */
static void judge_sends(const struct pf_mesh_judge_in *in, const cJSON *matrix,
			const struct pf_mesh_index *ix, const struct pf_mesh_triage *t,
			struct verdict *v)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, matrix) {
		if (num_of(m, "src") != in->rank || pf_mesh_flow_not_comparable(ix, m, NULL, 0))
			continue;
		v->n_sent++;
		if (!str_of(m, "error"))
			continue;
		v->n_failed++;
		worst(v, own_stage(m) ? PF_STATUS_ERROR
		      : explained_by(t, m, in->rank) ? PF_STATUS_WARN : PF_STATUS_FAIL);
	}
}

/* Does @s touch @rank: its node, a path's end, or a fabric rail @rank has (of @table)? */
static bool touches(const struct pf_mesh_suspect *s, uint32_t rank, const cJSON *table)
{
	if (s->kind == PF_MESH_FABRIC) {
		const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table,
							"ranks"), (int)rank);

		return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(e, "rails")) >
		       (int)s->rail;
	}
	return s->node == rank || (s->kind == PF_MESH_PATH && s->peer == rank);
}

/* A path names no single end and a fabric suspect no node: a warn, never a fail. */
static enum pf_status suspect_status(const struct pf_mesh_suspect *s)
{
	return s->kind == PF_MESH_PATH || s->kind == PF_MESH_FABRIC ? PF_STATUS_WARN
								    : PF_STATUS_FAIL;
}

static void judge_suspects(const struct pf_mesh_judge_in *in, const struct pf_mesh_triage *t,
			   struct verdict *v)
{
	for (size_t k = 0; k < t->n; k++) {
		if (!touches(&t->suspects[k], in->rank, in->table))
			continue;
		v->n_suspects_here++;
		worst(v, suspect_status(&t->suspects[k]));
	}
}

static void finding_suspect(struct pf_result *res, const struct pf_mesh_judge_in *in,
			    const struct pf_mesh_suspect *s)
{
	const char *host, *dev, *phost, *pdev;
	char subject[160];
	struct pf_finding *f;

	if (s->kind == PF_MESH_FABRIC) {
		names(in->table, in->rank, s->rail, &host, &dev);
		snprintf(subject, sizeof(subject), "fabric rail %u %s", s->rail,
			 pf_mesh_dir_name(s->dir));
		f = pf_add(res, PF_STATUS_WARN, subject, "rail %u (here %s) slow (%s) with every "
			   "partner on %u of %u nodes: %zu of %zu measurements slow, at %.0f%% of "
			   "the run's healthy median (the fabric of that rail: a leaf, a switch or "
			   "its settings; no node is to blame)", s->rail, dev ? dev : "?",
			   pf_mesh_dir_name(s->dir), s->n_nodes_bad, s->n_nodes, s->n_slow,
			   s->n_seen, s->ratio * 100);
		pf_code(f, 1);
		pf_obs_num(f, "ratio", round(s->ratio * 1000) / 1000);
		pf_obs_num(f, "nodes_bad", s->n_nodes_bad);
		pf_obs_num(f, "nodes", s->n_nodes);
		return;
	}
	names(in->table, s->node, s->rail, &host, &dev);
	names(in->table, s->peer, s->rail, &phost, &pdev);
	if (s->kind == PF_MESH_NODE)
		snprintf(subject, sizeof(subject), "node %s", host ? host : "?");
	else if (s->kind == PF_MESH_RAIL)
		snprintf(subject, sizeof(subject), "rail %u (%s) %s", s->rail, dev ? dev : "?",
			 pf_mesh_dir_name(s->dir));
	else
		snprintf(subject, sizeof(subject), "path %s <-> %s rail %u", host ? host : "?",
			 phost ? phost : "?", s->rail);
	f = pf_add(res, s->kind == PF_MESH_PATH ? PF_STATUS_WARN : PF_STATUS_FAIL, subject,
		   "%s %s: %zu of %zu measurements slow, at %.0f%% of the run's healthy median "
		   "(%s)", pf_mesh_kind_name(s->kind), pf_mesh_dir_name(s->dir), s->n_slow,
		   s->n_seen, s->ratio * 100, s->kind == PF_MESH_NODE ? "every rail with every "
		   "partner: the host side (PCIe, memory, IOMMU)" : s->kind == PF_MESH_RAIL ?
		   "with every partner: this NIC, its port or cable" : "only between these two "
		   "nodes: the path between them, or either end (two nodes cannot tell)");
	pf_code(f, s->kind == PF_MESH_NODE ? 2 : s->kind == PF_MESH_RAIL ? 3 : 4);
	pf_obs_num(f, "ratio", round(s->ratio * 1000) / 1000);
	pf_obs_num(f, "n_slow", (double)s->n_slow);
	pf_obs_num(f, "n_seen", (double)s->n_seen);
}

static void finding_failed(struct pf_result *res, const struct pf_mesh_judge_in *in,
			   const struct pf_mesh_triage *t, const cJSON *m)
{
	char subject[160];
	const char *stage = str_of(m, "stage");
	bool ours = own_stage(m);
	const struct pf_mesh_suspect *s = ours ? NULL : explained_by(t, m, in->rank);
	struct pf_finding *f;

	snprintf(subject, sizeof(subject), "round %.0f rail %.0f %s -> rank %.0f %s",
		 num_of(m, "round"), num_of(m, "rail"), str_of(m, "src_dev"), num_of(m, "dst"),
		 str_of(m, "dst_dev"));
	if (s) {
		const char *host, *dev;

		names(in->table, s->node, s->rail, &host, &dev);
		if (s->kind == PF_MESH_FABRIC) {
			f = pf_add(res, PF_STATUS_WARN, subject, "%s (explained by the fabric "
				   "suspect of rail %u: not evidence against this node)",
				   str_of(m, "error"), s->rail);
			pf_code(f, 5);
			pf_obs_str(f, "stage", stage ? stage : "?");
			return;
		}
		f = pf_add(res, PF_STATUS_WARN, subject, "%s (explained by the suspect %s of rank "
			   "%u%s%s%s: evidence against it, not against this node)",
			   str_of(m, "error"), s->kind == PF_MESH_NODE ? "node" : "rail", s->node,
			   host ? " (" : "", host ? host : "", host ? ")" : "");
		pf_code(f, 6);
		pf_obs_num(f, "explained_by_rank", s->node);
	} else {
		f = pf_add(res, ours ? PF_STATUS_ERROR : PF_STATUS_FAIL, subject, "%s",
			   str_of(m, "error"));
		pf_code(f, 7);
	}
	pf_obs_str(f, "stage", stage ? stage : "?");
}

/*
 * --use-gpu: GPU memory not used where it was asked for (on: an error, the
 * run measured host memory), or this rank's flows that fell back to host
 * memory (auto: a warning, what NCCL does without GPUDirect RDMA).
 */
static void findings_gpu(struct pf_result *res, const struct pf_mesh_judge_in *in)
{
	const cJSON *m, *sends = in->data ? in->data->sends : NULL;
	const char *first = NULL;
	size_t n = 0;
	struct pf_finding *f;

	if (in->gpu_why) {
		f = pf_add(res, in->gpu_error ? PF_STATUS_ERROR : PF_STATUS_WARN, "gpu_memory",
			   "%s", in->gpu_why);
		pf_code(f, 9);
		pf_remedy(f, "see the gpu_inventory, gdr_loopback and nvidia_peermem checks; "
			  "--use-gpu off measures host memory only");
	}
	cJSON_ArrayForEach(m, sends)
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "gpu_fallback")) && !n++)
			first = str_of(m, "note");
	if (!n)
		return;
	f = pf_add(res, PF_STATUS_WARN, "gpu_memory", "%zu flow%s from this node sent from host "
		   "memory: GPU memory could not be registered for RDMA (first: %s)", n,
		   n == 1 ? "" : "s", first ? first : "?");
	pf_code(f, 9);
	pf_remedy(f, "see the gdr_loopback and nvidia_peermem checks (nvidia-peermem, DMA-BUF)");
}

static void findings_missing(struct pf_result *res, const cJSON *table)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const char *host = str_of(e, "host");
		char subject[300];

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
			continue;
		snprintf(subject, sizeof(subject), "rank %.0f%s%s%s", num_of(e, "rank"),
			 host ? " (" : "", host ? host : "", host ? ")" : "");
		pf_add(res, PF_STATUS_SKIP, subject, "%s", str_of(e, "why"));
	}
}

/* The run's records of pairs not comparable and rails untested (mesh_compat.c). */
struct notes {
	cJSON *not_comparable, *untested;
};

static void main_finding(struct pf_result *res, const struct pf_mesh_judge_in *in,
			 const struct verdict *v, cJSON *matrix, cJSON *sus, double median,
			 const struct notes *notes)
{
	struct pf_finding *f;

	if (v->st == PF_STATUS_SKIP)
		f = pf_add(res, v->st, "mesh", "nothing measured from this node: %s",
			   in->size < 2 ? "no partner (one rank)" : "no flow could run (see skipped and "
			   "not_comparable)");
	else
		f = pf_add(res, v->st, "mesh", "%zu flows sent from this node (%zu failed), %d "
			   "measured in the run, %d suspects (%zu touch this node)", v->n_sent,
			   v->n_failed, cJSON_GetArraySize(matrix), cJSON_GetArraySize(sus),
			   v->n_suspects_here);
	pf_code(f, 8);
	pf_obs_num(f, "rank", in->rank);
	pf_obs_num(f, "size", in->size);
	if (in->job_id)
		pf_obs_str(f, "job_id", in->job_id);
	if (in->nodelist)
		pf_obs_str(f, "nodelist", in->nodelist);
	pf_obs_num(f, "rounds", (double)in->sched->n_rounds);
	pf_obs_json(f, "partners", cJSON_Duplicate(in->partners, true));
	pf_obs_json(f, "table", cJSON_Duplicate(in->table, true));
	pf_obs_json(f, "measurements", matrix);
	pf_obs_json(f, "suspects", sus);
	if (!isnan(median))
		pf_obs_num(f, "healthy_median_gbps", median);
	pf_obs_json(f, "skipped", cJSON_Duplicate(in->data->skipped, true));
	pf_obs_json(f, "rx_errors", cJSON_Duplicate(in->data->rx_errors, true));
	pf_obs_json(f, "not_comparable", cJSON_Duplicate(notes->not_comparable, true));
	pf_obs_json(f, "untested", cJSON_Duplicate(notes->untested, true));
}

/* A skip per record that names this rank: never a failure, shown where it is. */
static void findings_notes(struct pf_result *res, const struct pf_mesh_judge_in *in,
			   const struct notes *notes)
{
	const cJSON *e;
	char subject[200];

	cJSON_ArrayForEach(e, notes->not_comparable) {
		bool mine = num_of(e, "rank") == in->rank;

		if (!mine && num_of(e, "peer") != in->rank)
			continue;
		snprintf(subject, sizeof(subject), "round %.0f rail %.0f %s <-> rank %.0f %s",
			 num_of(e, "round"), num_of(e, "rail"),
			 str_of(e, mine ? "device" : "peer_device"),
			 num_of(e, mine ? "peer" : "rank"),
			 str_of(e, mine ? "peer_device" : "device"));
		pf_add(res, PF_STATUS_SKIP, subject, "not comparable: %s", str_of(e, "why"));
	}
	cJSON_ArrayForEach(e, notes->untested) {
		if (num_of(e, "rank") != in->rank)
			continue;
		snprintf(subject, sizeof(subject), "rail %.0f %s", num_of(e, "rail"),
			 str_of(e, "device"));
		pf_add(res, PF_STATUS_SKIP, subject, "%s", str_of(e, "why"));
	}
}

/* Rank 0 could not send its @which table (past the frame limit): an error of its report. */
static void findings_rdv_error(struct pf_result *res, const cJSON *table, const char *which)
{
	const char *e = str_of(table, "error");

	if (e)
		pf_add(res, PF_STATUS_ERROR, "rendezvous", "the %s gather: %s", which, e);
}

/* The codes of the mesh check's fail and warn findings (docs/codes.md). */
const struct pf_code pf_mesh_codes[] = {
	{ 1, PF_ACTION_NONE, "a rail's fabric is slow with every partner on most nodes: no node is to blame" },
	{ 2, PF_ACTION_RECONFIGURE, "a node is slow on every rail with every partner: its host side (PCIe, memory, IOMMU)" },
	{ 3, PF_ACTION_RESEAT_OR_REPLACE, "a rail is slow with every partner: its NIC, port or cable" },
	{ 4, PF_ACTION_NONE, "a path between two nodes is slow: the path or either end (two nodes cannot tell)" },
	{ 5, PF_ACTION_NONE, "a flow failed, explained by a rail's fabric suspect: not evidence against this node" },
	{ 6, PF_ACTION_NONE, "a flow failed, explained by another node's or rail's suspect" },
	{ 7, PF_ACTION_RESEAT_OR_REPLACE, "a flow from this node failed and no suspect explains it" },
	{ 8, PF_ACTION_NONE, "the node's verdict over the whole run: see its other findings" },
	{ 9, PF_ACTION_RECONFIGURE, "--use-gpu: GPU memory could not be used for RDMA; host memory measured" },
	{ 0 },
};

void pf_mesh_judge(struct pf_result *res, const struct pf_mesh_judge_in *in)
{
	/* this rank's own sends from its memory, never from rank 0's table */
	cJSON *matrix = matrix_of(in->gathered, in->size, in->rank), *sus;
	struct pf_mesh_triage t = { 0 };
	struct verdict v = { .st = PF_STATUS_SKIP };
	char names_missing[512];
	size_t missing = pf_mesh_missing(in->table, names_missing, sizeof(names_missing));
	const cJSON *m;
	struct pf_mesh_index ix;
	struct notes notes;
	char extra[96] = "";
	int n_nc, n_ut;

	if (in->data)
		matrix_add(matrix, in->data->sends, in->rank, in->size);
	pf_mesh_index_init(&ix, in->table, in->size, matrix);
	notes = (struct notes){ pf_mesh_not_comparable(&ix, in->sched, matrix),
				pf_mesh_untested(&ix, in->sched) };
	sus = suspects(matrix, in->table, &ix, &t);
	judge_sends(in, matrix, &ix, &t, &v);
	judge_suspects(in, &t, &v);
	if (!v.any && v.n_sent)
		worst(&v, PF_STATUS_PASS);
	main_finding(res, in, &v, matrix, sus, t.healthy_median, &notes);
	for (size_t k = 0; k < t.n; k++)
		if (touches(&t.suspects[k], in->rank, in->table))
			finding_suspect(res, in, &t.suspects[k]);
	cJSON_ArrayForEach(m, matrix)
		if (num_of(m, "src") == in->rank && str_of(m, "error") &&
		    !pf_mesh_flow_not_comparable(&ix, m, NULL, 0))
			finding_failed(res, in, &t, m);
	findings_notes(res, in, &notes);
	findings_missing(res, in->table);
	findings_gpu(res, in);
	findings_rdv_error(res, in->table, "first");
	if (in->gathered != in->table)
		findings_rdv_error(res, in->gathered, "second");
	n_nc = cJSON_GetArraySize(notes.not_comparable);
	n_ut = cJSON_GetArraySize(notes.untested);
	if (n_nc || n_ut)
		snprintf(extra, sizeof(extra), "; in the run %d not comparable, %d rails untested",
			 n_nc, n_ut);
	pf_summary(res, "%zu flows sent (%zu failed) in %zu rounds%s%s; %zu suspects touch this "
		   "node%s%s%s", v.n_sent, v.n_failed, in->sched->n_rounds,
		   in->connection ? " over " : "", in->connection ? in->connection : "",
		   v.n_suspects_here, extra, missing ? "; missing " : "",
		   missing ? names_missing : "");
	pf_result_resolve_codes(res, "mesh", pf_mesh_codes);
	pf_result_finish(res);
	pf_mesh_triage_release(&t);
	pf_mesh_index_release(&ix);
	cJSON_Delete(notes.not_comparable);
	cJSON_Delete(notes.untested);
}
