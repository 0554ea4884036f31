// SPDX-License-Identifier: MIT
/*
 * test_parse_sysfs.c - the sysfs parsers: IB rate strings of every
 * generation, port state lines, cpulists, PCIe link speed and width, BDFs
 * and PCI device paths.
 */
#include <string.h>

#include "preflight/parse.h"
#include "testutil.h"

static void rate_ok(const char *text, double gbps, int width, const char *speed)
{
	struct pf_ib_rate r;

	assert_int_equal(pf_parse_ib_rate(text, &r), 0);
	assert_true(r.gbps == gbps);
	assert_int_equal(r.width, width);
	assert_string_equal(r.speed, speed);
}

static void rate_bad(const char *text)
{
	struct pf_ib_rate r = { .gbps = 7 };

	assert_int_equal(pf_parse_ib_rate(text, &r), -EINVAL);
	assert_true(r.gbps == 7); /* untouched */
}

static void test_ib_rate_generations(void **state)
{
	(void)state;
	rate_ok("2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR");
	rate_ok("10 Gb/sec (4X)\n", 10, 4, ""); /* old kernels: no name for SDR */
	rate_ok("10 Gb/sec (4X SDR)", 10, 4, "SDR");
	rate_ok("5 Gb/sec (1X DDR)", 5, 1, "DDR");
	rate_ok("20 Gb/sec (4X DDR)", 20, 4, "DDR");
	rate_ok("40 Gb/sec (4X QDR)\n", 40, 4, "QDR");
	rate_ok("120 Gb/sec (12X QDR)", 120, 12, "QDR");
	rate_ok("40 Gb/sec (4X FDR10)", 40, 4, "FDR10");
	rate_ok("14 Gb/sec (1X FDR)", 14, 1, "FDR");
	rate_ok("56 Gb/sec (4X FDR)", 56, 4, "FDR");
	rate_ok("25 Gb/sec (1X EDR)", 25, 1, "EDR");
	rate_ok("100 Gb/sec (4X EDR)", 100, 4, "EDR");
	rate_ok("200 Gb/sec (4X HDR)", 200, 4, "HDR");
	rate_ok("400 Gb/sec (8X HDR)", 400, 8, "HDR");
	rate_ok("200 Gb/sec (2X NDR)", 200, 2, "NDR");
	rate_ok("400 Gb/sec (4X NDR)\n", 400, 4, "NDR");
	rate_ok("800 Gb/sec (4X XDR)", 800, 4, "XDR");
	rate_ok("1600 Gb/sec (8X XDR)", 1600, 8, "XDR");
}

/* A rate another node sent: bounded, 0 when not believable. */
static void test_port_gbps(void **state)
{
	(void)state;
	assert_true(pf_parse_port_gbps("400 Gb/sec (4X NDR)") == 400);
	assert_true(pf_parse_port_gbps("200 Gb/sec (4X HDR)") == 200);
	assert_true(pf_parse_port_gbps(NULL) == 0);
	assert_true(pf_parse_port_gbps("fast") == 0);
	assert_true(pf_parse_port_gbps("999999 Gb/sec (4X NDR)") == 0);
}

static void test_ib_rate_bad(void **state)
{
	(void)state;
	rate_bad("Unknown");
	rate_bad("");
	rate_bad("Gb/sec (4X NDR)");
	rate_bad("400 Gb/sec");
	rate_bad("400 Gb/sec (4X NDR");
	rate_bad("400 Gb/sec (3X NDR)");     /* no such width */
	rate_bad("400 Gb/sec (4X ZZZ)");     /* no such speed */
	rate_bad("400 Gb/sec (4XNDR)");
	rate_bad("400 Gb/sec (4X NDR) junk");
	rate_bad("-400 Gb/sec (4X NDR)");
	rate_bad("0 Gb/sec (4X NDR)");
	rate_bad("nan Gb/sec (4X NDR)");
	rate_bad("400 Mb/sec (4X NDR)");
	assert_int_equal(pf_parse_ib_rate(NULL, &(struct pf_ib_rate){ 0 }), -EINVAL);
}

