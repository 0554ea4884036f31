/* SPDX-License-Identifier: MIT */
/* profdirs.c - the profile search path (profdirs.h). */
#include "profdirs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "version.h"

/* The directory of the running executable, or NULL. */
static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return NULL;
	*slash = '\0';
	return pf_xstrdup(buf);
}

/*
 * Every step of @path, as written (lstat: a link is judged, not followed)
 * and as resolved: a directory or link of root's or the caller's, and as
 * root no directory others may write unless it is sticky (/tmp).  A
 * package built under /tmp/x bakes /tmp/x/build into the binary; on a node
 * where that path does not exist any user could create it (or a link
 * /tmp/x/build -> /usr/bin) and, with /tmp/x/src/profiles, hand root their
 * profile by name (issue 30).
 */
static bool owned_steps(const char *path)
{
	pf_autofree char *real = realpath(path, NULL);
	const char *const forms[] = { path, real };

	if (!real || path[0] != '/')
		return false;
	for (size_t f = 0; f < PF_ARRAY_SIZE(forms); f++) {
		pf_autofree char *p = pf_xstrdup(forms[f]);

		for (char *end = p + strlen(p); end > p; end = strrchr(p, '/')) {
			struct stat st;

			*end = '\0';
			if (lstat(*p ? p : "/", &st) < 0)
				return false;
			if (st.st_uid != 0 && st.st_uid != geteuid())
				return false;
			if (S_ISDIR(st.st_mode) && geteuid() == 0 && !(st.st_mode & S_ISVTX) &&
			    (st.st_mode & (S_IWGRP | S_IWOTH)))
				return false;
		}
	}
	return true;
}

bool pf_profile_build_dir(const char *exe, const char *bin_dir, const char *src_dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	pf_autofree char *profiles = pf_xasprintf("%s/profiles", src_dir);

	return realpath(exe, a) && realpath(bin_dir, b) && !strcmp(a, b) &&
	       owned_steps(bin_dir) && owned_steps(profiles);
}

char *pf_profile_dirs(void)
{
	const char *env = getenv("PREFLIGHT_PROFILE_PATH");
	pf_autofree char *exe = exe_dir();
	pf_autofree char *shipped = exe ? pf_xasprintf(":%s/../share/preflight/profiles", exe)
					: pf_xstrdup("");
	pf_autofree char *src = exe && pf_profile_build_dir(exe, PF_BINARY_DIR, PF_SOURCE_DIR)
					? pf_xasprintf(":%s/profiles", PF_SOURCE_DIR)
					: pf_xstrdup("");

	return pf_xasprintf("%s%s/etc/preflight/profiles%s%s", env && *env ? env : "",
			    env && *env ? ":" : "", shipped, src);
}

static bool has_json_ext(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && !strcmp(s + n - 5, ".json");
}

int pf_profile_resolve(const char *arg, char **ret_path, char **ret_err)
{
	pf_autofree char *dirs = NULL;
	pf_autofree char *tried = NULL;
	char *save = NULL;
	struct stat st;

	if (strchr(arg, '/')) {
		*ret_path = pf_xstrdup(arg);
		return 0;
	}
	dirs = pf_profile_dirs();
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = pf_xasprintf("%s/%s%s", d, arg, has_json_ext(arg) ? "" : ".json");
		char *t;

		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			*ret_path = p;
			return 0;
		}
		t = pf_xasprintf("%s%s%s", tried ? tried : "", tried ? ", " : "", p);
		free(tried);
		tried = t;
		free(p);
	}
	*ret_err = pf_xasprintf("--profile: no profile named '%s' (looked for %s; a file in "
				"the current directory is ./%s)",
				arg, tried ? tried : "nothing", arg);
	return -ENOENT;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the *.json names of @dir to @names (deduplicated later). */
static void collect(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!has_json_ext(e->d_name) || e->d_name[0] == '.')
			continue;
		*names = pf_xreallocarray(*names, *n + 1, sizeof(**names));
		if (!*names)
			abort();
		(*names)[(*n)++] = pf_xasprintf("%.*s", (int)(strlen(e->d_name) - 5), e->d_name);
	}
	closedir(d);
}

int pf_profile_list_names(void)
{
	pf_autofree char *dirs = pf_profile_dirs();
	char **names = NULL, *save = NULL;
	size_t n = 0;

	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save))
		collect(d, &names, &n);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(names[i], names[i - 1]))
			printf("%s\n", names[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]); /* after: each name is compared with the one before it */
	free(names);
	return fflush(stdout) == EOF ? -errno : 0;
}
