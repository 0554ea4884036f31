// SPDX-License-Identifier: MIT
/*
 * main.c - argv -> options -> checks -> report -> exit code.
 *
 * The only place that prints diagnostics for the user and chooses the exit
 * status: 0 no fail and no error, 1 a fail, 2 an error and no fail, 64 usage
 * or profile error, 70 internal bug, 74 the report could not be written.
 * Under Slurm (--slurm, --drain, --undrain or Slurm's environment) the exit
 * status is the drain decision: 0 for a verdict below drain_on (fail unless
 * --drain-on or the profile's "drain_on" say error or warn), so that a Prolog
 * never drains on a check that could not decide unless asked to.
 */
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "preflight/node.h"
#include "profile.h"
#include "preflight/providers.h"
#include "capture.h"
#include "clock.h"
#include "diff.h"
#include "exit.h"
#include "fleet.h"
#include "mesh.h"
#include "output.h"
#include "profdirs.h"
#include "registry.h"
#include "report.h"
#include "runner.h"
#include "siteconf.h"
#include "slurm.h"
#include "snapshot.h"
#include "version.h"


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
	bool all;     /* --all: every check, the traffic checks included */
	bool compact; /* --compact: JSON on one line */
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
};

/* The first usage or profile error: under --drain it becomes the drain reason. */
static char *first_usage_error;

static int usage_error(const char *fmt, ...) PF_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	fprintf(stderr, "preflight: %s\n", msg ? msg : fmt);
	if (!first_usage_error)
		first_usage_error = msg;
	else
		free(msg);
	return PF_EXIT_USAGE;
}

static void print_help(FILE *out)
{
	fputs("usage: preflight [options]\n"
	      "       preflight profile capture [options] > golden.json\n"
	      "       preflight snapshot [--root SRC] [--window MS] DIR\n"
	      "       preflight fleet [--format text|json|csv] REPORT.json|DIR...\n"
	      "       preflight diff [--format text|json] OLD.json NEW.json\n"
	      "\n"
	      "Check that this node is fit to join a GPU/RDMA training job.\n"
	      "\n"
	      "  --list                 list the checks\n"
	      "  --describe NAME        what a check reads and its thresholds\n"
	      "  --all                  run every check, the traffic tests included\n"
	      "                         (default: the static checks, in milliseconds)\n"
	      "  --only A,B             run only these checks or tags (--only rdma,gpu); a\n"
	      "                         traffic test only by name or by the tag traffic\n"
	      "  --skip C,D             do not run these checks or tags (--skip traffic)\n"
	      "  --format FORMAT        json, text, junit or prom (default: text on a terminal,\n"
	      "                         else json)\n"
	      "  --output FILE          write the report to FILE atomically; %n in FILE is\n"
	      "                         the hostname, %j the Slurm job id (srun, pdsh)\n"
	      "  --compact              JSON on one line (default: indented like jq)\n"
	      "  --root DIR             read the node under DIR (a snapshot); default /\n"
	      "  --topology FILE        PCI/GPU/NIC topology from an lstopo XML export\n"
	      "                         (default: <root>/preflight/topology.xml if present, else sysfs)\n"
	      "  --profile FILE|NAME    expectations from a JSON profile (a path with a '/'),\n"
	      "                         or a site or shipped one by name (--profile dgx-h100)\n"
	      "  --list-profiles        the profile names --profile finds, and exit\n"
	      "  --set CHECK.KEY=VALUE  override one expectation (repeatable)\n"
	      "  --timeout SECONDS      deadline for each check (default: the check's own)\n"
	      "  --no-fork              run checks in this process (debugging)\n"
	      "  --check-config         validate these arguments and the profile, print what a\n"
	      "                         run would do, run nothing (exit 0 or 64)\n"
	      "  --slurm                Slurm mode: a one-line reason on stderr, and exit 0\n"
	      "                         unless the verdict drains (automatic under Slurm)\n"
	      "  --drain                on fail (see --drain-on), drain this Slurm node with\n"
	      "                         the reason; on a usage or profile error, with\n"
	      "                         'preflight: config error: ...'\n"
	      "  --drain-on LEVEL       fail (default), error or warn: the least verdict that\n"
	      "                         drains the node (and exits non-zero under Slurm)\n"
	      "  --undrain              on pass (or warn below --drain-on), resume the node if\n"
	      "                         preflight drained it\n"
	      "  --config FILE          site configuration (default " PF_SITECONF_PATH "\n"
	      "                         and its .d/*.conf drop-ins; $PREFLIGHT_CONFIG)\n"
	      "  --no-config            ignore the site configuration\n"
	      "  --version              print the version\n"
	      "  --help                 this text\n"
	      "\n"
	      "Exit status: 0 pass, 1 a check failed, 2 a check could not decide,\n"
	      "64 usage or profile error, 70 internal error, 74 report not written.\n"
	      "Under Slurm: 0 unless the verdict reaches --drain-on (fail by default).\n",
	      out);
}

static void print_profile_help(FILE *out)
{
	fputs("usage: preflight profile capture [options] > golden.json\n"
	      "\n"
	      "Profiles hold a node's expectations (docs/capture.md, profiles/*.json):\n"
	      "\n"
	      "  capture    run the checks that send no traffic on this known-good node and\n"
	      "             print a profile of what it observed (GPU and port counts, rates,\n"
	      "             PCIe classes) for its identical peers: preflight --profile FILE\n"
	      "\n"
	      "See 'preflight profile capture --help'.\n",
	      out);
}

