// SPDX-License-Identifier: MIT
/*
 * test_confirm.c - --confirm (src/runner/confirm.c, counts.c): a fail that
 * clears on a re-run is not a fail, one that holds stays; traffic tests are
 * never re-run and windowed checks once; the per-boot counts state says a
 * fail once, reads nothing it cannot trust and never breaks a run.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "confirm.h"
#include "testutil.h"

static int calls; /* runs of the flaky checks (no fork: visible here) */

static int run_fail_once(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	(void)ctx, (void)cfg;
	if (calls++ == 0)
		pf_add(res, PF_STATUS_FAIL, "mlx5_0/1", "down");
	else
		pf_add(res, PF_STATUS_PASS, "mlx5_0/1", "up");
	return 0;
}

static int run_fail_always(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	(void)ctx, (void)cfg;
	calls++;
	pf_add(res, PF_STATUS_FAIL, "mlx5_0/1", "down");
	return 0;
}

/* fails, then cannot decide, then passes: an error is no evidence of health */
static int run_fail_error_pass(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	(void)ctx, (void)cfg;
	switch (calls++) {
	case 0: pf_add(res, PF_STATUS_FAIL, "x", "bad"); break;
	case 1: return pf_error(res, -EIO, "cannot read x");
	default: pf_add(res, PF_STATUS_PASS, "x", "good"); break;
	}
	return 0;
}

#define CHECK(nm, fn, f) \
	{ .name = nm, .summary = "s", .reads = "r", .timeout_s = 5, .run = (fn), .flags = (f) }
static const struct pf_check c_once = CHECK("t_once", run_fail_once, 0);
static const struct pf_check c_always = CHECK("t_always", run_fail_always, 0);
static const struct pf_check c_traffic = CHECK("t_traffic", run_fail_always, PF_CHECK_TRAFFIC);
static const struct pf_check c_window = CHECK("t_window", run_fail_always, PF_CHECK_WINDOWED);
static const struct pf_check c_err = CHECK("t_err", run_fail_error_pass, 0);

/* The check-wide finding (no subject): the one --confirm adds. */
static const struct pf_finding *checkwide(const struct pf_result *res)
{
	for (size_t i = 0; i < res->n_findings; i++)
		if (!res->findings[i].subject)
			return &res->findings[i];
	fail_msg("no check-wide finding");
	return NULL;
}

/* Run @c once, then --confirm @times; the run (caller releases res). */
static struct pf_run confirm(const struct pf_check *c, unsigned int times)
{
	struct pf_runner_opts opts = { .no_fork = true };
	struct pf_ctx ctx = { 0 };
	struct pf_run run = { .check = c };

	calls = 0;
	pf_runner_run(&ctx, &run, 1, &opts);
	pf_confirm_fails(&ctx, &run, 1, times, &opts);
	return run;
}

static void test_fail_that_clears(void **state)
{
	struct pf_run run = confirm(&c_once, 3);
	const struct pf_finding *f = checkwide(&run.res);

	(void)state;
	assert_int_equal(calls, 2); /* stopped at the first re-run that passed */
	assert_int_equal(run.attempts, 2);
	assert_int_equal(run.res.status, PF_STATUS_WARN);
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "not on re-run 1 of 3");
	pf_test_assert_contains(f->message, "down");
	assert_string_equal(f->code, "PF-T-ONCE-900");
	assert_int_equal(f->action, PF_ACTION_NONE);
	assert_int_equal(pf_test_must_find(&run.res, "mlx5_0/1")->status, PF_STATUS_PASS);
	pf_result_release(&run.res);
}

static void test_fail_that_holds(void **state)
{
	struct pf_run run = confirm(&c_always, 2);

	(void)state;
	assert_int_equal(calls, 3);
	assert_int_equal(run.attempts, 3);
	assert_int_equal(run.res.status, PF_STATUS_FAIL);
	pf_result_release(&run.res);

	run = confirm(&c_always, 0); /* --confirm 0: nothing re-run */
	assert_int_equal(calls, 1);
	assert_int_equal(run.attempts, 0);
	pf_result_release(&run.res);
}

