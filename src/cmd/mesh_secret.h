/* SPDX-License-Identifier: MIT */
/*
 * mesh_secret.h - the per-run secret of `preflight mesh` (docs/mesh.md
 * "Authentication"): from --secret-file or PREFLIGHT_MESH_SECRET.
 */
#ifndef PREFLIGHT_MESH_SECRET_H
#define PREFLIGHT_MESH_SECRET_H

#include <stddef.h>
#include <stdio.h>

#define PF_MESH_SECRET_FILE_MAX 4096
#define PF_MESH_SECRET_HEX_MIN 32 /* hex digits of PREFLIGHT_MESH_SECRET, at least */

struct pf_mesh_secret {
	unsigned char *bytes;
	size_t len;
};

/*
 * The secret from @file (a regular file of 16..4096 bytes, owned by the
 * caller, no access for group or others, not a symlink) or else from the
 * hex in @env (the environment's PREFLIGHT_MESH_SECRET).  0, -ENOENT when
 * neither is given, other -errno with the reason in @why.
 */
int pf_mesh_secret_load(const char *file, const char *env, struct pf_mesh_secret *s, char *why,
			size_t wl);
void pf_mesh_secret_release(struct pf_mesh_secret *s);
/* A fresh secret, 32 random bytes as 64 hex digits and a newline, on @out: 0 or -errno. */
int pf_mesh_secret_new(FILE *out);

#endif
