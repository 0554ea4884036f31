// SPDX-License-Identifier: MIT
/*
 * run_opts.c - the default command's options: the site configuration put
 * before the command line, getopt through cmdopt.c, --help texts, the
 * selection of checks (--only, --skip, --all: src/registry/select.c decides
 * with the static default), and what the options and the profile decide
 * before anything runs.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "cmdopt.h"
#include "confirm.h"
#include "exit.h"
#include "output.h"
#include "profdirs.h"
#include "registry.h"
#include "run.h"
#include "select.h"
#include "version.h"

/* The default run's --help: its synopsis, the table's listing, the exit codes. */
static void run_usage(FILE *out, const struct pf_option *opts)
{
	fputs("usage: preflight [options]\n"
	      "       preflight profile capture [options] > golden.json\n"
	      "       preflight snapshot [--root SRC] [--window MS] DIR\n"
	      "       preflight fleet [--format text|json|csv] REPORT.json|DIR...\n"
	      "       preflight diff [--format text|json] OLD.json NEW.json\n"
	      "       preflight mesh [--peers HOSTLIST --rank N] [--output DIR/%n.json]\n"
	      "\n"
	      "Check that this node is fit to join a GPU/RDMA training job.\n"
	      "\n",
	      out);
	pf_cmdopt_print_options(opts, 25, out);
	fputs("\n"
	      "Exit status: 0 pass, 1 a check failed, 2 a check could not decide,\n"
	      "64 usage or profile error, 70 internal error, 74 report not written.\n"
	      "Under Slurm: 0 unless the verdict reaches --drain-on (fail by default).\n",
	      out);
}

void pf_print_profile_help(FILE *out)
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

void pf_print_capture_help(FILE *out)
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

/* The first usage or profile error: under --drain it becomes the drain reason. */
static char *first_usage_error;

/* The default run's messages: "preflight: MSG", the first kept for --drain. */
static const struct pf_cmdopt run_msgs = { .cmd = "", .first_error = &first_usage_error };

int pf_usage_error(const char *fmt, ...)
{
	struct pf_cmdopt c = run_msgs;
	va_list ap;
	char *msg;

	c.err = stderr;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	pf_cmdopt_error(&c, "%s", msg ? msg : fmt);
	free(msg);
	return PF_EXIT_USAGE;
}

/* Every name of @list is a check or a tag, else a usage error naming @opt. */
static int check_names(const char *list, const char *opt)
{
	pf_autofree char *unknown = NULL;

	if (pf_select_names_known(list, &unknown) < 0)
		return pf_usage_error("%s: unknown check or tag '%s' (see --list)", opt, unknown);
	return 0;
}

/* `profile capture --help`: its own text (it lists a few of the run's options). */
static void capture_usage(FILE *f, const struct pf_option *opts)
{
	(void)opts;
	pf_print_capture_help(f);
}

/* What parse_args() reads besides @o's own fields. */
struct run_parse {
	struct pf_opts *o;
	unsigned long timeout_s;
	bool timeout_given, version, list_profiles, ignored;
	const char *config;
};

/* --set CHECK.KEY=VALUE, repeatable; the site's "--set=..." come first. */
static int opt_set(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct pf_opts *o = opt->value;

	(void)c;
	pf_profile_add_set(&o->prof, arg);
	if (optind - 1 <= o->n_site_args)
		o->n_site_sets = o->prof.n_sets;
	return 0;
}

static int opt_drain(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct pf_opts *o = opt->value;

	(void)c;
	(void)arg;
	o->slurm = o->slurm_opts.drain = true;
	return 0;
}

static int opt_undrain(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct pf_opts *o = opt->value;

	(void)c;
	(void)arg;
	o->slurm = o->slurm_opts.undrain = true;
	return 0;
}

static int opt_drain_on(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct pf_opts *o = opt->value;

	if (pf_slurm_drain_on_from_name(arg, &o->slurm_opts.drain_on) < 0) {
		pf_cmdopt_error(c, "--drain-on: '%s' is not fail, error or warn", arg);
		return -EINVAL;
	}
	return 0;
}

/*
 * --reboot-on CODE,...: each a finding code whose action a reboot carries out
 * (reboot, reload_driver); anything else would turn a drain into a reboot
 * that cannot fix the node.
 */
