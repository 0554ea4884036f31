// SPDX-License-Identifier: MIT
/*
 * prov_caps.c - what a provider table declares (enum pf_prov_cap in
 * preflight/providers.h), asked by checks and recorders instead of where
 * the facts came from.
 */
#include "preflight/fs.h"
#include "preflight/providers.h"

bool pf_prov_can(const struct pf_ctx *ctx, unsigned int caps)
{
	return ctx->prov && (ctx->prov->caps & caps) == caps;
}

bool pf_prov_holds_process(const struct pf_ctx *ctx)
{
	return pf_prov_can(ctx, PF_PROV_PROCESS) || pf_fs_exists(ctx->fs, "/preflight/env") == 1;
}
