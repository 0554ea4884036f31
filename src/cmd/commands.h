/* SPDX-License-Identifier: MIT */
/*
 * commands.h - the front ends of the subcommands (main.c's command table):
 * each parses its own arguments (argv[0] is the command's name), calls its
 * library (src/mesh, src/fleet, src/diff, src/facts's snapshot writer),
 * writes to @out and diagnostics to @err, and returns the exit status.
 */
#ifndef PREFLIGHT_COMMANDS_H
#define PREFLIGHT_COMMANDS_H

#include <stdio.h>

/* `preflight mesh` (mesh.c, docs/mesh.md): 0, 1 fail, 2 error, 64 usage, 74 output. */
int pf_mesh_main(int argc, char **argv, FILE *out, FILE *err);
/* `preflight fleet` (fleet.c, docs/fleet.md): 0 no failing node, 1 some, 64 usage. */
int pf_fleet_main(int argc, char **argv, FILE *out, FILE *err);

/*
 * `preflight diff` (diff.c, docs/diff.md): 0 nothing got worse, 1 something
 * did, 64 usage or an input that is not a report, 74 output not written.
 */
int pf_diff_main(int argc, char **argv, FILE *out, FILE *err);
/*
 * `preflight snapshot [--root SRC] [--window MS] DIR` (snapshot.c,
 * docs/snapshot.md): 0 written, 64 usage, 73 DIR cannot be created or
 * written; a summary line on @err.
 */
int pf_snapshot_main(int argc, char **argv, FILE *out, FILE *err);

#endif
