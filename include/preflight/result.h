/* SPDX-License-Identifier: MIT */
/*
 * result.h - what a check returns: a status and findings, one per subject.
 *
 * A finding names its subject ("mlx5_3/1", "net.core.rmem_max"), carries a
 * status, a one-line message, observed and expected values (JSON objects so
 * that renderers can print them without knowing the check) and a remedy.
 * The check's status is its worst finding (pf_result_finish()).
 */
#ifndef PREFLIGHT_RESULT_H
#define PREFLIGHT_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "preflight/macro.h"

/*
 * A cJSON tree deleted when its variable leaves scope, the one such helper
 * (PF_TAKE_PTR() hands it on):  pf_autojson cJSON *root = cJSON_Parse(text);
 */
static inline void pf_cjson_deletep(cJSON **j)
{
	cJSON_Delete(*j); /* a no-op on NULL */
}
#define pf_autojson PF_CLEANUP(pf_cjson_deletep)

enum pf_status {
	PF_STATUS_PASS,
	PF_STATUS_WARN,
	PF_STATUS_FAIL,
	PF_STATUS_SKIP,
	PF_STATUS_ERROR,
	PF_STATUS_COUNT,
};

/*
 * What a program (a scheduler, NVSentinel-like remediation, an operator's script) may do
 * about a fail or warn finding: a small fixed set, stable in the report ("action").
 */
enum pf_action {
	PF_ACTION_NONE,              /* nothing to do on the node (informational) */
	PF_ACTION_RECONFIGURE,       /* change a setting: sysctl, firmware config, profile */
	PF_ACTION_RELOAD_DRIVER,     /* reload a kernel module or restart a service */
	PF_ACTION_RESET_GPU,         /* nvidia-smi -r or the like */
	PF_ACTION_REBOOT,            /* reboot the node */
	PF_ACTION_RESEAT_OR_REPLACE, /* hands on hardware: cable, optic, card */
	PF_ACTION_CONTACT_VENDOR,    /* the vendor's support (RMA, firmware) */
	PF_ACTION_COUNT,
};

const char *pf_action_name(enum pf_action a);
/* Parse an action's name; -EINVAL for anything else. */
int pf_action_from_name(const char *name, enum pf_action *ret);

/*
 * One entry of a check's code table (struct pf_check.codes): the number N of the
 * code PF-<CHECK>-<NNN>, what it means (docs and --describe) and its action.
 * A code is stable: once released, its number keeps its meaning.
 */
struct pf_code {
	unsigned int num; /* 1..999; 0 ends the table */
	enum pf_action action;
	const char *meaning;
};

struct pf_finding {
	char *subject;
	enum pf_status status;
	char *message;
	cJSON *observed; /* object or NULL */
	cJSON *expected; /* object or NULL */
	char *remedy;    /* or NULL */
	unsigned int code_num; /* set by the check (pf_code()); 0: none */
	char *code;            /* "PF-MEMLOCK-001", resolved by the runner; or NULL */
	enum pf_action action; /* with code */
	/*
	 * The counts a fail rests on that only grow until reboot (Xid events in
	 * the log, errors since boot): name -> value, or NULL.  With --confirm,
	 * a fail whose counts a run of this boot already reported, none risen
	 * since, is said once, not at every run (src/runner/counts.c).
	 */
	cJSON *counts;
};

struct pf_result {
	enum pf_status status;
	char *summary;
	struct pf_finding *findings; /* never moves once allocated: see pf_add() */
	size_t n_findings;
	size_t findings_room; /* how many fit before more memory is committed */
};

/* The most findings one result holds; one more is a bug (PF_BUG_ON). */
#define PF_FINDINGS_MAX ((size_t)1 << 20)

const char *pf_status_name(enum pf_status s);
/* Parse "pass", "warn", ...; -EINVAL for anything else. */
int pf_status_from_name(const char *name, enum pf_status *ret);
/* Severity order used for "worst": skip < pass < warn < error < fail. */
int pf_status_rank(enum pf_status s);
enum pf_status pf_status_worst(enum pf_status a, enum pf_status b);