static void test_traffic_and_windowed(void **state)
{
	struct pf_run run = confirm(&c_traffic, 5);

	(void)state;
	assert_int_equal(calls, 1); /* minutes each: never re-run */
	assert_int_equal(run.res.status, PF_STATUS_FAIL);
	pf_result_release(&run.res);

	run = confirm(&c_window, 5);
	assert_int_equal(calls, 2); /* a new window, once */
	assert_int_equal(run.attempts, 2);
	pf_result_release(&run.res);
}

static void test_error_is_no_evidence(void **state)
{
	struct pf_run run = confirm(&c_err, 1);

	(void)state;
	assert_int_equal(run.res.status, PF_STATUS_FAIL); /* the only re-run errored */
	pf_result_release(&run.res);

	run = confirm(&c_err, 2);
	assert_int_equal(calls, 3);
	assert_int_equal(run.res.status, PF_STATUS_WARN); /* re-run 2 passed */
	pf_test_assert_contains(checkwide(&run.res)->message, "re-run 2 of 2");
	pf_result_release(&run.res);
}

/* A finished run of check @c with one fail finding on @subject resting on xid_79 = @n. */
static struct pf_run xid_run(const struct pf_check *c, const char *subject, double n)
{
	struct pf_run run = { .check = c };
	struct pf_finding *f;

	pf_result_init(&run.res);
	f = pf_add(&run.res, PF_STATUS_FAIL, subject, "Xid 79 x%g", n);
	pf_count(f, "xid_79", n);
	pf_result_finish(&run.res);
	return run;
}

static char *read_text(const char *path)
{
	char *buf = NULL;
	size_t len;
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pf_fs_read_fd(fd, 0, &buf, &len), 0);
	close(fd);
	return buf;
}

static void test_counts_once_per_boot(void **state)
{
	const char *dir = *state;
	pf_autofree char *warn = NULL;
	cJSON *prev = NULL, *next;
	struct pf_run run;

	/* a first run: nothing remembered, the fail stands, its counts are saved */
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_null(prev);
	assert_null(warn);
	run = xid_run(&c_once, "0000:1b:00.0", 1);
	pf_counts_apply(prev, &run, 1);
	assert_int_equal(run.res.status, PF_STATUS_FAIL);
	next = pf_counts_next(prev, &run, 1, "boot-A");
	assert_int_equal(pf_counts_save(dir, next, NULL), 0);
	cJSON_Delete(next);
	pf_result_release(&run.res);

	/* the next run of this boot, the same count: said once already, a warn now */
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_non_null(prev);
	run = xid_run(&c_once, "0000:1b:00.0", 1);
	pf_counts_apply(prev, &run, 1);
	assert_int_equal(run.res.status, PF_STATUS_WARN);
	pf_test_assert_contains(run.res.findings[0].message, "reported by an earlier run");
	assert_string_equal(run.res.findings[0].code, "PF-T-ONCE-901");
	pf_result_release(&run.res);

	/* it rose: a fail again; another GPU's: a fail */
	run = xid_run(&c_once, "0000:1b:00.0", 2);
	pf_counts_apply(prev, &run, 1);
	assert_int_equal(run.res.status, PF_STATUS_FAIL);
	pf_result_release(&run.res);
	run = xid_run(&c_once, "0000:2b:00.0", 1);
	pf_counts_apply(prev, &run, 1);
	assert_int_equal(run.res.status, PF_STATUS_FAIL);
	pf_result_release(&run.res);

	/* a run of another check keeps this one's counts */
	run = xid_run(&c_always, "0000:9b:00.0", 4);
	next = pf_counts_next(prev, &run, 1, "boot-A");
	assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(next, "counts"),
							 "t_once/0000:1b:00.0"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(next, "counts"),
							 "t_always/0000:9b:00.0"));
	cJSON_Delete(next);
	pf_result_release(&run.res);
	cJSON_Delete(prev);

	/* a reboot: the state is another boot's, nothing is remembered */
	assert_int_equal(pf_counts_load(dir, "boot-B", &prev, &warn), 0);
	assert_null(prev);
	assert_null(warn);
}

