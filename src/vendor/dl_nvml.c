// SPDX-License-Identifier: MIT
/*
 * dl_nvml.c - the NVML (libnvidia-ml.so.1) symbol table.
 *
 * NVML answers what CUDA does not: the driver version string, persistence
 * mode, retired pages and row remapping.  Page retirement (pre-Ampere) and
 * row remapping (Ampere+) are optional symbols; older drivers lack them.
 */
#include <pthread.h>

#include "preflight/gpu.h"

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
static char *nvml_err;
static int nvml_rc;
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;

static void nvml_load(void)
{
	nvml_rc = pf_dl_load(&pf_dl_nvml_lib, &nvml_table, &nvml_err);
}

int pf_dl_nvml(const struct pf_nvml_table **ret, char **ret_err)
{
	pthread_once(&nvml_once, nvml_load);
	if (nvml_rc < 0) {
		if (ret_err)
			*ret_err = pf_xstrdup(nvml_err);
		return nvml_rc;
	}
	*ret = &nvml_table;
	return 0;
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
