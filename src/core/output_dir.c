// SPDX-License-Identifier: MIT
/*
 * output_dir.c - open the directory of an --output path the way root may
 * write into it (see output.h): component by component, never following a
 * link another user could have planted, refusing any directory another user
 * could change, and creating the missing ones 0755.
 *
 * The documented Prolog writes /var/lib/preflight/prolog.json and the
 * HealthCheckProgram /var/lib/node_exporter/textfile/preflight.prom; on a
 * fresh node neither directory exists, and a report that cannot be written
 * (exit 74) drains a healthy node as "Prolog error".
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "output.h"

#define MAX_LINKS 40

char *pf_output_owner(uid_t uid)
{
	struct passwd *pw = getpwuid(uid);

	return pw ? pf_xasprintf("uid %u (%s)", (unsigned int)uid, pw->pw_name)
		  : pf_xasprintf("uid %u", (unsigned int)uid);
}

bool pf_output_trusted_owner(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

int pf_output_judge_dir(const struct stat *st, const char *shown, char **ret_err)
{
	pf_autofree char *who = pf_output_owner(st->st_uid);
	/* an ordinary user's own group may write her directories (umask 002, user private
	 * groups): she chose to share them; root shares with no group */
	bool own_group = geteuid() != 0 && st->st_gid == getegid();
	mode_t foreign = S_IWOTH | (own_group ? 0 : S_IWGRP);

	if (!pf_output_trusted_owner(st->st_uid)) {
		*ret_err = pf_xasprintf("'%s' is owned by %s, neither root nor the caller: that "
					"user could swap what lies beneath it; not written there",
					shown, who);
		return -EPERM;
	}
	if ((st->st_mode & foreign) && !(st->st_mode & S_ISVTX)) {
		*ret_err = pf_xasprintf("'%s' (owner %s, mode %04o) is writable by other users "
					"and not sticky: they could swap what lies beneath it; "
					"not written there", shown, who,
					(unsigned int)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

static int fail_at(char **ret_err, int r, const char *shown, const char *what)
{
	*ret_err = pf_xasprintf("%s '%s': %s", what, shown, strerror(-r));
	return r;
}

/* Replace the open directory *@dfd by @nfd once it passes pf_output_judge_dir(). */
static int step_into(int *dfd, int nfd, const char *shown, char **ret_err)
{
	struct stat st;
	int r;

	if (nfd < 0)
		return fail_at(ret_err, -errno, shown, "cannot open the directory");
	if (fstat(nfd, &st) < 0) {
		r = -errno;
		close(nfd);
		return fail_at(ret_err, r, shown, "cannot use the directory");
	}
	r = pf_output_judge_dir(&st, shown, ret_err);
	if (r < 0) {
		close(nfd);
		return r;
	}
	close(*dfd);
	*dfd = nfd;
	return 0;
}

/* "a/b" + "c" -> "a/b/c"; "" + "c" -> "/c" (the walk from /); "." + "c" -> "c". */
static void walked_add(struct pf_strbuf *walked, const char *c)
{
	if (!strcmp(walked->buf, "."))
		pf_strbuf_setlen(walked, 0);
	else if (strcmp(walked->buf, "/"))
		pf_strbuf_addch(walked, '/');
	pf_strbuf_adds(walked, c);
}

/* The directory @c in *@dfd, created 0755 when missing and @create. */
static int open_component(int dfd, const char *c, bool create, const char *shown,
			  char **ret_err)
{
	struct stat st;
	/* O_PATH: a directory we may search but not list is still walked */
	int nfd = openat(dfd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (nfd >= 0 || errno != ENOENT || !create)
		return nfd >= 0 ? nfd : fail_at(ret_err, -errno, shown, "cannot open the directory");
	if (mkdirat(dfd, c, 0755) < 0 && errno != EEXIST)
		return fail_at(ret_err, -errno, shown, "cannot create the directory");
	nfd = openat(dfd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0)
		return fail_at(ret_err, -errno, shown, "cannot open the directory");
	/* 0755 whatever the umask; one someone else made meanwhile is left to the rule */
	if (fstat(nfd, &st) == 0 && st.st_uid == geteuid() && fchmod(nfd, 0755) < 0) {
		int r = -errno;

		close(nfd);
		return fail_at(ret_err, r, shown, "cannot set the mode of");
	}
	return nfd;
}

/*
 * The link @c in the trusted directory @dfd: followed only when root or the
 * caller owns it; its target is put in front of @rest.  1 when followed.
 */
static int take_link(int dfd, const char *c, const char *shown, char **rest, char **ret_err)
{
	struct stat lst;
	char target[4096];
	ssize_t n;

	if (fstatat(dfd, c, &lst, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(lst.st_mode))
		return 0;
	if (!pf_output_trusted_owner(lst.st_uid)) {
		pf_autofree char *who = pf_output_owner(lst.st_uid);

		*ret_err = pf_xasprintf("'%s' is a symlink owned by %s, neither root nor the "
					"caller: not followed", shown, who);
		return -EPERM;
	}
	n = readlinkat(dfd, c, target, sizeof(target) - 1);
	if (n < 0)
		return fail_at(ret_err, -errno, shown, "cannot read the link");
	target[n] = '\0';
	{
		char *next = pf_xasprintf("%s/%s", target, *rest);

		free(*rest);
		*rest = next;
	}
	return 1;
}

/* Restart at / (an absolute link target, or the path itself). */
static int restart_at_root(int *dfd, struct pf_strbuf *walked, char **ret_err)
{
	pf_strbuf_setlen(walked, 0);
	pf_strbuf_adds(walked, "/");
	return step_into(dfd, open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), "/", ret_err);
}

static int walk(int *dfd, char **rest, bool create, struct pf_strbuf *walked, char **ret_err)
{
	int links = 0, r;

	while (**rest) {
		char *c = *rest, *end = strchr(c, '/');
		pf_autofree char *comp = NULL, *tail = NULL;

		if (*c == '/') {
			memmove(c, c + 1, strlen(c));
			continue;
		}
		comp = pf_xstrdup(c);
		if (end)
			comp[end - c] = '\0';
		tail = pf_xstrdup(end ? end : "");
		free(*rest);
		*rest = PF_TAKE_PTR(tail);
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *slash = strrchr(walked->buf, '/');

			if (slash && slash != walked->buf)
				pf_strbuf_setlen(walked, (size_t)(slash - walked->buf));
			else if (slash)
				pf_strbuf_setlen(walked, 1);
			else
				walked_add(walked, "..");
			r = step_into(dfd, openat(*dfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC),
				      walked->buf, ret_err);
			if (r < 0)
				return r;
			continue;
		}
		{
			pf_autofree char *shown = NULL;
			size_t mark = walked->len;

			walked_add(walked, comp);
			shown = pf_xstrdup(walked->buf);
			r = take_link(*dfd, comp, shown, rest, ret_err);
			if (r < 0)
				return r;
			if (r > 0) {
				if (++links > MAX_LINKS)
					return fail_at(ret_err, -ELOOP, shown, "cannot resolve");
				pf_strbuf_setlen(walked, mark);
				if (**rest == '/' && (r = restart_at_root(dfd, walked, ret_err)) < 0)
					return r;
				continue;
			}
			r = open_component(*dfd, comp, create, shown, ret_err);
			if (r < 0)
				return r;
			r = step_into(dfd, r, shown, ret_err);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

int pf_output_opendir(const char *dir, bool create, char **ret_shown, char **ret_err)
{
	pf_autostrbuf struct pf_strbuf walked = PF_STRBUF_INIT;
	pf_autofree char *rest = pf_xstrdup(dir);
	int dfd = -1, r;

	*ret_err = NULL;
	if (*dir == '/') {
		r = restart_at_root(&dfd, &walked, ret_err);
	} else {
		pf_strbuf_adds(&walked, ".");
		r = step_into(&dfd, open(".", O_PATH | O_DIRECTORY | O_CLOEXEC), ".", ret_err);
	}
	if (r >= 0)
		r = walk(&dfd, &rest, create, &walked, ret_err);
	if (r < 0) {
		if (dfd >= 0)
			close(dfd);
		return r;
	}
	if (ret_shown)
		*ret_shown = pf_strbuf_detach(&walked);
	return dfd;
}
