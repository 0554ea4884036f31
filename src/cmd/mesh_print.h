/* SPDX-License-Identifier: MIT */
/*
 * mesh_print.h - the listing `preflight mesh` prints of the exchanged rail
 * tables and the schedule (docs/mesh.md).
 */
#ifndef PREFLIGHT_MESH_PRINT_H
#define PREFLIGHT_MESH_PRINT_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "preflight/pairs.h"

/*
 * The rendezvous table @table (its "ranks") and the schedule @s, for a
 * person, on @f.  Every string in the table came from the network (a peer's
 * hello, rank 0's table): each is printed through pf_utf8_clean(), controls
 * escaped, so a host named ESC ] 52 ... BEL cannot drive the terminal.
 */
void pf_mesh_print(FILE *f, const cJSON *table, const struct pf_mesh_schedule *s);

#endif
