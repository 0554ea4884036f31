// SPDX-License-Identifier: MIT
/*
 * mesh_compat.c - which pairs of rails a mesh run can compare (docs/mesh.md
 * "Rail compatibility"): the rule is pf_rail_compat() (src/pairs/compat.c),
 * read here from the rendezvous table, whose rails every peer wrote about
 * itself (hostile: only strings of the right type are taken, and the rule
 * bounds what it prints).  The run-wide records of the report: the pairs
 * that were not comparable, and the rails a shorter partner table left
 * untested.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "preflight/macro.h"

/* At most this many records of each kind in a report (like the measurements). */
#define NOTES_MAX 4096
/* A device name in a record: longer is cut (IB_DEVICE_NAME_MAX is 64). */
#define DEV_MAX 64

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

void pf_mesh_rail_ident(const cJSON *entry, struct pf_rail_ident *id)
{
	const char *sel = str_of(entry, "selected");

	*id = (struct pf_rail_ident){
		.device = str_of(entry, "device"),
		.link_layer = str_of(entry, "link_layer"),
		.role = str_of(entry, "role"),
		.subnet = str_of(entry, "subnet"),
		.ib_subnet = str_of(entry, "ib_subnet"),
		.by_nics = sel && strcmp(sel, "nics") == 0,
	};
}

/* The rails of @rank in @table when it arrived, else NULL. */
static const cJSON *rails_of(const cJSON *table, uint32_t rank)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"),
					    (int)rank);

	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
		return NULL;
	e = cJSON_GetObjectItemCaseSensitive(e, "rails");
	return cJSON_IsArray(e) ? e : NULL;
}

enum pf_rail_compat pf_mesh_rail_compat(const cJSON *ra, uint32_t a, const cJSON *rb, uint32_t b,
					uint32_t rail, char *why, size_t len)
{
	struct pf_rail_ident x, y;

	pf_mesh_rail_ident(cJSON_GetArrayItem(ra, (int)rail), &x);
	pf_mesh_rail_ident(cJSON_GetArrayItem(rb, (int)rail), &y);
	return pf_rail_compat(&x, a, &y, b, rail, why, len);
}

/* Did rail @rail of @rank carry a flow of the run (either end, no error)? */
static bool carried(const struct pf_mesh_index *ix, uint32_t rank, uint32_t rail)
{
	return rank < ix->size && rail < PF_MESH_INDEX_RAILS &&
	       ix->carried[(size_t)rank * PF_MESH_INDEX_RAILS + rail];
}

void pf_mesh_index_init(struct pf_mesh_index *ix, const cJSON *table, uint32_t size,
			const cJSON *matrix)
{
	const cJSON *m;

	ix->size = size;
	ix->rails = pf_xcalloc(size ? size : 1, sizeof(*ix->rails));
	ix->carried = pf_xcalloc((size_t)(size ? size : 1) * PF_MESH_INDEX_RAILS,
				 sizeof(*ix->carried));
	for (uint32_t r = 0; r < size; r++)
		ix->rails[r] = rails_of(table, r);
	/* the matrix is checked (pf_mesh_matrix): whole numbers in range */
	cJSON_ArrayForEach(m, matrix) {
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "src");
		const cJSON *dst = cJSON_GetObjectItemCaseSensitive(m, "dst");
		const cJSON *rail = cJSON_GetObjectItemCaseSensitive(m, "rail");
		double ends[2];

		if (str_of(m, "error") || !cJSON_IsNumber(src) || !cJSON_IsNumber(dst) ||
		    !cJSON_IsNumber(rail) || !(rail->valuedouble >= 0) ||
		    rail->valuedouble >= PF_MESH_INDEX_RAILS)
			continue;
		ends[0] = src->valuedouble;
		ends[1] = dst->valuedouble;
		for (int e = 0; e < 2; e++)
			if (ends[e] >= 0 && ends[e] < size)
				ix->carried[(size_t)ends[e] * PF_MESH_INDEX_RAILS +
					    (size_t)rail->valuedouble] = true;
	}
}

void pf_mesh_index_release(struct pf_mesh_index *ix)
{
	free(ix->rails);
	free(ix->carried);
	ix->rails = NULL;
	ix->carried = NULL;
}

