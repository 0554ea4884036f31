// SPDX-License-Identifier: MIT
/*
 * test_runner.c - isolation: a check that hangs, crashes, exits without a
 * result or fails to decide becomes an error result, the others are
 * unaffected, and every run ends with a finished result.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "runner.h"
#include "testutil.h"

static int touched; /* set by a check: visible here only without fork */

static int run_pass(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	touched = 1;
	pf_add(res, PF_STATUS_PASS, "thing", "fine");
	return 0;
}

static int run_sleep(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	struct timespec ts = { 30, 0 };

	while (nanosleep(&ts, &ts) < 0)
		;
	pf_add(res, PF_STATUS_PASS, NULL, "woke up");
	return 0;
}

static int run_segv(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	pf_add(res, PF_STATUS_PASS, NULL, "about to crash");
	raise(SIGSEGV);
	return 0;
}

static int run_abort(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	abort();
}

static int run_exit(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	_exit(0);
}

static int run_exit3(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	_exit(3);
}

static int run_eio(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	return -EIO;
}

static int run_fail_eio(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	pf_add(res, PF_STATUS_FAIL, "x", "bad");
	return -EIO;
}

static int run_noisy(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	printf("NOISE on stdout\n");
	fflush(stdout);
	pf_add(res, PF_STATUS_WARN, "noise", "printed something");
	return 0;
}

static int run_progress(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	for (int i = 1; i <= 3; i++)
		pf_progress(ctx, "pair %d/3", i);
	pf_add(res, PF_STATUS_PASS, "thing", "fine");
	return 0;
}

/* The child that ran it, as the finding's subject: which checks shared one. */
static int run_pid(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	pf_add(res, PF_STATUS_PASS, pid, "ran");
	return 0;
}

#define TCHECK(nm, fn, t) \
	{ .name = nm, .summary = "s", .reads = "r", .timeout_s = (t), .run = (fn) }
#define TCHECK_FLAGS(nm, fn, f) \
	{ .name = nm, .summary = "s", .reads = "r", .timeout_s = 5, .run = (fn), .flags = (f) }

static const struct pf_check c_pass = TCHECK("t_pass", run_pass, 5);
static const struct pf_check c_sleep = TCHECK("t_sleep", run_sleep, 1);
static const struct pf_check c_segv = TCHECK("t_segv", run_segv, 5);
static const struct pf_check c_abort = TCHECK("t_abort", run_abort, 5);
static const struct pf_check c_exit = TCHECK("t_exit", run_exit, 5);
static const struct pf_check c_exit3 = TCHECK("t_exit3", run_exit3, 5);
static const struct pf_check c_eio = TCHECK("t_eio", run_eio, 5);
static const struct pf_check c_fail_eio = TCHECK("t_fail_eio", run_fail_eio, 5);
static const struct pf_check c_noisy = TCHECK("t_noisy", run_noisy, 5);
static const struct pf_check c_progress = TCHECK("t_progress", run_progress, 7);
static const struct pf_check c_pid = TCHECK("t_pid", run_pid, 5);
static const struct pf_check c_pid_lib = TCHECK_FLAGS("t_pid_lib", run_pid, PF_CHECK_LOADS_LIBRARIES);
static const struct pf_check c_pid_traffic = TCHECK_FLAGS("t_pid_traffic", run_pid, PF_CHECK_TRAFFIC);
static const struct pf_check c_pid_node = TCHECK_FLAGS("t_pid_node", run_pid, PF_CHECK_NEEDS_NODE);

static void assert_finished(const struct pf_run *run)
{
	const struct pf_result *res = &run->res;

	assert_true(res->status < PF_STATUS_COUNT);
	assert_true(res->n_findings > 0);
	assert_non_null(res->summary);
	assert_true(run->duration_ms >= 0);
	for (size_t i = 0; i < res->n_findings; i++)
		assert_non_null(res->findings[i].message);
}

