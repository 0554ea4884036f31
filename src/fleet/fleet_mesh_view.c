// SPDX-License-Identifier: MIT
/*
 * fleet_mesh_view.c - the mesh part of `preflight fleet`'s views
 * (fleet_mesh.h): the ranked suspects with their evidence as JSON and as a
 * text table, the reports' records of pairs not comparable and rails
 * untested, and --drain-suspects: the scontrol commands an operator would
 * run, printed, never run (a fabric suspect, which names no node, is a
 * comment).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet_drain.h"
#include "hostlist.h"
#include "fleet_mesh.h"
#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "table.h"

static double round3(double v)
{
	return round(v * 1000.0) / 1000.0;
}

static const char *dir_name(enum pf_mesh_dir d)
{
	return d ? pf_mesh_dir_name(d) : "";
}

/* The suspect's device: its rail's, or for a path its own end's; none for the fabric. */
static const char *sus_dev(const struct fl_mesh *m, const struct fl_mesh_suspect *s)
{
	if (s->rail == UINT32_MAX || s->kind == PF_MESH_FABRIC)
		return "";
	return fl_mesh_dev(m, s->rank, s->rail,
			   s->kind == PF_MESH_PATH ? PF_MESH_BOTH : (int)s->dir);
}

/* The suspect's host: a fabric suspect has none. */
static const char *sus_host(const struct fl_mesh *m, const struct fl_mesh_suspect *s, char *buf,
			    size_t len)
{
	return s->kind == PF_MESH_FABRIC ? "(fabric)" : fl_mesh_host(m, s->rank, buf, len);
}

/* What the suspect is, in words, for a person and for scontrol's Reason. */
static char *sus_what(const struct fl_mesh *m, const struct fl_mesh_suspect *s)
{
	char pb[32];
	const char *dev = sus_dev(m, s);

	switch (s->kind) {
	case FL_MESH_MISSING:
		return pf_xasprintf("never arrived at the rendezvous: %s",
				    m->ranks[s->rank].why ? m->ranks[s->rank].why : "no reason given");
	case FL_MESH_SILENT:
		return pf_xstrdup("arrived, but no measurement of what it sends is in any report");
	case PF_MESH_NODE:
		return pf_xasprintf("every rail slow (%s) with every partner: the host side, "
				    "%.2f of the healthy median, %zu/%zu slow", dir_name(s->dir),
				    s->ratio, s->n_slow, s->n_seen);
	case PF_MESH_FABRIC:
		return pf_xasprintf("rail %u slow (%s) with every partner on %u of %u nodes: the "
				    "fabric of that rail (a leaf, a switch or its settings), no node "
				    "to drain, %.2f of the healthy median, %zu/%zu slow", s->rail,
				    dir_name(s->dir), s->n_nodes_bad, s->n_nodes, s->ratio, s->n_slow,
				    s->n_seen);
	case PF_MESH_RAIL:
		return pf_xasprintf("rail %u%s%s%s slow (%s) with every partner: NIC, port or "
				    "cable, %.2f of the healthy median, %zu/%zu slow", s->rail,
				    *dev ? " (" : "", dev, *dev ? ")" : "", dir_name(s->dir),
				    s->ratio, s->n_slow, s->n_seen);
	default:
		if (s->ratio == 0)
			return pf_xasprintf("path to %s on rail %u dead (%s): nothing got through, "
					    "%zu/%zu failed%s%s", fl_mesh_host(m, s->peer, pb, sizeof(pb)),
					    s->rail, dir_name(s->dir), s->n_slow, s->n_seen,
					    *s->error ? ": " : "", s->error);
		return pf_xasprintf("path to %s on rail %u slow (%s) only between these two: "
				    "%.2f of the healthy median, %zu/%zu slow",
				    fl_mesh_host(m, s->peer, pb, sizeof(pb)), s->rail,
				    dir_name(s->dir), s->ratio, s->n_slow, s->n_seen);
	}
}

