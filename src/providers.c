// SPDX-License-Identifier: MIT
/*
 * providers.c - the live and recorded provider tables.
 */
#include <sys/resource.h>
#include <unistd.h>

#include "preflight/net.h"
#include "preflight/gpu.h"
#include "preflight/parse.h"
#include "preflight/providers.h"
#include "preflight/verbs_api.h"

static uint64_t rlim_to_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? PF_RLIM_UNLIMITED : (uint64_t)v;
}

static int live_memlock(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return -errno;
	ret->soft = rlim_to_u64(rl.rlim_cur);
	ret->hard = rlim_to_u64(rl.rlim_max);
	return 0;
}

/* Under a recorded root the limits of the capturing process are a file. */
static int recorded_memlock(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	pf_autofree char *text = NULL;
	int r;

	r = pf_fs_read_full(ctx->fs, "/proc/self/limits", 0, &text, NULL);
	if (r < 0)
		return r;
	return pf_parse_proc_limits(text, "Max locked memory", ret);
}

static int live_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	long v = sysconf(_SC_PAGESIZE);

	if (v <= 0)
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

/* preflight/page_size: one decimal integer, a power of two. */
static int recorded_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	uint64_t v;
	int r;

	r = pf_fs_read_u64(ctx->fs, "/preflight/page_size", &v);
	if (r < 0)
		return r;
	if (v < 1024 || (v & (v - 1)))
		return -EINVAL;
	*ret = v;
	return 0;
}

const struct pf_providers pf_providers_live = {
	.name = "live",
	.memlock = live_memlock,
	.gpu = &pf_gpu_live,
	.verbs = pf_dl_verbs,
	.linkmodes = pf_live_linkmodes,
	.pause = pf_live_pause,
	.ethtool_stats = pf_live_ethtool_stats,
	.pfc = pf_live_pfc,
	.ipv4_addrs = pf_live_ipv4_addrs,
	.page_size = live_page_size,
	.wait = pf_live_wait,
};

const struct pf_providers pf_providers_recorded = {
	.name = "recorded",
	.memlock = recorded_memlock,
	.gpu = &pf_gpu_recorded,
	.linkmodes = pf_recorded_linkmodes,
	.pause = pf_recorded_pause,
	.ethtool_stats = pf_recorded_ethtool_stats,
	.pfc = pf_recorded_pfc,
	.ipv4_addrs = pf_recorded_ipv4_addrs,
	.page_size = recorded_page_size,
	.wait = pf_recorded_wait,
};

const struct pf_providers *pf_providers_for(const struct pf_fs *fs)
{
	return pf_fs_is_live(fs) ? &pf_providers_live : &pf_providers_recorded;
}
