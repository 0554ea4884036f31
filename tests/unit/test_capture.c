// SPDX-License-Identifier: MIT
/*
 * test_capture.c - `preflight profile capture` from finished results: the
 * observed port count, slowest rate, narrowest width, RoCE MTU, GPU count,
 * driver, worst GPU-NIC class and PFC priority become profile keys; the
 * profile loads back through pf_profile_parse and validates against the
 * registry; a failing check contributes nothing (with a note) except for
 * configuration observations; values outside a parameter's range are left
 * out with a note; the keys of the profile and --set the checks ran with
 * are kept, captured values replacing theirs.
 */
#include <string.h>

#include "capture.h"
#include "profile.h"
#include "registry.h"
#include "testutil.h"

struct fx {
	struct pf_run runs[8];
	size_t n;
	struct pf_report report;
};

/* A run of @check, or NULL when the check is not in this build's registry. */
static struct pf_result *add_run(struct fx *fx, const char *check)
{
	struct pf_run *run = &fx->runs[fx->n];

	run->check = pf_registry_find(check);
	if (!run->check)
		return NULL;
	fx->n++;
	pf_result_init(&run->res);
	return &run->res;
}

static struct pf_result *run_of(struct fx *fx, const char *check)
{
	for (size_t i = 0; i < fx->n; i++)
		if (!strcmp(fx->runs[i].check->name, check))
			return &fx->runs[i].res;
	return NULL;
}

static bool have(const char *check)
{
	return pf_registry_find(check) != NULL;
}

static void port(struct pf_result *res, const char *subject, const char *state, double rate,
		 const char *width, const char *link_layer, double mtu)
{
	struct pf_finding *f = pf_add(res, PF_STATUS_PASS, subject, "port");

	pf_obs_str(f, "state", state);
	if (rate > 0) {
		pf_obs_num(f, "rate_gbps", rate);
		pf_obs_str(f, "width", width);
	}
	pf_obs_str(f, "link_layer", link_layer);
	if (mtu > 0)
		pf_obs_num(f, "netdev_mtu", mtu);
}

static void fx_init(struct fx *fx)
{
	struct pf_result *res;
	struct pf_finding *f;

	memset(fx, 0, sizeof(*fx));
	res = add_run(fx, "nic_link_speed");
	assert_non_null(res);
	port(res, "mlx5_0/1", "ACTIVE", 400, "4X", "Ethernet", 9000);
	port(res, "mlx5_1/1", "ACTIVE", 200, "2X", "Ethernet", 4200);
	port(res, "mlx5_2/1", "DOWN", 0, NULL, "Ethernet", 1500); /* counted, not measured */
	pf_add(res, PF_STATUS_SKIP, "scif0", "no PCI function");

	/* the other checks may not be in every build: what is absent is simply not captured */
	if ((res = add_run(fx, "gpu_nic_numa"))) {
		f = pf_add(res, PF_STATUS_PASS, "0000:18:00.0", "PIX");
		pf_obs_str(f, "class", "PIX");
		f = pf_add(res, PF_STATUS_WARN, "0000:3a:00.0", "PXB");
		pf_obs_str(f, "class", "PXB");
	}
	if ((res = add_run(fx, "gpu_inventory"))) {
		f = pf_add(res, PF_STATUS_PASS, "driver", "550.54.15");
		pf_obs_str(f, "version", "550.54.15");
		f = pf_add(res, PF_STATUS_PASS, "gpus", "8 GPUs");
		pf_obs_num(f, "pci_gpus", 8);
	}
	if ((res = add_run(fx, "pfc_pause"))) {
		f = pf_add(res, PF_STATUS_FAIL, "eth0", "PFC off for priority 3 (enabled: 4)");
		pf_obs_str(f, "pfc_enabled", "4");
		f = pf_add(res, PF_STATUS_FAIL, "eth1", "PFC off for priority 3 (enabled: 4)");
		pf_obs_str(f, "pfc_enabled", "4");
	}

	for (size_t i = 0; i < fx->n; i++)
		pf_result_finish(&fx->runs[i].res);
	fx->report = (struct pf_report){ .version = "test", .root = "/fixture", .runs = fx->runs,
					 .n_runs = fx->n, .started_at = 0 };
	snprintf(fx->report.hostname, sizeof(fx->report.hostname), "gold-01");
	snprintf(fx->report.kernel, sizeof(fx->report.kernel), "6.8.0");
}

static void fx_release(struct fx *fx)
{
	for (size_t i = 0; i < fx->n; i++)
		pf_result_release(&fx->runs[i].res);
}

static const cJSON *key(const cJSON *prof, const char *check, const char *k)
{
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(prof, "checks"), check);

	return cJSON_GetObjectItemCaseSensitive(sec, k);
}

static void assert_num(const cJSON *prof, const char *check, const char *k, double v)
{
	const cJSON *it = key(prof, check, k);

	if (!cJSON_IsNumber(it) || it->valuedouble != v)
		fail_msg("%s.%s: expected %g", check, k, v);
}

static void assert_str(const cJSON *prof, const char *check, const char *k, const char *v)
{
	const cJSON *it = key(prof, check, k);

	if (!cJSON_IsString(it) || strcmp(it->valuestring, v))
		fail_msg("%s.%s: expected \"%s\"", check, k, v);
}

