// SPDX-License-Identifier: MIT
/*
 * test_hostlist.c - Slurm hostlist expansion (src/parse/hostlist.c): plain
 * names and separators, ranges with zero padding, several bracket groups in
 * one name (leftmost slowest, as Slurm's _push_range_list), text after the
 * last bracket, the bound checked before expansion, and each syntax error.
 */
#include <errno.h>
#include <string.h>

#include "hostlist.h"
#include "testutil.h"

static void expect(const char *text, const char *const *want, size_t n)
{
	pf_autohostlist struct pf_hostlist hl = { 0 };
	pf_autostrbuf struct pf_strbuf why = PF_STRBUF_INIT;
	int rc = pf_hostlist_expand(text, 0, &hl, &why);

	if (rc < 0)
		fail_msg("'%s': %d %s", text, rc, why.buf);
	assert_int_equal(rc, n);
	assert_int_equal(hl.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(hl.hosts[i], want[i]);
}

static void expect_err(const char *text, size_t max, int err, const char *in_why)
{
	pf_autohostlist struct pf_hostlist hl = { 0 };
	pf_autostrbuf struct pf_strbuf why = PF_STRBUF_INIT;

	assert_int_equal(pf_hostlist_expand(text, max, &hl, &why), err);
	assert_int_equal(hl.n, 0);
	assert_null(hl.hosts);
	if (!strstr(why.buf, in_why))
		fail_msg("'%s': why '%s' lacks '%s'", text, why.buf, in_why);
}

static void test_plain(void **state)
{
	(void)state;
	expect("node1", (const char *[]){ "node1" }, 1);
	expect("a,b c\td", (const char *[]){ "a", "b", "c", "d" }, 4);
	expect(" ,a,,b, ", (const char *[]){ "a", "b" }, 2);
	expect("", NULL, 0);
	expect("gpu.example.org", (const char *[]){ "gpu.example.org" }, 1);
}

static void test_ranges(void **state)
{
	(void)state;
	expect("n[1-3,7]", (const char *[]){ "n1", "n2", "n3", "n7" }, 4);
	expect("n[08-11]", (const char *[]){ "n08", "n09", "n10", "n11" }, 4);
	/* the width is lo's: "[1-10]" does not pad, "[001-010]" pads to 3 */
	expect("n[9-10]", (const char *[]){ "n9", "n10" }, 2);
	expect("n[5]", (const char *[]){ "n5" }, 1);
	expect("n[1-2],m[3]", (const char *[]){ "n1", "n2", "m3" }, 3);
}

static void test_suffix_and_groups(void **state)
{
	pf_autohostlist struct pf_hostlist hl = { 0 };

	(void)state;
	expect("gpu-[001-002]-ib", (const char *[]){ "gpu-001-ib", "gpu-002-ib" }, 2);
	expect("r[1-2]n[1-2]", (const char *[]){ "r1n1", "r1n2", "r2n1", "r2n2" }, 4);
	expect("r[1,3]-n[01-02].ib", (const char *[]){ "r1-n01.ib", "r1-n02.ib", "r3-n01.ib",
						     "r3-n02.ib" }, 4);
	expect("n[1-3,7],gpu-[001-010]-ib",
	       (const char *[]){ "n1", "n2", "n3", "n7", "gpu-001-ib", "gpu-002-ib", "gpu-003-ib",
				 "gpu-004-ib", "gpu-005-ib", "gpu-006-ib", "gpu-007-ib",
				 "gpu-008-ib", "gpu-009-ib", "gpu-010-ib" }, 14);
	assert_int_equal(pf_hostlist_expand("[0-1][0-1][0-1]", 0, &hl, NULL), 8);
	assert_string_equal(hl.hosts[0], "000");
	assert_string_equal(hl.hosts[7], "111");
}

static void test_bounds(void **state)
{
	pf_autohostlist struct pf_hostlist hl = { 0 };

	(void)state;
	assert_int_equal(pf_hostlist_expand("n[1-65536]", 0, &hl, NULL), 65536);
	assert_string_equal(hl.hosts[65535], "n65536");
	pf_hostlist_release(&hl);
	expect_err("n[1-65537]", 0, -E2BIG, "more than 65536");
	/* the product is refused before anything is expanded */
	expect_err("a[0-999999999]b[0-9]", 0, -E2BIG, "more than 65536 hosts: '0-999999999'");
	expect_err("a[1-300]b[1-300]", 0, -E2BIG, "past the limit");
	/* 65536^4 wraps a 64-bit count to 0: refused before the product is taken */
	expect_err("x[1-65536][1-65536][1-65536][1-65536]", 0, -E2BIG, "past the limit");
	expect_err("n[1-3],m[1-3]", 5, -E2BIG, "m[1-3]");
	assert_int_equal(pf_hostlist_expand("n[1-3],m[1-2]", 5, &hl, NULL), 5);
}

static void test_errors(void **state)
{
	char longname[300];

	(void)state;
	expect_err("n[1-3", 0, -EINVAL, "unmatched or nested '['");
	expect_err("n1-3]", 0, -EINVAL, "unmatched ']'");
	expect_err("n[1[2]]", 0, -EINVAL, "nested");
	expect_err("n[]", 0, -EINVAL, "bad range in a hostlist bracket: ''");
	expect_err("n[1,,2]", 0, -EINVAL, "bad range in a hostlist bracket: ''");
	expect_err("n[3-1]", 0, -EINVAL, "bracket: '3-1'");
	expect_err("n[-1]", 0, -EINVAL, "bracket: '-1'");
	expect_err("n[1--2]", 0, -EINVAL, "bad range");
	expect_err("n[a-b]", 0, -EINVAL, "bracket: 'a-b'");
	expect_err("n[1234567890]", 0, -EINVAL, "bad range");
	expect_err("good,b@d", 0, -EINVAL, "bad character");
	expect_err("n\x01", 0, -EINVAL, "bad character");
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_err(longname, 0, -E2BIG, "longer than a host name can be");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_suffix_and_groups),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
