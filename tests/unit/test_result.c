// SPDX-License-Identifier: MIT
/*
 * test_result.c - statuses, their ranking, pf_result_finish() summaries and
 * the JSON round trip that carries a result over the runner's pipe.
 */
#include <string.h>

#include "preflight/result.h"
#include "testutil.h"

static void test_status_names(void **state)
{
	static const char *const names[] = { "pass", "warn", "fail", "skip", "error" };
	enum pf_status s;

	for (int i = 0; i < PF_STATUS_COUNT; i++) {
		assert_string_equal(pf_status_name((enum pf_status)i), names[i]);
		assert_int_equal(pf_status_from_name(names[i], &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(pf_status_from_name("PASS", &s), -EINVAL);
	assert_int_equal(pf_status_from_name("", &s), -EINVAL);
	assert_int_equal(pf_status_from_name(NULL, &s), -EINVAL);
	assert_string_equal(pf_status_name(PF_STATUS_COUNT), "error");
}

static void test_rank_and_worst(void **state)
{
	/* skip < pass < warn < error < fail */
	assert_true(pf_status_rank(PF_STATUS_SKIP) < pf_status_rank(PF_STATUS_PASS));
	assert_true(pf_status_rank(PF_STATUS_PASS) < pf_status_rank(PF_STATUS_WARN));
	assert_true(pf_status_rank(PF_STATUS_WARN) < pf_status_rank(PF_STATUS_ERROR));
	assert_true(pf_status_rank(PF_STATUS_ERROR) < pf_status_rank(PF_STATUS_FAIL));
	assert_int_equal(pf_status_worst(PF_STATUS_PASS, PF_STATUS_SKIP), PF_STATUS_PASS);
	assert_int_equal(pf_status_worst(PF_STATUS_SKIP, PF_STATUS_PASS), PF_STATUS_PASS);
	assert_int_equal(pf_status_worst(PF_STATUS_WARN, PF_STATUS_PASS), PF_STATUS_WARN);
	assert_int_equal(pf_status_worst(PF_STATUS_ERROR, PF_STATUS_WARN), PF_STATUS_ERROR);
	assert_int_equal(pf_status_worst(PF_STATUS_ERROR, PF_STATUS_FAIL), PF_STATUS_FAIL);
	assert_int_equal(pf_status_worst(PF_STATUS_FAIL, PF_STATUS_ERROR), PF_STATUS_FAIL);
	assert_int_equal(pf_status_worst(PF_STATUS_SKIP, PF_STATUS_SKIP), PF_STATUS_SKIP);
}

static void test_finish_empty_is_error(void **state)
{
	struct pf_result res;

	pf_result_init(&res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_int_equal(res.n_findings, 1);
	assert_string_equal(res.summary, "check recorded no findings");
	pf_result_release(&res);
	assert_int_equal(res.n_findings, 0);
	assert_null(res.summary);
}

static void test_finish_summaries(void **state)
{
	struct pf_result res;
	struct pf_finding *f;

	/* one pass: its message */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_PASS, "a", "all %s", "good");
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(res.summary, "all good");
	pf_result_release(&res);

	/* several passes and a skip: pass, counted */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_PASS, "a", "ok");
	pf_add(&res, PF_STATUS_SKIP, "b", "n/a");
	pf_add(&res, PF_STATUS_PASS, "c", "ok");
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(res.summary, "2 of 3 subjects pass");
	pf_result_release(&res);

	/* a single worst finding leads the summary with its subject */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_PASS, "a", "ok");
	pf_add(&res, PF_STATUS_WARN, "b", "meh");
	f = pf_add(&res, PF_STATUS_FAIL, "mlx5_0/1", "down");
	pf_remedy(f, "plug %s in", "it");
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_string_equal(res.summary, "mlx5_0/1: down");
	assert_string_equal(res.findings[2].remedy, "plug it in");
	pf_result_release(&res);

	/* several: counted, first named */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_WARN, "x", "low");
	pf_add(&res, PF_STATUS_ERROR, NULL, "cannot read");
	pf_add(&res, PF_STATUS_WARN, "y", "low too");
	pf_add(&res, PF_STATUS_ERROR, "z", "unreadable");
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_string_equal(res.summary, "2 of 4 subjects error (first: cannot read)");
	pf_result_release(&res);

	pf_result_init(&res);
	pf_add(&res, PF_STATUS_WARN, "x", "low");
	pf_add(&res, PF_STATUS_WARN, "y", "lower");
	pf_result_finish(&res);
	assert_string_equal(res.summary, "2 of 2 subjects warn (first: x: low)");
	pf_result_release(&res);

	/* a summary set by the check is kept when it names the problem ... */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_FAIL, "x", "bad");
	pf_summary(&res, "first %d", 1);
	pf_summary(&res, "custom %d: x", 2);
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_string_equal(res.summary, "custom 2: x");
	pf_result_release(&res);

	/* ... and says what failed when it does not (JUnit's message, the drain reason) */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_PASS, "y", "fine");
	pf_add(&res, PF_STATUS_FAIL, "x", "bad");
	pf_summary(&res, "8 GPUs on the bus");
	pf_result_finish(&res);
	assert_string_equal(res.summary, "8 GPUs on the bus (first: x: bad)");
	pf_result_release(&res);

	/* a long message stays in its finding */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_ERROR, "gpudirect_rdma", "cannot tell whether GPUDirect RDMA is "
	       "available: peermem unknown, DMA-BUF no (NVIDIA kernel driver not loaded)");
	pf_summary(&res, "GPUDirect RDMA: undecided");
	pf_result_finish(&res);
	assert_string_equal(res.summary, "GPUDirect RDMA: undecided (first: gpudirect_rdma)");
	pf_result_release(&res);

	/* a pass or a warn keeps the check's own words */
	pf_result_init(&res);
	pf_add(&res, PF_STATUS_WARN, "x", "low");
	pf_summary(&res, "8 GPUs on the bus");
	pf_result_finish(&res);
	assert_string_equal(res.summary, "8 GPUs on the bus");
	pf_result_release(&res);
}

