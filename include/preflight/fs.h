/* SPDX-License-Identifier: MIT */
/*
 * fs.h - root-relative file access.
 *
 * Every file preflight reads goes through a struct pf_fs.  Paths are written
 * as the kernel documents them ("/sys/class/infiniband/...") and are resolved
 * under the root given to pf_fs_open(): "/" for the live node, a snapshot
 * directory otherwise.  Symlinks, absolute or relative, never leave the root.
 * Errors are the kernel's errno, negated.
 */
#ifndef PREFLIGHT_FS_H
#define PREFLIGHT_FS_H

#include <dirent.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/macro.h"

struct pf_fs;

/* Largest file pf_fs_read_full() returns by default (sysfs pages are 4 KiB). */
#define PF_FS_MAX_DEFAULT (1024 * 1024)

/*
 * Open the root directory @root.  Returns 0 and sets *ret_fs, or -errno
 * (-ENOTDIR, -ENOENT, -EACCES, ...).  With PF_FS_NO_OPENAT2 set in the
 * environment the user-space resolver is used even where openat2 exists
 * (tests exercise both).
 */
int pf_fs_open(const char *root, struct pf_fs **ret_fs);
/*
 * A root that holds nothing, not even its top directory: every path is
 * -ENOENT, pf_fs_root() is "".  For a topology export judged alone, so that
 * no file of this machine is read.
 */
struct pf_fs *pf_fs_open_empty(void);
/* Release @fs; NULL-safe; returns NULL. */
struct pf_fs *pf_fs_free(struct pf_fs *fs);
PF_DEFINE_AUTO(fs_free, struct pf_fs *, pf_fs_free)
#define pf_autofs PF_CLEANUP(pf_fs_freep)

/* The root as given (normalised: no trailing slash except for "/"). */
const char *pf_fs_root(const struct pf_fs *fs);
/* True when the root is "/" (the live node). */
bool pf_fs_is_live(const struct pf_fs *fs);

/* open(2) a path under the root, O_RDONLY|O_CLOEXEC plus @flags.  Returns fd or -errno. */
int pf_fs_open_file(const struct pf_fs *fs, const char *path, int flags);

/*
 * Read a whole file, at most @max bytes (0: PF_FS_MAX_DEFAULT); a longer file
 * fails with -EFBIG.  The buffer is NUL-terminated; *ret_len excludes the NUL.
 * Embedded NUL bytes are kept in the length.
 */
int pf_fs_read_full(const struct pf_fs *fs, const char *path, size_t max,
		    char **ret_buf, size_t *ret_len);
/*
 * Another user's file, read as that user would read it (src/core/fs_as.c):
 * the job user's ~/.nccl.conf, NCCL_CONF_FILE, NCCL_TOPO_FILE.  Live and as
 * root, the file is opened in a child whose file-system credentials are
 * @uid and @gids[0..@n_gids) (setgroups, setfsgid, setfsuid), so the
 * kernel's own checks decide on every directory and link target, and a link
 * to a file only root may read is refused; O_NONBLOCK, and only a regular
 * file is read (a FIFO never hangs root); the child is killed after 2 s.
 * Under a recorded root, the recorded owner and mode of the file decide the
 * same way.  Not root (or @uid is ours): a plain read.  0 with the buffer
 * (as pf_fs_read_full) and, when @ret_st is given, the file's owner and mode
 * in it; -EACCES the user may not read it, -EINVAL not a regular file, else
 * -errno.
 */
int pf_fs_read_as(const struct pf_fs *fs, const char *path, uint32_t uid, const uint32_t *gids,
		  size_t n_gids, size_t max, char **ret_buf, size_t *ret_len, struct stat *ret_st);
/* The same for an open file descriptor, read to its end. */
int pf_fs_read_fd(int fd, size_t max, char **ret_buf, size_t *ret_len);
/*
 * Read the first line, without its newline.  An empty file gives ""; a NUL
 * byte in the line gives -EINVAL (it would cut the value short).
 */