/* Both ends of the checked measurement @m carried a flow of the run. */
static bool ends_carried(const struct pf_mesh_index *ix, const cJSON *m)
{
	uint32_t rail = (uint32_t)cJSON_GetObjectItemCaseSensitive(m, "rail")->valuedouble;

	return carried(ix, (uint32_t)cJSON_GetObjectItemCaseSensitive(m, "src")->valuedouble, rail) &&
	       carried(ix, (uint32_t)cJSON_GetObjectItemCaseSensitive(m, "dst")->valuedouble, rail);
}

/* The compatibility of the checked measurement @m's rails (PF_RAIL_SAME when not known). */
static enum pf_rail_compat flow_compat(const struct pf_mesh_index *ix, const cJSON *m, char *why,
				       size_t len)
{
	const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "src");
	const cJSON *dst = cJSON_GetObjectItemCaseSensitive(m, "dst");
	const cJSON *rail = cJSON_GetObjectItemCaseSensitive(m, "rail");
	uint32_t s, d;

	/* the matrix is checked (pf_mesh_matrix): whole numbers in range */
	if (!cJSON_IsNumber(src) || !cJSON_IsNumber(dst) || !cJSON_IsNumber(rail))
		return false;
	s = (uint32_t)src->valuedouble;
	d = (uint32_t)dst->valuedouble;
	if (s >= ix->size || d >= ix->size || !ix->rails[s] || !ix->rails[d])
		return PF_RAIL_SAME;
	return pf_mesh_rail_compat(ix->rails[s], s, ix->rails[d], d,
				   (uint32_t)rail->valuedouble, why, len);
}

bool pf_mesh_flow_not_comparable(const struct pf_mesh_index *ix, const cJSON *m, char *why,
				 size_t len)
{
	enum pf_rail_compat c = flow_compat(ix, m, why, len);

	return pf_rail_not_comparable(c, str_of(m, "error") ? str_of(m, "stage") : NULL,
				      c == PF_RAIL_ROUTED && ends_carried(ix, m));
}

static cJSON *note(uint32_t round, uint32_t rank, uint32_t peer, uint32_t rail, const char *dev,
		   const char *peer_dev, const char *why)
{
	cJSON *n = cJSON_CreateObject();
	char d[DEV_MAX + 1], pd[DEV_MAX + 1];

	/* a peer's device name, cut to a bound */
	snprintf(d, sizeof(d), "%s", dev ? dev : "");
	snprintf(pd, sizeof(pd), "%s", peer_dev ? peer_dev : "");
	cJSON_AddNumberToObject(n, "round", round);
	cJSON_AddNumberToObject(n, "rank", rank);
	cJSON_AddNumberToObject(n, "peer", peer);
	cJSON_AddNumberToObject(n, "rail", rail);
	cJSON_AddStringToObject(n, "device", d);
	cJSON_AddStringToObject(n, "peer_device", pd);
	cJSON_AddStringToObject(n, "why", why);
	return n;
}

cJSON *pf_mesh_not_comparable(const struct pf_mesh_index *ix, const struct pf_mesh_schedule *s,
			      const cJSON *matrix)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *m;
	char why[400];

	/* pairs apart (link layer, role): never run */
	for (size_t r = 0; s && r < s->n_rounds; r++)
		for (size_t i = 0; i < s->rounds[r].n; i++) {
			uint32_t a = s->rounds[r].pairs[i].a, b = s->rounds[r].pairs[i].b;
			const cJSON *ra = a < ix->size ? ix->rails[a] : NULL;
			const cJSON *rb = b < ix->size ? ix->rails[b] : NULL;
			int n = cJSON_GetArraySize(ra) < cJSON_GetArraySize(rb) ?
					cJSON_GetArraySize(ra) : cJSON_GetArraySize(rb);

			for (int k = 0; ra && rb && k < n; k++) {
				if (pf_mesh_rail_compat(ra, a, rb, b, (uint32_t)k, why, sizeof(why)) !=
					    PF_RAIL_APART ||
				    cJSON_GetArraySize(out) >= NOTES_MAX)
					continue;
				cJSON_AddItemToArray(out, note((uint32_t)r + 1, a, b, (uint32_t)k,
					str_of(cJSON_GetArrayItem(ra, k), "device"),
					str_of(cJSON_GetArrayItem(rb, k), "device"), why));
			}
		}
	/* routed pairs (subnets differ) whose flow never connected; pairs apart are above */
	cJSON_ArrayForEach(m, matrix) {
		char line[600];
		const cJSON *round = cJSON_GetObjectItemCaseSensitive(m, "round");

		if (cJSON_GetArraySize(out) >= NOTES_MAX || !str_of(m, "error") ||
		    flow_compat(ix, m, why, sizeof(why)) != PF_RAIL_ROUTED ||
		    !pf_rail_not_comparable(PF_RAIL_ROUTED, str_of(m, "stage"),
					    ends_carried(ix, m)))
			continue;
		snprintf(line, sizeof(line), "%s, and the flow did not connect (%.160s)", why,
			 str_of(m, "error"));
		cJSON_AddItemToArray(out, note((uint32_t)round->valuedouble,
			(uint32_t)cJSON_GetObjectItemCaseSensitive(m, "src")->valuedouble,
			(uint32_t)cJSON_GetObjectItemCaseSensitive(m, "dst")->valuedouble,
			(uint32_t)cJSON_GetObjectItemCaseSensitive(m, "rail")->valuedouble,
			str_of(m, "src_dev"), str_of(m, "dst_dev"), line));
	}
	return out;
}