static void test_skip_and_error_helpers(void **state)
{
	struct pf_result res;

	pf_result_init(&res);
	assert_int_equal(pf_skip(&res, "no %s here", "GPUs"), 0);
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_string_equal(res.summary, "no GPUs here");
	assert_null(res.findings[0].subject);
	pf_result_release(&res);

	pf_result_init(&res);
	assert_int_equal(pf_error(&res, -ENOENT, "cannot read '%s'", "/x"), -ENOENT);
	assert_int_equal(pf_error(&res, EACCES, "positive errno"), -EACCES);
	assert_int_equal(pf_error(&res, 0, "no errno"), 0);
	pf_result_finish(&res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	assert_string_equal(res.findings[0].message, "cannot read '/x': No such file or directory");
	assert_string_equal(res.findings[1].message, "positive errno: Permission denied");
	assert_string_equal(res.findings[2].message, "no errno");
	pf_result_release(&res);
}

static void test_json_round_trip(void **state)
{
	struct pf_result res, back;
	struct pf_finding *f;
	cJSON *j, *j2, *arr;
	char *a, *b;

	pf_result_init(&res);
	f = pf_add(&res, PF_STATUS_FAIL, "mlx5_3/1", "active at %d Gb/s", 100);
	pf_obs_num(f, "rate_gbps", 100);
	pf_obs_str(f, "width", "4X");
	pf_obs_bool(f, "up", true);
	pf_obs_str(f, "null_is_empty", NULL);
	arr = cJSON_CreateArray();
	cJSON_AddItemToArray(arr, cJSON_CreateNumber(1));
	pf_obs_json(f, "lanes", arr);
	pf_exp_num(f, "min_rate_gbps", 400);
	pf_exp_str(f, "state", "ACTIVE");
	pf_exp_bool(f, "up", true);
	pf_remedy(f, "reseat the cable");
	pf_add(&res, PF_STATUS_PASS, "mlx5_0/1", "ok \"quoted\" \\ and\nnewline");
	pf_add(&res, PF_STATUS_ERROR, NULL, "check-wide");
	pf_result_finish(&res);

	j = pf_result_to_json(&res);
	assert_string_equal(cJSON_GetObjectItem(j, "status")->valuestring, "fail");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "findings")), 3);
	/* a check-wide finding has subject "" in JSON, NULL in memory */
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "findings"),
								   2), "subject")->valuestring, "");
	assert_int_equal(pf_result_from_json(j, &back), 0);
	assert_int_equal(back.status, res.status);
	assert_string_equal(back.summary, res.summary);
	assert_int_equal(back.n_findings, 3);
	assert_null(back.findings[2].subject);
	assert_null(back.findings[1].remedy);
	assert_null(back.findings[1].observed);
	assert_string_equal(back.findings[0].remedy, "reseat the cable");
	assert_string_equal(back.findings[1].message, "ok \"quoted\" \\ and\nnewline");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(back.findings[0].observed, "up")));
	assert_string_equal(cJSON_GetObjectItem(back.findings[0].observed, "null_is_empty")
				    ->valuestring, "");

	/* byte-identical after the round trip */
	j2 = pf_result_to_json(&back);
	a = cJSON_PrintUnformatted(j);
	b = cJSON_PrintUnformatted(j2);
	assert_string_equal(a, b);
	free(a);
	free(b);
	cJSON_Delete(j);
	cJSON_Delete(j2);
	pf_result_release(&back);
	pf_result_release(&res);
}

