// SPDX-License-Identifier: MIT
/*
 * test_mstconfig.c - the firmware NV configuration fact: the query table of
 * mstconfig/mlxconfig (built here with the printf formats of mstflint's
 * mlxconfig/mlxcfg_ui.cpp, v4.21 as Debian 12 ships it and the current
 * 56-column layout), the runner's deadline and exit handling, and the real
 * mstconfig where it is installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preflight/parse.h"
#include "preflight/providers.h"
#include "testutil.h"

/* mstflint 4.21: printOpening, printConfHeader and printSingleParam with -e. */
static char *table_4_21(const char *mark, const char *def, const char *cur, const char *next)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fprintf(f, "\nDevice #1:\n----------\n\n");
	fprintf(f, "%-16s%-16s\n", "Device type:", "ConnectX6DX");
	fprintf(f, "%-16s%-16s\n", "Name:", "MCX623106AN-CDA_Ax");
	fprintf(f, "%-16s%-16s\n", "Description:", "ConnectX-6 Dx EN adapter card; 100GbE; Dual-port "
		"QSFP56; PCIe 4.0/3.0 x16;");
	fprintf(f, "%-16s%-16s\n", "Device:", "0000:17:00.0");
	fprintf(f, "\n%-16s%36s%16s%18s\n", "Configurations:", "Default", "Current", "Next Boot");
	fprintf(f, "%s        %-36s%-16s%-16s%-16s\n", mark, "ROCE_CC_PRIO_MASK_P1", def, cur, next);
	fprintf(f, "         %-36s%-16s%-16s%-16s\n", "ROCE_CC_PRIO_MASK_P2", "255", "255", "255");
	if (*mark == '*')
		fprintf(f, "The '*' shows parameters with next value different from default/current "
			"value.\n");
	fclose(f);
	return out;
}

/* The current layout: "%s%s     %-48s" (diff, RO), values in 56-column-aligned fields. */
static const char table_now[] =
	"\nDevice #1:\n----------\n\n"
	"Device type:        ConnectX7           \n"
	"Name:               MCX755106AS-HEA_Ax  \n"
	"Description:        NVIDIA ConnectX-7 HHHL Adapter Card; 200GbE (default mode) / NDR200 "
	"IB; Dual-port QSFP112; PCIe 5.0 x16 with x16 PCIe extension option; Crypto Disabled; "
	"Secure Boot Enabled\n"
	"Device:             0000:5e:00.1        \n\n"
	"Configurations:                                         Default           "
	"Current           Next Boot\n"
	"*        ROCE_CC_PRIO_MASK_P2                            255               "
	"0x8(8)            0xff(255)        \n"
	"         ROCE_CONTROL                                    ROCE_ENABLE(2)    "
	"ROCE_ENABLE(2)    ROCE_ENABLE(2)   \n"
	" RO      CNP_DSCP_P2                                     48                "
	"48                48               \n"
	"*RO      LAG_RESOURCE_ALLOCATION                         False(0)          "
	"True(1)           N/A              \n"
	"The '*' shows parameters with next value different from default/current value.\n"
	"\nThe 'RO' shows parameters which are for read only and cannot be changed\n";

static void test_parse_4_21(void **state)
{
	pf_autofree char *on = table_4_21(" ", "255", "255", "255");
	pf_autofree char *off = table_4_21("*", "255", "0", "255");
	struct pf_nv_value v;

	assert_int_equal(pf_parse_mlxconfig_query(on, "ROCE_CC_PRIO_MASK_P1", &v), 0);
	assert_true(v.has_default && v.has_current && v.has_next);
	assert_int_equal(v.def, 255);
	assert_int_equal(v.cur, 255);
	assert_int_equal(v.next, 255);
	assert_int_equal(pf_parse_mlxconfig_query(off, "ROCE_CC_PRIO_MASK_P1", &v), 0);
	assert_int_equal(v.cur, 0);
	assert_int_equal(v.next, 255);
	assert_int_equal(pf_parse_mlxconfig_query(off, "ROCE_CC_PRIO_MASK_P2", &v), 0);
	assert_int_equal(v.cur, 255);
	/* a prefix of another name is not that name */
	assert_int_equal(pf_parse_mlxconfig_query(off, "ROCE_CC_PRIO_MASK_P", &v), -ENOENT);
}

