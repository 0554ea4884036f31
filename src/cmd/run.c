// SPDX-License-Identifier: MIT
/*
 * run.c - the default command: argv -> options -> checks -> report -> exit
 * code, and `profile capture`, the same run with a profile as its output.
 *
 * The only place that prints diagnostics for the user and chooses the exit
 * status: 0 no fail and no error, 1 a fail, 2 an error and no fail, 64 usage
 * or profile error, 70 internal bug, 74 the report could not be written.
 * Under Slurm (--slurm, --drain, --undrain or Slurm's environment) the exit
 * status is the drain decision: 0 for a verdict below drain_on (fail unless
 * --drain-on or the profile's "drain_on" say error or warn), so that a Prolog
 * never drains on a check that could not decide unless asked to.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/rail_facts.h"
#include "preflight/rails.h"
#include "capture.h"
#include "cmdopt.h"
#include "clock.h"
#include "confirm.h"
#include "exit.h"
#include "output.h"
#include "profdirs.h"
#include "registry.h"
#include "run.h"
#include "version.h"

/*
 * Write the report to --output @path the way every command writes its
 * output (pf_report_write(), src/core/output.h): the directory walked
 * component by component, nothing another user could swap followed,
 * atomically through a temporary file and a rename, a device or FIFO of
 * ours in place.
 */
static int write_report_file(const struct pf_report *r, enum pf_format fmt, const char *path)
{
	pf_autofree char *why = NULL;
	int rr = pf_report_write(r, fmt, path, NULL, false, &why);

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
/* A root with neither /sys nor /proc: it adds nothing to a topology export. */
static bool root_is_empty(const struct pf_fs *fs)
{
	return !pf_fs_is_live(fs) && pf_fs_exists(fs, "/sys") != 1 && pf_fs_exists(fs, "/proc") != 1;
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
 * a selected check needs or uses it (or --topology/--capture asks for it).  A
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
		if (!pf_run_selected(o, all[i]) ||
		    !(o->topology || o->capture ||
		      (all[i]->flags & (PF_CHECK_NEEDS_NODE | PF_CHECK_USES_NODE))))
			continue;
		r = pf_node_load(fs, o->topology, ret_node, &err);
		if (r < 0) {
			if (o->topology)
				return pf_usage_error("--topology: %s", err ? err : strerror(-r));
			*ret_err = pf_xasprintf("cannot read the node inventory under %s: %s",
						o->root, err ? err : strerror(-r));
			fprintf(stderr, "preflight: %s\n", *ret_err);
			break;
		}
	}
	return 0;
}

/*
 * The rail model of ctx's node with the roles the profile declares, and its
 * ports for the report (pointing into the model and the node).  A port
 * declared twice is a usage error.
 */
static int load_rails(const struct pf_opts *o, const struct pf_ctx *ctx, struct pf_rails **ret,
		      struct pf_report_port **ret_ports)
{
	const char *declared[PF_ROLE_COUNT];
	pf_autofree char *err = NULL;
	struct pf_report_port *ports;
	struct pf_rails *rails;
	int r;

	for (int i = 0; i < PF_ROLE_COUNT; i++)
		declared[i] = pf_profile_rails(&o->prof, pf_port_role_name((enum pf_port_role)i));
	r = pf_rails_for_ctx(ctx, declared, &rails, &err);
	if (r < 0)
		return pf_usage_error("%s", err ? err : strerror(-r));
	ports = pf_xcalloc(rails->n_ports + 1, sizeof(*ports));
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *e = &rails->ports[i];

