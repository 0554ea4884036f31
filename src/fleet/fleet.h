/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - many nodes' reports in one view, the library under `preflight
 * fleet` (src/cmd/fleet.c parses the options and calls it).
 *
 * Reads preflight.report/v1 documents, keeps a compact record per node (the
 * latest report of each hostname wins), and derives: the nodes whose verdict
 * is fail or error with their failing checks, the per-check status counts,
 * outliers against the fleet median for numeric bandwidth-like
 * observations, the mesh view (fleet_mesh.h) and the wiring view: the
 * nodes whose rail i plugs in away from the others' rail i
 * (fleet_wiring.h).  Output schema preflight.fleet/v1 is documented in
 * docs/fleet.md.  Everything is hash- or sort-based: linear in the number of
 * reports up to an n log n sort.
 */
#ifndef PREFLIGHT_FLEET_H
#define PREFLIGHT_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#define PF_FLEET_SCHEMA "preflight.fleet/v1"
#define PF_FLEET_OUTLIER_FRACTION 0.9
/* Largest report file read (a report is tens of KiB). */
#define PF_FLEET_MAX_REPORT (64u << 20)
/* A (check, key) series is judged only when this many nodes report it. */
#define PF_FLEET_MIN_SERIES 3

enum pf_fleet_format {
	PF_FLEET_TEXT,
	PF_FLEET_JSON,
	PF_FLEET_CSV,
};

struct pf_fleet;

/* A new, empty fleet; nodes below @outlier_fraction x median are outliers. */
struct pf_fleet *pf_fleet_new(double outlier_fraction);
struct pf_fleet *pf_fleet_free(struct pf_fleet *f);

/*
 * Add one report.  @origin names it (a file path) in messages and output.
 * Returns 0, or -EINVAL with *ret_err (caller frees) when the text is not a
 * preflight.report/v1 document; the rejection is counted and listed.
 */
int pf_fleet_add_report(struct pf_fleet *f, const char *text, size_t len, const char *origin,
			char **ret_err);
/*
 * Read (through the file API, root "/") and add a file; -errno or -EINVAL
 * with *ret_err; failures are counted.
 */
int pf_fleet_add_file(struct pf_fleet *f, const char *path, char **ret_err);
/*
 * Read and add @rel, a file found under the directory @dir (fleet_read.c):
 * opened beneath @dir's fd with no symlink followed, only a regular file,
 * and as root only one of root's or of @dir's owner with one hard link.
 * @origin names it.  0, or -errno / -EINVAL with *ret_err; failures are counted.
 */
int pf_fleet_add_file_in(struct pf_fleet *f, const char *dir, const char *rel,
			 const char *origin, char **ret_err);

/*
 * The *.json files in @dir (no hidden files or directories), as "dir/name",
 * sorted by name; with @recursive, also those in its subdirectories
 * (depth-first, symlinked directories not followed).  Returns the count
 * (*ret_paths is NULL-terminated, freed with pf_strv_free()), -ENOTDIR when
 * @dir is a file, or -errno.  *ret_subdirs (may be NULL) counts @dir's own
 * subdirectories, for the hint that --recursive exists.
 */
int pf_fleet_list_dir(const char *dir, bool recursive, char ***ret_paths, size_t *ret_subdirs);

/* The JSON view on one line instead of indented like jq. */
void pf_fleet_set_compact(struct pf_fleet *f, bool compact);
/* Derive the view; call once after the last add. */
void pf_fleet_finish(struct pf_fleet *f);

/* Nodes (after de-duplication) whose verdict is fail or error. */
size_t pf_fleet_n_failing(const struct pf_fleet *f);
/* Reports accepted, and inputs rejected. */
size_t pf_fleet_n_reports(const struct pf_fleet *f);
size_t pf_fleet_n_rejected(const struct pf_fleet *f);

/* The mesh view's slow fraction, 0 < @fraction < 1 (default PF_MESH_SLOW_FRACTION). */
void pf_fleet_set_mesh_fraction(struct pf_fleet *f, double fraction);
/* Suspects of the mesh view (reports of `preflight mesh`), 0 without. */
size_t pf_fleet_n_mesh_suspects(const struct pf_fleet *f);
/* Nodes with a miswired rail (docs/rails.md "Wiring"), 0 without. */
size_t pf_fleet_n_miswired(const struct pf_fleet *f);
/* One line on @err per report whose rail table was refused. */
void pf_fleet_wiring_errors(const struct pf_fleet *f, FILE *err);
/* One line on @err per mesh report whose observations were ignored. */
void pf_fleet_mesh_errors(const struct pf_fleet *f, FILE *err);
/*
 * --drain-suspects: the scontrol commands (printed, never run) for the mesh's
 * suspects and the miswired nodes; 0 or -EIO.
 */
int pf_fleet_render_drain(const struct pf_fleet *f, FILE *out);

/* The finished view as a preflight.fleet/v1 object (caller deletes). */
cJSON *pf_fleet_to_json(const struct pf_fleet *f);
int pf_fleet_format_from_name(const char *name, enum pf_fleet_format *ret);
/* Write the view; 0 or -errno from the stream. */
int pf_fleet_render(const struct pf_fleet *f, enum pf_fleet_format fmt, FILE *out);

/* True for observed keys that the outlier rule looks at (see docs/fleet.md). */
bool pf_fleet_key_is_rate(const char *key);
/* Median of @v[0..n) (reorders @v); NAN when n is 0. */
double pf_median(double *v, size_t n);
/*
 * Write @s as one CSV field (RFC 4180: quoted when it holds , " CR or LF);
 * a cell that a spreadsheet would run as a formula (it begins with = + - @,
 * a tab or CR and is not a plain number) is quoted with a leading apostrophe.
 */
void pf_csv_field(FILE *out, const char *s);

#endif
