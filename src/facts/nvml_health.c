// SPDX-License-Identifier: MIT
/*
 * nvml_health.c - the GPU provider's health and NVLink facts (gpu_health,
 * nvlink_links), live through the NVML table of ctx->prov->gpu and
 * recorded under <root>/preflight/nvml/<bdf>/:
 *
 *   health   "<key> <value>" per fact of pf_nvml_health_keys, or
 *            "<key> error <nvmlReturn_t>" where NVML refused the query
 *            (3: NVML_ERROR_NOT_SUPPORTED); a key that is absent was not asked
 *   nvlink   "architecture <nvmlDeviceArchitecture_t>", "links <n>" (links
 *            asked), then "link<i>.state <0|1>" and "link<i>.<counter> <n>"
 *            per link, each value or "error <code>" as above, and
 *            "speed_mbps <n>" (nvmlDeviceGetFieldValues,
 *            NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON); a snapshot without the
 *            line predates it: the speed is not known
 *
 * Live, links are asked from 0 up to the first NVML_ERROR_INVALID_ARGUMENT
 * (a link index past the GPU's own), at most NVML_NVLINK_MAX_LINKS; a GPU
 * whose link 0 is NVML_ERROR_NOT_SUPPORTED has no NVLink (a PCIe card).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu_provider.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

const char *const pf_nvml_health_keys[PF_NVML_H_N] = {
	[PF_NVML_H_PERSISTENCE] = "persistence_mode",
	[PF_NVML_H_CLOCK_EVENTS] = "clocks_event_reasons",
	[PF_NVML_H_TEMP] = "temperature_c",
	[PF_NVML_H_TEMP_SLOWDOWN] = "temperature_slowdown_c",
	[PF_NVML_H_POWER_LIMIT] = "power_limit_mw",
	[PF_NVML_H_POWER_DEFAULT] = "power_default_limit_mw",
	[PF_NVML_H_ECC_VOLATILE] = "ecc_uncorrected_volatile",
	[PF_NVML_H_ECC_AGGREGATE] = "ecc_uncorrected_aggregate",
	[PF_NVML_H_PCIE_REPLAY] = "pcie_replay_counter",
};

const char *const pf_nvml_health_queries[PF_NVML_H_N] = {
	[PF_NVML_H_PERSISTENCE] = "nvmlDeviceGetPersistenceMode",
	[PF_NVML_H_CLOCK_EVENTS] = "nvmlDeviceGetCurrentClocksEventReasons",
	[PF_NVML_H_TEMP] = "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)",
	[PF_NVML_H_TEMP_SLOWDOWN] =
		"nvmlDeviceGetTemperatureThreshold(NVML_TEMPERATURE_THRESHOLD_SLOWDOWN)",
	[PF_NVML_H_POWER_LIMIT] = "nvmlDeviceGetPowerManagementLimit",
	[PF_NVML_H_POWER_DEFAULT] = "nvmlDeviceGetPowerManagementDefaultLimit",
	[PF_NVML_H_ECC_VOLATILE] =
		"nvmlDeviceGetTotalEccErrors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC)",
	[PF_NVML_H_ECC_AGGREGATE] =
		"nvmlDeviceGetTotalEccErrors(NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC)",
	[PF_NVML_H_PCIE_REPLAY] = "nvmlDeviceGetPcieReplayCounter",
};

const char *const pf_nvlink_counter_names[PF_NVLINK_N_COUNTERS] = {
	"replay", "recovery", "crc_flit", "crc_data",
};

/* --- live ------------------------------------------------------------------ */

/* An open NVML session on the GPU at @bdf. */
struct nvml_dev {
	const struct pf_nvml_table *nv;
	pf_nvmlDevice_t dev;
};

static void nvml_dev_close(struct nvml_dev *d)
{
	if (d->nv)
		d->nv->nvmlShutdown();
}

