// SPDX-License-Identifier: MIT
/*
 * fleet_fw.c - NIC firmware drift: every (node, NIC, PSID, running
 * firmware) the reports' nic_health findings observed, grouped by PSID; in
 * each group the version most NICs run is the majority (ties: the higher
 * count first seen), and each NIC running another is listed.  A flashed
 * but not activated firmware is nic_health's own warning; this view finds
 * nodes that were left behind or upgraded alone.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet_fw.h"
#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "table.h"

struct fw_rec {
	size_t node;
	char *host, *subject, *psid, *fw;
	bool live;
	const char *majority; /* of its PSID, after finish */
	size_t of, n_psid;    /* NICs of the majority, of the PSID */
};

struct fl_fw {
	struct fw_rec *recs;
	size_t n, cap;
	size_t n_drift;
};

struct fl_fw *fl_fw_new(void)
{
	return pf_xcalloc(1, sizeof(struct fl_fw));
}

void fl_fw_free(struct fl_fw *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++) {
		free(w->recs[i].host);
		free(w->recs[i].subject);
		free(w->recs[i].psid);
		free(w->recs[i].fw);
	}
	free(w->recs);
	free(w);
}

static const char *str_of(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

void fl_fw_add_report(struct fl_fw *w, const cJSON *checks, size_t node, const char *host)
{
	const cJSON *chk, *fd;

	cJSON_ArrayForEach(chk, checks) {
		const char *name = str_of(chk, "name");

		if (!name || strcmp(name, "nic_health"))
			continue;
		cJSON_ArrayForEach(fd, cJSON_GetObjectItemCaseSensitive(chk, "findings")) {
			const cJSON *obs = cJSON_GetObjectItemCaseSensitive(fd, "observed");
			const char *psid = str_of(obs, "psid"), *fw = str_of(obs, "fw_running");
			const char *subject = str_of(fd, "subject");

			if (!psid || !fw)
				continue;
			PF_GROW(w->recs, w->n, w->cap);
			w->recs[w->n++] = (struct fw_rec){
				.node = node, .host = pf_xstrdup(host),
				.subject = pf_xstrdup(subject ? subject : ""),
				.psid = pf_xstrdup(psid), .fw = pf_xstrdup(fw) };
		}
	}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct fw_rec *x = a, *y = b;
	int c = strcmp(x->psid, y->psid);

	if (!c)
		c = strcmp(x->fw, y->fw);
	if (!c)
		c = strcmp(x->host, y->host);
	return c ? c : strcmp(x->subject, y->subject);
}

void fl_fw_finish(struct fl_fw *w, const bool *superseded)
{
	size_t i = 0;

	for (size_t k = 0; k < w->n; k++)
		w->recs[k].live = !superseded[w->recs[k].node];
	if (w->n)
		qsort(w->recs, w->n, sizeof(*w->recs), cmp_rec);
	/* each PSID's run of records (sorted by version inside): the largest version run wins */
	while (i < w->n) {
		size_t end = i, best = 0, n_live = 0;
		const char *maj = NULL;

		while (end < w->n && !strcmp(w->recs[end].psid, w->recs[i].psid))
			end++;
		for (size_t k = i; k < end;) {
			size_t run = 0, e = k;

			while (e < end && !strcmp(w->recs[e].fw, w->recs[k].fw))
				run += w->recs[e++].live;
			if (run > best) {
				best = run;
				maj = w->recs[k].fw;
			}
			n_live += run;
			k = e;
		}
		for (size_t k = i; k < end; k++) {
			w->recs[k].majority = maj;
			w->recs[k].of = best;
			w->recs[k].n_psid = n_live;
			w->n_drift += w->recs[k].live && maj && strcmp(w->recs[k].fw, maj);
		}
		i = end;
	}
}

bool fl_fw_any(const struct fl_fw *w)
{
	return w->n > 0;
}

static bool drifted(const struct fw_rec *r)
{
	return r->live && r->majority && strcmp(r->fw, r->majority);
}

cJSON *fl_fw_to_json(const struct fl_fw *w)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t k = 0; k < w->n; k++) {
		const struct fw_rec *r = &w->recs[k];
		cJSON *e;

		if (!drifted(r))
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "node", r->host);
		cJSON_AddStringToObject(e, "subject", r->subject);
		cJSON_AddStringToObject(e, "psid", r->psid);
		cJSON_AddStringToObject(e, "fw", r->fw);
		cJSON_AddStringToObject(e, "majority", r->majority);
		cJSON_AddNumberToObject(e, "majority_nics", (double)r->of);
		cJSON_AddNumberToObject(e, "psid_nics", (double)r->n_psid);
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

void fl_fw_render_text(const struct fl_fw *w, FILE *out)
{
	struct pf_table t = { .ncol = 5 };

	if (!w->n_drift) {
		fputs("\nNIC firmware: every NIC runs its PSID's majority version.\n", out);
		return;
	}
	fprintf(out, "\nNIC firmware drift (%zu NIC%s off the majority of their PSID)\n",
		w->n_drift, w->n_drift == 1 ? "" : "s");
	pf_table_row(&t, (const char *const[]){ "NODE", "NIC", "PSID", "FIRMWARE", "MAJORITY" });
	for (size_t k = 0; k < w->n; k++) {
		const struct fw_rec *r = &w->recs[k];
		char maj[96];

		if (!drifted(r))
			continue;
		snprintf(maj, sizeof(maj), "%s (%zu of %zu)", r->majority, r->of, r->n_psid);
		pf_table_row(&t, (const char *const[]){ r->host, r->subject, r->psid, r->fw, maj });
	}
	pf_table_print(&t, out);
}
