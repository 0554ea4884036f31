// SPDX-License-Identifier: MIT
/*
 * providers_none.c - pf_providers_none, the table that knows nothing: every
 * member answers -ENOSYS.  A test's table starts from it and sets what the
 * test fakes, so no member is ever NULL.
 */
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/net_facts.h"
#include "preflight/providers.h"

static int none_memlock(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	return -ENOSYS;
}

static int none_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	return -ENOSYS;
}

static int none_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	return -ENOSYS;
}

static int none_ethtool_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			      struct pf_stats *ret)
{
	return -ENOSYS;
}

static int none_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	return -ENOSYS;
}

static int none_ipv4_addrs(const struct pf_ctx *ctx, const char *ifname,
			   struct pf_ipv4_addrs *ret)
{
	return -ENOSYS;
}

static int none_ip_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret)
{
	return -ENOSYS;
}

static int none_nv_query(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n)
{
	return -ENOSYS;
}

static int none_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	return -ENOSYS;
}

static int none_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	return -ENOSYS;
}

static int none_verbs(const struct pf_ctx *ctx, const struct pf_verbs_api **ret, char **ret_err)
{
	return -ENOSYS;
}

static int none_env(const struct pf_ctx *ctx, const char *name, char **ret)
{
	return -ENOSYS;
}

static int none_euid(const struct pf_ctx *ctx, unsigned int *ret)
{
	return -ENOSYS;
}

static int none_rdmacm(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret,
		       char **ret_err)
{
	return -ENOSYS;
}

static int none_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	return -ENOSYS;
}

static int none_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	return -ENOSYS;
}

static int none_lldp_neighbors(const struct pf_ctx *ctx, char **ret_text)
{
	return -ENOSYS;
}

static int none_link_nl(const struct pf_ctx *ctx, const struct pf_link_ask *ask, void **ret_buf,
			size_t *ret_len)
{
	return -ENOSYS;
}

static int none_mlxlink(const struct pf_ctx *ctx, const char *bdf, char **ret_text)
{
	*ret_text = NULL;
	return -ENOSYS;
}

static int none_fabric_svc(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text)
{
	*ret_text = NULL;
	return -ENOSYS;
}

static int none_devlink_dump(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len)
{
	return -ENOSYS;
}

const struct pf_providers pf_providers_none = {
	.name = "none",
	.memlock = none_memlock,
	.gpu = &pf_gpu_none,
	.ethtool = &pf_ethtool_none,
	.linkmodes = none_linkmodes,
	.pause = none_pause,
	.ethtool_stats = none_ethtool_stats,
	.pfc = none_pfc,
	.ipv4_addrs = none_ipv4_addrs,
	.ip_rules = none_ip_rules,
	.nv_query = none_nv_query,
	.page_size = none_page_size,
	.devlink_dump = none_devlink_dump,
	.wait = none_wait,
	.verbs = none_verbs,
	.env = none_env,
	.euid = none_euid,
	.rdmacm = none_rdmacm,
	.job_user = none_job_user,
	.devnodes = none_devnodes,
	.lldp_neighbors = none_lldp_neighbors,
	.link_nl = none_link_nl,
	.mlxlink = none_mlxlink,
	.fabric_svc = none_fabric_svc,
};