/* Load NVML, nvmlInit and find the GPU at @bdf; on success the caller closes @d. */
static int nvml_dev_open(const struct pf_ctx *ctx, const char *bdf, struct nvml_dev *d,
			 char **ret_err)
{
	const struct pf_nvml_table *nv;
	pf_nvmlReturn_t nr;
	unsigned int n = 0;
	char msg[160];
	int r;

	*d = (struct nvml_dev){ 0 };
	if (!ctx->prov) {
		*ret_err = pf_xstrdup("no GPU provider");
		return -ENODEV;
	}
	r = ctx->prov->gpu->nvml(ctx, &nv, ret_err);
	if (r < 0)
		return r;
	nr = nv->nvmlInit();
	if (nr != PF_NVML_SUCCESS) {
		*ret_err = pf_xasprintf("nvmlInit: %s", pf_nvml_strerror(nv, nr, msg, sizeof(msg)));
		return -EIO;
	}
	nr = nv->nvmlDeviceGetCount(&n);
	for (unsigned int i = 0; nr == PF_NVML_SUCCESS && i < n; i++) {
		union pf_nvml_pci_info_buf pci;
		pf_nvmlDevice_t dev;
		char norm[16];

		memset(&pci, 0, sizeof(pci));
		if (nv->nvmlDeviceGetHandleByIndex(i, &dev) != PF_NVML_SUCCESS ||
		    nv->nvmlDeviceGetPciInfo(dev, &pci.info) != PF_NVML_SUCCESS)
			continue;
		pci.info.bus_id[sizeof(pci.info.bus_id) - 1] = '\0';
		if (pf_bdf_normalize(pci.info.bus_id, norm) == 0 && !strcmp(norm, bdf)) {
			d->nv = nv;
			d->dev = dev;
			return 0;
		}
	}
	nv->nvmlShutdown();
	if (nr != PF_NVML_SUCCESS) {
		*ret_err = pf_xasprintf("nvmlDeviceGetCount: %s",
					pf_nvml_strerror(nv, nr, msg, sizeof(msg)));
		return -EIO;
	}
	*ret_err = pf_xasprintf("%s is not among the %u GPUs NVML reports", bdf, n);
	return -ENODEV;
}

static void set_val(struct pf_nvml_val *v, pf_nvmlReturn_t r, unsigned long long value)
{
	v->known = true;
	v->r = r;
	v->v = r == PF_NVML_SUCCESS ? value : 0;
}

/* A query of one unsigned int (the call before its value is read): known only when the
 * library has the symbol. */
#define ASK_UINT(val, fn, ...)                                                   \
	do {                                                                      \
		unsigned int u_ = 0;                                              \
		if (fn) {                                                         \
			pf_nvmlReturn_t r_ = fn(__VA_ARGS__, &u_);                \
			set_val((val), r_, u_);                                   \
		}                                                                 \
	} while (0)

#define ASK_ULL(val, fn, ...)                                                    \
	do {                                                                      \
		unsigned long long ull_ = 0;                                      \
		if (fn) {                                                         \
			pf_nvmlReturn_t r_ = fn(__VA_ARGS__, &ull_);              \
			set_val((val), r_, ull_);                                 \
		}                                                                 \
	} while (0)

int pf_gpu_live_nvml_health(const struct pf_ctx *ctx, const char *bdf,
			    struct pf_nvml_health *ret, char **ret_err)
{
	struct nvml_dev d;
	const struct pf_nvml_table *nv;
	struct pf_nvml_val *v = ret->v;
	pf_nvmlEnableState_t pm = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = nvml_dev_open(ctx, bdf, &d, ret_err);
	if (r < 0)
		return r;
	nv = d.nv;
	if (nv->nvmlDeviceGetPersistenceMode) {
		pf_nvmlReturn_t nr = nv->nvmlDeviceGetPersistenceMode(d.dev, &pm);

		set_val(&v[PF_NVML_H_PERSISTENCE], nr, pm == PF_NVML_FEATURE_ENABLED);
	}
	ASK_ULL(&v[PF_NVML_H_CLOCK_EVENTS], nv->nvmlDeviceGetCurrentClocksEventReasons, d.dev);
	ASK_UINT(&v[PF_NVML_H_TEMP], nv->nvmlDeviceGetTemperature, d.dev, PF_NVML_TEMPERATURE_GPU);
	ASK_UINT(&v[PF_NVML_H_TEMP_SLOWDOWN], nv->nvmlDeviceGetTemperatureThreshold, d.dev,
		 PF_NVML_TEMPERATURE_THRESHOLD_SLOWDOWN);
	ASK_UINT(&v[PF_NVML_H_POWER_LIMIT], nv->nvmlDeviceGetPowerManagementLimit, d.dev);
	ASK_UINT(&v[PF_NVML_H_POWER_DEFAULT], nv->nvmlDeviceGetPowerManagementDefaultLimit, d.dev);
	ASK_ULL(&v[PF_NVML_H_ECC_VOLATILE], nv->nvmlDeviceGetTotalEccErrors, d.dev,
		PF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, PF_NVML_VOLATILE_ECC);
	ASK_ULL(&v[PF_NVML_H_ECC_AGGREGATE], nv->nvmlDeviceGetTotalEccErrors, d.dev,
		PF_NVML_MEMORY_ERROR_TYPE_UNCORRECTED, PF_NVML_AGGREGATE_ECC);
	ASK_UINT(&v[PF_NVML_H_PCIE_REPLAY], nv->nvmlDeviceGetPcieReplayCounter, d.dev);
	nvml_dev_close(&d);
	return 0;
}

