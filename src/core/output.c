// SPDX-License-Identifier: MIT
/*
 * output.c - atomic --output writes and the --output placeholders.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "output.h"

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Non-blocking writes to a device or FIFO, waiting for room until @deadline. */
static int write_until(int fd, const char *p, size_t len, long long deadline)
{
	while (len) {
		ssize_t k = write(fd, p, len);
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		long long left = deadline - now_ms();

		if (k >= 0) {
			p += k;
			len -= (size_t)k;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * A device, FIFO or socket of root's or the caller's, in a trusted
 * directory: written in place (renaming would replace the node), opened
 * O_NONBLOCK|O_NOFOLLOW so that a FIFO nobody reads never hangs preflight.
 */
static int write_in_place(int dfd, const char *name, const struct stat *lst, const void *buf,
			  size_t len)
{
	long long deadline = now_ms() + PF_OUTPUT_DEADLINE_S * 1000LL;
	pf_autoclose int fd = -1;
	struct stat st;

	for (;;) {
		fd = openat(dfd, name, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO) /* ENXIO: a FIFO with no reader yet */
			break;
		if (now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(20 * 1000);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_dev != lst->st_dev || st.st_ino != lst->st_ino)
		return -EAGAIN; /* swapped under us */
	return write_until(fd, buf, len, deadline);
}

/* "-" and "/dev/stdout", "/dev/stderr", "/dev/fd/N", "/proc/self/fd/N": fd N, or -1. */
static int fd_path(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	char *end;
	long n;

	if (!strcmp(path, "/dev/stdout") || !strcmp(path, "-"))
		return 1;
	if (!strcmp(path, "/dev/stderr"))
		return 2;
	for (size_t i = 0; i < PF_ARRAY_SIZE(dirs); i++) {
		size_t l = strlen(dirs[i]);

		if (strncmp(path, dirs[i], l) || !path[l])
			continue;
		errno = 0;
		n = strtol(path + l, &end, 10);
		if (!*end && !errno && n >= 0 && n < 1024 * 1024)
			return (int)n;
	}
	return -1;
}

/* One of our own descriptors: written where it stands, as printing to it would. */
static int write_fd(int n, const void *buf, size_t len)
{
	pf_autoclose int fd = fcntl(n, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	return write_all(fd, buf, len);
}

/* The signals the commands catch: held while a temporary file has a name. */
static void hold_signals(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, old);
}

/* A fresh temporary ".NAME.XXXXXX" in @dfd, created O_EXCL|O_NOFOLLOW. */
static int make_temp(int dfd, const char *name, char **ret_tmp)
{
	for (int i = 0; i < 100; i++) {
		unsigned int rnd = 0;
		pf_autofree char *tmp = NULL;
		int fd;

		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (unsigned int)now_ms() * 2654435761u + (unsigned int)i;
		tmp = pf_xasprintf(".%s.%06x", name, rnd & 0xffffff);
		fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			*ret_tmp = PF_TAKE_PTR(tmp);
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * Replace @name in @dfd atomically: a temporary in the same directory,
 * fsync, renameat.  The catchable signals wait until the temporary is
 * renamed or removed, so a second SIGTERM (which exits at once) never
 * leaves it behind.
 */
static int write_atomic(int dfd, const char *name, const void *buf, size_t len)
{
	pf_autofree char *tmp = NULL;
	sigset_t old;
	int fd, r;

	hold_signals(&old);
	fd = make_temp(dfd, name, &tmp);
	r = fd < 0 ? fd : 0;
	if (fd >= 0) {
		if (fchmod(fd, 0644) < 0)
			r = -errno;
		if (r == 0)
			r = write_all(fd, buf, len);
		if (r == 0 && fsync(fd) < 0)
			r = -errno;
		if (close(fd) < 0 && r == 0)
			r = -errno;
		if (r == 0 && renameat(dfd, tmp, dfd, name) < 0)
			r = -errno;
		if (r < 0)
			unlinkat(dfd, tmp, 0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int write_path(const char *path, const void *buf, size_t len, int depth,
		      char **ret_err);

/*
 * The final name is a link: followed only when root or the caller owns it
 * (its directory passed the walk), by walking its target the same way.
 */
static int write_link(int dfd, const char *dir, const char *name, const struct stat *lst,
		      const void *buf, size_t len, int depth, char **ret_err)
{
	pf_autofree char *who = pf_output_owner(lst->st_uid), *next = NULL;
	char target[4096];
	ssize_t n;

	if (!pf_output_trusted_owner(lst->st_uid)) {
		*ret_err = pf_xasprintf("'%s/%s' is a symlink owned by %s, neither root nor the "
					"caller: not followed; remove it or choose another path",
					dir, name, who);
		return -EPERM;
	}
	n = readlinkat(dfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (fd_path(target) >= 0)
		return write_fd(fd_path(target), buf, len);
	if (depth >= 8)
		return -ELOOP;
	next = target[0] == '/' ? pf_xstrdup(target) : pf_xasprintf("%s/%s", dir, target);
	return write_path(next, buf, len, depth + 1, ret_err);
}

static int write_path(const char *path, const void *buf, size_t len, int depth,
		      char **ret_err)
{
	pf_autofree char *dir = pf_xstrdup(path), *shown = NULL;
	pf_autoclose int dfd = -1;
	char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : path;
	struct stat lst;
	int r;

	if (fd_path(path) >= 0)
		return write_fd(fd_path(path), buf, len);
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EISDIR;
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	dfd = pf_output_opendir(dir, true, &shown, ret_err);
	if (dfd < 0)
		return dfd;
	if (fstatat(dfd, name, &lst, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return -errno;
		return write_atomic(dfd, name, buf, len);
	}
	if (S_ISLNK(lst.st_mode))
		return write_link(dfd, shown, name, &lst, buf, len, depth, ret_err);
	if (S_ISDIR(lst.st_mode))
		return -EISDIR;
	if (S_ISREG(lst.st_mode))
		return write_atomic(dfd, name, buf, len);
	if (!pf_output_trusted_owner(lst.st_uid)) {
		pf_autofree char *who = pf_output_owner(lst.st_uid);

		*ret_err = pf_xasprintf("'%s' is a %s owned by %s, neither root nor the caller: "
					"not written to", path, S_ISFIFO(lst.st_mode) ? "FIFO" :
					S_ISSOCK(lst.st_mode) ? "socket" : "device node", who);
		return -EPERM;
	}
	r = write_in_place(dfd, name, &lst, buf, len);
	if (r == -ETIMEDOUT)
		*ret_err = pf_xasprintf("nothing read the %s within %d s: not written",
					S_ISFIFO(lst.st_mode) ? "FIFO" : "device",
					PF_OUTPUT_DEADLINE_S);
	return r;
}

int pf_output_write(const char *path, const void *buf, size_t len, char **ret_err)
{
	*ret_err = NULL;
	return write_path(path, buf, len, 0, ret_err);
}

/* A placeholder's value must not leave the directory: '/' and a leading '.' become '_'. */
static void add_safe(struct pf_strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '/' || (i == 0 && c == '.') || (unsigned char)c < 0x20)
			c = '_';
		pf_strbuf_addch(out, c);
	}
}

int pf_output_expand(const char *tmpl, const char *host, const char *jobid, char **ret,
		     char **ret_err)
{
	pf_autostrbuf struct pf_strbuf out = PF_STRBUF_INIT;

	for (const char *p = tmpl; *p; p++) {
		if (*p != '%') {
			pf_strbuf_addch(&out, *p);
			continue;
		}
		switch (p[1]) {
		case 'n': {
			const char *h = host && *host && *host != '.' ? host : "unknown";

			add_safe(&out, h, strcspn(h, "."));
			break;
		}
		case 'j': {
			const char *j = jobid && *jobid ? jobid : "nojob";

			add_safe(&out, j, strlen(j));
			break;
		}
		case '%':
			add_safe(&out, "%", 1);
			break;
		default:
			if (ret_err)
				*ret_err = pf_xasprintf("unknown placeholder '%%%.1s' in '%s' "
							"(%%n hostname, %%j job id, %%%% a percent sign)",
							p[1] ? p + 1 : "", tmpl);
			return -EINVAL;
		}
		p++;
	}
	*ret = pf_strbuf_detach(&out);
	return 0;
}
