/* SPDX-License-Identifier: MIT */
/*
 * providers.h - facts that are not files.
 *
 * A table of function pointers with two backends: "live" asks the running
 * kernel (getrlimit, netlink, ioctls, dlopen'd libraries) and "recorded"
 * reads the same facts from plain-text files under <root>/preflight/ (see
 * docs/snapshot.md).  pf_providers_for() picks live for root "/".  Tests
 * install their own tables.
 */
#ifndef PREFLIGHT_PROVIDERS_H
#define PREFLIGHT_PROVIDERS_H

#include <stdint.h>

#include "preflight/check.h"

#define PF_RLIM_UNLIMITED UINT64_MAX

struct pf_rlimit {
	uint64_t soft; /* bytes, or PF_RLIM_UNLIMITED */
	uint64_t hard;
};

struct pf_providers {
	const char *name; /* "live", "recorded", or a test's name */
	/* RLIMIT_MEMLOCK of the process that runs the checks. */
	int (*memlock)(const struct pf_ctx *ctx, struct pf_rlimit *ret);
};

extern const struct pf_providers pf_providers_live;
extern const struct pf_providers pf_providers_recorded;

const struct pf_providers *pf_providers_for(const struct pf_fs *fs);

#endif
