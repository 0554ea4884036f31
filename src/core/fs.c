// SPDX-License-Identifier: MIT
/*
 * fs.c - root-relative file access (see include/preflight/fs.h).
 *
 * Under a root other than "/", paths are opened with openat2(RESOLVE_IN_ROOT)
 * when the kernel has it; otherwise they are resolved component by component
 * in user space, with every symlink re-anchored at the root and ".." clamped
 * there, and the result is opened with O_NOFOLLOW.  The user-space resolver
 * also implements pf_fs_realpath(), which inventory uses for PCI paths.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "preflight/fs.h"

#define PF_MAX_SYMLINKS 40

struct pf_fs {
	int root_fd;
	char *root;
	bool live;
	bool have_openat2;
	bool empty; /* pf_fs_open_empty(): no file at all */
};

/*
 * openat2(2).  With RESOLVE_IN_ROOT or RESOLVE_BENEATH the kernel answers
 * EAGAIN when any rename on the system raced a ".." in the lookup: a user
 * renaming files in a loop (in her own /tmp directory) made every file of a
 * recorded root reached through "../" links unreadable.  Retried a few
 * times; still EAGAIN, the caller resolves in user space.
 */
static int sys_openat2(int dirfd, const char *path, int flags, uint64_t resolve)
{
#ifdef SYS_openat2
	struct open_how how = { .flags = (uint64_t)flags, .resolve = resolve };
	int fd = -1;

	for (int i = 0; i < 16; i++) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	return fd;
#else
	errno = ENOSYS;
	return -1;
#endif
}

int pf_fs_open(const char *root, struct pf_fs **ret_fs)
{
	struct pf_fs *fs;
	size_t len;
	int fd, probe;

	if (!root || !*root)
		return -EINVAL;
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	fs = pf_xcalloc(1, sizeof(*fs));
	fs->root_fd = fd;
	fs->root = pf_xstrdup(root);
	len = strlen(fs->root);
	while (len > 1 && fs->root[len - 1] == '/')
		fs->root[--len] = '\0';
	fs->live = strcmp(fs->root, "/") == 0;

	/* PF_FS_NO_OPENAT2 forces the user-space resolver (its tests set it). */
	probe = getenv("PF_FS_NO_OPENAT2") ? -1
		: sys_openat2(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, RESOLVE_IN_ROOT);
	if (probe >= 0) {
		fs->have_openat2 = true;
		close(probe);
	}
	*ret_fs = fs;
	return 0;
}

struct pf_fs *pf_fs_open_empty(void)
{
	struct pf_fs *fs = pf_xcalloc(1, sizeof(*fs));

	fs->root_fd = -1;
	fs->root = pf_xstrdup("");
	fs->empty = true;
	return fs;
}

struct pf_fs *pf_fs_free(struct pf_fs *fs)
{
	if (!fs)
		return NULL;
	if (fs->root_fd >= 0)
		close(fs->root_fd);
	free(fs->root);
	free(fs);
	return NULL;
}

const char *pf_fs_root(const struct pf_fs *fs)
{
	return fs->root;
}

bool pf_fs_is_live(const struct pf_fs *fs)
{
	return fs->live;
}

/* Drop the last component of a relative path held in @out (length *len). */
static void pop_component(char *out, size_t *len)
{
	while (*len > 0 && out[*len - 1] != '/')
		(*len)--;
	if (*len > 0)
		(*len)--;
	out[*len] = '\0';
}

int pf_path_resolve(const char *path, bool follow_last, pf_path_step_fn step, void *userdata,
		    char **ret)
{
	pf_autofree char *todo = pf_xstrdup(path);
	char out[PATH_MAX];
	size_t len = 0;
	int links = 0;
	char *p = todo;

	out[0] = '\0';
	for (;;) {
		pf_autofree char *target = NULL;
		char *comp, *next;
		size_t clen;
		bool last;
		int r;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		clen = strcspn(p, "/");
		p += clen;
		while (*p == '/')
			p++;
		last = *p == '\0';

		if (clen == 1 && comp[0] == '.')
			continue;
		if (clen == 2 && comp[0] == '.' && comp[1] == '.') {
			pop_component(out, &len);
			continue;
		}
		if (len + 1 + clen + 1 > sizeof(out))
			return -ENAMETOOLONG;
		if (len > 0)
			out[len++] = '/';
		memcpy(out + len, comp, clen);
		len += clen;
		out[len] = '\0';
		if (last && !follow_last)
			break;

		r = step(userdata, out, last, &target);
		if (r < 0)
			return r;
		if (r == 0)
			continue; /* not a symlink */
		if (++links > PF_MAX_SYMLINKS)
			return -ELOOP;
		pop_component(out, &len);
		if (target[0] == '/') {
			len = 0;
			out[0] = '\0';
		}
		next = pf_xasprintf("%s/%s", target, p);
		free(todo);
		todo = next;
		p = todo;
	}
	*ret = pf_xstrdup(out);
	return 0;
}

