// SPDX-License-Identifier: MIT
/*
 * parse_fabric.c - a GPU's NVLink fabric state in one line of text, and
 * the meaning of NVML's fabric health mask (include/preflight/gpu_fabric.h).
 *
 * The mask's fields, their shifts, widths and values are NVML's
 * (nvml.h, NVML_GPU_FABRIC_HEALTH_MASK_*): each 2-bit field reads 0 "not
 * supported", 1 "true" (the condition holds) or 2 "false"; the
 * configuration field is 4 bits: 0 not supported, 1 correct, 2..8 which
 * configuration is wrong.  So 0xaa is four fields reading "false": bandwidth
 * not degraded, no route recovery, routes healthy, no access-timeout
 * recovery.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu_fabric.h"
#include "preflight/parse.h"

const char *pf_gpu_fabric_state_name(unsigned int state)
{
	static const char *const names[] = { "not supported", "not started", "in progress",
					     "completed" };

	return state < 4 ? names[state] : "unknown";
}

const char *pf_gpu_fabric_summary_name(unsigned int summary)
{
	static const char *const names[] = { "not supported", "healthy", "unhealthy",
					     "limited capacity" };

	return summary < 4 ? names[summary] : "unknown";
}

bool pf_gpu_fabric_uuid_zero(const struct pf_gpu_fabric *f)
{
	for (size_t i = 0; i < sizeof(f->cluster_uuid); i++)
		if (f->cluster_uuid[i])
			return false;
	return true;
}

const char *pf_gpu_fabric_uuid_string(const struct pf_gpu_fabric *f, char *buf, size_t len)
{
	const unsigned char *u = f->cluster_uuid;

	snprintf(buf, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
	return buf;
}

/* A 2-bit field whose value 1 ("true") is the problem @what. */
struct flag_field {
	unsigned int shift;
	const char *what;
};

static const struct flag_field flag_fields[] = {
	{ 0, "bandwidth degraded" },
	{ 2, "route recovery in progress" },
	{ 4, "route unhealthy" },
	{ 6, "access-timeout recovery in progress" },
};

/* Values 2..8 of the 4-bit configuration field at bit 8. */
static const char *const config_wrong[] = {
	"incorrect configuration: system GUID",
	"incorrect configuration: chassis serial number",
	"incorrect configuration: no partition",
	"incorrect configuration: insufficient NVLinks",
	"incorrect configuration: incompatible GPU firmware",
	"incorrect configuration: invalid location",
	"incorrect configuration: GPU state invalid",
};

size_t pf_gpu_fabric_health_problems(unsigned int mask, const char **ret, size_t max)
{
	size_t n = 0;
	unsigned int cfg = (mask >> 8) & 0xf, part = (mask >> 12) & 0x3;

	for (size_t i = 0; i < sizeof(flag_fields) / sizeof(flag_fields[0]); i++)
		if (((mask >> flag_fields[i].shift) & 0x3) == 1 && n < max)
			ret[n++] = flag_fields[i].what;
	if (cfg >= 2 && n < max)
		ret[n++] = cfg - 2 < sizeof(config_wrong) / sizeof(config_wrong[0])
				   ? config_wrong[cfg - 2] : "incorrect configuration: unknown value";
	if (part == 2 && n < max)
		ret[n++] = "no partition assigned";
	return n;
}

void pf_gpu_fabric_format(const char *bdf, const struct pf_gpu_fabric *f, char *buf, size_t len)
{
	char uuid[33];

	if (!f->supported) {
		snprintf(buf, len, "%s not_supported", bdf);
		return;
	}
	for (size_t i = 0; i < sizeof(f->cluster_uuid); i++)
		snprintf(uuid + 2 * i, 3, "%02x", f->cluster_uuid[i]);
	if (f->version >= 3)
		snprintf(buf, len, "%s v%u state=%u status=%u clique=%u cluster=%s health=0x%08x "
			 "summary=%u", bdf, f->version, f->state, f->status, f->clique_id, uuid,
			 f->health_mask, f->health_summary);
	else
		snprintf(buf, len, "%s v%u state=%u status=%u clique=%u cluster=%s health=0x%08x",
			 bdf, f->version, f->state, f->status, f->clique_id, uuid, f->health_mask);
}

static int hex_uuid(const char *s, unsigned char out[16])
{
	if (strlen(s) != 32 || strspn(s, "0123456789abcdefABCDEF") != 32)
		return -EINVAL;
	for (int i = 0; i < 16; i++) {
		char byte[3] = { s[2 * i], s[2 * i + 1], '\0' };

		out[i] = (unsigned char)strtoul(byte, NULL, 16);
	}
	return 0;
}

/* The rest of a line after its bdf: "not_supported" or the v2/v3 fields. */
static int parse_fields(const char *rest, struct pf_gpu_fabric *ret)
{
	struct pf_gpu_fabric f = { .supported = true };
	char uuid[40], tail[8];
	int k;

	if (!strcmp(rest, "not_supported")) {
		*ret = (struct pf_gpu_fabric){ 0 };
		return 0;
	}
	k = sscanf(rest, "v%u state=%u status=%u clique=%u cluster=%39s health=%x summary=%u %7s",
		   &f.version, &f.state, &f.status, &f.clique_id, uuid, &f.health_mask,
		   &f.health_summary, tail);
	if (!(k == 6 && f.version == 2) && !(k == 7 && f.version == 3))
		return -EINVAL;
	if (f.state > 255 || f.health_summary > 255 || hex_uuid(uuid, f.cluster_uuid) < 0)
		return -EINVAL;
	*ret = f;
	return 0;
}

int pf_parse_gpu_fabric(const char *text, const char *bdf, struct pf_gpu_fabric *ret)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char buf[PF_GPU_FABRIC_LINE_MAX + 32], name[32], norm[16];

		if (n < sizeof(buf)) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			if (sscanf(buf, "%31s", name) == 1 && pf_bdf_normalize(name, norm) == 0 &&
			    !strcmp(norm, bdf)) {
				const char *rest = buf + strspn(buf, " \t");

				rest += strcspn(rest, " \t");
				rest += strspn(rest, " \t");
				return parse_fields(rest, ret);
			}
		}
		line = end ? end + 1 : NULL;
	}
	return -ENOENT;
}
