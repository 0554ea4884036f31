/* SPDX-License-Identifier: MIT */
/*
 * strmap.h - a string -> uint32_t hash table (open addressing, FNV-1a).
 *
 * Used where a lookup per input item must stay O(1): the fleet view's
 * interned check names and series, the snapshot's cache of mirrored paths.
 * Keys are copied; a zeroed struct is an empty map.
 */
#ifndef PREFLIGHT_STRMAP_H
#define PREFLIGHT_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pf_strmap {
	char **keys;
	uint32_t *vals;
	size_t cap, n;
};

/* True and *ret when @key is present. */
bool pf_strmap_get(const struct pf_strmap *m, const char *key, uint32_t *ret);
/* Insert @key (copied) or replace its value. */
void pf_strmap_put(struct pf_strmap *m, const char *key, uint32_t val);
/* Free the keys and tables; the map is empty again. */
void pf_strmap_release(struct pf_strmap *m);

#endif
