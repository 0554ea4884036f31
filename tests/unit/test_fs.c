// SPDX-License-Identifier: MIT
/*
 * test_fs.c - the root-relative file API: reads, errno cases, and that no
 * symlink or ".." ever leads outside the root.
 *
 * Every test runs twice: once with openat2(RESOLVE_IN_ROOT) and once with
 * the user-space resolver (PF_FS_NO_OPENAT2), which must behave the same.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preflight/fs.h"
#include "clock.h"
#include "reap.h"
#include "trust.h"
#include "testutil.h"

#define SECRET "TOPSECRET outside the root"

struct fx {
	char *top;  /* temp dir holding the root and a secret beside it */
	char root[PATH_MAX];
	struct pf_fs *fs;
};

static void write_bytes(const char *dir, const char *rel, const char *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static int setup(void **state)
{
	struct fx *fx = pf_xcalloc(1, sizeof(*fx));
	char path[PATH_MAX + 64], *big;

	fx->top = pf_test_mkdtemp();
	snprintf(fx->root, sizeof(fx->root), "%s/root", fx->top);
	/* outside the root: what no lookup under the root may ever return */
	pf_test_write(fx->top, "secret", SECRET "\n");
	pf_test_write(fx->top, "etc/hostname", SECRET "\n");

	pf_test_write(fx->root, "a/line", "hello\nworld\n");
	pf_test_write(fx->root, "a/noeol", "no newline");
	pf_test_write(fx->root, "a/empty", "");
	pf_test_write(fx->root, "a/u64", "42\n");
	pf_test_write(fx->root, "a/hex", "0x1f\n");
	pf_test_write(fx->root, "a/blank", "  7 \n");
	pf_test_write(fx->root, "a/neg", "-7\n");
	pf_test_write(fx->root, "a/garbage", "12abc\n");
	pf_test_write(fx->root, "a/two", "1 2\n");
	pf_test_write(fx->root, "a/huge", "18446744073709551616\n");
	pf_test_write(fx->root, "a/u64max", "18446744073709551615\n");
	write_bytes(fx->root, "a/nul", "a\0b", 3);
	big = pf_xmalloc(5000);
	memset(big, 'x', 5000);
	write_bytes(fx->root, "a/big", big, 5000);
	write_bytes(fx->root, "a/page", big, 4096);
	free(big);
	pf_test_write(fx->root, "d/z", "");
	pf_test_write(fx->root, "d/a", "");
	pf_test_write(fx->root, "d/m", "");
	snprintf(path, sizeof(path), "%s/d/sub", fx->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/emptydir", fx->root);
	assert_int_equal(mkdir(path, 0755), 0);

	/* a sysfs-like relative link */
	pf_test_write(fx->root, "sys/devices/pci0000:00/0000:00:01.0/net/eth0/mtu", "9000\n");
	pf_test_symlink(fx->root, "sys/class/net/eth0",
			"../../devices/pci0000:00/0000:00:01.0/net/eth0");
	pf_test_symlink(fx->root, "l", "a/line");
	pf_test_symlink(fx->root, "dangling", "nowhere");

	/* escapes: each must land inside the root, on the decoy */
	pf_test_write(fx->root, "secret", "decoy inside the root\n");
	pf_test_write(fx->root, "etc/hostname", "inside\n");
	snprintf(path, sizeof(path), "%s/secret", fx->top);
	pf_test_symlink(fx->root, "abs_outside", path);   /* host path of the secret */
	pf_test_symlink(fx->root, "abs", "/secret");
	pf_test_symlink(fx->root, "a/dotdot", "../../../../../secret");
	pf_test_symlink(fx->root, "a/updir", "../../../..");
	pf_test_symlink(fx->root, "a/rootdir", "/");
	pf_test_symlink(fx->root, "chain1", "a/updir/etc");

	/* loops */
	pf_test_symlink(fx->root, "loop1", "loop2");
	pf_test_symlink(fx->root, "loop2", "loop1");
	pf_test_symlink(fx->root, "self", "self");
	pf_test_symlink(fx->root, "dirloop", "dirloop/x");

	assert_int_equal(pf_fs_open(fx->root, &fx->fs), 0);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	pf_fs_free(fx->fs);
	pf_test_rmtree(fx->top);
	free(fx->top);
	free(fx);
	return 0;
}

static int group_openat2(void **state)
{
	unsetenv("PF_FS_NO_OPENAT2");
	return 0;
}

static int group_fallback(void **state)
{
	setenv("PF_FS_NO_OPENAT2", "1", 1);
	return 0;
}

static void test_read_line(void **state)
{
	struct fx *fx = *state;
	char *s = NULL;

	assert_int_equal(pf_fs_read_line(fx->fs, "/a/line", &s), 0);
	assert_string_equal(s, "hello");
	free(s);
	/* relative and absolute spellings are the same file */
	assert_int_equal(pf_fs_read_line(fx->fs, "a//line", &s), 0);
	assert_string_equal(s, "hello");
	free(s);
	assert_int_equal(pf_fs_read_line(fx->fs, "/a/noeol", &s), 0);
	assert_string_equal(s, "no newline");
	free(s);
	assert_int_equal(pf_fs_read_line(fx->fs, "/a/empty", &s), 0);
	assert_string_equal(s, "");
	free(s);
	assert_int_equal(pf_fs_readf_line(fx->fs, &s, "/%s/%s", "a", "line"), 0);
	assert_string_equal(s, "hello");
	free(s);
}

static void test_read_numbers(void **state)
{
	struct fx *fx = *state;
	uint64_t u = 0;
	int64_t i = 0;

	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/u64", &u), 0);
	assert_int_equal(u, 42);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/hex", &u), 0);
	assert_int_equal(u, 31);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/blank", &u), 0);
	assert_int_equal(u, 7);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/u64max", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(pf_fs_read_i64(fx->fs, "/a/neg", &i), 0);
	assert_int_equal(i, -7);
	assert_int_equal(pf_fs_readf_i64(fx->fs, &i, "/a/%s", "u64"), 0);
	assert_int_equal(i, 42);
	assert_int_equal(pf_fs_readf_u64(fx->fs, &u, "/a/%s", "hex"), 0);
	assert_int_equal(u, 31);

	u = 99;
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/neg", &u), -EINVAL);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/garbage", &u), -EINVAL);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/two", &u), -EINVAL);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/empty", &u), -EINVAL);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/huge", &u), -ERANGE);
	assert_int_equal(u, 99); /* untouched on failure */
	assert_int_equal(pf_fs_read_i64(fx->fs, "/a/u64max", &i), -ERANGE);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/a/missing", &u), -ENOENT);
}

