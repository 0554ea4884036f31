// SPDX-License-Identifier: MIT
/*
 * strbuf.c - a growing, always NUL-terminated string (preflight/strbuf.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/strbuf.h"

char pf_strbuf_empty[1];

void pf_strbuf_grow(struct pf_strbuf *sb, size_t extra)
{
	size_t want;

	if (!sb->buf)
		*sb = (struct pf_strbuf)PF_STRBUF_INIT;
	PF_BUG_ON(extra > SIZE_MAX - sb->len - 1);
	want = sb->len + extra + 1;
	if (want <= sb->alloc)
		return;
	if (want < 2 * sb->alloc)
		want = 2 * sb->alloc;
	if (want < 64)
		want = 64;
	if (!sb->alloc) {
		sb->buf = pf_xmalloc(want);
		sb->buf[0] = '\0';
	} else {
		sb->buf = pf_xrealloc(sb->buf, want);
	}
	sb->alloc = want;
}

struct pf_strbuf *pf_strbuf_add(struct pf_strbuf *sb, const char *s, size_t len)
{
	pf_strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, s, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return sb;
}

struct pf_strbuf *pf_strbuf_adds(struct pf_strbuf *sb, const char *s)
{
	return pf_strbuf_add(sb, s, strlen(s));
}

struct pf_strbuf *pf_strbuf_addch(struct pf_strbuf *sb, char c)
{
	return pf_strbuf_add(sb, &c, 1);
}

struct pf_strbuf *pf_strbuf_vaddf(struct pf_strbuf *sb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	pf_strbuf_grow(sb, 0);
	va_copy(again, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	PF_BUG_ON(n < 0);
	if ((size_t)n >= sb->alloc - sb->len) {
		pf_strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, again);
		PF_BUG_ON(n < 0 || (size_t)n >= sb->alloc - sb->len);
	}
	va_end(again);
	sb->len += (size_t)n;
	return sb;
}

struct pf_strbuf *pf_strbuf_addf(struct pf_strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pf_strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return sb;
}

struct pf_strbuf *pf_strbuf_sep(struct pf_strbuf *sb, const char *sep)
{
	if (sb->len)
		pf_strbuf_adds(sb, sep);
	return sb;
}

struct pf_strbuf *pf_strbuf_item(struct pf_strbuf *sb, size_t *n, size_t max, const char *fmt,
				 ...)
{
	va_list ap;

	if (++*n > max) {
		if (*n == max + 1)
			pf_strbuf_adds(sb, ", ...");
		return sb;
	}
	va_start(ap, fmt);
	pf_strbuf_vaddf(pf_strbuf_sep(sb, ", "), fmt, ap);
	va_end(ap);
	return sb;
}

void pf_strbuf_setlen(struct pf_strbuf *sb, size_t len)
{
	PF_BUG_ON(len > sb->len);
	if (!sb->alloc)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *pf_strbuf_detach(struct pf_strbuf *sb)
{
	char *s = sb->alloc ? sb->buf : pf_xstrdup("");

	*sb = (struct pf_strbuf)PF_STRBUF_INIT;
	return s;
}

void pf_strbuf_release(struct pf_strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	*sb = (struct pf_strbuf)PF_STRBUF_INIT;
}
