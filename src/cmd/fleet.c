// SPDX-License-Identifier: MIT
/*
 * fleet.c - `preflight fleet`: many nodes' reports in one view.
 *
 * The command's front end: it parses the command's arguments, feeds the
 * reports to the model (src/fleet/fleet_model.c) and writes a view
 * (src/fleet/fleet_views.c)
 * to the streams main() hands it.
 */
#include <getopt.h>
#include <string.h>

#include "cmdopt.h"
#include "commands.h"
#include "exit.h"
#include "fleet.h"
#include "preflight/pairs.h"
#include "output.h"
#include "preflight/fs.h"

PF_DEFINE_AUTO(fleet_free, struct pf_fleet *, pf_fleet_free)

static void fleet_usage(FILE *out, const struct pf_option *opts)
{
	fputs("usage: preflight fleet [--format text|json|csv] [--outlier-fraction F]\n"
	      "                       [--recursive] [--output FILE] [--compact]\n"
	      "                       [--drain-suspects] [--mesh-slow-fraction F]\n"
	      "                       REPORT.json|DIR...\n"
	      "\n"
	      "One view of many nodes' reports: failing nodes, counts per check, and nodes\n"
	      "below F (default 0.9) x the fleet median of a bandwidth-like observation\n"
	      "(judged when at least 3 nodes report it).  Reports of `preflight mesh` add the\n"
	      "mesh view: the merged pairwise matrix triangulated into ranked suspects.\n"
	      "The reports' rail tables give the wiring view: a node whose rail i sits\n"
	      "where the others' rail j does is miswired.\n"
	      "\n",
	      out);
	pf_cmdopt_print_options(opts, 26, out);
	fputs("\n"
	      "Exit status: 0 no failing node, 1 a node failed or errored, the mesh has\n"
	      "suspects or a node is miswired, 64 usage,\n"
	      "74 the view could not be written.\n",
	      out);
}

/* Add every report under one command-line argument; -errno for a path that cannot be opened. */
static int add_arg(struct pf_fleet *f, const char *arg, bool recursive, FILE *err)
{
	pf_autostrv char **paths = NULL;
	size_t subdirs = 0, skip, before = pf_fleet_n_reports(f) + pf_fleet_n_rejected(f);
	int r;

	r = pf_fleet_list_dir(arg, recursive, &paths, &subdirs);
	if (r < 0 && r != -ENOTDIR) {
		fprintf(err, "preflight fleet: cannot open '%s': %s\n", arg, strerror(-r));
		return r;
	}
	if (r == -ENOTDIR) {
		pf_autofree char *why = NULL;

		if (pf_fleet_add_file(f, arg, &why) < 0)
			fprintf(err, "preflight fleet: skipping '%s': %s\n", arg, why);
		return 0;
	}
	/* the listing's paths are "ARG/REL" (ARG's own trailing '/' kept) */
	skip = strlen(arg) + (arg[0] && arg[strlen(arg) - 1] == '/' ? 0 : 1);
	for (char **p = paths; *p; p++) {
		pf_autofree char *why = NULL;

		if (pf_fleet_add_file_in(f, arg, *p + skip, *p, &why) < 0)
			fprintf(err, "preflight fleet: skipping '%s': %s\n", *p, why);
	}
	if (!recursive && subdirs && pf_fleet_n_reports(f) + pf_fleet_n_rejected(f) == before)
		fprintf(err, "preflight fleet: '%s' holds no *.json file but %zu "
			     "subdirector%s: use --recursive to read them\n",
			arg, subdirs, subdirs == 1 ? "y" : "ies");
	return 0;
}

/* Render the view into memory and write it to @path through pf_output_write(). */
static int render(const struct pf_fleet *f, enum pf_fleet_format fmt, bool drain, FILE *out)
{
	return drain ? pf_fleet_render_drain(f, out) : pf_fleet_render(f, fmt, out);
}

static int render_to_file(const struct pf_fleet *f, enum pf_fleet_format fmt, bool drain,
			  const char *path, char **ret_err)
{
	pf_autofree char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	if (!mem)
		return -errno;
	r = render(f, fmt, drain, mem);
	if (fclose(mem) == EOF && r == 0)
		r = -errno;
	if (r < 0)
		return r;
	return pf_output_write(path, buf, len, ret_err);
}

/* The command's options. */
struct fleet_opts {
	enum pf_fleet_format fmt;
	double fraction, mesh_fraction;
	const char *output;
	bool recursive, compact, drain;
};

/* A fraction in (0, 1], or (0, 1) without @one, into *opt->value; 0 or -EINVAL (said). */
static int parse_fraction(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg,
			  bool one)
{
	double *ret = opt->value;
	char *end;

	errno = 0;
	*ret = strtod(arg, &end);
	if (errno || end == arg || *end || !(*ret > 0 && (one ? *ret <= 1 : *ret < 1))) {
		pf_cmdopt_error(c, "--%s: '%s' is not a number in (0, 1%c", opt->long_name, arg,
				one ? ']' : ')');
		return -EINVAL;
	}
	return 0;
}

static int fraction_upto_one(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	return parse_fraction(c, opt, arg, true);
}

