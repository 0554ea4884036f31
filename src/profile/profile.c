// SPDX-License-Identifier: MIT
/*
 * profile.c - parameter tables, profile files and --set overrides.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "preflight/fs.h"
#include "preflight/parse.h"
#include "preflight/result.h" /* pf_autojson */
#include "profile.h"
#include "preflight/strbuf.h"
#include "strmap.h"

void pf_profile_init(struct pf_profile *p)
{
	memset(p, 0, sizeof(*p));
}

static int fail(char **ret_err, const char *fmt, ...) PF_PRINTF(2, 3);

const char *const pf_profile_rail_roles[4] = { "compute", "storage", "frontend", "unused" };

static int rail_role_index(const char *role)
{
	for (int i = 0; i < 4; i++)
		if (!strcmp(role, pf_profile_rail_roles[i]))
			return i;
	return -1;
}

const char *pf_profile_rails(const struct pf_profile *p, const char *role)
{
	const char *v = NULL;
	int k = rail_role_index(role);

	if (k < 0)
		return NULL;
	for (size_t i = 0; i < p->n_sets; i++) {
		size_t n = strlen(role);

		if (!strncmp(p->sets[i], "rails.", 6) && !strncmp(p->sets[i] + 6, role, n) &&
		    p->sets[i][6 + n] == '=')
			v = p->sets[i] + 7 + n;
	}
	return v ? v : p->rails[k];
}

/*
 * "rails": { ROLE: "a,b" or ["a", "b"] } into p->rails (joined by commas);
 * -EINVAL naming the key otherwise.
 */
static int load_rails(struct pf_profile *p, const cJSON *rails, const char *origin,
		      char **ret_err)
{
	const cJSON *it, *e;

	if (!cJSON_IsObject(rails))
		return fail(ret_err, "profile '%s': 'rails' must be an object", origin);
	cJSON_ArrayForEach(it, rails) {
		int k = rail_role_index(it->string);
		pf_autofree char *list = NULL;

		if (k < 0)
			return fail(ret_err, "profile '%s': unknown role 'rails.%s' (compute, "
				    "storage, frontend or unused)", origin, it->string);
		if (cJSON_IsString(it)) {
			list = pf_xstrdup(it->valuestring);
		} else if (cJSON_IsArray(it)) {
			list = pf_xstrdup("");
			cJSON_ArrayForEach(e, it) {
				char *next;

				if (!cJSON_IsString(e))
					return fail(ret_err, "profile '%s': 'rails.%s' must list "
						    "device names", origin, it->string);
				next = pf_xasprintf("%s%s%s", list, list[0] ? "," : "",
						    e->valuestring);
				free(list);
				list = next;
			}
		} else {
			return fail(ret_err, "profile '%s': 'rails.%s' must be a string or a list "
				    "of strings", origin, it->string);
		}
		free(p->rails[k]);
		p->rails[k] = PF_TAKE_PTR(list);
	}
	return 0;
}

void pf_profile_release(struct pf_profile *p)
{
	for (int i = 0; i < 4; i++)
		free(p->rails[i]);
	free(p->name);
	free(p->path);
	free(p->drain_on);
	cJSON_Delete(p->checks);
	free(p->sets);
	pf_profile_init(p);
}

static int fail(char **ret_err, const char *fmt, ...) PF_PRINTF(2, 3);
static int fail(char **ret_err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(ret_err, fmt, ap) < 0)
		*ret_err = NULL;
	va_end(ap);
	return -EINVAL;
}

const char *pf_param_type_name(enum pf_param_type t)
{
	switch (t) {
	case PF_PARAM_BOOL: return "bool";
	case PF_PARAM_U64: return "unsigned integer";
	case PF_PARAM_I64: return "integer";
	case PF_PARAM_DOUBLE: return "number";
	case PF_PARAM_STRING: return "string";
	case PF_PARAM_ENUM: return "enum";
	}
	return "?";
}

char *pf_param_choices(const struct pf_param *prm, const char *sep)
{
	char *s = pf_xstrdup("");

	for (const char *const *w = prm->choices; w && *w; w++) {
		char *next = pf_xasprintf("%s%s%s%s%s", s, w == prm->choices ? "" : sep,
					  **w ? "" : "\"", *w, **w ? "" : "\"");

		free(s);
		s = next;
	}
	return s;
}

