// SPDX-License-Identifier: MIT
/*
 * test_slurm.c - the Slurm gate's pure parts: the drain reason (which check,
 * which subject, sanitising, the length bound), parsing `scontrol show node`
 * output, the node name (one plain name: never ALL, a hostlist or a pattern),
 * the one-node rule of `scontrol show node`, the rule for the program root
 * runs as scontrol, and running a program with a deadline.
 */
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hostlist.h"
#include "preflight/fs.h"
#include "slurm.h"
#include "testutil.h"

static const struct pf_check check_a = { .name = "memlock" };
static const struct pf_check check_b = { .name = "nic_link_speed" };

static void make_report(struct pf_report *r, struct pf_run runs[2], enum pf_status a,
			enum pf_status b, const char *b_message)
{
	memset(r, 0, sizeof(*r));
	memset(runs, 0, 2 * sizeof(runs[0]));
	runs[0].check = &check_a;
	runs[1].check = &check_b;
	pf_result_init(&runs[0].res);
	pf_result_init(&runs[1].res);
	pf_add(&runs[0].res, a, "process", "hard limit 64 KiB, expected unlimited");
	pf_add(&runs[1].res, PF_STATUS_PASS, "mlx5_0/1", "active at 400 Gb/s");
	pf_add(&runs[1].res, b, "mlx5_3/1", "%s", b_message);
	pf_result_finish(&runs[0].res);
	pf_result_finish(&runs[1].res);
	r->runs = runs;
	r->n_runs = 2;
}

static void release(struct pf_run runs[2])
{
	pf_result_release(&runs[0].res);
	pf_result_release(&runs[1].res);
}

static void test_reason_first_fail(void **state)
{
	struct pf_report r;
	struct pf_run runs[2];
	pf_autofree char *reason = NULL;

	/* memlock only errors, nic_link_speed fails: the fail is named */
	make_report(&r, runs, PF_STATUS_ERROR, PF_STATUS_FAIL, "active at 100 Gb/s");
	reason = pf_slurm_reason(&r, PF_SLURM_REASON_MAX);
	assert_string_equal(reason, "preflight: nic_link_speed: mlx5_3/1: active at 100 Gb/s");
	release(runs);
}

static void test_reason_error_and_pass(void **state)
{
	struct pf_report r;
	struct pf_run runs[2];
	pf_autofree char *reason = NULL;

	make_report(&r, runs, PF_STATUS_ERROR, PF_STATUS_WARN, "low");
	reason = pf_slurm_reason(&r, PF_SLURM_REASON_MAX);
	assert_string_equal(reason, "preflight: memlock: process: hard limit 64 KiB, expected "
				    "unlimited");
	release(runs);

	make_report(&r, runs, PF_STATUS_PASS, PF_STATUS_WARN, "low");
	assert_null(pf_slurm_reason(&r, PF_SLURM_REASON_MAX));
	release(runs);
}

/* Give the failing finding of each run a code and an action, as the runner does. */
static void code_fails(struct pf_run runs[2], enum pf_action a, enum pf_action b)
{
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < runs[i].res.n_findings; k++) {
			struct pf_finding *f = &runs[i].res.findings[k];

			if (f->status != PF_STATUS_FAIL && f->status != PF_STATUS_WARN)
				continue;
			pf_code(f, i ? 7 : 1);
			pf_code_resolve(f, runs[i].check->name, i ? b : a);
		}
}

static void test_reason_carries_code(void **state)
{
	struct pf_report r;
	struct pf_run runs[2];
	pf_autofree char *reason = NULL;

	make_report(&r, runs, PF_STATUS_PASS, PF_STATUS_FAIL, "DOWN");
	code_fails(runs, PF_ACTION_NONE, PF_ACTION_RESEAT_OR_REPLACE);
	reason = pf_slurm_reason(&r, PF_SLURM_REASON_MAX);
	assert_string_equal(reason, "preflight: nic_link_speed: PF-NIC-LINK-SPEED-007 mlx5_3/1: DOWN");
	release(runs);
}

