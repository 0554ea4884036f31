// SPDX-License-Identifier: MIT
/*
 * ring.c - the rounds and the slow-end rule of flows between the ends of
 * one node (include/preflight/pairs.h), as checks/fabric_loopback.c plans
 * and judges its rails: ring rounds, explicit pairs placed in the first
 * round where both ends are free, and an end named as slow only when two
 * partners that are fine with others agree.
 */
#include <stdlib.h>

#include "preflight/macro.h"
#include "preflight/pairs.h"

size_t pf_pairs_ring(size_t n, struct pf_pair_flow *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		out[k++] = (struct pf_pair_flow){ .a = i, .b = (i + 1) % n, .round = 1 };
	if (n > 2)
		for (size_t i = 0; i < n; i++)
			out[k++] = (struct pf_pair_flow){ .a = i, .b = (i + 2) % n, .round = 2 };
	return k;
}

int pf_pairs_free_round(const struct pf_pair_flow *f, size_t n, size_t a, size_t b)
{
	for (int round = 1;; round++) {
		bool busy = false;

		for (size_t i = 0; i < n; i++)
			busy |= f[i].round == round && (f[i].a == a || f[i].b == b);
		if (!busy)
			return round;
	}
}

size_t pf_pairs_partners(const struct pf_pair_flow *f, size_t n, size_t x, bool slow_only,
			 size_t *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t y;
		bool seen = false;

		if (!f[i].measured || (slow_only && !f[i].slow) || (f[i].a != x && f[i].b != x))
			continue;
		y = f[i].a == x ? f[i].b : f[i].a;
		for (size_t j = 0; j < k; j++)
			seen |= out[j] == y;
		if (!seen)
			out[k++] = y;
	}
	return k;
}

bool pf_pairs_fine_elsewhere(const struct pf_pair_flow *f, size_t n, size_t y, size_t x)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].measured && !f[i].slow && (f[i].a == y || f[i].b == y) && f[i].a != x &&
		    f[i].b != x)
			return true;
	return false;
}

bool pf_pairs_slow_end(const struct pf_pair_flow *f, size_t n, size_t n_ends, size_t x,
		       size_t *ret_n_slow)
{
	pf_autofree size_t *slow = pf_xcalloc(n_ends + 1, sizeof(*slow));
	size_t n_slow = pf_pairs_partners(f, n, x, true, slow), n_ok = 0;

	for (size_t k = 0; k < n_slow; k++)
		n_ok += pf_pairs_fine_elsewhere(f, n, slow[k], x);
	if (ret_n_slow)
		*ret_n_slow = n_slow;
	return n_slow >= 2 && n_ok >= 2;
}