const struct pf_param *pf_param_find(const struct pf_check *c, const char *key)
{
	for (const struct pf_param *p = c->params; p && p->key; p++)
		if (!strcmp(p->key, key))
			return p;
	return NULL;
}

static int out_of_bounds(const struct pf_param *prm, double v, const char *value, char **ret_err)
{
	return fail(ret_err, "value '%s' for '%s' is out of range [%.15g, %.15g]", value,
		    prm->key, prm->min, prm->max);
}

const char *pf_param_syntax_name(const struct pf_param *prm)
{
	if (prm->type != PF_PARAM_STRING)
		return NULL;
	switch (prm->syntax) {
	case PF_SYNTAX_ANY: return NULL;
	case PF_SYNTAX_U64_LIST: return "a list of integers";
	case PF_SYNTAX_BDF_LIST: return "a list of PCI addresses";
	case PF_SYNTAX_VERSION: return "a dotted version";
	}
	return NULL;
}

/*
 * A string parameter's words, as its syntax asks; *ret_value is what the
 * config keeps (PCI addresses in sysfs form, so that they match sysfs).
 */
static int check_syntax(const struct pf_param *prm, const char *value, char **ret_value,
			char **ret_err)
{
	pf_autofree char *copy = pf_xstrdup(value), *out = pf_xstrdup("");
	char *save = NULL;

	if (prm->syntax == PF_SYNTAX_ANY) {
		*ret_value = PF_TAKE_PTR(copy);
		return 0;
	}
	if (prm->syntax == PF_SYNTAX_VERSION) {
		const char *p = value;

		while (*p) {
			if (!strchr("0123456789", *p))
				return fail(ret_err, "value '%s' for '%s' is not a version such as "
					    "550.54.15", value, prm->key);
			p += strspn(p, "0123456789");
			if (*p == '.' && p[1] >= '0' && p[1] <= '9')
				p++;
			else if (*p)
				return fail(ret_err, "value '%s' for '%s' is not a version such as "
					    "550.54.15", value, prm->key);
		}
		*ret_value = PF_TAKE_PTR(copy);
		return 0;
	}
	for (char *w = strtok_r(copy, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		char bdf[16], *next;
		uint64_t v;

		if (prm->syntax == PF_SYNTAX_U64_LIST) {
			if (pf_parse_u64(w, &v) < 0 || (double)v < prm->min || (double)v > prm->max)
				return fail(ret_err, "'%s' in '%s' for '%s' is not an integer in "
					    "[%.15g, %.15g]", w, value, prm->key, prm->min, prm->max);
			next = pf_xasprintf("%s%s%" PRIu64, out, *out ? "," : "", v);
		} else {
			if (pf_bdf_normalize(w, bdf) < 0)
				return fail(ret_err, "'%s' in '%s' for '%s' is not a PCI address such "
					    "as 0000:17:00.0", w, value, prm->key);
			next = pf_xasprintf("%s%s%s", out, *out ? "," : "", bdf);
		}
		free(out);
		out = next;
	}
	*ret_value = PF_TAKE_PTR(out);
	return 0;
}

int pf_param_parse(const struct pf_param *prm, const char *value, void *cfg, char **ret_err)
{
	char *field = (char *)cfg + prm->offset;
	char *end;

	switch (prm->type) {
	case PF_PARAM_BOOL:
		if (!strcmp(value, "true") || !strcmp(value, "1") || !strcmp(value, "yes"))
			*(bool *)field = true;
		else if (!strcmp(value, "false") || !strcmp(value, "0") || !strcmp(value, "no"))
			*(bool *)field = false;
		else
			return fail(ret_err, "value '%s' for '%s' is not a bool (true or false)",
				    value, prm->key);
		return 0;
	case PF_PARAM_U64: {
		uint64_t v;

		if (pf_parse_u64(value, &v) < 0)
			return fail(ret_err, "value '%s' for '%s' is not an unsigned integer",
				    value, prm->key);
		if ((double)v < prm->min || (double)v > prm->max)
			return out_of_bounds(prm, (double)v, value, ret_err);
		*(uint64_t *)field = v;
		return 0;
	}
	case PF_PARAM_I64: {
		int64_t v;

		if (pf_parse_i64(value, &v) < 0)
			return fail(ret_err, "value '%s' for '%s' is not an integer", value,
				    prm->key);
		if ((double)v < prm->min || (double)v > prm->max)
			return out_of_bounds(prm, (double)v, value, ret_err);
		*(int64_t *)field = v;
		return 0;
	}
	case PF_PARAM_DOUBLE: {
		double v;

		errno = 0;
		v = strtod(value, &end);
		if (end == value || *end || errno || !isfinite(v))
			return fail(ret_err, "value '%s' for '%s' is not a number", value, prm->key);
		if (v < prm->min || v > prm->max)
			return out_of_bounds(prm, v, value, ret_err);
		*(double *)field = v;
		return 0;
	}
	case PF_PARAM_STRING: {
		char *checked = NULL;
		int r = check_syntax(prm, value, &checked, ret_err);

		if (r < 0)
			return r;
		free(*(char **)field);
		*(char **)field = checked;
		return 0;
	}
	case PF_PARAM_ENUM:
		for (const char *const *w = prm->choices; w && *w; w++)
			if (!strcasecmp(value, *w)) {
				free(*(char **)field);
				*(char **)field = pf_xstrdup(*w);
				return 0;
			}
		{
			pf_autofree char *words = pf_param_choices(prm, ", ");

			return fail(ret_err, "value '%s' for '%s' is not one of %s", value, prm->key,
				    words);
		}
	}
	return fail(ret_err, "parameter '%s' has an unknown type", prm->key);
}

/* Turn a profile JSON value into the command-line spelling, then parse it. */
static int param_from_json(const struct pf_param *prm, const cJSON *v, void *cfg,
			   char **ret_err)
{
	char buf[64];

	switch (prm->type) {
	case PF_PARAM_BOOL:
		if (!cJSON_IsBool(v))
			break;
		return pf_param_parse(prm, cJSON_IsTrue(v) ? "true" : "false", cfg, ret_err);
	case PF_PARAM_U64:
	case PF_PARAM_I64:
		if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
		    fabs(v->valuedouble) > 9.007199254740992e15)
			break;
		snprintf(buf, sizeof(buf), "%.0f", v->valuedouble);
		return pf_param_parse(prm, buf, cfg, ret_err);
	case PF_PARAM_DOUBLE:
		if (!cJSON_IsNumber(v))
			break;
		snprintf(buf, sizeof(buf), "%.17g", v->valuedouble);
		return pf_param_parse(prm, buf, cfg, ret_err);
	case PF_PARAM_ENUM:
		if (cJSON_IsString(v))
			return pf_param_parse(prm, v->valuestring, cfg, ret_err);
		/* an enum of "true"/"false" and more ("auto") takes the JSON booleans too */
		if (cJSON_IsBool(v))
			return pf_param_parse(prm, cJSON_IsTrue(v) ? "true" : "false", cfg, ret_err);
		return fail(ret_err, "'%s' must be a string", prm->key);
	case PF_PARAM_STRING:
		if (cJSON_IsString(v))
			return pf_param_parse(prm, v->valuestring, cfg, ret_err);
		/* a list of integers with one member may be written as the number: "arp_ignore": 1 */
		if (prm->syntax == PF_SYNTAX_U64_LIST && cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		    v->valuedouble <= 9.007199254740992e15 &&
		    v->valuedouble == floor(v->valuedouble)) {
			char num[32];

			snprintf(num, sizeof(num), "%.0f", v->valuedouble);
			return pf_param_parse(prm, num, cfg, ret_err);
		}
		if (cJSON_IsArray(v)) {
			pf_autofree char *joined = pf_xstrdup("");
			const cJSON *it;

			cJSON_ArrayForEach(it, v) {
				char *next;

				/* a list of integers may be written as JSON numbers: [13, 31] */
				if (prm->syntax == PF_SYNTAX_U64_LIST && cJSON_IsNumber(it) &&
				    it->valuedouble >= 0 && it->valuedouble <= 9.007199254740992e15 &&
				    it->valuedouble == floor(it->valuedouble)) {
					next = pf_xasprintf("%s%s%.0f", joined, *joined ? "," : "",
							    it->valuedouble);
					free(joined);
					joined = next;
					continue;
				}
				if (!cJSON_IsString(it))
					return fail(ret_err, "'%s' must be a string or a list of strings",
						    prm->key);
				next = pf_xasprintf("%s%s%s", joined, *joined ? "," : "",
						    it->valuestring);
				free(joined);
				joined = next;
			}
			return pf_param_parse(prm, joined, cfg, ret_err);
		}
		break;
	}
	return fail(ret_err, "'%s' must be %s %s%s", prm->key,
		    strchr("aeiou", pf_param_type_name(prm->type)[0]) ? "an" : "a",
		    pf_param_type_name(prm->type),
		    prm->type == PF_PARAM_STRING ? " or a list of strings" : "");
}