/* --reboot-on: a reboot only where every finding that drains is a listed reboot code. */
static void test_reboot_fixes(void **state)
{
	struct pf_slurm_opts o = { .reboot_on = "PF-MEMLOCK-001,pf-nic-link-speed-007" };
	struct pf_report r;
	struct pf_run runs[2];

	/* both fails listed, both actions a reboot carries out */
	make_report(&r, runs, PF_STATUS_FAIL, PF_STATUS_FAIL, "DOWN");
	code_fails(runs, PF_ACTION_REBOOT, PF_ACTION_RELOAD_DRIVER);
	assert_true(pf_slurm_reboot_fixes(&r, &o));
	/* not asked for */
	o.reboot_on = NULL;
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	/* one fail not listed: the drain stays */
	o.reboot_on = "PF-NIC-LINK-SPEED-007";
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	/* a prefix of a code is not the code */
	o.reboot_on = "PF-MEMLOCK-00,PF-NIC-LINK-SPEED-007";
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	release(runs);

	/* listed, but its action is not one a reboot carries out */
	o.reboot_on = "PF-MEMLOCK-001,PF-NIC-LINK-SPEED-007";
	make_report(&r, runs, PF_STATUS_FAIL, PF_STATUS_FAIL, "DOWN");
	code_fails(runs, PF_ACTION_REBOOT, PF_ACTION_RESEAT_OR_REPLACE);
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	release(runs);

	/* a warn below drain_on does not count; with --drain-on warn it does */
	make_report(&r, runs, PF_STATUS_WARN, PF_STATUS_FAIL, "DOWN");
	code_fails(runs, PF_ACTION_CONTACT_VENDOR, PF_ACTION_REBOOT);
	o.reboot_on = "PF-NIC-LINK-SPEED-007";
	assert_true(pf_slurm_reboot_fixes(&r, &o));
	o.drain_on = PF_STATUS_WARN;
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	o.drain_on = PF_STATUS_PASS;
	release(runs);

	/* an uncoded fail (and an error with no finding) keeps the drain */
	make_report(&r, runs, PF_STATUS_PASS, PF_STATUS_FAIL, "DOWN");
	assert_false(pf_slurm_reboot_fixes(&r, &o));
	release(runs);
}

static void test_reason_sanitised_and_bounded(void **state)
{
	struct pf_report r;
	struct pf_run runs[2];
	char msg[600];
	pf_autofree char *reason = NULL;

	snprintf(msg, sizeof(msg), "say \"no\"\n\tnow\x01\xff");
	for (size_t i = strlen(msg); i < sizeof(msg) - 3; i += 2)
		memcpy(msg + i, "\xc3\xa9", 3); /* e-acute, two bytes each */
	make_report(&r, runs, PF_STATUS_PASS, PF_STATUS_FAIL, msg);
	reason = pf_slurm_reason(&r, PF_SLURM_REASON_MAX);
	assert_true(strlen(reason) <= PF_SLURM_REASON_MAX);
	assert_true(strlen(reason) >= PF_SLURM_REASON_MAX - 4);
	{
		static const char head[] = "preflight: nic_link_speed: mlx5_3/1: say 'no' now ?\xc3\xa9";

		assert_memory_equal(reason, head, sizeof(head) - 1);
	}
	assert_string_equal(reason + strlen(reason) - 3, "...");
	assert_null(strpbrk(reason, "\n\t\"\x01"));
	/* cut on a character boundary: the byte before "..." ends an e-acute */
	assert_int_equal((unsigned char)reason[strlen(reason) - 4], 0xa9);
	release(runs);
}

static void test_sanitize(void **state)
{
	char a[] = "  two  spaces\r\nand\ttab  ";
	char b[] = "exactly ten";
	char c[] = "exactly eleven";

	pf_slurm_sanitize(a, 200);
	assert_string_equal(a, "two spaces and tab");
	pf_slurm_sanitize(b, 11);
	assert_string_equal(b, "exactly ten");
	pf_slurm_sanitize(c, 11);
	assert_string_equal(c, "exactly...");
}

static const char show_drained[] =
	"NodeName=gpu-047 Arch=x86_64 CoresPerSocket=1 \n"
	"   CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.18\n"
	"   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
	"   Partitions=pf \n"
	"   Reason=preflight: memlock: process: hard limit 64 KiB [root@2026-11-23T08:29:24]\n";

