// SPDX-License-Identifier: MIT
/*
 * job.c - the job user and device listing types: pure parsers
 * and formatters of their recorded text (include/preflight/job.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "preflight/job.h"

static int parse_u32(const char *s, uint32_t *ret)
{
	uint64_t v;

	if (pf_parse_u64(s, &v) < 0 || v > UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int parse_gids(const char *s, struct pf_job_user *u)
{
	pf_autofree char *copy = pf_xstrdup(s);
	char *save = NULL;

	u->n_gids = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (u->n_gids == PF_JOB_MAX_GIDS)
			return -E2BIG;
		if (parse_u32(t, &u->gids[u->n_gids]) < 0)
			return -EINVAL;
		u->n_gids++;
	}
	return 0;
}

int pf_parse_job_user(const char *text, struct pf_job_user *ret)
{
	struct pf_job_user u = { 0 };
	bool has_uid = false;
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");
		pf_autofree char *line = pf_xasprintf("%.*s", (int)len, p);
		char *v = strchr(line, '=');
		int r = 0;

		p += len;
		if (*p)
			p++;
		if (!line[0] || line[0] == '#')
			continue;
		if (!v)
			return -EINVAL;
		*v++ = '\0';
		if (!strcmp(line, "uid")) {
			if (has_uid)
				return -EINVAL; /* a second uid= is an injection, not an update */
			r = parse_u32(v, &u.uid);
			has_uid = r == 0;
		} else if (!strcmp(line, "gids")) {
			r = parse_gids(v, &u);
		} else if (!strcmp(line, "user")) {
			r = strlen(v) < sizeof(u.user) ? 0 : -E2BIG;
			if (!r)
				memcpy(u.user, v, strlen(v) + 1);
		} else if (!strcmp(line, "home")) {
			r = strlen(v) < sizeof(u.home) ? 0 : -E2BIG;
			if (!r)
				memcpy(u.home, v, strlen(v) + 1);
		} else if (!strcmp(line, "source")) {
			snprintf(u.source, sizeof(u.source), "%s", v);
		}
		/* other keys: a later format's, ignored */
		if (r < 0)
			return r;
	}
	if (!has_uid)
		return -EINVAL;
	if (!u.source[0])
		snprintf(u.source, sizeof(u.source), "recorded");
	*ret = u;
	return 0;
}

char *pf_format_job_user(const struct pf_job_user *u)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fprintf(f, "uid=%u\n", u->uid);
	/* one line per value: a value with a line break is not recorded (never a second uid=) */
	if (u->user[0] && !strpbrk(u->user, "\r\n"))
		fprintf(f, "user=%s\n", u->user);
	if (u->n_gids) {
		fputs("gids=", f);
		for (size_t i = 0; i < u->n_gids; i++)
			fprintf(f, "%s%u", i ? "," : "", u->gids[i]);
		fputc('\n', f);
	}
	if (u->home[0] && !strpbrk(u->home, "\r\n"))
		fprintf(f, "home=%s\n", u->home);
	if (u->source[0] && !strpbrk(u->source, "\r\n"))
		fprintf(f, "source=%s\n", u->source);
	fclose(f);
	return buf;
}

bool pf_job_user_can_rw(const struct pf_job_user *u, uint32_t owner, uint32_t group,
			uint32_t mode)
{
	if (u->uid == 0)
		return true; /* CAP_DAC_OVERRIDE; a device cgroup is not visible here */
	if (u->uid == owner)
		return (mode & 0600) == 0600;
	for (size_t i = 0; i < u->n_gids; i++)
		if (u->gids[i] == group)
			return (mode & 0060) == 0060;
	return (mode & 0006) == 0006;
}

void pf_devnodes_release(struct pf_devnodes *d)
{
	free(d->v);
	d->v = NULL;
	d->n = 0;
}

const struct pf_devnode *pf_devnodes_find(const struct pf_devnodes *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i].name, name))
			return &d->v[i];
	return NULL;
}

