// SPDX-License-Identifier: MIT
/*
 * siteconf.c - /etc/preflight/preflight.conf and its drop-ins.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "preflight/fs.h"
#include "preflight/macro.h"
#include "preflight/result.h" /* pf_autojson */
#include "profile.h"
#include "siteconf.h"

/* A site file is a few hundred bytes; anything huge is a mistake. */
#define SITECONF_MAX (1u << 20)

static int fail(char **ret_err, int r, const char *fmt, ...) PF_PRINTF(3, 4);
static int fail(char **ret_err, int r, const char *fmt, ...)
{
	va_list ap;

	if (ret_err) {
		va_start(ap, fmt);
		if (vasprintf(ret_err, fmt, ap) < 0)
			*ret_err = NULL;
		va_end(ap);
	}
	return r;
}

static const struct option *find_opt(const struct option *opts, const char *name)
{
	for (; opts->name; opts++)
		if (!strcmp(opts->name, name))
			return opts;
	return NULL;
}

static void put(struct pf_siteconf *sc, const char *key, const char *value, const char *origin,
		bool replace)
{
	if (replace) {
		for (size_t i = 0; i < sc->n_entries; i++) {
			struct pf_siteconf_entry *e = &sc->entries[i];

			if (strcmp(e->key, key))
				continue;
			free(e->value);
			free(e->origin);
			e->value = value ? pf_xstrdup(value) : NULL;
			e->origin = pf_xstrdup(origin);
			return;
		}
	}
	sc->entries = pf_xrealloc(sc->entries, (sc->n_entries + 1) * sizeof(*sc->entries));
	sc->entries[sc->n_entries++] = (struct pf_siteconf_entry){
		pf_xstrdup(key), value ? pf_xstrdup(value) : NULL, pf_xstrdup(origin)
	};
}

static void drop(struct pf_siteconf *sc, const char *key)
{
	for (size_t i = 0; i < sc->n_entries; i++) {
		if (strcmp(sc->entries[i].key, key))
			continue;
		free(sc->entries[i].key);
		free(sc->entries[i].value);
		free(sc->entries[i].origin);
		memmove(&sc->entries[i], &sc->entries[i + 1],
			(sc->n_entries - i - 1) * sizeof(*sc->entries));
		sc->n_entries--;
		i--;
	}
}

/* A scalar as option text: strings as they are, numbers as %.15g, booleans true/false. */
static char *scalar_text(const cJSON *v)
{
	if (cJSON_IsString(v))
		return pf_xstrdup(v->valuestring);
	if (cJSON_IsNumber(v))
		return pf_xasprintf("%.15g", v->valuedouble);
	if (cJSON_IsBool(v))
		return pf_xstrdup(cJSON_IsTrue(v) ? "true" : "false");
	return NULL;
}

/* "only": "a,b" or ["a", "b"] */
static char *list_text(const cJSON *v)
{
	const cJSON *it;
	char *out = NULL;

	if (cJSON_IsString(v))
		return pf_xstrdup(v->valuestring);
	if (!cJSON_IsArray(v) || !cJSON_GetArraySize(v))
		return NULL;
	cJSON_ArrayForEach(it, v) {
		char *next;

		if (!cJSON_IsString(it)) {
			free(out);
			return NULL;
		}
		next = pf_xasprintf("%s%s%s", out ? out : "", out ? "," : "", it->valuestring);
		free(out);
		out = next;
	}
	return out;
}

static int parse_set(struct pf_siteconf *sc, const cJSON *v, const char *origin, char **ret_err)
{
	const cJSON *it;

	if (cJSON_IsObject(v)) {
		cJSON_ArrayForEach(it, v) {
			pf_autofree char *val = scalar_text(it);
			pf_autofree char *set = NULL;

			if (!val)
				return fail(ret_err, -EINVAL, "%s: set: '%s' must be a string, "
					    "number or boolean", origin, it->string);
			set = pf_xasprintf("%s=%s", it->string, val);
			put(sc, "set", set, origin, false);
		}
		return 0;
	}
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(it, v) {
			if (!cJSON_IsString(it))
				return fail(ret_err, -EINVAL, "%s: set: expected strings "
					    "\"CHECK.KEY=VALUE\"", origin);
			put(sc, "set", it->valuestring, origin, false);
		}
		return 0;
	}
	return fail(ret_err, -EINVAL, "%s: set: expected an object {\"CHECK.KEY\": VALUE} or a "
		    "list of \"CHECK.KEY=VALUE\"", origin);
}

