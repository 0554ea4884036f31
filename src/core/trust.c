// SPDX-License-Identifier: MIT
/*
 * trust.c - whether root may execute or load a file (trust.h and
 * pf_exec_trusted() in fs.h): one owner and mode rule for every program
 * preflight runs as root (mstconfig, mlxconfig, lldpcli, $SCONTROL) and
 * every PF_*_PATH library it loads.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight/fs.h"
#include "preflight/macro.h"
#include "trust.h"

/*
 * The rule for one file or directory @st named @path: owned by root, and
 * neither its group nor others may write it (a directory may be sticky, as
 * /tmp is: nobody else may rename what root put there).  0, or -EPERM with
 * a sentence in *@ret_err when @ret_err is not NULL.
 */
static int trust_judge(const struct stat *st, const char *path, bool dir, char **ret_err)
{
	const char *who = st->st_mode & S_IWOTH ? "everyone" : "its group";

	if (st->st_uid != 0) {
		if (ret_err)
			*ret_err = pf_xasprintf("'%s' is owned by uid %u, not root (another user "
						"could change what root runs)", path,
						(unsigned int)st->st_uid);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(dir && (st->st_mode & S_ISVTX))) {
		if (ret_err)
			*ret_err = pf_xasprintf("'%s' is writable by %s (mode %04o): another user "
						"could change what root runs", path, who,
						(unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Each directory above the absolute @path, from the deepest up, through trust_judge(). */
static int trust_parents(const char *path, char **ret_err)
{
	pf_autofree char *dir = pf_xstrdup(path);
	size_t end = strlen(dir);

	for (;;) {
		struct stat st;
		int r;

		while (end > 0 && dir[end - 1] != '/')
			end--;
		if (end == 0)
			return 0;
		/* "/" for the root itself, else the directory without its trailing '/' */
		dir[end > 1 ? end - 1 : end] = '\0';
		if (stat(dir, &st) < 0) {
			r = -errno;
			if (ret_err)
				*ret_err = pf_xasprintf("cannot stat '%s': %s", dir, strerror(-r));
			return r;
		}
		r = trust_judge(&st, dir, true, ret_err);
		if (r < 0)
			return r;
		if (end == 1)
			return 0;
		end--;
	}
}

int pf_trust_file(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return -ENOENT;
	return trust_judge(st, NULL, false, NULL);
}

bool pf_trust_needed(void)
{
	return geteuid() == 0 || geteuid() != getuid() || getegid() != getgid();
}

int pf_trust_path(const char *path, char **ret_real, char **ret_why)
{
	pf_autofree char *real = NULL;
	struct stat st;
	int r;

	*ret_why = NULL;
	if (path[0] != '/') {
		*ret_why = pf_xasprintf("'%s' is not an absolute path", path);
		return -EINVAL;
	}
	real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0) {
		r = -errno;
		*ret_why = pf_xasprintf("cannot stat '%s': %s", real ? real : path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		*ret_why = pf_xasprintf("'%s' is not a regular file", real);
		return -ENOENT;
	}
	/* the resolved path: no link on the way can be swapped by someone else */
	r = trust_judge(&st, real, false, ret_why);
	if (r == 0)
		r = trust_parents(real, ret_why);
	if (r < 0)
		return r;
	*ret_real = PF_TAKE_PTR(real);
	return 0;
}

int pf_exec_trusted(const char *path, char **ret_real, char **ret_err)
{
	pf_autofree char *real = NULL;
	struct stat st;
	int r;

	if (ret_err)
		*ret_err = NULL;
	if (ret_real && path[0] != '/') {
		if (ret_err)
			*ret_err = pf_xasprintf("'%s' is not an absolute path", path);
		return -EINVAL;
	}
	/* with @ret_real the resolved path is judged and run: a link cannot be swapped after */
	real = ret_real ? realpath(path, NULL) : pf_xstrdup(path);
	if (!real || stat(real, &st) < 0) {
		r = -errno;
		if (ret_err)
			*ret_err = pf_xasprintf("cannot stat '%s': %s", real ? real : path,
						strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR)) {
		if (ret_err)
			*ret_err = pf_xasprintf("'%s' is not an executable regular file", real);
		return -ENOENT;
	}
	r = trust_judge(&st, real, false, ret_err);
	if (r == 0 && ret_real)
		r = trust_parents(real, ret_err);
	if (r == 0 && ret_real)
		*ret_real = PF_TAKE_PTR(real);
	return r;
}