void pf_result_init(struct pf_result *res);
void pf_result_release(struct pf_result *res);

/*
 * Append a finding and return it (owned by @res).  @subject may be NULL for
 * a check-wide finding.
 *
 * The pointer stays valid until pf_result_release(), however many findings
 * are added after it: the findings array is never moved.  It is reserved
 * whole (PF_FINDINGS_MAX of them) as address space on the first add and its
 * pages are committed as it fills, so `f = pf_add(...); pf_add(...);
 * pf_obs_num(f, ...)` is safe and readers still index res->findings[i].
 * (The alternatives were an index, which every one of the ~280 callers
 * would have had to turn back into a pointer, or a finding built on the
 * side and added whole, which needs a second set of setters.)
 */
struct pf_finding *pf_add(struct pf_result *res, enum pf_status st, const char *subject,
			  const char *fmt, ...) PF_PRINTF(4, 5);
/* The finding added last (what a helper that judges one subject added); a bug when none. */
struct pf_finding *pf_last(struct pf_result *res);

/* Observed and expected values of a finding. */
void pf_obs_num(struct pf_finding *f, const char *key, double v);
void pf_obs_str(struct pf_finding *f, const char *key, const char *v);
void pf_obs_bool(struct pf_finding *f, const char *key, bool v);
void pf_exp_num(struct pf_finding *f, const char *key, double v);
void pf_exp_str(struct pf_finding *f, const char *key, const char *v);
void pf_exp_bool(struct pf_finding *f, const char *key, bool v);
/* Attach an arbitrary JSON value (ownership moves to the finding). */
void pf_obs_json(struct pf_finding *f, const char *key, cJSON *v);
void pf_remedy(struct pf_finding *f, const char *fmt, ...) PF_PRINTF(2, 3);
/* A count the finding rests on that only grows until reboot (see .counts). */
void pf_count(struct pf_finding *f, const char *key, double v);

/*
 * Give a fail or warn finding its code: @num is an entry of the check's
 * code table (its meaning and action are there; the runner resolves it).
 */
void pf_code(struct pf_finding *f, unsigned int num);
/* "PF-<CHECK>-<NNN>" for code @num of check @check_name (upper case, '_' as '-'); free() it. */
char *pf_code_name(const char *check_name, unsigned int num);
/* Resolve @f's code_num for check @check_name to its code string and @action. */
void pf_code_resolve(struct pf_finding *f, const char *check_name, enum pf_action action);
/*
 * Give each coded fail or warn finding of @res its code string and action from
 * @codes, the table of check @check_name (the runner after a check, `preflight
 * mesh` after its judge).  A check may code a finding whose status it decides at
 * run time, so a code on a pass, skip or error is dropped.  A number the table
 * lacks is a bug of the check: said as an error finding, so that a test of that
 * check fails and the report stays complete.
 */
void pf_result_resolve_codes(struct pf_result *res, const char *check_name,
			     const struct pf_code *codes);

/* Set the one-line summary (replaces any earlier one). */
void pf_summary(struct pf_result *res, const char *fmt, ...) PF_PRINTF(2, 3);

/*
 * Record that the check could not decide: adds an error finding with
 * "<message>: <strerror(-err)>" and returns @err (negative errno) so that
 * `return pf_error(res, r, "cannot read '%s'", path);` works.
 */
int pf_error(struct pf_result *res, int err, const char *fmt, ...) PF_PRINTF(3, 4);
/* Mark the whole check skipped with a reason; returns 0. */
int pf_skip(struct pf_result *res, const char *fmt, ...) PF_PRINTF(2, 3);

/*
 * Compute the check's status from its findings and fill a default summary
 * ("2 of 8 findings fail") when the check set none.  A result with no
 * findings becomes an error: a check never passes silently.
 */
void pf_result_finish(struct pf_result *res);

/* Serialise to / from the report's per-check JSON fields (status, summary, findings). */
cJSON *pf_result_to_json(const struct pf_result *res);
int pf_result_from_json(const cJSON *json, struct pf_result *res);

#endif
