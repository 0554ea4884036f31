/* SPDX-License-Identifier: MIT */
/*
 * gpu_fabric.h - a GPU's NVLink fabric state as NVML reports it
 * (nvmlDeviceGetGpuFabricInfoV), its one-line text form and the names of
 * its health mask's fields (src/parse/parse_fabric.c).
 *
 * The text form is what a snapshot records, one GPU a line, in
 * <root>/preflight/nvml/gpu_fabric:
 *
 *   0000:17:00.0 v3 state=3 status=0 clique=32766 cluster=<32 hex> health=0x000000aa summary=1
 *   0000:18:00.0 not_supported
 *
 * (v2: no summary).  The writer (src/facts/gpu_record.c) and the recorded
 * provider (src/facts/gpu_provider.c) both go through these functions, so a
 * snapshot reads back as what the live node answered.
 */
#ifndef PREFLIGHT_GPU_FABRIC_H
#define PREFLIGHT_GPU_FABRIC_H

#include <stdbool.h>
#include <stddef.h>

struct pf_gpu_fabric {
	bool supported;              /* false: NVML_ERROR_NOT_SUPPORTED (no NVLink fabric) */
	unsigned int version;        /* 2 or 3: the nvmlGpuFabricInfo_v<n>_t NVML filled */
	unsigned int state;          /* NVML_GPU_FABRIC_STATE_* */
	unsigned int status;         /* an nvmlReturn_t; meaningful once state is COMPLETED */
	unsigned int clique_id;
	unsigned char cluster_uuid[16];
	unsigned int health_mask;
	unsigned int health_summary; /* v3 only; 0 (not supported) under v2 */
};

/* Longest line pf_gpu_fabric_format() writes, with its NUL. */
#define PF_GPU_FABRIC_LINE_MAX 160

/* "<bdf> v3 state=... summary=..." (or "<bdf> not_supported") into @buf, no newline. */
void pf_gpu_fabric_format(const char *bdf, const struct pf_gpu_fabric *f, char *buf, size_t len);
/*
 * The line of @text for @bdf (sysfs form, lower-case): 0 and *ret, -ENOENT
 * when no line names it, -EINVAL when its line is malformed.
 */
int pf_parse_gpu_fabric(const char *text, const char *bdf, struct pf_gpu_fabric *ret);

/* "completed", "in progress", "not started", "not supported" or "unknown". */
const char *pf_gpu_fabric_state_name(unsigned int state);
/* "healthy", "unhealthy", "limited capacity", "not supported" or "unknown". */
const char *pf_gpu_fabric_summary_name(unsigned int summary);
/* True when all 16 bytes of the cluster UUID are zero (no NVLink domain assigned). */
bool pf_gpu_fabric_uuid_zero(const struct pf_gpu_fabric *f);
/* The cluster UUID as 8-4-4-4-12 hex into @buf (at least 37 bytes). */
const char *pf_gpu_fabric_uuid_string(const struct pf_gpu_fabric *f, char *buf, size_t len);

/*
 * The health mask's fields that say something is wrong, as phrases
 * ("bandwidth degraded", "route unhealthy", "incorrect configuration:
 * insufficient NVLinks", ...), into @ret (at most @max): their count.  A
 * field that reads "not supported" (0) or its healthy value names nothing.
 */
size_t pf_gpu_fabric_health_problems(unsigned int mask, const char **ret, size_t max);

#endif