static int opt_reboot_on(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct pf_opts *o = opt->value;
	pf_autofree char *list = pf_xstrdup(arg);
	char *save = NULL;
	size_t n = 0;

	for (char *code = strtok_r(list, ",", &save); code; code = strtok_r(NULL, ",", &save)) {
		const struct pf_check *check;
		const struct pf_code *k;

		if (pf_registry_find_code(code, &check, &k) < 0) {
			pf_cmdopt_error(c, "--reboot-on: '%s' is not a finding code (see "
					"--list-codes)", code);
			return -EINVAL;
		}
		if (k->action != PF_ACTION_REBOOT && k->action != PF_ACTION_RELOAD_DRIVER) {
			pf_cmdopt_error(c, "--reboot-on: %s's action is %s; only a code whose action "
					"is reboot or reload_driver may ask for a reboot", code,
					pf_action_name(k->action));
			return -EINVAL;
		}
		n++;
	}
	if (n == 0) {
		pf_cmdopt_error(c, "--reboot-on: no code given");
		return -EINVAL;
	}
	o->slurm_opts.reboot_on = arg;
	return 0;
}

/* --version and --list-profiles: the command's whole work, done once parsing stops. */
static int opt_stop(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	(void)c;
	(void)arg;
	*(bool *)opt->value = true;
	return 1;
}

#define RUN_N_OPTIONS 30 /* the table's rows, PF_OPT_END included */

/* The default run's options (and `profile capture`'s), into @t. */
static void run_options(struct run_parse *p, struct pf_option t[RUN_N_OPTIONS])
{
	struct pf_opts *o = p->o;
	const struct pf_option opts[RUN_N_OPTIONS] = {
		PF_OPT_BOOL(0, "list", &o->list, "list the checks"),
		PF_OPT_BOOL(0, "list-codes", &o->list_codes,
			    "every check's finding codes and actions (docs/codes.md)"),
		PF_OPT_STRING(0, "describe", &o->describe, "NAME",
			      "what a check reads and its thresholds"),
		PF_OPT_BOOL(0, "all", &o->all,
			    "run every check, the traffic tests included\n"
			    "(default: the static checks, in milliseconds)"),
		PF_OPT_STRING(0, "only", &o->only, "A,B",
			      "run only these checks or tags (--only rdma,gpu); a\n"
			      "traffic test only by name or by the tag traffic"),
		PF_OPT_STRING(0, "skip", &o->skip, "C,D",
			      "do not run these checks or tags (--skip traffic)"),
		PF_OPT_STRING(0, "format", &o->format, "FORMAT",
			      "json, text, junit, prom or line (default: text on a\n"
			      "terminal, else json; line: one line per check that did\n"
			      "not pass, for node-problem-detector)"),
		{ .type = PF_OPT_T_UINT, .long_name = "line-max", .value = &p->o->line_max,
		  .argh = "N", .help = "--format line: at most N bytes a line (default 80,\n"
		  "node-problem-detector's max_output_length)",
		  .min = 16, .max = 65536, .unit = "bytes" },
		PF_OPT_STRING(0, "output", &o->output, "FILE",
			      "write the report to FILE atomically; %n in FILE is\n"
			      "the hostname, %j the Slurm job id (srun, pdsh)"),
		PF_OPT_BOOL(0, "compact", &o->compact, "JSON on one line (default: indented like jq)"),
		PF_OPT_STRING(0, "root", &o->root, "DIR",
			      "read the node under DIR (a snapshot); default /"),
		PF_OPT_STRING(0, "topology", &o->topology, "FILE",
			      "PCI/GPU/NIC topology from an lstopo XML export\n"
			      "(default: <root>/preflight/topology.xml if present, else sysfs)"),
		PF_OPT_STRING(0, "profile", &o->profile, "FILE|NAME",
			      "expectations from a JSON profile (a path with a '/'),\n"
			      "or a site or shipped one by name (--profile dgx-h100)"),
		PF_OPT_CALLBACK(0, "list-profiles", &p->list_profiles, NULL,
				"the profile names --profile finds, and exit", opt_stop),
		PF_OPT_CALLBACK(0, "set", o, "CHECK.KEY=VALUE",
				"override one expectation (repeatable)", opt_set),
		{ .type = PF_OPT_T_UINT, .long_name = "timeout", .value = &p->timeout_s,
		  .argh = "SECONDS", .help = "deadline for each check (default: the check's own)",
		  .min = 1, .max = 86400, .unit = "seconds", .given = &p->timeout_given },
		PF_OPT_BOOL(0, "no-fork", &o->runner.no_fork, "run checks in this process (debugging)"),
		PF_OPT_BOOL(0, "check-config", &o->check_config,
			    "validate these arguments and the profile, print what a\n"
			    "run would do, run nothing (exit 0 or 64)"),
		PF_OPT_BOOL(0, "slurm", &o->slurm,
			    "Slurm mode: a one-line reason on stderr, and exit 0\n"
			    "unless the verdict drains (automatic under Slurm)"),
		PF_OPT_CALLBACK(0, "drain", o, NULL,
				"on fail (see --drain-on), drain this Slurm node with\n"
				"the reason; on a usage or profile error, with\n"
				"'preflight: config error: ...'", opt_drain),
		PF_OPT_CALLBACK(0, "drain-on", o, "LEVEL",
				"fail (default), error or warn: the least verdict that\n"
				"drains the node (and exits non-zero under Slurm)", opt_drain_on),
		PF_OPT_CALLBACK(0, "reboot-on", o, "CODE,...",
				"with --drain: where every finding that drains has\n"
				"one of these codes (action reboot or reload_driver),\n"
				"ask Slurm to reboot the node and resume it instead", opt_reboot_on),
		{ .type = PF_OPT_T_UINT, .long_name = "confirm", .value = &o->confirm,
		  .argh = "N", .help = "re-run a failing static check up to N times (a windowed\n"
		  "one once) and keep the fail only if every re-run fails;\n"
		  "remember per boot the counts fails rest on (--state-dir)",
		  .min = 0, .max = PF_CONFIRM_MAX, .unit = "re-runs" },
		PF_OPT_STRING(0, "state-dir", &o->state_dir, "DIR",
			      "--confirm's per-boot counts (default " PF_STATE_DIR_DEFAULT ")"),
		PF_OPT_CALLBACK(0, "undrain", o, NULL,
				"on pass (or warn below --drain-on), resume the node if\n"
				"preflight drained it", opt_undrain),
		/* read before the options (site_argv): nothing to do here */
		PF_OPT_STRING(0, "config", &p->config, "FILE",
			      "site configuration (default " PF_SITECONF_PATH "\n"
			      "and its .d/*.conf drop-ins; $PREFLIGHT_CONFIG)"),
		PF_OPT_BOOL(0, "no-config", &p->ignored, "ignore the site configuration"),
		PF_OPT_CALLBACK(0, "version", &p->version, NULL, "print the version", opt_stop),
		PF_OPT_HELP("this text"),
		PF_OPT_END,
	};

	memcpy(t, opts, sizeof(opts));
}

