/* SPDX-License-Identifier: MIT */
/*
 * siteconf.h - the site configuration: /etc/preflight/preflight.conf and
 * its drop-ins /etc/preflight/preflight.conf.d/ *.conf (docs/site-config.md).
 *
 * Each file is a JSON object with comments (like a profile) whose keys are
 * the main command's long options: {"profile": "dgx-h100", "only":
 * "static", "drain": true, "set": {"nic_link_speed.min_rate_gbps": 400}}.
 * Files are read in order (the main file, then the drop-ins sorted by
 * name); a later file's key replaces an earlier one's, "set" entries
 * accumulate.  The result is a list of options that main() puts before the
 * command line's, so the command line wins.
 */
#ifndef PREFLIGHT_SITECONF_H
#define PREFLIGHT_SITECONF_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#define PF_SITECONF_PATH "/etc/preflight/preflight.conf"

struct pf_siteconf_entry {
	char *key;    /* long option name, "profile" */
	char *value;  /* its value, NULL for a flag that is on */
	char *origin; /* the file that set it */
};

struct pf_siteconf {
	char **files; /* files read, in order (NULL-terminated) */
	size_t n_files;
	struct pf_siteconf_entry *entries; /* in first-set order, "set" once per value */
	size_t n_entries;
};

/*
 * Read @path and @path.d/ *.conf.  Keys must name an option of @opts (a
 * getopt table) that is not in @deny (NULL-terminated).  Absent files are
 * fine.  Returns 0, or -errno/-EINVAL with *ret_err (caller frees).
 */
int pf_siteconf_load(struct pf_siteconf *sc, const char *path, const struct option *opts,
		     const char *const *deny, char **ret_err);
void pf_siteconf_release(struct pf_siteconf *sc);
/* Whether @key is set. */
bool pf_siteconf_has(const struct pf_siteconf *sc, const char *key);

#endif
