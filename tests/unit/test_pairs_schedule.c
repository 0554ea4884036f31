// SPDX-License-Identifier: MIT
/*
 * test_pairs_schedule.c - the rounds of `preflight mesh` (src/pairs/schedule.c):
 * the tournament covers every pair exactly once in size-1 (even) or size
 * (odd, one bye each) rounds; the bounded schedule of a large allocation has
 * at most 9 rounds and 6 partners a rank whatever the size, never a pair
 * twice, every rank in a pair; every round of both is disjoint; the seed
 * decides the random ring and the same seed gives the same rounds.
 */
#include <errno.h>
#include <string.h>

#include "preflight/pairs.h"
#include "testutil.h"

/* Every round disjoint, pairs ordered and in range; counts per pair and rank. */
static void check_rounds(const struct pf_mesh_schedule *s, uint32_t size, uint8_t *pair_count,
			 uint32_t *partners)
{
	uint8_t *in_round = calloc(size, 1);

	assert_non_null(in_round);
	for (size_t r = 0; r < s->n_rounds; r++) {
		memset(in_round, 0, size);
		assert_true(s->rounds[r].n > 0);
		for (size_t i = 0; i < s->rounds[r].n; i++) {
			const struct pf_mesh_pair *p = &s->rounds[r].pairs[i];

			assert_true(p->a < p->b && p->b < size);
			assert_false(in_round[p->a] || in_round[p->b]);
			in_round[p->a] = in_round[p->b] = 1;
			if (pair_count)
				pair_count[(size_t)p->a * size + p->b]++;
			partners[p->a]++;
			partners[p->b]++;
		}
	}
	free(in_round);
}

static void test_tournament(void **state)
{
	(void)state;
	for (uint32_t n = 2; n <= 17; n++) {
		struct pf_mesh_schedule s;
		uint8_t *count = calloc((size_t)n * n, 1);
		uint32_t *partners = calloc(n, sizeof(*partners));

		assert_int_equal(pf_mesh_schedule_build(n, PF_MESH_EXHAUSTIVE_MAX + 1, 1, &s), 0);
		assert_true(s.exhaustive);
		assert_int_equal(s.n_rounds, n % 2 ? n : n - 1);
		check_rounds(&s, n, count, partners);
		for (uint32_t a = 0; a < n; a++) {
			assert_int_equal(partners[a], n - 1);
			for (uint32_t b = a + 1; b < n; b++)
				assert_int_equal(count[(size_t)a * n + b], 1);
		}
		/* an even size leaves nobody out of any round */
		for (size_t r = 0; r < s.n_rounds; r++)
			assert_int_equal(s.rounds[r].n, n / 2);
		pf_mesh_schedule_release(&s);
		free(count);
		free(partners);
	}
}

static void test_bounded(void **state)
{
	static const uint32_t sizes[] = { 17, 18, 33, 100, 1001, 4096, 65536 };

	(void)state;
	for (size_t k = 0; k < PF_ARRAY_SIZE(sizes); k++) {
		uint32_t n = sizes[k];
		struct pf_mesh_schedule s;
		uint32_t *partners = calloc(n, sizeof(*partners));
		uint8_t *count = n <= 4096 ? calloc((size_t)n * n, 1) : NULL;

		assert_int_equal(pf_mesh_schedule_build(n, PF_MESH_EXHAUSTIVE_MAX, 42, &s), 0);
		assert_false(s.exhaustive);
		assert_true(s.n_rounds <= 9);
		check_rounds(&s, n, count, partners);
		for (uint32_t a = 0; a < n; a++) {
			/* at least its two ring neighbours, at most 6 partners */
			assert_true(partners[a] >= 2 && partners[a] <= 6);
			for (uint32_t b = a + 1; count && b < n; b++)
				assert_true(count[(size_t)a * n + b] <= 1);
		}
		pf_mesh_schedule_release(&s);
		free(partners);
		free(count);
	}
}

static bool same(const struct pf_mesh_schedule *x, const struct pf_mesh_schedule *y)
{
	if (x->n_rounds != y->n_rounds)
		return false;
	for (size_t r = 0; r < x->n_rounds; r++)
		if (x->rounds[r].n != y->rounds[r].n ||
		    memcmp(x->rounds[r].pairs, y->rounds[r].pairs,
			   x->rounds[r].n * sizeof(struct pf_mesh_pair)))
			return false;
	return true;
}

static void test_seed(void **state)
{
	struct pf_mesh_schedule a, b, c;

	(void)state;
	assert_int_equal(pf_mesh_schedule_build(200, 16, 7, &a), 0);
	assert_int_equal(pf_mesh_schedule_build(200, 16, 7, &b), 0);
	assert_int_equal(pf_mesh_schedule_build(200, 16, 8, &c), 0);
	assert_true(same(&a, &b));
	assert_false(same(&a, &c));
	pf_mesh_schedule_release(&a);
	pf_mesh_schedule_release(&b);
	pf_mesh_schedule_release(&c);
}

static void test_invalid(void **state)
{
	struct pf_mesh_schedule s;

	(void)state;
	assert_int_equal(pf_mesh_schedule_build(0, 16, 1, &s), -EINVAL);
	assert_int_equal(pf_mesh_schedule_build(1, 16, 1, &s), -EINVAL);
	assert_int_equal(pf_mesh_schedule_build(65537, 16, 1, &s), -EINVAL);
	assert_int_equal(s.n_rounds, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tournament),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
