// SPDX-License-Identifier: MIT
/*
 * util.c - allocation that aborts on out-of-memory, small string helpers, and
 * the message of a check parameter that fails validate() (check.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/macro.h"

_Noreturn void pf_bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "preflight: BUG at %s:%d: %s\n", file, line, cond);
	abort();
}

_Noreturn void pf_oom(void)
{
	fputs("preflight: out of memory\n", stderr);
	abort();
}

static void *oom(void)
{
	pf_oom();
}

void *pf_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	return p ? p : oom();
}

void *pf_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	return p ? p : oom();
}

void *pf_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	return p ? p : oom();
}

void *pf_xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return oom();
	return pf_xrealloc(p, n * size);
}

char *pf_xstrdup(const char *s)
{
	char *p = strdup(s);

	return p ? p : oom();
}

char *pf_xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? oom() : s;
}

int pf_param_invalid(char **ret_err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(ret_err, fmt, ap) < 0)
		*ret_err = NULL;
	va_end(ap);
	return -EINVAL;
}

bool pf_list_has(const char *list, const char *item)
{
	size_t ilen = strlen(item);
	const char *p = list;

	if (!list)
		return false;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *s = p, *e = p + len;

		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if ((size_t)(e - s) == ilen && !memcmp(s, item, ilen))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}
