// SPDX-License-Identifier: MIT
/*
 * nccl_conf.c - NCCL's configuration files, environment and interface
 * lists, read the way NCCL reads them (include/preflight/nccl_conf.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "preflight/nccl_conf.h"

/* NCCL's buffers: fgets(line, 4096), envVar[1024], envValue[1024]. */
#define NCCL_LINE_MAX 4095
#define NCCL_NAME_MAX 1023

const struct pf_nccl_var *pf_nccl_conf_get(const struct pf_nccl_conf *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->vars[i].name, name))
			return &c->vars[i];
	return NULL;
}

void pf_nccl_conf_set(struct pf_nccl_conf *c, const char *name, const char *value,
		      const char *origin)
{
	if (pf_nccl_conf_get(c, name))
		return;
	c->vars = pf_xrealloc(c->vars, (c->n + 1) * sizeof(*c->vars));
	c->vars[c->n++] = (struct pf_nccl_var){ .name = pf_xstrdup(name),
						 .value = pf_xstrdup(value),
						 .origin = pf_xstrdup(origin) };
}

/*
 * A line that names an NCCL_ variable but sets nothing NCCL reads.  Only the
 * name is kept, never the rest of the line: the file may be no NCCL config at
 * all (~/.nccl.conf -> ~/.my.cnf), and a value is not ours to quote.  Lines
 * that do not start with NCCL_ are not recorded.
 */
static void add_odd(struct pf_nccl_conf *c, const char *origin, const char *line)
{
	const char *name = line + strspn(line, " \t");
	size_t len = strcspn(name, " \t=");

	if (strncmp(name, "NCCL_", 5))
		return;
	c->odd = pf_xrealloc(c->odd, (c->n_odd + 1) * sizeof(*c->odd));
	c->odd[c->n_odd++] = (struct pf_nccl_oddity){ .origin = pf_xstrdup(origin),
						       .text = pf_xasprintf("%.*s", (int)len, name) };
}

size_t pf_nccl_conf_apply_text(struct pf_nccl_conf *c, const char *text, const char *path)
{
	const char *p = text;
	size_t set = 0;
	unsigned int lineno = 0;

	while (*p) {
		size_t len = strcspn(p, "\n"), s;
		char line[NCCL_LINE_MAX + 1], origin[300];
		pf_autofree char *name = NULL;

		/* fgets: a longer line is read in pieces, each its own "line" */
		if (len > NCCL_LINE_MAX)
			len = NCCL_LINE_MAX;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len;
		if (*p == '\n')
			p++;
		lineno++;
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		snprintf(origin, sizeof(origin), "%s:%u", path, lineno);
		if (line[0] == '#')
			continue;
		s = strcspn(line, "=");
		if (!line[s]) {
			add_odd(c, origin, line); /* "NCCL_X 1": no '=', NCCL skips it */
			continue;
		}
		if (s == 0)
			continue; /* setenv("") fails */
		name = pf_xasprintf("%.*s", (int)(s > NCCL_NAME_MAX ? NCCL_NAME_MAX : s), line);
		if (name[strcspn(name, " \t")]) {
			/* "NCCL_IB_HCA = mlx5": NCCL sets "NCCL_IB_HCA " and never reads it */
			add_odd(c, origin, line);
			continue;
		}
		if (!pf_nccl_conf_get(c, name)) {
			char value[NCCL_NAME_MAX + 1];

			snprintf(value, sizeof(value), "%s", line + s + 1);
			pf_nccl_conf_set(c, name, value, origin);
			set++;
		}
	}
	return set;
}

void pf_nccl_conf_release(struct pf_nccl_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->vars[i].name);
		free(c->vars[i].value);
		free(c->vars[i].origin);
	}
	free(c->vars);
	for (size_t i = 0; i < c->n_files; i++)
		free(c->files[i].path);
	for (size_t i = 0; i < c->n_odd; i++) {
		free(c->odd[i].origin);
		free(c->odd[i].text);
	}
	free(c->odd);
	memset(c, 0, sizeof(*c));
}

