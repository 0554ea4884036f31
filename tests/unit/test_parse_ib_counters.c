// SPDX-License-Identifier: MIT
/*
 * test_parse_ib_counters.c - counter files and the arithmetic of two
 * samples (increase, wrap, saturation, reset) that port_errors judges a
 * live window with.
 */
#include <errno.h>

#include "preflight/parse.h"
#include "testutil.h"

static void test_parse_counter(void **state)
{
	uint64_t v = 7;

	assert_int_equal(pf_parse_ib_counter("0\n", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pf_parse_ib_counter("65535\n", &v), 0);
	assert_int_equal(v, 65535);
	assert_int_equal(pf_parse_ib_counter("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(pf_parse_ib_counter("N/A (no PMA)\n", &v), -EOPNOTSUPP);
	assert_int_equal(pf_parse_ib_counter("", &v), -EINVAL);
	assert_int_equal(pf_parse_ib_counter("-1", &v), -EINVAL);
	assert_int_equal(pf_parse_ib_counter("0x10", &v), -EINVAL);
	assert_int_equal(pf_parse_ib_counter("12 apples", &v), -EINVAL);
	assert_int_equal(pf_parse_ib_counter("garbage", &v), -EINVAL);
	assert_int_equal(pf_parse_ib_counter("18446744073709551616", &v), -ERANGE);
	assert_int_equal(pf_parse_ib_counter(NULL, &v), -EINVAL);
}

static void test_increase(void **state)
{
	struct pf_counter_delta d;

	assert_int_equal(pf_counter_delta(10, 10, 16, true, &d), 0);
	assert_true(d.delta == 0 && !d.saturated && !d.wrapped && !d.reset);
	assert_int_equal(pf_counter_delta(10, 13, 16, true, &d), 0);
	assert_true(d.delta == 3 && !d.saturated);
	assert_int_equal(pf_counter_delta(100, 250, 32, false, &d), 0);
	assert_true(d.delta == 150 && !d.wrapped);
}

static void test_wrap_32(void **state)
{
	struct pf_counter_delta d;

	/* a 32-bit Q counter passes 2^32 - 1 during the window */
	assert_int_equal(pf_counter_delta(UINT32_MAX - 4, 5, 32, false, &d), 0);
	assert_true(d.wrapped && !d.reset);
	assert_int_equal(d.delta, 10);
	assert_int_equal(pf_counter_delta(UINT32_MAX, 0, 32, false, &d), 0);
	assert_int_equal(d.delta, 1);
	/* an 8-bit wrapping counter */
	assert_int_equal(pf_counter_delta(250, 4, 8, false, &d), 0);
	assert_int_equal(d.delta, 10);
	/* a 64-bit counter never wraps in practice: going back is a reset */
	assert_int_equal(pf_counter_delta(1000, 7, 64, false, &d), 0);
	assert_true(d.reset && !d.wrapped);
	assert_int_equal(d.delta, 7);
}

static void test_saturation(void **state)
{
	struct pf_counter_delta d;

	/* a 16-bit PMA counter that reached its maximum during the window */
	assert_int_equal(pf_counter_delta(65530, 65535, 16, true, &d), 0);
	assert_true(d.saturated);
	assert_int_equal(d.delta, 5);
	/* stuck at the maximum: no visible change, but saturated */
	assert_int_equal(pf_counter_delta(65535, 65535, 16, true, &d), 0);
	assert_true(d.saturated);
	assert_int_equal(d.delta, 0);
	/* a 4-bit counter (local_link_integrity_errors) saturates at 15 */
	assert_int_equal(pf_counter_delta(3, 15, 4, true, &d), 0);
	assert_true(d.saturated);
	assert_int_equal(d.delta, 12);
	/* the maximum of a wrapping counter is not saturation */
	assert_int_equal(pf_counter_delta(1, UINT32_MAX, 32, false, &d), 0);
	assert_false(d.saturated);
}

static void test_reset(void **state)
{
	struct pf_counter_delta d;

	/* a saturating counter only goes back when someone clears it */
	assert_int_equal(pf_counter_delta(65535, 2, 16, true, &d), 0);
	assert_true(d.reset && !d.wrapped && !d.saturated);
	assert_int_equal(d.delta, 2);
	assert_int_equal(pf_counter_delta(40, 0, 8, true, &d), 0);
	assert_true(d.reset);
	assert_int_equal(d.delta, 0);
}

static void test_bad_input(void **state)
{
	struct pf_counter_delta d;

	assert_int_equal(pf_counter_delta(0, 1, 0, true, &d), -EINVAL);
	assert_int_equal(pf_counter_delta(0, 1, 65, true, &d), -EINVAL);
	/* a value wider than the declared width */
	assert_int_equal(pf_counter_delta(0, 70000, 16, true, &d), -ERANGE);
	assert_int_equal(pf_counter_delta(300, 1, 8, false, &d), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_counter),
		cmocka_unit_test(test_increase),
		cmocka_unit_test(test_wrap_32),
		cmocka_unit_test(test_saturation),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