/* One step of resolve(): readlinkat() under the root's fd. */
static int resolve_step(void *userdata, const char *rel, bool last, char **ret_target)
{
	const struct pf_fs *fs = userdata;
	char target[PATH_MAX];
	ssize_t n;

	n = readlinkat(fs->root_fd, rel, target, sizeof(target) - 1);
	if (n < 0) {
		if (errno == EINVAL)
			return 0; /* not a symlink */
		if (errno == ENOENT && last)
			return 0; /* let the caller's open say ENOENT */
		return -errno;
	}
	target[n] = '\0';
	*ret_target = pf_xstrdup(target);
	return 1;
}

/*
 * Resolve @path under the root into a relative path with no symlinks (the
 * last component is left alone unless @follow_last).  "" stands for the root.
 */
static int resolve(const struct pf_fs *fs, const char *path, bool follow_last, char **ret)
{
	return pf_path_resolve(path, follow_last, resolve_step, (void *)fs, ret);
}

/*
 * Under a recorded root, a file to be read must be a regular file: a FIFO
 * would block open() and read() for ever (in the parent, where the
 * inventory is read, nothing would end it) and a device is no snapshot of
 * anything (-EINVAL; a directory -EISDIR, as read() would say).  Opened
 * with O_NONBLOCK so that the open itself cannot block.
 */
static int only_regular(int fd, int flags)
{
	struct stat st;

	if (fd < 0)
		return -errno;
	if (flags & (O_PATH | O_DIRECTORY))
		return fd;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int pf_fs_open_file(const struct pf_fs *fs, const char *path, int flags)
{
	pf_autofree char *rel = NULL;
	int fd, r;

	flags |= O_RDONLY | O_CLOEXEC;
	if (fs->empty)
		return -ENOENT;
	if (fs->live) {
		fd = open(path, flags);
		return fd < 0 ? -errno : fd;
	}
	if (!(flags & O_PATH))
		flags |= O_NONBLOCK; /* openat2 refuses it with O_PATH */
	if (fs->have_openat2) {
		while (*path == '/')
			path++;
		fd = sys_openat2(fs->root_fd, *path ? path : ".", flags,
				 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
		if (fd >= 0 || errno != EAGAIN)
			return only_regular(fd, flags);
		/* renames elsewhere kept racing the kernel's ".." check: resolve here */
	}
	r = resolve(fs, path, true, &rel);
	if (r < 0)
		return r;
	fd = openat(fs->root_fd, *rel ? rel : ".", flags | O_NOFOLLOW);
	return only_regular(fd, flags);
}

int pf_fs_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	pf_autofree char *buf = NULL;
	size_t len = 0, cap = 4096;

	if (max == 0)
		max = PF_FS_MAX_DEFAULT;
	buf = pf_xmalloc(cap + 1);
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > max)
				return -EFBIG;
			cap *= 2;
			buf = pf_xrealloc(buf, cap + 1);
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max)
			return -EFBIG;
	}
	buf[len] = '\0';
	*ret_buf = PF_TAKE_PTR(buf);
	if (ret_len)
		*ret_len = len;
	return 0;
}

int pf_fs_read_full(const struct pf_fs *fs, const char *path, size_t max,
		    char **ret_buf, size_t *ret_len)
{
	pf_autoclose int fd = -1;

	fd = pf_fs_open_file(fs, path, 0);
	if (fd < 0)
		return fd;
	return pf_fs_read_fd(fd, max, ret_buf, ret_len);
}

