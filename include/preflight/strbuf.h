/* SPDX-License-Identifier: MIT */
/*
 * strbuf.h - a growing string, and a growing array.
 *
 * A strbuf is always NUL-terminated and never truncates: text built from a
 * node's devices (a list of 32 rails, a path of 8 bridges) has no length a
 * fixed buffer could promise.  Initialise with PF_STRBUF_INIT;
 * .buf is "" until something is added.  Allocation failure aborts, as
 * everywhere in preflight.
 *
 *	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;
 *	for (...)
 *		pf_strbuf_addf(pf_strbuf_sep(&sb, ", "), "%s", name);
 *	pf_add(res, PF_STATUS_FAIL, "rails", "missing: %s", sb.buf);
 */
#ifndef PREFLIGHT_STRBUF_H
#define PREFLIGHT_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "preflight/macro.h"

struct pf_strbuf {
	char *buf;    /* "" when nothing was added; NUL-terminated */
	size_t len;   /* bytes before the NUL */
	size_t alloc; /* bytes allocated, 0 while buf is the shared "" */
};

extern char pf_strbuf_empty[];
#define PF_STRBUF_INIT { .buf = pf_strbuf_empty }

void pf_strbuf_grow(struct pf_strbuf *sb, size_t extra);
struct pf_strbuf *pf_strbuf_add(struct pf_strbuf *sb, const char *s, size_t len);
struct pf_strbuf *pf_strbuf_adds(struct pf_strbuf *sb, const char *s);
struct pf_strbuf *pf_strbuf_addch(struct pf_strbuf *sb, char c);
struct pf_strbuf *pf_strbuf_addf(struct pf_strbuf *sb, const char *fmt, ...) PF_PRINTF(2, 3);
struct pf_strbuf *pf_strbuf_vaddf(struct pf_strbuf *sb, const char *fmt, va_list ap)
	PF_PRINTF(2, 0);
/* Add @sep unless @sb is empty: the separator of a list; returns @sb. */
struct pf_strbuf *pf_strbuf_sep(struct pf_strbuf *sb, const char *sep);
/*
 * One item of a ", "-separated list that shows at most @max items: the
 * (@max + 1)th adds ", ..." and later ones nothing.  *@n counts every item
 * offered, shown or not.
 */
struct pf_strbuf *pf_strbuf_item(struct pf_strbuf *sb, size_t *n, size_t max, const char *fmt,
				 ...) PF_PRINTF(4, 5);
/* Back to length @len (<= len). */
void pf_strbuf_setlen(struct pf_strbuf *sb, size_t len);
/* The string, malloc'd, and @sb empty again; the caller frees. */
char *pf_strbuf_detach(struct pf_strbuf *sb);
void pf_strbuf_release(struct pf_strbuf *sb);

static inline void pf_strbuf_releasep(struct pf_strbuf *sb)
{
	pf_strbuf_release(sb);
}
#define pf_autostrbuf PF_CLEANUP(pf_strbuf_releasep)

/*
 * Make room for one more element at index @n of the array @arr of capacity
 * @alloc (both lvalues, updated): doubles from 8.  The new slot is not
 * initialised.
 *
 *	PF_GROW(v, n, alloc);
 *	v[n++] = x;
 */
#define PF_GROW(arr, n, alloc)                                                    \
	do {                                                                      \
		if ((n) >= (alloc)) {                                             \
			(alloc) = (alloc) ? 2 * (alloc) : 8;                      \
			if ((alloc) <= (n))                                       \
				(alloc) = (n) + 1;                                \
			(arr) = pf_xreallocarray((arr), (alloc), sizeof(*(arr))); \
		}                                                                 \
	} while (0)

#endif
