// SPDX-License-Identifier: MIT
/*
 * test_fleet.c - the fleet view: median, which keys are judged, per-check
 * counts, failing nodes and their first bad finding, outliers against the
 * fleet median (strictly below the fraction, min over subjects, series too
 * small to judge), newest report per hostname, rejected inputs, CSV
 * quoting, NIC firmware drift and NVLink domains (fleet_nvl.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet.h"
#include "fleet_drain.h"
#include "testutil.h"

/* A tiny report: @host, nic_link_speed with one finding per rate in @rates, memlock. */
static char *report(const char *host, const char *started, const char *memlock_status,
		    const double *rates, size_t n_rates)
{
	cJSON *j = cJSON_CreateObject(), *node, *checks, *chk, *fds;
	bool any_fail = !strcmp(memlock_status, "fail");
	char *s;

	cJSON_AddStringToObject(j, "schema", "preflight.report/v1");
	node = cJSON_AddObjectToObject(j, "node");
	cJSON_AddStringToObject(node, "hostname", host);
	cJSON_AddStringToObject(j, "started_at", started);
	checks = cJSON_AddArrayToObject(j, "checks");

	chk = cJSON_CreateObject();
	cJSON_AddStringToObject(chk, "name", "memlock");
	cJSON_AddStringToObject(chk, "status", memlock_status);
	cJSON_AddStringToObject(chk, "summary", "memlock summary");
	fds = cJSON_AddArrayToObject(chk, "findings");
	{
		cJSON *f = cJSON_CreateObject(), *o;

		cJSON_AddStringToObject(f, "subject", "process");
		cJSON_AddStringToObject(f, "status", memlock_status);
		cJSON_AddStringToObject(f, "message", "hard limit 64 KiB, expected unlimited");
		o = cJSON_AddObjectToObject(f, "observed");
		cJSON_AddNumberToObject(o, "soft_kib", 64); /* not a rate: never judged */
		cJSON_AddItemToArray(fds, f);
	}
	cJSON_AddItemToArray(checks, chk);

	chk = cJSON_CreateObject();
	cJSON_AddStringToObject(chk, "name", "nic_link_speed");
	cJSON_AddStringToObject(chk, "status", "pass");
	fds = cJSON_AddArrayToObject(chk, "findings");
	for (size_t i = 0; i < n_rates; i++) {
		cJSON *f = cJSON_CreateObject(), *o;
		char subj[32];

		snprintf(subj, sizeof(subj), "mlx5_%zu/1", i);
		cJSON_AddStringToObject(f, "subject", subj);
		cJSON_AddStringToObject(f, "status", "pass");
		cJSON_AddStringToObject(f, "message", "ok");
		o = cJSON_AddObjectToObject(f, "observed");
		cJSON_AddNumberToObject(o, "rate_gbps", rates[i]);
		cJSON_AddStringToObject(o, "width", "4X");
		cJSON_AddItemToArray(fds, f);
	}
	cJSON_AddItemToArray(checks, chk);
	cJSON_AddStringToObject(j, "verdict", any_fail ? "fail" : "pass");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static void add(struct pf_fleet *f, char *text, const char *origin)
{
	char *err = NULL;

	assert_int_equal(pf_fleet_add_report(f, text, strlen(text), origin, &err), 0);
	assert_null(err);
	free(text);
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_non_null(it);
	return it;
}

static const cJSON *check_counts(const cJSON *view, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, get(view, "checks"))
		if (!strcmp(get(c, "name")->valuestring, name))
			return c;
	fail_msg("no counts for %s", name);
	return NULL;
}

static void test_median(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };

	assert_true(isnan(pf_median(NULL, 0)));
	assert_true(pf_median(odd, 3) == 3);
	assert_true(pf_median(even, 4) == 2.5);
	assert_true(pf_median(one, 1) == 7);
}

