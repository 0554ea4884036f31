/* SPDX-License-Identifier: MIT */
/*
 * fleet_model.h - the fleet's records, shared by the model (fleet_model.c:
 * reading reports into node records, pf_fleet_finish) and the views
 * (fleet_views.c: JSON, CSV and text).  Private to src/fleet.
 */
#ifndef PREFLIGHT_FLEET_MODEL_H
#define PREFLIGHT_FLEET_MODEL_H

#include <stdint.h>

#include "fleet.h"
#include "fleet_fw.h"
#include "fleet_mesh.h"
#include "fleet_nvl.h"
#include "fleet_wiring.h"
#include "preflight/macro.h"
#include "preflight/result.h"
#include "strmap.h"

struct fl_check_rec {
	uint32_t check;
	enum pf_status status;
	char *subject; /* first bad finding, fail/error checks only */
	char *message;
};

struct fl_obs {
	uint32_t series;
	double value;  /* min over the node's subjects */
	char *subject; /* the subject holding the min */
};

struct fl_node {
	char *host, *origin, *started;
	bool named;    /* host is the report's own node.hostname (else its file) */
	enum pf_status verdict;
	struct fl_check_rec *checks;
	size_t n_checks;
	struct fl_obs *obs;
	size_t n_obs, cap_obs;
	bool superseded;
};

struct fl_series {
	uint32_t check;
	char *key;
	size_t n_nodes, n_outliers;
	double median, min, max;
};

struct fl_outlier {
	size_t node;
	uint32_t series;
	double value;
};

struct fl_reject {
	char *origin, *reason;
};

struct pf_fleet {
	double fraction;
	bool compact; /* JSON view on one line */
	struct pf_fs *fs; /* "/": report files are read through the file API too */
	struct fl_node *nodes;
	size_t n_nodes, cap_nodes;
	char **checks; /* interned check names, first-seen order */
	size_t n_checks, cap_checks;
	struct pf_strmap check_ids;
	struct fl_series *series;
	size_t n_series, cap_series;
	struct pf_strmap series_ids; /* "check\x1fkey" */
	struct fl_reject *rejects;
	size_t n_rejects, cap_rejects;
	struct fl_mesh *mesh; /* NULL until a report holds a "mesh" check */
	double mesh_fraction; /* its slow fraction */
	struct fl_wiring *wiring; /* the rail tables of every report (fleet_wiring.h) */
	struct fl_fw *fw; /* NIC firmware by PSID (fleet_fw.h) */
	struct fl_nvl *nvl; /* NVLink domains by cluster UUID (fleet_nvl.h) */
	/* derived by pf_fleet_finish() */
	bool finished;
	size_t (*counts)[PF_STATUS_COUNT]; /* per check */
	size_t verdicts[PF_STATUS_COUNT];
	size_t n_live, n_superseded;
	size_t *failing;
	size_t n_failing;
	struct fl_outlier *outliers;
	size_t n_outliers;
};

/* Count and list a rejected input; *ret_err (may be NULL) a copy of @reason. */
void fl_reject(struct pf_fleet *f, const char *origin, const char *reason, char **ret_err);

/* A status that makes a node bad: fail or error. */
static inline bool fl_bad(enum pf_status s)
{
	return s == PF_STATUS_FAIL || s == PF_STATUS_ERROR;
}

#endif
