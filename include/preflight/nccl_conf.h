/* SPDX-License-Identifier: MIT */
/*
 * nccl_conf.h - NCCL's configuration as NCCL itself reads it
 * (docs/checks/nccl_config.md cites the NCCL sources).
 *
 * NCCL's initEnv() (src/misc/param.cc) reads NCCL_CONF_FILE when it is set
 * and not empty, else $HOME/.nccl.conf (before 2.30: the passwd home of the
 * real uid), then /etc/nccl.conf; setEnvFile() sets each NAME=VALUE line with
 * setenv(name, value, 0).  So the environment wins over the user's file,
 * which wins over /etc/nccl.conf, and within one file the first line of a
 * name wins.  Lines starting with '#' are comments; nothing is trimmed.
 *
 * NCCL_IB_HCA and NCCL_SOCKET_IFNAME are lists in NCCL's syntax
 * (parseStringList/matchIfList, src/misc/utils.cc): a leading '^' excludes,
 * then a leading '=' matches names exactly, else each entry is a prefix;
 * "name:port" restricts an entry to one port.
 */
#ifndef PREFLIGHT_NCCL_CONF_H
#define PREFLIGHT_NCCL_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include "preflight/fs.h"

struct pf_nccl_var {
	char *name;
	char *value;
	char *origin; /* "environment" or "<file>:<line>" */
};

/* A line NCCL reads but that cannot mean what it says ("NCCL_IB_HCA = x"). */
struct pf_nccl_oddity {
	char *origin;
	char *text;
};

#define PF_NCCL_CONF_FILES 2

struct pf_nccl_conf_file {
	char *path;   /* as NCCL opens it */
	const char *why; /* "NCCL_CONF_FILE", "$HOME/.nccl.conf", "/etc/nccl.conf" */
	int status;   /* 0 read, -ENOENT absent (NCCL skips it silently), other -errno */
	size_t n_set; /* names it set (not already set by the environment or an earlier file) */
};

struct pf_nccl_conf {
	struct pf_nccl_var *vars;
	size_t n;
	struct pf_nccl_conf_file files[PF_NCCL_CONF_FILES];
	size_t n_files;
	struct pf_nccl_oddity *odd;
	size_t n_odd;
};

/* Set @name unless already set (setenv(..., 0)); @origin copied. */
void pf_nccl_conf_set(struct pf_nccl_conf *c, const char *name, const char *value,
		      const char *origin);
const struct pf_nccl_var *pf_nccl_conf_get(const struct pf_nccl_conf *c, const char *name);
/*
 * Apply a file's text as setEnvFile() does; returns how many names it set.
 * Names with blanks, or lines without '=' that look like settings, are
 * recorded in c->odd (NCCL sets or skips them silently).
 */
size_t pf_nccl_conf_apply_text(struct pf_nccl_conf *c, const char *text, const char *path);
void pf_nccl_conf_release(struct pf_nccl_conf *c);

/*
 * The files NCCL reads, in its order, into @paths (malloc'ed): @conf_file
 * (NCCL_CONF_FILE, may be NULL or "") or "<home>/.nccl.conf" (@home may be
 * NULL or ""), then "/etc/nccl.conf".  Returns the count; @why as above.
 */
size_t pf_nccl_conf_paths(const char *conf_file, const char *home,
			  char *paths[PF_NCCL_CONF_FILES], const char *why[PF_NCCL_CONF_FILES]);

/* The job user whose rights the user's NCCL files are read with (pf_fs_read_as). */
struct pf_nccl_reader {
	uint32_t uid;
	const uint32_t *gids; /* primary first */
	size_t n_gids;
};

/*
 * Apply the files NCCL reads under @fs to @c, which holds the environment's
 * variables already (pf_nccl_conf_set(..., "environment")): @conf_file is
 * NCCL_CONF_FILE (NULL/"" unset), @home the home directory (NULL/"" unknown).
 * NCCL_CONF_FILE and ~/.nccl.conf are read with @as's rights when given (a
 * file the user may not read is -EACCES, as NCCL running as that user would
 * find it), /etc/nccl.conf as is.  Never fails: unreadable files are in
 * c->files[].status.
 */
void pf_nccl_conf_load_files(const struct pf_fs *fs, const char *conf_file, const char *home,
			     const struct pf_nccl_reader *as, struct pf_nccl_conf *c);

#define PF_NCCL_IFLIST_MAX 32

struct pf_nccl_ifentry {
	char prefix[64];
	int port; /* -1 any */
};

struct pf_nccl_iflist {
	bool exclude; /* '^' */
	bool exact;   /* '=' */
	size_t n;
	struct pf_nccl_ifentry e[PF_NCCL_IFLIST_MAX];
};

/* Parse a list as NCCL does (empty entries dropped, at most PF_NCCL_IFLIST_MAX). */
void pf_nccl_iflist_parse(const char *value, struct pf_nccl_iflist *ret);
/* Whether entry @i names @name (and @port; -1 for a netdev, which has none). */
bool pf_nccl_ifentry_matches(const struct pf_nccl_iflist *l, size_t i, const char *name,
			     int port);
/* NCCL's verdict for a device port or interface: true when it is used. */
bool pf_nccl_iflist_selects(const struct pf_nccl_iflist *l, const char *name, int port);

#endif
