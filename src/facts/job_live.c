// SPDX-License-Identifier: MIT
/*
 * job_live.c - the live backend of the job user and device listing
 * providers (include/preflight/job.h).
 *
 * The job's user: SLURM_JOB_UID (set for prologs and job steps alike) when
 * present, else the real uid of this process; groups and home from the
 * passwd and group databases (NSS), or this process's own groups when it
 * runs as that user.
 */
#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preflight/job.h"

static void add_gid(struct pf_job_user *u, uint32_t gid)
{
	for (size_t i = 0; i < u->n_gids; i++)
		if (u->gids[i] == gid)
			return;
	if (u->n_gids < PF_JOB_MAX_GIDS)
		u->gids[u->n_gids++] = gid;
}

/* Name, home and primary group from passwd; 0, or -ENOENT when NSS does not know the uid. */
static int from_passwd(struct pf_job_user *u, gid_t *ret_gid)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(u->uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -ENOENT;
	if (!u->user[0])
		snprintf(u->user, sizeof(u->user), "%s", pw.pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw.pw_dir ? pw.pw_dir : "");
	*ret_gid = pw.pw_gid;
	return 0;
}

/*
 * SLURM_JOB_USER as a name: letters, digits and "._-@$" only (no newline
 * that would add a "uid=0" line to the recorded job_user, no '/' or ':').
 * Anything else is ignored and the passwd entry of the uid names the user.
 */
static bool valid_user_name(const char *s)
{
	if (!*s || *s == '-' || strlen(s) >= sizeof(((struct pf_job_user *)0)->user))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-@$", *s))
			return false;
	return true;
}

int pf_live_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	struct pf_job_user u = { 0 };
	const char *juid = getenv("SLURM_JOB_UID"), *juser = getenv("SLURM_JOB_USER");
	const char *jgid = getenv("SLURM_JOB_GID");
	uint64_t v;
	gid_t pgid = 0;
	bool known;

	if (juid && pf_parse_u64(juid, &v) == 0 && v <= UINT32_MAX) {
		u.uid = (uint32_t)v;
		snprintf(u.source, sizeof(u.source), "SLURM_JOB_UID");
		if (juser && valid_user_name(juser))
			snprintf(u.user, sizeof(u.user), "%s", juser);
	} else {
		u.uid = (uint32_t)getuid();
		snprintf(u.source, sizeof(u.source), "real uid");
	}
	known = from_passwd(&u, &pgid) == 0;
	if (u.uid == (uint32_t)getuid() && u.uid == (uint32_t)geteuid()) {
		/* this process runs as the user: its own groups are the job's */
		gid_t g[PF_JOB_MAX_GIDS];
		int n = getgroups((int)PF_JOB_MAX_GIDS, g);

		add_gid(&u, (uint32_t)getgid());
		for (int i = 0; i < n; i++)
			add_gid(&u, (uint32_t)g[i]);
	} else if (known && u.user[0]) {
		gid_t g[PF_JOB_MAX_GIDS];
		int n = PF_JOB_MAX_GIDS;

		if (getgrouplist(u.user, pgid, g, &n) < 0)
			n = PF_JOB_MAX_GIDS; /* truncated: the first ones are filled */
		add_gid(&u, (uint32_t)pgid);
		for (int i = 0; i < n; i++)
			add_gid(&u, (uint32_t)g[i]);
	} else if (jgid && pf_parse_u64(jgid, &v) == 0 && v <= UINT32_MAX) {
		add_gid(&u, (uint32_t)v);
	}
	*ret = u;
	return 0;
}

static char type_char(mode_t m)
{
	return S_ISCHR(m) ? 'c' : S_ISBLK(m) ? 'b' : S_ISDIR(m) ? 'd' : S_ISLNK(m) ? 'l' :
	       S_ISFIFO(m) ? 'p' : S_ISSOCK(m) ? 's' : '-';
}

int pf_live_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	pf_autoclosedir DIR *d = NULL;
	struct pf_devnodes out = { 0 };
	struct dirent *de;
	int r;

	r = pf_fs_opendir(ctx->fs, dir, &d);
	if (r < 0)
		return r;
	while ((de = readdir(d))) {
		struct pf_devnode *n;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    strlen(de->d_name) >= sizeof(n->name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue; /* gone since readdir */
		out.v = pf_xrealloc(out.v, (out.n + 1) * sizeof(*out.v));
		n = &out.v[out.n++];
		memset(n, 0, sizeof(*n));
		snprintf(n->name, sizeof(n->name), "%s", de->d_name);
		n->type = type_char(st.st_mode);
		n->mode = st.st_mode & 07777;
		n->uid = st.st_uid;
		n->gid = st.st_gid;
		n->major = major(st.st_rdev);
		n->minor = minor(st.st_rdev);
		if (pf_fs_is_live(ctx->fs)) {
			pf_autofree char *path = pf_xasprintf("%s/%s", dir, de->d_name);

			n->acl = lgetxattr(path, "system.posix_acl_access", NULL, 0) > 0;
		}
	}
	/* sorted, as ls prints them */
	for (size_t i = 1; i < out.n; i++)
		for (size_t j = i; j > 0 && strcmp(out.v[j - 1].name, out.v[j].name) > 0; j--) {
			struct pf_devnode t = out.v[j];

			out.v[j] = out.v[j - 1];
			out.v[j - 1] = t;
		}
	*ret = out;
	return 0;
}