static void test_parse_node(void **state)
{
	pf_autofree char *st = NULL, *reason = NULL, *st2 = NULL, *r2 = NULL;

	assert_int_equal(pf_slurm_parse_node(show_drained, &st, &reason), 0);
	assert_string_equal(st, "IDLE+DRAIN");
	assert_string_equal(reason, "preflight: memlock: process: hard limit 64 KiB");
	assert_true(pf_slurm_state_drained(st));

	assert_int_equal(pf_slurm_parse_node("NodeName=n1 Arch=x86_64\n   State=IDLE Threads=1\n",
					     &st2, &r2), 0);
	assert_string_equal(st2, "IDLE");
	assert_null(r2);
	assert_false(pf_slurm_state_drained(st2));
	assert_true(pf_slurm_state_drained("DOWN*"));
	assert_true(pf_slurm_state_drained("MIXED+DRAIN"));
	assert_false(pf_slurm_state_drained(NULL));

	assert_int_equal(pf_slurm_parse_node("Node gpu-047 not found\n", NULL, NULL), -ENOENT);
}

static void test_parse_node_reason_keeps_brackets(void **state)
{
	pf_autofree char *reason = NULL, *r2 = NULL;

	/* an operator's reason with "State=" and brackets in it, no user@time suffix */
	assert_int_equal(pf_slurm_parse_node("NodeName=x State=DOWN\n"
					     "   Reason=bad State=FOO [ticket 12]\n",
					     NULL, &reason), 0);
	assert_string_equal(reason, "bad State=FOO [ticket 12]");
	assert_int_equal(pf_slurm_parse_node("NodeName=x State=DOWN\n   Reason=x [a@b] [root@t]\n",
					     NULL, &r2), 0);
	assert_string_equal(r2, "x [a@b]");
}

static void test_node_name(void **state)
{
	pf_autofree char *a = NULL, *b = NULL;

	setenv("SLURMD_NODENAME", "gpu-047", 1);
	assert_int_equal(pf_slurm_node_name(&a), 0);
	assert_string_equal(a, "gpu-047");
	assert_true(pf_slurm_detected());
	unsetenv("SLURMD_NODENAME");
	unsetenv("SLURM_JOB_ID");
	assert_false(pf_slurm_detected());
	assert_int_equal(pf_slurm_node_name(&b), 0);
	assert_null(strchr(b, '.'));
	assert_true(strlen(b) > 0);
}

