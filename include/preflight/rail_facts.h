/* SPDX-License-Identifier: MIT */
/*
 * rail_facts.h - the facts the rail model (preflight/rails.h) takes from
 * the providers rather than from files (src/facts/rail_facts.c).
 */
#ifndef PREFLIGHT_RAIL_FACTS_H
#define PREFLIGHT_RAIL_FACTS_H

#include <stddef.h>

#include "preflight/check.h"
#include "preflight/rails.h"

/*
 * For pf_rails_spec.subnet with @data a const struct pf_ctx *: the subnet
 * of the first IPv4 address of @ifname ("10.1.0.0/24") through
 * ctx->prov->ipv4_addrs; -ENOENT when it has none, else the provider's -errno.
 */
int pf_rail_subnet(void *data, const char *ifname, char *buf, size_t len);

/*
 * The rail model of ctx's node with the site's declared roles, the job's
 * NCCL_IB_HCA (read as nccl_config reads it: preflight/nccl_job.h) and the
 * LLDP neighbours (ctx->prov->lldp_neighbors); see pf_rails_build().
 */
int pf_rails_for_ctx(const struct pf_ctx *ctx, const char *const declared[PF_ROLE_COUNT],
		     struct pf_rails **ret, char **ret_err);

#endif