static void test_parse_numbers(void **state)
{
	uint64_t u = 0;
	int64_t i = 0;

	assert_int_equal(pf_parse_u64("0", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(pf_parse_u64(" 0x0 ", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(pf_parse_u64("0XfF", &u), 0);
	assert_int_equal(u, 255);
	assert_int_equal(pf_parse_u64("0x", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("0x0x10", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("0xg", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("+1", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("-1", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("", &u), -EINVAL);
	assert_int_equal(pf_parse_u64("1.5", &u), -EINVAL);
	assert_int_equal(pf_parse_i64("-9223372036854775808", &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(pf_parse_i64("9223372036854775808", &i), -ERANGE);
	assert_int_equal(pf_parse_i64("0x7fffffffffffffff", &i), 0);
	assert_true(i == INT64_MAX);
	assert_int_equal(pf_parse_i64("0x8000000000000000", &i), -ERANGE);
	assert_int_equal(pf_parse_i64("-", &i), -EINVAL);
	assert_int_equal(pf_parse_i64("+3", &i), 0);
	assert_int_equal(i, 3);
	assert_int_equal(pf_parse_i64("-0x10", &i), -EINVAL);
}

static void test_read_full(void **state)
{
	struct fx *fx = *state;
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(pf_fs_read_full(fx->fs, "/a/line", 0, &buf, &len), 0);
	assert_int_equal(len, 12);
	assert_string_equal(buf, "hello\nworld\n");
	free(buf);
	/* embedded NUL kept in the length */
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/nul", 0, &buf, &len), 0);
	assert_int_equal(len, 3);
	assert_memory_equal(buf, "a\0b", 4);
	free(buf);
	/* bounded: exactly max is fine, one byte more is -EFBIG */
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/big", 5000, &buf, &len), 0);
	assert_int_equal(len, 5000);
	free(buf);
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/page", 4096, &buf, &len), 0);
	assert_int_equal(len, 4096);
	free(buf);
	buf = NULL;
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/big", 4999, &buf, &len), -EFBIG);
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/big", 4096, &buf, &len), -EFBIG);
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/line", 11, &buf, &len), -EFBIG);
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/page", 100, &buf, &len), -EFBIG);
	assert_null(buf);
	/* ret_len is optional */
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/u64", 0, &buf, NULL), 0);
	assert_string_equal(buf, "42\n");
	free(buf);
}

static void test_errno(void **state)
{
	struct fx *fx = *state;
	char *s = NULL;
	DIR *d = NULL;

	assert_int_equal(pf_fs_read_line(fx->fs, "/nope", &s), -ENOENT);
	assert_int_equal(pf_fs_read_line(fx->fs, "/nope/deeper", &s), -ENOENT);
	assert_int_equal(pf_fs_read_line(fx->fs, "/dangling", &s), -ENOENT);
	assert_int_equal(pf_fs_read_line(fx->fs, "/a/line/x", &s), -ENOTDIR);
	assert_int_equal(pf_fs_read_line(fx->fs, "/a", &s), -EISDIR);
	assert_int_equal(pf_fs_opendir(fx->fs, "/a/line", &d), -ENOTDIR);
	assert_int_equal(pf_fs_opendir(fx->fs, "/nope", &d), -ENOENT);
	assert_null(d);
	assert_null(s);

	/* permissions only bind without root (CI runs as root: ENOTDIR/EISDIR above) */
	if (geteuid() != 0) {
		char path[PATH_MAX + 16];

		snprintf(path, sizeof(path), "%s/a/u64", fx->root);
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(pf_fs_read_line(fx->fs, "/a/u64", &s), -EACCES);
		assert_int_equal(chmod(path, 0644), 0);
	}
}

static void test_exists(void **state)
{
	struct fx *fx = *state;

	assert_int_equal(pf_fs_exists(fx->fs, "/a/line"), 1);
	assert_int_equal(pf_fs_exists(fx->fs, "/a"), 1);
	assert_int_equal(pf_fs_exists(fx->fs, "/"), 1);
	assert_int_equal(pf_fs_exists(fx->fs, "/l"), 1);
	assert_int_equal(pf_fs_exists(fx->fs, "/sys/class/net/eth0/mtu"), 1);
	assert_int_equal(pf_fs_exists(fx->fs, "/nope"), 0);
	assert_int_equal(pf_fs_exists(fx->fs, "/dangling"), 0);
	assert_int_equal(pf_fs_exists(fx->fs, "/a/line/x"), 0);
	assert_int_equal(pf_fs_exists(fx->fs, "/loop1"), -ELOOP);
}

static void test_list(void **state)
{
	struct fx *fx = *state;
	char **names = NULL;
	DIR *d = NULL;

	assert_int_equal(pf_fs_list(fx->fs, "/d", &names), 4);
	assert_string_equal(names[0], "a");
	assert_string_equal(names[1], "m");
	assert_string_equal(names[2], "sub");
	assert_string_equal(names[3], "z");
	assert_null(names[4]);
	pf_strv_free(names);
	names = NULL;
	assert_int_equal(pf_fs_list(fx->fs, "/emptydir", &names), 0);
	assert_non_null(names);
	assert_null(names[0]);
	pf_strv_free(names);
	names = NULL;
	/* through a symlinked directory */
	assert_int_equal(pf_fs_list(fx->fs, "/sys/class/net/eth0", &names), 1);
	assert_string_equal(names[0], "mtu");
	pf_strv_free(names);
	names = NULL;
	assert_int_equal(pf_fs_list(fx->fs, "/nope", &names), -ENOENT);
	assert_int_equal(pf_fs_list(fx->fs, "/a/line", &names), -ENOTDIR);
	assert_null(names);
	assert_int_equal(pf_fs_opendir(fx->fs, "/d", &d), 0);
	closedir(d);
	pf_strv_free(NULL);
}

static void test_readlink(void **state)
{
	struct fx *fx = *state;
	char *t = NULL;

	assert_int_equal(pf_fs_readlink(fx->fs, "/l", &t), 0);
	assert_string_equal(t, "a/line");
	free(t);
	assert_int_equal(pf_fs_readlink(fx->fs, "/sys/class/net/eth0", &t), 0);
	assert_string_equal(t, "../../devices/pci0000:00/0000:00:01.0/net/eth0");
	free(t);
	/* the stored target, even when it points outside */
	assert_int_equal(pf_fs_readlink(fx->fs, "/a/dotdot", &t), 0);
	assert_string_equal(t, "../../../../../secret");
	free(t);
	t = NULL;
	assert_int_equal(pf_fs_readlink(fx->fs, "/a/line", &t), -EINVAL);
	assert_int_equal(pf_fs_readlink(fx->fs, "/nope", &t), -ENOENT);
	assert_int_equal(pf_fs_readlink(fx->fs, "/", &t), -EINVAL);
	assert_null(t);
}

static void test_realpath(void **state)
{
	struct fx *fx = *state;
	char *p = NULL;

	assert_int_equal(pf_fs_realpath(fx->fs, "/sys/class/net/eth0", &p), 0);
	assert_string_equal(p, "/sys/devices/pci0000:00/0000:00:01.0/net/eth0");
	free(p);
	assert_int_equal(pf_fs_realpath(fx->fs, "/sys/class/net/eth0/../eth0/./mtu", &p), 0);
	assert_string_equal(p, "/sys/devices/pci0000:00/0000:00:01.0/net/eth0/mtu");
	free(p);
	assert_int_equal(pf_fs_realpath(fx->fs, "/sys/class/net/eth0/..", &p), 0);
	assert_string_equal(p, "/sys/devices/pci0000:00/0000:00:01.0/net");
	free(p);
	assert_int_equal(pf_fs_realpath(fx->fs, "/", &p), 0);
	assert_string_equal(p, "/");
	free(p);
	assert_int_equal(pf_fs_realpath(fx->fs, "/a/dotdot", &p), 0);
	assert_string_equal(p, "/secret");
	free(p);
	assert_int_equal(pf_fs_realpath(fx->fs, "/a/updir/a/../chain1", &p), 0);
	assert_string_equal(p, "/etc");
	free(p);
	p = NULL;
	assert_int_equal(pf_fs_realpath(fx->fs, "/nope", &p), -ENOENT);
	assert_int_equal(pf_fs_realpath(fx->fs, "/dangling", &p), -ENOENT);
	assert_int_equal(pf_fs_realpath(fx->fs, "/loop1", &p), -ELOOP);
	assert_null(p);
}

/* Read @path and assert it is the decoy inside the root, never the secret. */
static void assert_inside(struct fx *fx, const char *path, const char *want)
{
	char *s = NULL;
	int r = pf_fs_read_line(fx->fs, path, &s);

	if (r == 0)
		assert_null(strstr(s, "TOPSECRET"));
	if (want) {
		assert_int_equal(r, 0);
		assert_string_equal(s, want);
	} else {
		assert_int_equal(r, -ENOENT);
	}
	free(s);
}

static void test_no_escape(void **state)
{
	struct fx *fx = *state;
	char hostpath[PATH_MAX + 16];
	char *s = NULL;

	assert_inside(fx, "/abs", "decoy inside the root");
	assert_inside(fx, "/a/dotdot", "decoy inside the root");
	assert_inside(fx, "/a/updir/secret", "decoy inside the root");
	assert_inside(fx, "/a/updir/a/updir/etc/hostname", "inside");
	assert_inside(fx, "/a/rootdir/secret", "decoy inside the root");
	assert_inside(fx, "/chain1/hostname", "inside");
	assert_inside(fx, "/../../../../secret", "decoy inside the root");
	assert_inside(fx, "/a/../../../secret", "decoy inside the root");
	assert_inside(fx, "../etc/hostname", "inside");
	/* a link to the secret's host path resolves under the root: not there */
	assert_inside(fx, "/abs_outside", NULL);
	snprintf(hostpath, sizeof(hostpath), "%s/secret", fx->top);
	assert_inside(fx, hostpath, NULL);

	/* the directory API is confined too */
	{
		char **names = NULL;
		int n = pf_fs_list(fx->fs, "/a/updir", &names);

		assert_true(n > 0);
		for (int i = 0; i < n; i++)
			assert_string_not_equal(names[i], "root"); /* the top dir lists "root" */
		pf_strv_free(names);
	}
	assert_int_equal(pf_fs_read_full(fx->fs, "/a/dotdot", 0, &s, NULL), 0);
	assert_null(strstr(s, "TOPSECRET"));
	free(s);
}

static void test_loops(void **state)
{
	struct fx *fx = *state;
	char *s = NULL;
	uint64_t v;

	assert_int_equal(pf_fs_read_line(fx->fs, "/loop1", &s), -ELOOP);
	assert_int_equal(pf_fs_read_line(fx->fs, "/self", &s), -ELOOP);
	assert_int_equal(pf_fs_read_line(fx->fs, "/dirloop/file", &s), -ELOOP);
	assert_int_equal(pf_fs_read_u64(fx->fs, "/loop2/x", &v), -ELOOP);
	assert_null(s);
}

static void test_open_root(void **state)
{
	struct fx *fx = *state;
	struct pf_fs *fs = NULL;
	char path[PATH_MAX + 16];
	char *s = NULL;

	assert_string_equal(pf_fs_root(fx->fs), fx->root);
	assert_false(pf_fs_is_live(fx->fs));
	assert_int_equal(pf_fs_open("", &fs), -EINVAL);
	assert_int_equal(pf_fs_open(NULL, &fs), -EINVAL);
	snprintf(path, sizeof(path), "%s/nope", fx->top);
	assert_int_equal(pf_fs_open(path, &fs), -ENOENT);
	snprintf(path, sizeof(path), "%s/secret", fx->top);
	assert_int_equal(pf_fs_open(path, &fs), -ENOTDIR);
	assert_null(fs);

	snprintf(path, sizeof(path), "%s///", fx->root);
	assert_int_equal(pf_fs_open(path, &fs), 0);
	assert_string_equal(pf_fs_root(fs), fx->root);
	assert_false(pf_fs_is_live(fs));
	fs = pf_fs_free(fs);
	assert_null(pf_fs_free(NULL));

	/* the live root reads host paths as they are (our own temp file) */
	assert_int_equal(pf_fs_open("//", &fs), 0);
	assert_string_equal(pf_fs_root(fs), "/");
	assert_true(pf_fs_is_live(fs));
	snprintf(path, sizeof(path), "%s/secret", fx->top);
	assert_int_equal(pf_fs_read_line(fs, path, &s), 0);
	assert_string_equal(s, SECRET);
	free(s);
	snprintf(path, sizeof(path), "%s/a/nope", fx->root);
	assert_int_equal(pf_fs_read_line(fs, path, &s), -ENOENT);
	pf_fs_free(fs);
}

static void test_name_too_long(void **state)
{
	struct fx *fx = *state;
	char *longname = pf_xmalloc(PATH_MAX + 10);
	char *s = NULL;

	memset(longname, 'n', PATH_MAX + 9);
	longname[PATH_MAX + 9] = '\0';
	assert_int_equal(pf_fs_readf_line(fx->fs, &s, "/%s", longname), -ENAMETOOLONG);
	free(longname);
}

#define FS_TESTS                                                          \
	cmocka_unit_test_setup_teardown(test_read_line, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_read_numbers, setup, teardown),  \
	cmocka_unit_test_setup_teardown(test_read_full, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_errno, setup, teardown),         \
	cmocka_unit_test_setup_teardown(test_exists, setup, teardown),        \
	cmocka_unit_test_setup_teardown(test_list, setup, teardown),          \
	cmocka_unit_test_setup_teardown(test_readlink, setup, teardown),      \
	cmocka_unit_test_setup_teardown(test_realpath, setup, teardown),      \
	cmocka_unit_test_setup_teardown(test_no_escape, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_loops, setup, teardown),         \
	cmocka_unit_test_setup_teardown(test_open_root, setup, teardown),     \
	cmocka_unit_test_setup_teardown(test_name_too_long, setup, teardown)

/* pf_read_input(): regular files only (a FIFO is an error at once), bounded, named. */
static void test_read_input(void **state)
{
	char dir[] = "/tmp/pf-test-input.XXXXXX", path[256];
	char *buf = NULL, *err = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_bytes(dir, "a.json", "{}\n", 3);
	snprintf(path, sizeof(path), "%s/a.json", dir);
	assert_int_equal(pf_read_input(path, 0, true, &buf, &len, &err), 0);
	assert_int_equal(len, 3);
	free(buf);
	assert_int_equal(pf_read_input(path, 2, false, &buf, &len, &err), -EFBIG);
	free(err);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0644), 0);
	assert_int_equal(pf_read_input(path, 0, false, &buf, &len, &err), -EINVAL);
	assert_non_null(strstr(err, "is not a regular file (a FIFO)"));
	free(err);
	assert_int_equal(pf_read_input(dir, 0, false, &buf, &len, &err), -EISDIR);
	free(err);
	snprintf(path, sizeof(path), "%s/a.json", dir);
	assert_int_equal(chmod(path, 0666), 0);
	if (geteuid() == 0) { /* the ownership rule applies as root only */
		assert_int_equal(pf_read_input(path, 0, true, &buf, &len, &err), -EPERM);
		assert_non_null(strstr(err, "writable by everyone (mode 0666)"));
		free(err);
	}
	assert_int_equal(pf_read_input(path, 0, false, &buf, &len, &err), 0);
	free(buf);
	pf_test_rmtree(dir);
}

/*
 * pf_fs_read_as: root reads a job user's file with that user's rights.  A
 * link the user planted to a file only root may read is refused (it would
 * hand out /etc/munge/munge.key), a FIFO is refused at once, what the user
 * may read is read with its owner and mode; a recorded root decides from the
 * recorded owner and mode.  Needs root (skipped otherwise).
 */
static void test_read_as(void **state)
{
	char dir[] = "/tmp/pf-test-as.XXXXXX", path[256], target[256];
	const uint32_t nobody = 65534, groups[] = { 65534 }, other[] = { 4242 };
	pf_autofs struct pf_fs *live = NULL, *rec = NULL;
	char *buf = NULL;
	size_t len = 0;
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	write_bytes(dir, "secret", "password = s3cr3t\n", 18);
	snprintf(target, sizeof(target), "%s/secret", dir);
	assert_int_equal(chmod(target, 0600), 0);
	snprintf(path, sizeof(path), "%s/link", dir); /* ~/.nccl.conf -> the key */
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lchown(path, nobody, nobody), 0);
	write_bytes(dir, "open", "NCCL_IB_HCA=mlx5\n", 17);
	write_bytes(dir, "mine", "NCCL_DEBUG=INFO\n", 16);
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(chown(path, nobody, nobody), 0);
	assert_int_equal(chmod(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0666), 0);

	assert_int_equal(pf_fs_open("/", &live), 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(pf_fs_read_as(live, path, nobody, groups, 1, 0, &buf, &len, NULL),
			 -EACCES);
	assert_int_equal(pf_fs_read_as(live, target, nobody, groups, 1, 0, &buf, &len, NULL),
			 -EACCES);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(pf_fs_read_as(live, path, nobody, groups, 1, 0, &buf, &len, NULL),
			 -EINVAL);
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(pf_fs_read_as(live, path, nobody, groups, 1, 0, &buf, &len, &st), 0);
	assert_string_equal(buf, "NCCL_IB_HCA=mlx5\n");
	assert_int_equal(st.st_mode & 0777, 0644);
	free(buf);
	snprintf(path, sizeof(path), "%s/mine", dir);
	assert_int_equal(pf_fs_read_as(live, path, nobody, groups, 1, 0, &buf, &len, &st), 0);
	assert_int_equal(st.st_uid, nobody);
	free(buf);
	assert_int_equal(pf_fs_read_as(live, path, 4242, other, 1, 0, &buf, &len, NULL), -EACCES);

	assert_int_equal(pf_fs_open(dir, &rec), 0); /* recorded: owner and mode decide */
	assert_int_equal(pf_fs_read_as(rec, "/secret", nobody, groups, 1, 0, &buf, &len, NULL),
			 -EACCES);
	assert_int_equal(pf_fs_read_as(rec, "/mine", nobody, groups, 1, 0, &buf, &len, NULL), 0);
	free(buf);
	assert_int_equal(pf_fs_read_as(rec, "/mine", 4242, other, 1, 0, &buf, &len, NULL),
			 -EACCES);
	assert_int_equal(pf_fs_read_as(rec, "/fifo", nobody, groups, 1, 0, &buf, &len, NULL),
			 -EINVAL);
	pf_test_rmtree(dir);
}

/* pf_fs_open_empty(): no path exists, nothing of this machine is read. */
/*
 * pf_reap() is bounded: a child that does not exit (here: one that is not
 * killed; in read_live_as() one asleep in a hung file system) is left
 * after the bound instead of hanging its parent (issue 30).
 */
static void test_reap_bounded(void **state)
{
	int status = 0;
	double t0;
	pid_t pid;

	sigset_t term, old;

	(void)state;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old); /* the child starts with SIGTERM blocked */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		sleep(30);
		_exit(0);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	(void)kill(pid, SIGTERM);
	t0 = pf_now_ms();
	assert_int_equal(pf_reap(pid, &status, 200), -ETIMEDOUT);
	assert_true(pf_now_ms() - t0 < 2000);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(pf_reap(pid, &status, 5000), 0);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_int_equal(pf_reap(pid, NULL, 10), -ECHILD);
}

/* The rule root loads and executes by (trust.h): root's, nobody else may write it. */
static void test_trust_path(void **state)
{
	char dir[] = "/tmp/pf-trust-XXXXXX";
	pf_autofree char *file = NULL;
	char *real = NULL, *why = NULL;
	int fd;

	(void)state;
	assert_int_equal(pf_trust_path("relative/lib.so", &real, &why), -EINVAL);
	assert_non_null(strstr(why, "not an absolute path"));
	free(why);
	assert_int_equal(pf_trust_path("/bin/sh", &real, &why), 0);
	assert_non_null(real);
	free(real);
	real = NULL;
	assert_non_null(mkdtemp(dir));
	file = pf_xasprintf("%s/lib.so", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(file, 0666), 0);
	assert_int_equal(pf_trust_path(file, &real, &why), -EPERM);
	assert_non_null(strstr(why, "writable by everyone"));
	assert_null(real);
	free(why);
	why = NULL;
	if (geteuid() == 0) {
		assert_int_equal(chmod(file, 0644), 0);
		assert_int_equal(pf_trust_path(file, &real, &why), 0);
		free(real);
		real = NULL;
		/* a parent others may write: they could rename another file in */
		assert_int_equal(chmod(dir, 0777), 0);
		assert_int_equal(pf_trust_path(file, &real, &why), -EPERM);
		{
			pf_autofree char *want = pf_xasprintf("'%s' is writable by everyone", dir);

			assert_non_null(strstr(why, want)); /* the directory, not the file */
		}
		free(why);
		why = NULL;
		assert_int_equal(chmod(dir, 0700), 0);
		assert_int_equal(chown(file, 1000, 1000), 0);
		assert_int_equal(pf_trust_path(file, &real, &why), -EPERM);
		free(why);
		why = NULL;
	}
	assert_int_equal(pf_trust_path(dir, &real, &why), -ENOENT);
	free(why);
	unlink(file);
	rmdir(dir);
}

static void test_empty(void **state)
{
	struct pf_fs *fs = pf_fs_open_empty();
	char *s = NULL, **names = NULL;
	DIR *d = NULL;

	(void)state;
	assert_string_equal(pf_fs_root(fs), "");
	assert_false(pf_fs_is_live(fs));
	assert_int_equal(pf_fs_open_file(fs, "/", O_DIRECTORY), -ENOENT);
	assert_int_equal(pf_fs_open_file(fs, "/etc/passwd", 0), -ENOENT);
	assert_int_equal(pf_fs_exists(fs, "/sys"), 0);
	assert_int_equal(pf_fs_read_line(fs, "/proc/sys/kernel/hostname", &s), -ENOENT);
	assert_int_equal(pf_fs_list(fs, "/sys/class/infiniband", &names), -ENOENT);
	assert_int_equal(pf_fs_opendir(fs, "/", &d), -ENOENT);
	assert_int_equal(pf_fs_readlink(fs, "/sys/class/net/eth0", &s), -ENOENT);
	assert_int_equal(pf_fs_realpath(fs, "/", &s), -ENOENT);
	assert_null(s);
	pf_fs_free(fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { FS_TESTS };
	const struct CMUnitTest pure[] = { cmocka_unit_test(test_parse_numbers),
					   cmocka_unit_test(test_read_input),
					   cmocka_unit_test(test_read_as),
					   cmocka_unit_test(test_reap_bounded),
					   cmocka_unit_test(test_trust_path),
					   cmocka_unit_test(test_empty) };
	int failed = 0;

	failed += cmocka_run_group_tests_name("fs_openat2", tests, group_openat2, NULL);
	failed += cmocka_run_group_tests_name("fs_fallback", tests, group_fallback, NULL);
	failed += cmocka_run_group_tests_name("parse_numbers", pure, NULL, NULL);
	return failed ? 1 : 0;
}
