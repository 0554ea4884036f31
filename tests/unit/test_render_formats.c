// SPDX-License-Identifier: MIT
/*
 * test_render_formats.c - the JUnit and Prometheus renderers on a synthetic
 * report: status mapping, XML escaping (markup, control characters, invalid
 * UTF-8), Prometheus label escaping, value flattening and de-duplication.
 */
#include <string.h>

#include "report.h"
#include "testutil.h"

static const struct pf_check check_a = { .name = "alpha" };
static const struct pf_check check_b = { .name = "beta" };
static const struct pf_check check_c = { .name = "gamma" };
static const struct pf_check check_d = { .name = "delta" };

struct fixture {
	struct pf_run runs[4];
	struct pf_report r;
};

static int setup(void **state)
{
	struct fixture *fx = pf_xcalloc(1, sizeof(*fx));
	struct pf_finding *f;

	fx->runs[0].check = &check_a;
	fx->runs[1].check = &check_b;
	fx->runs[2].check = &check_c;
	fx->runs[3].check = &check_d;
	for (int i = 0; i < 4; i++) {
		pf_result_init(&fx->runs[i].res);
		fx->runs[i].duration_ms = 1.5;
	}
	/* alpha: fail with nasty text */
	f = pf_add(&fx->runs[0].res, PF_STATUS_FAIL, "mlx5_0/1",
		   "rate <100> & \"low\"\x01 bad\xff byte\nsecond line");
	pf_obs_num(f, "rate_gbps", 100);
	pf_obs_bool(f, "active", true);
	pf_obs_str(f, "limit", "unlimited");
	pf_obs_str(f, "state", "ACTIVE");
	pf_obs_json(f, "lanes", cJSON_CreateIntArray((const int[]){ 4, 2 }, 2));
	pf_exp_num(f, "min_rate_gbps", 400);
	pf_remedy(f, "reseat the cable");
	/* same subject and key again: must not produce a duplicate series */
	f = pf_add(&fx->runs[0].res, PF_STATUS_PASS, "mlx5_0/1", "second finding");
	pf_obs_num(f, "rate_gbps", 200);
	f = pf_add(&fx->runs[0].res, PF_STATUS_PASS, "a\\b\"c\nd", "odd subject");
	pf_obs_num(f, "x", 1);
	pf_result_finish(&fx->runs[0].res);
	/* beta: error */
	pf_add(&fx->runs[1].res, PF_STATUS_ERROR, NULL, "cannot read '/sys/x': Permission denied");
	pf_result_finish(&fx->runs[1].res);
	/* gamma: skip */
	pf_skip(&fx->runs[2].res, "no GPUs");
	pf_result_finish(&fx->runs[2].res);
	/* delta: warn */
	pf_add(&fx->runs[3].res, PF_STATUS_WARN, "eth0", "mtu 1500");
	pf_result_finish(&fx->runs[3].res);

	fx->r.version = "0.1.0";
	snprintf(fx->r.hostname, sizeof(fx->r.hostname), "node<1>");
	snprintf(fx->r.kernel, sizeof(fx->r.kernel), "6.1.0");
	fx->r.root = "/tmp/root";
	fx->r.profile = "generic";
	fx->r.started_at = 1795000000;
	fx->r.duration_ms = 12.5;
	fx->r.runs = fx->runs;
	fx->r.n_runs = 4;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	for (int i = 0; i < 4; i++)
		pf_result_release(&fx->runs[i].res);
	free(fx);
	return 0;
}