static void print_capture_help(FILE *out)
{
	fputs("usage: preflight profile capture [--root DIR] [--topology FILE] [--profile FILE]\n"
	      "                                 [--only A,B] [--skip C] [--set CHECK.KEY=V]\n"
	      "                                 > golden.json\n"
	      "\n"
	      "Run the checks that send no traffic (or those of --only) on this known-good\n"
	      "node, or on the snapshot DIR, and print a profile of what they observed: the\n"
	      "GPU and RDMA port counts, port rates, PCIe link classes. Peers of the same\n"
	      "build then check against it with preflight --profile golden.json. A failing\n"
	      "check is not captured (a bad node makes a bad golden profile); notes on\n"
	      "stderr say what was left out.\n"
	      "\n"
	      "  --root DIR             read the node under DIR (a snapshot); default /\n"
	      "  --topology FILE        PCI/GPU/NIC topology from an lstopo XML export\n"
	      "  --profile FILE|NAME    start from this profile (its name and settings)\n"
	      "  --only A,B, --skip C   checks or tags to run\n"
	      "  --set CHECK.KEY=VALUE  a setting for the capture run\n"
	      "  --help                 this text\n"
	      "\n"
	      "Exit status: 0 written, 64 usage or profile error, 70 internal error,\n"
	      "74 not written.\n",
	      out);
}

/*
 * An integer bound as an integer (never 1.84467440737096e+19): a double at
 * or past the type's end is that end (2^64 does not fit a uint64_t).
 */
static void print_int_bound(double v, bool is_signed)
{
	if (is_signed && v >= 0x1p63)
		printf("%" PRId64, INT64_MAX);
	else if (is_signed && v <= -0x1p63)
		printf("%" PRId64, INT64_MIN);
	else if (is_signed)
		printf("%" PRId64, (int64_t)v);
	else if (v >= 0x1p64)
		printf("%" PRIu64, UINT64_MAX);
	else
		printf("%" PRIu64, v <= 0 ? 0 : (uint64_t)v);
}

static void print_int_range(const struct pf_param *p)
{
	fputs(", range ", stdout);
	print_int_bound(p->min, p->type == PF_PARAM_I64);
	fputs("..", stdout);
	print_int_bound(p->max, p->type == PF_PARAM_I64);
}

/* Whether some check carries @tag. */
static bool is_tag(const char *tag)
{
	size_t n;
	const struct pf_check *const *all = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		if (pf_list_has(all[i]->tags, tag))
			return true;
	return false;
}

static int check_names(const char *list, const char *opt)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!pf_registry_find(t) && !is_tag(t))
			return usage_error("%s: unknown check or tag '%s' (see --list)", opt, t);
	return 0;
}

/* Whether @list (names and tags, comma-separated) names @c by its name or one of its tags. */
static bool list_matches(const char *list, const struct pf_check *c)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!strcmp(t, c->name) || pf_list_has(c->tags, t))
			return true;
	return false;
}

enum { OPT_LIST = 256, OPT_DESCRIBE, OPT_ONLY, OPT_SKIP, OPT_FORMAT, OPT_OUTPUT,
       OPT_ROOT, OPT_PROFILE, OPT_SET, OPT_TIMEOUT, OPT_NO_FORK, OPT_VERSION, OPT_HELP,
       OPT_SLURM, OPT_DRAIN, OPT_UNDRAIN, OPT_TOPOLOGY, OPT_ALL, OPT_COMPACT, OPT_DRAIN_ON,
       OPT_CHECK_CONFIG, OPT_CONFIG, OPT_NO_CONFIG, OPT_LIST_PROFILES };
static const struct option longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "list-profiles", no_argument, NULL, OPT_LIST_PROFILES },
	{ "describe", required_argument, NULL, OPT_DESCRIBE },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "compact", no_argument, NULL, OPT_COMPACT },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "skip", required_argument, NULL, OPT_SKIP },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "set", required_argument, NULL, OPT_SET },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-fork", no_argument, NULL, OPT_NO_FORK },
	{ "slurm", no_argument, NULL, OPT_SLURM },
	{ "drain", no_argument, NULL, OPT_DRAIN },
	{ "undrain", no_argument, NULL, OPT_UNDRAIN },
	{ "drain-on", required_argument, NULL, OPT_DRAIN_ON },
	{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

static int parse_args(int argc, char **argv, struct pf_opts *o)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_LIST: o->list = true; break;
		case OPT_LIST_PROFILES:
			return pf_profile_list_names() < 0 ? PF_EXIT_IOERR : -1;
		case OPT_DESCRIBE: o->describe = optarg; break;
		case OPT_ALL: o->all = true; break;
		case OPT_COMPACT: o->compact = true; break;
		case OPT_ONLY: o->only = optarg; break;
		case OPT_SKIP: o->skip = optarg; break;
		case OPT_FORMAT: o->format = optarg; break;
		case OPT_OUTPUT: o->output = optarg; break;
		case OPT_ROOT: o->root = optarg; break;
		case OPT_TOPOLOGY: o->topology = optarg; break;
		case OPT_PROFILE: o->profile = optarg; break;
		case OPT_SET:
			pf_profile_add_set(&o->prof, optarg);
			if (optind - 1 <= o->n_site_args) /* the site's "--set=..." come first */
				o->n_site_sets = o->prof.n_sets;
			break;
		case OPT_NO_FORK: o->runner.no_fork = true; break;
		case OPT_SLURM: o->slurm = true; break;
		case OPT_DRAIN: o->slurm = o->slurm_opts.drain = true; break;
		case OPT_UNDRAIN: o->slurm = o->slurm_opts.undrain = true; break;
		case OPT_CHECK_CONFIG: o->check_config = true; break;
		case OPT_CONFIG: break;    /* read before the options (site_argv) */
		case OPT_NO_CONFIG: break;
		case OPT_DRAIN_ON:
			if (pf_slurm_drain_on_from_name(optarg, &o->slurm_opts.drain_on) < 0)
				return usage_error("--drain-on: '%s' is not fail, error or warn",
						   optarg);
			break;
		case OPT_TIMEOUT: {
			uint64_t t;

			if (pf_parse_u64(optarg, &t) < 0 || t == 0 || t > 86400)
				return usage_error("--timeout: '%s' is not a number of seconds "
						   "(1..86400)", optarg);
			o->runner.timeout_s = (unsigned int)t;
			break;
		}
		case OPT_VERSION:
			printf("preflight %s\n", PF_VERSION);
			return -1;
		case OPT_HELP:
			if (o->capture)
				print_capture_help(stdout);
			else
				print_help(stdout);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (see --help)", argv[optind]);
	if (o->all && o->only)
		return usage_error("--all and --only exclude each other (--all --skip C runs "
				   "every check but C)");
	if (o->only && check_names(o->only, "--only"))
		return PF_EXIT_USAGE;
	if (o->skip && check_names(o->skip, "--skip"))
		return PF_EXIT_USAGE;
	return 0;
}