		ports[i] = (struct pf_report_port){
			.device = ctx->node->rdma[e->rdma].name,
			.port = e->port,
			.role = pf_port_role_name(e->role),
			.reason = e->reason,
			.declared = e->declared,
			.rail = e->rail,
			.gpu = e->gpu >= 0 ? ctx->node->pci[ctx->node->gpus[e->gpu].pci].bdf : NULL,
			.link_layer = e->link_layer == PF_LINK_IB ? "InfiniBand"
				      : e->link_layer == PF_LINK_ETH ? "Ethernet" : "unknown",
			.rate_gbps = e->rate_gbps,
			.up = e->up,
			.netdev = e->netdev,
			.subnet = e->subnet,
			.ib_subnet = e->ib_subnet,
			.sm_lid = e->sm_lid,
			.lldp_chassis = e->lldp_chassis,
			.lldp_port = e->lldp_port,
		};
	}
	*ret = rails;
	*ret_ports = ports;
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

		if (!pf_run_selected_why(o, all[i], &why)) {
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

/* Write the report to --output or stdout; 0, or the exit code when it cannot be written. */
static int write_report(const struct pf_opts *o, struct pf_report *report, enum pf_format fmt)
{
	bool color;
	int r, rc;

	report->line_max = (unsigned int)o->line_max;
	if (o->output) {
		return write_report_file(report, fmt, o->output);
	}
	color = fmt == PF_FORMAT_TEXT && isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	report->width = fmt == PF_FORMAT_TEXT ? terminal_width(STDOUT_FILENO) : 0;

	r = o->stdout_closed ? -EBADF : pf_report_write(report, fmt, NULL, stdout, color, NULL);
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
		/* a signal during the gate stops scontrol (src/slurm/slurm.c) and is said below */
		if (o->slurm || pf_slurm_detected()) {
			int g = pf_slurm_gate(report, &o->slurm_opts, stderr);

			rc = slurm_exit_code(rc, pf_report_verdict(report), &o->slurm_opts);
			/* a refused node name or scontrol program: the wrapper's config is wrong */
			if ((g == -EINVAL || g == -EPERM) && rc != PF_EXIT_IOERR)
				rc = PF_EXIT_USAGE;
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

/* The default command's sink: the report written, then the exit code it decides. */
static int report_sink(struct pf_opts *o, struct pf_report *report, const struct pf_node *node,
		       enum pf_format fmt)
{
	(void)node;
	return judge_exit(o, report, write_report(o, report, fmt));
}

/*
 * `profile capture`'s: a profile of what the checks observed (src/capture)
 * as JSON on stdout, its notes on stderr.  0 written, 70 internal error
 * (the profile does not validate), 74 not written.
 */
static int capture_sink(struct pf_opts *o, struct pf_report *report, const struct pf_node *node,
			enum pf_format fmt)
{
	pf_autofree char *why = NULL, *text = NULL;
	pf_autostrv char **notes = NULL;
	pf_autojson cJSON *prof = NULL;
	int r;

	(void)fmt;
	r = pf_capture_profile(report, node, &o->prof, &prof, &notes, &why);
	if (r < 0) {
		fprintf(stderr, "preflight: BUG: the captured profile does not validate: %s\n",
			why ? why : strerror(-r));
		return PF_EXIT_SOFTWARE;
	}
	for (char **n = notes; *n; n++)
		fprintf(stderr, "preflight profile capture: %s\n", *n);
	if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(prof, "checks")))
		fprintf(stderr, "preflight profile capture: nothing observed to capture "
				"(no GPU, RDMA port or passing check with a capturable value)\n");
	text = pf_json_print(prof, false);
	fputs(text, stdout);
	fputc('\n', stdout);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "preflight: cannot write the profile: %s\n", strerror(errno));
		return PF_EXIT_IOERR;
	}
	return 0;
}

/*
 * --confirm: re-run the fails, then (on the live node only: a snapshot's
 * verdict never depends on this machine's state) say once, not at every run
 * of this boot, a fail whose counts an earlier run reported.  The state is
 * advisory: when it cannot be read or written the run goes on, said on stderr.
 */
static void confirm_fails(const struct pf_opts *o, const struct pf_ctx *ctx, struct pf_run *runs,
			  size_t n)
{
	const char *dir = o->state_dir ? o->state_dir : PF_STATE_DIR_DEFAULT;
	pf_autofree char *boot_id = NULL, *warn = NULL, *err = NULL;
	pf_autojson cJSON *prev = NULL, *next = NULL;
	int r;

	pf_confirm_fails(ctx, runs, n, (unsigned int)o->confirm, &o->runner);
	if (!pf_fs_is_live(ctx->fs))
		return;
	r = pf_fs_read_line(ctx->fs, "/proc/sys/kernel/random/boot_id", &boot_id);
	if (r < 0 || !*boot_id) {
		fprintf(stderr, "preflight: --confirm: no boot id (/proc/sys/kernel/random/boot_id: "
			"%s): counts are not remembered\n", r < 0 ? strerror(-r) : "empty");
		return;
	}
	r = pf_counts_load(dir, boot_id, &prev, &warn);
	if (warn)
		fprintf(stderr, "preflight: --confirm: %s; earlier counts not used\n", warn);
	if (r < 0) {
		if (!warn)
			fprintf(stderr, "preflight: --confirm: %s: %s; counts are not remembered\n",
				dir, strerror(-r));
		return;
	}
	pf_counts_apply(prev, runs, n);
	next = pf_counts_next(prev, runs, n, boot_id);
	r = pf_counts_save(dir, next, &err);
	if (r < 0)
		fprintf(stderr, "preflight: --confirm: cannot save the counts in %s: %s\n", dir,
			err ? err : strerror(-r));
}

