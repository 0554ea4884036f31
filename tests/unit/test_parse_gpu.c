// SPDX-License-Identifier: MIT
/*
 * test_parse_gpu.c - the GPU text parsers (src/parse/parse_gpu.c): Xid lines
 * in the three log shapes (/dev/kmsg records, dmesg, journalctl) with their
 * times, lines that are not Xids or are malformed, the 4096-event cap, the
 * BDF match, /proc/driver/nvidia/version (proprietary and open), kernel
 * releases and dotted version comparison.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/parse.h"
#include "testutil.h"

static void test_xid_shapes(void **state)
{
	static const char log[] =
		"4,1234,5678901,-;NVRM: Xid (PCI:0000:1b:00): 79, pid=1234, name=python, "
		"GPU has fallen off the bus.\n"
		" SUBSYSTEM=pci\n"
		" DEVICE=+pci:0000:1b:00.0\n"
		"[ 5.678901] NVRM: Xid (PCI:0000:3B:00): 48, pid=0, "
		"An uncorrectable double bit error\n"
		"Nov 22 05:43:12 gpu-047 kernel: NVRM: Xid (PCI:0000:5b:00): 13, "
		"Graphics Exception\n"
		"[   12.000000] mlx5_core 0000:17:00.0: firmware version: 28.39.1002\n"
		"6,99;NVRM: Xid (0000:9b:00): 94, Contained: SM (0x1)\n";
	pf_autofree struct pf_xid *x = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(pf_parse_kmsg_xids(log, &x, &n), 4);
	assert_int_equal(n, 4);

	/* /dev/kmsg: microseconds since boot in the third field */
	assert_string_equal(x[0].pci, "0000:1b:00");
	assert_int_equal(x[0].xid, 79);
	assert_float_equal(x[0].t_s, 5.678901, 1e-9);
	assert_string_equal(x[0].text, "pid=1234, name=python, GPU has fallen off the bus.");

	/* dmesg: seconds in brackets; the address is lower-cased */
	assert_string_equal(x[1].pci, "0000:3b:00");
	assert_int_equal(x[1].xid, 48);
	assert_float_equal(x[1].t_s, 5.678901, 1e-9);
	assert_string_equal(x[1].text, "pid=0, An uncorrectable double bit error");

	/* journalctl: no boot-relative time */
	assert_string_equal(x[2].pci, "0000:5b:00");
	assert_int_equal(x[2].xid, 13);
	assert_true(x[2].t_s == -1);

	/* a kmsg record without a time field, and an address without "PCI:" */
	assert_string_equal(x[3].pci, "0000:9b:00");
	assert_int_equal(x[3].xid, 94);
	assert_true(x[3].t_s == -1);
	assert_string_equal(x[3].text, "Contained: SM (0x1)");
}

static void test_xid_malformed(void **state)
{
	static const char log[] = "NVRM: Xid (PCI:): 79, empty address\n"
				  "NVRM: Xid (PCI:0000:1b:00): , no number\n"
				  "NVRM: Xid (PCI:0000:1b:00): 100001, out of range\n"
				  "NVRM: Xid (PCI:0000:1b:00): 99999999999999999999999\n"
				  "NVRM: Xid (PCI:0000:1b:00 79, no closing parenthesis\n"
				  "NVRM: Xid (PCI:0000:0000:0000:1b:00): 79, address too long\n"
				  " NVRM: Xid (PCI:0000:1b:00): 79, a continuation line\n"
				  "NVRM: Xid (PCI:0000:1b:00): 100000\n";
	struct pf_xid *x = NULL;
	size_t n = 9;

	(void)state;
	/* only the last line is an event (100000 is the largest number kept) */
	assert_int_equal(pf_parse_kmsg_xids(log, &x, &n), 1);
	assert_int_equal(x[0].xid, 100000);
	assert_string_equal(x[0].text, "");
	free(x);

	/* no events: NULL and 0 */
	x = (struct pf_xid *)&n;
	assert_int_equal(pf_parse_kmsg_xids("[ 1.0] nothing here\n\n", &x, &n), 0);
	assert_null(x);
	assert_int_equal(n, 0);
	assert_int_equal(pf_parse_kmsg_xids("", &x, &n), 0);
	assert_null(x);
}

static void test_xid_limits(void **state)
{
	const size_t lines = 5000;
	pf_autofree char *log = pf_xcalloc(lines, 64);
	pf_autofree char *longline = NULL;
	pf_autofree struct pf_xid *x = NULL;
	struct pf_xid *y = NULL;
	char tail[300];
	size_t n = 0, off = 0;

	(void)state;
	for (size_t i = 0; i < lines; i++)
		off += (size_t)sprintf(log + off,
				       "[ %zu.0] NVRM: Xid (PCI:0000:1b:00): 31, n=%zu\n", i, i);
	/* at most 4096 events, the first ones */
	assert_int_equal(pf_parse_kmsg_xids(log, &x, &n), 4096);
	assert_string_equal(x[4095].text, "n=4095");
	assert_float_equal(x[4095].t_s, 4095.0, 1e-9);

	/* a long message is cut to the text field, terminated */
	memset(tail, 'a', sizeof(tail) - 1);
	tail[sizeof(tail) - 1] = '\0';
	longline = pf_xasprintf("NVRM: Xid (PCI:0000:1b:00): 8, %s", tail);
	assert_int_equal(pf_parse_kmsg_xids(longline, &y, &n), 1);
	assert_int_equal(strlen(y[0].text), sizeof(y[0].text) - 1);
	assert_int_equal(y[0].text[0], 'a');
	free(y);
}

