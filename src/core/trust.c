// SPDX-License-Identifier: MIT
/*
 * trust.c - whether root may execute or load a file (trust.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "trust.h"

int pf_trust_file(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return -ENOENT;
	if (st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

bool pf_trust_needed(void)
{
	return geteuid() == 0 || geteuid() != getuid() || getegid() != getgid();
}

/*
 * The directory @dir (a prefix of a resolved path): root's, and only root
 * may write it, or it is sticky (/tmp: others cannot rename or remove the
 * root-owned entry below it, which is checked in turn).
 */
static int trust_dir(const char *dir, char **ret_why)
{
	struct stat st;
	int r;

	if (stat(dir, &st) < 0) {
		r = -errno;
		*ret_why = pf_xasprintf("%s: %s", dir, strerror(errno));
		return r;
	}
	if (st.st_uid != 0 || (!(st.st_mode & S_ISVTX) && (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		*ret_why = pf_xasprintf("the directory %s is not root's alone (owner %u, mode %04o)",
					dir, (unsigned int)st.st_uid,
					(unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int pf_trust_path(const char *path, char **ret_real, char **ret_why)
{
	pf_autofree char *real = NULL;
	struct stat st;
	int r;

	*ret_why = NULL;
	if (path[0] != '/') {
		*ret_why = pf_xasprintf("%s is not an absolute path", path);
		return -EINVAL;
	}
	real = realpath(path, NULL);
	if (!real) {
		r = -errno;
		*ret_why = pf_xasprintf("%s: %s", path, strerror(errno));
		return r;
	}
	if (stat(real, &st) < 0) {
		r = -errno;
		*ret_why = pf_xasprintf("%s: %s", real, strerror(errno));
		return r;
	}
	r = pf_trust_file(&st);
	if (r < 0) {
		*ret_why = r == -ENOENT ? pf_xasprintf("%s is not a regular file", real)
					: pf_xasprintf("%s is not root's alone (owner %u, mode %04o)",
						       real, (unsigned int)st.st_uid,
						       (unsigned int)(st.st_mode & 07777));
		return r;
	}
	/* every directory above it, "/" included, cut from a copy */
	pf_autofree char *dir = pf_xstrdup(real);

	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		slash[slash == dir ? 1 : 0] = '\0';
		r = trust_dir(dir, ret_why);
		if (r < 0)
			return r;
		if (slash == dir)
			break;
	}
	*ret_real = PF_TAKE_PTR(real);
	return 0;
}
