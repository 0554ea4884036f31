// SPDX-License-Identifier: MIT
/*
 * test_render.c - the report renderers against golden files.
 *
 * A report with a fixed clock, durations, hostname and results is rendered
 * as JSON and as text and compared byte for byte with tests/golden/.  Run
 * with PF_UPDATE_GOLDEN=1 to rewrite the golden files after an intended
 * change (and review the diff).
 */
#include <limits.h>
#include <string.h>

#include "profile.h"
#include "report.h"
#include "testutil.h"

struct tcfg {
	uint64_t min_gbps;
	int64_t offset;
	double ratio;
	bool strict;
	char *ports;
};

static int trun(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res)
{
	return 0;
}

static const struct pf_param tparams[] = {
	PF_PARAM_U64(struct tcfg, min_gbps, "400", 0, 800, "Gb/s", "minimum rate"),
	PF_PARAM_I64(struct tcfg, offset, "-2", -10, 10, NULL, "an offset"),
	PF_PARAM_DOUBLE(struct tcfg, ratio, "0.75", 0, 1, NULL, "a ratio"),
	PF_PARAM_BOOL(struct tcfg, strict, "true", "a switch"),
	PF_PARAM_STRING(struct tcfg, ports, "mlx5_0,mlx5_1", "ports"),
	PF_PARAM_END,
};

static const struct pf_check link_check = {
	.name = "nic_link_speed", .summary = "s", .reads = "r", .params = tparams,
	.cfg_size = sizeof(struct tcfg), .timeout_s = 5, .run = trun,
};
static const struct pf_check skip_check = {
	.name = "gdr", .summary = "s", .reads = "r", .timeout_s = 5, .run = trun,
};
static const struct pf_check err_check = {
	.name = "sysctl", .summary = "s", .reads = "r", .timeout_s = 5, .run = trun,
};
static const struct pf_check pass_check = {
	.name = "memlock", .summary = "s", .reads = "r", .timeout_s = 5, .run = trun,
};

struct fx {
	struct pf_run runs[4];
	struct pf_report report;
};

static int setup(void **state)
{
	struct fx *fx = pf_xcalloc(1, sizeof(*fx));
	struct pf_run *r = fx->runs;
	struct pf_finding *f;
	char *err = NULL;

	r[0].check = &link_check;
	assert_int_equal(pf_config_build(&link_check, NULL, &r[0].cfg, &err), 0);
	pf_result_init(&r[0].res);
	f = pf_add(&r[0].res, PF_STATUS_FAIL, "mlx5_3/1",
		   "active at 100 Gb/s (4X EDR), expected at least 400 Gb/s");
	pf_obs_num(f, "rate_gbps", 100);
	pf_obs_str(f, "width", "4X");
	pf_obs_str(f, "state", "ACTIVE");
	pf_exp_num(f, "min_rate_gbps", 400);
	pf_remedy(f, "reseat or replace the cable or transceiver; check the switch port speed");
	f = pf_add(&r[0].res, PF_STATUS_PASS, "mlx5_0/1", "active at 400 Gb/s (4X NDR)");
	pf_obs_num(f, "rate_gbps", 400);
	pf_result_finish(&r[0].res);
	r[0].duration_ms = 1.26;

	r[1].check = &skip_check;
	pf_result_init(&r[1].res);
	pf_skip(&r[1].res, "no GPUs on this node");
	pf_result_finish(&r[1].res);
	r[1].duration_ms = 0.04;

	r[2].check = &err_check;
	pf_result_init(&r[2].res);
	f = pf_add(&r[2].res, PF_STATUS_WARN, "net.core.netdev_max_backlog",
		   "1000, expected >= 250000");
	pf_obs_num(f, "value", 1000);
	pf_exp_num(f, "min", 250000);
	pf_remedy(f, "sysctl -w net.core.netdev_max_backlog=250000");
	pf_add(&r[2].res, PF_STATUS_ERROR, "kernel.numa_balancing",
	       "cannot read /proc/sys/kernel/numa_balancing: No such file or directory");
	pf_result_finish(&r[2].res);
	r[2].duration_ms = 0.55;

	r[3].check = &pass_check;
	pf_result_init(&r[3].res);
	pf_add(&r[3].res, PF_STATUS_PASS, "process", "soft unlimited, hard unlimited");
	pf_result_finish(&r[3].res);
	r[3].duration_ms = 10.0;

	fx->report.version = "0.1.0";
	snprintf(fx->report.hostname, sizeof(fx->report.hostname), "gpu-047");
	snprintf(fx->report.kernel, sizeof(fx->report.kernel), "6.8.0-45-generic");
	fx->report.root = "/srv/snapshots/gpu-047";
	fx->report.profile = "generic";
	fx->report.started_at = 1763790192; /* 2025-11-22T05:43:12Z */
	fx->report.duration_ms = 41.66;
	fx->report.runs = fx->runs;
	fx->report.n_runs = 4;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	for (size_t i = 0; i < 4; i++) {
		pf_config_free(fx->runs[i].check, fx->runs[i].cfg);
		pf_result_release(&fx->runs[i].res);
	}
	free(fx);
	return 0;
}

