/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - shared helpers of the libFuzzer targets (tests/fuzz/fuzz_*.c).
 *
 * Each target defines LLVMFuzzerTestOneInput(); it is linked either with
 * libFuzzer (-DPF_FUZZ=ON, clang) or with replay_main.c, which feeds it the
 * seed corpus as an ordinary ctest test under any compiler.
 */
#ifndef PF_FUZZ_H
#define PF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the parser promises; abort (a finding for libFuzzer) when broken. */
#define PF_FUZZ_ASSERT(cond)                                                              \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "%s:%d: fuzz property broken: %s\n", __FILE__,   \
				__LINE__, #cond);                                         \
			abort();                                                          \
		}                                                                         \
	} while (0)

/* The input as a NUL-terminated string (stops at an embedded NUL, as C parsers do). */
static inline char *pf_fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A heap copy of exactly @size bytes, so ASan sees every over-read. */
static inline uint8_t *pf_fuzz_dup(const uint8_t *data, size_t size)
{
	uint8_t *p = calloc(1, size ? size : 1);

	if (!p)
		abort();
	if (size)
		memcpy(p, data, size);
	return p;
}

/* True if @s is NUL-terminated within @len bytes. */
static inline int pf_fuzz_terminated(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

#endif
