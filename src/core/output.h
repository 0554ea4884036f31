/* SPDX-License-Identifier: MIT */
/*
 * output.h - writing a finished document to an --output path.
 *
 * The rules every command follows (the main report, `fleet`, `diff`): a
 * regular file is replaced atomically (temporary file in the same directory,
 * fsync, rename), so no reader ever sees half of one; a symlink to a regular
 * file keeps the link and has its target replaced; a device, FIFO or socket
 * (/dev/stdout, /dev/full) is written in place.
 */
#ifndef PREFLIGHT_OUTPUT_H
#define PREFLIGHT_OUTPUT_H

#include <stddef.h>

/* Write @len bytes of @buf to @path as above; 0 or -errno. */
int pf_output_write(const char *path, const void *buf, size_t len);

/*
 * Expand the placeholders of an --output template: %n the short hostname
 * (@host, up to the first dot), %j the Slurm job id (@jobid, or "nojob" when
 * NULL or empty), %% a percent sign.  Returns 0 and *ret (caller frees), or
 * -EINVAL with *ret_err naming the unknown placeholder.
 */
int pf_output_expand(const char *tmpl, const char *host, const char *jobid, char **ret,
		     char **ret_err);

/*
 * Create the missing directories above @path (mode 0755 whatever the umask;
 * the last component is the file and is left alone), walking from / or the
 * working directory one component at a time.  A symlink on the way is
 * followed only where the kernel's protected_symlinks rule would follow it
 * (not in a sticky world-writable directory, or owned by the caller or by
 * that directory's owner), so another user's link in /tmp never decides
 * where root creates directories.  0, or -errno with *ret_err saying which
 * component (caller frees).
 */
int pf_output_mkparents(const char *path, char **ret_err);

/*
 * When @path itself is a symlink, whether the kernel's protected_symlinks
 * rule would let the caller follow it (the rule above): 0 when it is no
 * link, does not exist or may be followed; -EPERM with *ret_err naming the
 * link's owner otherwise (caller frees).  preflight resolves the final link
 * itself (to keep it and replace its target), so the kernel never applies
 * the rule there: another user's /tmp/r.json -> /etc/shadow is refused here.
 */
int pf_output_check_link(const char *path, char **ret_err);

#endif