static cJSON *sus_json(const struct fl_mesh *m, const struct fl_mesh_suspect *s)
{
	cJSON *e = cJSON_CreateObject();
	char hb[32];
	pf_autofree char *what = sus_what(m, s);

	cJSON_AddStringToObject(e, "kind", fl_mesh_kind_name(s->kind));
	if (s->dir)
		cJSON_AddStringToObject(e, "dir", pf_mesh_dir_name(s->dir));
	if (s->kind == PF_MESH_FABRIC) {
		cJSON_AddNumberToObject(e, "rail", s->rail);
		cJSON_AddNumberToObject(e, "nodes_bad", s->n_nodes_bad);
		cJSON_AddNumberToObject(e, "nodes", s->n_nodes);
		cJSON_AddNumberToObject(e, "ratio", round3(s->ratio));
		cJSON_AddNumberToObject(e, "n_slow", (double)s->n_slow);
		cJSON_AddNumberToObject(e, "n_seen", (double)s->n_seen);
		cJSON_AddStringToObject(e, "why", what);
		return e;
	}
	cJSON_AddNumberToObject(e, "rank", s->rank);
	cJSON_AddStringToObject(e, "host", fl_mesh_host(m, s->rank, hb, sizeof(hb)));
	if (s->rail != UINT32_MAX) {
		cJSON_AddNumberToObject(e, "rail", s->rail);
		cJSON_AddStringToObject(e, "device", sus_dev(m, s));
	}
	if (s->kind == PF_MESH_PATH) {
		cJSON_AddNumberToObject(e, "peer_rank", s->peer);
		cJSON_AddStringToObject(e, "peer_host", fl_mesh_host(m, s->peer, hb, sizeof(hb)));
		cJSON_AddStringToObject(e, "peer_device",
					fl_mesh_dev(m, s->peer, s->rail, PF_MESH_BOTH));
	}
	if (!isnan(s->ratio)) {
		cJSON_AddNumberToObject(e, "ratio", round3(s->ratio));
		cJSON_AddNumberToObject(e, "n_slow", (double)s->n_slow);
		cJSON_AddNumberToObject(e, "n_seen", (double)s->n_seen);
	}
	cJSON_AddStringToObject(e, "why", what);
	return e;
}