static void test_parse_current_layout(void **state)
{
	struct pf_nv_value v;

	assert_int_equal(pf_parse_mlxconfig_query(table_now, "ROCE_CC_PRIO_MASK_P2", &v), 0);
	assert_int_equal(v.def, 255);
	assert_int_equal(v.cur, 8);    /* 0x8(8): bit 3 only */
	assert_int_equal(v.next, 255);
	assert_int_equal(pf_parse_mlxconfig_query(table_now, "ROCE_CONTROL", &v), 0);
	assert_int_equal(v.cur, 2);
	assert_int_equal(pf_parse_mlxconfig_query(table_now, "CNP_DSCP_P2", &v), 0);
	assert_int_equal(v.next, 48);
	assert_int_equal(pf_parse_mlxconfig_query(table_now, "LAG_RESOURCE_ALLOCATION", &v), 0);
	assert_true(v.has_current && !v.has_next); /* N/A */
	assert_int_equal(v.cur, 1);
	assert_int_equal(pf_parse_mlxconfig_query(table_now, "ROCE_CC_PRIO_MASK_P1", &v), -ENOENT);
}

/* Without -e, or firmware that cannot report default and current: Next Boot only. */
static void test_parse_next_only(void **state)
{
	static const char text[] =
		"Device Firmware does not support reading default and current configurations\n"
		"Configurations:                              Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1                0\n";
	struct pf_nv_value v;

	assert_int_equal(pf_parse_mlxconfig_query(text, "ROCE_CC_PRIO_MASK_P1", &v), 0);
	assert_false(v.has_default);
	assert_false(v.has_current);
	assert_true(v.has_next);
	assert_int_equal(v.next, 0);
}

static void test_parse_errors(void **state)
{
	struct pf_nv_value v;

	/* what the tool says when it cannot: no table at all */
	assert_int_equal(pf_parse_mlxconfig_query("-E- Failed to open the device\n",
						  "ROCE_CC_PRIO_MASK_P1", &v), -EINVAL);
	assert_int_equal(pf_parse_mlxconfig_query("", "ROCE_CC_PRIO_MASK_P1", &v), -EINVAL);
	/* a row short of a column, or a value that is no number */
	assert_int_equal(pf_parse_mlxconfig_query(
		"Configurations:   Default   Current   Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1   255   255\n", "ROCE_CC_PRIO_MASK_P1", &v), -EINVAL);
	assert_int_equal(pf_parse_mlxconfig_query(
		"Configurations:   Default   Current   Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1   255   lots   255\n", "ROCE_CC_PRIO_MASK_P1", &v),
		-EINVAL);
	assert_int_equal(pf_parse_mlxconfig_query(
		"Configurations:   Default   Current   Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1   255   0xzz   255\n", "ROCE_CC_PRIO_MASK_P1", &v),
		-EINVAL);
}