static void list_checks(void)
{
	size_t n;
	const struct pf_check *const *checks = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		printf("%-16s %-62s [%s]\n", checks[i]->name, checks[i]->summary, checks[i]->tags);
}

static int describe_check(const char *name)
{
	const struct pf_check *c = pf_registry_find(name);

	unsigned int deadline;

	if (!c)
		return usage_error("--describe: unknown check '%s' (see --list)", name);
	deadline = c->timeout_s;
	if (c->deadline_s) { /* derived from the settings: show it for the defaults */
		struct pf_profile prof;
		void *cfg = NULL;
		char *err = NULL;

		pf_profile_init(&prof);
		if (pf_config_build(c, &prof, &cfg, &err) == 0) {
			deadline = c->deadline_s(cfg);
			pf_config_free(c, cfg);
		}
		free(err);
		pf_profile_release(&prof);
	}
	printf("%s - %s\n\ntags:     %s\ndeadline: %u s%s\nreads:    %s\n", c->name, c->summary,
	       c->tags, deadline, c->deadline_s ? " with the defaults (follows the settings)" : "",
	       c->reads);
	if (!c->params || !c->params->key) {
		printf("\nno parameters\n");
		return 0;
	}
	printf("\nparameters (--set %s.KEY=VALUE, or \"checks\": {\"%s\": {...}} in a profile):\n",
	       c->name, c->name);
	for (const struct pf_param *p = c->params; p->key; p++) {
		printf("  %-24s %s, default %s%s%s", p->key, pf_param_type_name(p->type),
		       *p->def ? p->def : "\"\"", p->unit ? " " : "", p->unit ? p->unit : "");
		if (p->type == PF_PARAM_U64 || p->type == PF_PARAM_I64)
			print_int_range(p);
		if (p->type == PF_PARAM_DOUBLE)
			printf(", range %.15g..%.15g", p->min, p->max);
		if (p->type == PF_PARAM_ENUM) {
			pf_autofree char *words = pf_param_choices(p, " | ");

			printf(", one of: %s", words);
		}
		if (pf_param_syntax_name(p))
			printf(", %s", pf_param_syntax_name(p));
		if (p->type == PF_PARAM_STRING && p->syntax == PF_SYNTAX_U64_LIST)
			printf(" %.15g..%.15g", p->min, p->max);
		printf("\n      %s\n", p->help);
	}
	return 0;
}

#define PF_DEFAULT_TAG "static"

/*
 * Whether @c runs, and when not, why (*ret_why).  The default selection is
 * the checks tagged static (milliseconds, no traffic), so that a bare
 * `preflight` on a terminal never sits for minutes; --all adds the traffic
 * tests and the sampling checks, --only picks checks or tags, --skip
 * removes checks or tags from either.
 */
/* Whether a check that sends no traffic carries @tag. */
static bool static_tag(const char *tag)
{
	size_t n;
	const struct pf_check *const *all = pf_registry(&n);

	for (size_t i = 0; i < n; i++)
		if (!(all[i]->flags & PF_CHECK_TRAFFIC) && pf_list_has(all[i]->tags, tag))
			return true;
	return false;
}

/*
 * --only: a check by name or by tag, but a traffic test (minutes of load on
 * the fabric) only by name or by a tag no static check carries (traffic,
 * gdr, fabric): --only gpu runs the static GPU checks, never nccl_allreduce.
 */
static bool only_matches(const char *list, const struct pf_check *c)
{
	pf_autofree char *copy = pf_xstrdup(list);
	char *save = NULL;

	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
		if (!strcmp(t, c->name) || (pf_list_has(c->tags, t) &&
					    (!(c->flags & PF_CHECK_TRAFFIC) || !static_tag(t))))
			return true;
	return false;
}

static bool selected_why(const struct pf_opts *o, const struct pf_check *c, const char **ret_why)
{
	const char *why = NULL;

	if (o->only && !only_matches(o->only, c))
		why = list_matches(o->only, c)
			      ? "a traffic test (minutes): a tag that static checks share selects "
				"the static ones; name it in --only"
			      : "not in --only";
	else if (!o->only && o->capture && !o->all && (c->flags & PF_CHECK_TRAFFIC))
		why = "a capture runs the checks that send no traffic";
	else if (!o->only && !o->capture && !o->all && !pf_list_has(c->tags, PF_DEFAULT_TAG))
		why = "not static: the default runs the static checks; --all runs every check";
	else if (o->skip && list_matches(o->skip, c))
		why = "--skip";
	if (ret_why)
		*ret_why = why;
	return !why;
}

static bool selected(const struct pf_opts *o, const struct pf_check *c)
{
	return selected_why(o, c, NULL);
}

/*
 * Render into @f; the stream's own errno (ENOSPC, EIO, ...) rather than the
 * renderer's generic error when a write fails.
 */
