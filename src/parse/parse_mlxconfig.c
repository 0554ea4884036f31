// SPDX-License-Identifier: MIT
/*
 * parse_mlxconfig.c - the query table of mstconfig/mlxconfig (mstflint,
 * mlxconfig/mlxcfg_ui.cpp: printConfHeader, printSingleParam, printValue).
 *
 * The columns are found by name in the header line, so a table with or
 * without -e (default and current) and either generation's column widths
 * parse alike; values never contain blanks.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/parse.h"

enum col { COL_DEFAULT, COL_CURRENT, COL_NEXT };

/* The columns of a "Configurations:" header line in order; their count or -EINVAL. */
static int header_cols(const char *line, enum col *cols)
{
	int n = 0;

	for (const char *p = line + strlen("Configurations:"); *p && n < 3; p++) {
		if (!strncmp(p, "Default", 7))
			cols[n++] = COL_DEFAULT, p += 6;
		else if (!strncmp(p, "Current", 7))
			cols[n++] = COL_CURRENT, p += 6;
		else if (!strncmp(p, "Next Boot", 9))
			cols[n++] = COL_NEXT, p += 8;
	}
	return n ? n : -EINVAL;
}

/* "255", "True(1)", "0x8(8)", "0x8": 1 and the number; 0 for "N/A"; -EINVAL otherwise. */
static int value(const char *tok, uint64_t *ret)
{
	const char *open = strrchr(tok, '(');
	char buf[32];
	size_t len = strlen(tok);

	if (!strcmp(tok, "N/A") || !strncmp(tok, "Array", 5))
		return 0;
	if (open && len > 2 && tok[len - 1] == ')') {
		snprintf(buf, sizeof(buf), "%.*s", (int)(len - 2 - (size_t)(open - tok)), open + 1);
		return pf_parse_u64(buf, ret) < 0 ? -EINVAL : 1;
	}
	if (len >= sizeof(buf))
		return -EINVAL;
	if (!strncmp(tok, "0x", 2) || !strncmp(tok, "0X", 2)) {
		char *end;

		if (len == 2)
			return -EINVAL;
		*ret = strtoull(tok + 2, &end, 16);
		return *end ? -EINVAL : 1;
	}
	return pf_parse_u64(tok, ret) < 0 ? -EINVAL : 1;
}

static void set(struct pf_nv_value *v, enum col c, uint64_t x)
{
	if (c == COL_DEFAULT)
		v->has_default = true, v->def = x;
	else if (c == COL_CURRENT)
		v->has_current = true, v->cur = x;
	else
		v->has_next = true, v->next = x;
}

/* A parameter row: [*][RO] NAME V1 [V2 [V3]]. */
static int row(char *line, const char *name, const enum col *cols, int n_cols,
	       struct pf_nv_value *ret)
{
	char *save = NULL, *w = strtok_r(line, " \t", &save);
	int k = 0;

	while (w && (!strcmp(w, "*") || !strcmp(w, "RO") || !strcmp(w, "*RO")))
		w = strtok_r(NULL, " \t", &save);
	if (!w || strcmp(w, name))
		return -ENOENT;
	memset(ret, 0, sizeof(*ret));
	while ((w = strtok_r(NULL, " \t", &save)) && k < n_cols) {
		uint64_t x = 0;
		int r = value(w, &x);

		if (r < 0)
			return r;
		if (r)
			set(ret, cols[k], x);
		k++;
	}
	return k == n_cols ? 0 : -EINVAL;
}

int pf_parse_mlxconfig_query(const char *text, const char *name, struct pf_nv_value *ret)
{
	pf_autofree char *copy = pf_xstrdup(text);
	enum col cols[3];
	int n_cols = -EINVAL;
	char *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = line + strspn(line, " \t");
		int r;

		if (!strncmp(p, "Configurations:", 15)) {
			n_cols = header_cols(p, cols);
			if (n_cols < 0)
				return n_cols;
			continue;
		}
		if (n_cols < 0)
			continue;
		r = row(line, name, cols, n_cols, ret);
		if (r != -ENOENT)
			return r;
	}
	return n_cols < 0 ? -EINVAL : -ENOENT;
}
