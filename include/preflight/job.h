/* SPDX-License-Identifier: MIT */
/*
 * job.h - what a job would see that is not a file of the node: the job's
 * user (uid, groups, home) and the device nodes under a directory with their
 * owners and modes.  (Its environment is ctx->prov->env, providers.h.)
 *
 * Two provider entries (ctx->prov->job_user, ->devnodes) with a live backend
 * (src/facts/job_live.c: SLURM_JOB_UID or the real uid and the passwd/group
 * databases, fstatat) and a recorded one (src/facts/job_recorded.c) that reads
 * plain text under <root>/preflight/ (docs/snapshot.md):
 *
 *   preflight/job_user           uid=, user=, gids=, home=, source= lines
 *   preflight/ls/dev/infiniband  `ls -ln /dev/infiniband`
 *
 * The parsers and formatters below are pure (no I/O), unit-tested and fuzzed.
 */
#ifndef PREFLIGHT_JOB_H
#define PREFLIGHT_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/check.h"

#define PF_JOB_MAX_GIDS 64

/* The user a job runs as. */
struct pf_job_user {
	uint32_t uid;
	char user[64];           /* "" unknown */
	uint32_t gids[PF_JOB_MAX_GIDS]; /* primary first */
	size_t n_gids;           /* 0: unknown */
	char home[256];          /* "" unknown */
	char source[48];         /* "SLURM_JOB_UID", "real uid", "recorded" ... */
};

/* Parse preflight/job_user; uid= is required.  -EINVAL when malformed. */
int pf_parse_job_user(const char *text, struct pf_job_user *ret);
char *pf_format_job_user(const struct pf_job_user *u);
/* True when @u may open a node of @owner/@group/@mode for reading and writing. */
bool pf_job_user_can_rw(const struct pf_job_user *u, uint32_t owner, uint32_t group,
			uint32_t mode);

/* One entry of a device directory. */
struct pf_devnode {
	char name[64];
	char type;           /* 'c', 'b', 'd', 'l', '-', ... as `ls -l` prints it */
	uint32_t mode;       /* permission bits, 07777 */
	uint32_t uid, gid;
	unsigned int major, minor; /* character and block devices */
	bool acl;            /* a POSIX ACL may grant more than the mode ('+') */
};

struct pf_devnodes {
	struct pf_devnode *v;
	size_t n;
};

void pf_devnodes_release(struct pf_devnodes *d);
const struct pf_devnode *pf_devnodes_find(const struct pf_devnodes *d, const char *name);
/*
 * Parse `ls -ln DIR` (GNU, busybox; any date style): the mode string, the
 * numeric owner and group, "major, minor" for devices, the name last.
 * A "total N" line is skipped.  -EINVAL on a malformed line.
 */
int pf_parse_ls_ln(const char *text, struct pf_devnodes *ret);
/* The text pf_parse_ls_ln() reads back, in GNU ls's layout. */
char *pf_format_ls_ln(const struct pf_devnodes *d);

/* Provider entries (include/preflight/providers.h), live and recorded. */
int pf_live_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret);
int pf_recorded_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret);
int pf_live_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret);
int pf_recorded_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret);

#endif
