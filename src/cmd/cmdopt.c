// SPDX-License-Identifier: MIT
/*
 * cmdopt.c - the shared option loop of the subcommands (cmdopt.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdopt.h"
#include "exit.h"

static void prefix(const struct pf_cmdopt *c, FILE *f)
{
	fprintf(f, "preflight%s%s: ", *c->cmd ? " " : "", c->cmd);
}

int pf_cmdopt_error(const struct pf_cmdopt *c, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	prefix(c, c->err);
	fprintf(c->err, "%s\n", msg ? msg : fmt);
	if (c->first_error && !*c->first_error)
		*c->first_error = msg;
	else
		free(msg);
	return PF_EXIT_USAGE;
}

/* The value getopt returns for the long option @name, or -1 (none). */
static int val_of(const struct pf_cmdopt *c, const char *name)
{
	for (const struct option *o = c->longopts; o && o->name; o++)
		if (!strcmp(o->name, name))
			return o->val;
	return -1;
}

/* --output and --compact when the command asked for them; 1 taken, 0 not, -1 an error. */
static int shared_option(struct pf_cmdopt *c, int opt)
{
	if (c->output && opt == val_of(c, "output")) {
		if (!*optarg) {
			pf_cmdopt_error(c, "--output: empty file name");
			return -1;
		}
		*c->output = optarg;
		return 1;
	}
	if (c->compact && opt == val_of(c, "compact")) {
		*c->compact = true;
		return 1;
	}
	return 0;
}

int pf_cmdopt_next(struct pf_cmdopt *c, int argc, char **argv, int *ret_opt)
{
	char spec[64];
	int idx = -1, opt, shared;

	if (!c->started) {
		c->started = 1;
		opterr = 0;
		optind = 1;
	}
	snprintf(spec, sizeof(spec), ":%s", c->shortopts ? c->shortopts : "");
	do {
		idx = -1;
		opt = getopt_long(argc, argv, spec, c->longopts, &idx);
		shared = opt == -1 || opt == ':' || opt == '?' ? 0 : shared_option(c, opt);
	} while (shared == 1);
	if (shared < 0)
		return PF_CMDOPT_ERROR;
	if (opt == -1)
		return PF_CMDOPT_END;
	if (opt == ':') {
		pf_cmdopt_error(c, "option '%s' needs a value", argv[optind - 1]);
		return PF_CMDOPT_ERROR;
	}
	if (opt == '?') {
		pf_cmdopt_error(c, "unknown option '%s' (see preflight%s%s --help)",
				argv[optind - 1], *c->cmd ? " " : "", c->cmd);
		return PF_CMDOPT_ERROR;
	}
	if (idx >= 0 && !strcmp(c->longopts[idx].name, "help")) {
		c->usage(c->out);
		return PF_CMDOPT_HELP;
	}
	*ret_opt = opt;
	return PF_CMDOPT_OPTION;
}
