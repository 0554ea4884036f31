/* SPDX-License-Identifier: MIT */
/*
 * fleet_nvl.h - NVLink domains across the fleet: the cluster UUID and
 * clique ID each node's GPUs reported to nvlink_fabric (observed
 * .cluster_uuid, .clique_id), grouped by cluster, and the nodes whose clique
 * differs from the one most nodes of their cluster report, or whose GPUs
 * report more than one (cluster, clique) (fleet_nvl.c).
 */
#ifndef PREFLIGHT_FLEET_NVL_H
#define PREFLIGHT_FLEET_NVL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

struct fl_nvl;

struct fl_nvl *fl_nvl_new(void);
void fl_nvl_free(struct fl_nvl *w);
/*
 * The nvlink_fabric findings of an accepted report's @checks, node @node
 * (its index) named @host: a node whose GPUs report a non-zero cluster UUID.
 */
void fl_nvl_add_report(struct fl_nvl *w, const cJSON *checks, size_t node, const char *host);
/* Group by cluster and find the odd nodes; @superseded[i]: node i is left out. */
void fl_nvl_finish(struct fl_nvl *w, const bool *superseded);
/* Whether any node reported a non-zero cluster UUID (the views show the section only then). */
bool fl_nvl_any(const struct fl_nvl *w);
/*
 * "nvlink_domains": {clusters: [{cluster_uuid, nodes, clique_id, clique_nodes}],
 * odd: [{node, cluster_uuid, clique_id, majority_clique, majority_nodes, cluster_nodes, why}]}.
 */
cJSON *fl_nvl_to_json(const struct fl_nvl *w);
/* The same as a text section. */
void fl_nvl_render_text(const struct fl_nvl *w, FILE *out);

#endif
