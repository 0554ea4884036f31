// SPDX-License-Identifier: MIT
/*
 * output_dir.c - create the missing directories of an --output path.
 *
 * The documented Prolog writes /var/lib/preflight/prolog.json and the
 * HealthCheckProgram /var/lib/node_exporter/textfile/preflight.prom; on a
 * fresh node neither directory exists, and a report that cannot be written
 * (exit 74) drains a healthy node as "Prolog error".  See output.h.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "output.h"

/* The kernel's fs.protected_symlinks rule for following @link found in @dir. */
static bool may_follow(const struct stat *link, const struct stat *dir)
{
	bool sticky_ww = (dir->st_mode & S_ISVTX) && (dir->st_mode & S_IWOTH);

	return !sticky_ww || link->st_uid == geteuid() || link->st_uid == dir->st_uid;
}

static int fail_at(char **ret_err, int r, const char *dir, const char *what)
{
	*ret_err = pf_xasprintf("%s '%s': %s", what, dir, strerror(-r));
	return r;
}

int pf_output_check_link(const char *path, char **ret_err)
{
	pf_autofree char *dir = pf_xstrdup(path);
	char *slash = strrchr(dir, '/');
	struct stat lst, dst;

	*ret_err = NULL;
	if (lstat(path, &lst) < 0 || !S_ISLNK(lst.st_mode))
		return 0;
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &dst) < 0)
		return fail_at(ret_err, -errno, dir, "cannot use the directory");
	if (may_follow(&lst, &dst))
		return 0;
	*ret_err = pf_xasprintf("'%s' is a symlink owned by uid %u in a sticky world-writable "
				"directory: not followed (the kernel's protected_symlinks rule); "
				"remove it or choose another path", path, (unsigned int)lst.st_uid);
	return -EPERM;
}

int pf_output_mkparents(const char *path, char **ret_err)
{
	pf_autofree char *dir = pf_xstrdup(path), *walked = NULL;
	pf_autoclose int dfd = -1;
	char *slash = strrchr(dir, '/'), *save = NULL;
	struct stat st;

	*ret_err = NULL;
	if (!slash || slash == dir)
		return 0; /* in the working directory, or in / */
	*slash = '\0';
	if (stat(dir, &st) == 0)
		return 0; /* there already: writing the file judges it */
	if (errno != ENOENT)
		return fail_at(ret_err, -errno, dir, "cannot use the directory");

	walked = pf_xstrdup(*dir == '/' ? "" : ".");
	dfd = open(*dir == '/' ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return fail_at(ret_err, -errno, *dir == '/' ? "/" : ".", "cannot open");
	for (char *c = strtok_r(dir, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct stat lst, dst;
		bool created = false;
		char *next = pf_xasprintf("%s/%s", walked, c);
		int nfd;

		free(walked);
		walked = next;
		if (fstatat(dfd, c, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT)
				return fail_at(ret_err, -errno, walked, "cannot use the directory");
			if (mkdirat(dfd, c, 0755) < 0 && errno != EEXIST)
				return fail_at(ret_err, -errno, walked, "cannot create the directory");
			created = true;
		} else if (S_ISLNK(lst.st_mode)) {
			if (fstat(dfd, &dst) < 0)
				return fail_at(ret_err, -errno, walked, "cannot use the directory");
			if (!may_follow(&lst, &dst)) {
				*ret_err = pf_xasprintf("'%s' is a symlink owned by uid %u in a sticky "
							"world-writable directory: not followed",
							walked, (unsigned int)lst.st_uid);
				return -EPERM;
			}
		}
		/* what we just created is never a link: someone swapping one in is refused */
		nfd = openat(dfd, c, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (created ? O_NOFOLLOW : 0));
		if (nfd < 0)
			return fail_at(ret_err, -errno, walked, "cannot open the directory");
		if (created && fchmod(nfd, 0755) < 0) {
			int r = -errno;

			close(nfd);
			return fail_at(ret_err, r, walked, "cannot set the mode of");
		}
		close(dfd);
		dfd = nfd;
	}
	return 0;
}