/*
 * The common speed of the GPU's active NVLink links, in MBps, into @v: the
 * field's own nvmlReturn (NOT_SUPPORTED on a GPU without it), the call's
 * when it refused the whole request; not known without the symbol.  The
 * value is read by the type NVML says it has.
 */
static void ask_speed(const struct pf_nvml_table *nv, pf_nvmlDevice_t dev, struct pf_nvml_val *v)
{
	struct pf_nvml_field_value fv = { .field_id = PF_NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON };
	pf_nvmlReturn_t nr;
	unsigned long long n;

	if (!nv->nvmlDeviceGetFieldValues)
		return;
	nr = nv->nvmlDeviceGetFieldValues(dev, 1, &fv);
	if (nr == PF_NVML_SUCCESS)
		nr = fv.nvml_return;
	if (nr != PF_NVML_SUCCESS) {
		set_val(v, nr, 0);
		return;
	}
	switch (fv.value_type) {
	case PF_NVML_VALUE_TYPE_UNSIGNED_INT:
		n = fv.value.ui_val;
		break;
	case PF_NVML_VALUE_TYPE_UNSIGNED_LONG:
		n = fv.value.ul_val;
		break;
	case PF_NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
		n = fv.value.ull_val;
		break;
	case PF_NVML_VALUE_TYPE_UNSIGNED_SHORT:
		n = fv.value.us_val;
		break;
	case PF_NVML_VALUE_TYPE_SIGNED_INT:
		n = fv.value.si_val < 0 ? 0 : (unsigned long long)fv.value.si_val;
		break;
	case PF_NVML_VALUE_TYPE_SIGNED_LONG_LONG:
		n = fv.value.sll_val < 0 ? 0 : (unsigned long long)fv.value.sll_val;
		break;
	default: /* a double or a type this build does not know: not a speed it can read */
		return;
	}
	set_val(v, PF_NVML_SUCCESS, n);
}

int pf_gpu_live_nvml_nvlink(const struct pf_ctx *ctx, const char *bdf,
			    struct pf_nvml_nvlink *ret, char **ret_err)
{
	struct nvml_dev d;
	const struct pf_nvml_table *nv;
	pf_nvmlDeviceArchitecture_t arch = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = nvml_dev_open(ctx, bdf, &d, ret_err);
	if (r < 0)
		return r;
	nv = d.nv;
	if (nv->nvmlDeviceGetArchitecture) {
		pf_nvmlReturn_t nr = nv->nvmlDeviceGetArchitecture(d.dev, &arch);

		set_val(&ret->arch, nr, arch);
	}
	for (unsigned int l = 0; nv->nvmlDeviceGetNvLinkState && l < PF_NVML_NVLINK_MAX_LINKS; l++) {
		pf_nvmlEnableState_t st = 0;
		pf_nvmlReturn_t nr = nv->nvmlDeviceGetNvLinkState(d.dev, l, &st);

		if (nr == PF_NVML_ERROR_INVALID_ARGUMENT)
			break; /* past the GPU's last link */
		set_val(&ret->state[l], nr, st == PF_NVML_FEATURE_ENABLED);
		ret->n_links = l + 1;
		if (nr == PF_NVML_ERROR_NOT_SUPPORTED && l == 0)
			break; /* no NVLink on this GPU */
		for (unsigned int c = 0; nr == PF_NVML_SUCCESS && c < PF_NVLINK_N_COUNTERS; c++)
			ASK_ULL(&ret->err[l][c], nv->nvmlDeviceGetNvLinkErrorCounter, d.dev, l, c);
	}
	if (ret->n_links && ret->state[0].r != PF_NVML_ERROR_NOT_SUPPORTED)
		ask_speed(nv, d.dev, &ret->speed_mbps);
	nvml_dev_close(&d);
	return 0;
}

/* --- recorded -------------------------------------------------------------- */

static void format_val(FILE *f, const char *key, const struct pf_nvml_val *v)
{
	if (!v->known)
		return;
	if (v->r == PF_NVML_SUCCESS)
		fprintf(f, "%s %llu\n", key, v->v);
	else
		fprintf(f, "%s error %u\n", key, v->r);
}

