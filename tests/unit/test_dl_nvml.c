// SPDX-License-Identifier: MIT
/*
 * test_dl_nvml.c - the NVML table: missing library, missing required and
 * optional symbols, error strings.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "preflight/gpu.h"

static void missing_library(void **state)
{
	struct pf_nvml_table t;
	char *err = NULL;

	setenv("PF_NVML_PATH", "/nonexistent/libnvidia-ml.so.1", 1);
	assert_int_equal(pf_dl_load(&pf_dl_nvml_lib, &t, &err), -ENOENT);
	assert_non_null(strstr(err, "libnvidia-ml.so.1"));
	free(err);
	unsetenv("PF_NVML_PATH");
}

static void missing_symbol(void **state)
{
	struct pf_nvml_table t;
	char *err = NULL;

	setenv("PF_NVML_PATH", pf_test_libm(), 1);
	assert_int_equal(pf_dl_load(&pf_dl_nvml_lib, &t, &err), -ENOSYS);
	assert_non_null(strstr(err, " has no nvmlInit_v2"));
	assert_non_null(strstr(err, pf_test_libm()));
	assert_non_null(strstr(err, "install the NVIDIA driver's NVML library"));
	free(err);
	unsetenv("PF_NVML_PATH");
}

/* Page retirement and row remapping are optional: older drivers lack them. */
static void optional_symbols(void **state)
{
	bool retired = false, remap = false, init = false;

	for (size_t i = 0; i < pf_dl_nvml_lib.n_syms; i++) {
		const struct pf_dl_sym *s = &pf_dl_nvml_lib.syms[i];

		if (!strcmp(s->names, "nvmlDeviceGetRetiredPages"))
			retired = s->optional;
		if (!strcmp(s->names, "nvmlDeviceGetRemappedRows"))
			remap = s->optional;
		if (!strcmp(s->names, "nvmlInit_v2"))
			init = !s->optional;
	}
	assert_true(retired);
	assert_true(remap);
	assert_true(init);
}

/*
 * gpu_health's and nvlink_links' queries are all optional (a driver without
 * one is a skip naming it), and the clock-event reasons fall back to their
 * name before r535.
 */
static void health_symbols_optional(void **state)
{
	static const char *const names[] = {
		"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetTemperature",
		"nvmlDeviceGetTemperatureThreshold", "nvmlDeviceGetPowerManagementLimit",
		"nvmlDeviceGetPowerManagementDefaultLimit", "nvmlDeviceGetTotalEccErrors",
		"nvmlDeviceGetPcieReplayCounter", "nvmlDeviceGetArchitecture",
		"nvmlDeviceGetNvLinkState", "nvmlDeviceGetNvLinkErrorCounter",
		"nvmlDeviceGetFieldValues",
	};

	for (size_t k = 0; k < PF_ARRAY_SIZE(names); k++) {
		const struct pf_dl_sym *found = NULL;

		for (size_t i = 0; i < pf_dl_nvml_lib.n_syms; i++)
			if (!strcmp(pf_dl_nvml_lib.syms[i].names, names[k]))
				found = &pf_dl_nvml_lib.syms[i];
		if (!found)
			fail_msg("%s is not in the NVML table", names[k]);
		assert_true(found->optional);
		if (!strcmp(names[k], "nvmlDeviceGetCurrentClocksEventReasons"))
			assert_string_equal(found->names + strlen(found->names) + 1,
					    "nvmlDeviceGetCurrentClocksThrottleReasons");
	}
}

static void strerror_fallback(void **state)
{
	static const char *const bdfs[] = { "0000:1b:00.0" };
	const struct pf_nvml_table *nv;
	char *err = NULL, buf[96];

	assert_string_equal(pf_nvml_strerror(NULL, 999, buf, sizeof(buf)), "NVML error 999");
	pf_fake_gpu_reset(1, bdfs);
	assert_int_equal(pf_fake_gpu_provider.nvml(NULL, &nv, &err), 0);
	assert_string_equal(pf_nvml_strerror(nv, PF_NVML_ERROR_LIB_RM_VERSION_MISMATCH, buf,
					     sizeof(buf)),
			    "RM has detected an NVML/RM version mismatch.");
}

/* Our nvmlPciInfo_t leaves room for a driver whose struct grew. */
static void pci_info_padding(void **state)
{
	assert_int_equal(sizeof(struct pf_nvml_pci_info), 68);
	assert_true(sizeof(union pf_nvml_pci_info_buf) >= 2 * sizeof(struct pf_nvml_pci_info));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(missing_library),
		cmocka_unit_test(missing_symbol),
		cmocka_unit_test(optional_symbols),
		cmocka_unit_test(health_symbols_optional),
		cmocka_unit_test(strerror_fallback),
		cmocka_unit_test(pci_info_padding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
