// SPDX-License-Identifier: MIT
/*
 * record.c - what every pf_record_*() shares: the log of a fact left out
 * and the text of a fact (record.h).
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/fs.h"
#include "record.h"

void pf_record_skip(struct pf_record *rec, const char *what, int err)
{
	rec->skip(rec, what, strerror(-err));
}

bool pf_record_answer(struct pf_record *rec, const char *rel, int r)
{
	if (r >= 0)
		return true;
	if (r != -ENOSYS && (r != -ENOENT || pf_fs_is_live(rec->ctx->fs)))
		pf_record_skip(rec, rel, r);
	return false;
}

FILE *pf_record_text(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (!f)
		abort();
	return f;
}

int pf_record_put_text(struct pf_record *rec, const char *rel, const char *text)
{
	return rec->put(rec, rel, text, strlen(text));
}
