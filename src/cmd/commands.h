/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the front ends of the multi-node commands (main.c's command
 * table): each parses its own arguments (argv[0] is the command's name),
 * calls its library (src/mesh, src/fleet), writes to @out and diagnostics
 * to @err, and returns the exit status.
 */
#ifndef PREFLIGHT_COMMANDS_H
#define PREFLIGHT_COMMANDS_H

#include <stdio.h>

/* `preflight mesh` (mesh.c, docs/mesh.md): 0, 1 fail, 2 error, 64 usage, 74 output. */
int pf_mesh_main(int argc, char **argv, FILE *out, FILE *err);
/* `preflight fleet` (fleet.c, docs/fleet.md): 0 no failing node, 1 some, 64 usage. */
int pf_fleet_main(int argc, char **argv, FILE *out, FILE *err);

#endif
