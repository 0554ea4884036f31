/* SPDX-License-Identifier: MIT */
/*
 * profdirs.h - where `--profile NAME` looks (docs/site-config.md, "Profiles by name"):
 *   $PREFLIGHT_PROFILE_PATH (colon-separated), /etc/preflight/profiles,
 *   <dir of the executable>/../share/preflight/profiles, and, for a binary
 *   run from its build directory, the source tree's profiles/.
 * The data directory is found from /proc/self/exe, so one binary works from
 * a build tree, /usr/local, /usr and /opt.  The current directory is never
 * searched: a file is named with a '/' (./golden.json).
 */
#ifndef PREFLIGHT_PROFDIRS_H
#define PREFLIGHT_PROFDIRS_H

#include <stdbool.h>

/*
 * Whether @exe (the executable's directory) is the build directory @bin_dir
 * whose source tree @src_dir's profiles/ may be searched: the same directory,
 * and both paths, as written and resolved, made only of directories and
 * links of root's or the caller's (as root: none others may write, sticky
 * ones apart), so nobody else can create them where they do not exist.
 */
bool pf_profile_build_dir(const char *exe, const char *bin_dir, const char *src_dir);

/* The directories, colon-separated, in search order (caller frees). */
char *pf_profile_dirs(void);

/*
 * @arg with a '/' is a path, used as it is; otherwise NAME[.json] in the
 * first directory that holds it.  0 with *ret_path (caller frees), or
 * -ENOENT with *ret_err naming what was tried.
 */
int pf_profile_resolve(const char *arg, char **ret_path, char **ret_err);

/* Print the names of the profiles found, first one of a name wins: 0 or -errno. */
int pf_profile_list_names(void);

#endif