char *pf_nvml_health_format(const struct pf_nvml_health *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (int i = 0; i < PF_NVML_H_N; i++)
		format_val(f, pf_nvml_health_keys[i], &h->v[i]);
	fclose(f);
	return buf;
}

char *pf_nvml_nvlink_format(const struct pf_nvml_nvlink *l)
{
	char *buf = NULL, key[48];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	format_val(f, "architecture", &l->arch);
	fprintf(f, "links %u\n", l->n_links);
	for (unsigned int i = 0; i < l->n_links; i++) {
		snprintf(key, sizeof(key), "link%u.state", i);
		format_val(f, key, &l->state[i]);
		for (int c = 0; c < PF_NVLINK_N_COUNTERS; c++) {
			snprintf(key, sizeof(key), "link%u.%s", i, pf_nvlink_counter_names[c]);
			format_val(f, key, &l->err[i][c]);
		}
	}
	format_val(f, "speed_mbps", &l->speed_mbps);
	fclose(f);
	return buf;
}

/* Each "<key> <value>" or "<key> error <code>" line of @text to @set(key, val). */
static int parse_lines(char *text, void (*set)(void *, const char *, const struct pf_nvml_val *),
		       void *arg)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[48], a[24], b[24];
		struct pf_nvml_val v = { .known = true };
		int k = sscanf(line, "%47s %23s %23s", key, a, b);
		uint64_t n;

		if (k == 2 && pf_parse_u64(a, &n) == 0) {
			v.v = n;
		} else if (k == 3 && !strcmp(a, "error") && pf_parse_u64(b, &n) == 0 && n &&
			   n <= 0xffffffffu) {
			v.r = (pf_nvmlReturn_t)n;
		} else {
			return -EINVAL;
		}
		set(arg, key, &v);
	}
	return 0;
}

static void set_health(void *arg, const char *key, const struct pf_nvml_val *v)
{
	struct pf_nvml_health *h = arg;

	for (int i = 0; i < PF_NVML_H_N; i++)
		if (!strcmp(key, pf_nvml_health_keys[i]))
			h->v[i] = *v;
}

static void set_nvlink(void *arg, const char *key, const struct pf_nvml_val *v)
{
	struct pf_nvml_nvlink *l = arg;
	unsigned int i;
	char field[24];

	if (!strcmp(key, "architecture")) {
		l->arch = *v;
	} else if (!strcmp(key, "speed_mbps")) {
		l->speed_mbps = *v;
	} else if (!strcmp(key, "links")) {
		l->n_links = v->r == PF_NVML_SUCCESS && v->v <= PF_NVML_NVLINK_MAX_LINKS
			     ? (unsigned int)v->v : 0;
	} else if (sscanf(key, "link%u.%23s", &i, field) == 2 && i < PF_NVML_NVLINK_MAX_LINKS) {
		if (!strcmp(field, "state"))
			l->state[i] = *v;
		for (int c = 0; c < PF_NVLINK_N_COUNTERS; c++)
			if (!strcmp(field, pf_nvlink_counter_names[c]))
				l->err[i][c] = *v;
	}
}

static int read_recorded(const struct pf_ctx *ctx, const char *bdf, const char *file,
			 void (*set)(void *, const char *, const struct pf_nvml_val *), void *arg,
			 char **ret_err)
{
	pf_autofree char *text = NULL, *path = pf_xasprintf("/preflight/nvml/%s/%s", bdf, file);
	int r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);

	if (r < 0) {
		*ret_err = r == -ENOENT ? pf_xasprintf("not recorded (<root>%s)", path)
					: pf_xasprintf("cannot read <root>%s: %s", path, strerror(-r));
		return r;
	}
	r = parse_lines(text, set, arg);
	if (r < 0)
		*ret_err = pf_xasprintf("<root>%s: a line is not \"<key> <n>\" or \"<key> error <n>\"",
					path);
	return r;
}

int pf_gpu_recorded_nvml_health(const struct pf_ctx *ctx, const char *bdf,
				struct pf_nvml_health *ret, char **ret_err)
{
	memset(ret, 0, sizeof(*ret));
	return read_recorded(ctx, bdf, "health", set_health, ret, ret_err);
}

int pf_gpu_recorded_nvml_nvlink(const struct pf_ctx *ctx, const char *bdf,
				struct pf_nvml_nvlink *ret, char **ret_err)
{
	memset(ret, 0, sizeof(*ret));
	return read_recorded(ctx, bdf, "nvlink", set_nvlink, ret, ret_err);
}
