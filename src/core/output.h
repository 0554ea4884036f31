/* SPDX-License-Identifier: MIT */
/*
 * output.h - writing a finished document to an --output path.
 *
 * One way to write as root, for every command (the main report, `fleet`,
 * `diff`, and `snapshot DIR`'s directory): the directory is opened
 * component by component from / (or the working directory), each with
 * O_NOFOLLOW|O_DIRECTORY, and every directory on the way must be owned by
 * root or the caller and not writable by other users unless sticky (an
 * ordinary caller's own group may write; root's may not); so below
 * /tmp the next component must be root's or the caller's.  A symlink on the
 * way (or as the final name) is followed only when root or the caller owns
 * it, by walking its target the same way.  Missing directories are created
 * 0755.  A regular file is replaced atomically: a temporary ".NAME.XXXXXX"
 * created O_EXCL|O_NOFOLLOW in that directory fd, fsync, renameat relative
 * to it, with the catchable signals held meanwhile.  A device, FIFO or
 * socket is written in place only when root or the caller owns it, opened
 * O_NONBLOCK|O_NOFOLLOW with a deadline (PF_OUTPUT_DEADLINE_S); "-",
 * /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N write to our own descriptor.
 */
#ifndef PREFLIGHT_OUTPUT_H
#define PREFLIGHT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* How long a FIFO or device may take to accept the document. */
#define PF_OUTPUT_DEADLINE_S 10

/*
 * Write @len bytes of @buf to @path as above; 0 or -errno, with *ret_err
 * (caller frees) saying which component was refused and its owner when the
 * walk refuses one (-EPERM), NULL otherwise (strerror says enough).
 */
int pf_output_write(const char *path, const void *buf, size_t len, char **ret_err);

/*
 * Open the directory @dir by the walk above (creating what is missing when
 * @create): its fd (O_PATH: for the *at() calls and fstat, not for reading), and *ret_shown (the path walked, caller frees; may be
 * NULL); or -errno with *ret_err (caller frees).
 */
int pf_output_opendir(const char *dir, bool create, char **ret_shown, char **ret_err);

/* The walk's rule for one directory @st shown as @shown: 0 or -EPERM with *ret_err. */
int pf_output_judge_dir(const struct stat *st, const char *shown, char **ret_err);
/* Root or the caller (effective uid). */
bool pf_output_trusted_owner(uid_t uid);
/* "uid 1000 (alice)" (caller frees). */
char *pf_output_owner(uid_t uid);

/*
 * Expand the placeholders of an --output template: %n the short hostname
 * (@host, up to the first dot), %j the Slurm job id (@jobid, or "nojob" when
 * NULL or empty), %% a percent sign.  Returns 0 and *ret (caller frees), or
 * -EINVAL with *ret_err naming the unknown placeholder.
 */
int pf_output_expand(const char *tmpl, const char *host, const char *jobid, char **ret,
		     char **ret_err);

#endif