static void test_state_line(void **state)
{
	char name[32];
	int n = -1;

	(void)state;
	assert_int_equal(pf_parse_state_line("4: ACTIVE\n", &n, name, sizeof(name)), 0);
	assert_int_equal(n, 4);
	assert_string_equal(name, "ACTIVE");
	assert_int_equal(pf_parse_state_line("5: LinkUp", &n, name, sizeof(name)), 0);
	assert_int_equal(n, 5);
	assert_string_equal(name, "LinkUp");
	assert_int_equal(pf_parse_state_line("7: Phy Test\n", &n, name, sizeof(name)), 0);
	assert_string_equal(name, "Phy Test");
	assert_int_equal(pf_parse_state_line("1: DOWN", &n, name, sizeof(name)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(pf_parse_state_line("9: <unknown>", &n, name, sizeof(name)), 0);
	assert_string_equal(name, "<unknown>");

	assert_int_equal(pf_parse_state_line("ACTIVE", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(pf_parse_state_line("4:ACTIVE", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(pf_parse_state_line("4: ", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(pf_parse_state_line("", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(pf_parse_state_line("4: ACTIVE\n5: LinkUp", &n, name, sizeof(name)),
			 -EINVAL);
	assert_int_equal(pf_parse_state_line("99999: X", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(pf_parse_state_line("4: ACTIVE", &n, name, 4), -EINVAL); /* too long */
}

static void test_cpulist(void **state)
{
	uint64_t bits[PF_CPU_WORDS];

	(void)state;
	assert_int_equal(pf_parse_cpulist("0-3,8-11\n", bits), 8);
	assert_int_equal(bits[0], 0xf0fULL);
	assert_int_equal(pf_parse_cpulist("0,4,8,12,16,20,24,28,32,36", bits), 10);
	assert_true(bits[0] & (1ULL << 36));
	assert_int_equal(pf_parse_cpulist("", bits), 0);
	assert_int_equal(bits[0], 0);
	assert_int_equal(pf_parse_cpulist("\n", NULL), 0);
	assert_int_equal(pf_parse_cpulist("64-127", bits), 64);
	assert_int_equal(bits[0], 0);
	assert_int_equal(bits[1], UINT64_MAX);
	assert_int_equal(pf_parse_cpulist("0-3,2-5", bits), 6); /* overlaps counted once */
	assert_int_equal(pf_parse_cpulist("5", NULL), 1);

	assert_int_equal(pf_parse_cpulist("3-1", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("0-", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("a-b", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("0,,1", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("0,", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("0 1", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("ffffffff", bits), -EINVAL);
	assert_int_equal(pf_parse_cpulist("0-99999", bits), -ERANGE);

	assert_int_equal(pf_parse_cpulist_first("8-11,0-3"), 0);
	assert_int_equal(pf_parse_cpulist_first("40-79\n"), 40);
	assert_int_equal(pf_parse_cpulist_first(""), -ENOENT);
	assert_int_equal(pf_parse_cpulist_first("x"), -EINVAL);
}

static void test_pci_speed_width(void **state)
{
	double g = 0;
	int w = 0;

	(void)state;
	assert_int_equal(pf_parse_pci_speed("8 GT/s\n", &g), 0);
	assert_true(g == 8);
	assert_int_equal(pf_parse_pci_speed("16.0 GT/s PCIe\n", &g), 0);
	assert_true(g == 16);
	assert_int_equal(pf_parse_pci_speed("2.5 GT/s", &g), 0);
	assert_true(g == 2.5);
	assert_int_equal(pf_parse_pci_speed("32.0 GT/s PCIe", &g), 0);
	assert_int_equal(pf_pci_gen(g), 5);
	assert_int_equal(pf_pci_gen(2.5), 1);
	assert_int_equal(pf_pci_gen(8), 3);
	assert_int_equal(pf_pci_gen(64), 6);
	assert_int_equal(pf_pci_gen(7), 0);
	assert_int_equal(pf_parse_pci_speed("Unknown", &g), -EINVAL);
	assert_int_equal(pf_parse_pci_speed("Unknown speed", &g), -EINVAL);
	assert_int_equal(pf_parse_pci_speed("8 GT/s junk", &g), -EINVAL);
	assert_int_equal(pf_parse_pci_speed("", &g), -EINVAL);
	assert_int_equal(pf_parse_pci_speed("8", &g), -EINVAL);

	assert_int_equal(pf_parse_pci_width("16\n", &w), 0);
	assert_int_equal(w, 16);
	assert_int_equal(pf_parse_pci_width("x8", &w), 0);
	assert_int_equal(w, 8);
	assert_int_equal(pf_parse_pci_width("0", &w), -EINVAL);
	assert_int_equal(pf_parse_pci_width("64", &w), -EINVAL);
	assert_int_equal(pf_parse_pci_width("Unknown", &w), -EINVAL);
	assert_int_equal(pf_parse_pci_width("", &w), -EINVAL);
}

static void test_bdf(void **state)
{
	struct pf_pci_chain chain;
	char out[16];
	char bdfs[8][16], root[16];

	(void)state;
	assert_true(pf_is_bdf("0000:17:00.0"));
	assert_true(pf_is_bdf("0001:af:1f.7"));
	assert_false(pf_is_bdf("0000:17:00.8"));
	assert_false(pf_is_bdf("0000:1B:00.0"));  /* sysfs is lower-case */
	assert_false(pf_is_bdf("pci0000:16"));
	assert_false(pf_is_bdf("17:00.0"));
	assert_false(pf_is_bdf("0000:17:00.0/"));
	assert_false(pf_is_bdf(NULL));

	assert_int_equal(pf_bdf_normalize("0000:1B:00.0", out), 0);
	assert_string_equal(out, "0000:1b:00.0");
	assert_int_equal(pf_bdf_normalize("00000000:1B:00.0", out), 0); /* NVML */
	assert_string_equal(out, "0000:1b:00.0");
	assert_int_equal(pf_bdf_normalize("1b:00.1", out), 0);
	assert_string_equal(out, "0000:1b:00.1");
	assert_int_equal(pf_bdf_normalize("0001:02:03.4", out), 0);
	assert_string_equal(out, "0001:02:03.4");
	assert_int_equal(pf_bdf_normalize("0000:1b:20.0", out), -EINVAL);
	assert_int_equal(pf_bdf_normalize("0000:1b:00.0x", out), -EINVAL);
	assert_int_equal(pf_bdf_normalize("mlx5_0", out), -EINVAL);

	assert_int_equal(pf_pci_path_bdfs("/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/"
					  "0000:18:10.0/0000:1b:00.0", bdfs, 8, root), 4);
	assert_string_equal(root, "pci0000:16");
	assert_string_equal(bdfs[0], "0000:16:02.0");
	assert_string_equal(bdfs[3], "0000:1b:00.0");
	/* an RDMA device's own directory below the function stops the walk */
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/pci0001:40/0001:40:03.0/0001:43:00.0/"
					  "infiniband/qib0", bdfs, 8, root), 2);
	assert_string_equal(root, "pci0001:40");
	assert_string_equal(bdfs[1], "0001:43:00.0");
	/* more components than room: the count still says how many */
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/"
					  "0000:02:00.0", bdfs, 2, NULL), 3);
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/virtual/infiniband/scif0", bdfs, 8, root),
			 0);
	assert_string_equal(root, "");
	/* the one splitter: a VMD domain behind a device starts over (as NCCL sees it) */
	assert_int_equal(pf_pci_path_split("/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/"
					   "10000:e0:06.0/10000:e1:00.0", &chain), 0);
	assert_string_equal(chain.root, "pci10000:e0");
	assert_int_equal(chain.n, 2);
	assert_string_equal(chain.comp[1], "10000:e1:00.0");
	/* ... which the inventory, keeping 4-digit domains, does not follow (fuzz_bdf) */
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/"
					  "10000:e0:06.0/10000:e1:00.0", bdfs, 8, root), 0);
	assert_string_equal(root, "");
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/pci0000:00/0000:00:01.0/000000:02:08.0",
					  bdfs, 8, root), 0);
	/* Hyper-V: the vmbus components above the root are not the chain */
	assert_int_equal(pf_pci_path_bdfs("/sys/devices/LNXSYSTM:00/LNXSYBUS:00/ACPI0004:00/"
					  "VMBUS:00/7870a1b2-0001-0000-3130-444532304235/"
					  "pci7870:00/7870:00:00.0", bdfs, 8, root), 1);
	assert_string_equal(root, "pci7870:00");
	assert_string_equal(bdfs[0], "7870:00:00.0");
	/* a BDF without a root above it is no PCI path */
	assert_int_equal(pf_pci_path_bdfs("0000:17:00.0", bdfs, 8, root), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_rate_generations),
		cmocka_unit_test(test_ib_rate_bad),
		cmocka_unit_test(test_port_gbps),
		cmocka_unit_test(test_state_line),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_pci_speed_width),
		cmocka_unit_test(test_bdf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
