// SPDX-License-Identifier: MIT
/*
 * dl_rdmacm.c - librdmacm.so.1 through dlopen/dlvsym into struct
 * pf_rdmacm_api (include/preflight/rdmacm_api.h).  Every function used is
 * in rdma-core's RDMACM_1.0 version node (librdmacm/librdmacm.map).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "preflight/rdmacm_api.h"
#include "dl_once.h"

#define PF_RDMACM_SONAME "librdmacm.so.1"
#define PF_RDMACM_INSTALL "install rdma-core (librdmacm1 on Debian/Ubuntu, librdmacm on RHEL)"

static const struct {
	const char *name;
	size_t offset;
} cm_syms[] = {
#define SYM(field) { "rdma_" #field, offsetof(struct pf_rdmacm_api, field) }
	SYM(create_event_channel), SYM(destroy_event_channel), SYM(create_id), SYM(destroy_id),
	SYM(bind_addr), SYM(resolve_addr), SYM(resolve_route), SYM(listen), SYM(get_src_port),
	SYM(create_qp), SYM(destroy_qp), SYM(connect), SYM(accept), SYM(reject), SYM(disconnect),
	SYM(get_cm_event), SYM(ack_cm_event),
#undef SYM
};

int pf_rdmacm_load(const char *path, struct pf_rdmacm_api *api, char **ret_err)
{
	void *h;

	memset(api, 0, sizeof(*api));
	dlerror();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		*ret_err = pf_xasprintf("%s not found: %s (%s)", path, PF_RDMACM_INSTALL,
					why ? why : "dlopen failed");
		return -ENOENT;
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(cm_syms); i++) {
		void *fn = dlvsym(h, cm_syms[i].name, "RDMACM_1.0");

		if (!fn) {
			*ret_err = pf_xasprintf("%s has no %s@RDMACM_1.0: %s (not rdma-core's "
						"librdmacm?)", path, cm_syms[i].name,
						PF_RDMACM_INSTALL);
			memset(api, 0, sizeof(*api));
			dlclose(h);
			return -ENOSYS;
		}
		memcpy((char *)api + cm_syms[i].offset, &fn, sizeof(fn));
	}
	/* the handle stays open: the table is used until the process exits */
	return 0;
}

static struct pf_rdmacm_api cm_table;

static int cm_load(void *table, char **ret_err)
{
	pf_autofree char *path = NULL, *why = NULL;

	if (pf_dl_override("PF_RDMACM_PATH", &path, &why) < 0) {
		*ret_err = pf_xasprintf("PF_RDMACM_PATH=%s cannot be loaded as %s: %s",
					getenv("PF_RDMACM_PATH"), PF_RDMACM_SONAME, why);
		return -ENOENT; /* as a missing library: the checks skip */
	}
	return pf_rdmacm_load(path ? path : PF_RDMACM_SONAME, table, ret_err);
}

static struct pf_dl_once cm_once = PF_DL_ONCE(cm_load, &cm_table);

int pf_dl_rdmacm(const struct pf_rdmacm_api **ret, char **ret_err)
{
	int r = pf_dl_once(&cm_once, ret_err);

	if (r == 0)
		*ret = &cm_table;
	return r;
}

const char *pf_cm_event_name(int event)
{
	static const char *const names[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR",
		"RDMA_CM_EVENT_ROUTE_RESOLVED", "RDMA_CM_EVENT_ROUTE_ERROR",
		"RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE",
		"RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_ESTABLISHED",
		"RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR",
		"RDMA_CM_EVENT_ADDR_CHANGE", "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	return event >= 0 && (size_t)event < PF_ARRAY_SIZE(names) ? names[event]
								    : "RDMA_CM_EVENT_?";
}