int pf_fs_read_line(const struct pf_fs *fs, const char *path, char **ret_line);
/* Read a decimal (or 0x hex) integer file; -EINVAL for anything else, -ERANGE on overflow. */
int pf_fs_read_u64(const struct pf_fs *fs, const char *path, uint64_t *ret);
int pf_fs_read_i64(const struct pf_fs *fs, const char *path, int64_t *ret);
/* The target of a symlink under the root, as stored. */
/*
 * The one lexical symlink resolver.  Walk @path component by component
 * ("." dropped, ".." popped, never above the root), calling @step with each
 * prefix that may be a link ("sys/class/net/eth0"; @last for the final
 * component, asked only with @follow_last).  @step returns 0 for "not a
 * link", 1 with a malloc'd *ret_target to follow (absolute targets restart
 * at the root), or -errno to stop.  *ret is the resolved path relative to
 * the root ("" for the root itself); -ELOOP after 40 links, -ENAMETOOLONG.
 * fs.c resolves with readlinkat(); the snapshot recreates each link it meets.
 */
typedef int (*pf_path_step_fn)(void *userdata, const char *rel, bool last, char **ret_target);
int pf_path_resolve(const char *path, bool follow_last, pf_path_step_fn step, void *userdata,
		    char **ret);

int pf_fs_readlink(const struct pf_fs *fs, const char *path, char **ret_target);
/*
 * The canonical path of @path under the root, as an absolute path relative to
 * the root ("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0").
 */
int pf_fs_realpath(const struct pf_fs *fs, const char *path, char **ret_path);
/* opendir(3) under the root. */
int pf_fs_opendir(const struct pf_fs *fs, const char *path, DIR **ret_dir);
/*
 * List the names in a directory, sorted, without "." and "..".  Returns the
 * count; *ret_names is a NULL-terminated array freed with pf_strv_free().
 */
int pf_fs_list(const struct pf_fs *fs, const char *path, char ***ret_names);
/* 1 if the path exists (following symlinks), 0 if not, -errno on other errors. */
int pf_fs_exists(const struct pf_fs *fs, const char *path);

/* printf-style path variants. */
int pf_fs_readf_line(const struct pf_fs *fs, char **ret_line, const char *fmt, ...) PF_PRINTF(3, 4);
int pf_fs_readf_u64(const struct pf_fs *fs, uint64_t *ret, const char *fmt, ...) PF_PRINTF(3, 4);
int pf_fs_readf_i64(const struct pf_fs *fs, int64_t *ret, const char *fmt, ...) PF_PRINTF(3, 4);

/*
 * Open @rel beneath @dirfd without following any symlink on the way or at
 * the end (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or one O_NOFOLLOW
 * component at a time); @flags as openat's (O_CREAT creates 0644).  An fd or
 * -errno (-ELOOP for a link, -EXDEV for "..").  How `snapshot` writes.
 */
int pf_openat_beneath(int dirfd, const char *rel, int flags);

/*
 * A file a user names to preflight (profile, site config, drop-in,
 * --topology, fleet and diff inputs): opened O_NONBLOCK, fstat'ed, and read
 * only when it is a regular file (a FIFO is an error, never a hang).  With
 * @trusted, as root it must also be root's and not group/world-writable
 * (pf_input_judge(), like sshd and sudo).  At most @max bytes.  0, or -errno
 * with *ret_err naming the file and why (caller frees).
 */
int pf_read_input(const char *path, size_t max, bool trusted, char **ret_buf, size_t *ret_len,
		  char **ret_err);
/* The ownership rule of pf_read_input() for @st (also for directories). */
int pf_input_judge(const struct stat *st, const char *path, bool trusted, char **ret_err);

/*
 * A program root may execute: @path is a regular file with an execute bit
 * (-ENOENT otherwise), owned by root and not group/world-writable (-EPERM),
 * whoever the caller is.  With @ret_real, @path must be absolute (-EINVAL)
 * and is resolved: the resolved file and every directory above it must be
 * root's and not group/world-writable unless sticky (/tmp: nobody else may
 * rename what root put there), and *@ret_real is the resolved path to run
 * (caller frees), so that no other user can swap the program or a link on
 * the way.  Without it the file alone is judged (mstconfig's fixed
 * system directories).  Defined in src/core/trust.c, beside the library
 * rule of the PF_*_PATH overrides.  0, or -errno with *ret_err (may be
 * NULL) naming the file or directory and why (caller frees).
 */
int pf_exec_trusted(const char *path, char **ret_real, char **ret_err);

void pf_strv_free(char **v);
PF_DEFINE_AUTO(strv_free, char **, pf_strv_free)
#define pf_autostrv PF_CLEANUP(pf_strv_freep)

/* Parse an unsigned/signed integer string (decimal or 0x hex, surrounding blanks allowed). */
int pf_parse_u64(const char *s, uint64_t *ret);
int pf_parse_i64(const char *s, int64_t *ret);

#endif
