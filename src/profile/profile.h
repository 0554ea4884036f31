/* SPDX-License-Identifier: MIT */
/*
 * profile.h - expectations: built-in defaults < profile file < --set.
 *
 * Each check declares its keys once in its parameter table; this module
 * validates a JSON profile and --set overrides against those tables and
 * builds each check's typed config struct.
 *
 * Profile file (comments allowed):
 *   { "name": "dgx-h100", "description": "...",
 *     "drain_on": "fail",
 *     "rails": { "storage": "mlx5_8,mlx5_9" },
 *     "checks": { "memlock": { "min_kib": 0 }, "sysctl": { "ignore": ["kernel.numa_balancing"] } } }
 */
#ifndef PREFLIGHT_PROFILE_H
#define PREFLIGHT_PROFILE_H

#include <cjson/cJSON.h>

#include "preflight/check.h"

struct pf_profile {
	char *name;       /* "generic" without a file */
	char *path;       /* NULL without a file */
	cJSON *checks;    /* object: check -> { key: value }; NULL without a file */
	char *drain_on;   /* "fail", "error" or "warn" (the Slurm gate); NULL: not set */
	const char **sets; /* "check.key=value", borrowed */
	size_t n_sets;
	/*
	 * Port roles the site declares ("rails": {"storage": "mlx5_8,mlx5_9:1"}
	 * or --set rails.storage=...), by pf_profile_rail_roles[] index:
	 * comma-separated devices or device:port; NULL not declared.
	 */
	char *rails[4];
};

/* The roles a profile may declare, in the order of pf_profile.rails (preflight/rails.h's). */
extern const char *const pf_profile_rail_roles[4];
/* The declared list of @role ("storage"): the last --set rails.ROLE, else the file's; NULL none. */
const char *pf_profile_rails(const struct pf_profile *p, const char *role);

void pf_profile_init(struct pf_profile *p);
void pf_profile_release(struct pf_profile *p);

/*
 * Load a profile file.  -errno or -EINVAL with *ret_err naming the file and
 * the offending key (caller frees *ret_err).
 */
int pf_profile_load(struct pf_profile *p, const char *path, char **ret_err);
/* Load a profile from a string (tests, shipped profiles). */
/*
 * A key given twice in one object anywhere in @root (a check section, a
 * key of one): -EINVAL with *ret_err "@origin: 'checks.sysctl' is given
 * twice ..." (caller frees), else 0.  Profiles and the site config use it.
 */
int pf_json_check_dups(const cJSON *root, const char *origin, char **ret_err);
int pf_profile_parse(struct pf_profile *p, const char *text, const char *origin, char **ret_err);

/* Add a --set override ("check.key=value"); kept as a borrowed pointer. */
void pf_profile_add_set(struct pf_profile *p, const char *set);

/*
 * Check every check name, key and value type of the profile and of the --set
 * overrides against @checks.  -EINVAL with *ret_err on the first problem.
 */
int pf_profile_validate(const struct pf_profile *p, const struct pf_check *const *checks,
			size_t n, char **ret_err);

/* Build the effective config of @c: defaults, then the profile, then --set. */
int pf_config_build(const struct pf_check *c, const struct pf_profile *p, void **ret_cfg,
		    char **ret_err);
void pf_config_free(const struct pf_check *c, void *cfg);
/* The effective config as a JSON object (the report's "config"). */
cJSON *pf_config_to_json(const struct pf_check *c, const void *cfg);

const struct pf_param *pf_param_find(const struct pf_check *c, const char *key);
/* Parse @value (command-line spelling) into the field of @cfg; bounds checked. */
int pf_param_parse(const struct pf_param *prm, const char *value, void *cfg, char **ret_err);
const char *pf_param_type_name(enum pf_param_type t);
/* "a list of integers", ... for a string parameter with a syntax; NULL otherwise. */
const char *pf_param_syntax_name(const struct pf_param *prm);
/* The words of a PF_PARAM_ENUM joined by @sep ("" shown as \"\"); caller frees. */
char *pf_param_choices(const struct pf_param *prm, const char *sep);

#endif
