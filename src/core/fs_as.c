// SPDX-License-Identifier: MIT
/*
 * fs_as.c - read another user's file as that user (include/preflight/fs.h:
 * pf_fs_read_as).  Root must not be steered into reading, and reporting,
 * what only root may read: a job user's ~/.nccl.conf -> /etc/munge/munge.key.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preflight/fs.h"
#include "clock.h"
#include "reap.h"

#define READ_AS_DEADLINE_MS 2000

/* What the reading child sends ahead of the file's bytes. */
struct as_head {
	int err;        /* 0, or the errno the child met */
	uint32_t uid, gid, mode;
	uint64_t len;
};

/* May @uid (in @gids) read a file of @st's owner and mode, as the kernel decides? */
static bool may_read(const struct stat *st, uint32_t uid, const uint32_t *gids, size_t n)
{
	if (uid == 0)
		return true;
	if (st->st_uid == uid)
		return st->st_mode & S_IRUSR;
	for (size_t i = 0; i < n; i++)
		if (st->st_gid == gids[i])
			return st->st_mode & S_IRGRP;
	return st->st_mode & S_IROTH;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The child: become the user for file access, open, check, send. */
static _Noreturn void read_child(int out, const char *path, uint32_t uid, const uint32_t *gids,
				 size_t n_gids, size_t max)
{
	struct as_head h = { 0 };
	gid_t groups[64];
	size_t ng = n_gids < 64 ? n_gids : 64;
	pf_autofree char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (size_t i = 0; i < ng; i++)
		groups[i] = gids[i];
	/* no group known: nogroup, never root's group 0 */
	gid_t fsgid = ng ? groups[0] : (gid_t)65534;

	if (setgroups(ng, groups) < 0)
		h.err = EPERM;
	(void)setfsgid(fsgid);
	(void)setfsuid(uid);
	if (!h.err && ((uid_t)setfsuid((uid_t)-1) != uid || (gid_t)setfsgid((gid_t)-1) != fsgid))
		h.err = EPERM; /* the switch did not take: read nothing */
	fd = h.err ? -1 : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (!h.err && fd < 0)
		h.err = errno;
	if (!h.err && fstat(fd, &st) < 0)
		h.err = errno;
	if (!h.err && !S_ISREG(st.st_mode))
		h.err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	if (!h.err) {
		int r = pf_fs_read_fd(fd, max, &buf, &len);

		h.err = r < 0 ? -r : 0;
		h.uid = st.st_uid;
		h.gid = st.st_gid;
		h.mode = st.st_mode;
		h.len = h.err ? 0 : len;
	}
	if (write_all(out, &h, sizeof(h)) < 0 || (h.len && write_all(out, buf, len) < 0))
		_exit(1);
	_exit(0);
}

/* Read exactly @len bytes from @fd by @deadline_ms (monotonic); -ETIMEDOUT, -EIO short. */
static int read_exact(int fd, void *buf, size_t len, double deadline_ms)
{
	char *p = buf;

	while (len) {
		double now = pf_now_ms();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int r;

		if (now >= deadline_ms)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)(deadline_ms - now));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -ETIMEDOUT;
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_live_as(const char *path, uint32_t uid, const uint32_t *gids, size_t n_gids,
			size_t max, char **ret_buf, size_t *ret_len, struct stat *ret_st)
{
	double deadline = pf_now_ms() + READ_AS_DEADLINE_MS;
	struct as_head h;
	pf_autofree char *buf = NULL;
	int p[2], r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (pid == 0) {
		close(p[0]);
		read_child(p[1], path, uid, gids, n_gids, max ? max : PF_FS_MAX_DEFAULT);
	}
	close(p[1]);
	r = read_exact(p[0], &h, sizeof(h), deadline);
	if (r == 0 && h.err)
		r = -h.err;
	if (r == 0 && h.len > (max ? max : PF_FS_MAX_DEFAULT))
		r = -EFBIG;
	if (r == 0) {
		buf = malloc(h.len + 1);
		if (!buf)
			r = -ENOMEM;
	}
	if (r == 0)
		r = read_exact(p[0], buf, h.len, deadline);
	close(p[0]);
	(void)kill(pid, SIGKILL); /* done or late: it has nothing more to say */
	/* bounded: a child asleep in a hung file system dies only when that wakes it */
	(void)pf_reap(pid, NULL, PF_REAP_MS);
	if (r < 0)
		return r;
	buf[h.len] = '\0';
	if (ret_st) {
		memset(ret_st, 0, sizeof(*ret_st));
		ret_st->st_uid = h.uid;
		ret_st->st_gid = h.gid;
		ret_st->st_mode = h.mode;
		ret_st->st_size = (off_t)h.len;
	}
	if (ret_len)
		*ret_len = h.len;
	*ret_buf = PF_TAKE_PTR(buf);
	return 0;
}

int pf_fs_read_as(const struct pf_fs *fs, const char *path, uint32_t uid, const uint32_t *gids,
		  size_t n_gids, size_t max, char **ret_buf, size_t *ret_len, struct stat *ret_st)
{
	pf_autoclose int fd = -1;
	struct stat st;
	int r;

	if (pf_fs_is_live(fs) && geteuid() == 0 && uid != 0)
		return read_live_as(path, uid, gids, n_gids, max, ret_buf, ret_len, ret_st);
	/* recorded, or we are that user, or not root (no more rights than ours) */
	fd = pf_fs_open_file(fs, path, O_NONBLOCK);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (!pf_fs_is_live(fs) && !may_read(&st, uid, gids, n_gids))
		return -EACCES;
	r = pf_fs_read_fd(fd, max, ret_buf, ret_len);
	if (r == 0 && ret_st)
		*ret_st = st;
	return r;
}
