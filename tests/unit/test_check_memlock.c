// SPDX-License-Identifier: MIT
/*
 * test_check_memlock.c - the memlock check on the fixture roots under
 * tests/fixtures/memlock-*, on temporary roots for slurmd discovery, and
 * through a test provider table.
 */
#include <string.h>

#include "preflight/parse.h"
#include "testutil.h"

static const char *obs_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(f->observed, key);

	assert_true(cJSON_IsString(v));
	return v->valuestring;
}

static double obs_num(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(f->observed, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static char *limits_text(const char *soft, const char *hard)
{
	return pf_xasprintf("Limit                     Soft Limit           Hard Limit           Units     \n"
			    "Max cpu time              unlimited            unlimited            seconds   \n"
			    "Max locked memory         %-20s %-20s bytes     \n"
			    "Max address space         unlimited            unlimited            bytes     \n",
			    soft, hard);
}

static void test_unlimited(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("memlock", pf_test_fixture("memlock-unlimited"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 1);
	f = pf_test_need(&res, "process", PF_STATUS_PASS);
	assert_string_equal(f->message, "soft unlimited, hard unlimited");
	assert_string_equal(obs_str(f, "soft_kib"), "unlimited");
	assert_string_equal(obs_str(f, "hard_kib"), "unlimited");
	assert_string_equal(cJSON_GetObjectItem(f->expected, "limit")->valuestring, "unlimited");
	assert_null(f->remedy);
	pf_result_release(&res);
}

static void test_finite(void **state)
{
	static const char *const exact[] = { "memlock.min_kib=8192", NULL };
	static const char *const above[] = { "memlock.min_kib=8193", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("memlock", pf_test_fixture("memlock-finite"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "process", PF_STATUS_FAIL);
	assert_string_equal(f->message, "hard limit 8192 KiB, expected unlimited");
	assert_true(obs_num(f, "soft_kib") == 8192);
	assert_true(obs_num(f, "hard_kib") == 8192);
	pf_test_assert_contains(f->remedy, "/etc/security/limits.conf");
	pf_test_assert_contains(f->remedy, "memlock unlimited");
	assert_string_equal(res.summary, "process: hard limit 8192 KiB, expected unlimited");
	pf_result_release(&res);

	/* a profile may accept a finite limit */
	pf_test_run_check("memlock", pf_test_fixture("memlock-finite"), NULL, exact, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	f = pf_test_need(&res, "process", PF_STATUS_PASS);
	assert_string_equal(f->message, "soft 8192 KiB, hard 8192 KiB");
	assert_true(cJSON_GetObjectItem(f->expected, "min_kib")->valuedouble == 8192);
	pf_result_release(&res);

	pf_test_run_check("memlock", pf_test_fixture("memlock-finite"), NULL, above, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "process", PF_STATUS_FAIL);
	assert_string_equal(f->message, "hard limit 8192 KiB, expected at least 8193 KiB");
	pf_result_release(&res);
}

static void test_soft_below_hard(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("memlock", pf_test_fixture("memlock-soft-below-hard"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "process", PF_STATUS_FAIL);
	assert_string_equal(f->message,
			    "soft limit 64 KiB below hard limit unlimited, expected unlimited");
	assert_true(obs_num(f, "soft_kib") == 64);
	assert_string_equal(obs_str(f, "hard_kib"), "unlimited");
	pf_test_assert_contains(f->remedy, "PropagateResourceLimitsExcept=MEMLOCK");
	pf_test_assert_contains(f->remedy, "/etc/security/limits.conf");
	pf_result_release(&res);
}

static void test_slurmd(void **state)
{
	static const char *const off[] = { "memlock.check_slurmd=false", NULL };
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_run_check("memlock", pf_test_fixture("memlock-slurmd"), NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(res.n_findings, 2);
	pf_test_need(&res, "process", PF_STATUS_PASS);
	/* a stable subject (a pid label makes a new Prometheus series per restart) */
	f = pf_test_need(&res, "slurmd", PF_STATUS_FAIL);
	assert_true(cJSON_GetObjectItem(f->observed, "pid")->valuedouble == 4242);
	assert_string_equal(f->message, "hard limit 64 KiB, expected unlimited");
	pf_test_assert_contains(f->remedy, "LimitMEMLOCK=infinity");
	pf_test_assert_contains(f->remedy, "systemctl edit slurmd");
	pf_test_assert_contains(res.summary, "slurmd");
	/* slurmd's finding leads: the drain reason names the first failing one */
	assert_string_equal(res.findings[0].subject, "slurmd");
	pf_result_release(&res);

	pf_test_run_check("memlock", pf_test_fixture("memlock-slurmd"), NULL, off, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 1);
	pf_result_release(&res);
}

/*
 * A Prolog or job under slurmd inherits slurmd's limit: both fail, slurmd's
 * finding comes first.  Whether the process's remedy points at slurmd's
 * unit or at limits.conf is decided by its ancestry (/proc/self/stat and
 * the parents' stat), never by the limits being equal: Debian gives a
 * login shell and slurmd the same 8 MiB (issue 20 item 5).
 */
static const struct pf_finding *inherited(const char *dir, struct pf_result *res)
{
	pf_test_run_check("memlock", dir, NULL, NULL, res);
	assert_int_equal(res->status, PF_STATUS_FAIL);
	assert_int_equal(res->n_findings, 2);
	assert_string_equal(res->findings[0].subject, "slurmd");
	pf_test_assert_contains(res->findings[0].remedy, "LimitMEMLOCK=infinity");
	return pf_test_need(res, "process", PF_STATUS_FAIL);
}

static void test_slurmd_inherited(void **state)
{
	char *dir = pf_test_mkdtemp();
	char *low = limits_text("8388608", "8388608");
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_write(dir, "proc/self/limits", low);
	pf_test_write(dir, "proc/900/comm", "slurmd\n");
	pf_test_write(dir, "proc/900/limits", low);
	/* under slurmd: self -> 950 (the Prolog's shell) -> 900 (slurmd) */
	pf_test_write(dir, "proc/self/stat", "960 (pre flight) R 950 960 960 0 -1\n");
	pf_test_write(dir, "proc/950/stat", "950 (sh) S 900 950 950 0 -1\n");
	f = inherited(dir, &res);
	pf_test_assert_contains(f->remedy, "runs under slurmd");
	assert_null(strstr(f->remedy, "log in again"));
	pf_result_release(&res);

	/* the same equal limits from a login shell: self -> 950 (bash) -> 1 */
	pf_test_write(dir, "proc/950/stat", "950 (bash) S 1 950 950 0 -1\n");
	f = inherited(dir, &res);
	pf_test_assert_contains(f->remedy, "limits.conf");
	pf_test_assert_contains(f->remedy, "log in again");
	assert_null(strstr(f->remedy, "slurmd"));
	pf_result_release(&res);

	/* no ancestry recorded (a snapshot): both ways, neither claimed */
	pf_test_write(dir, "proc/950/stat", "");
	f = inherited(dir, &res);
	pf_test_assert_contains(f->remedy, "under slurmd (a Prolog or a job)");
	pf_test_assert_contains(f->remedy, "from a login shell");
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
	free(low);
}

/*
 * Issue 31 item 10: a capture with slurmd's limits and not the capturing
 * process's (a TrinityX capture, slurmd at 64 KiB) judges slurmd's, which
 * jobs inherit, and reports the process's as not captured; the same node
 * with slurmd unlimited passes; neither captured stays one skip.
 */
static void test_slurmd_without_self(void **state)
{
	char *dir = pf_test_mkdtemp();
	char *low = limits_text("65536", "65536"), *unl = limits_text("unlimited", "unlimited");
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_write(dir, "proc/4242/comm", "slurmd\n");
	pf_test_write(dir, "proc/4242/limits", low);
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "slurmd", PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "hard limit 64 KiB, expected unlimited");
	f = pf_test_need(&res, "process", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "not captured");
	assert_string_equal(res.findings[0].subject, "slurmd");
	pf_result_release(&res);

	pf_test_write(dir, "proc/4242/limits", unl);
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	pf_test_need(&res, "slurmd", PF_STATUS_PASS);
	pf_test_need(&res, "process", PF_STATUS_SKIP);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);

	pf_test_write(dir, "proc/4242/comm", "sshd\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_test_assert_contains(res.summary, "/proc/self/limits not in the snapshot");
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
	free(low);
	free(unl);
}

static void test_slurmd_discovery(void **state)
{
	char *dir = pf_test_mkdtemp();
	char *unl = limits_text("unlimited", "unlimited"), *low = limits_text("32768", "32768");
	struct pf_result res;
	const struct pf_finding *f;

	pf_test_write(dir, "proc/self/limits", unl);
	/* no pid file: found by scanning /proc/<pid>/comm */
	pf_test_write(dir, "proc/77/comm", "bash\n");
	pf_test_write(dir, "proc/900/comm", "slurmd\n");
	pf_test_write(dir, "proc/900/limits", low);
	pf_test_write(dir, "proc/slurmd/comm", "slurmd\n"); /* not a pid */
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	f = pf_test_need(&res, "slurmd", PF_STATUS_FAIL);
	/* at rdma-core's own warning level the message says so */
	assert_string_equal(f->message, "hard limit 32 KiB, expected unlimited "
					"(libibverbs warns at this level)");
	pf_result_release(&res);

	/* a stale pid file pointing at another process: still found by the scan */
	pf_test_write(dir, "run/slurmd.pid", "77\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	pf_test_need(&res, "slurmd", PF_STATUS_FAIL);
	assert_true(cJSON_GetObjectItem(pf_test_finding(&res, "slurmd")->observed, "pid")
			    ->valuedouble == 900);
	pf_result_release(&res);

	/* the pid file wins over the scan; slurmd unlimited passes */
	pf_test_write(dir, "proc/1234/comm", "slurmd\n");
	pf_test_write(dir, "proc/1234/limits", unl);
	pf_test_write(dir, "run/slurmd.pid", "1234\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_need(&res, "slurmd", PF_STATUS_PASS);
	assert_true(cJSON_GetObjectItem(pf_test_finding(&res, "slurmd")->observed, "pid")
			    ->valuedouble == 1234);
	pf_result_release(&res);

	/* slurmd's limits file garbled: an error finding for slurmd alone */
	pf_test_write(dir, "proc/1234/limits", "Max locked memory         lots      lots\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_test_need(&res, "process", PF_STATUS_PASS);
	f = pf_test_need(&res, "slurmd", PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "cannot read /proc/1234/limits");
	pf_result_release(&res);

	/* slurmd gone between the scan and the read: nothing to say about it */
	pf_test_write(dir, "proc/1234/comm", "sshd\n");
	pf_test_write(dir, "proc/900/comm", "sshd\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 1);
	pf_result_release(&res);

	free(unl);
	free(low);
	pf_test_rmtree(dir);
	free(dir);
}

static void test_unreadable(void **state)
{
	char *dir = pf_test_mkdtemp();
	struct pf_result res;
	const struct pf_finding *f;

	/*
	 * no /proc/self/limits at all: a partial capture (only sysfs), a skip
	 * naming the file, not an error (issue 20 item 6, issue 22 item 13)
	 */
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_test_assert_contains(res.summary, "/proc/self/limits not in the snapshot");
	pf_result_release(&res);

	/* no "Max locked memory" row */
	pf_test_write(dir, "proc/self/limits", "Max cpu time  unlimited  unlimited  seconds\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);

	/* a garbled row */
	pf_test_write(dir, "proc/self/limits", "Max locked memory   64k   unlimited  bytes\n");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	f = &res.findings[0];
	pf_test_assert_contains(f->message, "cannot read RLIMIT_MEMLOCK");
	pf_result_release(&res);

	/* /proc/self/limits is a directory */
	pf_test_rmtree(dir);
	pf_test_write(dir, "proc/self/limits/x", "");
	pf_test_run_check("memlock", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_test_assert_contains(res.findings[0].message, "Is a directory");
	pf_result_release(&res);

	pf_test_rmtree(dir);
	free(dir);
}

static int fake_eperm(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	return -EPERM;
}

static int fake_low(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	ret->soft = 16384;
	ret->hard = PF_RLIM_UNLIMITED;
	return 0;
}

static void test_providers(void **state)
{
	struct pf_providers eperm = pf_providers_none, low = pf_providers_none;
	struct pf_result res;
	const struct pf_finding *f;

	eperm.name = low.name = "test";
	eperm.memlock = fake_eperm;
	low.memlock = fake_low;
	/* the check asks the provider, not the file */
	pf_test_run_check("memlock", pf_test_fixture("memlock-unlimited"), &low, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "process", PF_STATUS_FAIL);
	assert_true(obs_num(f, "soft_kib") == 16);
	pf_result_release(&res);

	pf_test_run_check("memlock", pf_test_fixture("memlock-unlimited"), &eperm, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_test_assert_contains(res.findings[0].message, "Operation not permitted");
	pf_result_release(&res);
}

static void test_parse_limits(void **state)
{
	struct pf_rlimit rl;
	char *t = limits_text("65536", "unlimited");

	assert_int_equal(pf_parse_proc_limits(t, "Max locked memory", &rl), 0);
	assert_true(rl.soft == 65536);
	assert_true(rl.hard == PF_RLIM_UNLIMITED);
	assert_int_equal(pf_parse_proc_limits(t, "Max cpu time", &rl), 0);
	assert_int_equal(pf_parse_proc_limits(t, "Max locked", &rl), -EINVAL);
	assert_int_equal(pf_parse_proc_limits(t, "Max nice priority", &rl), -ENOENT);
	assert_int_equal(pf_parse_proc_limits("", "Max locked memory", &rl), -ENOENT);
	assert_int_equal(pf_parse_proc_limits("Max locked memory 1\n", "Max locked memory", &rl),
			 -EINVAL);
	assert_int_equal(pf_parse_proc_limits("Max locked memory 1 2", "Max locked memory", &rl),
			 0);
	assert_true(rl.soft == 1 && rl.hard == 2);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_finite),
		cmocka_unit_test(test_soft_below_hard),
		cmocka_unit_test(test_slurmd),
		cmocka_unit_test(test_slurmd_inherited),
		cmocka_unit_test(test_slurmd_discovery),
		cmocka_unit_test(test_slurmd_without_self),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_providers),
		cmocka_unit_test(test_parse_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