/* The first key that appears twice in one object of @v, as "a.b.key" in *@path; true if any. */
static bool find_dup(const cJSON *v, struct pf_strbuf *path)
{
	struct pf_strmap seen = { 0 };
	const cJSON *it;
	size_t mark = path->len;
	uint32_t unused;
	bool dup = false;

	cJSON_ArrayForEach(it, v) {
		if (cJSON_IsObject(v) && it->string) {
			dup = pf_strmap_get(&seen, it->string, &unused);
			pf_strmap_put(&seen, it->string, 0);
			pf_strbuf_adds(pf_strbuf_sep(path, "."), it->string);
		}
		if (dup || ((cJSON_IsObject(it) || cJSON_IsArray(it)) && find_dup(it, path)))
			break;
		pf_strbuf_setlen(path, mark);
	}
	pf_strmap_release(&seen);
	return it != NULL;
}

int pf_json_check_dups(const cJSON *root, const char *origin, char **ret_err)
{
	pf_autostrbuf struct pf_strbuf path = PF_STRBUF_INIT;

	if (!find_dup(root, &path))
		return 0;
	return fail(ret_err, "%s: '%s' is given twice (a duplicate key is an error, not a "
		    "silent override)", origin, path.buf);
}

int pf_profile_parse(struct pf_profile *p, const char *text, const char *origin, char **ret_err)
{
	pf_autofree char *copy = pf_xstrdup(text);
	pf_autojson cJSON *root = NULL;
	cJSON *it;

	cJSON_Minify(copy);
	root = cJSON_Parse(copy);
	if (!root)
		return fail(ret_err, "profile '%s': not valid JSON", origin);
	if (!cJSON_IsObject(root))
		return fail(ret_err, "profile '%s': top level must be an object", origin);
	{
		pf_autofree char *what = pf_xasprintf("profile '%s'", origin);

		if (pf_json_check_dups(root, what, ret_err) < 0)
			return -EINVAL;
	}
	cJSON_ArrayForEach(it, root) {
		const char *k = it->string;

		/* the tree that owns @k is freed after the message is formatted */
		if (!strcmp(k, "name") || !strcmp(k, "description")) {
			if (!cJSON_IsString(it))
				return fail(ret_err, "profile '%s': '%s' must be a string", origin, k);
		} else if (!strcmp(k, "drain_on")) {
			enum pf_status s;

			if (!cJSON_IsString(it) || pf_status_from_name(it->valuestring, &s) < 0 ||
			    (s != PF_STATUS_FAIL && s != PF_STATUS_ERROR && s != PF_STATUS_WARN))
				return fail(ret_err, "profile '%s': 'drain_on' must be \"fail\", "
					    "\"error\" or \"warn\"", origin);
		} else if (!strcmp(k, "rails")) {
			int r = load_rails(p, it, origin, ret_err);

			if (r < 0)
				return r;
		} else if (!strcmp(k, "checks")) {
			if (!cJSON_IsObject(it))
				return fail(ret_err, "profile '%s': 'checks' must be an object", origin);
		} else {
			return fail(ret_err, "profile '%s': unknown key '%s'", origin, k);
		}
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "name");
	free(p->name);
	p->name = pf_xstrdup(cJSON_IsString(it) ? it->valuestring : origin);
	free(p->path);
	p->path = pf_xstrdup(origin);
	it = cJSON_GetObjectItemCaseSensitive(root, "drain_on");
	free(p->drain_on);
	p->drain_on = cJSON_IsString(it) ? pf_xstrdup(it->valuestring) : NULL;
	cJSON_Delete(p->checks);
	p->checks = cJSON_DetachItemFromObjectCaseSensitive(root, "checks");
	return 0;
}