/* One refused shape per case: each is ALL or would read as a set of nodes to scontrol. */
static void test_one_name_refuses_sets(void **state)
{
	static const char *const refused[] = {
		"ALL", "all", "All", "aLL",    /* scontrol: every node */
		"n[1-9]", "node[001-100]", "n[1,3]", "n]", "n[", /* hostlist ranges */
		"a,b", "n1,",                  /* a list */
		"n1 n2", "n1\tn2", " n1", "n1\n", /* blanks separate names */
		"n*", "n?", "^n1", "!n1", "~n1", "n=1", /* patterns, negation, key=value */
		"-n1", "--all", ".n1",         /* an option, a hidden name */
		"n1;reboot", "n1$x", "n1/2", "n1\"", "n\xc3\xa9", /* shell and non-ASCII bytes */
		"",
	};
	char longest[PF_NODE_NAME_MAX + 2];

	for (size_t i = 0; i < PF_ARRAY_SIZE(refused); i++) {
		if (pf_hostlist_one_name(refused[i]))
			fail_msg("'%s' passed as one node name", refused[i]);
	}
	memset(longest, 'n', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	assert_false(pf_hostlist_one_name(longest));
	longest[PF_NODE_NAME_MAX] = '\0';
	assert_true(pf_hostlist_one_name(longest));
}

/* Real node names still pass, ALL inside a longer name too. */
static void test_one_name_plain_passes(void **state)
{
	static const char *const plain[] = { "node-001", "gpu-a12.cluster.local", "dgx_07",
					     "n1", "ALLx", "ball", "gpu-047.cluster", "0" };

	for (size_t i = 0; i < PF_ARRAY_SIZE(plain); i++) {
		if (!pf_hostlist_one_name(plain[i]))
			fail_msg("'%s' refused", plain[i]);
	}
}

/* SLURMD_NODENAME=ALL (any case) is refused before anything runs. */
static void test_node_name_all(void **state)
{
	static const char *const bad[] = { "ALL", "all", "n[1-9]", "gpus,cpus" };

	for (size_t i = 0; i < PF_ARRAY_SIZE(bad); i++) {
		char *name = NULL;

		setenv("SLURMD_NODENAME", bad[i], 1);
		assert_int_equal(pf_slurm_node_name(&name), -EINVAL);
		assert_null(name);
	}
	unsetenv("SLURMD_NODENAME");
}

/* `scontrol show node NAME` must describe exactly the node NAME. */
static void test_one_node(void **state)
{
	char *why = NULL;

	assert_int_equal(pf_slurm_one_node(show_drained, "gpu-047", &why), 0);
	assert_null(why);
	assert_int_equal(pf_slurm_one_node("NodeName=n1 Arch=x86_64\n   State=IDLE\n", "n1", &why),
			 0);
	/* a NodeSet name: several nodes */
	assert_int_equal(pf_slurm_one_node("NodeName=n1 Arch=x86_64\n   State=IDLE\n\n"
					   "NodeName=n2 Arch=x86_64\n   State=IDLE\n", "gpus", &why),
			 -E2BIG);
	pf_test_assert_contains(why, "2 nodes");
	free(why);
	/* scontrol -o: one line per node */
	assert_int_equal(pf_slurm_one_node("NodeName=n1 State=IDLE\nNodeName=n1 State=IDLE\n", "n1",
					   &why), -E2BIG);
	free(why);
	/* another node (a prefix of the name, or the name a prefix of it) */
	assert_int_equal(pf_slurm_one_node("NodeName=n10 State=IDLE\n", "n1", &why), -ESRCH);
	pf_test_assert_contains(why, "'n10'");
	free(why);
	assert_int_equal(pf_slurm_one_node("NodeName=n1 State=IDLE\n", "n10", &why), -ESRCH);
	free(why);
	/* none */
	assert_int_equal(pf_slurm_one_node("Node ALL not found\n", "ALL", &why), -ENOENT);
	free(why);
	assert_int_equal(pf_slurm_one_node("", "n1", &why), -ENOENT);
	free(why);
	/* "NodeName=" inside another token is not a node */
	assert_int_equal(pf_slurm_one_node("NodeName=n1 Comment=xNodeName=n2\n", "n1", &why), 0);
}

/* pf_exec_trusted() with the resolved path asked for and dropped. */
static int exec_trusted(const char *path, char **ret_err)
{
	pf_autofree char *real = NULL;

	return pf_exec_trusted(path, &real, ret_err);
}

/* The program root runs as scontrol ($SCONTROL): root's alone, as each directory above it. */
static void test_scontrol_program_rule(void **state)
{
	pf_autofree char *dir = NULL, *sub = NULL, *prog = NULL, *why = NULL;

	if (geteuid() != 0)
		skip(); /* the files made here are not root's */
	dir = pf_xstrdup("/tmp/pfslurm.XXXXXX"); /* /tmp: root's and sticky, so allowed */
	assert_non_null(mkdtemp(dir));
	sub = pf_xasprintf("%s/bin", dir);
	prog = pf_xasprintf("%s/scontrol", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	pf_test_write(sub, "scontrol", "#!/bin/sh\nexit 0\n");
	assert_int_equal(chmod(prog, 0755), 0);
	assert_int_equal(exec_trusted(prog, &why), 0);
	assert_null(why);

	/* a world-writable program */
	assert_int_equal(chmod(prog, 0757), 0);
	assert_int_equal(exec_trusted(prog, &why), -EPERM);
	pf_test_assert_contains(why, "writable by everyone");
	free(why);
	why = NULL;
	assert_int_equal(chmod(prog, 0755), 0);

	/* a group-writable directory above it, not sticky */
	assert_int_equal(chmod(sub, 0775), 0);
	assert_int_equal(exec_trusted(prog, &why), -EPERM);
	pf_test_assert_contains(why, sub);
	free(why);
	why = NULL;
	/* the file alone (mstconfig's fixed directories) does not look above */
	assert_int_equal(pf_exec_trusted(prog, NULL, NULL), 0);
	assert_int_equal(chmod(sub, 0755), 0);

	/* owned by another user */
	assert_int_equal(chown(prog, 65534, 0), 0);
	assert_int_equal(exec_trusted(prog, &why), -EPERM);
	pf_test_assert_contains(why, "uid 65534");
	free(why);
	why = NULL;
	assert_int_equal(chown(prog, 0, 0), 0);

	/* not executable, relative, absent */
	assert_int_equal(chmod(prog, 0644), 0);
	assert_int_equal(exec_trusted(prog, NULL), -ENOENT);
	assert_int_equal(exec_trusted("scontrol", &why), -EINVAL);
	free(why);
	why = NULL;
	assert_int_equal(exec_trusted("/nonexistent/scontrol", NULL), -ENOENT);

	/* a link another user owns in a sticky directory: the program it names is what runs */
	{
		pf_autofree char *link = pf_xasprintf("%s/link", dir), *real = NULL;
		pf_autofree char *want = NULL;

		assert_int_equal(chmod(prog, 0755), 0);
		assert_int_equal(symlink(prog, link), 0);
		assert_int_equal(lchown(link, 65534, 65534), 0);
		assert_int_equal(pf_exec_trusted(link, &real, NULL), 0);
		want = realpath(prog, NULL);
		assert_string_equal(real, want);
	}
	pf_test_rmtree(dir);
}

static void test_exec(void **state)
{
	const char *const echo[] = { "sh", "-c", "echo 'a b'; echo c >&2; exit 3", NULL };
	const char *const slow[] = { "sleep", "10", NULL };
	const char *const missing[] = { "/nonexistent/scontrol", NULL };
	pf_autofree char *out = NULL;
	int status;

	assert_int_equal(pf_slurm_exec(echo, 5, &out, &status), 0);
	assert_string_equal(out, "a b\n");
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	assert_int_equal(pf_slurm_exec(slow, 1, NULL, &status), -ETIMEDOUT);
	assert_int_equal(pf_slurm_exec(missing, 5, NULL, &status), 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
}

/* The drain policy: which verdicts drain and which let --undrain resume, per drain_on. */
static void test_drain_policy(void **state)
{
	struct pf_slurm_opts o = { 0 };
	enum pf_status s;

	assert_int_equal(pf_slurm_drain_on(&o), PF_STATUS_FAIL); /* the default */
	assert_true(pf_slurm_drains(PF_STATUS_FAIL, &o));
	assert_false(pf_slurm_drains(PF_STATUS_ERROR, &o));
	assert_false(pf_slurm_drains(PF_STATUS_WARN, &o));
	assert_false(pf_slurm_resumes(PF_STATUS_ERROR, &o)); /* undecided is not healthy */
	assert_true(pf_slurm_resumes(PF_STATUS_WARN, &o));
	assert_true(pf_slurm_resumes(PF_STATUS_PASS, &o));
	assert_true(pf_slurm_resumes(PF_STATUS_SKIP, &o));

	assert_int_equal(pf_slurm_drain_on_from_name("error", &o.drain_on), 0);
	assert_true(pf_slurm_drains(PF_STATUS_FAIL, &o));
	assert_true(pf_slurm_drains(PF_STATUS_ERROR, &o));
	assert_false(pf_slurm_drains(PF_STATUS_WARN, &o));
	assert_true(pf_slurm_resumes(PF_STATUS_WARN, &o));

	assert_int_equal(pf_slurm_drain_on_from_name("warn", &o.drain_on), 0);
	assert_true(pf_slurm_drains(PF_STATUS_WARN, &o));
	assert_false(pf_slurm_drains(PF_STATUS_PASS, &o));
	assert_false(pf_slurm_drains(PF_STATUS_SKIP, &o));
	assert_false(pf_slurm_resumes(PF_STATUS_WARN, &o));
	assert_true(pf_slurm_resumes(PF_STATUS_PASS, &o));

	assert_int_equal(pf_slurm_drain_on_from_name("pass", &s), -EINVAL);
	assert_int_equal(pf_slurm_drain_on_from_name("skip", &s), -EINVAL);
	assert_int_equal(pf_slurm_drain_on_from_name("FAIL", &s), -EINVAL);
	assert_int_equal(pf_slurm_drain_on_from_name("fail", &s), 0);
	assert_int_equal(s, PF_STATUS_FAIL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_first_fail),
		cmocka_unit_test(test_reason_error_and_pass),
		cmocka_unit_test(test_reason_sanitised_and_bounded),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_parse_node),
		cmocka_unit_test(test_parse_node_reason_keeps_brackets),
		cmocka_unit_test(test_node_name),
		cmocka_unit_test(test_one_name_refuses_sets),
		cmocka_unit_test(test_one_name_plain_passes),
		cmocka_unit_test(test_node_name_all),
		cmocka_unit_test(test_one_node),
		cmocka_unit_test(test_scontrol_program_rule),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_drain_policy),
		cmocka_unit_test(test_reason_carries_code),
		cmocka_unit_test(test_reboot_fixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