static int run_checks(struct pf_opts *o)
{
	size_t n_all, n;
	const struct pf_check *const *all = pf_registry(&n_all);
	pf_autofs struct pf_fs *fs = NULL;
	pf_autonode struct pf_node *node = NULL;
	pf_autorails struct pf_rails *rails = NULL;
	pf_autofree struct pf_report_port *ports = NULL;
	struct pf_report report = { .version = PF_VERSION };
	struct pf_ctx ctx = { 0 };
	enum pf_format fmt;
	pf_autofree struct pf_run *runs = NULL;
	pf_autofree struct pf_unselected *unselected = NULL;
	pf_autofree char *node_err = NULL;
	double t0 = pf_now_ms();
	int r, rc;

	r = pf_run_load_config(o, &fmt, &fs);
	if (r)
		return r;
	pf_runner_catch_signals();
	r = load_node(o, fs, all, n_all, &node, &node_err);
	if (r)
		return r;
	ctx.node = node;
	ctx.fs = fs;
	ctx.prov = pf_providers_for(fs);
	/* before the plan: a roles error returns with nothing else built yet */
	if (node) {
		r = load_rails(o, &ctx, &rails, &ports);
		if (r)
			return r;
		ctx.rails = rails;
		report.ports = ports;
		report.n_ports = rails->n_ports;
	}

	runs = pf_xcalloc(n_all, sizeof(*runs));
	unselected = pf_xcalloc(n_all, sizeof(*unselected));
	n = plan_runs(o, all, n_all, runs, unselected, &report);

	report_sources(o, &ctx, fs, &report);
	/* a live status line while checks run, only for a person at a terminal */
	o->runner.progress = isatty(STDERR_FILENO) ? stderr : NULL;
	report.started_at = time(NULL);
	o->runner.node_error = node_err;
	o->runner.topology_only = report.topology_only;
	/* facts read from the node itself: its providers load CUDA, NVML and verbs */
	o->runner.libraries_live = pf_prov_can(&ctx, PF_PROV_NODE);
	pf_runner_run(&ctx, runs, n, &o->runner);
	if (o->confirm)
		confirm_fails(o, &ctx, runs, n);

	report.root = o->no_root ? "none" : pf_fs_root(fs);
	report.profile = o->prof.name ? o->prof.name : "generic";
	report.runs = runs;
	report.n_runs = n;
	report.selection = o->only ? "only" : o->all ? "all" : "default";
	report.unselected = unselected;
	report.compact = o->compact;
	pf_report_describe_node(&report, fs);
	report.duration_ms = pf_now_ms() - t0;

	rc = o->sink(o, &report, node, fmt);
	for (size_t i = 0; i < n; i++) {
		pf_config_free(runs[i].check, runs[i].cfg);
		pf_result_release(&runs[i].res);
	}
	return rc;
}

/* `preflight profile` without `capture`: its help, or a usage error. */
static int profile_usage(int argc, char **argv)
{
	bool help = argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help"));

	if (argc > 1 && !help)
		fprintf(stderr, "preflight profile: unknown subcommand '%s'\n", argv[1]);
	pf_print_profile_help(help ? stdout : stderr);
	return help ? PF_EXIT_OK : PF_EXIT_USAGE;
}

/* A run: the site config, the options, then a printer or the checks. */
static int run_line(int argc, char **argv, bool capture, bool stdout_closed)
{
	struct pf_opts o = { .capture = capture, .stdout_closed = stdout_closed,
			     .sink = capture ? capture_sink : report_sink };
	struct pf_siteconf site = { 0 };
	char **site_args = NULL; /* [1..n_owned] allocated */
	int n_owned = 0;
	int rc;

	pf_profile_init(&o.prof);
	rc = pf_run_options(&o, &site, &argc, &argv, &site_args, &n_owned);
	if (rc == 0) {
		if (o.list)
			pf_list_checks();
		else if (o.list_codes)
			pf_list_codes();
		else if (o.describe)
			rc = pf_describe_check(o.describe);
		else if (o.check_config)
			rc = pf_check_config(&o);
		else
			rc = run_checks(&o);
	} else if (rc < 0) {
		rc = 0; /* --help, --version */
	}
	/*
	 * A typo in a Prolog wrapper would drain the node as "Prolog error":
	 * under --drain, say what is wrong in the reason (never for a test run).
	 */
	if (rc == PF_EXIT_USAGE && pf_cmdopt_has(argc, argv, "--drain") &&
	    !pf_cmdopt_has(argc, argv, "--check-config"))
		pf_slurm_drain_config_error(&o.slurm_opts, pf_run_first_error(), stderr);
	if (o.stdout_closed && rc == 0 && !o.output) {
		fputs("preflight: cannot write to stdout: it is closed\n", stderr);
		rc = PF_EXIT_IOERR;
	}
	pf_run_forget_errors();
	free(o.output_buf);
	pf_profile_release(&o.prof);
	pf_siteconf_release(&site);
	for (int i = 1; i <= n_owned; i++)
		free(site_args[i]);
	free(site_args);
	return rc;
}

int pf_run_main(int argc, char **argv, bool stdout_closed)
{
	return run_line(argc, argv, false, stdout_closed);
}

int pf_profile_main(int argc, char **argv, bool stdout_closed)
{
	if (argc < 2 || strcmp(argv[1], "capture"))
		return profile_usage(argc, argv);
	return run_line(argc - 1, argv + 1, true, stdout_closed);
}
