// SPDX-License-Identifier: MIT
/*
 * dl_verbs.c - libibverbs.so.1 through dlopen/dlvsym into struct
 * pf_verbs_api (include/preflight/verbs_api.h).
 *
 * Every verb is resolved at its current symbol version, IBVERBS_1.1 (the
 * 1.0 versions take older structures); ibv_reg_dmabuf_mr is IBVERBS_1.12
 * and optional.  ibv_post_send and ibv_poll_cq have no symbol: they are
 * inlines over context->ops, wrapped here.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "preflight/verbs_api.h"
#include "dl_once.h"

#define PF_VERBS_SONAME "libibverbs.so.1"
#define PF_VERBS_INSTALL "install rdma-core (ibverbs-providers)"

struct verbs_sym {
	const char *name;
	const char *version;
	size_t offset;
	bool optional;
};

#define SYM(field, ver) { "ibv_" #field, ver, offsetof(struct pf_verbs_api, field), false }

static const struct verbs_sym verbs_syms[] = {
	SYM(get_device_list, "IBVERBS_1.1"),
	SYM(free_device_list, "IBVERBS_1.1"),
	SYM(get_device_name, "IBVERBS_1.1"),
	SYM(open_device, "IBVERBS_1.1"),
	SYM(close_device, "IBVERBS_1.1"),
	SYM(query_port, "IBVERBS_1.1"),
	SYM(query_gid, "IBVERBS_1.1"),
	SYM(alloc_pd, "IBVERBS_1.1"),
	SYM(dealloc_pd, "IBVERBS_1.1"),
	SYM(reg_mr, "IBVERBS_1.1"),
	{ "ibv_reg_dmabuf_mr", "IBVERBS_1.12", offsetof(struct pf_verbs_api, reg_dmabuf_mr), true },
	SYM(dereg_mr, "IBVERBS_1.1"),
	SYM(create_cq, "IBVERBS_1.1"),
	SYM(destroy_cq, "IBVERBS_1.1"),
	SYM(create_qp, "IBVERBS_1.1"),
	SYM(destroy_qp, "IBVERBS_1.1"),
	SYM(modify_qp, "IBVERBS_1.1"),
};

/* The inlines of verbs.h, as functions. */
static int live_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

static int live_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

/* cuMemGetHandleForAddressRange, or NULL without libcuda.so.1 or before CUDA 11.7. */
static pf_cuMemGetHandleForAddressRange_fn cuda_exporter(void)
{
	pf_autofree char *path = NULL, *why = NULL;
	pf_cuMemGetHandleForAddressRange_fn fn;
	void *h;

	if (pf_dl_override("PF_CUDA_PATH", &path, &why) < 0)
		return NULL; /* refused: as without libcuda (pf_dl_cuda() says why) */
	h = dlopen(path ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	*(void **)&fn = dlsym(h, "cuMemGetHandleForAddressRange");
	if (!fn)
		dlclose(h);
	return fn; /* the handle stays open with the table */
}

int pf_verbs_load(const char *path, struct pf_verbs_api *api, char **ret_err)
{
	void *h;

	memset(api, 0, sizeof(*api));
	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		*ret_err = pf_xasprintf("%s not found: %s (%s)", path, PF_VERBS_INSTALL,
					why ? why : "dlopen failed");
		return -ENOENT;
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(verbs_syms); i++) {
		const struct verbs_sym *s = &verbs_syms[i];
		void *fn = dlvsym(h, s->name, s->version);

		if (!fn && !s->optional) {
			*ret_err = pf_xasprintf("%s has no %s@%s: %s (rdma-core too old or not "
						"libibverbs)", path, s->name, s->version,
						PF_VERBS_INSTALL);
			memset(api, 0, sizeof(*api));
			dlclose(h);
			return -ENOSYS;
		}
		memcpy((char *)api + s->offset, &fn, sizeof(fn));
	}
	api->post_send = live_post_send;
	api->poll_cq = live_poll_cq;
	api->cu_export_dmabuf = cuda_exporter();
	/* the handle stays open: the table is used until the process exits */
	return 0;
}

static struct pf_verbs_api verbs_table;

static int verbs_load(void *table, char **ret_err)
{
	pf_autofree char *path = NULL, *why = NULL;

	if (pf_dl_override("PF_VERBS_PATH", &path, &why) < 0) {
		*ret_err = pf_xasprintf("PF_VERBS_PATH=%s cannot be loaded as %s: %s",
					getenv("PF_VERBS_PATH"), PF_VERBS_SONAME, why);
		return -ENOENT; /* as a missing library: the checks skip */
	}
	return pf_verbs_load(path ? path : PF_VERBS_SONAME, table, ret_err);
}

static struct pf_dl_once verbs_once = PF_DL_ONCE(verbs_load, &verbs_table);