static char *render(const struct pf_report *r, enum pf_format fmt, bool color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(pf_render(r, fmt, f, color), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void compare_golden(const char *name, const char *got)
{
	char path[PATH_MAX];
	char *want = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/golden/%s", PF_SOURCE_DIR, name);
	if (getenv("PF_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		assert_int_equal(fclose(f), 0);
		return;
	}
	f = fopen(path, "r");
	if (!f)
		fail_msg("missing %s (run with PF_UPDATE_GOLDEN=1)", path);
	n = getdelim(&want, &cap, '\0', f);
	fclose(f);
	assert_true(n >= 0);
	if (strcmp(want, got))
		fail_msg("%s differs from the output:\n%s", path, got);
	free(want);
}

static void test_golden_json(void **state)
{
	struct fx *fx = *state;
	char *out = render(&fx->report, PF_FORMAT_JSON, false);
	cJSON *j = cJSON_Parse(out);

	/* valid JSON with the top-level facts, before the byte comparison */
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "schema")->valuestring, PF_REPORT_SCHEMA);
	assert_string_equal(cJSON_GetObjectItem(j, "started_at")->valuestring,
			    "2025-11-22T05:43:12Z");
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "fail");
	assert_true(cJSON_GetObjectItem(j, "duration_ms")->valuedouble == 41.7);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "checks")), 4);
	cJSON_Delete(j);
	compare_golden("report.json", out);
	free(out);
}

static void test_golden_text(void **state)
{
	struct fx *fx = *state;
	char *out = render(&fx->report, PF_FORMAT_TEXT, false);

	assert_null(strchr(out, '\033'));
	compare_golden("report.txt", out);
	free(out);
}

/* Colour adds escape sequences and nothing else. */
static void test_color(void **state)
{
	struct fx *fx = *state;
	char *plain = render(&fx->report, PF_FORMAT_TEXT, false);
	char *color = render(&fx->report, PF_FORMAT_TEXT, true);
	char *stripped = pf_xstrdup(color), *w = stripped;

	assert_non_null(strstr(color, "\033[1;31mFAIL"));
	assert_non_null(strstr(color, "\033[0m"));
	for (const char *p = color; *p;) {
		if (p[0] == '\033' && p[1] == '[') {
			p += 2;
			while (*p && *p != 'm')
				p++;
			if (*p)
				p++;
			continue;
		}
		*w++ = *p++;
	}
	*w = '\0';
	assert_string_equal(stripped, plain);
	/* JSON never has colour */
	free(color);
	color = render(&fx->report, PF_FORMAT_JSON, true);
	assert_null(strchr(color, '\033'));
	free(plain);
	free(color);
	free(stripped);
}

