/* SPDX-License-Identifier: MIT */
/*
 * trust.h - what root may execute or load: the rule mstconfig's tool lookup
 * began with, shared by every tool preflight runs (pf_nv_run) and by the
 * PF_*_PATH library overrides (src/wrap/dl_load.c).
 */
#ifndef PREFLIGHT_TRUST_H
#define PREFLIGHT_TRUST_H

#include <stdbool.h>
#include <sys/stat.h>

/*
 * A file fit to execute or load as root: a regular file owned by root that
 * neither its group nor others may write.  0, -ENOENT (not a regular file),
 * -EPERM (someone else could replace its contents).
 */
int pf_trust_file(const struct stat *st);

/*
 * @path as root will use it: absolute, the file trusted as pf_trust_file()
 * says and every directory on its resolved path owned by root and not group-
 * or other-writable, or sticky as /tmp is (so nobody but root could swap
 * what it names).  0 with
 * the resolved path in @ret_real (free it), or -errno with a sentence in
 * @ret_why (free it).
 */
int pf_trust_path(const char *path, char **ret_real, char **ret_why);

/* Is this process running with root's rights (euid 0, or set-id)? */
bool pf_trust_needed(void);

#endif