static int render_to(const struct pf_report *r, enum pf_format fmt, FILE *f, bool color)
{
	int rr;

	errno = 0;
	rr = pf_render(r, fmt, f, color);
	if (rr < 0 && errno)
		rr = -errno;
	if (fflush(f) == EOF || ferror(f))
		rr = rr ? rr : (errno ? -errno : -EIO);
	return rr;
}

/*
 * Write the report to --output @path the way every command writes its
 * output (src/core/output.h): the directory walked component by component,
 * nothing another user could swap followed, atomically through a temporary
 * file and a rename, a device or FIFO of ours in place.
 */
static int write_report_file(const struct pf_report *r, enum pf_format fmt, const char *path)
{
	pf_autofree char *buf = NULL, *why = NULL;
	size_t len = 0;
	FILE *f;
	int rr;

	f = open_memstream(&buf, &len);
	if (!f) {
		fprintf(stderr, "preflight: cannot write '%s': %s\n", path, strerror(errno));
		return PF_EXIT_IOERR;
	}
	rr = render_to(r, fmt, f, false);
	if (fclose(f) == EOF && rr == 0)
		rr = -errno;
	if (rr == 0)
		rr = pf_output_write(path, buf, len, &why);
	if (rr < 0) {
		fprintf(stderr, "preflight: cannot write '%s': %s\n", path,
			why ? why : strerror(-rr));
		return PF_EXIT_IOERR;
	}
	return 0;
}

static int exit_code(enum pf_status verdict)
{
	switch (verdict) {
	case PF_STATUS_FAIL: return PF_EXIT_FAIL;
	case PF_STATUS_ERROR: return PF_EXIT_ERROR;
	default: return PF_EXIT_OK;
	}
}

/*
 * What the arguments and the profile decide, checked before anything runs:
 * the format, the profile (every setting of every check), drain_on, a
 * non-empty selection, and the root.  0, or 64 with the message printed.
 */
/*
 * A root that holds nothing: a fresh directory, opened and removed at once
 * (the open directory stays valid and empty), so no file of this machine is
 * read under --topology alone.
 */
static int open_empty_root(struct pf_fs **ret_fs)
{
	const char *tmp = getenv("TMPDIR");
	pf_autofree char *dir = pf_xasprintf("%s/preflight-empty-XXXXXX",
					     tmp && *tmp ? tmp : "/tmp");
	int r;

	if (!mkdtemp(dir))
		return -errno;
	r = pf_fs_open(dir, ret_fs);
	(void)rmdir(dir);
	return r;
}

/* A root with neither /sys nor /proc: it adds nothing to a topology export. */
static bool root_is_empty(const struct pf_fs *fs)
{
	return !pf_fs_is_live(fs) && pf_fs_exists(fs, "/sys") != 1 && pf_fs_exists(fs, "/proc") != 1;
}

static int load_config(struct pf_opts *o, enum pf_format *ret_fmt, struct pf_fs **ret_fs)
{
	size_t n_all, n = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	pf_autofree char *err = NULL;
	int r;

	if (o->format) {
		if (pf_format_from_name(o->format, ret_fmt) < 0)
			return usage_error("--format: unknown format '%s' (json, text, junit "
					   "or prom)", o->format);
	} else {
		*ret_fmt = !o->output && isatty(STDOUT_FILENO) ? PF_FORMAT_TEXT : PF_FORMAT_JSON;
	}
	if (o->profile) {
		pf_autofree char *path = NULL;

		r = pf_profile_resolve(o->profile, &path, &err);
		if (r < 0)
			return usage_error("%s", err);
		r = pf_profile_load(&o->prof, path, &err);
		if (r < 0)
			return usage_error("%s", err ? err : "cannot load the profile");
	}
	r = pf_profile_validate(&o->prof, all, n_all, &err);
	if (r < 0)
		return usage_error("%s", err ? err : "invalid profile");
	/* --drain-on wins over the profile's "drain_on" (validated when loaded) */
	if (o->slurm_opts.drain_on == PF_STATUS_PASS && o->prof.drain_on)
		PF_BUG_ON(pf_slurm_drain_on_from_name(o->prof.drain_on,
						      &o->slurm_opts.drain_on) < 0);

	for (size_t i = 0; i < n_all; i++)
		n += selected(o, all[i]);
	/* an empty selection would pass every node: "--only $UNSET" is a usage error */
	if (n == 0)
		return usage_error("no check selected (--only '%s', --skip '%s'; see --list)",
				   o->only ? o->only : "", o->skip ? o->skip : "");

	if (o->topology && !o->root && !o->capture) {
		/* another node's export: judge it alone, never with this machine's facts */
		o->no_root = true;
		o->root = "none";
		r = open_empty_root(ret_fs);
		if (r < 0)
			return usage_error("--topology: cannot make an empty root: %s", strerror(-r));
	} else {
		o->root = o->root ? o->root : "/";
		r = pf_fs_open(o->root, ret_fs);
		if (r < 0)
			return usage_error("--root: cannot open '%s': %s", o->root, strerror(-r));
	}
	if (o->output && strchr(o->output, '%')) {
		struct pf_report node = { 0 };

		/* %n is the node's hostname (under --root, the recorded one), %j the Slurm job */
		pf_report_describe_node(&node, *ret_fs);
		o->output_template = o->output;
		r = pf_output_expand(o->output, node.hostname, getenv("SLURM_JOB_ID"),
				     &o->output_buf, &err);
		if (r < 0)
			return usage_error("--output: %s", err);
		o->output = o->output_buf;
	}
	return 0;
}

/*
 * Where the value of @c's @key came from: the last --set wins over the
 * profile; the site config's "set" entries come before the command line's.
 */
static const char *setting_origin(const struct pf_opts *o, const struct pf_check *c,
				  const char *key)
{
	const struct pf_profile *p = &o->prof;
	pf_autofree char *prefix = pf_xasprintf("%s.%s=", c->name, key);
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(p->checks, c->name);

	for (size_t i = p->n_sets; i-- > 0;)
		if (!strncmp(p->sets[i], prefix, strlen(prefix)))
			return i < o->n_site_sets ? "site config" : "--set";
	return cJSON_GetObjectItemCaseSensitive(sec, key) ? "profile" : "default";
}

