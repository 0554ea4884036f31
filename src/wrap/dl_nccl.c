// SPDX-License-Identifier: MIT
/*
 * dl_nccl.c - the NCCL (libnccl.so.2) symbol table.
 *
 * Streams and events for NCCL come from the CUDA driver API table (a
 * cudaStream_t is a CUstream), so libcudart is never needed.
 */
#include <pthread.h>
#include <stdio.h>

#include "preflight/gpu.h"
#include "preflight/macro.h"
#include "dl_once.h"

#define SYM(field, names) { names "\0", offsetof(struct pf_nccl_table, field), false }

static const struct pf_dl_sym nccl_syms[] = {
	SYM(ncclGetVersion, "ncclGetVersion"),
	SYM(ncclGetErrorString, "ncclGetErrorString"),
	SYM(ncclCommInitAll, "ncclCommInitAll"),
	SYM(ncclCommDestroy, "ncclCommDestroy"),
	SYM(ncclGroupStart, "ncclGroupStart"),
	SYM(ncclGroupEnd, "ncclGroupEnd"),
	SYM(ncclAllReduce, "ncclAllReduce"),
};

const struct pf_dl_lib pf_dl_nccl_lib = {
	.soname = "libnccl.so.2",
	.env = "PF_NCCL_PATH",
	.install = "install NCCL (libnccl2) or point PF_NCCL_PATH at libnccl.so.2",
	.syms = nccl_syms,
	.n_syms = PF_ARRAY_SIZE(nccl_syms),
	.table_size = sizeof(struct pf_nccl_table),
};

static struct pf_nccl_table nccl_table;

static int nccl_load(void *table, char **ret_err)
{
	return pf_dl_load(&pf_dl_nccl_lib, table, ret_err);
}

static struct pf_dl_once nccl_once = PF_DL_ONCE(nccl_load, &nccl_table);

int pf_dl_nccl(const struct pf_nccl_table **ret, char **ret_err)
{
	int r = pf_dl_once(&nccl_once, ret_err);

	if (r == 0)
		*ret = &nccl_table;
	return r;
}

const char *pf_nccl_strerror(const struct pf_nccl_table *nc, pf_ncclResult_t r, char *buf,
			     size_t len)
{
	const char *s = nc && nc->ncclGetErrorString ? nc->ncclGetErrorString(r) : NULL;

	if (s)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "NCCL error %u", r);
	return buf;
}

const char *pf_nccl_version_string(int code, char *buf, size_t len)
{
	/* NCCL_VERSION(x, y, z): x*1000 + y*100 + z up to 2.8, x*10000 + y*100 + z since 2.9 */
	if (code >= 10000)
		snprintf(buf, len, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
	else
		snprintf(buf, len, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
	return buf;
}