static void test_key_is_rate(void **state)
{
	assert_true(pf_fleet_key_is_rate("rate_gbps"));
	assert_true(pf_fleet_key_is_rate("busbw_gbps"));
	assert_true(pf_fleet_key_is_rate("algbw"));
	assert_true(pf_fleet_key_is_rate("bandwidth"));
	assert_true(pf_fleet_key_is_rate("Host_BW_GBps"));
	assert_true(pf_fleet_key_is_rate("speed_mbps"));
	assert_false(pf_fleet_key_is_rate("width"));
	assert_false(pf_fleet_key_is_rate("soft_kib"));
	assert_false(pf_fleet_key_is_rate("count"));
}

static void test_counts_failing_outliers(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	double good[] = { 400, 400 }, slow[] = { 400, 200 }, edge[] = { 360, 400 };
	cJSON *view;
	const cJSON *fl, *ol, *c;
	char host[16];

	for (int i = 0; i < 5; i++) {
		snprintf(host, sizeof(host), "n%02d", i);
		add(f, report(host, "2026-11-22T05:00:00Z", "pass", good, 2), host);
	}
	add(f, report("slow", "2026-11-22T05:00:00Z", "pass", slow, 2), "slow.json");
	add(f, report("edge", "2026-11-22T05:00:00Z", "pass", edge, 2), "edge.json");
	add(f, report("bad", "2026-11-22T05:00:00Z", "fail", good, 2), "bad.json");
	pf_fleet_finish(f);

	assert_int_equal(pf_fleet_n_failing(f), 1);
	view = pf_fleet_to_json(f);
	assert_string_equal(get(view, "schema")->valuestring, PF_FLEET_SCHEMA);
	assert_int_equal(get(view, "nodes")->valueint, 8);
	assert_int_equal(get(get(view, "verdicts"), "fail")->valueint, 1);
	c = check_counts(view, "memlock");
	assert_int_equal(get(c, "pass")->valueint, 7);
	assert_int_equal(get(c, "fail")->valueint, 1);
	c = check_counts(view, "nic_link_speed");
	assert_int_equal(get(c, "pass")->valueint, 8);

	fl = get(view, "failing");
	assert_int_equal(cJSON_GetArraySize(fl), 1);
	fl = cJSON_GetArrayItem(fl, 0);
	assert_string_equal(get(fl, "node")->valuestring, "bad");
	fl = cJSON_GetArrayItem(get(fl, "checks"), 0);
	assert_string_equal(get(fl, "name")->valuestring, "memlock");
	assert_string_equal(get(fl, "subject")->valuestring, "process");
	assert_string_equal(get(fl, "message")->valuestring,
			    "hard limit 64 KiB, expected unlimited");

	/* median of the per-node minimum is 400: 200 is an outlier, 360 (exactly 90%) is not */
	ol = get(view, "outliers");
	assert_int_equal(cJSON_GetArraySize(ol), 1);
	ol = cJSON_GetArrayItem(ol, 0);
	assert_string_equal(get(ol, "node")->valuestring, "slow");
	assert_string_equal(get(ol, "check")->valuestring, "nic_link_speed");
	assert_string_equal(get(ol, "key")->valuestring, "rate_gbps");
	assert_string_equal(get(ol, "subject")->valuestring, "mlx5_1/1");
	assert_true(get(ol, "value")->valuedouble == 200);
	assert_true(get(ol, "median")->valuedouble == 400);
	assert_true(get(ol, "ratio")->valuedouble == 0.5);
	cJSON_Delete(view);
	pf_fleet_free(f);
}

static void test_fraction_is_a_parameter(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.95);
	double good[] = { 400 }, edge[] = { 370 };
	cJSON *view;

	for (int i = 0; i < 3; i++)
		add(f, report(i ? "b" : "a", "t", "pass", good, 1), "x");
	/* "b" twice: the second, same started_at, supersedes the first */
	add(f, report("c", "t", "pass", good, 1), "c");
	add(f, report("edge", "t", "pass", edge, 1), "edge");
	pf_fleet_finish(f);
	view = pf_fleet_to_json(f);
	assert_int_equal(get(view, "nodes")->valueint, 4);
	assert_int_equal(get(get(view, "inputs"), "superseded")->valueint, 1);
	assert_int_equal(cJSON_GetArraySize(get(view, "outliers")), 1);
	cJSON_Delete(view);
	pf_fleet_free(f);
}

