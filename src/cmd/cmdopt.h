/* SPDX-License-Identifier: MIT */
/*
 * cmdopt.h - the option loop every subcommand shares (git's parse-options
 * lesson, small).  A command declares one table of typed options, each with
 * its help text, and the loop, the values, the help listing and the wording
 * of every error come from it:
 *
 *	static const struct pf_option opts[] = {
 *		PF_OPT_CALLBACK(0, "format", &o->fmt, "FORMAT", "text (default) or json",
 *				parse_format),
 *		PF_OPT_UINT(0, "window", &ms, "MS", "the second sample after MS ms",
 *			    0, 600000, "milliseconds"),
 *		PF_OPT_FILE('o', "output", &o->output, "write it to FILE atomically"),
 *		PF_OPT_BOOL(0, "compact", &o->compact, "JSON on one line"),
 *		PF_OPT_HELP("this text"),
 *		PF_OPT_END,
 *	};
 *	struct pf_cmdopt c = { .cmd = "diff", .usage = diff_usage, .out = out, .err = err };
 *	(diff_usage(f, opts) prints its text around pf_cmdopt_print_options(opts, 20, f))
 *	int r = pf_cmdopt_parse(&c, opts, argc, argv);
 *
 *	if (r != PF_CMDOPT_END)
 *		return r == PF_CMDOPT_HELP ? 0 : PF_EXIT_USAGE;
 *	(optind is the first operand)
 *
 * Every error is "preflight CMD: ..." on err: "option '--x' needs a
 * value", "unknown option '--y' (see preflight CMD --help)", "--output:
 * empty file name", and for a number out of its bounds "--window: 'x' is
 * not a number of milliseconds (0..600000)" (or "bad --rank 'x'" when the
 * option names no unit).  --help is always understood; PF_OPT_HELP only
 * places it in the listing that pf_cmdopt_print_options() writes.
 *
 * The default run's table also validates the site configuration's keys
 * (pf_cmdopt_longopts()); its --version and --list-profiles end the parse
 * from a callback (PF_CMDOPT_STOP).
 */
#ifndef PREFLIGHT_CMDOPT_H
#define PREFLIGHT_CMDOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "preflight/macro.h"

struct pf_option;
struct pf_cmdopt {
	const char *cmd;               /* "fleet"; "" for the default run ("preflight: ") */
	/* --help prints it on @out with the table being parsed */
	void (*usage)(FILE *f, const struct pf_option *opts);
	FILE *out, *err;
	char **first_error;            /* NULL, or where the first message is kept (the
					* run's --drain reason); the caller frees it */
	/* the rest is pf_cmdopt_parse()'s state */
	const struct option *longopts; /* getopt's, from the table, "help" included */
	const char *shortopts;         /* getopt's, without the leading ':' */
	const struct pf_option *opts;  /* the table */
	int started;                   /* set by the first getopt call */
};

enum pf_option_type {
	PF_OPT_T_END,
	PF_OPT_T_BOOL,     /* no value: *(bool *)value = true */
	PF_OPT_T_STRING,   /* *(const char **)value = the argument */
	PF_OPT_T_FILE,     /* a STRING that may not be empty ("--output: empty file name") */
	PF_OPT_T_UINT,     /* *(unsigned long *)value: decimal digits only, in [min, max] */
	PF_OPT_T_CALLBACK, /* cb(c, option, argument) judges and stores it (argument NULL
			    * and none taken when the option has no argh) */
	PF_OPT_T_HELP,     /* --help's row in the listing */
};

struct pf_option {
	enum pf_option_type type;
	int short_name;          /* 'r' for -r, or 0 */
	const char *long_name;   /* "recursive" */
	void *value;             /* where the value goes (the callback's data) */
	const char *argh;        /* the value's name in the listing ("FILE"); NULL: none */
	const char *help;        /* the listing's text, later lines after '\n'; NULL: unlisted */
	unsigned long min, max;  /* UINT: the bounds */
	const char *unit;        /* UINT: what the number counts, for the error; NULL: terse */
	bool *given;             /* NULL, or set true when the option was given */
	/*
	 * CALLBACK: 0; 1 to end the parse there (PF_CMDOPT_STOP: --version did
	 * the command's work); or < 0 after saying why with pf_cmdopt_error()
	 */
	int (*cb)(struct pf_cmdopt *c, const struct pf_option *o, const char *arg);
};

#define PF_OPT_END { .type = PF_OPT_T_END }
#define PF_OPT_BOOL(s, l, v, h) \
	{ .type = PF_OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define PF_OPT_STRING(s, l, v, a, h)                                                    \
	{ .type = PF_OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v),   \
	  .argh = (a), .help = (h) }
#define PF_OPT_FILE(s, l, v, h)                                                         \
	{ .type = PF_OPT_T_FILE, .short_name = (s), .long_name = (l), .value = (v),     \
	  .argh = "FILE", .help = (h) }
#define PF_OPT_UINT(s, l, v, a, h, lo, hi, u)                                           \
	{ .type = PF_OPT_T_UINT, .short_name = (s), .long_name = (l), .value = (v),     \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi), .unit = (u) }
#define PF_OPT_CALLBACK(s, l, v, a, h, f)                                               \
	{ .type = PF_OPT_T_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .cb = (f) }
#define PF_OPT_HELP(h) { .type = PF_OPT_T_HELP, .long_name = "help", .help = (h) }

enum {
	PF_CMDOPT_OPTION, /* (inside cmdopt.c: the next option, optarg its value) */
	PF_CMDOPT_END,    /* no more options: optind is the first operand */
	PF_CMDOPT_HELP,   /* --help: usage printed on out; the command exits 0 */
	PF_CMDOPT_ERROR,  /* a missing value or an unknown option, said on err; exit 64 */
	PF_CMDOPT_STOP,   /* a callback ended the parse (pf_cmdopt_parse() only) */
};

/*
 * Parse @argv (argv[0] is the command's name) by the table @opts, storing
 * each value as its type says.  PF_CMDOPT_END with optind at the first
 * operand, PF_CMDOPT_HELP (usage printed on out), PF_CMDOPT_ERROR (said), or
 * PF_CMDOPT_STOP (a callback said so).
 */
int pf_cmdopt_parse(struct pf_cmdopt *c, const struct pf_option *opts, int argc, char **argv);
/*
 * The listing of @opts on @f: "  --name ARGH" (", -s" after a short name of
 * an option without a value) padded to @width columns, then its help, whose
 * later lines start at @width too.  Options without help are left out.
 */
void pf_cmdopt_print_options(const struct pf_option *opts, int width, FILE *f);
/* getopt_long's table of @opts, "help" included (the site configuration reads it); free() it. */
struct option *pf_cmdopt_longopts(const struct pf_option *opts);
/* A decimal number in [min, max] (digits only: no sign, blank or base prefix). */
bool pf_cmdopt_uint(const char *s, unsigned long min, unsigned long max, unsigned long *ret);
/*
 * Whether @argv (argv[0] a name) holds the long option @name ("--output"),
 * alone or as "--output=...", before any "--": the decision some callers
 * make before or after parsing (main.c's closed stdout, the run's --drain).
 */
bool pf_cmdopt_has(int argc, char **argv, const char *name);
/* "preflight CMD: MSG" on err; returns PF_EXIT_USAGE (64). */
int pf_cmdopt_error(const struct pf_cmdopt *c, const char *fmt, ...) PF_PRINTF(2, 3);

#endif