int pf_dl_verbs(const struct pf_verbs_api **ret, char **ret_err)
{
	int r = pf_dl_once(&verbs_once, ret_err);

	if (r == 0)
		*ret = &verbs_table;
	return r;
}

int pf_ibv_mtu_bytes(enum ibv_mtu mtu)
{
	switch (mtu) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	default: return 0;
	}
}

int pf_ibv_mtu_from_bytes(int bytes, enum ibv_mtu *ret)
{
	for (int m = IBV_MTU_256; m <= IBV_MTU_4096; m++) {
		if (pf_ibv_mtu_bytes((enum ibv_mtu)m) == bytes) {
			*ret = (enum ibv_mtu)m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *pf_ibv_wc_status_name(int status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "IBV_WC_SUCCESS",
		[IBV_WC_LOC_LEN_ERR] = "IBV_WC_LOC_LEN_ERR",
		[IBV_WC_LOC_QP_OP_ERR] = "IBV_WC_LOC_QP_OP_ERR",
		[IBV_WC_LOC_EEC_OP_ERR] = "IBV_WC_LOC_EEC_OP_ERR",
		[IBV_WC_LOC_PROT_ERR] = "IBV_WC_LOC_PROT_ERR",
		[IBV_WC_WR_FLUSH_ERR] = "IBV_WC_WR_FLUSH_ERR",
		[IBV_WC_MW_BIND_ERR] = "IBV_WC_MW_BIND_ERR",
		[IBV_WC_BAD_RESP_ERR] = "IBV_WC_BAD_RESP_ERR",
		[IBV_WC_LOC_ACCESS_ERR] = "IBV_WC_LOC_ACCESS_ERR",
		[IBV_WC_REM_INV_REQ_ERR] = "IBV_WC_REM_INV_REQ_ERR",
		[IBV_WC_REM_ACCESS_ERR] = "IBV_WC_REM_ACCESS_ERR",
		[IBV_WC_REM_OP_ERR] = "IBV_WC_REM_OP_ERR",
		[IBV_WC_RETRY_EXC_ERR] = "IBV_WC_RETRY_EXC_ERR",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "IBV_WC_RNR_RETRY_EXC_ERR",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "IBV_WC_LOC_RDD_VIOL_ERR",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "IBV_WC_REM_INV_RD_REQ_ERR",
		[IBV_WC_REM_ABORT_ERR] = "IBV_WC_REM_ABORT_ERR",
		[IBV_WC_INV_EECN_ERR] = "IBV_WC_INV_EECN_ERR",
		[IBV_WC_INV_EEC_STATE_ERR] = "IBV_WC_INV_EEC_STATE_ERR",
		[IBV_WC_FATAL_ERR] = "IBV_WC_FATAL_ERR",
		[IBV_WC_RESP_TIMEOUT_ERR] = "IBV_WC_RESP_TIMEOUT_ERR",
		[IBV_WC_GENERAL_ERR] = "IBV_WC_GENERAL_ERR",
	};

	if (status >= 0 && (size_t)status < PF_ARRAY_SIZE(names) && names[status])
		return names[status];
	return "unknown completion status";
}

int pf_verbs_probe_dmabuf(const struct pf_verbs_api *api, char **ret_why)
{
	struct ibv_device **list;
	int n = 0, opened = 0, r = 1;

	if (!api->reg_dmabuf_mr) {
		*ret_why = pf_xstrdup("libibverbs has no ibv_reg_dmabuf_mr (rdma-core older than "
				      "v34)");
		return 0;
	}
	errno = 0;
	list = api->get_device_list(&n);
	if (!list) {
		int e = errno ? errno : ENODEV;

		*ret_why = pf_xasprintf("ibv_get_device_list: %s", strerror(e));
		return -ENODEV;
	}
	for (int i = 0; i < n && r == 1; i++) {
		struct ibv_context *c = api->open_device(list[i]);
		struct ibv_pd *pd;
		struct ibv_mr *mr;
		int e;

		if (!c)
			continue;
		pd = api->alloc_pd(c);
		if (!pd) {
			api->close_device(c);
			continue;
		}
		opened++;
		errno = 0;
		mr = api->reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
		e = errno;
		if (mr)
			api->dereg_mr(mr);
		else if (e == EOPNOTSUPP || e == EPROTONOSUPPORT) {
			*ret_why = pf_xasprintf("%s: ibv_reg_dmabuf_mr answers %s (%s)",
						api->get_device_name(list[i]), strerror(e),
						e == EPROTONOSUPPORT ? "the kernel lacks the verb"
								     : "the provider or kernel driver "
								       "lacks the verb");
			r = 0;
		}
		api->dealloc_pd(pd);
		api->close_device(c);
	}
	api->free_device_list(list);
	if (r == 1 && !opened) {
		*ret_why = pf_xasprintf("libibverbs lists %d RDMA device%s and none could be opened",
					n, n == 1 ? "" : "s");
		return -ENODEV;
	}
	return r;
}