static void test_xid_matches_bdf(void **state)
{
	(void)state;
	assert_true(pf_xid_matches_bdf("0000:1b:00", "0000:1b:00.0"));
	assert_true(pf_xid_matches_bdf("0000:1b:00", "0000:1b:00.1"));
	assert_true(pf_xid_matches_bdf("0000:1b:00", "0000:1b:00"));
	assert_true(pf_xid_matches_bdf("1b:00", "0000:1b:00.0")); /* no domain */
	assert_false(pf_xid_matches_bdf("0000:1b:00", "0000:1c:00.0"));
	assert_false(pf_xid_matches_bdf("0000:1b:0", "0000:1b:00.0")); /* a prefix is not a match */
	assert_false(pf_xid_matches_bdf("1b:00", "0001:1b:01.0"));
	assert_false(pf_xid_matches_bdf("", "0000:1b:00.0"));
}

static void test_xid_meaning(void **state)
{
	(void)state;
	assert_non_null(strstr(pf_xid_meaning(79), "fallen off the bus"));
	assert_non_null(strstr(pf_xid_meaning(48), "double-bit ECC"));
	assert_non_null(strstr(pf_xid_meaning(95), "uncontained"));
	assert_null(pf_xid_meaning(0));
	assert_null(pf_xid_meaning(1000));
}

static void test_kernel_release(void **state)
{
	int major = -1, minor = -1;

	(void)state;
	assert_int_equal(pf_parse_kernel_release("6.8.0-45-generic", &major, &minor), 0);
	assert_int_equal(major, 6);
	assert_int_equal(minor, 8);
	assert_int_equal(pf_parse_kernel_release("5.15\n", &major, &minor), 0);
	assert_int_equal(major, 5);
	assert_int_equal(minor, 15);
	/* errors leave the outputs alone */
	assert_int_equal(pf_parse_kernel_release("6", &major, &minor), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("6.", &major, &minor), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("v6.8", &major, &minor), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("-1.2", &major, &minor), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("6.1001", &major, &minor), -EINVAL);
	assert_int_equal(pf_parse_kernel_release("", &major, &minor), -EINVAL);
	assert_int_equal(major, 5);
	assert_int_equal(minor, 15);
}

static void test_nvidia_version(void **state)
{
	char v[24];
	bool open = true;

	(void)state;
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
						 "550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"
						 "GCC version:  gcc version 12.3.0\n",
						 v, sizeof(v), &open),
			 0);
	assert_string_equal(v, "550.54.15");
	assert_false(open);

	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX Open Kernel Module for "
						 "x86_64  550.127.05  Release Build  "
						 "(dvs-builder@U16-I3-B03-4-3)\n",
						 v, sizeof(v), &open),
			 0);
	assert_string_equal(v, "550.127.05");
	assert_true(open);

	/* a number without a dot is not the version; one glued to a word is not a token */
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX Kernel Module 2 "
						 "x86_64v1.2 535.104.05\n",
						 v, sizeof(v), &open),
			 0);
	assert_string_equal(v, "535.104.05");

	/* "550.54.15" needs 10 bytes */
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
						 "550.54.15\n",
						 v, 9, &open),
			 -ERANGE);
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
						 "550.54.15\n",
						 v, 10, &open),
			 0);
	assert_string_equal(v, "550.54.15");

	/* not that line, or no version on it (the next line does not count) */
	assert_int_equal(pf_parse_nvidia_version("GCC version: 12.3.0\n", v, sizeof(v), &open),
			 -EINVAL);
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64\n", v, sizeof(v),
						 &open),
			 -EINVAL);
	assert_int_equal(pf_parse_nvidia_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n"
						 "GCC version:  gcc version 12.3.0\n",
						 v, sizeof(v), &open),
			 -EINVAL);
}

static void test_version_cmp(void **state)
{
	(void)state;
	assert_true(pf_version_cmp("550.54.15", "550.127") < 0); /* numeric, not textual */
	assert_true(pf_version_cmp("550.127", "550.54.15") > 0);
	assert_true(pf_version_cmp("10", "9") > 0);
	assert_int_equal(pf_version_cmp("535.104.05", "535.104.5"), 0);
	assert_int_equal(pf_version_cmp("550", "550.0"), 0);
	assert_true(pf_version_cmp("550", "550.0.1") < 0);
	assert_int_equal(pf_version_cmp("", ""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xid_shapes),
		cmocka_unit_test(test_xid_malformed),
		cmocka_unit_test(test_xid_limits),
		cmocka_unit_test(test_xid_matches_bdf),
		cmocka_unit_test(test_xid_meaning),
		cmocka_unit_test(test_kernel_release),
		cmocka_unit_test(test_nvidia_version),
		cmocka_unit_test(test_version_cmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
