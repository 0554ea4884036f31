// SPDX-License-Identifier: MIT
/*
 * fleet.c - `preflight fleet`: many nodes' reports in one view.
 *
 * The command's front end: it parses the command's arguments, feeds the
 * reports to the model (fleet_model.c) and writes a view (fleet_views.c)
 * to the streams main() hands it.
 */
#include <getopt.h>
#include <string.h>

#include "exit.h"
#include "fleet.h"
#include "output.h"
#include "preflight/fs.h"

PF_DEFINE_AUTO(fleet_free, struct pf_fleet *, pf_fleet_free)

static void fleet_usage(FILE *out)
{
	fputs("usage: preflight fleet [--format text|json|csv] [--outlier-fraction F]\n"
	      "                       [--recursive] [--output FILE] [--compact]\n"
	      "                       REPORT.json|DIR...\n"
	      "\n"
	      "One view of many nodes' reports: failing nodes, counts per check, and nodes\n"
	      "below F (default 0.9) x the fleet median of a bandwidth-like observation\n"
	      "(judged when at least 3 nodes report it).\n"
	      "\n"
	      "  --format FORMAT         text (default), json or csv\n"
	      "  --outlier-fraction F    outlier threshold, 0 < F <= 1 (default 0.9)\n"
	      "  --recursive, -r         also read *.json in the subdirectories of each DIR\n"
	      "                          (by default only the files directly in it)\n"
	      "  --output FILE           write the view to FILE atomically\n"
	      "  --compact               the JSON view on one line (default: indented like jq)\n"
	      "  --help                  this text\n"
	      "\n"
	      "Exit status: 0 no failing node, 1 a node failed or errored, 64 usage,\n"
	      "74 the view could not be written.\n",
	      out);
}

/* Add every report under one command-line argument; -errno for a path that cannot be opened. */
static int add_arg(struct pf_fleet *f, const char *arg, bool recursive, FILE *err)
{
	pf_autostrv char **paths = NULL;
	size_t subdirs = 0, before = pf_fleet_n_reports(f) + pf_fleet_n_rejected(f);
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
	for (char **p = paths; *p; p++) {
		pf_autofree char *why = NULL;

		if (pf_fleet_add_file(f, *p, &why) < 0)
			fprintf(err, "preflight fleet: skipping '%s': %s\n", *p, why);
	}
	if (!recursive && subdirs && pf_fleet_n_reports(f) + pf_fleet_n_rejected(f) == before)
		fprintf(err, "preflight fleet: '%s' holds no *.json file but %zu "
			     "subdirector%s: use --recursive to read them\n",
			arg, subdirs, subdirs == 1 ? "y" : "ies");
	return 0;
}

/* Render the view into memory and write it to @path through pf_output_write(). */
static int render_to_file(const struct pf_fleet *f, enum pf_fleet_format fmt, const char *path)
{
	pf_autofree char *buf = NULL, *err = NULL; /* the errno says enough */
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int r;

	if (!mem)
		return -errno;
	r = pf_fleet_render(f, fmt, mem);
	if (fclose(mem) == EOF && r == 0)
		r = -errno;
	if (r < 0)
		return r;
	r = pf_output_mkparents(path, &err);
	return r < 0 ? r : pf_output_write(path, buf, len);
}

int pf_fleet_main(int argc, char **argv, FILE *out, FILE *err)
{
	enum { OPT_FORMAT = 256, OPT_FRACTION, OPT_HELP, OPT_OUTPUT, OPT_COMPACT,
	       OPT_RECURSIVE = 'r' };
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "outlier-fraction", required_argument, NULL, OPT_FRACTION },
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "recursive", no_argument, NULL, OPT_RECURSIVE },
		{ "compact", no_argument, NULL, OPT_COMPACT },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	PF_CLEANUP(pf_fleet_freep) struct pf_fleet *f = NULL;
	enum pf_fleet_format fmt = PF_FLEET_TEXT;
	double fraction = PF_FLEET_OUTLIER_FRACTION;
	const char *output = NULL;
	bool recursive = false, compact = false;
	int c, r;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			if (pf_fleet_format_from_name(optarg, &fmt) < 0) {
				fprintf(err, "preflight fleet: --format: unknown format '%s' "
					     "(text, json or csv)\n", optarg);
				return PF_EXIT_USAGE;
			}
			break;
		case OPT_FRACTION: {
			char *end;

			errno = 0;
			fraction = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(fraction > 0 && fraction <= 1)) {
				fprintf(err, "preflight fleet: --outlier-fraction: '%s' is not a "
					     "number in (0, 1]\n", optarg);
				return PF_EXIT_USAGE;
			}
			break;
		}
		case OPT_OUTPUT:
			if (!*optarg) {
				fputs("preflight fleet: --output: empty file name\n", err);
				return PF_EXIT_USAGE;
			}
			output = optarg;
			break;
		case OPT_RECURSIVE:
			recursive = true;
			break;
		case OPT_COMPACT:
			compact = true;
			break;
		case OPT_HELP:
			fleet_usage(out);
			return 0;
		case ':':
			fprintf(err, "preflight fleet: option '%s' needs a value\n", argv[optind - 1]);
			return PF_EXIT_USAGE;
		default:
			fprintf(err, "preflight fleet: unknown option '%s' (see preflight fleet "
				     "--help)\n", argv[optind - 1]);
			return PF_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fleet_usage(err);
		return PF_EXIT_USAGE;
	}

	f = pf_fleet_new(fraction);
	pf_fleet_set_compact(f, compact);
	for (int i = optind; i < argc; i++)
		if (add_arg(f, argv[i], recursive, err) < 0)
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
	if (output) {
		r = render_to_file(f, fmt, output);
		if (r < 0) {
			fprintf(err, "preflight fleet: cannot write '%s': %s\n", output,
				strerror(-r));
			return PF_EXIT_IOERR;
		}
		return pf_fleet_n_failing(f) ? 1 : 0;
	}
	r = pf_fleet_render(f, fmt, out);
	if (r == 0 && fflush(out) == EOF)
		r = -errno;
	if (r < 0) {
		fprintf(err, "preflight fleet: cannot write the view: %s\n", strerror(-r));
		return PF_EXIT_IOERR;
	}
	return pf_fleet_n_failing(f) ? 1 : 0;
}
