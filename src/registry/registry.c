// SPDX-License-Identifier: MIT
/*
 * registry.c - expands checks/checks.def into the check table and validates
 * descriptors (main() refuses to start on an invalid one: exit 70).
 */
#include <string.h>
#include <strings.h>

#include "profile.h"
#include "registry.h"

#define PF_CHECK(n) extern const struct pf_check pf_check_##n;
#include "checks.def"
#undef PF_CHECK

static const struct pf_check *const pf_checks[] = {
#define PF_CHECK(n) &pf_check_##n,
#include "checks.def"
#undef PF_CHECK
};

const struct pf_check *const *pf_registry(size_t *ret_n)
{
	*ret_n = PF_ARRAY_SIZE(pf_checks);
	return pf_checks;
}

const struct pf_check *pf_registry_find(const char *name)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(pf_checks); i++)
		if (!strcmp(pf_checks[i]->name, name))
			return pf_checks[i];
	return NULL;
}

int pf_registry_find_code(const char *code, const struct pf_check **ret_check,
			  const struct pf_code **ret_code)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(pf_checks); i++) {
		const struct pf_check *c = pf_checks[i];

		for (const struct pf_code *k = c->codes; k && k->num; k++) {
			pf_autofree char *name = pf_code_name(c->name, k->num);

			if (strcasecmp(name, code))
				continue;
			*ret_check = c;
			*ret_code = k;
			return 0;
		}
	}
	return -ENOENT;
}

static size_t param_size(enum pf_param_type t)
{
	switch (t) {
	case PF_PARAM_BOOL: return sizeof(bool);
	case PF_PARAM_U64: return sizeof(uint64_t);
	case PF_PARAM_I64: return sizeof(int64_t);
	case PF_PARAM_DOUBLE: return sizeof(double);
	case PF_PARAM_STRING:
	case PF_PARAM_ENUM: return sizeof(char *);
	}
	return SIZE_MAX;
}

static int invalid(char **ret_err, char *msg)
{
	*ret_err = msg;
	return -EINVAL;
}

int pf_check_validate(const struct pf_check *c, char **ret_err)
{
	const char *name = c->name;

	if (!name || !*name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name))
		return invalid(ret_err, pf_xasprintf("check name '%s' is not [a-z0-9_]+",
						     name ? name : "(null)"));
	if (!c->summary || !*c->summary)
		return invalid(ret_err, pf_xasprintf("check '%s' has no summary", name));
	if (!c->reads || !*c->reads)
		return invalid(ret_err, pf_xasprintf("check '%s' does not say what it reads", name));
	if (!c->run)
		return invalid(ret_err, pf_xasprintf("check '%s' has no run()", name));
	if (c->timeout_s == 0)
		return invalid(ret_err, pf_xasprintf("check '%s' has no deadline", name));
	for (const struct pf_param *p = c->params; p && p->key; p++) {
		void *cfg;
		char *err = NULL;
		int r;

		if (!p->help || !*p->help)
			return invalid(ret_err, pf_xasprintf("%s.%s has no help", name, p->key));
		if (p->offset + param_size(p->type) > c->cfg_size)
			return invalid(ret_err, pf_xasprintf("%s.%s lies outside cfg_size", name,
							     p->key));
		for (const struct pf_param *q = c->params; q != p; q++)
			if (!strcmp(q->key, p->key))
				return invalid(ret_err, pf_xasprintf("%s.%s is declared twice",
								     name, p->key));
		if (!p->def)
			return invalid(ret_err, pf_xasprintf("%s.%s has no default", name, p->key));
		if ((p->type == PF_PARAM_ENUM) != (p->choices && *p->choices))
			return invalid(ret_err, pf_xasprintf("%s.%s: choices belong to an enum, and "
							     "an enum needs some", name, p->key));
		cfg = pf_xcalloc(1, c->cfg_size);
		r = pf_param_parse(p, p->def, cfg, &err);
		if (p->type == PF_PARAM_STRING || p->type == PF_PARAM_ENUM)
			free(*(char **)((char *)cfg + p->offset));
		free(cfg);
		if (r < 0) {
			*ret_err = pf_xasprintf("%s.%s default: %s", name, p->key, err ? err : "invalid");
			free(err);
			return r;
		}
	}
	return 0;
}

int pf_registry_validate(const struct pf_check *const *checks, size_t n, char **ret_err)
{
	for (size_t i = 0; i < n; i++) {
		int r = pf_check_validate(checks[i], ret_err);

		if (r < 0)
			return r;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(checks[i]->name, checks[j]->name))
				return invalid(ret_err, pf_xasprintf("check '%s' is registered twice",
								     checks[i]->name));
	}
	return 0;
}