int pf_fs_read_line(const struct pf_fs *fs, const char *path, char **ret_line)
{
	char *buf = NULL, *nl;
	size_t len = 0;
	int r;

	r = pf_fs_read_full(fs, path, 0, &buf, &len);
	if (r < 0)
		return r;
	nl = memchr(buf, '\n', len);
	if (nl)
		len = (size_t)(nl - buf);
	/* a NUL inside the line would silently cut it short ("4\0" + "096" read as 4) */
	if (memchr(buf, '\0', len)) {
		free(buf);
		return -EINVAL;
	}
	buf[len] = '\0';
	*ret_line = buf;
	return 0;
}

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return s;
}

static int check_tail(const char *end)
{
	return *skip_blank(end) ? -EINVAL : 0;
}

int pf_parse_u64(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;
	int base = 10;

	s = skip_blank(s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		/* strtoull would accept a second prefix: "0x0x10" */
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
			return -EINVAL;
	}
	if (!((*s >= '0' && *s <= '9') || (base == 16 && strchr("abcdefABCDEF", *s) && *s)))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || check_tail(end) < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pf_parse_i64(const char *s, int64_t *ret)
{
	long long v;
	char *end;

	s = skip_blank(s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		uint64_t u;
		int r = pf_parse_u64(s, &u);

		if (r < 0)
			return r;
		if (u > INT64_MAX)
			return -ERANGE;
		*ret = (int64_t)u;
		return 0;
	}
	if (!(*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (end == s || check_tail(end) < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pf_fs_read_u64(const struct pf_fs *fs, const char *path, uint64_t *ret)
{
	pf_autofree char *line = NULL;
	uint64_t v;
	int r;

	r = pf_fs_read_line(fs, path, &line);
	if (r < 0)
		return r;
	r = pf_parse_u64(line, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int pf_fs_read_i64(const struct pf_fs *fs, const char *path, int64_t *ret)
{
	pf_autofree char *line = NULL;
	int64_t v;
	int r;

	r = pf_fs_read_line(fs, path, &line);
	if (r < 0)
		return r;
	r = pf_parse_i64(line, &v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

static int readlink_at(int dirfd, const char *rel, char **ret)
{
	char buf[PATH_MAX];
	ssize_t n;

	n = readlinkat(dirfd, rel, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	*ret = pf_xstrdup(buf);
	return 0;
}

int pf_fs_readlink(const struct pf_fs *fs, const char *path, char **ret_target)
{
	pf_autofree char *rel = NULL;
	int r;

	if (fs->empty)
		return -ENOENT;
	if (fs->live)
		return readlink_at(AT_FDCWD, path, ret_target);
	r = resolve(fs, path, false, &rel);
	if (r < 0)
		return r;
	if (!*rel)
		return -EINVAL;
	return readlink_at(fs->root_fd, rel, ret_target);
}

int pf_fs_realpath(const struct pf_fs *fs, const char *path, char **ret_path)
{
	pf_autofree char *rel = NULL;
	int r;

	if (fs->empty)
		return -ENOENT;
	if (fs->live) {
		char *p = realpath(path, NULL);

		if (!p)
			return -errno;
		*ret_path = p;
		return 0;
	}
	r = resolve(fs, path, true, &rel);
	if (r < 0)
		return r;
	r = pf_fs_exists(fs, path);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*ret_path = pf_xasprintf("/%s", rel);
	return 0;
}

int pf_fs_opendir(const struct pf_fs *fs, const char *path, DIR **ret_dir)
{
	DIR *d;
	int fd;

	fd = pf_fs_open_file(fs, path, O_DIRECTORY);
	if (fd < 0)
		return fd;
	d = fdopendir(fd);
	if (!d) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret_dir = d;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int pf_fs_list(const struct pf_fs *fs, const char *path, char ***ret_names)
{
	pf_autoclosedir DIR *d = NULL;
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r;

	r = pf_fs_opendir(fs, path, &d);
	if (r < 0)
		return r;
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 16;
			v = pf_xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = pf_xstrdup(de->d_name);
	}
	if (!v)
		v = pf_xcalloc(1, sizeof(*v));
	v[n] = NULL;
	qsort(v, n, sizeof(*v), cmp_str);
	*ret_names = v;
	return (int)n;
}

int pf_fs_exists(const struct pf_fs *fs, const char *path)
{
	int fd = pf_fs_open_file(fs, path, O_PATH);

	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (fd == -ENOENT || fd == -ENOTDIR)
		return 0;
	return fd;
}

void pf_strv_free(char **v)
{
	if (!v)
		return;
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

#define PF_FS_VFORMAT(fmt, path)                      \
	char path[PATH_MAX];                           \
	do {                                           \
		va_list ap;                            \
		int n_;                                \
		va_start(ap, fmt);                     \
		n_ = vsnprintf(path, sizeof(path), fmt, ap); \
		va_end(ap);                            \
		if (n_ < 0 || (size_t)n_ >= sizeof(path)) \
			return -ENAMETOOLONG;          \
	} while (0)

int pf_fs_readf_line(const struct pf_fs *fs, char **ret_line, const char *fmt, ...)
{
	PF_FS_VFORMAT(fmt, path);
	return pf_fs_read_line(fs, path, ret_line);
}

int pf_fs_readf_u64(const struct pf_fs *fs, uint64_t *ret, const char *fmt, ...)
{
	PF_FS_VFORMAT(fmt, path);
	return pf_fs_read_u64(fs, path, ret);
}

int pf_fs_readf_i64(const struct pf_fs *fs, int64_t *ret, const char *fmt, ...)
{
	PF_FS_VFORMAT(fmt, path);
	return pf_fs_read_i64(fs, path, ret);
}

int pf_openat_beneath(int dirfd, const char *rel, int flags)
{
	pf_autofree char *copy = NULL;
	char *save = NULL, *c, *next;
	int fd;

	flags |= O_CLOEXEC | O_NOFOLLOW;
#ifdef SYS_openat2
	{
		struct open_how how = { .flags = (uint64_t)flags,
					.mode = (flags & O_CREAT) ? 0644 : 0,
					.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS };

		fd = (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EAGAIN))
			return fd >= 0 ? fd : -errno;
	}
#endif
	/* no openat2 (or a seccomp filter refuses it): one component at a time */
	copy = pf_xstrdup(rel);
	fd = dup(dirfd);
	for (c = strtok_r(copy, "/", &save); fd >= 0 && c; c = next) {
		int nfd;

		next = strtok_r(NULL, "/", &save);
		if (!strcmp(c, "..")) {
			close(fd);
			return -EXDEV;
		}
		nfd = openat(fd, c, next ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC : flags,
			     0644);
		close(fd);
		fd = nfd;
	}
	return fd < 0 ? -errno : fd;
}

int pf_input_judge(const struct stat *st, const char *path, bool trusted, char **ret_err)
{
	if (trusted && geteuid() == 0 && st->st_uid != 0) {
		*ret_err = pf_xasprintf("'%s' is owned by uid %u, not root: refused as root "
					"(another user could change what root runs)", path,
					(unsigned int)st->st_uid);
		return -EPERM;
	}
	if (trusted && geteuid() == 0 && (st->st_mode & (S_IWGRP | S_IWOTH))) {
		*ret_err = pf_xasprintf("'%s' is writable by %s (mode %04o): refused as root "
					"(another user could change what root runs); chmod go-w it",
					path, st->st_mode & S_IWOTH ? "everyone" : "its group",
					(unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

int pf_read_input(const char *path, size_t max, bool trusted, char **ret_buf, size_t *ret_len,
		  char **ret_err)
{
	pf_autoclose int fd = -1;
	struct stat st;
	int r;

	*ret_err = NULL;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		*ret_err = pf_xasprintf("cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		*ret_err = pf_xasprintf("cannot read '%s': %s", path, strerror(-r));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		*ret_err = pf_xasprintf("cannot read '%s': %s", path, strerror(EISDIR));
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		*ret_err = pf_xasprintf("'%s' is not a regular file (%s): not read", path,
					S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISSOCK(st.st_mode) ?
					"a socket" : "a device");
		return -EINVAL;
	}
	r = pf_input_judge(&st, path, trusted, ret_err);
	if (r < 0)
		return r;
	r = pf_fs_read_fd(fd, max, ret_buf, ret_len);
	if (r < 0)
		*ret_err = pf_xasprintf("cannot read '%s': %s", path,
					r == -EFBIG ? "too large" : strerror(-r));
	return r;
}
