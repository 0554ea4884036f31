/* SPDX-License-Identifier: MIT */
/*
 * table.h - aligned text tables for the text views (`fleet`, `diff`).
 */
#ifndef PREFLIGHT_TABLE_H
#define PREFLIGHT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PF_TABLE_MAX_COLS 8

/* Columns are left-aligned unless right[c]; the last column is not padded. */
struct pf_table {
	size_t ncol, nrow, cap;
	char **cells;
	bool right[PF_TABLE_MAX_COLS];
};

/* Append a row of t->ncol cells (copied; NULL is ""). */
void pf_table_row(struct pf_table *t, const char *const *cells);
/* Print the rows aligned, then empty the table. */
void pf_table_print(struct pf_table *t, FILE *out);
/* Empty the table without printing it. */
void pf_table_clear(struct pf_table *t);

#endif