/* The selected checks' settings that differ from the built-in defaults. */
static void print_settings(const struct pf_opts *o, FILE *out)
{
	size_t n_all, shown = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	struct pf_profile none;

	pf_profile_init(&none);
	fputs("settings that differ from the defaults:\n", out);
	for (size_t i = 0; i < n_all; i++) {
		void *def = NULL, *cfg = NULL;
		char *err = NULL;
		cJSON *jd, *jc, *it;

		if (!selected(o, all[i]))
			continue;
		PF_BUG_ON(pf_config_build(all[i], &none, &def, &err) < 0);
		PF_BUG_ON(pf_config_build(all[i], &o->prof, &cfg, &err) < 0); /* validated */
		jd = pf_config_to_json(all[i], def);
		jc = pf_config_to_json(all[i], cfg);
		cJSON_ArrayForEach(it, jc) {
			pf_autofree char *v = NULL;

			if (cJSON_Compare(it, cJSON_GetObjectItemCaseSensitive(jd, it->string), true))
				continue;
			v = cJSON_PrintUnformatted(it);
			fprintf(out, "  %s.%s = %s (%s)\n", all[i]->name, it->string, v,
				setting_origin(o, all[i], it->string));
			shown++;
		}
		cJSON_Delete(jd);
		cJSON_Delete(jc);
		pf_config_free(all[i], def);
		pf_config_free(all[i], cfg);
	}
	if (!shown)
		fputs("  (none)\n", out);
	pf_profile_release(&none);
}

/* "owner uid 0 (root), mode 0644" of @path (what the rules for root judge), or why not. */
static void print_owner(const char *path, FILE *out)
{
	pf_autofree char *who = NULL;
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(out, "%s: %s", path, strerror(errno));
		return;
	}
	who = pf_output_owner(st.st_uid);
	fprintf(out, "%s: owner %s, mode %04o", path, who, (unsigned int)(st.st_mode & 07777));
}

/* --check-config: the site configuration files and the options each set. */
static void print_site(const struct pf_opts *o, FILE *out)
{
	const struct pf_siteconf *sc = o->site;

	fputs("site config: ", out);
	if (!sc)
		fputs("not read (--no-config)\n", out);
	else if (!sc->n_files)
		fprintf(out, "none (no %s)\n", o->site_path);
	for (size_t i = 0; sc && i < sc->n_files; i++)
		fprintf(out, "%s%s", i ? ", " : "", sc->files[i]);
	if (sc && sc->n_files)
		fputc('\n', out);
	for (size_t i = 0; sc && i < sc->n_files; i++) {
		fputs(i ? "; " : "site owner: ", out);
		print_owner(sc->files[i], out);
		fputs(i + 1 == sc->n_files ? "\n" : "", out);
	}
	for (size_t i = 0; sc && i < sc->n_entries; i++) {
		const struct pf_siteconf_entry *e = &sc->entries[i];

		fprintf(out, "  %-12s %-32s (%s)\n", e->key, e->value ? e->value : "true",
			e->origin);
	}
}

/*
 * --check-config: the effective options of a run with these arguments, one
 * per line.  Every option that changes what a run does is shown here.
 */
static void print_config(const struct pf_opts *o, enum pf_format fmt, FILE *out)
{
	size_t n_all, n = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	bool under_slurm = pf_slurm_detected();

	fprintf(out, "preflight %s: the arguments and the profile are valid; nothing was run\n",
		PF_VERSION);
	print_site(o, out);
	if (o->profile) {
		fprintf(out, "profile:   %s (%s)\nprofile owner: ", o->prof.name, o->prof.path);
		print_owner(o->prof.path, out);
		fputc('\n', out);
	}
	if (!o->profile)
		fputs("profile:   generic (the built-in defaults)\n", out);
	fprintf(out, "root:      %s\n", o->root);
	fprintf(out, "topology:  %s\n", o->topology ? o->topology : "from the root");
	fputs("checks:   ", out);
	for (size_t i = 0; i < n_all; i++)
		if (selected(o, all[i]))
			fprintf(out, "%s %s", n++ ? "," : "", all[i]->name);
	fprintf(out, " (%zu of %zu)\n", n, n_all);
	fprintf(out, "selection: %s\n", o->only ? "only (--only)" : o->all ? "all (--all)" :
		"default (the checks tagged static; --all runs every check)");
	fprintf(out, "format:    %s\n", o->format ? o->format :
		fmt == PF_FORMAT_TEXT ? "text (standard output is a terminal)" : "json");
	if (o->output) {
		pf_autofree char *dir = pf_xstrdup(o->output);
		struct stat st;

		fprintf(out, "output:    %s", o->output);
		if (o->output_template)
			fprintf(out, " (from %s)", o->output_template);
		if (stat(dirname(dir), &st) < 0 && errno == ENOENT)
			fprintf(out, " (its directory %s is created at run time, mode 0755)", dir);
		fputc('\n', out);
	} else {
		fputs("output:    standard output\n", out);
	}
	if (o->runner.timeout_s)
		fprintf(out, "timeout:   %u s for each check\n", o->runner.timeout_s);
	else
		fputs("timeout:   each check's own deadline (--describe)\n", out);
	fprintf(out, "slurm:     %s; drains on %s%s; --drain %s, --undrain %s\n",
		o->slurm || under_slurm ? "on" : "off (exit codes 0, 1, 2)",
		pf_status_name(pf_slurm_drain_on(&o->slurm_opts)),
		o->slurm_opts.drain_on == PF_STATUS_PASS ? " (the default)" : "",
		o->slurm_opts.drain ? "yes" : "no", o->slurm_opts.undrain ? "yes" : "no");
	print_settings(o, out);
}