static void test_param_name(void **state)
{
	char buf[48];

	pf_roce_cc_param("0000:17:00.0", 1, 1, buf, sizeof(buf));
	assert_string_equal(buf, "ROCE_CC_PRIO_MASK_P1");
	pf_roce_cc_param("0000:17:00.1", 1, 1, buf, sizeof(buf));
	assert_string_equal(buf, "ROCE_CC_PRIO_MASK_P2");
	pf_roce_cc_param("0000:03:00.0", 2, 2, buf, sizeof(buf)); /* mlx4: two ports, one device */
	assert_string_equal(buf, "ROCE_CC_PRIO_MASK_P2");
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The runner: output, exit status, and the deadline that kills a hung tool. */
static void test_run(void **state)
{
	char *sh_ok[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo out; echo err >&2", NULL };
	char *sh_fail[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo '-E- nope'; exit 3",
			    NULL };
	char *sh_env[] = { (char *)"/bin/sh", (char *)"-c", (char *)"echo \"[$HOME]\"; read x; "
			   "echo \"[$x]\"", NULL };
	char *sh_hang[] = { (char *)"/bin/sh", (char *)"-c", (char *)"sleep 30 & sleep 30", NULL };
	char *text = NULL;
	double t0;

	assert_int_equal(pf_nv_run("/bin/sh", sh_ok, 2000, &text), 0);
	assert_non_null(strstr(text, "out\n"));
	assert_non_null(strstr(text, "err\n"));
	free(text);
	assert_int_equal(pf_nv_run("/bin/sh", sh_fail, 2000, &text), -EIO);
	assert_string_equal(text, "-E- nope\n");
	free(text);
	/* no inherited environment, stdin at EOF */
	assert_int_equal(pf_nv_run("/bin/sh", sh_env, 2000, &text), 0);
	assert_string_equal(text, "[]\n[]\n");
	free(text);
	text = NULL;
	t0 = now_ms();
	assert_int_equal(pf_nv_run("/bin/sh", sh_hang, 300, &text), -ETIMEDOUT);
	assert_true(now_ms() - t0 < 3000); /* the background sleep was killed too */
	assert_null(text);
	assert_int_equal(pf_nv_run("/nonexistent/tool", sh_ok, 2000, &text), -ENOEXEC);
	free(text);
}

/* A tool others may write is not run, even when named directly (issue 30). */
static void test_run_untrusted(void **state)
{
	char dir[] = "/tmp/pf-nvrun-XXXXXX";
	char *sh_ok[] = { (char *)"sh", (char *)"-c", (char *)"echo ran", NULL };
	char *text = NULL;
	pf_autofree char *tool = NULL;
	int in, out;
	char buf[65536];
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	tool = pf_xasprintf("%s/sh", dir);
	in = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	out = open(tool, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	assert_int_equal(chmod(tool, 0755), 0);
	if (geteuid() == 0) { /* a root-owned copy runs: the rule, not the place, decides */
		assert_int_equal(pf_nv_run(tool, sh_ok, 2000, &text), 0);
		assert_string_equal(text, "ran\n");
		free(text);
		text = NULL;
	}
	assert_int_equal(chmod(tool, 0777), 0);
	assert_int_equal(pf_nv_run(tool, sh_ok, 2000, &text), -EPERM);
	assert_null(text);
	unlink(tool);
	rmdir(dir);
}

/* An ask of one card for @name at @bdf. */
static struct pf_nv_ask ask1(const char *bdf, const char *name)
{
	struct pf_nv_ask a = { .n_names = 1 };

	snprintf(a.bdf, sizeof(a.bdf), "%s", bdf);
	snprintf(a.name_bdf[0], sizeof(a.name_bdf[0]), "%s", bdf);
	snprintf(a.names[0], sizeof(a.names[0]), "%s", name);
	return a;
}

/* The real tool (Debian's mstflint) on a function that is no Mellanox NIC. */
static void test_real_mstconfig(void **state)
{
	char path[64];
	struct pf_nv_ask a = ask1("0000:00:00.0", "ROCE_CC_PRIO_MASK_P1");

	if (pf_nv_tool_path(path, sizeof(path)) < 0) {
		print_message("skip: no mstconfig or mlxconfig installed (apt-get install mstflint)\n");
		skip();
	}
	assert_int_equal(pf_live_nv_query(NULL, &a, 1), 0);
	assert_int_equal(a.r, -EIO);
	assert_non_null(a.text);
	assert_non_null(strstr(a.text, "-E-"));
	pf_nv_asks_release(&a, 1);
	/* never an option or a path as the device */
	a = ask1("-h", "ROCE_CC_PRIO_MASK_P1");
	assert_int_equal(pf_live_nv_query(NULL, &a, 1), 0);
	assert_int_equal(a.r, -EINVAL);
	a = ask1("0000:00:00.0", "X;id");
	assert_int_equal(pf_live_nv_query(NULL, &a, 1), 0);
	assert_int_equal(a.r, -EINVAL);
}

/* A fake tool: a shell script under @dir that sleeps @secs and prints a table of its args. */
static char *fake_tool(const char *dir, const char *name, const char *body)
{
	char *path = pf_xasprintf("%s/%s", dir, name);

	pf_test_write(dir, name, body);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/*
 * Issue 31 item 7: one call per card, every name in it, the cards in
 * parallel under one deadline: 12 cards whose tool takes 3 s each answer
 * within the 15 s deadline pf_nv_deadline_ms(12) gives (one after another
 * they would take 36 s, past the check's 40 s with a fallback).
 */
static void test_parallel_cards(void **state)
{
	char *dir = pf_test_mkdtemp();
	char *tool = fake_tool(dir, "slowconfig",
			       "#!/bin/sh\nsleep 3\necho 'Configurations:   Default  Current  Next Boot'\n"
			       "shift 4\nfor n in \"$@\"; do echo \"        $n   255   255   255\"; done\n");
	const char *tools[] = { tool };
	struct pf_nv_ask asks[12];
	struct pf_nv_value v;
	double t0 = now_ms();

	for (int i = 0; i < 12; i++) {
		char bdf[16];

		snprintf(bdf, sizeof(bdf), "0000:%02x:00.0", 0x10 + i);
		asks[i] = ask1(bdf, "ROCE_CC_PRIO_MASK_P1");
		snprintf(asks[i].names[1], sizeof(asks[i].names[1]), "ROCE_CC_PRIO_MASK_P2");
		snprintf(asks[i].name_bdf[1], sizeof(asks[i].name_bdf[1]), "%s", bdf);
		asks[i].n_names = 2;
	}
	assert_true(pf_nv_deadline_ms(12) < 40000 - 4000);
	assert_int_equal(pf_nv_query_tools(tools, 1, asks, 12, pf_nv_deadline_ms(12)), 0);
	assert_true(now_ms() - t0 < 10000);
	for (int i = 0; i < 12; i++) {
		assert_int_equal(asks[i].r, 0);
		assert_int_equal(pf_parse_mlxconfig_query(asks[i].text, "ROCE_CC_PRIO_MASK_P2", &v), 0);
		assert_int_equal(v.cur, 255);
	}
	pf_nv_asks_release(asks, 12);
	free(tool);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * Issue 31 item 5: mlxconfig is tried after mstconfig failed, only on the
 * cards it failed on; when both fail the first tool's text leads.
 */
static void test_fallback_tool(void **state)
{
	char *dir = pf_test_mkdtemp();
	char *bad = fake_tool(dir, "mstconfig", "#!/bin/sh\necho '-E- Failed to open the device'\n"
					       "exit 1\n");
	char *good = fake_tool(dir, "mlxconfig", "#!/bin/sh\necho 'Configurations:  Next Boot'\n"
						"echo '    ROCE_CC_PRIO_MASK_P1   8'\n");
	char *worse = fake_tool(dir, "mlxconfig2", "#!/bin/sh\necho '-E- nope'\nexit 2\n");
	const char *tools[] = { bad, good }, *both_bad[] = { bad, worse };
	struct pf_nv_ask a = ask1("0000:17:00.0", "ROCE_CC_PRIO_MASK_P1");

	assert_int_equal(pf_nv_query_tools(tools, 2, &a, 1, 4000), 0);
	assert_int_equal(a.r, 0);
	pf_test_assert_contains(a.text, "ROCE_CC_PRIO_MASK_P1   8");
	pf_nv_asks_release(&a, 1);
	assert_int_equal(pf_nv_query_tools(both_bad, 2, &a, 1, 4000), 0);
	assert_int_equal(a.r, -EIO);
	assert_int_equal(strncmp(a.text, "-E- Failed to open the device\n-E- nope", 38), 0);
	pf_nv_asks_release(&a, 1);
	assert_int_equal(pf_nv_query_tools(tools, 0, &a, 1, 4000), -ENOPKG);
	free(bad), free(good), free(worse);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * The recorded side answers as the live one did: the tool's output (the
 * check judges whether it holds the value, live and recorded alike), the
 * tool's failure (<name>.failed), no tool installed (no-tool), or nothing
 * captured.
 */
static void test_recorded_answers(void **state)
{
	static const char *const bdf = "0000:17:00.0", *const p1 = "ROCE_CC_PRIO_MASK_P1";
	char *dir = pf_test_mkdtemp();
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx;
	struct pf_nv_ask a = ask1(bdf, p1);

	(void)state;
	assert_int_equal(pf_fs_open(dir, &fs), 0);
	ctx = (struct pf_ctx){ .fs = fs, .prov = &pf_providers_recorded };
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), 0);
	assert_int_equal(a.r, -ENOENT);
	pf_test_write(dir, "preflight/mstconfig/no-tool", "none\n");
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), -ENOPKG);
	assert_int_equal(a.r, -ENOPKG);
	pf_test_write(dir, "preflight/mstconfig/0000:17:00.0/ROCE_CC_PRIO_MASK_P1.failed",
		      "-E- Failed to open the device\n");
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), 0);
	assert_int_equal(a.r, -EIO);
	pf_test_assert_contains(a.text, "-E- Failed");
	pf_nv_asks_release(&a, 1);
	/* a hand capture of `mstconfig ... > file 2>&1` that failed: the text, as live */
	pf_test_write(dir, "preflight/mstconfig/0000:17:00.0/ROCE_CC_PRIO_MASK_P1",
		      "\nDevice #1:\n-E- Failed to query device: 0000:17:00.0\n");
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), 0);
	assert_int_equal(a.r, 0);
	pf_nv_asks_release(&a, 1);
	pf_test_write(dir, "preflight/mstconfig/0000:17:00.0/ROCE_CC_PRIO_MASK_P1",
		      "Configurations:                  Next Boot\n"
		      "        ROCE_CC_PRIO_MASK_P1    255\n");
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), 0);
	assert_int_equal(a.r, 0);
	pf_nv_asks_release(&a, 1);
	/* a second name not captured (an older snapshot of a LAG): that name alone */
	a.n_names = 2;
	snprintf(a.names[1], sizeof(a.names[1]), "ROCE_CC_PRIO_MASK_P2");
	snprintf(a.name_bdf[1], sizeof(a.name_bdf[1]), "%s", bdf);
	assert_int_equal(pf_recorded_nv_query(&ctx, &a, 1), 0);
	assert_int_equal(a.r, 0);
	assert_int_equal(a.name_r[0], 0);
	assert_int_equal(a.name_r[1], -ENOENT);
	pf_nv_asks_release(&a, 1);
	pf_fs_free(fs);
	pf_test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_4_21),
		cmocka_unit_test(test_parse_current_layout),
		cmocka_unit_test(test_parse_next_only),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_param_name),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_run_untrusted),
		cmocka_unit_test(test_recorded_answers),
		cmocka_unit_test(test_parallel_cards),
		cmocka_unit_test(test_fallback_tool),
		cmocka_unit_test(test_real_mstconfig),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
