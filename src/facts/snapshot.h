/* SPDX-License-Identifier: MIT */
/*
 * snapshot.h - write a recorded root of a node (the library under
 * `preflight snapshot DIR`, whose front end is src/cmd/snapshot.c).
 *
 * Copies the files the checks read from a source root (the live node, or
 * another recorded root such as an unpacked hwloc-gather-topology capture)
 * into DIR, keeping sysfs's symlinks as symlinks and copying each regular
 * file by reading it, then records the facts that are not files (ethtool,
 * pause, PFC, ...) through the providers in the text formats of
 * docs/snapshot.md: each with its pf_record_*() beside its recorded reader
 * (src/facts/record.h).  The paths are one table in src/facts/snapshot.c.
 * Unreadable files are skipped and listed in DIR/preflight/snapshot.log.
 */
#ifndef PREFLIGHT_SNAPSHOT_H
#define PREFLIGHT_SNAPSHOT_H

#include <stdint.h>

#include "preflight/fs.h"
#include "preflight/providers.h"

#define PF_SNAPSHOT_WINDOW_MS 1000

struct pf_snapshot_opts {
	const struct pf_providers *prov; /* NULL: pf_providers_for(src) */
	/* a second `ethtool -S` of RDMA netdevs this long after the first; 0: none */
	unsigned int window_ms;
};

struct pf_snapshot_stats {
	size_t files, links, dirs, skipped, facts;
	uint64_t bytes;
};

/*
 * Write the snapshot of @src into directory @dir (created if absent; it
 * must be empty otherwise).  Returns 0 and fills @ret_stats (may be NULL),
 * or -errno with *ret_err (caller frees) when DIR cannot be written.
 * Unreadable source files are not an error: they are counted as skipped
 * and listed in <dir>/preflight/snapshot.log.
 */
int pf_snapshot_write(const struct pf_fs *src, const char *dir,
		      const struct pf_snapshot_opts *opts, struct pf_snapshot_stats *ret_stats,
		      char **ret_err);

#endif