static int check_config(struct pf_opts *o)
{
	pf_autofs struct pf_fs *fs = NULL;
	pf_autonode struct pf_node *node = NULL;
	pf_autofree char *err = NULL;
	enum pf_format fmt;
	int r = load_config(o, &fmt, &fs);

	if (r)
		return r;
	if (o->topology) {
		r = pf_node_load(fs, o->topology, &node, &err);
		if (r < 0)
			return usage_error("--topology: %s", err ? err : strerror(-r));
	}
	print_config(o, fmt, stdout);
	return 0;
}

/*
 * Under Slurm a Prolog drains on any non-zero exit: exit non-zero only for
 * a verdict that reaches drain_on (a warn that does then exits 1).  The gate
 * says on stderr why an error or a fail below drain_on does not drain.
 */
static int slurm_exit_code(int rc, enum pf_status verdict, const struct pf_slurm_opts *so)
{
	if (rc != PF_EXIT_OK && rc != PF_EXIT_FAIL && rc != PF_EXIT_ERROR)
		return rc; /* the report was not written: never hidden */
	if (!pf_slurm_drains(verdict, so))
		return PF_EXIT_OK;
	return verdict == PF_STATUS_WARN ? PF_EXIT_FAIL : exit_code(verdict);
}

/*
 * The width to wrap text at: the terminal's columns when @fd is one ($COLUMNS
 * when the terminal does not say, else 80); 0 (no wrapping) for a file or pipe.
 */
static unsigned int terminal_width(int fd)
{
	struct winsize ws;
	const char *env;
	uint64_t c;

	if (!isatty(fd))
		return 0;
	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	env = getenv("COLUMNS");
	if (env && pf_parse_u64(env, &c) == 0 && c >= 20 && c <= 1000)
		return (unsigned int)c;
	return 80;
}

/*
 * The inventory is read once, here, and inherited by the forked checks, when
 * a selected check needs it (or --topology/--capture asks for it).  A
 * --topology file that cannot be used is a usage error (64, returned); node
 * data under the root that cannot be read sets *ret_err: the checks that need
 * it become error results (exit 2), and the report is still written.
 */
static int load_node(const struct pf_opts *o, struct pf_fs *fs, const struct pf_check *const *all,
		     size_t n_all, struct pf_node **ret_node, char **ret_err)
{
	pf_autofree char *err = NULL;
	int r;

	for (size_t i = 0; i < n_all && !*ret_node; i++) {
		if (!selected(o, all[i]) ||
		    !(o->topology || o->capture || (all[i]->flags & PF_CHECK_NEEDS_NODE)))
			continue;
		r = pf_node_load(fs, o->topology, ret_node, &err);
		if (r < 0) {
			if (o->topology)
				return usage_error("--topology: %s", err ? err : strerror(-r));
			*ret_err = pf_xasprintf("cannot read the node inventory under %s: %s",
						o->root, err ? err : strerror(-r));
			fprintf(stderr, "preflight: %s\n", *ret_err);
			break;
		}
	}
	return 0;
}

/* Plan: a run (with its built config) per selected check, the others with why not. */
static size_t plan_runs(struct pf_opts *o, const struct pf_check *const *all, size_t n_all,
			struct pf_run *runs, struct pf_unselected *unselected,
			struct pf_report *report)
{
	size_t n = 0;

	for (size_t i = 0; i < n_all; i++) {
		pf_autofree char *err = NULL;
		const char *why;
		int r;

		if (!selected_why(o, all[i], &why)) {
			unselected[report->n_unselected++] = (struct pf_unselected){ all[i]->name, why };
			continue;
		}
		runs[n].check = all[i];
		r = pf_config_build(all[i], &o->prof, &runs[n].cfg, &err);
		PF_BUG_ON(r < 0); /* validated above */
		pf_result_init(&runs[n].res);
		n++;
	}
	return n;
}

/*
 * Where the facts come from, for the report.  --topology with no root (or an
 * empty one): the export is all there is.  Only the checks that judge an
 * inventory run; the others would judge files and libraries the export does
 * not hold (or this machine's).
 */
static void report_sources(const struct pf_opts *o, const struct pf_ctx *ctx, struct pf_fs *fs,
			   struct pf_report *report)
{
	report->topology_only = ctx->node && o->topology && !o->capture &&
				(o->no_root || root_is_empty(fs));
	report->src_inventory = ctx->node ? ctx->node->source : NULL;
	report->src_topology = ctx->node ? o->topology : NULL;
	report->src_files = o->no_root ? "none" : pf_fs_is_live(fs) ? "live" : "root";
	report->src_providers = ctx->prov->name;
}

/* Run: each planned check, or its error (no inventory) or skip (--topology alone). */
static void run_all(struct pf_opts *o, const struct pf_ctx *ctx, const char *node_err,
		    const struct pf_report *report, struct pf_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* without an inventory, the checks that need one are undecided, not skipped */
		if (!ctx->node && node_err && (runs[i].check->flags & PF_CHECK_NEEDS_NODE)) {
			pf_add(&runs[i].res, PF_STATUS_ERROR, NULL, "%s", node_err);
			pf_result_finish(&runs[i].res);
			continue;
		}
		if (report->topology_only && !(runs[i].check->flags & PF_CHECK_JUDGES_TOPOLOGY)) {
			pf_add(&runs[i].res, PF_STATUS_SKIP, NULL, "not run under --topology alone: the "
			       "export holds the PCI, GPU and NIC inventory, not what %s judges; run it "
			       "on the node, or with --root on a snapshot of it", runs[i].check->name);
			pf_result_finish(&runs[i].res);
			continue;
		}
		pf_runner_run(ctx, &runs[i], 1, &o->runner);
	}
}