/* "crw-rw-rw-" (+ '.' or '+') -> type and mode bits. */
static int parse_mode(const char *s, struct pf_devnode *n)
{
	static const char rwx[] = "rwxrwxrwx";
	size_t len = strlen(s);

	if (len < 10 || len > 11)
		return -EINVAL;
	n->type = s[0];
	n->mode = 0;
	for (int i = 0; i < 9; i++) {
		char c = s[1 + i];
		uint32_t bit = 1u << (8 - i);

		if (c == rwx[i]) {
			n->mode |= bit;
		} else if ((i == 2 || i == 5 || i == 8) && (c == 's' || c == 't')) {
			n->mode |= bit | (i == 2 ? 04000 : i == 5 ? 02000 : 01000);
		} else if ((i == 2 || i == 5 || i == 8) && (c == 'S' || c == 'T')) {
			n->mode |= i == 2 ? 04000 : i == 5 ? 02000 : 01000;
		} else if (c != '-') {
			return -EINVAL;
		}
	}
	if (len == 11 && s[10] != '+' && s[10] != '.' && s[10] != '@')
		return -EINVAL;
	n->acl = len == 11 && s[10] == '+';
	return 0;
}

static int parse_ls_line(char *line, struct pf_devnode *n)
{
	char *tok[16], *save = NULL;
	size_t k = 0;
	uint32_t v;

	for (char *t = strtok_r(line, " \t", &save); t && k < PF_ARRAY_SIZE(tok);
	     t = strtok_r(NULL, " \t", &save))
		tok[k++] = t;
	/* mode links uid gid [major, minor | size] date... name */
	if (k < 6 || parse_mode(tok[0], n) < 0 || parse_u32(tok[2], &n->uid) < 0 ||
	    parse_u32(tok[3], &n->gid) < 0)
		return -EINVAL;
	if ((n->type == 'c' || n->type == 'b')) {
		size_t l = strlen(tok[4]);

		if (l < 2 || tok[4][l - 1] != ',' || k < 7)
			return -EINVAL;
		tok[4][l - 1] = '\0';
		if (parse_u32(tok[4], &v) < 0)
			return -EINVAL;
		n->major = v;
		if (parse_u32(tok[5], &v) < 0)
			return -EINVAL;
		n->minor = v;
	}
	if (n->type == 'l' && k >= 8 && !strcmp(tok[k - 2], "->"))
		k -= 2; /* "name -> target" */
	if (strlen(tok[k - 1]) >= sizeof(n->name))
		return -EINVAL;
	snprintf(n->name, sizeof(n->name), "%s", tok[k - 1]);
	return 0;
}

int pf_parse_ls_ln(const char *text, struct pf_devnodes *ret)
{
	struct pf_devnodes d = { 0 };
	const char *p = text;

	while (*p) {
		size_t len = strcspn(p, "\n");
		pf_autofree char *line = pf_xasprintf("%.*s", (int)len, p);

		p += len;
		if (*p)
			p++;
		if (!line[strspn(line, " \t")] || !strncmp(line, "total ", 6) || line[0] == '#')
			continue;
		d.v = pf_xrealloc(d.v, (d.n + 1) * sizeof(*d.v));
		memset(&d.v[d.n], 0, sizeof(d.v[d.n]));
		if (parse_ls_line(line, &d.v[d.n]) < 0) {
			pf_devnodes_release(&d);
			return -EINVAL;
		}
		d.n++;
	}
	*ret = d;
	return 0;
}

static void format_mode(const struct pf_devnode *n, char out[12])
{
	static const char rwx[] = "rwxrwxrwx";

	out[0] = n->type ? n->type : '?';
	for (int i = 0; i < 9; i++)
		out[1 + i] = n->mode & (1u << (8 - i)) ? rwx[i] : '-';
	if (n->mode & 04000)
		out[3] = n->mode & 0100 ? 's' : 'S';
	if (n->mode & 02000)
		out[6] = n->mode & 0010 ? 's' : 'S';
	if (n->mode & 01000)
		out[9] = n->mode & 0001 ? 't' : 'T';
	out[10] = n->acl ? '+' : '\0';
	out[11] = '\0';
}

char *pf_format_ls_ln(const struct pf_devnodes *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	fprintf(f, "total 0\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct pf_devnode *n = &d->v[i];
		char mode[12];

		format_mode(n, mode);
		if (n->type == 'c' || n->type == 'b')
			fprintf(f, "%s 1 %u %u %u, %u Jan  1 00:00 %s\n", mode, n->uid, n->gid,
				n->major, n->minor, n->name);
		else
			fprintf(f, "%s 1 %u %u 0 Jan  1 00:00 %s\n", mode, n->uid, n->gid, n->name);
	}
	fclose(f);
	return buf;
}
