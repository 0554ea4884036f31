// SPDX-License-Identifier: MIT
/*
 * dl_nvml.c - the NVML (libnvidia-ml.so.1) symbol table.
 *
 * NVML answers what CUDA does not: the driver version string, persistence
 * mode, retired pages and row remapping, and for gpu_health and nvlink_links
 * clock-event reasons, temperatures, power limits, ECC and PCIe replay
 * counts, NVLink states and error counters.  Page retirement (pre-Ampere),
 * row remapping (Ampere+) and the health and NVLink queries are optional
 * symbols; older drivers lack some of them.
 */
#include <pthread.h>
#include <stdio.h>

#include "preflight/gpu.h"
#include "preflight/macro.h"
#include "dl_once.h"

#define SYM(field, names, opt) { names "\0", offsetof(struct pf_nvml_table, field), opt }

static const struct pf_dl_sym nvml_syms[] = {
	SYM(nvmlInit, "nvmlInit_v2", false),
	SYM(nvmlShutdown, "nvmlShutdown", false),
	SYM(nvmlErrorString, "nvmlErrorString", false),
	SYM(nvmlSystemGetDriverVersion, "nvmlSystemGetDriverVersion", false),
	SYM(nvmlDeviceGetCount, "nvmlDeviceGetCount_v2", false),
	SYM(nvmlDeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2", false),
	SYM(nvmlDeviceGetPciInfo, "nvmlDeviceGetPciInfo_v3", false),
	SYM(nvmlDeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode", false),
	SYM(nvmlDeviceGetRetiredPages, "nvmlDeviceGetRetiredPages", true),
	SYM(nvmlDeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus", true),
	SYM(nvmlDeviceGetRemappedRows, "nvmlDeviceGetRemappedRows", true),
	/* gpu_health, nvlink_links; the event reasons' name before r535: ...ThrottleReasons */
	SYM(nvmlDeviceGetCurrentClocksEventReasons,
	    "nvmlDeviceGetCurrentClocksEventReasons\0nvmlDeviceGetCurrentClocksThrottleReasons", true),
	SYM(nvmlDeviceGetTemperature, "nvmlDeviceGetTemperature", true),
	SYM(nvmlDeviceGetTemperatureThreshold, "nvmlDeviceGetTemperatureThreshold", true),
	SYM(nvmlDeviceGetPowerManagementLimit, "nvmlDeviceGetPowerManagementLimit", true),
	SYM(nvmlDeviceGetPowerManagementDefaultLimit, "nvmlDeviceGetPowerManagementDefaultLimit",
	    true),
	SYM(nvmlDeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors", true),
	SYM(nvmlDeviceGetPcieReplayCounter, "nvmlDeviceGetPcieReplayCounter", true),
	SYM(nvmlDeviceGetArchitecture, "nvmlDeviceGetArchitecture", true),
	SYM(nvmlDeviceGetNvLinkState, "nvmlDeviceGetNvLinkState", true),
	SYM(nvmlDeviceGetNvLinkErrorCounter, "nvmlDeviceGetNvLinkErrorCounter", true),
	SYM(nvmlDeviceGetFieldValues, "nvmlDeviceGetFieldValues", true),
	SYM(nvmlDeviceGetGpuFabricInfoV, "nvmlDeviceGetGpuFabricInfoV", true),
};

const struct pf_dl_lib pf_dl_nvml_lib = {
	.soname = "libnvidia-ml.so.1",
	.env = "PF_NVML_PATH",
	.install = "install the NVIDIA driver's NVML library (libnvidia-ml.so.1, e.g. "
		   "libnvidia-compute-<version> or nvidia-utils)",
	.syms = nvml_syms,
	.n_syms = PF_ARRAY_SIZE(nvml_syms),
	.table_size = sizeof(struct pf_nvml_table),
};

static struct pf_nvml_table nvml_table;

static int nvml_load(void *table, char **ret_err)
{
	return pf_dl_load(&pf_dl_nvml_lib, table, ret_err);
}

static struct pf_dl_once nvml_once = PF_DL_ONCE(nvml_load, &nvml_table);

int pf_dl_nvml(const struct pf_nvml_table **ret, char **ret_err)
{
	int r = pf_dl_once(&nvml_once, ret_err);

	if (r == 0)
		*ret = &nvml_table;
	return r;
}

const char *pf_nvml_strerror(const struct pf_nvml_table *nv, pf_nvmlReturn_t r, char *buf,
			     size_t len)
{
	const char *s = nv && nv->nvmlErrorString ? nv->nvmlErrorString(r) : NULL;

	if (s)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "NVML error %u", r);
	return buf;
}
