// SPDX-License-Identifier: MIT
/*
 * gpu_cuda.c - the GPUs CUDA sees, through the GPU provider's CUDA table:
 * what the traffic checks and the fabric-handle probe (gpu_fabric.c) pick
 * their devices from.  Its own file so that a provider member may use it
 * without the provider table and that member needing each other.
 */
#include "preflight/gpu_provider.h"
#include "preflight/providers.h"

int pf_gpu_cuda_list(const struct pf_ctx *ctx, const struct pf_cuda_table **ret_cu,
		     char (**ret_bdfs)[16], char **ret_err)
{
	const struct pf_gpu_provider *gp = ctx->prov ? ctx->prov->gpu : NULL;
	pf_CUresult cr = 0;
	char buf[160];
	int r, n;

	if (!gp) {
		*ret_err = pf_xstrdup("no CUDA provider");
		return -ENOSYS;
	}
	r = gp->cuda(ctx, ret_cu, ret_err);
	if (r < 0)
		return r;
	n = pf_cuda_devices(*ret_cu, ret_bdfs, &cr);
	if (n < 0)
		*ret_err = pf_xasprintf("CUDA cannot list GPUs: %s",
					pf_cuda_strerror(*ret_cu, cr, buf, sizeof(buf)));
	return n;
}
