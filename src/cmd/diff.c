// SPDX-License-Identifier: MIT
/*
 * diff.c - `preflight diff OLD.json NEW.json`: the front end of src/diff
 * (its options, reading the two reports, the output and the exit status).
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmdopt.h"
#include "commands.h"
#include "diff.h"
#include "exit.h"
#include "output.h"
#include "preflight/fs.h"
#include "preflight/result.h"
#include "text.h"

/* Largest report read (a report is tens of KiB). */
#define DIFF_MAX_REPORT (64u << 20)

static int load(const char *path, cJSON **ret, FILE *err)
{
	pf_autofree char *buf = NULL, *why = NULL;
	size_t len;
	int r;

	/* a regular file, opened O_NONBLOCK: a FIFO is an error, never a hang */
	r = pf_read_input(path, DIFF_MAX_REPORT, false, &buf, &len, &why);
	if (r < 0) {
		fprintf(err, "preflight diff: %s\n", why);
		return r;
	}
	*ret = cJSON_ParseWithLength(buf, len);
	if (!*ret) {
		fprintf(err, "preflight diff: '%s' is not valid JSON\n", path);
		return -EINVAL;
	}
	return 0;
}

static void diff_usage(FILE *out, const struct pf_option *opts)
{
	fputs("usage: preflight diff [--format text|json] [--compact] [--output FILE]\n"
	      "                      OLD.json NEW.json\n"
	      "\n"
	      "What changed between two reports of a node (before and after a reimage, or\n"
	      "a node against its golden run): checks and findings whose status changed,\n"
	      "findings that appeared or went away, observed values that moved.\n"
	      "\n",
	      out);
	pf_cmdopt_print_options(opts, 20, out);
	fputs("\n"
	      "Exit status: 0 nothing got worse, 1 something got worse, 64 usage or an\n"
	      "input that is not a preflight.report/v1 report, 74 output not written.\n",
	      out);
}

static int render(const cJSON *d, bool json, bool compact, FILE *out)
{
	if (json) {
		pf_autofree char *text = pf_json_print(d, compact);

		fputs(text, out);
		fputc('\n', out);
		return ferror(out) ? -EIO : 0;
	}
	return pf_diff_render_text(d, out);
}

/* The command's options. */
struct diff_opts {
	const char *output;
	bool json, compact;
};

/*
 * Parse the options into @o; false when the command ends here (--help, a
 * usage error, not two reports) with *ret_exit its exit code.
 */
/* --format text|json into diff_opts.json. */
static int parse_format(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	if (strcmp(arg, "text") && strcmp(arg, "json")) {
		pf_cmdopt_error(c, "--format: unknown format '%s' (text or json)", arg);
		return -EINVAL;
	}
	*(bool *)opt->value = !strcmp(arg, "json");
	return 0;
}

static bool parse_options(int argc, char **argv, struct diff_opts *o, FILE *out, FILE *err,
			  int *ret_exit)
{
	const struct pf_option opts[] = {
		PF_OPT_CALLBACK(0, "format", &o->json, "FORMAT",
				"text (default) or json (preflight.diff/v1)", parse_format),
		PF_OPT_BOOL(0, "compact", &o->compact, "JSON on one line"),
		PF_OPT_FILE(0, "output", &o->output, "write the diff to FILE atomically"),
		PF_OPT_HELP("this text"),
		PF_OPT_END,
	};
	struct pf_cmdopt cmd = { .cmd = "diff", .usage = diff_usage, .out = out, .err = err };
	int r = pf_cmdopt_parse(&cmd, opts, argc, argv);

	*ret_exit = PF_EXIT_USAGE;
	if (r != PF_CMDOPT_END) {
		*ret_exit = r == PF_CMDOPT_HELP ? 0 : PF_EXIT_USAGE;
		return false;
	}
	if (argc - optind != 2) {
		fprintf(err, "preflight diff: expected two reports, OLD.json NEW.json (got %d)\n",
			argc - optind);
		diff_usage(err, opts);
		return false;
	}
	return true;
}

/* A note on @err when the two reports are of different hosts. */
static void note_other_node(const cJSON *d, FILE *err)
{
	const char *ho = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(d, "old"), "hostname"));
	const char *hn = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(d, "new"), "hostname"));
	pf_autofree char *a = NULL, *b = NULL;

	if (!strcmp(ho, hn))
		return;
	a = pf_utf8_clean(ho, true);
	b = pf_utf8_clean(hn, true);
	fprintf(err, "preflight diff: note: the reports are of different nodes "
		     "('%s', '%s')\n", a, b);
}

/* Write the diff to --output (whole, or not at all) or @out; 0 or the I/O exit code. */
static int write_diff(const cJSON *d, const struct diff_opts *o, FILE *out, FILE *err)
{
	pf_autofree char *buf = NULL, *dir_err = NULL;
	size_t len = 0;
	FILE *mem;
	int r;

	if (!o->output) {
		r = render(d, o->json, o->compact, out);
		if (r == 0 && fflush(out) == EOF)
			r = -errno;
		if (r < 0) {
			fprintf(err, "preflight diff: cannot write the diff: %s\n", strerror(-r));
			return PF_EXIT_IOERR;
		}
		return 0;
	}
	mem = open_memstream(&buf, &len);
	r = mem ? render(d, o->json, o->compact, mem) : -errno;
	if (mem && fclose(mem) == EOF && r == 0)
		r = -errno;
	if (r == 0)
		r = pf_output_write(o->output, buf, len, &dir_err); /* like the main command */
	if (r < 0) {
		fprintf(err, "preflight diff: cannot write '%s': %s\n", o->output,
			dir_err ? dir_err : strerror(-r));
		return PF_EXIT_IOERR;
	}
	return 0;
}

int pf_diff_main(int argc, char **argv, FILE *out, FILE *err)
{
	pf_autojson cJSON *old_r = NULL, *new_r = NULL, *d = NULL;
	pf_autofree char *why = NULL;
	struct diff_opts o = { 0 };
	int rc;

	if (!parse_options(argc, argv, &o, out, err, &rc))
		return rc;
	if (load(argv[optind], &old_r, err) < 0 || load(argv[optind + 1], &new_r, err) < 0)
		return PF_EXIT_USAGE;
	if (pf_diff(old_r, new_r, argv[optind], argv[optind + 1], &d, &why) < 0) {
		fprintf(err, "preflight diff: %s\n", why);
		return PF_EXIT_USAGE;
	}
	/* strings from the nodes: valid UTF-8 in the JSON (controls escaped by the printer) */
	pf_json_clean(d, false);
	note_other_node(d, err);
	rc = write_diff(d, &o, out, err);
	if (rc)
		return rc;
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(d, "worse")) ? 1 : 0;
}