/* As root, the profile's directory must be root's and closed to others (sticky aside). */
static int judge_profile_dir(const char *path, char **ret_err)
{
	pf_autofree char *dir = pf_xstrdup(path), *why = NULL;
	char *slash = strrchr(dir, '/');
	struct stat st;

	if (!slash)
		strcpy(dir, ".");
	else
		slash[slash == dir] = '\0';
	if (stat(dir, &st) < 0)
		return 0; /* reading the profile says what is wrong */
	if ((st.st_mode & S_ISVTX) && !(st.st_mode & S_IWGRP) && st.st_uid == 0)
		st.st_mode &= ~(mode_t)S_IWOTH; /* /tmp: others cannot replace root's file */
	if (pf_input_judge(&st, dir, true, &why) < 0)
		return fail(ret_err, "profile directory %s", why);
	return 0;
}

int pf_profile_load(struct pf_profile *p, const char *path, char **ret_err)
{
	pf_autofree char *text = NULL, *why = NULL;
	size_t len = 0;
	int r;

	/* a regular file, O_NONBLOCK; as root root's own and closed to others (docs/hardening.md) */
	r = pf_read_input(path, 4 * 1024 * 1024, true, &text, &len, &why);
	if (r < 0) {
		if (r == -EPERM || r == -EINVAL)
			fail(ret_err, "profile %s", why);
		else
			fail(ret_err, "cannot read profile '%s': %s", path, strerror(-r));
		return r == -EPERM ? -EINVAL : r;
	}
	r = judge_profile_dir(path, ret_err);
	if (r < 0)
		return r;
	if (strlen(text) != len)
		return fail(ret_err, "profile '%s': contains NUL bytes", path);
	return pf_profile_parse(p, text, path, ret_err);
}