static int parse_args(int argc, char **argv, struct pf_opts *o)
{
	struct run_parse p = { .o = o };
	struct pf_option opts[RUN_N_OPTIONS];
	struct pf_cmdopt cmd = run_msgs;
	int r;

	run_options(&p, opts);
	cmd.usage = o->capture ? capture_usage : run_usage;
	cmd.out = stdout;
	cmd.err = stderr;
	r = pf_cmdopt_parse(&cmd, opts, argc, argv);
	if (p.timeout_given)
		o->runner.timeout_s = (unsigned int)p.timeout_s;
	if (r == PF_CMDOPT_STOP && p.list_profiles)
		return pf_profile_list_names() < 0 ? PF_EXIT_IOERR : -1;
	if (r == PF_CMDOPT_STOP) {
		printf("preflight %s\n", PF_VERSION);
		return -1;
	}
	if (r != PF_CMDOPT_END)
		return r == PF_CMDOPT_HELP ? -1 : PF_EXIT_USAGE; /* -1: done (--help) */
	if (optind < argc)
		return pf_usage_error("unexpected argument '%s' (see --help)", argv[optind]);
	if (o->slurm_opts.reboot_on && !o->slurm_opts.drain)
		return pf_usage_error("--reboot-on needs --drain: it asks Slurm for a reboot "
				   "where the node would be drained");
	if (o->all && o->only)
		return pf_usage_error("--all and --only exclude each other (--all --skip C runs "
				   "every check but C)");
	if (o->only && check_names(o->only, "--only"))
		return PF_EXIT_USAGE;
	if (o->skip && check_names(o->skip, "--skip"))
		return PF_EXIT_USAGE;
	return 0;
}

/* Whether @c runs, and when not, why (*ret_why): the registry's selection (select.h). */
bool pf_run_selected_why(const struct pf_opts *o, const struct pf_check *c, const char **ret_why)
{
	const struct pf_select sel = {
		.only = o->only, .skip = o->skip, .all = o->all, .capture = o->capture,
	};

	return pf_select_check(&sel, c, ret_why);
}

bool pf_run_selected(const struct pf_opts *o, const struct pf_check *c)
{
	return pf_run_selected_why(o, c, NULL);
}