static cJSON *ranks_json(const struct fl_mesh *m)
{
	cJSON *a = cJSON_CreateArray();

	for (uint32_t r = 0; r < m->size; r++) {
		const struct fl_mesh_rank *k = &m->ranks[r];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddNumberToObject(e, "rank", r);
		cJSON_AddStringToObject(e, "host", k->host);
		cJSON_AddBoolToObject(e, "arrived", k->arrived);
		cJSON_AddBoolToObject(e, "reported", k->reported);
		cJSON_AddNumberToObject(e, "sent", (double)k->sent);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/* The reports' records, one kind. */
static cJSON *notes_json(const struct fl_mesh *m, bool untested)
{
	cJSON *a = cJSON_CreateArray();
	char hb[32];

	for (size_t i = 0; i < m->n_notes; i++) {
		const struct fl_mesh_note *n = &m->notes[i];
		cJSON *e;

		if (n->untested != untested)
			continue;
		e = cJSON_CreateObject();
		if (!untested)
			cJSON_AddNumberToObject(e, "round", n->round);
		cJSON_AddNumberToObject(e, "rank", n->rank);
		cJSON_AddStringToObject(e, "host", fl_mesh_host(m, n->rank, hb, sizeof(hb)));
		cJSON_AddNumberToObject(e, "rail", n->rail);
		cJSON_AddStringToObject(e, "device", n->device);
		if (!untested) {
			cJSON_AddNumberToObject(e, "peer_rank", n->peer);
			cJSON_AddStringToObject(e, "peer_host", fl_mesh_host(m, n->peer, hb, sizeof(hb)));
			cJSON_AddStringToObject(e, "peer_device", n->peer_device);
		}
		cJSON_AddStringToObject(e, "why", n->why);
		cJSON_AddItemToArray(a, e);
	}
	return a;
}

/*
 * When the reports of the run disagree (a rank's host, or their job id or
 * nodelist): "host_conflicts" [{rank, hosts}] and "runs_differ"; nothing
 * when they agree.  No such rank is drained (fl_mesh_render_drain()).
 */
static void run_warnings_json(const struct fl_mesh *m, cJSON *j)
{
	cJSON *a = NULL;

	if (m->runs_differ)
		cJSON_AddBoolToObject(j, "runs_differ", true);
	for (uint32_t r = 0; r < m->size; r++) {
		const struct fl_mesh_rank *k = &m->ranks[r];
		cJSON *e, *hosts;

		if (!k->host_other)
			continue;
		if (!a)
			a = cJSON_AddArrayToObject(j, "host_conflicts");
		e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "rank", r);
		hosts = cJSON_AddArrayToObject(e, "hosts");
		cJSON_AddItemToArray(hosts, cJSON_CreateString(k->host));
		cJSON_AddItemToArray(hosts, cJSON_CreateString(k->host_other));
		cJSON_AddItemToArray(a, e);
	}
}

/* The same in the text view: a warning line each. */
static void run_warnings_text(const struct fl_mesh *m, FILE *out)
{
	if (m->runs_differ)
		fputs("  warning: the reports are of more than one run (job id or nodelist); "
		      "nothing of the mesh is drained\n", out);
	for (uint32_t r = 0; r < m->size; r++)
		if (m->ranks[r].host_other)
			fprintf(out, "  warning: the reports disagree on rank %u's host: '%s' and "
				"'%s'; it is not drained\n", r, m->ranks[r].host,
				m->ranks[r].host_other);
}

cJSON *fl_mesh_to_json(const struct fl_mesh *m)
{
	cJSON *j = cJSON_CreateObject(), *a;

	cJSON_AddNumberToObject(j, "reports", (double)m->n_reports);
	cJSON_AddNumberToObject(j, "size", m->size);
	cJSON_AddNumberToObject(j, "measurements", (double)m->n_meas);
	cJSON_AddNumberToObject(j, "duplicates", (double)m->n_dupes);
	cJSON_AddNumberToObject(j, "conflicts", (double)m->n_conflicts);
	cJSON_AddBoolToObject(j, "judged", m->judged);
	cJSON_AddNumberToObject(j, "slow_fraction", m->fraction);
	if (m->judged)
		cJSON_AddNumberToObject(j, "healthy_median_gbps", m->healthy);
	else
		cJSON_AddStringToObject(j, "not_judged", m->not_judged ? m->not_judged : "");
	cJSON_AddItemToObject(j, "ranks", ranks_json(m));
	a = cJSON_AddArrayToObject(j, "suspects");
	for (size_t i = 0; i < m->n_sus && i < FL_MESH_LIST_MAX; i++)
		cJSON_AddItemToArray(a, sus_json(m, &m->sus[i]));
	if (m->n_sus > FL_MESH_LIST_MAX)
		cJSON_AddNumberToObject(j, "suspects_not_listed",
					(double)(m->n_sus - FL_MESH_LIST_MAX));
	cJSON_AddItemToObject(j, "not_comparable", notes_json(m, false));
	cJSON_AddItemToObject(j, "untested", notes_json(m, true));
	cJSON_AddNumberToObject(j, "not_comparable_measurements", (double)m->n_not_comparable);
	run_warnings_json(m, j);
	a = cJSON_AddArrayToObject(j, "errors");
	for (size_t i = 0; i < m->n_errs; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "file", m->errs[i].origin);
		cJSON_AddStringToObject(e, "reason", m->errs[i].reason);
		cJSON_AddItemToArray(a, e);
	}
	return j;
}

static void text_suspects(const struct fl_mesh *m, FILE *out)
{
	struct pf_table t = { .ncol = 8, .right = { true } };

	pf_table_row(&t, (const char *const[]){ "#", "KIND", "HOST", "RANK", "RAIL", "DIR",
					     "RATIO", "EVIDENCE" });
	for (size_t i = 0; i < m->n_sus && i < FL_MESH_LIST_MAX; i++) {
		const struct fl_mesh_suspect *s = &m->sus[i];
		char n[24], rank[16], rail[96], ratio[16], hb[32];
		pf_autofree char *what = sus_what(m, s);
		const char *dev = sus_dev(m, s);

		snprintf(n, sizeof(n), "%zu", i + 1);
		snprintf(rank, sizeof(rank), s->kind == PF_MESH_FABRIC ? "-" : "%u", s->rank);
		if (s->rail == UINT32_MAX)
			snprintf(rail, sizeof(rail), "all");
		else
			snprintf(rail, sizeof(rail), "%u%s%.64s", s->rail, *dev ? " " : "", dev);
		snprintf(ratio, sizeof(ratio), isnan(s->ratio) ? "-" : "%.2f", s->ratio);
		pf_table_row(&t, (const char *const[]){ n, fl_mesh_kind_name(s->kind),
			sus_host(m, s, hb, sizeof(hb)), rank, rail, dir_name(s->dir), ratio, what });
	}
	pf_table_print(&t, out);
	if (m->n_sus > FL_MESH_LIST_MAX)
		fprintf(out, "  ... and %zu more, not listed (the CSV view lists every one)\n",
			m->n_sus - FL_MESH_LIST_MAX);
}

