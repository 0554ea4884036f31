/* SPDX-License-Identifier: MIT */
/*
 * mesh.h - `preflight mesh` (src/cmd/mesh.c, docs/mesh.md): rendezvous of
 * the ranks of an allocation and the schedule of node pairs.  The data path
 * (traffic between pairs) is not wired yet: the report says so as a skip.
 */
#ifndef PREFLIGHT_MESH_H
#define PREFLIGHT_MESH_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "mesh_plan.h"
#include "mesh_rdv.h"

struct pf_fs;
struct pf_node;

int pf_mesh_main(int argc, char **argv, FILE *out, FILE *err);
/* This node's rail table, a JSON array (src/cmd/mesh_rails.c). */
cJSON *pf_mesh_rails(const struct pf_fs *fs, const struct pf_node *node);

#endif
