// SPDX-License-Identifier: MIT
/*
 * strmap.c - string -> uint32_t hash table with linear probing; the table
 * doubles at half load, so lookups stay O(1) on average.
 */
#include <string.h>

#include "preflight/macro.h"
#include "strmap.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

bool pf_strmap_get(const struct pf_strmap *m, const char *key, uint32_t *ret)
{
	if (!m->cap)
		return false;
	for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return false;
		if (!strcmp(m->keys[i], key)) {
			*ret = m->vals[i];
			return true;
		}
	}
}

static void insert_owned(struct pf_strmap *m, char *key, uint32_t val)
{
	size_t i = hash_str(key) & (m->cap - 1);

	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->vals[i] = val;
	m->n++;
}

void pf_strmap_put(struct pf_strmap *m, const char *key, uint32_t val)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct pf_strmap big = { .cap = m->cap ? m->cap * 2 : 64 };

		big.keys = pf_xcalloc(big.cap, sizeof(*big.keys));
		big.vals = pf_xcalloc(big.cap, sizeof(*big.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i])
				insert_owned(&big, m->keys[i], m->vals[i]);
		free(m->keys);
		free(m->vals);
		*m = big;
	}
	for (size_t i = hash_str(key) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
		if (!strcmp(m->keys[i], key)) {
			m->vals[i] = val;
			return;
		}
	insert_owned(m, pf_xstrdup(key), val);
}

void pf_strmap_release(struct pf_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	*m = (struct pf_strmap){ 0 };
}