/* The reports' records: not failures, listed after the suspects. */
static void text_notes(const struct fl_mesh *m, FILE *out)
{
	size_t n_nc = 0, n_ut = 0;
	char hb[32], pb[32];

	for (size_t i = 0; i < m->n_notes; i++)
		*(m->notes[i].untested ? &n_ut : &n_nc) += 1;
	if (n_nc)
		fprintf(out, "Not comparable, not judged (%zu)\n", n_nc);
	for (size_t i = 0; i < m->n_notes; i++) {
		const struct fl_mesh_note *n = &m->notes[i];

		if (!n->untested)
			fprintf(out, "  round %u rail %u %s %s <-> %s %s: %s\n", n->round, n->rail,
				fl_mesh_host(m, n->rank, hb, sizeof(hb)), n->device,
				fl_mesh_host(m, n->peer, pb, sizeof(pb)), n->peer_device, n->why);
	}
	if (n_ut)
		fprintf(out, "Untested rails (%zu)\n", n_ut);
	for (size_t i = 0; i < m->n_notes; i++) {
		const struct fl_mesh_note *n = &m->notes[i];

		if (n->untested)
			fprintf(out, "  %s rail %u %s: %s\n", fl_mesh_host(m, n->rank, hb, sizeof(hb)),
				n->rail, n->device, n->why);
	}
}

void fl_mesh_render_text(const struct fl_mesh *m, FILE *out)
{
	size_t arrived = 0;

	for (uint32_t r = 0; r < m->size; r++)
		arrived += m->ranks[r].arrived;
	fprintf(out, "\nMesh: %zu of %u ranks arrived, %zu measurements from %zu report%s",
		arrived, m->size, m->n_meas, m->n_reports, m->n_reports == 1 ? "" : "s");
	if (m->judged)
		fprintf(out, ", healthy median %.3g Gb/s", m->healthy);
	fputc('\n', out);
	for (size_t i = 0; i < m->n_errs; i++)
		fprintf(out, "  ignored %s: %s\n", m->errs[i].origin, m->errs[i].reason);
	run_warnings_text(m, out);
	if (m->n_conflicts)
		fprintf(out, "  %zu measurement%s between reports: the first read is kept\n",
			m->n_conflicts, m->n_conflicts == 1 ? " differs" : "s differ");
	if (!m->judged)
		fprintf(out, "  not triangulated: %s\n", m->not_judged ? m->not_judged : "");
	if (!m->n_sus) {
		fputs(m->judged ? "No mesh suspects.\n" : "", out);
	} else {
		fprintf(out, "Mesh suspects, worst first (%zu)\n", m->n_sus);
		text_suspects(m, out);
	}
	text_notes(m, out);
}

void fl_mesh_render_csv(const struct fl_mesh *m, FILE *out,
			void (*row)(FILE *out, const char *const cells[9]))
{
	for (size_t i = 0; i < m->n_sus; i++) {
		const struct fl_mesh_suspect *s = &m->sus[i];
		pf_autofree char *what = sus_what(m, s);
		char hb[32], v[32] = "", med[32] = "";

		if (!isnan(s->ratio)) {
			snprintf(v, sizeof(v), "%.3f", s->ratio);
			snprintf(med, sizeof(med), "%.6g", m->healthy);
		}
		row(out, (const char *const[9]){ "suspect", sus_host(m, s, hb, sizeof(hb)),
			"mesh", sus_dev(m, s), fl_mesh_kind_name(s->kind), dir_name(s->dir), v, med,
			what });
	}
}

