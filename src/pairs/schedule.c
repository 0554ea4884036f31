// SPDX-License-Identifier: MIT
/*
 * schedule.c - rounds of disjoint node pairs for `preflight mesh`
 * (include/preflight/pairs.h): the circle method for small allocations, a bounded
 * set of ring patterns for large ones so the time per node stays flat.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/pairs.h"

#define MESH_SIZE_MAX 65536

static void *mesh_xrealloc(void *p, size_t n, size_t size)
{
	p = realloc(p, n * size);
	if (!p && n)
		abort();
	return p;
}

static struct pf_mesh_round *mesh_new_round(struct pf_mesh_schedule *s)
{
	s->rounds = mesh_xrealloc(s->rounds, s->n_rounds + 1, sizeof(*s->rounds));
	s->rounds[s->n_rounds] = (struct pf_mesh_round){ 0 };
	return &s->rounds[s->n_rounds++];
}

static void mesh_push(struct pf_mesh_round *r, uint32_t a, uint32_t b)
{
	r->pairs = mesh_xrealloc(r->pairs, r->n + 1, sizeof(*r->pairs));
	r->pairs[r->n++] = (struct pf_mesh_pair){ a < b ? a : b, a < b ? b : a };
}

/* Circle method: rank 0 stays, the others rotate; an odd size adds a bye. */
static void mesh_tournament(struct pf_mesh_schedule *s, uint32_t size)
{
	uint32_t m = size + (size & 1);

	for (uint32_t r = 0; r + 1 < m; r++) {
		struct pf_mesh_round *round = mesh_new_round(s);

		for (uint32_t i = 0; i < m / 2; i++) {
			uint32_t x = i == 0 ? 0 : 1 + (i - 1 + r) % (m - 1);
			uint32_t y = 1 + (m - 2 - i + r) % (m - 1);

			if (x < size && y < size) /* the pair with rank m-1 is the bye */
				mesh_push(round, x, y);
		}
	}
}

static uint64_t mesh_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * The edges ring[i] - ring[(i + step) % size] into at most 3 new rounds of
 * disjoint pairs (greedy colouring of a graph of degree <= 2), skipping a
 * pair some earlier pattern already has (@seen: each rank's partners so far,
 * MESH_DEG_MAX a rank).
 */
#define MESH_DEG_MAX 6

static bool mesh_seen(uint32_t *seen, uint8_t *deg, uint32_t a, uint32_t b)
{
	for (uint8_t i = 0; i < deg[a]; i++)
		if (seen[(size_t)a * MESH_DEG_MAX + i] == b)
			return true;
	seen[(size_t)a * MESH_DEG_MAX + deg[a]++] = b;
	seen[(size_t)b * MESH_DEG_MAX + deg[b]++] = a;
	return false;
}

static void mesh_pattern(struct pf_mesh_schedule *s, const uint32_t *ring, uint32_t size,
			 uint32_t step, uint32_t *seen, uint8_t *deg)
{
	size_t first = s->n_rounds;
	uint8_t *busy = calloc((size_t)size * 3, 1);

	if (!busy)
		abort();
	for (uint32_t i = 0; i < size; i++) {
		uint32_t a = ring[i], b = ring[(i + step) % size];
		size_t c = 0;

		if (a == b || mesh_seen(seen, deg, a, b))
			continue;
		while (busy[(size_t)a * 3 + c] || busy[(size_t)b * 3 + c])
			c++; /* < 3: a and b have at most 2 edges each in the pattern */
		busy[(size_t)a * 3 + c] = busy[(size_t)b * 3 + c] = 1;
		while (s->n_rounds <= first + c)
			mesh_new_round(s);
		mesh_push(&s->rounds[first + c], a, b);
	}
	free(busy);
}

static void mesh_bounded(struct pf_mesh_schedule *s, uint32_t size, uint64_t seed)
{
	uint32_t *ring = malloc(size * sizeof(*ring));
	uint32_t *seen = calloc((size_t)size * MESH_DEG_MAX, sizeof(*seen));
	uint8_t *deg = calloc(size, 1);

	if (!ring || !seen || !deg)
		abort();
	for (uint32_t i = 0; i < size; i++)
		ring[i] = i;
	mesh_pattern(s, ring, size, 1, seen, deg);
	mesh_pattern(s, ring, size, size / 2, seen, deg);
	for (uint32_t i = size - 1; i > 0; i--) { /* Fisher-Yates */
		uint32_t j = (uint32_t)(mesh_splitmix(&seed) % (i + 1)), t = ring[i];

		ring[i] = ring[j];
		ring[j] = t;
	}
	mesh_pattern(s, ring, size, 1, seen, deg);
	free(ring);
	free(seen);
	free(deg);
}

int pf_mesh_schedule_build(uint32_t size, uint32_t exhaustive_max, uint64_t seed,
			   struct pf_mesh_schedule *s)
{
	memset(s, 0, sizeof(*s));
	if (size < 2 || size > MESH_SIZE_MAX)
		return -EINVAL;
	s->size = size;
	s->exhaustive = size <= exhaustive_max;
	if (s->exhaustive)
		mesh_tournament(s, size);
	else
		mesh_bounded(s, size, seed);
	return 0;
}

void pf_mesh_schedule_release(struct pf_mesh_schedule *s)
{
	for (size_t i = 0; i < s->n_rounds; i++)
		free(s->rounds[i].pairs);
	free(s->rounds);
	memset(s, 0, sizeof(*s));
}
