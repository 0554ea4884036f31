// SPDX-License-Identifier: MIT
/*
 * test_pairs_ring.c - fabric_loopback's rounds and slow-end rule
 * (src/pairs/ring.c): the ring rounds of 2, 3 and 8 ends (every end sends
 * and receives once a round, no flow to itself); an explicit pair lands in
 * the first round where its sender sends nothing and its receiver receives
 * nothing; an end slow with two partners fine elsewhere is named, one slow
 * partner or partners slow everywhere are not; failed flows count for
 * nothing.
 */
#include <string.h>

#include "preflight/pairs.h"
#include "testutil.h"

static void test_ring(void **state)
{
	struct pf_pair_flow f[16];

	(void)state;
	/* two ends: round 1 only, both ways */
	assert_int_equal(pf_pairs_ring(2, f), 2);
	assert_true(f[0].a == 0 && f[0].b == 1 && f[0].round == 1);
	assert_true(f[1].a == 1 && f[1].b == 0 && f[1].round == 1);
	for (size_t n = 3; n <= 8; n += 5) {
		size_t k = pf_pairs_ring(n, f);

		assert_int_equal(k, 2 * n);
		for (int round = 1; round <= 2; round++) {
			unsigned sends[8] = { 0 }, recvs[8] = { 0 };

			for (size_t i = 0; i < k; i++) {
				if (f[i].round != round)
					continue;
				assert_true(f[i].a != f[i].b && f[i].a < n && f[i].b < n);
				assert_int_equal(f[i].b, (f[i].a + (size_t)round) % n);
				sends[f[i].a]++;
				recvs[f[i].b]++;
			}
			for (size_t e = 0; e < n; e++)
				assert_true(sends[e] == 1 && recvs[e] == 1);
		}
	}
}

static void test_free_round(void **state)
{
	const struct pf_pair_flow f[] = {
		{ .a = 0, .b = 1, .round = 1 }, { .a = 1, .b = 0, .round = 1 },
		{ .a = 0, .b = 2, .round = 2 },
	};

	(void)state;
	assert_int_equal(pf_pairs_free_round(f, 0, 0, 1), 1);
	assert_int_equal(pf_pairs_free_round(f, 3, 2, 3), 1); /* both ends free */
	assert_int_equal(pf_pairs_free_round(f, 3, 0, 3), 3); /* 0 sends in 1 and 2 */
	assert_int_equal(pf_pairs_free_round(f, 3, 2, 1), 2); /* 1 receives in round 1 */
	assert_int_equal(pf_pairs_free_round(f, 3, 1, 2), 3); /* 1 sends in 1, 2 receives in 2 */
	assert_int_equal(pf_pairs_free_round(f, 3, 2, 0), 2); /* 0 receives in round 1 only */
}

/* Four ends in a ring of rounds 1 and 2; @slow_end's flows slow (SIZE_MAX none). */
static size_t four(struct pf_pair_flow *f, size_t slow_end, bool all_slow)
{
	size_t n = pf_pairs_ring(4, f);

	for (size_t i = 0; i < n; i++) {
		f[i].measured = true;
		f[i].slow = all_slow || f[i].a == slow_end || f[i].b == slow_end;
	}
	return n;
}

static void test_slow_end(void **state)
{
	struct pf_pair_flow f[8];
	size_t out[5], n, n_slow;

	(void)state;
	n = four(f, 2, false);
	assert_true(pf_pairs_slow_end(f, n, 4, 2, &n_slow));
	assert_int_equal(n_slow, 3); /* 1, 3 (ring 1) and 0 (ring 2) */
	for (size_t x = 0; x < 4; x++)
		if (x != 2)
			assert_false(pf_pairs_slow_end(f, n, 4, x, NULL));
	assert_int_equal(pf_pairs_partners(f, n, 0, false, out), 3);
	assert_int_equal(pf_pairs_partners(f, n, 0, true, out), 1);
	assert_int_equal(out[0], 2);
	assert_true(pf_pairs_fine_elsewhere(f, n, 0, 2));
	assert_false(pf_pairs_fine_elsewhere(f, n, 2, 0));

	/* every flow slow: nobody is fine elsewhere, nobody is named */
	n = four(f, SIZE_MAX, true);
	for (size_t x = 0; x < 4; x++)
		assert_false(pf_pairs_slow_end(f, n, 4, x, NULL));

	/* one slow flow: the pair, not an end */
	n = four(f, SIZE_MAX, false);
	f[0].slow = true;
	assert_false(pf_pairs_slow_end(f, n, 4, f[0].a, &n_slow));
	assert_int_equal(n_slow, 1);

	/* the slow end's flows failed instead: not measured, nothing to judge */
	n = four(f, 2, false);
	for (size_t i = 0; i < n; i++)
		if (f[i].slow)
			f[i].measured = f[i].slow = false;
	assert_false(pf_pairs_slow_end(f, n, 4, 2, &n_slow));
	assert_int_equal(n_slow, 0);
	assert_int_equal(pf_pairs_partners(f, n, 2, false, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_free_round),
		cmocka_unit_test(test_slow_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