static void test_small_series_not_judged(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	double good[] = { 400 }, slow[] = { 100 };
	cJSON *view;

	add(f, report("a", "t", "pass", good, 1), "a");
	add(f, report("b", "t", "pass", slow, 1), "b");
	pf_fleet_finish(f);
	view = pf_fleet_to_json(f);
	assert_int_equal(cJSON_GetArraySize(get(view, "outliers")), 0);
	assert_false(cJSON_IsTrue(get(cJSON_GetArrayItem(get(view, "series"), 0), "judged")));
	cJSON_Delete(view);
	pf_fleet_free(f);
}

static void test_newest_report_wins(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	double good[] = { 400 };

	add(f, report("a", "2026-11-22T06:00:00Z", "pass", good, 1), "new");
	add(f, report("a", "2026-11-22T05:00:00Z", "fail", good, 1), "old");
	pf_fleet_finish(f);
	assert_int_equal(pf_fleet_n_failing(f), 0);
	assert_int_equal(pf_fleet_n_reports(f), 2);
	pf_fleet_free(f);
}

static void test_rejects(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	static const char *const bad[] = {
		"{ not json",
		"[1, 2]",
		"{\"schema\": \"preflight.fleet/v1\", \"checks\": []}",
		"{\"schema\": \"preflight.report/v1\"}",
		"{\"schema\": \"preflight.report/v1\", \"checks\": [{\"name\": \"x\", \"status\": \"meh\"}]}",
	};
	static const char *const why[] = { "not valid JSON",
					   "not a preflight.report/v1 report (schema missing)",
					   "not a preflight.report/v1 report (unknown schema)",
					   "report has no 'checks' array",
					   "malformed report: a check without a valid name and status" };

	for (size_t i = 0; i < PF_ARRAY_SIZE(bad); i++) {
		char *err = NULL;

		assert_int_equal(pf_fleet_add_report(f, bad[i], strlen(bad[i]), "x", &err), -EINVAL);
		assert_string_equal(err, why[i]);
		free(err);
	}
	assert_int_equal(pf_fleet_n_rejected(f), PF_ARRAY_SIZE(bad));
	assert_int_equal(pf_fleet_n_reports(f), 0);
	pf_fleet_free(f);
}

static void test_views_are_clean(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	double rates[] = { 400 };
	char *text = report("evil\033[2J\xff", "t", "fail", rates, 1);
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	add(f, text, "evil.json");
	pf_fleet_finish(f);
	for (int fmt = PF_FLEET_TEXT; fmt <= PF_FLEET_CSV; fmt++) {
		out = open_memstream(&buf, &len);
		assert_int_equal(pf_fleet_render(f, (enum pf_fleet_format)fmt, out), 0);
		fclose(out);
		assert_null(strchr(buf, '\033'));
		assert_null(strchr(buf, '\xff'));
		assert_non_null(strstr(buf, "evil"));
		free(buf);
	}
	pf_fleet_free(f);
}

static char *csv(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	pf_csv_field(out, s);
	fclose(out);
	return buf;
}

static void test_csv_quoting(void **state)
{
	static const char *const cases[][2] = {
		{ "plain", "plain" },
		{ "", "" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "\"two\nlines\"" },
		{ "cr\r", "\"cr\r\"" },
		{ "400 Gb/sec (4X NDR)", "400 Gb/sec (4X NDR)" },
		/* formula-like cells get an apostrophe (CSV injection); numbers do not */
		{ "=HYPERLINK(\"http://x/\",\"y\")", "\"'=HYPERLINK(\"\"http://x/\"\",\"\"y\"\")\"" },
		{ "+1+cmd", "\"'+1+cmd\"" },
		{ "-2+3", "\"'-2+3\"" },
		{ "@SUM(A1)", "\"'@SUM(A1)\"" },
		{ "\tx", "\"'\tx\"" },
		{ "-1", "-1" },
		{ "-1.5e3", "-1.5e3" },
		{ "+7", "+7" },
		{ "-inf", "\"'-inf\"" },
		{ "a=b", "a=b" },
	};

	for (size_t i = 0; i < PF_ARRAY_SIZE(cases); i++) {
		char *got = csv(cases[i][0]);

		assert_string_equal(got, cases[i][1]);
		free(got);
	}
}