static void test_capture_and_load_back(void **state)
{
	struct fx fx;
	cJSON *prof = NULL;
	char **notes = NULL, *err = NULL, *text;
	struct pf_profile p;
	size_t n_all;
	const struct pf_check *const *all = pf_registry(&n_all);
	void *cfg = NULL;

	fx_init(&fx);
	assert_int_equal(pf_capture_profile(&fx.report, NULL, NULL, &prof, &notes, &err), 0);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(prof, "name")->valuestring,
			    "captured-gold-01");
	assert_num(prof, "nic_link_speed", "expected_ports", 3);
	assert_num(prof, "nic_link_speed", "min_rate_gbps", 200);
	assert_num(prof, "nic_link_speed", "min_width", 2);
	assert_num(prof, "nic_link_speed", "roce_netdev_mtu", 4200);
	if (have("gpu_nic_numa"))
		assert_str(prof, "gpu_nic_numa", "worst_class", "PXB");
	if (have("gpu_inventory")) {
		assert_num(prof, "gpu_inventory", "expected_gpus", 8);
		assert_str(prof, "gpu_inventory", "min_driver", "550.54.15");
	}
	/* pfc_pause failed, but its priority is configuration: captured */
	if (have("pfc_pause"))
		assert_num(prof, "pfc_pause", "roce_prio", 4);
	/* nvidia_peermem did not run: nothing from it */
	assert_null(key(prof, "nvidia_peermem", "require"));

	/* load it back as a profile file would be, and build a config from it */
	text = cJSON_Print(prof);
	pf_profile_init(&p);
	assert_int_equal(pf_profile_parse(&p, text, "captured", &err), 0);
	assert_int_equal(pf_profile_validate(&p, all, n_all, &err), 0);
	assert_int_equal(pf_config_build(pf_registry_find("nic_link_speed"), &p, &cfg, &err), 0);
	pf_config_free(pf_registry_find("nic_link_speed"), cfg);
	pf_profile_release(&p);
	free(text);
	pf_strv_free(notes);
	cJSON_Delete(prof);
	fx_release(&fx);
}

static void test_failing_check_not_captured(void **state)
{
	struct fx fx;
	cJSON *prof = NULL;
	char **notes = NULL, *err = NULL;
	struct pf_finding *f;

	fx_init(&fx);
	/* a port that fails: nic_link_speed is no reference any more */
	f = pf_add(run_of(&fx, "nic_link_speed"), PF_STATUS_FAIL, "mlx5_3/1", "active at 100 Gb/s");
	pf_obs_str(f, "state", "ACTIVE");
	pf_obs_num(f, "rate_gbps", 100);
	pf_result_finish(run_of(&fx, "nic_link_speed"));
	assert_int_equal(pf_capture_profile(&fx.report, NULL, NULL, &prof, &notes, &err), 0);
	assert_null(key(prof, "nic_link_speed", "expected_ports"));
	assert_null(key(prof, "nic_link_speed", "min_rate_gbps"));
	assert_true(pf_test_notes_have(
		notes, "nic_link_speed.min_rate_gbps not captured: nic_link_speed is fail"));
	if (have("gpu_nic_numa"))
		assert_str(prof, "gpu_nic_numa", "worst_class", "PXB");
	pf_strv_free(notes);
	cJSON_Delete(prof);
	fx_release(&fx);
}

static void test_out_of_range_left_out(void **state)
{
	struct fx fx;
	cJSON *prof = NULL;
	char **notes = NULL, *err = NULL;
	struct pf_result *res;

	fx_init(&fx);
	/* expected_ports is at most 1024: a node with more ports cannot be captured */
	res = run_of(&fx, "nic_link_speed");
	for (int i = 0; i < 1030; i++) {
		char subject[32];

		snprintf(subject, sizeof(subject), "dev%d/1", i);
		pf_obs_str(pf_add(res, PF_STATUS_PASS, subject, "down"), "state", "DOWN");
	}
	assert_int_equal(pf_capture_profile(&fx.report, NULL, NULL, &prof, &notes, &err), 0);
	assert_null(key(prof, "nic_link_speed", "expected_ports"));
	assert_true(pf_test_notes_have(notes, "nic_link_speed.expected_ports not captured: "
					      "observed value out of the parameter's range"));
	assert_num(prof, "nic_link_speed", "min_rate_gbps", 200);
	pf_strv_free(notes);
	cJSON_Delete(prof);
	fx_release(&fx);
}

static void test_keeps_the_base_profile(void **state)
{
	struct fx fx;
	struct pf_profile base;
	cJSON *prof = NULL;
	char **notes = NULL, *err = NULL;
	const cJSON *it;

	fx_init(&fx);
	pf_profile_init(&base);
	assert_int_equal(pf_profile_parse(&base, "{\"name\": \"site\", \"checks\": {"
					  "\"nic_link_speed\": {\"ignore\": \"mlx5_9\", "
					  "\"min_rate_gbps\": 100}}}", "site.json", &err), 0);
	pf_profile_add_set(&base, "nic_link_speed.infer=false");
	pf_profile_add_set(&base, "nic_link_speed.active_mtu=1024");
	assert_int_equal(pf_capture_profile(&fx.report, NULL, &base, &prof, &notes, &err), 0);
	assert_str(prof, "nic_link_speed", "ignore", "mlx5_9");
	assert_num(prof, "nic_link_speed", "active_mtu", 1024);
	it = key(prof, "nic_link_speed", "infer");
	assert_true(cJSON_IsBool(it) && cJSON_IsFalse(it));
	/* the observation replaces the file's value */
	assert_num(prof, "nic_link_speed", "min_rate_gbps", 200);
	pf_profile_release(&base);
	pf_strv_free(notes);
	cJSON_Delete(prof);
	fx_release(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_and_load_back),
		cmocka_unit_test(test_failing_check_not_captured),
		cmocka_unit_test(test_out_of_range_left_out),
		cmocka_unit_test(test_keeps_the_base_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