static void expect_error(const struct pf_run *run, const char *summary)
{
	assert_finished(run);
	assert_int_equal(run->res.status, PF_STATUS_ERROR);
	if (strcmp(run->res.summary, summary))
		fail_msg("%s: summary '%s', expected '%s'", run->check->name, run->res.summary,
			 summary);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void test_forked_runs(void **state)
{
	const struct pf_check *const checks[] = { &c_pass, &c_sleep, &c_segv, &c_abort,
						  &c_exit, &c_exit3, &c_eio, &c_fail_eio,
						  &c_noisy, &c_pass };
	struct pf_run runs[PF_ARRAY_SIZE(checks)] = { { 0 } };
	struct pf_runner_opts opts = { 0 };
	struct pf_ctx ctx = { 0 };
	char captured[256] = "";
	int saved, tmp;
	double t0, elapsed;

	for (size_t i = 0; i < PF_ARRAY_SIZE(checks); i++)
		runs[i].check = checks[i];

	/* stdout carries only the report: capture it around the run */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	tmp = open("/tmp", O_TMPFILE | O_RDWR, 0600);
	assert_true(saved >= 0 && tmp >= 0);
	dup2(tmp, STDOUT_FILENO);
	touched = 0;
	t0 = now_ms();
	pf_runner_run(&ctx, runs, PF_ARRAY_SIZE(runs), &opts);
	elapsed = now_ms() - t0;
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	assert_true(pread(tmp, captured, sizeof(captured) - 1, 0) >= 0);
	close(tmp);
	assert_null(strstr(captured, "NOISE"));

	/* the parent's memory is untouched by the children */
	assert_int_equal(touched, 0);

	for (size_t i = 0; i < PF_ARRAY_SIZE(runs); i++)
		assert_finished(&runs[i]);

	assert_int_equal(runs[0].res.status, PF_STATUS_PASS);
	assert_string_equal(runs[0].res.summary, "fine");
	assert_string_equal(runs[0].res.findings[0].subject, "thing");
	assert_int_equal(runs[0].timeout_s, 5);

	expect_error(&runs[1], "timed out after 1 s");
	assert_int_equal(runs[1].timeout_s, 1);
	assert_true(runs[1].duration_ms >= 990);
	assert_true(runs[1].duration_ms < 1800);

	expect_error(&runs[2], "crashed: SIGSEGV");
	expect_error(&runs[3], "crashed: SIGABRT");
	expect_error(&runs[4], "exited with status 0 without a result");
	expect_error(&runs[5], "exited with status 3 without a result");
	expect_error(&runs[6], "check could not decide: Input/output error");

	/* a fail stays a fail when run() also reports an error */
	assert_int_equal(runs[7].res.status, PF_STATUS_FAIL);
	assert_int_equal(runs[7].res.n_findings, 2);
	assert_int_equal(runs[7].res.findings[1].status, PF_STATUS_ERROR);

	assert_int_equal(runs[8].res.status, PF_STATUS_WARN);
	assert_int_equal(runs[9].res.status, PF_STATUS_PASS);

	/* only the hanging check costs time */
	assert_true(elapsed < 2500);

	for (size_t i = 0; i < PF_ARRAY_SIZE(runs); i++)
		pf_result_release(&runs[i].res);
}

static void test_timeout_override(void **state)
{
	struct pf_run runs[2] = { { .check = &c_pass }, { .check = &c_segv } };
	struct pf_runner_opts opts = { .timeout_s = 2 };
	struct pf_ctx ctx = { 0 };

	/* --timeout replaces every check's own deadline */
	pf_runner_run(&ctx, runs, 2, &opts);
	assert_int_equal(runs[0].timeout_s, 2);
	assert_int_equal(runs[1].timeout_s, 2);
	assert_int_equal(runs[0].res.status, PF_STATUS_PASS);
	assert_true(runs[0].duration_ms < 1000);
	expect_error(&runs[1], "crashed: SIGSEGV");
	pf_result_release(&runs[0].res);
	pf_result_release(&runs[1].res);
}

static void test_no_fork(void **state)
{
	struct pf_run runs[3] = { { .check = &c_pass }, { .check = &c_eio },
				  { .check = &c_fail_eio } };
	struct pf_runner_opts opts = { .no_fork = true };
	struct pf_ctx ctx = { 0 };

	touched = 0;
	pf_runner_run(&ctx, runs, 3, &opts);
	assert_int_equal(touched, 1);
	assert_int_equal(runs[0].res.status, PF_STATUS_PASS);
	expect_error(&runs[1], "check could not decide: Input/output error");
	assert_int_equal(runs[2].res.status, PF_STATUS_FAIL);
	for (size_t i = 0; i < 3; i++) {
		assert_finished(&runs[i]);
		pf_result_release(&runs[i].res);
	}
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static const char *pid_of(const struct pf_run *run)
{
	assert_int_equal(run->res.status, PF_STATUS_PASS);
	return run->res.findings[0].subject;
}

/*
 * The static checks share a child; a traffic check, and one that loads a
 * vendor library while the providers are live, get one of their own; a
 * check that broke its child (crash, hang) takes only itself: the ones after
 * it run in a new child.
 */
static void test_shared_child(void **state)
{
	const struct pf_check *const checks[] = { &c_pid, &c_pid, &c_pid_lib, &c_pid,
						  &c_pid_traffic, &c_pid, &c_segv, &c_pid,
						  &c_sleep, &c_pid, &c_pid };
	struct pf_run runs[PF_ARRAY_SIZE(checks)] = { { 0 } };
	struct pf_runner_opts opts = { .libraries_live = true };
	struct pf_ctx ctx = { 0 };
	char parent[24];

	(void)state;
	for (size_t i = 0; i < PF_ARRAY_SIZE(checks); i++)
		runs[i].check = checks[i];
	pf_runner_run(&ctx, runs, PF_ARRAY_SIZE(runs), &opts);
	snprintf(parent, sizeof(parent), "%ld", (long)getpid());
	assert_string_not_equal(pid_of(&runs[0]), parent);
	assert_string_equal(pid_of(&runs[0]), pid_of(&runs[1]));
	/* its own child, and the next stretch in a new shared one */
	assert_string_not_equal(pid_of(&runs[2]), pid_of(&runs[1]));
	assert_string_not_equal(pid_of(&runs[3]), pid_of(&runs[2]));
	assert_string_not_equal(pid_of(&runs[4]), pid_of(&runs[3]));
	assert_string_not_equal(pid_of(&runs[5]), pid_of(&runs[4]));
	/* the crash is the crashing check's alone */
	expect_error(&runs[6], "crashed: SIGSEGV");
	assert_string_not_equal(pid_of(&runs[7]), pid_of(&runs[5]));
	/* a hang: its own deadline, counted from when the check before it ended */
	expect_error(&runs[8], "timed out after 1 s");
	assert_true(runs[8].duration_ms >= 990 && runs[8].duration_ms < 1800);
	assert_string_not_equal(pid_of(&runs[9]), pid_of(&runs[7]));
	assert_string_equal(pid_of(&runs[9]), pid_of(&runs[10]));
	for (size_t i = 0; i < PF_ARRAY_SIZE(runs); i++) {
		assert_finished(&runs[i]);
		pf_result_release(&runs[i].res);
	}

	/* recorded providers load no library: that check shares the child */
	opts.libraries_live = false;
	pf_runner_run(&ctx, runs, 4, &opts);
	assert_string_equal(pid_of(&runs[0]), pid_of(&runs[2]));
	assert_string_equal(pid_of(&runs[2]), pid_of(&runs[3]));
	for (size_t i = 0; i < 4; i++)
		pf_result_release(&runs[i].res);
}

/*
 * A check the run does not judge (no inventory) sits between two that share
 * a child; the report keeps every check in its place.
 */
static void test_decided_between(void **state)
{
	struct pf_run runs[3] = { { .check = &c_pid }, { .check = &c_pid_node },
				  { .check = &c_pid } };
	struct pf_runner_opts opts = { .node_error = "no inventory" };
	struct pf_ctx ctx = { 0 };

	(void)state;
	pf_runner_run(&ctx, runs, 3, &opts);
	assert_string_equal(pid_of(&runs[0]), pid_of(&runs[2]));
	expect_error(&runs[1], "no inventory");
	assert_int_equal(runs[1].timeout_s, 0);
	for (size_t i = 0; i < 3; i++)
		pf_result_release(&runs[i].res);
}

/*
 * With a progress stream, each check gets a status line (name, its own
 * progress text, elapsed / deadline) that is cleared when it ends; without
 * one, pf_progress() is a no-op and nothing is written.
 */
static void test_progress_line(void **state)
{
	struct pf_run runs[2] = { { .check = &c_progress }, { .check = &c_pass } };
	struct pf_runner_opts opts = { 0 };
	struct pf_ctx ctx = { 0 };
	char *buf = NULL;
	size_t len = 0;
	int fds;

	(void)state;
	opts.progress = open_memstream(&buf, &len);
	fds = count_fds();
	pf_runner_run(&ctx, runs, 2, &opts);
	/* the result and progress pipes are closed again */
	assert_int_equal(count_fds(), fds);
	fclose(opts.progress);
	assert_int_equal(runs[0].res.status, PF_STATUS_PASS);
	assert_int_equal(runs[1].res.status, PF_STATUS_PASS);
	/* drawn when it starts, with its deadline */
	assert_non_null(strstr(buf, "\r\033[Kpreflight: t_progress  0 s / 7 s"));
	/* the check's last progress text */
	assert_non_null(strstr(buf, "preflight: t_progress  pair 3/3  "));
	assert_non_null(strstr(buf, "preflight: t_pass  0 s / 5 s"));
	/* and cleared at the end: the terminal is left as it was */
	assert_true(len >= 4 && !strcmp(buf + len - 4, "\r\033[K"));
	for (int i = 0; i < 2; i++)
		pf_result_release(&runs[i].res);
	free(buf);

	/* a child that dies: both of its pipes are closed once it hung up */
	runs[1].check = &c_segv;
	buf = NULL;
	opts.progress = open_memstream(&buf, &len);
	fds = count_fds();
	pf_runner_run(&ctx, runs, 2, &opts);
	assert_int_equal(count_fds(), fds);
	fclose(opts.progress);
	expect_error(&runs[1], "crashed: SIGSEGV");
	for (int i = 0; i < 2; i++)
		pf_result_release(&runs[i].res);
	free(buf);

	/* in process (--no-fork) the line is drawn and cleared too */
	opts.no_fork = true;
	buf = NULL;
	opts.progress = open_memstream(&buf, &len);
	pf_runner_run(&ctx, runs, 1, &opts);
	fclose(opts.progress);
	assert_non_null(strstr(buf, "preflight: t_progress"));
	assert_true(len >= 4 && !strcmp(buf + len - 4, "\r\033[K"));
	pf_result_release(&runs[0].res);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forked_runs),
		cmocka_unit_test(test_timeout_override),
		cmocka_unit_test(test_no_fork),
		cmocka_unit_test(test_progress_line),
		cmocka_unit_test(test_shared_child),
		cmocka_unit_test(test_decided_between),
	};
	struct rlimit no_core = { 0, 0 };

	/* the crashing checks must not leave core files behind */
	setrlimit(RLIMIT_CORE, &no_core);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
