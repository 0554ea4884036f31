// SPDX-License-Identifier: MIT
/*
 * mesh_print.c - pf_mesh_print(): the rendezvous table and the schedule of
 * `preflight mesh` as text, peer-supplied strings escaped (mesh_print.h).
 */
#include <stdbool.h>

#include "mesh_print.h"
#include "preflight/macro.h"
#include "text.h"

/* A string of the table, or @dflt when it is absent or no string; controls escaped. */
static char *clean_str(const cJSON *e, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);

	return pf_utf8_clean(cJSON_IsString(v) ? v->valuestring : dflt, true);
}

void pf_mesh_print(FILE *f, const cJSON *table, const struct pf_mesh_schedule *s)
{
	const cJSON *e;

	fprintf(f, "mesh: %u ranks\n", s->size);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const cJSON *rank = cJSON_GetObjectItemCaseSensitive(e, "rank"), *rail;
		bool here = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived"));
		pf_autofree char *host = clean_str(e, "host", "?");
		pf_autofree char *why = here ? NULL : clean_str(e, "why", "?");

		fprintf(f, "  rank %d %s: %s\n", cJSON_IsNumber(rank) ? rank->valueint : -1, host,
			here ? "arrived" : why);
		cJSON_ArrayForEach(rail, cJSON_GetObjectItemCaseSensitive(e, "rails")) {
			pf_autofree char *text = cJSON_PrintUnformatted(rail);
			/* cJSON escapes C0 controls; C1 (U+009B, a CSI) and bad UTF-8 pass it */
			pf_autofree char *clean = pf_utf8_clean(text ? text : "?", true);

			fprintf(f, "    rail %s\n", clean);
		}
	}
	fprintf(f, "schedule: %zu round%s (%s)\n", s->n_rounds, s->n_rounds == 1 ? "" : "s",
		s->exhaustive ? "every pair once" : "ring, opposite and seeded ring");
	for (size_t r = 0; r < s->n_rounds; r++) {
		fprintf(f, "  round %zu:", r + 1);
		for (size_t i = 0; i < s->rounds[r].n; i++)
			fprintf(f, " %u-%u", s->rounds[r].pairs[i].a, s->rounds[r].pairs[i].b);
		fputc('\n', f);
	}
}
