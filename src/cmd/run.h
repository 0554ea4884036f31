/* SPDX-License-Identifier: MIT */
/*
 * run.h - the default command, `preflight [options]`: the run (src/cmd/run.c),
 * its options (src/cmd/run_opts.c) and the printers that run nothing
 * (src/cmd/printers.c: --list, --describe, --check-config).
 */
#ifndef PREFLIGHT_RUN_H
#define PREFLIGHT_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "profile.h"
#include "report.h"
#include "runner.h"
#include "siteconf.h"
#include "slurm.h"

struct pf_fs;
struct pf_node;

/* Where --confirm keeps its per-boot counts (src/runner/counts.c). */
#define PF_STATE_DIR_DEFAULT "/var/lib/preflight"

struct pf_opts {
	const char *only;
	const char *skip;
	const char *format;
	const char *output;
	const char *root;
	const char *profile;
	const char *describe;
	const char *topology; /* --topology: lstopo XML instead of sysfs */
	bool no_root; /* --topology without --root: no files are read, none live */
	bool list;
	bool list_codes;
	bool all;     /* --all: every check, the traffic checks included */
	bool compact; /* --compact: JSON on one line */
	unsigned long line_max; /* --line-max: --format line's bytes a line; 0: the default */
	unsigned long confirm;  /* --confirm N: re-runs of a failing static check; 0: none */
	const char *state_dir;  /* --state-dir: --confirm's counts state; NULL: the default */
	bool check_config; /* --check-config: validate and print the effective options, run nothing */
	const struct pf_siteconf *site; /* NULL with --no-config */
	int n_site_args;     /* argv[1..n_site_args] came from the site config (site_argv) */
	size_t n_site_sets;  /* prof.sets[0..n_site_sets) came from the site config */
	const char *output_template; /* --output before %n/%j were expanded */
	char *output_buf;
	const char *site_path;
	bool capture; /* `preflight profile capture`: print a profile instead of the report */
	bool slurm; /* --slurm, or implied by --drain/--undrain or Slurm's environment */
	bool stdout_closed; /* started with fd 1 closed: now /dev/null, not a place for a report */
	struct pf_slurm_opts slurm_opts;
	struct pf_runner_opts runner;
	struct pf_profile prof;
	/*
	 * Where the finished run goes: the report (written, then judged into the
	 * exit code, under Slurm the gate) or, for `profile capture`, a profile.
	 */
	int (*sink)(struct pf_opts *o, struct pf_report *report, const struct pf_node *node,
		    enum pf_format fmt);
};

/* `preflight [options]`: run the checks and write the report; the exit code. */
int pf_run_main(int argc, char **argv, bool stdout_closed);
/* `preflight profile capture [options]`: the same run, a profile out (argv[0] "profile"). */
int pf_profile_main(int argc, char **argv, bool stdout_closed);

/* src/cmd/run_opts.c */
/*
 * The site configuration's options, then the command line's, into @o.  0,
 * -1 when the command ends with exit 0 (--help, --version), or a usage error's
 * exit code (said on stderr).  (*ret_site_args)[1..*ret_n_owned] are the
 * caller's to free.
 */
int pf_run_options(struct pf_opts *o, struct pf_siteconf *site, int *argc, char ***argv,
		   char ***ret_site_args, int *ret_n_owned);
/*
 * Read the site configuration at @path (pf_siteconf_load), its keys checked
 * against the main command's options; `mesh` reads its rails.* settings.
 */
int pf_run_site_load(struct pf_siteconf *sc, const char *path, char **ret_err);
/* The first usage error said (the --drain reason), or NULL; and forgetting it. */
const char *pf_run_first_error(void);
void pf_run_forget_errors(void);
/* Print "preflight: MSG" on stderr (the first one is kept for --drain); 64. */
int pf_usage_error(const char *fmt, ...) PF_PRINTF(1, 2);
/* Whether @c runs with these options; and when not, why (*ret_why, may be NULL). */
bool pf_run_selected(const struct pf_opts *o, const struct pf_check *c);
bool pf_run_selected_why(const struct pf_opts *o, const struct pf_check *c, const char **ret_why);
/*
 * What the arguments and the profile decide, checked before anything runs:
 * the format, the profile, drain_on, a non-empty selection, the root (*ret_fs)
 * and the output path.  0, or 64 with the message printed.
 */
int pf_run_load_config(struct pf_opts *o, enum pf_format *ret_fmt, struct pf_fs **ret_fs);

void pf_print_profile_help(FILE *out);
void pf_print_capture_help(FILE *out);

/* src/cmd/printers.c */
void pf_list_checks(void);
/* Every check's code table as docs/codes.md holds it (--list-codes). */
void pf_list_codes(void);
int pf_describe_check(const char *name);
/* --check-config: validate, then print the effective options; 0 or 64. */
int pf_check_config(struct pf_opts *o);

#endif