size_t pf_nccl_conf_paths(const char *conf_file, const char *home,
			  char *paths[PF_NCCL_CONF_FILES], const char *why[PF_NCCL_CONF_FILES])
{
	size_t n = 0;

	if (conf_file && conf_file[0]) {
		why[n] = "NCCL_CONF_FILE";
		paths[n++] = pf_xstrdup(conf_file);
	} else if (home && home[0]) {
		why[n] = "$HOME/.nccl.conf";
		paths[n++] = pf_xasprintf("%s/.nccl.conf", home);
	}
	why[n] = "/etc/nccl.conf";
	paths[n++] = pf_xstrdup("/etc/nccl.conf");
	return n;
}

void pf_nccl_conf_load_files(const struct pf_fs *fs, const char *conf_file, const char *home,
			     const struct pf_nccl_reader *as, struct pf_nccl_conf *c)
{
	char *paths[PF_NCCL_CONF_FILES];
	const char *why[PF_NCCL_CONF_FILES];

	c->n_files = pf_nccl_conf_paths(conf_file, home, paths, why);
	for (size_t i = 0; i < c->n_files; i++) {
		pf_autofree char *text = NULL;
		struct pf_nccl_conf_file *f = &c->files[i];

		f->path = paths[i];
		f->why = why[i];
		/* a relative NCCL_CONF_FILE is relative to the job's cwd: unknown here */
		if (f->path[0] != '/')
			f->status = -EINVAL;
		else if (as && strcmp(f->path, "/etc/nccl.conf"))
			f->status = pf_fs_read_as(fs, f->path, as->uid, as->gids, as->n_gids, 0,
						  &text, NULL, NULL);
		else
			f->status = pf_fs_read_full(fs, f->path, 0, &text, NULL);
		if (f->status == 0)
			f->n_set = pf_nccl_conf_apply_text(c, text, f->path);
	}
}

void pf_nccl_iflist_parse(const char *value, struct pf_nccl_iflist *ret)
{
	struct pf_nccl_iflist l = { 0 };
	const char *p = value ? value : "";

	if (*p == '^') {
		l.exclude = true;
		p++;
	}
	if (*p == '=') {
		l.exact = true;
		p++;
	}
	while (*p && l.n < PF_NCCL_IFLIST_MAX) {
		size_t len = strcspn(p, ",");
		pf_autofree char *entry = pf_xasprintf("%.*s", (int)len, p);
		size_t nl = strcspn(entry, ":");

		p += len;
		if (*p == ',')
			p++;
		if (nl == 0)
			continue; /* "" or ":1": NCCL drops it */
		snprintf(l.e[l.n].prefix, sizeof(l.e[l.n].prefix), "%.*s", (int)nl, entry);
		l.e[l.n].port = -1;
		if (entry[nl] == ':' && entry[nl + 1] && entry[nl + 1] != ':')
			l.e[l.n].port = atoi(entry + nl + 1);
		l.n++;
	}
	*ret = l;
}

bool pf_nccl_ifentry_matches(const struct pf_nccl_iflist *l, size_t i, const char *name,
			     int port)
{
	const struct pf_nccl_ifentry *e = &l->e[i];
	bool name_ok = l->exact ? !strcmp(name, e->prefix)
				: !strncmp(name, e->prefix, strlen(e->prefix));

	return name_ok && (port == -1 || e->port == -1 || port == e->port);
}

bool pf_nccl_iflist_selects(const struct pf_nccl_iflist *l, const char *name, int port)
{
	bool match = l->n == 0; /* matchIfList: no list matches everything */

	for (size_t i = 0; !match && i < l->n; i++)
		match = pf_nccl_ifentry_matches(l, i, name, port);
	return match != l->exclude;
}
