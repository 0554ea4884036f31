/* SPDX-License-Identifier: MIT */
/*
 * macro.h - cleanup attributes, ownership transfer and small helpers.
 *
 * Every resource-owning local is declared with one of the pf_auto* helpers so
 * that each error path releases it without a goto ladder.
 */
#ifndef PREFLIGHT_MACRO_H
#define PREFLIGHT_MACRO_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PF_CLEANUP(fn) __attribute__((cleanup(fn)))
#define PF_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define PF_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void pf_freep(void *p)
{
	free(*(void **)p);
}

static inline void pf_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void pf_fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void pf_closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define pf_autofree PF_CLEANUP(pf_freep)
#define pf_autoclose PF_CLEANUP(pf_closep)
#define pf_autofclose PF_CLEANUP(pf_fclosep)
#define pf_autoclosedir PF_CLEANUP(pf_closedirp)

/* Define pf_<name>p(type *) that calls fn on a non-NULL handle. */
#define PF_DEFINE_AUTO(name, type, fn)                 \
	static inline void pf_##name##p(type *p)       \
	{                                              \
		if (*p)                                \
			fn(*p);                        \
	}

/* Hand ownership of a cleanup-managed pointer or fd out of its scope. */
#define PF_TAKE_PTR(p)                      \
	({                                  \
		__typeof__(p) pf_tmp_ = (p); \
		(p) = NULL;                 \
		pf_tmp_;                    \
	})
#define PF_TAKE_FD(fd)              \
	({                          \
		int pf_tmp_ = (fd); \
		(fd) = -1;          \
		pf_tmp_;            \
	})

/* Return -errno for a libc call that returned -1. */
static inline int pf_nerrno(int r)
{
	return r < 0 ? -errno : r;
}

/*
 * Invariants of our own code, never data from the system.  @cond is a test
 * only: no call, assignment, ++ or -- in it (do the work in a statement of
 * its own and test the result), so that reading the line never hides what it
 * does, and the check could be compiled out without changing the program.
 * tests/arch/bug_on.py (ctest arch_bug_on) fails on a use that has one.  It
 * is evaluated exactly once.
 */
_Noreturn void pf_bug(const char *file, int line, const char *cond);
#define PF_BUG_ON(cond)                                                       \
	do {                                                                  \
		if (__builtin_expect(!!(cond), 0))                            \
			pf_bug(__FILE__, __LINE__, #cond);                    \
	} while (0)

/* Allocation that cannot fail: preflight aborts on out-of-memory (pf_oom()). */
_Noreturn void pf_oom(void);
void *pf_xmalloc(size_t n);
void *pf_xcalloc(size_t n, size_t size);
void *pf_xrealloc(void *p, size_t n);
/* pf_xrealloc of @n elements of @size bytes; aborts when n * size overflows. */
void *pf_xreallocarray(void *p, size_t n, size_t size);
char *pf_xstrdup(const char *s);
char *pf_xasprintf(const char *fmt, ...) PF_PRINTF(1, 2);

#endif