/* Write the report to --output or stdout; 0, or the exit code when it cannot be written. */
static int write_report(const struct pf_opts *o, struct pf_report *report, enum pf_format fmt)
{
	bool color;
	int r, rc;

	if (o->output) {
		return write_report_file(report, fmt, o->output);
	}
	color = fmt == PF_FORMAT_TEXT && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	report->width = fmt == PF_FORMAT_TEXT ? terminal_width(STDOUT_FILENO) : 0;

	r = o->stdout_closed ? -EBADF : render_to(report, fmt, stdout, color);
	rc = r < 0 ? PF_EXIT_IOERR : 0;
	if (r < 0)
		fprintf(stderr, "preflight: cannot write the report: %s\n",
			o->stdout_closed ? "stdout is closed (use --output FILE)" : strerror(-r));
	return rc;
}

/*
 * The exit code after the report was written (@rc its writing's): a signal's
 * (not evidence against the node: no drain, no resume; the report, when it
 * could be written, holds what finished), else the verdict's, and under
 * Slurm the gate's.
 */
static int judge_exit(struct pf_opts *o, struct pf_report *report, int rc)
{
	int wrote = rc;

	if (!pf_runner_interrupted()) {
		if (rc == 0)
			rc = exit_code(pf_report_verdict(report));
		/* a signal during the gate stops scontrol (src/cmd/slurm.c) and is said below */
		if (o->slurm || pf_slurm_detected()) {
			pf_slurm_gate(report, &o->slurm_opts, stderr);
			rc = slurm_exit_code(rc, pf_report_verdict(report), &o->slurm_opts);
		}
	}
	if (pf_runner_interrupted()) {
		char sig[32];

		rc = wrote;
		fprintf(stderr, "preflight: interrupted by %s: %s; unfinished checks are errors "
			"'interrupted by %s'\n", pf_signal_name(pf_runner_interrupted(), sig, sizeof(sig)),
			rc == 0 ? "report written" : "report not written",
			pf_signal_name(pf_runner_interrupted(), sig, sizeof(sig)));
		if (rc == 0)
			rc = 128 + pf_runner_interrupted();
	}
	return rc;
}

static int run_checks(struct pf_opts *o)
{
	size_t n_all, n;
	const struct pf_check *const *all = pf_registry(&n_all);
	pf_autofs struct pf_fs *fs = NULL;
	pf_autonode struct pf_node *node = NULL;
	struct pf_report report = { .version = PF_VERSION };
	struct pf_ctx ctx = { 0 };
	enum pf_format fmt;
	pf_autofree struct pf_run *runs = NULL;
	pf_autofree struct pf_unselected *unselected = NULL;
	pf_autofree char *node_err = NULL;
	double t0 = pf_now_ms();
	int r, rc;

	r = load_config(o, &fmt, &fs);
	if (r)
		return r;
	pf_runner_catch_signals();
	r = load_node(o, fs, all, n_all, &node, &node_err);
	if (r)
		return r;
	ctx.node = node;

	runs = pf_xcalloc(n_all, sizeof(*runs));
	unselected = pf_xcalloc(n_all, sizeof(*unselected));
	n = plan_runs(o, all, n_all, runs, unselected, &report);

	ctx.fs = fs;
	ctx.prov = pf_providers_for(fs);
	report_sources(o, &ctx, fs, &report);
	/* a live status line while checks run, only for a person at a terminal */
	o->runner.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	report.started_at = time(NULL);
	run_all(o, &ctx, node_err, &report, runs, n);

	report.root = o->no_root ? "none" : pf_fs_root(fs);
	report.profile = o->prof.name ? o->prof.name : "generic";
	report.runs = runs;
	report.n_runs = n;
	report.selection = o->only ? "only" : o->all ? "all" : "default";
	report.unselected = unselected;
	report.compact = o->compact;
	pf_report_describe_node(&report, fs);
	report.duration_ms = pf_now_ms() - t0;

	if (o->capture)
		rc = pf_capture_write(&report, node, &o->prof, stdout, stderr);
	else
		rc = judge_exit(o, &report, write_report(o, &report, fmt));
	for (size_t i = 0; i < n; i++) {
		pf_config_free(runs[i].check, runs[i].cfg);
		pf_result_release(&runs[i].res);
	}
	return rc;
}

/* Whether a subcommand's @argv holds --@name or --@name=... before a "--". */
static bool has_option(int argc, char **argv, const char *name)
{
	size_t l = strlen(name);

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], name, l) && (!argv[i][l] || argv[i][l] == '='))
			return true;
	return false;
}

/* The options that make no sense in a site configuration. */
static const char *const site_deny[] = { "config", "no-config", "check-config", "list",
					 "describe", "help", "version", NULL };

/*
 * Read the site configuration (--config FILE, else $PREFLIGHT_CONFIG, else
 * PF_SITECONF_PATH; none with --no-config) and put its options before the
 * command line's in a new argv (*ret_args, freed by the caller), so that
 * the command line wins; (*ret_args)[1..*ret_owned] are allocated here.
 * --all and --only exclude each other: the command line's one drops the
 * site's other.
 */
