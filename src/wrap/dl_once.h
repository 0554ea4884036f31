/* SPDX-License-Identifier: MIT */
/*
 * dl_once.h - a library loaded at most once per process, whichever thread
 * asks first; every later caller gets the same table or the same error.
 * The one pattern behind pf_dl_cuda(), pf_dl_nvml(), pf_dl_nccl(),
 * pf_dl_verbs() and pf_dl_rdmacm().
 *
 *	static struct pf_cuda_table cuda_table;
 *	static struct pf_dl_once cuda_once = PF_DL_ONCE(cuda_load, &cuda_table);
 *	...
 *	r = pf_dl_once(&cuda_once, ret_err);
 */
#ifndef PREFLIGHT_DL_ONCE_H
#define PREFLIGHT_DL_ONCE_H

#include <pthread.h>
#include <stdbool.h>

struct pf_dl_once {
	pthread_mutex_t lock;
	bool done;
	int rc;    /* the load's answer: 0 or -errno */
	char *err; /* its sentence when rc < 0 */
	int (*load)(void *table, char **ret_err);
	void *table;
};

#define PF_DL_ONCE(load_fn, table_ptr) \
	{ .lock = PTHREAD_MUTEX_INITIALIZER, .load = (load_fn), .table = (table_ptr) }

/*
 * The override of a library in the environment variable @env: 0 with
 * *ret_path NULL when it is unset or empty, 0 with the file to dlopen() in
 * *ret_path (free it) when it may be loaded, or -EPERM with the reason in
 * *ret_why (free it).  As root (or set-id) the file must pass
 * pf_trust_path() (src/core/trust.h: absolute, root's, nobody else may write
 * it or a directory above it): the environment of a root process is not
 * root's to trust (issue 30).
 */
int pf_dl_override(const char *env, char **ret_path, char **ret_why);

/* 0 once the table is loaded; else the load's -errno and, when @ret_err, a copy of its sentence. */
int pf_dl_once(struct pf_dl_once *o, char **ret_err);

#endif