/* --drain-suspects: only a plain name that is some report's own node.hostname. */
static void test_drain_refusal(void **state)
{
	struct pf_strmap own = { 0 };
	static const char *const sets[] = { "ALL", "all", "node[1-9]", "a,b", "a b", "n*",
					    "-n1", "" };

	pf_strmap_put(&own, "node-001", 1);
	pf_strmap_put(&own, "gpu-a12.cluster.local", 1);
	pf_strmap_put(&own, "dgx_07", 1);
	pf_strmap_put(&own, "ALL", 1); /* even a report that calls itself ALL */
	assert_null(fl_drain_refusal("node-001", &own));
	assert_null(fl_drain_refusal("gpu-a12.cluster.local", &own));
	assert_null(fl_drain_refusal("dgx_07", &own));
	assert_string_equal(fl_drain_refusal("node-002", &own), "not a reporting node");
	for (size_t i = 0; i < PF_ARRAY_SIZE(sets); i++)
		assert_string_equal(fl_drain_refusal(sets[i], &own), "not a plain host name");
	pf_strmap_release(&own);
}

/* A report whose nic_health saw mlx5_0 and mlx5_1 with @psid running @fw0 and @fw1. */
static char *fw_report(const char *host, const char *psid, const char *fw0, const char *fw1)
{
	cJSON *j = cJSON_CreateObject(), *checks, *chk, *fds;
	char *s;

	cJSON_AddStringToObject(j, "schema", "preflight.report/v1");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "node"), "hostname", host);
	cJSON_AddStringToObject(j, "started_at", "2026-11-22T05:00:00Z");
	checks = cJSON_AddArrayToObject(j, "checks");
	chk = cJSON_CreateObject();
	cJSON_AddStringToObject(chk, "name", "nic_health");
	cJSON_AddStringToObject(chk, "status", "pass");
	fds = cJSON_AddArrayToObject(chk, "findings");
	for (int i = 0; i < 2; i++) {
		cJSON *f = cJSON_CreateObject(), *o;

		cJSON_AddStringToObject(f, "subject", i ? "mlx5_1" : "mlx5_0");
		cJSON_AddStringToObject(f, "status", "pass");
		cJSON_AddStringToObject(f, "message", "healthy");
		o = cJSON_AddObjectToObject(f, "observed");
		cJSON_AddStringToObject(o, "psid", psid);
		cJSON_AddStringToObject(o, "fw_running", i ? fw1 : fw0);
		cJSON_AddItemToArray(fds, f);
	}
	cJSON_AddItemToArray(checks, chk);
	cJSON_AddStringToObject(j, "verdict", "pass");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static void test_firmware_drift(void **state)
{
	struct pf_fleet *f = pf_fleet_new(0.9);
	double good[] = { 400 };
	const cJSON *arr, *e;
	cJSON *view;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	add(f, fw_report("n01", "MT_0000000838", "28.39.1002", "28.39.1002"), "n01");
	add(f, fw_report("n02", "MT_0000000838", "28.39.1002", "28.39.1002"), "n02");
	add(f, fw_report("n03", "MT_0000000838", "28.39.1002", "28.41.1000"), "n03");
	/* another board (PSID) on its own version is not drift */
	add(f, fw_report("n04", "MT_0000000970", "32.40.1000", "32.40.1000"), "n04");
	pf_fleet_finish(f);
	view = pf_fleet_to_json(f);
	arr = get(view, "firmware_drift");
	assert_int_equal(cJSON_GetArraySize(arr), 1);
	e = cJSON_GetArrayItem(arr, 0);
	assert_string_equal(get(e, "node")->valuestring, "n03");
	assert_string_equal(get(e, "subject")->valuestring, "mlx5_1");
	assert_string_equal(get(e, "fw")->valuestring, "28.41.1000");
	assert_string_equal(get(e, "majority")->valuestring, "28.39.1002");
	assert_int_equal(get(e, "majority_nics")->valueint, 5);
	assert_int_equal(get(e, "psid_nics")->valueint, 6);
	cJSON_Delete(view);
	out = open_memstream(&text, &len);
	assert_int_equal(pf_fleet_render(f, PF_FLEET_TEXT, out), 0);
	fclose(out);
	pf_test_assert_contains(text, "NIC firmware drift (1 NIC off the majority of their PSID)");
	pf_test_assert_contains(text, "28.39.1002 (5 of 6)");
	free(text);
	pf_fleet_free(f);

	/* no nic_health in any report: no section, no key */
	f = pf_fleet_new(0.9);
	add(f, report("n01", "2026-11-22T05:00:00Z", "pass", good, 1), "n01");
	pf_fleet_finish(f);
	view = pf_fleet_to_json(f);
	assert_null(cJSON_GetObjectItemCaseSensitive(view, "firmware_drift"));
	cJSON_Delete(view);
	pf_fleet_free(f);
}