/* Every rank's partner per round: [rank * n_rounds + round], -1 none. */
static long *partner_table(const struct pf_mesh_schedule *s, uint32_t size)
{
	size_t nr = s ? s->n_rounds : 0;
	long *p = pf_xcalloc((size_t)size * (nr ? nr : 1), sizeof(*p));

	for (size_t i = 0; i < (size_t)size * nr; i++)
		p[i] = -1;
	for (size_t r = 0; r < nr; r++)
		for (size_t i = 0; i < s->rounds[r].n; i++) {
			uint32_t a = s->rounds[r].pairs[i].a, b = s->rounds[r].pairs[i].b;

			if (a < size && b < size) {
				p[(size_t)a * nr + r] = b;
				p[(size_t)b * nr + r] = a;
			}
		}
	return p;
}

/* Rank @a's rail @k: untested with how many of its partners, the first in *@first. */
static size_t untested_with(const struct pf_mesh_index *ix, const long *partner, size_t nr,
			    uint32_t a, int k, size_t *n_partners, long *first)
{
	size_t n = 0;

	*n_partners = 0;
	*first = -1;
	for (size_t r = 0; r < nr; r++) {
		long p = partner[(size_t)a * nr + r];

		if (p < 0 || !ix->rails[p])
			continue;
		(*n_partners)++;
		if (cJSON_GetArraySize(ix->rails[p]) > k)
			continue;
		if (!n++)
			*first = p;
	}
	return n;
}

cJSON *pf_mesh_untested(const struct pf_mesh_index *ix, const struct pf_mesh_schedule *s)
{
	cJSON *out = cJSON_CreateArray();
	size_t nr = s ? s->n_rounds : 0;
	pf_autofree long *partner = partner_table(s, ix->size);

	for (uint32_t a = 0; a < ix->size; a++) {
		const cJSON *e;
		int k = 0;

		cJSON_ArrayForEach(e, ix->rails[a]) {
			size_t n_partners, n;
			long first;
			char why[200], dev[DEV_MAX + 1];
			cJSON *u;

			n = untested_with(ix, partner, nr, a, k, &n_partners, &first);
			if (n && cJSON_GetArraySize(out) < NOTES_MAX) {
				snprintf(why, sizeof(why), "untested: rank %ld has %d rails%s", first,
					 cJSON_GetArraySize(ix->rails[first]),
					 n < n_partners ? " (measured with other partners)" : "");
				u = cJSON_CreateObject();
				cJSON_AddNumberToObject(u, "rank", a);
				cJSON_AddNumberToObject(u, "rail", k);
				snprintf(dev, sizeof(dev), "%s", str_of(e, "device") ?
					 str_of(e, "device") : "");
				cJSON_AddStringToObject(u, "device", dev);
				cJSON_AddNumberToObject(u, "partners", (double)n);
				cJSON_AddNumberToObject(u, "of", (double)n_partners);
				cJSON_AddStringToObject(u, "why", why);
				cJSON_AddItemToArray(out, u);
			}
			k++;
		}
	}
	return out;
}
