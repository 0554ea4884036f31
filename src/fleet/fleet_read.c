// SPDX-License-Identifier: MIT
/*
 * fleet_read.c - reading the report files that `preflight fleet DIR` finds
 * in a directory, safely when root reads a directory other users write
 * (docs/fleet.md "Reading a directory as root"): each entry is opened
 * beneath the directory's fd with no symlink followed on the way or at the
 * end (pf_openat_beneath()), only a regular file is read, and as root only
 * a file of root's or of the directory's owner, with one hard link.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet_model.h"
#include "preflight/fs.h"
#include "preflight/strbuf.h"

/*
 * The rule for root (docs/fleet.md): the file is root's or the directory
 * owner's (who can replace any entry of it anyway), and it has one link (a
 * second name may be a hard link to a file its planter could not read).
 * 0, or -EPERM with *ret_why.
 */
static int judge_owner(const struct stat *dir, const struct stat *st, char **ret_why)
{
	if (geteuid() != 0)
		return 0;
	if (st->st_uid != 0 && st->st_uid != dir->st_uid) {
		*ret_why = pf_xasprintf("owned by uid %u, neither root nor the directory's owner "
					"(uid %u): not read as root", (unsigned int)st->st_uid,
					(unsigned int)dir->st_uid);
		return -EPERM;
	}
	if (st->st_nlink != 1) {
		*ret_why = pf_xasprintf("has %ju hard links: not read as root",
					(uintmax_t)st->st_nlink);
		return -EPERM;
	}
	return 0;
}

/* Open and read @rel beneath @dirfd (whose stat is @dir); -errno with *ret_why. */
static int read_beneath(int dirfd, const struct stat *dir, const char *rel, char **ret_buf,
			size_t *ret_len, char **ret_why)
{
	pf_autoclose int fd = -1;
	struct stat st;
	int r;

	fd = pf_openat_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -ELOOP) {
		*ret_why = pf_xstrdup("a symbolic link: not followed");
		return fd;
	}
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = fd < 0 ? fd : -errno;
		*ret_why = pf_xasprintf("cannot read: %s", strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		*ret_why = pf_xstrdup("not a regular file");
		return -EINVAL;
	}
	r = judge_owner(dir, &st, ret_why);
	if (r < 0)
		return r;
	r = pf_fs_read_fd(fd, PF_FLEET_MAX_REPORT, ret_buf, ret_len);
	if (r < 0)
		*ret_why = pf_xasprintf("cannot read: %s", r == -EFBIG ? "too large" : strerror(-r));
	return r;
}

int pf_fleet_add_file_in(struct pf_fleet *f, const char *dir, const char *rel,
			 const char *origin, char **ret_err)
{
	pf_autoclose int dirfd = -1;
	pf_autofree char *buf = NULL, *why = NULL;
	struct stat dst;
	size_t len = 0;
	int r;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0 || fstat(dirfd, &dst) < 0) {
		r = -errno;
		why = pf_xasprintf("cannot read: %s", strerror(-r));
	} else {
		r = read_beneath(dirfd, &dst, rel, &buf, &len, &why);
	}
	if (r < 0) {
		fl_reject(f, origin, why, ret_err);
		return r;
	}
	return pf_fleet_add_report(f, buf, len, origin, ret_err);
}