static int site_argv(struct pf_opts *o, struct pf_siteconf *sc, int *argc, char ***argv,
		     char ***ret_args, int *ret_owned)
{
	const char *path = getenv("PREFLIGHT_CONFIG");
	pf_autofree char *err = NULL;
	char **v;
	int n = 0;

	if (!path || !*path)
		path = PF_SITECONF_PATH;
	for (int i = 1; i < *argc && strcmp((*argv)[i], "--"); i++) {
		if (!strcmp((*argv)[i], "--no-config"))
			return 0;
		if (!strncmp((*argv)[i], "--config=", 9))
			path = (*argv)[i] + 9;
		else if (!strcmp((*argv)[i], "--config") && i + 1 < *argc)
			path = (*argv)[++i];
	}
	o->site_path = path;
	if (pf_siteconf_load(sc, path, longopts, site_deny, &err) < 0)
		return usage_error("site config: %s", err ? err : "cannot read");
	o->site = sc;
	v = pf_xcalloc(sc->n_entries + (size_t)*argc + 1, sizeof(*v));
	v[n++] = (*argv)[0];
	for (size_t i = 0; i < sc->n_entries; i++) {
		const struct pf_siteconf_entry *e = &sc->entries[i];

		if ((!strcmp(e->key, "all") && has_option(*argc, *argv, "--only")) ||
		    (!strcmp(e->key, "only") && has_option(*argc, *argv, "--all")))
			continue;
		v[n++] = pf_xasprintf("--%s%s%s", e->key, e->value ? "=" : "",
				      e->value ? e->value : "");
	}
	*ret_owned = n - 1;
	for (int i = 1; i < *argc; i++)
		v[n++] = (*argv)[i];
	v[n] = NULL;
	*ret_args = v;
	*argc = n;
	*argv = v;
	return 0;
}

/*
 * The subcommands, dispatched on argv[1] before option parsing; `profile
 * capture` is the check run itself with another output (run == NULL).
 */
struct pf_command {
	const char *name;
	int (*run)(int argc, char **argv, FILE *out, FILE *err);
	const char *writes; /* what goes to stdout unless --output: "fleet view"; NULL: nothing */
};

static const struct pf_command commands[] = {
	{ "fleet", pf_fleet_main, "fleet view" },
	{ "diff", pf_diff_main, "diff" },
	{ "mesh", pf_mesh_main, "report" },
	{ "snapshot", pf_snapshot_main, NULL },
	{ "profile", NULL, NULL },
};

static const struct pf_command *find_command(const char *name)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

static int run_command(const struct pf_command *cmd, int argc, char **argv, bool stdout_closed)
{
	int rc = cmd->run(argc - 1, argv + 1, stdout, stderr);

	if (fclose(stdout) == EOF && rc == 0)
		rc = PF_EXIT_IOERR;
	if (stdout_closed && rc <= 1 && cmd->writes && !has_option(argc, argv, "--output") &&
	    !has_option(argc, argv, "--help")) {
		fprintf(stderr, "preflight: cannot write the %s: stdout is closed\n", cmd->writes);
		rc = PF_EXIT_IOERR;
	}
	return rc;
}

/* `preflight profile` without `capture`: its help, or a usage error. */
static int profile_usage(int argc, char **argv)
{
	bool help = argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "help"));

	if (argc > 2 && !help)
		fprintf(stderr, "preflight profile: unknown subcommand '%s'\n", argv[2]);
	print_profile_help(help ? stdout : stderr);
	return help ? PF_EXIT_OK : PF_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct pf_opts o = { 0 };
	struct pf_siteconf site = { 0 };
	char **site_args = NULL; /* [1..n_owned] allocated */
	int n_owned = 0;
	size_t n;
	const struct pf_check *const *all = pf_registry(&n);
	const struct pf_command *cmd;
	pf_autofree char *err = NULL;
	int rc;

	/*
	 * A closed 0, 1 or 2 would be handed to the next open() (the root
	 * directory, a check's pipe) and then written to or dup2()ed over:
	 * hold each with /dev/null, and remember that stdout was closed.
	 */
	o.stdout_closed = fcntl(STDOUT_FILENO, F_GETFD) < 0;
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			return PF_EXIT_IOERR;
	if (pf_registry_validate(all, n, &err) < 0) {
		fprintf(stderr, "preflight: BUG: %s\n", err);
		return PF_EXIT_SOFTWARE;
	}
	/* subcommands, dispatched before option parsing */
	cmd = argc > 1 ? find_command(argv[1]) : NULL;
	if (cmd && cmd->run)
		return run_command(cmd, argc, argv, o.stdout_closed);
	if (cmd && (argc == 2 || strcmp(argv[2], "capture")))
		return profile_usage(argc, argv);
	pf_profile_init(&o.prof);
	if (argc > 2 && !strcmp(argv[1], "profile") && !strcmp(argv[2], "capture")) {
		o.capture = true;
		argc -= 2;
		argv += 2;
	}
	rc = o.capture ? 0 : site_argv(&o, &site, &argc, &argv, &site_args, &n_owned);
	o.n_site_args = n_owned;
	if (rc == 0)
		rc = parse_args(argc, argv, &o);
	if (rc == 0) {
		if (o.list)
			list_checks();
		else if (o.describe)
			rc = describe_check(o.describe);
		else if (o.check_config)
			rc = check_config(&o);
		else
			rc = run_checks(&o);
	} else if (rc < 0) {
		rc = 0; /* --help, --version */
	}
	/*
	 * A typo in a Prolog wrapper would drain the node as "Prolog error":
	 * under --drain, say what is wrong in the reason (never for a test run).
	 */
	if (rc == PF_EXIT_USAGE && has_option(argc, argv, "--drain") &&
	    !has_option(argc, argv, "--check-config"))
		pf_slurm_drain_config_error(&o.slurm_opts, first_usage_error, stderr);
	free(first_usage_error);
	free(o.output_buf);
	pf_profile_release(&o.prof);
	pf_siteconf_release(&site);
	for (int i = 1; i <= n_owned; i++)
		free(site_args[i]);
	free(site_args);
	if (o.stdout_closed && rc == 0 && !o.output) {
		fputs("preflight: cannot write to stdout: it is closed\n", stderr);
		rc = PF_EXIT_IOERR;
	}
	if (fclose(stdout) == EOF && rc == 0) {
		fprintf(stderr, "preflight: cannot write to stdout: %s\n", strerror(errno));
		rc = PF_EXIT_IOERR;
	}
	return rc;
}