#define RACK_A "8c1d2e3f-0000-4a5b-9c6d-7e8f90a1b2c3"
#define RACK_B "00a1b2c3-d4e5-4f60-8172-8394a5b6c7d8"
#define NO_CLUSTER "00000000-0000-0000-0000-000000000000"

/* A report whose nvlink_fabric saw 4 GPUs: GPU i in cluster @uuid[i], clique @clique[i]. */
static char *nvl_report(const char *host, const char *const uuid[4], const unsigned clique[4])
{
	cJSON *j = cJSON_CreateObject(), *checks, *chk, *fds;
	char *s;

	cJSON_AddStringToObject(j, "schema", "preflight.report/v1");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(j, "node"), "hostname", host);
	cJSON_AddStringToObject(j, "started_at", "2026-11-22T05:00:00Z");
	checks = cJSON_AddArrayToObject(j, "checks");
	chk = cJSON_CreateObject();
	cJSON_AddStringToObject(chk, "name", "nvlink_fabric");
	cJSON_AddStringToObject(chk, "status", "pass");
	fds = cJSON_AddArrayToObject(chk, "findings");
	for (int i = 0; i < 4; i++) {
		cJSON *f = cJSON_CreateObject(), *o;
		char bdf[16];

		snprintf(bdf, sizeof(bdf), "0008:%02x:00.0", i + 1);
		cJSON_AddStringToObject(f, "subject", bdf);
		cJSON_AddStringToObject(f, "status", "pass");
		cJSON_AddStringToObject(f, "message", "NVLink fabric completed");
		o = cJSON_AddObjectToObject(f, "observed");
		cJSON_AddStringToObject(o, "state", "completed");
		cJSON_AddNumberToObject(o, "clique_id", clique[i]);
		cJSON_AddStringToObject(o, "cluster_uuid", uuid[i]);
		cJSON_AddItemToArray(fds, f);
	}
	cJSON_AddItemToArray(checks, chk);
	cJSON_AddStringToObject(j, "verdict", "pass");
	s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

static const char *const rack_a[4] = { RACK_A, RACK_A, RACK_A, RACK_A };
static const char *const rack_b[4] = { RACK_B, RACK_B, RACK_B, RACK_B };
static const char *const hgx[4] = { NO_CLUSTER, NO_CLUSTER, NO_CLUSTER, NO_CLUSTER };
static const unsigned nvl72[4] = { 32766, 32766, 32766, 32766 };

/* The fleet of @n reports, finished; its JSON view's "nvlink_domains" odd list, or NULL. */
static cJSON *nvl_view(struct pf_fleet *f, char *const *reports, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char origin[16];

		snprintf(origin, sizeof(origin), "r%zu", i);
		add(f, reports[i], origin);
	}
	pf_fleet_finish(f);
	return pf_fleet_to_json(f);
}