void pf_profile_add_set(struct pf_profile *p, const char *set)
{
	p->sets = pf_xrealloc(p->sets, (p->n_sets + 1) * sizeof(*p->sets));
	p->sets[p->n_sets++] = set;
}

static int split_set(const char *set, char *check, size_t clen, char *key, size_t klen,
		     const char **ret_value, char **ret_err)
{
	const char *dot = strchr(set, '.'), *eq = strchr(set, '=');

	if (!dot || !eq || dot > eq || dot == set || eq == dot + 1)
		return fail(ret_err, "--set '%s': expected CHECK.KEY=VALUE", set);
	if ((size_t)(dot - set) >= clen || (size_t)(eq - dot - 1) >= klen)
		return fail(ret_err, "--set '%s': name too long", set);
	memcpy(check, set, (size_t)(dot - set));
	check[dot - set] = '\0';
	memcpy(key, dot + 1, (size_t)(eq - dot - 1));
	key[eq - dot - 1] = '\0';
	*ret_value = eq + 1;
	return 0;
}

static const struct pf_check *find_check(const struct pf_check *const *checks, size_t n,
					 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(checks[i]->name, name))
			return checks[i];
	return NULL;
}

int pf_profile_validate(const struct pf_profile *p, const struct pf_check *const *checks,
			size_t n, char **ret_err)
{
	const cJSON *sec;
	int r;

	cJSON_ArrayForEach(sec, p->checks) {
		if (!find_check(checks, n, sec->string))
			return fail(ret_err, "profile '%s': unknown check '%s'", p->path,
				    sec->string);
		if (!cJSON_IsObject(sec))
			return fail(ret_err, "profile '%s': checks.%s must be an object", p->path,
				    sec->string);
	}
	for (size_t i = 0; i < p->n_sets; i++) {
		char check[64], key[128];
		const char *value;

		r = split_set(p->sets[i], check, sizeof(check), key, sizeof(key), &value, ret_err);
		if (r < 0)
			return r;
		if (!strcmp(check, "rails")) {
			if (rail_role_index(key) < 0)
				return fail(ret_err, "--set '%s': unknown role 'rails.%s' (compute, "
					    "storage, frontend or unused)", p->sets[i], key);
			continue;
		}
		if (!find_check(checks, n, check))
			return fail(ret_err, "--set '%s': unknown check '%s'", p->sets[i], check);
	}
	for (size_t i = 0; i < n; i++) {
		void *cfg = NULL;

		r = pf_config_build(checks[i], p, &cfg, ret_err);
		if (r < 0)
			return r;
		pf_config_free(checks[i], cfg);
	}
	return 0;
}