int pf_run_load_config(struct pf_opts *o, enum pf_format *ret_fmt, struct pf_fs **ret_fs)
{
	size_t n_all, n = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	pf_autofree char *err = NULL;
	int r;

	if (o->format) {
		if (pf_format_from_name(o->format, ret_fmt) < 0)
			return pf_usage_error("--format: unknown format '%s' (json, text, junit, "
					   "prom or line)", o->format);
	} else {
		*ret_fmt = !o->output && isatty(STDOUT_FILENO) ? PF_FORMAT_TEXT : PF_FORMAT_JSON;
	}
	if (o->profile) {
		pf_autofree char *path = NULL;

		r = pf_profile_resolve(o->profile, &path, &err);
		if (r < 0)
			return pf_usage_error("%s", err);
		r = pf_profile_load(&o->prof, path, &err);
		if (r < 0)
			return pf_usage_error("%s", err ? err : "cannot load the profile");
	}
	r = pf_profile_validate(&o->prof, all, n_all, &err);
	if (r < 0)
		return pf_usage_error("%s", err ? err : "invalid profile");
	/* --drain-on wins over the profile's "drain_on" (validated when loaded) */
	if (o->slurm_opts.drain_on == PF_STATUS_PASS && o->prof.drain_on) {
		r = pf_slurm_drain_on_from_name(o->prof.drain_on, &o->slurm_opts.drain_on);
		PF_BUG_ON(r < 0);
	}

	for (size_t i = 0; i < n_all; i++)
		n += pf_run_selected(o, all[i]);
	/* an empty selection would pass every node: "--only $UNSET" is a usage error */
	if (n == 0)
		return pf_usage_error("no check selected (--only '%s', --skip '%s'; see --list)",
				   o->only ? o->only : "", o->skip ? o->skip : "");

	if (o->topology && !o->root && !o->capture) {
		/* another node's export: judge it alone, never with this machine's facts */
		o->no_root = true;
		o->root = "none";
		*ret_fs = pf_fs_open_empty();
	} else {
		o->root = o->root ? o->root : "/";
		r = pf_fs_open(o->root, ret_fs);
		if (r < 0)
			return pf_usage_error("--root: cannot open '%s': %s", o->root, strerror(-r));
	}
	if (o->output && strchr(o->output, '%')) {
		struct pf_report node = { 0 };

		/* %n is the node's hostname (under --root, the recorded one), %j the Slurm job */
		pf_report_describe_node(&node, *ret_fs);
		o->output_template = o->output;
		r = pf_output_expand(o->output, node.hostname, getenv("SLURM_JOB_ID"),
				     &o->output_buf, &err);
		if (r < 0)
			return pf_usage_error("--output: %s", err);
		o->output = o->output_buf;
	}
	return 0;
}


/* The options that make no sense in a site configuration. */
static const char *const site_deny[] = { "config", "no-config", "check-config", "list",
					 "list-codes", "describe", "help", "version", NULL };

/*
 * Read the site configuration (--config FILE, else $PREFLIGHT_CONFIG, else
 * PF_SITECONF_PATH; none with --no-config) and put its options before the
 * command line's in a new argv (*ret_args, freed by the caller), so that
 * the command line wins; (*ret_args)[1..*ret_owned] are allocated here.
 * --all and --only exclude each other: the command line's one drops the
 * site's other.
 */
int pf_run_site_load(struct pf_siteconf *sc, const char *path, char **ret_err)
{
	struct pf_opts o = { 0 };
	struct run_parse p = { .o = &o };
	struct pf_option opts[RUN_N_OPTIONS];
	pf_autofree struct option *longopts = NULL;

	run_options(&p, opts);
	longopts = pf_cmdopt_longopts(opts);
	return pf_siteconf_load(sc, path, longopts, site_deny, ret_err);
}

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
	if (pf_run_site_load(sc, path, &err) < 0)
		return pf_usage_error("site config: %s", err ? err : "cannot read");
	o->site = sc;
	v = pf_xcalloc(sc->n_entries + (size_t)*argc + 1, sizeof(*v));
	v[n++] = (*argv)[0];
	for (size_t i = 0; i < sc->n_entries; i++) {
		const struct pf_siteconf_entry *e = &sc->entries[i];

		if ((!strcmp(e->key, "all") && pf_cmdopt_has(*argc, *argv, "--only")) ||
		    (!strcmp(e->key, "only") && pf_cmdopt_has(*argc, *argv, "--all")))
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
 * The site configuration's options, then the command line's, into @o
 * (`profile capture` reads no site configuration).  0, -1 when the command
 * ends here with exit 0 (--help, --version, --list-profiles), or the exit
 * code of a usage error (said on stderr).
 */
int pf_run_options(struct pf_opts *o, struct pf_siteconf *site, int *argc, char ***argv,
		   char ***ret_site_args, int *ret_n_owned)
{
	int rc = o->capture ? 0 : site_argv(o, site, argc, argv, ret_site_args, ret_n_owned);

	o->n_site_args = *ret_n_owned;
	return rc ? rc : parse_args(*argc, *argv, o);
}

const char *pf_run_first_error(void)
{
	return first_usage_error;
}

void pf_run_forget_errors(void)
{
	free(first_usage_error);
	first_usage_error = NULL;
}