static char *render(const struct pf_report *r, enum pf_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pf_render(r, fmt, f, false), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_junit(void **state)
{
	struct fixture *fx = *state;
	pf_autofree char *x = render(&fx->r, PF_FORMAT_JUNIT);

	assert_non_null(strstr(x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
	assert_int_equal(count(x, "<testsuite "), 1);
	assert_int_equal(count(x, "<testcase "), 4);
	assert_non_null(strstr(x, "tests=\"4\" failures=\"1\" errors=\"1\" skipped=\"1\""));
	assert_non_null(strstr(x, "<testcase classname=\"node&lt;1&gt;\" name=\"alpha\" "
				  "time=\"0.001500\">"));
	assert_int_equal(count(x, "<failure type=\"fail\""), 1);
	assert_int_equal(count(x, "<error type=\"error\""), 1);
	assert_non_null(strstr(x, "<skipped message=\"no GPUs\"/>"));
	/* element text: markup escaped, control byte and bad byte replaced */
	assert_non_null(strstr(x, "FAIL mlx5_0/1: rate &lt;100&gt; &amp; \"low\"\xef\xbf\xbd bad"
				  "\xef\xbf\xbd byte\nsecond line\n"));
	/* attribute: quotes and newline as references */
	assert_non_null(strstr(x, "message=\"mlx5_0/1: rate &lt;100&gt; &amp; &quot;low&quot;"
				  "\xef\xbf\xbd bad\xef\xbf\xbd byte&#10;second line\""));
	assert_non_null(strstr(x, "  observed: {\"rate_gbps\":100,\"active\":true,"));
	assert_non_null(strstr(x, "  expected: {\"min_rate_gbps\":400}\n"));
	assert_non_null(strstr(x, "  fix: reseat the cable\n"));
	assert_null(strchr(x, '\x01'));
	assert_null(strstr(x, "\xff"));
	/* the warning check passes, its finding is in system-out */
	assert_non_null(strstr(x, "<system-out>WARN eth0: mtu 1500\n</system-out>"));
	assert_non_null(strstr(x, "<property name=\"verdict\" value=\"fail\"/>"));
}

static void test_prom(void **state)
{
	struct fixture *fx = *state;
	pf_autofree char *p = render(&fx->r, PF_FORMAT_PROM);

	assert_non_null(strstr(p, "# TYPE preflight_check_status gauge\n"));
	assert_non_null(strstr(p, "preflight_check_status{check=\"alpha\",status=\"fail\"} 1\n"));
	assert_non_null(strstr(p, "preflight_check_status{check=\"alpha\",status=\"pass\"} 0\n"));
	assert_non_null(strstr(p, "preflight_check_status{check=\"gamma\",status=\"skip\"} 1\n"));
	assert_non_null(strstr(p, "preflight_verdict{status=\"fail\"} 1\n"));
	assert_non_null(strstr(p, "preflight_checks{status=\"error\"} 1\n"));
	assert_non_null(strstr(p, "preflight_check_duration_seconds{check=\"beta\"} 0.0015\n"));
	assert_non_null(strstr(p, "preflight_observed{check=\"alpha\",subject=\"mlx5_0/1\","
				  "key=\"rate_gbps\"} 100\n"));
	/* the second finding's rate_gbps is a duplicate series and is dropped */
	assert_int_equal(count(p, "key=\"rate_gbps\"}"), 1);
	assert_non_null(strstr(p, "key=\"active\"} 1\n"));
	assert_non_null(strstr(p, "key=\"limit\"} +Inf\n"));
	assert_null(strstr(p, "key=\"state\""));
	assert_non_null(strstr(p, "key=\"lanes.0\"} 4\n"));
	assert_non_null(strstr(p, "key=\"lanes.1\"} 2\n"));
	assert_non_null(strstr(p, "preflight_expected{check=\"alpha\",subject=\"mlx5_0/1\","
				  "key=\"min_rate_gbps\"} 400\n"));
	assert_non_null(strstr(p, "subject=\"a\\\\b\\\"c\\nd\""));
	assert_non_null(strstr(p, "preflight_finding_status{check=\"beta\",subject=\"\","
				  "status=\"error\",code=\"\",action=\"\"} 1\n"));
	assert_non_null(strstr(p, "preflight_last_run_timestamp_seconds 1795000000\n"));
	assert_non_null(strstr(p, "preflight_run_duration_seconds 0.0125\n"));
	assert_non_null(strstr(p, "hostname=\"node<1>\""));
}

static void test_utf8(void **state)
{
	uint32_t cp;

	assert_int_equal(pf_utf8_decode("a", &cp), 1);
	assert_int_equal(cp, 'a');
	assert_int_equal(pf_utf8_decode("\xc3\xa9", &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(pf_utf8_decode("\xe2\x82\xac", &cp), 3);
	assert_int_equal(pf_utf8_decode("\xf0\x9f\x98\x80", &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(pf_utf8_decode("\xc0\xaf", &cp), -EINVAL);     /* overlong */
	assert_int_equal(pf_utf8_decode("\xed\xa0\x80", &cp), -EINVAL); /* surrogate */
	assert_int_equal(pf_utf8_decode("\xe2\x82", &cp), -EINVAL);     /* truncated */
	assert_int_equal(pf_utf8_decode("\xff", &cp), -EINVAL);
	assert_int_equal(pf_utf8_decode("", &cp), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_junit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prom, setup, teardown),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
