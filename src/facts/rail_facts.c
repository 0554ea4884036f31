// SPDX-License-Identifier: MIT
/*
 * rail_facts.c - the rail model's facts from the providers (rail_facts.h).
 */
#include <errno.h>
#include <stdio.h>

#include "preflight/nccl_job.h"
#include "preflight/net_facts.h"
#include "preflight/providers.h"
#include "preflight/rail_facts.h"

int pf_rail_subnet(void *data, const char *ifname, char *buf, size_t len)
{
	const struct pf_ctx *ctx = data;
	struct pf_ipv4_addrs addrs = { 0 };
	uint32_t net, mask;
	int r;

	r = ctx->prov->ipv4_addrs(ctx, ifname, &addrs);
	if (r < 0)
		return r;
	if (addrs.n == 0)
		return -ENOENT;
	mask = addrs.v[0].prefix ? 0xffffffffu << (32 - addrs.v[0].prefix) : 0;
	net = addrs.v[0].addr & mask;
	snprintf(buf, len, "%u.%u.%u.%u/%u", net >> 24, (net >> 16) & 0xff, (net >> 8) & 0xff,
		 net & 0xff, addrs.v[0].prefix);
	return 0;
}

int pf_rails_for_ctx(const struct pf_ctx *ctx, const char *const declared[PF_ROLE_COUNT],
		     struct pf_rails **ret, char **ret_err)
{
	static const char *const hca_name[] = { "NCCL_IB_HCA" };
	struct pf_rails_spec spec = { .subnet = pf_rail_subnet, .data = (void *)ctx };
	struct pf_nccl_job_conf nccl;
	const struct pf_nccl_var *hca;
	struct pf_lldp_neighbors lldp = { 0 };
	pf_autofree char *lldp_text = NULL;
	int r;

	for (int i = 0; i < PF_ROLE_COUNT; i++)
		spec.declared[i] = declared ? declared[i] : NULL;
	/* NCCL_IB_HCA as nccl_config reads it: the job's environment, then NCCL's files */
	pf_nccl_job_conf_load(ctx, hca_name, 1, &nccl);
	hca = pf_nccl_conf_get(&nccl.conf, "NCCL_IB_HCA");
	if (hca) {
		spec.nccl_ib_hca = hca->value;
		spec.nccl_ib_hca_origin = hca->origin;
	}
	/* the LLDP neighbours, where lldpd runs: none known is no error */
	if (ctx->prov->lldp_neighbors(ctx, &lldp_text) == 0 &&
	    pf_parse_lldp_keyvalue(lldp_text, &lldp) > 0)
		spec.lldp = &lldp;
	r = pf_rails_build(ctx->fs, ctx->node, &spec, ret, ret_err);
	pf_lldp_neighbors_release(&lldp);
	pf_nccl_job_conf_release(&nccl);
	return r;
}