int pf_config_build(const struct pf_check *c, const struct pf_profile *p, void **ret_cfg,
		    char **ret_err)
{
	void *cfg = pf_xcalloc(1, c->cfg_size);
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(p ? p->checks : NULL, c->name);
	const cJSON *it;
	int r;

	for (const struct pf_param *prm = c->params; prm && prm->key; prm++) {
		pf_autofree char *err = NULL;

		r = pf_param_parse(prm, prm->def, cfg, &err);
		PF_BUG_ON(r < 0); /* the registry validates defaults */
	}
	/* pf_profile_validate() says so first; an array here has nameless items */
	if (sec && !cJSON_IsObject(sec)) {
		pf_config_free(c, cfg);
		return fail(ret_err, "profile '%s': checks.%s must be an object", p->path, c->name);
	}
	cJSON_ArrayForEach(it, sec) {
		const struct pf_param *prm = pf_param_find(c, it->string);
		pf_autofree char *err = NULL;

		if (!prm) {
			pf_config_free(c, cfg);
			return fail(ret_err, "profile '%s': unknown key '%s' of check '%s'", p->path,
				    it->string, c->name);
		}
		r = param_from_json(prm, it, cfg, &err);
		if (r < 0) {
			pf_config_free(c, cfg);
			return fail(ret_err, "profile '%s': checks.%s.%s: %s", p->path, c->name,
				    it->string, err ? err : "invalid");
		}
	}
	for (size_t i = 0; p && i < p->n_sets; i++) {
		char check[64], key[128];
		const char *value;
		const struct pf_param *prm;
		pf_autofree char *err = NULL;

		r = split_set(p->sets[i], check, sizeof(check), key, sizeof(key), &value, ret_err);
		if (r < 0) {
			pf_config_free(c, cfg);
			return r;
		}
		if (strcmp(check, c->name))
			continue;
		prm = pf_param_find(c, key);
		if (!prm) {
			pf_config_free(c, cfg);
			return fail(ret_err, "--set '%s': unknown key '%s' of check '%s'", p->sets[i],
				    key, c->name);
		}
		r = pf_param_parse(prm, value, cfg, &err);
		if (r < 0) {
			pf_config_free(c, cfg);
			return fail(ret_err, "--set '%s': %s", p->sets[i], err ? err : "invalid");
		}
	}
	if (c->validate) {
		pf_autofree char *err = NULL;

		r = c->validate(cfg, &err);
		if (r < 0) {
			pf_config_free(c, cfg);
			if (p && p->path)
				return fail(ret_err, "profile '%s': %s", p->path, err ? err : "invalid");
			return fail(ret_err, "%s", err ? err : "invalid");
		}
	}
	*ret_cfg = cfg;
	return 0;
}

void pf_config_free(const struct pf_check *c, void *cfg)
{
	if (!cfg)
		return;
	for (const struct pf_param *prm = c->params; prm && prm->key; prm++)
		if (prm->type == PF_PARAM_STRING || prm->type == PF_PARAM_ENUM)
			free(*(char **)((char *)cfg + prm->offset));
	free(cfg);
}

cJSON *pf_config_to_json(const struct pf_check *c, const void *cfg)
{
	cJSON *j = cJSON_CreateObject();

	for (const struct pf_param *prm = c->params; prm && prm->key; prm++) {
		const char *field = (const char *)cfg + prm->offset;

		switch (prm->type) {
		case PF_PARAM_BOOL:
			cJSON_AddBoolToObject(j, prm->key, *(const bool *)field);
			break;
		case PF_PARAM_U64:
			cJSON_AddNumberToObject(j, prm->key, (double)*(const uint64_t *)field);
			break;
		case PF_PARAM_I64:
			cJSON_AddNumberToObject(j, prm->key, (double)*(const int64_t *)field);
			break;
		case PF_PARAM_DOUBLE:
			cJSON_AddNumberToObject(j, prm->key, *(const double *)field);
			break;
		case PF_PARAM_STRING:
		case PF_PARAM_ENUM:
			cJSON_AddStringToObject(j, prm->key, *(char *const *)field);
			break;
		}
	}
	return j;
}
