// SPDX-License-Identifier: MIT
/*
 * cmdopt.c - the shared option loop of the subcommands and their typed
 * option tables (cmdopt.h).
 */
#include <ctype.h>
#include <errno.h>
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

/* The next option of @argv (the command's own argv: argv[0] is its name). */
static int cmdopt_next(struct pf_cmdopt *c, int argc, char **argv, int *ret_opt)
{
	char spec[64];
	int idx = -1, opt;

	if (!c->started) {
		c->started = 1;
		opterr = 0;
		optind = 0; /* glibc: start over, forgetting a half-read "-xy" of an earlier parse */
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
		c->usage(c->out, c->opts);
		return PF_CMDOPT_HELP;
	}
	*ret_opt = opt;
	return PF_CMDOPT_OPTION;
}

bool pf_cmdopt_uint(const char *s, unsigned long min, unsigned long max, unsigned long *ret)
{
	unsigned long v;
	char *end;

	if (!s)
		return false;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*ret = v;
	return true;
}

bool pf_cmdopt_has(int argc, char **argv, const char *name)
{
	size_t l = strlen(name);

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], name, l) && (!argv[i][l] || argv[i][l] == '='))
			return true;
	return false;
}

/* Whether @o takes a value. */
static bool takes_arg(const struct pf_option *o)
{
	return o->type == PF_OPT_T_STRING || o->type == PF_OPT_T_FILE ||
	       o->type == PF_OPT_T_UINT || (o->type == PF_OPT_T_CALLBACK && o->argh);
}

/* Store the value of @o from @arg (NULL without one); 0, 1 (stop) or -1 after saying why. */
static int take(struct pf_cmdopt *c, const struct pf_option *o, const char *arg)
{
	unsigned long v;
	int r;

	switch (o->type) {
	case PF_OPT_T_BOOL:
		*(bool *)o->value = true;
		break;
	case PF_OPT_T_FILE:
		if (!*arg) {
			pf_cmdopt_error(c, "--%s: empty file name", o->long_name);
			return -1;
		}
		*(const char **)o->value = arg;
		break;
	case PF_OPT_T_STRING:
		*(const char **)o->value = arg;
		break;
	case PF_OPT_T_UINT:
		if (!pf_cmdopt_uint(arg, o->min, o->max, &v)) {
			if (o->unit)
				pf_cmdopt_error(c, "--%s: '%s' is not a number of %s (%lu..%lu)",
						o->long_name, arg, o->unit, o->min, o->max);
			else
				pf_cmdopt_error(c, "bad --%s '%s'", o->long_name, arg);
			return -1;
		}
		*(unsigned long *)o->value = v;
		break;
	case PF_OPT_T_CALLBACK:
		r = o->cb(c, o, arg);
		if (r < 0)
			return -1;
		if (r > 0) {
			if (o->given)
				*o->given = true;
			return 1;
		}
		break;
	case PF_OPT_T_END:
	case PF_OPT_T_HELP:
		break;
	}
	if (o->given)
		*o->given = true;
	return 0;
}

/* Where getopt_long reports option @i of the table: past every character. */
#define PF_CMDOPT_VAL(i) (256 + (int)(i))

struct option *pf_cmdopt_longopts(const struct pf_option *opts)
{
	struct option *lo;
	size_t n = 0;
	bool has_help = false;

	for (const struct pf_option *o = opts; o->type != PF_OPT_T_END; o++)
		n++;
	lo = pf_xcalloc(n + 2, sizeof(*lo));
	for (size_t i = 0; i < n; i++) {
		const struct pf_option *o = &opts[i];

		PF_BUG_ON(!o->long_name || !o->value == (o->type != PF_OPT_T_HELP));
		PF_BUG_ON(o->type == PF_OPT_T_CALLBACK && !o->cb);
		lo[i] = (struct option){ o->long_name, takes_arg(o) ? required_argument : no_argument,
					 NULL, PF_CMDOPT_VAL(i) };
		has_help |= o->type == PF_OPT_T_HELP;
	}
	if (!has_help)
		lo[n] = (struct option){ "help", no_argument, NULL, PF_CMDOPT_VAL(n) };
	return lo;
}

int pf_cmdopt_parse(struct pf_cmdopt *c, const struct pf_option *opts, int argc, char **argv)
{
	pf_autofree struct option *lo = pf_cmdopt_longopts(opts);
	char shorts[64] = "";
	size_t n = 0, ns = 0;
	int opt, r, t;

	for (const struct pf_option *o = opts; o->type != PF_OPT_T_END; o++, n++) {
		if (!o->short_name)
			continue;
		PF_BUG_ON(ns + 3 >= sizeof(shorts));
		shorts[ns++] = (char)o->short_name;
		if (takes_arg(o))
			shorts[ns++] = ':';
	}
	c->longopts = lo;
	c->shortopts = shorts;
	c->opts = opts;
	c->started = 0;
	while ((r = cmdopt_next(c, argc, argv, &opt)) == PF_CMDOPT_OPTION) {
		const struct pf_option *o = NULL;

		for (size_t i = 0; i < n && !o; i++)
			if (opt == PF_CMDOPT_VAL(i) || (opts[i].short_name && opt == opts[i].short_name))
				o = &opts[i];
		PF_BUG_ON(!o); /* getopt returns only what the table gave it */
		t = take(c, o, takes_arg(o) ? optarg : NULL);
		if (t != 0) {
			r = t < 0 ? PF_CMDOPT_ERROR : PF_CMDOPT_STOP;
			break;
		}
	}
	c->longopts = NULL;
	c->shortopts = NULL;
	c->opts = NULL;
	return r;
}

void pf_cmdopt_print_options(const struct pf_option *opts, int width, FILE *f)
{
	for (const struct pf_option *o = opts; o->type != PF_OPT_T_END; o++) {
		const char *h = o->help, *nl;
		int w;

		if (!h)
			continue;
		w = fprintf(f, "  --%s", o->long_name);
		if (o->argh)
			w += fprintf(f, " %s", o->argh);
		else if (o->short_name)
			w += fprintf(f, ", -%c", o->short_name);
		for (;; h = nl + 1) {
			nl = strchr(h, '\n');
			fprintf(f, "%*s%.*s\n", w < width ? width - w : 1, "",
				nl ? (int)(nl - h) : (int)strlen(h), h);
			if (!nl)
				break;
			w = 0;
		}
	}
}
