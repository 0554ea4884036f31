// SPDX-License-Identifier: MIT
/*
 * test_strbuf.c - the growing string and PF_GROW: never truncated, always
 * terminated, separators only between items, detach and release.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/strbuf.h"
#include "testutil.h"

static void test_empty(void **state)
{
	struct pf_strbuf sb = PF_STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	pf_strbuf_sep(&sb, ", ");
	assert_string_equal(sb.buf, ""); /* no separator before the first item */
	pf_strbuf_setlen(&sb, 0);
	s = pf_strbuf_detach(&sb);
	assert_string_equal(s, "");
	free(s);
	pf_strbuf_release(&sb);
	assert_string_equal(sb.buf, "");
}

static void test_list(void **state)
{
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;

	(void)state;
	for (int i = 0; i < 4; i++)
		pf_strbuf_addf(pf_strbuf_sep(&sb, ", "), "mlx5_%d", i);
	assert_string_equal(sb.buf, "mlx5_0, mlx5_1, mlx5_2, mlx5_3");
	assert_int_equal(sb.len, strlen(sb.buf));
	pf_strbuf_addch(pf_strbuf_adds(&sb, " ("), ')');
	assert_string_equal(sb.buf + sb.len - 3, " ()");
	pf_strbuf_setlen(&sb, 6);
	assert_string_equal(sb.buf, "mlx5_0");
	pf_strbuf_add(&sb, "xyz", 2);
	assert_string_equal(sb.buf, "mlx5_0xy");
}

/* Far past any fixed buffer the old appenders had (128..1024 bytes). */
static void test_long(void **state)
{
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;
	char *s;

	(void)state;
	for (int i = 0; i < 5000; i++)
		pf_strbuf_addf(pf_strbuf_sep(&sb, ","), "%04d", i);
	assert_int_equal(sb.len, 5000 * 4 + 4999);
	assert_int_equal(strlen(sb.buf), sb.len);
	assert_memory_equal(sb.buf, "0000,0001,", 10);
	assert_string_equal(sb.buf + sb.len - 4, "4999");
	assert_true(sb.alloc > sb.len);
	/* one format longer than the whole buffer so far */
	pf_strbuf_addf(&sb, "%*s|", 100000, "");
	assert_int_equal(sb.len, 5000 * 4 + 4999 + 100001);
	assert_int_equal(sb.buf[sb.len - 1], '|');
	s = pf_strbuf_detach(&sb);
	assert_int_equal(strlen(s), 5000 * 4 + 4999 + 100001);
	free(s);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb.buf, "");
}

static void test_grow(void **state)
{
	int *v = NULL;
	size_t n = 0, alloc = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		PF_GROW(v, n, alloc);
		v[n++] = i;
	}
	assert_int_equal(n, 1000);
	assert_true(alloc >= 1000);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(v[i], i);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