static void assert_odd(const cJSON *view, const char *const *hosts, size_t n)
{
	const cJSON *odd = get(get(view, "nvlink_domains"), "odd");

	assert_int_equal(cJSON_GetArraySize(odd), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(get(cJSON_GetArrayItem(odd, (int)i), "node")->valuestring,
				    hosts[i]);
}

static void test_nvlink_domains(void **state)
{
	const unsigned zero[4] = { 0, 0, 0, 0 }, other[4] = { 7, 7, 7, 7 };
	const unsigned mixed[4] = { 32766, 32766, 32766, 7 };
	struct pf_fleet *f;
	char *text = NULL;
	size_t len = 0;
	cJSON *view;
	FILE *out;

	(void)state;
	/* a healthy rack (4 trays of one cluster and clique) and a second rack whose
	 * clique has the same number: silent, two clusters listed */
	f = pf_fleet_new(0.9);
	view = nvl_view(f, (char *[]){ nvl_report("a1", rack_a, nvl72), nvl_report("a2", rack_a, nvl72),
		nvl_report("a3", rack_a, nvl72), nvl_report("a4", rack_a, nvl72),
		nvl_report("b1", rack_b, nvl72) }, 5);
	assert_odd(view, NULL, 0);
	assert_int_equal(cJSON_GetArraySize(get(get(view, "nvlink_domains"), "clusters")), 2);
	cJSON_Delete(view);
	out = open_memstream(&text, &len);
	assert_int_equal(pf_fleet_render(f, PF_FLEET_TEXT, out), 0);
	fclose(out);
	pf_test_assert_contains(text, "NVLink domains: every node reports its cluster's clique.");
	free(text);
	pf_fleet_free(f);

	/* one tray in clique 0, one in another clique, one split across cliques: each named */
	f = pf_fleet_new(0.9);
	view = nvl_view(f, (char *[]){ nvl_report("a1", rack_a, nvl72), nvl_report("a2", rack_a, nvl72),
		nvl_report("a3", rack_a, nvl72), nvl_report("a4", rack_a, zero),
		nvl_report("a5", rack_a, other), nvl_report("a6", rack_a, mixed) }, 6);
	assert_odd(view, (const char *const[]){ "a4", "a5", "a6" }, 3);
	{
		const cJSON *odd = get(get(view, "nvlink_domains"), "odd");
		const cJSON *e = cJSON_GetArrayItem(odd, 1);

		assert_int_equal(get(e, "clique_id")->valueint, 7);
		assert_int_equal(get(e, "majority_clique")->valueint, 32766);
		assert_int_equal(get(e, "majority_nodes")->valueint, 4);
		assert_int_equal(get(e, "cluster_nodes")->valueint, 6);
		assert_true(cJSON_IsTrue(get(cJSON_GetArrayItem(odd, 2), "split")));
	}
	cJSON_Delete(view);
	text = NULL;
	out = open_memstream(&text, &len);
	assert_int_equal(pf_fleet_render(f, PF_FLEET_TEXT, out), 0);
	fclose(out);
	pf_test_assert_contains(text, "NVLink domain drift (3 nodes off their cluster's clique)");
	pf_test_assert_contains(text, "clique 7, while 4 of 6 nodes of its cluster report clique 32766");
	pf_test_assert_contains(text, "clique 0: outside the NVLink partition");
	free(text);
	pf_fleet_free(f);

	/* HGX nodes (Fabric Manager leaves clique and cluster zero), a malformed UUID:
	 * no section at all */
	f = pf_fleet_new(0.9);
	view = nvl_view(f, (char *[]){ nvl_report("h1", hgx, zero), nvl_report("h2", hgx, zero),
		nvl_report("h3", (const char *const[]){ "8C1D2E3F-0000-4A5B-9C6D-7E8F90A1B2C3",
			"x", RACK_A "0", "" }, nvl72) }, 3);
	assert_null(cJSON_GetObjectItemCaseSensitive(view, "nvlink_domains"));
	cJSON_Delete(view);
	text = NULL;
	out = open_memstream(&text, &len);
	assert_int_equal(pf_fleet_render(f, PF_FLEET_TEXT, out), 0);
	fclose(out);
	assert_null(strstr(text, "NVLink"));
	free(text);
	pf_fleet_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_key_is_rate),
		cmocka_unit_test(test_counts_failing_outliers),
		cmocka_unit_test(test_fraction_is_a_parameter),
		cmocka_unit_test(test_small_series_not_judged),
		cmocka_unit_test(test_newest_report_wins),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_views_are_clean),
		cmocka_unit_test(test_drain_refusal),
		cmocka_unit_test(test_firmware_drift),
		cmocka_unit_test(test_nvlink_domains),
		cmocka_unit_test(test_csv_quoting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
