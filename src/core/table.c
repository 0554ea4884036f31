// SPDX-License-Identifier: MIT
/*
 * table.c - aligned text tables: cells are copied; the last column is not padded.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "table.h"

void pf_table_row(struct pf_table *t, const char *const *cells)
{
	if (t->nrow == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 32;
		t->cells = pf_xrealloc(t->cells, t->cap * t->ncol * sizeof(*t->cells));
	}
	for (size_t c = 0; c < t->ncol; c++)
		t->cells[t->nrow * t->ncol + c] = pf_xstrdup(cells[c] ? cells[c] : "");
	t->nrow++;
}

void pf_table_print(struct pf_table *t, FILE *out)
{
	size_t w[PF_TABLE_MAX_COLS] = { 0 };

	for (size_t r = 0; r < t->nrow; r++)
		for (size_t c = 0; c < t->ncol; c++) {
			size_t l = strlen(t->cells[r * t->ncol + c]);

			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r < t->nrow; r++) {
		for (size_t c = 0; c < t->ncol; c++) {
			const char *s = t->cells[r * t->ncol + c];
			bool last = c + 1 == t->ncol;

			if (t->right[c] && !(last && !*s))
				fprintf(out, "%*s", (int)w[c], s);
			else
				fprintf(out, "%-*s", last ? 0 : (int)w[c], s);
			fputs(last ? "\n" : "  ", out);
		}
	}
	pf_table_clear(t);
}

void pf_table_clear(struct pf_table *t)
{
	for (size_t i = 0; i < t->nrow * t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
	*t = (struct pf_table){ 0 };
}

