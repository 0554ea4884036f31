/* SPDX-License-Identifier: MIT */
/*
 * cmdopt.h - the option loop every subcommand shares (git's parse-options
 * lesson, small): getopt_long with its errors said one way, "preflight CMD:
 * option '--x' needs a value", "preflight CMD: unknown option '--y' (see
 * preflight CMD --help)", and --help handled.  A command keeps its own table
 * and its own switch for what its options mean:
 *
 *	struct pf_cmdopt c = { "diff", longopts, "", diff_usage, out, err };
 *	int opt, r;
 *
 *	while ((r = pf_cmdopt_next(&c, argc, argv, &opt)) == PF_CMDOPT_OPTION)
 *		switch (opt) { ... return pf_cmdopt_error(&c, "--format: ..."); }
 *	if (r != PF_CMDOPT_END)
 *		return r == PF_CMDOPT_HELP ? 0 : PF_EXIT_USAGE;
 *	(optind is the first operand)
 */
#ifndef PREFLIGHT_CMDOPT_H
#define PREFLIGHT_CMDOPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "preflight/macro.h"

struct pf_cmdopt {
	const char *cmd;               /* "fleet"; "" for the default run ("preflight: ") */
	const struct option *longopts; /* must hold { "help", no_argument, ... } */
	const char *shortopts;         /* getopt's, without the leading ':' */
	void (*usage)(FILE *f);        /* --help prints it on @out */
	FILE *out, *err;
	char **first_error;            /* NULL, or where the first message is kept (the
					* run's --drain reason); the caller frees it */
	/*
	 * The options every writing command shares, taken here when set: the
	 * option named "output" (a file name, never empty) and "compact".
	 */
	const char **output;
	bool *compact;
	int started;                   /* set by the first pf_cmdopt_next() */
};

enum {
	PF_CMDOPT_OPTION, /* *ret_opt holds the next option, optarg its value */
	PF_CMDOPT_END,    /* no more options: optind is the first operand */
	PF_CMDOPT_HELP,   /* --help: usage printed on out; the command exits 0 */
	PF_CMDOPT_ERROR,  /* a missing value or an unknown option, said on err; exit 64 */
};

/* The next option of @argv (the command's own argv: argv[0] is its name). */
int pf_cmdopt_next(struct pf_cmdopt *c, int argc, char **argv, int *ret_opt);
/* "preflight CMD: MSG" on err; returns PF_EXIT_USAGE (64). */
int pf_cmdopt_error(const struct pf_cmdopt *c, const char *fmt, ...) PF_PRINTF(2, 3);

#endif