static void expect_bad_json(const char *text)
{
	struct pf_result res;
	cJSON *j = cJSON_Parse(text);

	assert_int_equal(pf_result_from_json(j, &res), -EINVAL);
	assert_int_equal(res.n_findings, 0);
	cJSON_Delete(j);
}

static void test_from_json_rejects(void **state)
{
	expect_bad_json("[]");
	expect_bad_json("{\"status\": \"great\", \"findings\": []}");
	expect_bad_json("{\"findings\": []}");
	expect_bad_json("{\"status\": \"pass\"}");
	expect_bad_json("{\"status\": \"pass\", \"findings\": {}}");
	expect_bad_json("{\"status\": \"pass\", \"findings\": [{\"status\": \"pass\"}]}");
	expect_bad_json("{\"status\": \"pass\", \"findings\": [{\"status\": \"ok\", "
			"\"message\": \"m\"}, {\"status\": \"pass\", \"message\": \"m\"}]}");
	{
		struct pf_result res;

		assert_int_equal(pf_result_from_json(NULL, &res), -EINVAL);
	}
}

/* A finding's pointer survives every later add (result.h: the array never moves). */
static void test_add_pointer_stays_valid(void **state)
{
	struct pf_result res;
	struct pf_finding *first, *f;

	pf_result_init(&res);
	first = pf_add(&res, PF_STATUS_PASS, "first", "one");
	for (int i = 0; i < 20000; i++) {
		f = pf_add(&res, PF_STATUS_PASS, "n", "finding %d", i);
		assert_ptr_equal(pf_last(&res), f);
	}
	assert_ptr_equal(first, &res.findings[0]);
	/* Written through the old pointer, read through the array. */
	pf_obs_num(first, "late", 7);
	pf_remedy(first, "fix %s", "it");
	assert_string_equal(res.findings[0].subject, "first");
	assert_string_equal(res.findings[0].remedy, "fix it");
	assert_int_equal(cJSON_GetObjectItem(res.findings[0].observed, "late")->valuedouble, 7);
	assert_string_equal(res.findings[20000].message, "finding 19999");
	assert_true(res.findings_room >= 20001);
	pf_result_release(&res);
	assert_null(res.findings);
	assert_int_equal(res.n_findings, 0);
	/* Used again after a release: a fresh array. */
	f = pf_add(&res, PF_STATUS_WARN, NULL, "again");
	assert_ptr_equal(f, &res.findings[0]);
	pf_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_rank_and_worst),
		cmocka_unit_test(test_finish_empty_is_error),
		cmocka_unit_test(test_finish_summaries),
		cmocka_unit_test(test_add_pointer_stays_valid),
		cmocka_unit_test(test_skip_and_error_helpers),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_from_json_rejects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
