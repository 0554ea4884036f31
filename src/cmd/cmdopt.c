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

int pf_cmdopt_next(struct pf_cmdopt *c, int argc, char **argv, int *ret_opt)
{
	char spec[64];
	int idx = -1, opt;

	if (!c->started) {
		c->started = 1;
		opterr = 0;
		optind = 1;
	}
	snprintf(spec, sizeof(spec), ":%s", c->shortopts ? c->shortopts : "");
	opt = getopt_long(argc, argv, spec, c->longopts, &idx);
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
