// SPDX-License-Identifier: MIT
/*
 * dl_load.c - pf_dl_load(), the one place that calls dlopen() for the GPU
 * libraries: it tries the library's environment override or else its
 * versioned soname, resolves every symbol of the table (first alternative
 * that exists) and turns any failure into a sentence a person can act on.
 * pf_dl_override(): whether root may load an override at all (also for
 * libibverbs, librdmacm and the CUDA exporter of dl_verbs.c).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu.h"
#include "preflight/macro.h"
#include "dl_once.h"
#include "trust.h"

int pf_dl_override(const char *env, char **ret_path, char **ret_why)
{
	const char *value = getenv(env);
	pf_autofree char *why = NULL;
	int r;

	*ret_path = NULL;
	*ret_why = NULL;
	if (!value || !*value)
		return 0;
	if (!pf_trust_needed()) {
		*ret_path = pf_xstrdup(value);
		return 0;
	}
	r = pf_trust_path(value, ret_path, &why);
	if (r < 0) {
		*ret_why = pf_xasprintf("refused as root: %s (an override root loads must be an "
					"absolute path to a file only root may write, in "
					"directories only root may write)", why);
		return -EPERM;
	}
	return 0;
}

int pf_dl_load(const struct pf_dl_lib *lib, void *table, char **ret_err)
{
	const char *override = getenv(lib->env);
	const char *path = override && *override ? override : lib->soname;
	pf_autofree char *load = NULL, *refusal = NULL;
	void *h;

	if (pf_dl_override(lib->env, &load, &refusal) < 0) {
		*ret_err = pf_xasprintf("%s=%s cannot be loaded as %s: %s", lib->env, path,
					lib->soname, refusal);
		return -ENOENT; /* as a missing library: the checks skip */
	}
	dlerror();
	h = dlopen(load ? load : lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *why = dlerror();

		if (path == lib->soname)
			*ret_err = pf_xasprintf("%s not found: %s (%s)", lib->soname, lib->install,
						why ? why : "dlopen failed");
		else
			*ret_err = pf_xasprintf("%s=%s cannot be loaded as %s: %s", lib->env, path,
						lib->soname, why ? why : "dlopen failed");
		return -ENOENT;
	}
	for (size_t i = 0; i < lib->n_syms; i++) {
		const struct pf_dl_sym *s = &lib->syms[i];
		void *fn = NULL;

		for (const char *name = s->names; *name && !fn; name += strlen(name) + 1)
			fn = lib->version ? dlvsym(h, name, lib->version) : dlsym(h, name);
		if (!fn && !s->optional) {
			*ret_err = pf_xasprintf("%s (%s) has no %s: %s", lib->soname, path, s->names,
						lib->install);
			memset(table, 0, lib->table_size);
			dlclose(h);
			return -ENOSYS;
		}
		memcpy((char *)table + s->offset, &fn, sizeof(fn));
	}
	/* the handle stays open: the table is used until the process exits */
	return 0;
}

int pf_dl_once(struct pf_dl_once *o, char **ret_err)
{
	int rc;

	pthread_mutex_lock(&o->lock);
	if (!o->done) {
		o->rc = o->load(o->table, &o->err);
		if (o->rc < 0 && !o->err)
			o->err = pf_xstrdup(strerror(-o->rc));
		o->done = true;
	}
	rc = o->rc;
	pthread_mutex_unlock(&o->lock);
	if (rc < 0 && ret_err)
		*ret_err = pf_xstrdup(o->err);
	return rc;
}