static void test_verdict_and_counts(void **state)
{
	struct fx *fx = *state;
	size_t c[PF_STATUS_COUNT];

	pf_report_counts(&fx->report, c);
	assert_int_equal(c[PF_STATUS_PASS], 1);
	assert_int_equal(c[PF_STATUS_FAIL], 1);
	assert_int_equal(c[PF_STATUS_SKIP], 1);
	assert_int_equal(c[PF_STATUS_ERROR], 1);
	assert_int_equal(c[PF_STATUS_WARN], 0);
	assert_int_equal(pf_report_verdict(&fx->report), PF_STATUS_FAIL);
	/* without the fail: error */
	fx->report.runs = fx->runs + 1;
	fx->report.n_runs = 3;
	assert_int_equal(pf_report_verdict(&fx->report), PF_STATUS_ERROR);
	/* skip and pass only: pass */
	fx->report.runs = fx->runs + 3;
	fx->report.n_runs = 1;
	assert_int_equal(pf_report_verdict(&fx->report), PF_STATUS_PASS);
	fx->report.runs = fx->runs + 1;
	assert_int_equal(pf_report_verdict(&fx->report), PF_STATUS_PASS);
	/* nothing run: pass, all counts present and zero */
	fx->report.n_runs = 0;
	assert_int_equal(pf_report_verdict(&fx->report), PF_STATUS_PASS);
	{
		cJSON *j = pf_report_to_json(&fx->report);
		cJSON *counts = cJSON_GetObjectItem(j, "counts");

		assert_int_equal(cJSON_GetArraySize(counts), PF_STATUS_COUNT);
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "checks")), 0);
		cJSON_Delete(j);
	}
	fx->report.runs = fx->runs;
	fx->report.n_runs = 4;
}

static void test_formats(void **state)
{
	enum pf_format f;

	assert_int_equal(pf_format_from_name("json", &f), 0);
	assert_int_equal(f, PF_FORMAT_JSON);
	assert_int_equal(pf_format_from_name("text", &f), 0);
	assert_int_equal(f, PF_FORMAT_TEXT);
	assert_int_equal(pf_format_from_name("JSON", &f), -EINVAL);
	assert_int_equal(pf_format_from_name("yaml", &f), -EINVAL);
}

static void test_describe_node(void **state)
{
	char *dir = pf_test_mkdtemp();
	struct pf_report r = { 0 };
	struct pf_fs *fs = NULL;

	/* nothing under the root: "unknown" */
	assert_int_equal(pf_fs_open(dir, &fs), 0);
	pf_report_describe_node(&r, fs);
	assert_string_equal(r.hostname, "unknown");
	assert_string_equal(r.kernel, "unknown");
	/* /etc/hostname as a fallback, then /proc/sys/kernel/hostname wins */
	pf_test_write(dir, "etc/hostname", "from-etc\n");
	pf_test_write(dir, "proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
	pf_report_describe_node(&r, fs);
	assert_string_equal(r.hostname, "from-etc");
	assert_string_equal(r.kernel, "6.8.0-45-generic");
	pf_test_write(dir, "proc/sys/kernel/hostname", "gpu-047\n");
	pf_report_describe_node(&r, fs);
	assert_string_equal(r.hostname, "gpu-047");
	pf_fs_free(fs);
	pf_test_rmtree(dir);
	free(dir);
}

/*
 * issue 20 item 5: wrapping never breaks a fix: command inside its quotes
 * (a pasted half would run something else); plain words still wrap.
 */
static void test_wrap_keeps_quoted_fix(void **state)
{
	struct fx *fx = *state;
	struct pf_finding *f = pf_add(&fx->runs[3].res, PF_STATUS_FAIL, "process",
				      "hard limit 64 KiB, expected unlimited");
	pf_autofree char *text = NULL;
	const char *cmd = "'*  hard  memlock  unlimited'";
	const char *at;

	pf_remedy(f, "add %s and \"*  soft  memlock  unlimited\" to "
		  "/etc/security/limits.d/rdma.conf, then log in again", cmd);
	pf_result_finish(&fx->runs[3].res);
	fx->report.width = 40;
	text = render(&fx->report, PF_FORMAT_TEXT, false);
	at = strstr(text, cmd);
	assert_non_null(at); /* on one line, not split at a blank inside it */
	assert_non_null(strstr(text, "\"*  soft  memlock  unlimited\""));
	/* and the text still wraps: no line of the fix passes 40 columns but a quoted span */
	at = strstr(text, "fix: ");
	assert_non_null(at);
	assert_non_null(strchr(at, '\n'));
	assert_true(strchr(at, '\n') < strstr(at, "/etc/security"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_golden_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_golden_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_color, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrap_keeps_quoted_fix, setup, teardown),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_describe_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
