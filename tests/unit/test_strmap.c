// SPDX-License-Identifier: MIT
/*
 * test_strmap.c - the string -> uint32_t table (src/core/strmap.c): an empty
 * map, insert and replace, keys copied, growth through several doublings with
 * every key still found and absent ones not, keys that probe past each other,
 * and release leaving a reusable empty map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "strmap.h"
#include "testutil.h"

static void test_empty(void **state)
{
	struct pf_strmap m = { 0 };
	uint32_t v = 7;

	(void)state;
	assert_false(pf_strmap_get(&m, "a", &v));
	assert_false(pf_strmap_get(&m, "", &v));
	assert_int_equal(v, 7); /* untouched on a miss */
	pf_strmap_release(&m);  /* releasing an empty map is fine */
	assert_int_equal(m.n, 0);
}

static void test_put_get_replace(void **state)
{
	struct pf_strmap m = { 0 };
	uint32_t v = 0;

	(void)state;
	pf_strmap_put(&m, "mlx5_0", 1);
	pf_strmap_put(&m, "mlx5_1", 2);
	pf_strmap_put(&m, "", 3); /* the empty string is a key like any other */
	assert_int_equal(m.n, 3);
	assert_true(pf_strmap_get(&m, "mlx5_0", &v));
	assert_int_equal(v, 1);
	assert_true(pf_strmap_get(&m, "mlx5_1", &v));
	assert_int_equal(v, 2);
	assert_true(pf_strmap_get(&m, "", &v));
	assert_int_equal(v, 3);
	assert_false(pf_strmap_get(&m, "mlx5_", &v));
	assert_false(pf_strmap_get(&m, "mlx5_00", &v));

	/* replacing keeps one entry */
	pf_strmap_put(&m, "mlx5_0", 0xffffffffu);
	assert_int_equal(m.n, 3);
	assert_true(pf_strmap_get(&m, "mlx5_0", &v));
	assert_int_equal(v, 0xffffffffu);
	pf_strmap_release(&m);
}

static void test_keys_copied(void **state)
{
	struct pf_strmap m = { 0 };
	char key[16] = "gpu-001";
	uint32_t v = 0;

	(void)state;
	pf_strmap_put(&m, key, 42);
	strcpy(key, "gpu-002"); /* the caller's buffer changes, the map does not */
	assert_false(pf_strmap_get(&m, "gpu-002", &v));
	assert_true(pf_strmap_get(&m, "gpu-001", &v));
	assert_int_equal(v, 42);
	pf_strmap_release(&m);
}

/* 20,000 keys: the table doubles from 64 slots many times and stays at most half full. */
static void test_growth(void **state)
{
	enum { N = 20000 };
	struct pf_strmap m = { 0 };
	char key[32];
	uint32_t v;

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "node%05u", i);
		pf_strmap_put(&m, key, i * 3);
		assert_true(m.n * 2 <= m.cap);
	}
	assert_int_equal(m.n, N);
	assert_true((m.cap & (m.cap - 1)) == 0); /* a power of two: the mask probing needs it */
	for (uint32_t i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "node%05u", i);
		v = 0;
		if (!pf_strmap_get(&m, key, &v) || v != i * 3)
			fail_msg("%s: %u, expected %u", key, v, i * 3);
	}
	for (uint32_t i = N; i < N + 1000; i++) {
		snprintf(key, sizeof(key), "node%05u", i);
		assert_false(pf_strmap_get(&m, key, &v));
	}
	/* every value replaced after growth: the count does not move */
	for (uint32_t i = 0; i < N; i += 7) {
		snprintf(key, sizeof(key), "node%05u", i);
		pf_strmap_put(&m, key, 1);
	}
	assert_int_equal(m.n, N);
	assert_true(pf_strmap_get(&m, "node00007", &v));
	assert_int_equal(v, 1);
	assert_true(pf_strmap_get(&m, "node00008", &v));
	assert_int_equal(v, 24);
	pf_strmap_release(&m);
}

/* Keys whose hashes land in the same slot of the first 64-slot table all stay reachable. */
static void test_collisions(void **state)
{
	struct pf_strmap m = { 0 }, probe = { 0 };
	char keys[8][32], key[32];
	size_t n = 0;
	uint32_t v;

	(void)state;
	/* find 8 keys that share slot 0 of a 64-slot table, by asking the map itself */
	pf_strmap_put(&probe, "x", 0);
	assert_int_equal(probe.cap, 64);
	for (unsigned int i = 0; n < PF_ARRAY_SIZE(keys) && i < 100000; i++) {
		size_t slot;

		snprintf(key, sizeof(key), "k%u", i);
		pf_strmap_release(&probe);
		pf_strmap_put(&probe, key, 0);
		for (slot = 0; slot < probe.cap && !probe.keys[slot]; slot++)
			;
		if (slot == 0)
			snprintf(keys[n++], sizeof(keys[0]), "%s", key);
	}
	pf_strmap_release(&probe);
	assert_int_equal(n, PF_ARRAY_SIZE(keys));
	for (size_t i = 0; i < n; i++)
		pf_strmap_put(&m, keys[i], (uint32_t)i + 100);
	assert_int_equal(m.cap, 64); /* no growth: the probes ran past each other */
	for (size_t i = 0; i < n; i++) {
		assert_true(pf_strmap_get(&m, keys[i], &v));
		assert_int_equal(v, i + 100);
	}
	/* a miss walks the run to its first empty slot and ends */
	assert_false(pf_strmap_get(&m, "not-there", &v));
	pf_strmap_release(&m);
}

static void test_release_reuse(void **state)
{
	struct pf_strmap m = { 0 };
	uint32_t v;

	(void)state;
	for (uint32_t i = 0; i < 100; i++) {
		char key[16];

		snprintf(key, sizeof(key), "%u", i);
		pf_strmap_put(&m, key, i);
	}
	pf_strmap_release(&m);
	assert_int_equal(m.n, 0);
	assert_int_equal(m.cap, 0);
	assert_null(m.keys);
	assert_false(pf_strmap_get(&m, "5", &v));
	pf_strmap_put(&m, "5", 55);
	assert_true(pf_strmap_get(&m, "5", &v));
	assert_int_equal(v, 55);
	assert_int_equal(m.n, 1);
	pf_strmap_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_put_get_replace),
		cmocka_unit_test(test_keys_copied),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_release_reuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