static int fraction_below_one(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	return parse_fraction(c, opt, arg, false);
}

/* --format text|json|csv. */
static int parse_format(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	if (pf_fleet_format_from_name(arg, opt->value) < 0) {
		pf_cmdopt_error(c, "--format: unknown format '%s' (text, json or csv)", arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Parse the options into @o; false when the command ends here (--help, a
 * usage error, no report argument) with *ret_exit its exit code.
 */
static bool parse_options(int argc, char **argv, struct fleet_opts *o, FILE *out, FILE *err,
			  int *ret_exit)
{
	const struct pf_option opts[] = {
		PF_OPT_CALLBACK(0, "format", &o->fmt, "FORMAT", "text (default), json or csv",
				parse_format),
		PF_OPT_CALLBACK(0, "outlier-fraction", &o->fraction, "F",
				"outlier threshold, 0 < F <= 1 (default 0.9)", fraction_upto_one),
		PF_OPT_BOOL('r', "recursive", &o->recursive,
			    "also read *.json in the subdirectories of each DIR\n"
			    "(by default only the files directly in it)"),
		PF_OPT_FILE(0, "output", &o->output, "write the view to FILE atomically"),
		PF_OPT_BOOL(0, "compact", &o->compact,
			    "the JSON view on one line (default: indented like jq)"),
		PF_OPT_BOOL(0, "drain-suspects", &o->drain,
			    "instead of the view, print (never run) the scontrol\n"
			    "commands that drain the mesh's node and rail\n"
			    "suspects and missing ranks, and miswired nodes;\n"
			    "only a plain name that is a report's own host"),
		PF_OPT_CALLBACK(0, "mesh-slow-fraction", &o->mesh_fraction, "F",
				"a mesh measurement below F x the run's healthy\n"
				"median is slow, 0 < F < 1 (default 0.7)", fraction_below_one),
		PF_OPT_HELP("this text"),
		PF_OPT_END,
	};
	struct pf_cmdopt cmd = { .cmd = "fleet", .usage = fleet_usage, .out = out, .err = err };
	int r = pf_cmdopt_parse(&cmd, opts, argc, argv);

	*ret_exit = PF_EXIT_USAGE;
	if (r != PF_CMDOPT_END) {
		*ret_exit = r == PF_CMDOPT_HELP ? 0 : PF_EXIT_USAGE;
		return false;
	}
	if (optind >= argc) {
		fleet_usage(err, opts);
		return false;
	}
	return true;
}

/* 1 when a node fails, the mesh has suspects or a node is miswired. */
static int fleet_exit(const struct pf_fleet *f)
{
	return pf_fleet_n_failing(f) || pf_fleet_n_mesh_suspects(f) || pf_fleet_n_miswired(f);
}

/* Write the view to --output or @out; the exit code (1 when a node fails). */
static int write_view(const struct pf_fleet *f, const struct fleet_opts *o, FILE *out, FILE *err)
{
	pf_autofree char *why = NULL;
	int r;

	if (o->output) {
		r = render_to_file(f, o->fmt, o->drain, o->output, &why);
		if (r < 0) {
			fprintf(err, "preflight fleet: cannot write '%s': %s\n", o->output,
				why ? why : strerror(-r));
			return PF_EXIT_IOERR;
		}
		return fleet_exit(f);
	}
	r = render(f, o->fmt, o->drain, out);
	if (r == 0 && fflush(out) == EOF)
		r = -errno;
	if (r < 0) {
		fprintf(err, "preflight fleet: cannot write the view: %s\n", strerror(-r));
		return PF_EXIT_IOERR;
	}
	return fleet_exit(f);
}

int pf_fleet_main(int argc, char **argv, FILE *out, FILE *err)
{
	PF_CLEANUP(pf_fleet_freep) struct pf_fleet *f = NULL;
	struct fleet_opts o = { .fmt = PF_FLEET_TEXT, .fraction = PF_FLEET_OUTLIER_FRACTION,
				.mesh_fraction = PF_MESH_SLOW_FRACTION };
	int rc;

	if (!parse_options(argc, argv, &o, out, err, &rc))
		return rc;
	f = pf_fleet_new(o.fraction);
	pf_fleet_set_compact(f, o.compact);
	pf_fleet_set_mesh_fraction(f, o.mesh_fraction);
	for (int i = optind; i < argc; i++)
		if (add_arg(f, argv[i], o.recursive, err) < 0)
			return PF_EXIT_USAGE;
	if (!pf_fleet_n_reports(f)) {
		fprintf(err, "preflight fleet: no preflight.report/v1 reports found "
			     "(%zu file%s rejected)\n", pf_fleet_n_rejected(f),
			pf_fleet_n_rejected(f) == 1 ? "" : "s");
		return PF_EXIT_USAGE;
	}
	if (pf_fleet_n_rejected(f))
		fprintf(err, "preflight fleet: %zu file%s rejected\n", pf_fleet_n_rejected(f),
			pf_fleet_n_rejected(f) == 1 ? "" : "s");
	pf_fleet_finish(f);
	pf_fleet_mesh_errors(f, err);
	pf_fleet_wiring_errors(f, err);
	return write_view(f, &o, out, err);
}
