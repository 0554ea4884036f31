// SPDX-License-Identifier: MIT
/*
 * test_slurm.c - the Slurm gate's pure parts: the drain reason (which check,
 * which subject, sanitising, the length bound), parsing `scontrol show node`
 * output, the node name, and running a program with a deadline.
 */
#include <string.h>
#include <sys/wait.h>

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
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_drain_policy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