static void test_counts_hostile_state(void **state)
{
	const char *dir = *state;
	pf_autofree char *path = pf_xasprintf("%s/counts.json", dir);
	pf_autofree char *other = pf_xasprintf("%s/other.json", dir);
	char *warn = NULL;
	cJSON *prev = NULL;

	/* garbage: ignored with a warning */
	pf_test_write(dir, "counts.json", "{\"boot_id\": 7, \"counts\": [");
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_null(prev);
	pf_test_assert_contains(warn, "not a counts state");
	free(warn);

	/* writable by others: not trusted */
	pf_test_write(dir, "counts.json", "{\"boot_id\": \"boot-A\", \"counts\": {}}");
	assert_int_equal(chmod(path, 0666), 0);
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_null(prev);
	pf_test_assert_contains(warn, "only its owner writes");
	free(warn);

	/* another user's file (as root: chown to nobody) */
	assert_int_equal(chmod(path, 0644), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
		assert_null(prev);
		assert_non_null(warn);
		free(warn);
	}

	/* a symlink planted where the state goes: not followed */
	unlink(path);
	pf_test_write(dir, "other.json", "{\"boot_id\": \"boot-A\", \"counts\": {\"a/b\": {\"n\": 1}}}");
	pf_test_symlink(dir, "counts.json", other);
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_null(prev);
	pf_test_assert_contains(warn, "symlink");
	free(warn);

	/* larger than 1 MiB: refused before it is parsed */
	unlink(path);
	{
		char *big = pf_xmalloc((1u << 20) + 16);

		memset(big, ' ', (1u << 20) + 15);
		big[(1u << 20) + 15] = '\0';
		pf_test_write(dir, "counts.json", big);
		free(big);
	}
	assert_int_equal(pf_counts_load(dir, "boot-A", &prev, &warn), 0);
	assert_null(prev);
	pf_test_assert_contains(warn, "larger than");
	free(warn);

	/* and the save replaces whatever is there with a file of its own */
	{
		cJSON *s = cJSON_CreateObject();
		char *text;

		cJSON_AddStringToObject(s, "boot_id", "boot-A");
		cJSON_AddObjectToObject(s, "counts");
		assert_int_equal(pf_counts_save(dir, s, NULL), 0);
		cJSON_Delete(s);
		text = read_text(path);
		pf_test_assert_contains(text, "\"boot-A\"");
		free(text);
	}
}

/* A directory others may write is refused as a whole: nothing read, nothing written. */
static void test_counts_unsafe_dir(void **state)
{
	const char *dir = *state;
	pf_autofree char *sub = pf_xasprintf("%s/open", dir);
	char *warn = NULL;
	cJSON *prev = NULL;

	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	assert_true(pf_counts_load(sub, "boot-A", &prev, &warn) < 0);
	assert_null(prev);
	assert_non_null(warn);
	free(warn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_that_clears),
		cmocka_unit_test(test_fail_that_holds),
		cmocka_unit_test(test_traffic_and_windowed),
		cmocka_unit_test(test_error_is_no_evidence),
		cmocka_unit_test_setup_teardown(test_counts_once_per_boot, pf_test_tmpdir_setup,
						pf_test_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_counts_hostile_state, pf_test_tmpdir_setup,
						pf_test_tmpdir_teardown),
		cmocka_unit_test_setup_teardown(test_counts_unsafe_dir, pf_test_tmpdir_setup,
						pf_test_tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