static int parse_file(struct pf_siteconf *sc, const char *text, const char *origin,
		      const struct option *opts, const char *const *deny, char **ret_err)
{
	pf_autofree char *copy = pf_xstrdup(text);
	pf_autojson cJSON *root = NULL;
	const cJSON *it;
	int r = 0;

	cJSON_Minify(copy); /* drops // and block comments */
	root = cJSON_Parse(copy);
	if (!root)
		return fail(ret_err, -EINVAL, "%s: not valid JSON (an object of options)", origin);
	if (!cJSON_IsObject(root))
		return fail(ret_err, -EINVAL, "%s: the top level must be an object", origin);
	if (pf_json_check_dups(root, origin, ret_err) < 0)
		return -EINVAL;
	cJSON_ArrayForEach(it, root) {
		pf_autofree char *key = pf_xstrdup(it->string);
		const struct option *o;
		bool denied = false;

		for (char *p = key; *p; p++)
			if (*p == '_')
				*p = '-'; /* "no_fork" as well as "no-fork" */
		for (const char *const *d = deny; d && *d; d++)
			denied |= !strcmp(*d, key);
		o = denied ? NULL : find_opt(opts, key);
		if (!o) {
			r = fail(ret_err, -EINVAL, "%s: unknown key '%s' (keys are the long options "
				 "of preflight --help)", origin, it->string);
			break;
		}
		if (!strcmp(key, "set")) {
			r = parse_set(sc, it, origin, ret_err);
			if (r < 0)
				break;
			continue;
		}
		if (o->has_arg == no_argument) {
			if (!cJSON_IsBool(it)) {
				r = fail(ret_err, -EINVAL, "%s: '%s' must be true or false", origin,
					 it->string);
				break;
			}
			if (cJSON_IsTrue(it))
				put(sc, key, NULL, origin, true);
			else
				drop(sc, key);
			continue;
		}
		{
			pf_autofree char *val = (!strcmp(key, "only") || !strcmp(key, "skip")) ?
							list_text(it) : scalar_text(it);

			if (!val || cJSON_IsBool(it)) {
				r = fail(ret_err, -EINVAL, "%s: '%s' must be a %s", origin, it->string,
					 !strcmp(key, "only") || !strcmp(key, "skip") ?
						 "string or a list of strings" : "string or a number");
				break;
			}
			put(sc, key, val, origin, true);
		}
	}
	return r;
}

/*
 * One file: a regular file (O_NONBLOCK, fstat: a FIFO is an error, never a
 * hang), and as root root's own and not group/world-writable, like sshd's
 * and sudo's (pf_read_input()).
 */
static int read_one(struct pf_siteconf *sc, const char *path, const struct option *opts,
		    const char *const *deny, char **ret_err)
{
	pf_autofree char *text = NULL, *why = NULL;
	size_t len;
	int r;

	r = pf_read_input(path, SITECONF_MAX, true, &text, &len, &why);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return fail(ret_err, r, "%s", why);
	if (strlen(text) != len)
		return fail(ret_err, -EINVAL, "%s: contains NUL bytes", path);
	sc->files = pf_xrealloc(sc->files, (sc->n_files + 2) * sizeof(*sc->files));
	sc->files[sc->n_files++] = pf_xstrdup(path);
	sc->files[sc->n_files] = NULL;
	return parse_file(sc, text, path, opts, deny, ret_err);
}

int pf_siteconf_load(struct pf_siteconf *sc, const char *path, const struct option *opts,
		     const char *const *deny, char **ret_err)
{
	pf_autofs struct pf_fs *fs = NULL;
	pf_autostrv char **names = NULL;
	pf_autofree char *dir = pf_xasprintf("%s.d", path);
	struct stat st;
	int k, r;

	r = pf_fs_open("/", &fs);
	if (r < 0)
		return fail(ret_err, r, "cannot open /: %s", strerror(-r));
	r = read_one(sc, path, opts, deny, ret_err);
	if (r < 0)
		return r;
	/* the drop-in directory: as root, root's and closed to others */
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		r = pf_input_judge(&st, dir, true, ret_err);
		if (r < 0)
			return r;
	}
	k = pf_fs_list(fs, dir, &names);
	if (k == -ENOENT || k == -ENOTDIR)
		return 0;
	if (k < 0)
		return fail(ret_err, k, "%s: cannot list: %s", dir, strerror(-k));
	for (int i = 0; i < k; i++) {
		size_t l = strlen(names[i]);
		pf_autofree char *p = NULL;

		if (names[i][0] == '.' || l < 6 || strcmp(names[i] + l - 5, ".conf"))
			continue;
		p = pf_xasprintf("%s/%s", dir, names[i]);
		r = read_one(sc, p, opts, deny, ret_err);
		if (r < 0)
			return r;
	}
	return 0;
}

bool pf_siteconf_has(const struct pf_siteconf *sc, const char *key)
{
	for (size_t i = 0; i < sc->n_entries; i++)
		if (!strcmp(sc->entries[i].key, key))
			return true;
	return false;
}

void pf_siteconf_release(struct pf_siteconf *sc)
{
	for (size_t i = 0; i < sc->n_files; i++)
		free(sc->files[i]);
	free(sc->files);
	for (size_t i = 0; i < sc->n_entries; i++) {
		free(sc->entries[i].key);
		free(sc->entries[i].value);
		free(sc->entries[i].origin);
	}
	free(sc->entries);
	*sc = (struct pf_siteconf){ 0 };
}