/*
 * Why rank @r's host is not drained from this run, or NULL: the reports of
 * one run (one job id and nodelist) must agree on it, with each other and
 * with the nodelist (@nl, its names by rank; NULL when none was recorded).
 */
static char *rank_disagreement(const struct fl_mesh *m, uint32_t r, const struct pf_hostlist *nl,
			       bool nl_bad)
{
	const struct fl_mesh_rank *k = &m->ranks[r];

	if (m->runs_differ)
		return pf_xstrdup("the reports are of more than one run (job id or nodelist)");
	if (k->host_other)
		return pf_xasprintf("the reports of the run disagree on the host of rank %u: %s, %s",
				    r, k->host, k->host_other);
	if (nl_bad)
		return pf_xasprintf("the nodelist of the run does not name its %u ranks", m->size);
	if (nl && strcmp(nl->hosts[r], k->host))
		return pf_xasprintf("the nodelist of the run names %s as rank %u", nl->hosts[r], r);
	return NULL;
}

/* The run's recorded nodelist, expanded into @nl; false when it does not name its ranks. */
static bool run_nodelist(const struct fl_mesh *m, struct pf_hostlist *nl)
{
	int n = pf_hostlist_expand(m->nodelist, m->size, nl, NULL);

	return n >= 0 && (uint32_t)n == m->size;
}

/* One scontrol line per host (its worst suspect first), paths as comments. */
void fl_mesh_render_drain(const struct fl_mesh *m, const struct pf_strmap *own, FILE *out)
{
	pf_autohostlist struct pf_hostlist nl = { 0 };
	bool *done = pf_xcalloc(m->size + 1, sizeof(*done));
	bool has_nl = m->nodelist != NULL, nl_bad = has_nl && !run_nodelist(m, &nl);
	size_t drained = 0;

	fprintf(out, "# preflight fleet --drain-suspects: %zu mesh suspect%s from %u ranks; "
		     "printed, not run\n", m->n_sus, m->n_sus == 1 ? "" : "s", m->size);
	if (!m->judged)
		fprintf(out, "# not triangulated: %s\n", m->not_judged ? m->not_judged : "");
	for (size_t i = 0; i < m->n_sus; i++) {
		const struct fl_mesh_suspect *s = &m->sus[i];
		pf_autofree char *what = sus_what(m, s), *reason = fl_drain_text(what);
		pf_autofree char *h = NULL, *differ = NULL;
		const char *host, *refused;
		char hb[32];

		if (s->kind == PF_MESH_FABRIC) {
			fprintf(out, "# fabric-wide, not drained: %s\n", reason);
			continue;
		}
		host = m->ranks[s->rank].host;
		if (s->kind == PF_MESH_PATH || s->kind == FL_MESH_SILENT) {
			pf_autofree char *a = fl_drain_text(fl_mesh_host(m, s->rank, hb, sizeof(hb)));

			fprintf(out, "# investigate, not drained: %s %s: %s\n",
				s->kind == PF_MESH_PATH ? "path from" : "rank on", a, reason);
			continue;
		}
		if (done[s->rank])
			continue;
		done[s->rank] = true;
		h = fl_drain_text(host);
		differ = rank_disagreement(m, s->rank, has_nl && !nl_bad ? &nl : NULL, nl_bad);
		if (differ) {
			pf_autofree char *d = fl_drain_text(differ);

			fprintf(out, "# not drained: rank %u's host '%s': %s: %s\n", s->rank, h, d,
				reason);
			continue;
		}
		refused = fl_drain_refusal(host, own);
		if (refused) {
			fprintf(out, "# not drained: rank %u's host '%s' is %s: %s\n", s->rank, h,
				refused, reason);
			continue;
		}
		fprintf(out, "scontrol update NodeName=%s State=DRAIN Reason=\"preflight mesh: "
			     "%s\"\n", host, reason);
		drained++;
	}
	fprintf(out, "# %zu node%s to drain\n", drained, drained == 1 ? "" : "s");
	free(done);
}
