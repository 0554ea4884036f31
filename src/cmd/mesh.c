// SPDX-License-Identifier: MIT
/*
 * mesh.c - `preflight mesh`: run on every node of an allocation (srun -N N
 * --ntasks-per-node=1 preflight mesh --output DIR/%n.json), the ranks meet
 * (src/mesh/mesh_rdv.c), each prints the exchanged rail tables and the
 * schedule of node pairs (src/pairs/schedule.c), runs its rounds of RDMA
 * traffic with its partners (src/mesh/mesh_data.c), meets the others again
 * to gather every rank's measurements, and writes a preflight.report/v1
 * report whose one check, "mesh", judges this node from the whole matrix
 * (src/mesh/mesh_judge.c, docs/mesh.md).  The front end only: options,
 * calls into src/mesh, the report through src/report's writer.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cmdopt.h"
#include "commands.h"
#include "exit.h"
#include "mesh.h"
#include "mesh_print.h"
#include "mesh_secret.h"
#include "output.h"
#include "preflight/fs.h"
#include "preflight/gpu_provider.h"
#include "hostlist.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/rail_facts.h"
#include "preflight/rails.h"
#include "profdirs.h"
#include "profile.h"
#include "report.h"
#include "run.h"
#include "siteconf.h"
#include "version.h"

#define MESH_PORT_DEFAULT 29517
#define MESH_TIMEOUT_DEFAULT 30
#define MESH_DURATION_DEFAULT 2000
#define MESH_MSG_SIZE 65536
#define MESH_GATHER_MAX 4096 /* measurements one rank may bring */

struct mesh_opts {
	const char *peers, *output, *bind, *nics;
	const char *connect; /* auto, cm (rdma_cm), verbs */
	const char *use_gpu; /* auto, on, off */
	const char *secret_file; /* else PREFLIGHT_MESH_SECRET */
	bool new_secret;
	enum pf_format format;
	long rank, size;
	unsigned long port, timeout_s, seed, duration_ms, data_port;
	bool compact;
	/* the roles a site declares (docs/rails.md): the site config, --profile, --set */
	const char *config, *profile;
	bool no_config;
	const char *sets[PF_ROLE_COUNT * 4];
	size_t n_sets;
};

static const struct pf_check mesh_check = {
	.name = "mesh",
	.summary = "pairwise traffic between the nodes of an allocation",
	.tags = "rdma,multinode",
	.reads = "the other ranks over TCP (rendezvous) and RDMA (traffic: RDMA-CM, or verbs "
		 "with records through the rendezvous)",
	.codes = pf_mesh_codes,
};

static int mesh_usage(FILE *f, int rc)
{
	fputs("usage: preflight mesh [--peers HOSTLIST] [--rank N] [--size N] [--port P]\n"
	      "                      [--timeout SECONDS] [--seed N] [--bind ADDR]\n"
	      "                      [--duration MS] [--data-port P] [--nics DEV,...]\n"
	      "                      [--connect auto|cm|verbs] [--use-gpu auto|on|off]\n"
	      "                      [--output FILE] [--compact] [--format json|text|junit|prom]\n"
	      "                      [--config FILE | --no-config] [--profile NAME]\n"
	      "                      [--set rails.ROLE=DEV,...] [--secret-file FILE]\n"
	      "       preflight mesh --new-secret\n"
	      "Under srun, rank, size and peers come from SLURM_PROCID, SLURM_NTASKS and\n"
	      "SLURM_JOB_NODELIST (one task per node; the first host is rank 0).\n"
	      "Each round, rail i of this node and rail i of its partner write to each\n"
	      "other for --duration ms (docs/mesh.md), connected over RDMA-CM on\n"
	      "--data-port, or with plain verbs, the QP records through the rendezvous\n"
	      "(--connect; auto: RDMA-CM when every rail is RoCE with an address), from\n"
	      "the memory of each rail's nearest GPU (--use-gpu; auto: where CUDA sees it,\n"
	      "else host memory with a warning); the\n"
	      "rails are this node's compute rails, with the roles the site declares in\n"
	      "its config, the profile or --set (docs/rails.md), unless --nics names them.\n"
	      "The ranks prove they belong to the run with a secret they all hold: the file\n"
	      "of --secret-file (0600, this user's) or hex in PREFLIGHT_MESH_SECRET;\n"
	      "--new-secret prints a fresh one (docs/mesh.md \"Authentication\").\n", f);
	return rc;
}

static void mesh_help(FILE *f, const struct pf_option *opts)
{
	(void)opts; /* the synopsis says it all: no listing */
	mesh_usage(f, PF_EXIT_OK);
}

static int parse_format(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	if (pf_format_from_name(arg, opt->value) < 0) {
		pf_cmdopt_error(c, "--format: unknown format '%s' (json, text, junit or prom)", arg);
		return -EINVAL;
	}
	return 0;
}

static int parse_use_gpu(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "on") && strcmp(arg, "off")) {
		pf_cmdopt_error(c, "--use-gpu: '%s' is not auto, on or off", arg);
		return -EINVAL;
	}
	*(const char **)opt->value = arg;
	return 0;
}

static int parse_connect(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	if (strcmp(arg, "auto") && strcmp(arg, "cm") && strcmp(arg, "rdma_cm") &&
	    strcmp(arg, "verbs")) {
		pf_cmdopt_error(c, "--connect: '%s' is not auto, cm or verbs", arg);
		return -EINVAL;
	}
	*(const char **)opt->value = arg;
	return 0;
}

/* --set rails.ROLE=DEV,...: the only settings mesh reads (the rail model's roles). */
static int parse_set(struct pf_cmdopt *c, const struct pf_option *opt, const char *arg)
{
	struct mesh_opts *o = opt->value;
	const char *eq = strchr(arg, '=');
	char name[16];
	enum pf_port_role role;
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!eq || n <= 6 || strncmp(arg, "rails.", 6) || n - 6 >= sizeof(name)) {
		pf_cmdopt_error(c, "--set '%s': mesh takes only rails.ROLE=DEV,... (docs/rails.md)",
				arg);
		return -EINVAL;
	}
	memcpy(name, arg + 6, n - 6);
	name[n - 6] = '\0';
	if (pf_port_role_from_name(name, &role) < 0) {
		pf_cmdopt_error(c, "--set '%s': unknown role '%s' (compute, storage, frontend or "
				"unused)", arg, name);
		return -EINVAL;
	}
	if (o->n_sets == PF_ARRAY_SIZE(o->sets)) {
		pf_cmdopt_error(c, "--set: more than %zu rails settings", PF_ARRAY_SIZE(o->sets));
		return -E2BIG;
	}
	o->sets[o->n_sets++] = arg;
	return 0;
}

static int mesh_parse(int argc, char **argv, struct mesh_opts *o, FILE *out, FILE *err)
{
	unsigned long rank = 0, size = 0;
	bool rank_given = false, size_given = false;
	const struct pf_option opts[] = {
		PF_OPT_STRING(0, "peers", &o->peers, "HOSTLIST", NULL),
		{ .type = PF_OPT_T_UINT, .long_name = "rank", .value = &rank, .argh = "N",
		  .min = 0, .max = PF_MESH_RANKS_MAX, .given = &rank_given },
		{ .type = PF_OPT_T_UINT, .long_name = "size", .value = &size, .argh = "N",
		  .min = 1, .max = PF_MESH_RANKS_MAX, .given = &size_given },
		PF_OPT_UINT(0, "port", &o->port, "P", NULL, 1, 65535, NULL),
		PF_OPT_UINT(0, "timeout", &o->timeout_s, "SECONDS", NULL, 1, 3600, NULL),
		PF_OPT_UINT(0, "seed", &o->seed, "N", NULL, 0, ULONG_MAX, NULL),
		PF_OPT_STRING(0, "bind", &o->bind, "ADDR", NULL),
		PF_OPT_FILE('o', "output", &o->output, NULL),
		PF_OPT_BOOL(0, "compact", &o->compact, NULL),
		PF_OPT_UINT(0, "duration", &o->duration_ms, "MS", NULL, 1, 600000, NULL),
		PF_OPT_UINT(0, "data-port", &o->data_port, "P", NULL, 1, 65535, NULL),
		PF_OPT_STRING(0, "nics", &o->nics, "DEV,...", NULL),
		PF_OPT_CALLBACK(0, "connect", &o->connect, "auto|cm|verbs", NULL, parse_connect),
		PF_OPT_CALLBACK(0, "use-gpu", &o->use_gpu, "auto|on|off", NULL, parse_use_gpu),
		PF_OPT_CALLBACK(0, "format", &o->format, "FORMAT", NULL, parse_format),
		PF_OPT_STRING(0, "config", &o->config, "FILE", NULL),
		PF_OPT_BOOL(0, "no-config", &o->no_config, NULL),
		PF_OPT_STRING(0, "profile", &o->profile, "NAME", NULL),
		PF_OPT_CALLBACK(0, "set", o, "rails.ROLE=DEV,...", NULL, parse_set),
		PF_OPT_FILE(0, "secret-file", &o->secret_file, NULL),
		PF_OPT_BOOL(0, "new-secret", &o->new_secret, NULL),
		PF_OPT_END,
	};
	struct pf_cmdopt cmd = { .cmd = "mesh", .usage = mesh_help, .out = out, .err = err };
	int r = pf_cmdopt_parse(&cmd, opts, argc, argv);

	if (r != PF_CMDOPT_END)
		return r == PF_CMDOPT_HELP ? -1 : PF_EXIT_USAGE; /* -1: done */
	if (optind < argc)
		return pf_cmdopt_error(&cmd, "unexpected argument '%s'", argv[optind]);
	if (rank_given)
		o->rank = (long)rank;
	if (size_given)
		o->size = (long)size;
	return 0;
}

/* Rank, size and hosts from the options, else Slurm's environment. */
static int mesh_world(struct mesh_opts *o, struct pf_hostlist *hl, FILE *err)
{
	pf_autostrbuf struct pf_strbuf why = PF_STRBUF_INIT;
	const char *peers = o->peers ? o->peers : getenv("SLURM_JOB_NODELIST");
	unsigned long v;
	int n;

	if (!peers) {
		fputs("preflight mesh: no peers: give --peers HOSTLIST or run under srun "
		      "(SLURM_JOB_NODELIST)\n", err);
		return PF_EXIT_USAGE;
	}
	o->peers = peers; /* the run's nodelist, recorded in the report */
	n = pf_hostlist_expand(peers, PF_MESH_RANKS_MAX, hl, &why);
	if (n < 1) {
		fprintf(err, "preflight mesh: bad peer list: %s\n", n < 0 ? why.buf : "empty");
		return PF_EXIT_USAGE;
	}
	if (o->rank < 0 && pf_cmdopt_uint(getenv("SLURM_PROCID"), 0, PF_MESH_RANKS_MAX, &v))
		o->rank = (long)v;
	if (o->size < 0 && pf_cmdopt_uint(getenv("SLURM_NTASKS"), 1, PF_MESH_RANKS_MAX, &v))
		o->size = (long)v;
	if (o->size < 0)
		o->size = n;
	if (o->rank < 0 || o->size != n || o->rank >= o->size) {
		fprintf(err, "preflight mesh: rank %ld of %ld with %d host%s: give --rank, and one "
			     "task per host (srun --ntasks-per-node=1)\n", o->rank, o->size, n,
			n == 1 ? "" : "s");
		return PF_EXIT_USAGE;
	}
	return 0;
}

/* This rank's partner in each round (-1: none), for the report. */
static cJSON *mesh_partners(const struct pf_mesh_schedule *s, uint32_t rank)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t r = 0; r < s->n_rounds; r++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)pf_mesh_partner(s, r, rank)));
	return a;
}

/* The report through the one writer (src/report/write.c), in --format. */
static int mesh_write(const struct mesh_opts *o, struct pf_report *rep, const char *host,
		      FILE *out, FILE *err)
{
	pf_autofree char *path = NULL, *why = NULL;
	bool color = false;
	int r = 0;

	rep->compact = o->compact;
	rep->json_tabs = true;
	if (o->output)
		r = pf_output_expand(o->output, host, getenv("SLURM_JOB_ID"), &path, &why);
	else
		color = o->format == PF_FORMAT_TEXT && isatty(fileno(out)) && !getenv("NO_COLOR");
	if (r == 0)
		r = pf_report_write(rep, o->format, path, out, color, &why);
	if (r < 0) {
		fprintf(err, "preflight mesh: cannot write the report: %s\n",
			why ? why : strerror(-r));
		return r == -EINVAL && o->output && !path ? PF_EXIT_USAGE : PF_EXIT_IOERR;
	}
	return PF_EXIT_OK;
}

/*
 * The roles the site declares, into @prof, as the default run takes them:
 * the site config (read into @sc, which @prof's settings point into: keep
 * it until @prof is done) with its profile and `set` entries (its other
 * keys are the run's and are not read here), then --profile, then --set.
 * 0, or a usage error's exit code (said on @err).
 */
static int mesh_roles(const struct mesh_opts *o, struct pf_siteconf *sc, struct pf_profile *prof,
		      FILE *err)
{
	const char *path = o->config ? o->config : getenv("PREFLIGHT_CONFIG");
	const char *profile = o->profile;
	pf_autofree char *why = NULL, *file = NULL;
	int rc = 0;

	if (!path || !*path)
		path = PF_SITECONF_PATH;
	if (!o->no_config && pf_run_site_load(sc, path, &why) < 0) {
		fprintf(err, "preflight mesh: site config: %s\n", why ? why : "cannot read");
		return PF_EXIT_USAGE;
	}
	for (size_t i = 0; i < sc->n_entries; i++) {
		const struct pf_siteconf_entry *e = &sc->entries[i];

		if (!strcmp(e->key, "profile") && e->value && !o->profile)
			profile = e->value;
		else if (!strcmp(e->key, "set") && e->value)
			pf_profile_add_set(prof, e->value);
	}
	if (profile && (pf_profile_resolve(profile, &file, &why) < 0 ||
			pf_profile_load(prof, file, &why) < 0)) {
		fprintf(err, "preflight mesh: %s\n", why ? why : "cannot load the profile");
		rc = PF_EXIT_USAGE;
	}
	for (size_t i = 0; i < o->n_sets; i++)
		pf_profile_add_set(prof, o->sets[i]);
	return rc;
}

/*
 * This node's rails into *ret; an unreadable inventory leaves the table
 * empty, said on @err.  0, or a usage error's exit code: a site config or
 * profile that cannot be read, or one port declared with two roles (a name
 * this node does not have is no error: one site file serves node types).
 */
static int mesh_my_rails(const struct pf_fs *fs, const struct mesh_opts *o, cJSON **ret,
			 FILE *err)
{
	pf_autonode struct pf_node *node = NULL;
	pf_autorails struct pf_rails *model = NULL;
	pf_autofree char *why = NULL;
	struct pf_siteconf sc = { 0 };
	struct pf_profile prof;
	int rc;

	*ret = NULL;
	pf_profile_init(&prof);
	rc = mesh_roles(o, &sc, &prof, err);
	if (rc)
		goto out;
	if (fs && pf_node_load(fs, NULL, &node, &why) < 0)
		fprintf(err, "preflight mesh: no rail table: %s\n", why ? why : "inventory failed");
	if (node) {
		const struct pf_ctx ctx = { .fs = fs, .prov = pf_providers_for(fs), .node = node };
		const char *declared[PF_ROLE_COUNT];

		for (int k = 0; k < PF_ROLE_COUNT; k++)
			declared[k] = pf_profile_rails(&prof, pf_port_role_name((enum pf_port_role)k));
		rc = pf_rails_for_ctx(&ctx, declared, &model, &why);
		if (rc == -EINVAL) {
			fprintf(err, "preflight mesh: rails: %s\n", why ? why : "invalid roles");
			rc = PF_EXIT_USAGE;
			goto out;
		}
		if (rc < 0)
			fprintf(err, "preflight mesh: no rail model: %s\n", why ? why : "?");
	}
	rc = 0;
	/* the verbs way sends from the GID NCCL would: the job's NCCL_IB_GID_INDEX counts */
	*ret = pf_mesh_rails(fs, node, model, o->nics, getenv("NCCL_IB_GID_INDEX"));
out:
	pf_profile_release(&prof);
	pf_siteconf_release(&sc);
	return rc;
}

/* Every name of --nics is one of this node's RDMA devices, else a usage error. */
static int mesh_check_nics(const char *nics, const cJSON *rails, FILE *err)
{
	pf_autofree char *copy = nics ? pf_xstrdup(nics) : NULL;
	char *save = NULL;

	for (char *n = copy ? strtok_r(copy, ",", &save) : NULL; n; n = strtok_r(NULL, ",", &save)) {
		const cJSON *r;
		bool found = false;

		cJSON_ArrayForEach(r, rails) {
			const cJSON *d = cJSON_GetObjectItemCaseSensitive(r, "device");

			found |= cJSON_IsString(d) && strcmp(d->valuestring, n) == 0;
		}
		if (!found) {
			fprintf(err, "preflight mesh: --nics: %s is not an RDMA device of this node\n",
				n);
			return PF_EXIT_USAGE;
		}
	}
	return 0;
}

/* The RDMA libraries, or why not (into @why). */
static bool mesh_libs(const struct pf_verbs_api **api, const struct pf_rdmacm_api **cm,
		      char *why, size_t wl)
{
	const struct pf_ctx ctx = { .prov = &pf_providers_live };
	pf_autofree char *e1 = NULL, *e2 = NULL;

	if (ctx.prov->verbs(&ctx, api, &e1) < 0 || (cm && ctx.prov->rdmacm(&ctx, cm, &e2) < 0)) {
		snprintf(why, wl, "%s", e1 ? e1 : e2 ? e2 : "RDMA libraries unavailable");
		return false;
	}
	return true;
}

/* Send this rank's measurements to rank 0 and get every rank's (second gather). */
static cJSON *mesh_gather(const struct mesh_opts *o, struct pf_mesh_rdv_cfg cfg,
			  const cJSON *table, const cJSON *sends, FILE *err)
{
	pf_autofree bool *absent = pf_xcalloc(cfg.size, sizeof(*absent));
	cJSON *gathered = NULL;
	char why[256];

	for (uint32_t i = 0; i < cfg.size; i++)
		absent[i] = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"), (int)i),
			"arrived"));
	cfg.key = "measurements";
	cfg.max_items = MESH_GATHER_MAX;
	cfg.absent = absent;
	/* the ranks finish their rounds within about one flow of each other */
	cfg.timeout_ms += (unsigned int)(o->timeout_s * 500 + o->duration_ms * 2);
	if (pf_mesh_rendezvous(&cfg, sends, &gathered, why, sizeof(why)) < 0) {
		fprintf(err, "preflight mesh: second gather: %s\n", why);
		return NULL;
	}
	return gathered;
}

/*
 * --use-gpu: each of this node's rails (its own table, never a peer's) to
 * the CUDA ordinal of its paired GPU ("gpu", mesh_rails.c), as
 * fabric_loopback does.  auto: no paired GPU is host memory, silently; CUDA
 * that cannot list the GPUs is host memory with a warning (@why).  on: that
 * is an error (false).  *gpu: one ordinal per rail, -1 host.
 */
static bool mesh_gpus(const struct mesh_opts *o, const cJSON *rails, struct pf_mesh_data_cfg *dc,
		      int **gpu, char *why, size_t wl)
{
	const struct pf_ctx ctx = { .prov = &pf_providers_live };
	bool on = o->use_gpu && !strcmp(o->use_gpu, "on"), any = false;
	pf_autofree char (*bdfs)[16] = NULL;
	pf_autofree char *err = NULL;
	const cJSON *e;
	int n, k = 0;

	why[0] = '\0';
	if (o->use_gpu && !strcmp(o->use_gpu, "off"))
		return true;
	cJSON_ArrayForEach(e, rails)
		any |= cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "gpu"));
	if (!any && !on)
		return true; /* no GPU beside any rail: host memory, as on a CPU node */
	n = pf_gpu_cuda_list(&ctx, &dc->cu, &bdfs, &err);
	if (n < 0) {
		snprintf(why, wl, "GPU memory impossible: %s", err ? err : strerror(-n));
		dc->cu = NULL;
		return !on;
	}
	*gpu = pf_xcalloc((size_t)cJSON_GetArraySize(rails) + 1, sizeof(**gpu));
	cJSON_ArrayForEach(e, rails) {
		const cJSON *bdf = cJSON_GetObjectItemCaseSensitive(e, "gpu");

		(*gpu)[k] = -1;
		for (int j = 0; cJSON_IsString(bdf) && j < n; j++)
			if (!strcmp(bdfs[j], bdf->valuestring))
				(*gpu)[k] = j;
		if ((*gpu)[k] < 0 && on && !why[0])
			snprintf(why, wl, "rail %d (%s) has no GPU CUDA sees; it uses host memory", k,
				 cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "device"))
				 ? cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring : "?");
		k++;
	}
	dc->gpu = *gpu;
	dc->n_gpu = (size_t)k;
	dc->gpu_fallback = !on;
	return true;
}

/* The rounds, the second gather and the verdict into @res. */
static void mesh_measure(const struct mesh_opts *o, const struct pf_mesh_rdv_cfg *cfg,
			 const cJSON *table, const cJSON *rails, const struct pf_mesh_schedule *s,
			 struct pf_result *res, FILE *log, FILE *err)
{
	struct pf_mesh_data_cfg dc = {
		.rank = cfg->rank, .sched = s, .table = table, .port = (uint16_t)o->data_port,
		.duration_ms = (unsigned int)o->duration_ms, .msg_size = MESH_MSG_SIZE,
		.connect_ms = (unsigned int)o->timeout_s * 500, .timeout_ms = 5000,
	};
	struct pf_mesh_data_out data = { 0 };
	cJSON *partners = mesh_partners(s, cfg->rank), *gathered;
	pf_autofree bool *absent = pf_xcalloc(cfg->size, sizeof(*absent));
	pf_autofree int *gpu = NULL;
	char why[512], way[256], gpu_why[256];
	bool gpu_ok;

	const cJSON *me = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"),
					     (int)cfg->rank);

	/* one way for every rank: decided from the one table they all hold */
	dc.verbs = pf_mesh_use_verbs(table, o->connect ? o->connect : "auto", way, sizeof(way));
	dc.rdv = cfg;
	for (uint32_t i = 0; i < cfg->size; i++)
		absent[i] = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"), (int)i),
			"arrived"));
	dc.absent = absent;
	if (log)
		fprintf(log, "connecting with %s%s%s%s\n", dc.verbs ? "verbs" : "RDMA-CM",
			way[0] ? " (" : "", way, way[0] ? ")" : "");
	gpu_ok = mesh_gpus(o, rails, &dc, &gpu, gpu_why, sizeof(gpu_why));
	if (log)
		fprintf(log, "memory: %s%s%s\n", dc.cu ? "GPU (each rail's paired GPU)" : "host",
			gpu_why[0] ? "; " : "", gpu_why);
	/* no rail here: nothing to send, and no library needed to say so */
	if (s->n_rounds && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(me, "rails")) &&
	    !mesh_libs(&dc.api, dc.verbs ? NULL : &dc.cm, why, sizeof(why))) {
		struct pf_finding *f = pf_add(res, PF_STATUS_ERROR, "mesh", "%s", why);

		pf_remedy(f, "apt-get install ibverbs-providers librdmacm1 (Debian/Ubuntu) or dnf "
			  "install rdma-core (RHEL)");
		pf_obs_json(f, "table", cJSON_Duplicate(table, true));
		pf_result_finish(res);
		cJSON_Delete(partners);
		/* the verbs way: still meet the others each round (its flows fail at once) */
		dc.api = NULL;
		if (dc.verbs)
			pf_mesh_data_run(&dc, &data, log);
		cJSON_Delete(data.sends);
		cJSON_Delete(data.skipped);
		cJSON_Delete(data.rx_errors);
		return;
	}
	pf_mesh_data_run(&dc, &data, log);
	gathered = mesh_gather(o, *cfg, table, data.sends, err);
	pf_mesh_judge(res, &(struct pf_mesh_judge_in){
		.rank = cfg->rank, .size = cfg->size, .sched = s, .table = table,
		.gathered = gathered ? gathered : table, .partners = partners, .data = &data,
		.job_id = getenv("SLURM_JOB_ID"), .nodelist = o->peers,
		.connection = dc.verbs ? "verbs" : "rdma_cm",
		.gpu_why = gpu_why[0] ? gpu_why : NULL, .gpu_error = !gpu_ok });
	cJSON_Delete(gathered);
	cJSON_Delete(partners);
	cJSON_Delete(data.sends);
	cJSON_Delete(data.skipped);
	cJSON_Delete(data.rx_errors);
}

static int mesh_run(const struct mesh_opts *o, const struct pf_hostlist *hl,
		    const struct pf_mesh_secret *secret, FILE *out, FILE *err)
{
	struct pf_mesh_rdv_cfg cfg = {
		.rank = (uint32_t)o->rank, .size = (uint32_t)o->size, .root_host = hl->hosts[0],
		.bind = o->bind, .port = (uint16_t)o->port, .timeout_ms = (unsigned)o->timeout_s * 1000,
		.self = hl->hosts[o->rank], .hosts = (const char *const *)hl->hosts,
		.secret = secret->bytes, .secret_len = secret->len,
	};
	pf_autoclose int lfd = -1;
	struct pf_report rep = { .version = PF_VERSION, .root = "/", .profile = "generic",
				 .selection = "only", .started_at = time(NULL) };
	struct pf_run run = { .check = &mesh_check };
	struct pf_mesh_schedule s = { .size = cfg.size };
	pf_autofs struct pf_fs *fs = NULL;
	cJSON *rails, *table = NULL;
	double t0 = pf_now_ms();
	char why[256];
	int rc;

	if (pf_fs_open("/", &fs) < 0)
		fs = NULL;
	rc = mesh_my_rails(fs, o, &rails, err);
	if (!rc)
		rc = mesh_check_nics(o->nics, rails, err);
	if (rc) {
		cJSON_Delete(rails);
		return rc;
	}
	pf_result_init(&run.res);
	/* rank 0: one listening socket for both gathers, nobody takes the port between them */
	rc = 0;
	if (cfg.rank == 0) {
		lfd = pf_mesh_listen(&cfg, why, sizeof(why));
		rc = lfd < 0 ? lfd : 0;
		cfg.listen_fd = &lfd;
	}
	if (rc >= 0)
		rc = pf_mesh_rendezvous(&cfg, rails, &table, why, sizeof(why));
	if (cfg.size >= 2)
		pf_mesh_schedule_build(cfg.size, PF_MESH_EXHAUSTIVE_MAX, o->seed, &s);
	if (rc < 0) {
		fprintf(err, "preflight mesh: %s\n", why);
		pf_error(&run.res, rc, "%s", why);
		pf_result_finish(&run.res);
	} else {
		pf_mesh_print(o->output ? out : err, table, &s);
		mesh_measure(o, &cfg, table, rails, &s, &run.res, o->output ? out : err, err);
	}
	rep.runs = &run;
	rep.n_runs = 1;
	if (fs)
		pf_report_describe_node(&rep, fs);
	rep.duration_ms = run.duration_ms = pf_now_ms() - t0;
	rc = mesh_write(o, &rep, cfg.self, out, err);
	if (rc == PF_EXIT_OK && run.res.status == PF_STATUS_FAIL)
		rc = PF_EXIT_FAIL;
	else if (rc == PF_EXIT_OK && run.res.status == PF_STATUS_ERROR)
		rc = PF_EXIT_ERROR;
	pf_result_release(&run.res);
	pf_mesh_schedule_release(&s);
	cJSON_Delete(table);
	cJSON_Delete(rails);
	return rc;
}

/*
 * The run's secret, or a usage error's exit code (said on @err): a run of
 * more than one rank needs one, and a secret file must be safe to trust.
 */
static int mesh_secret(const struct mesh_opts *o, struct pf_mesh_secret *s, FILE *err)
{
	char why[256];
	int r = pf_mesh_secret_load(o->secret_file, getenv("PREFLIGHT_MESH_SECRET"), s, why,
				    sizeof(why));

	if (r == -ENOENT && o->size < 2)
		return 0; /* one rank: no peer to prove anything to */
	if (r == -ENOENT) {
		fputs("preflight mesh: no secret: the ranks of a run must share one. Give "
		      "--secret-file FILE\n  (umask 077; head -c 32 /dev/urandom > FILE), or "
		      "before srun:\n  export PREFLIGHT_MESH_SECRET=$(preflight mesh --new-secret)"
		      "\n  (docs/mesh.md \"Authentication\")\n", err);
		return PF_EXIT_USAGE;
	}
	if (r < 0) {
		fprintf(err, "preflight mesh: secret: %s\n", why);
		return PF_EXIT_USAGE;
	}
	return 0;
}

int pf_mesh_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct mesh_opts o = { .rank = -1, .size = -1, .port = MESH_PORT_DEFAULT,
			       .timeout_s = MESH_TIMEOUT_DEFAULT, .seed = 1,
			       .duration_ms = MESH_DURATION_DEFAULT };
	pf_autohostlist struct pf_hostlist hl = { 0 };
	int rc = mesh_parse(argc, argv, &o, out, err);

	struct pf_mesh_secret secret = { 0 };

	if (rc)
		return rc < 0 ? PF_EXIT_OK : rc;
	if (o.new_secret) {
		rc = pf_mesh_secret_new(out);
		if (rc < 0)
			fprintf(err, "preflight mesh: --new-secret: %s\n", strerror(-rc));
		return rc < 0 ? PF_EXIT_IOERR : PF_EXIT_OK;
	}
	rc = mesh_world(&o, &hl, err);
	if (!rc)
		rc = mesh_secret(&o, &secret, err);
	if (rc)
		return rc;
	if (!o.data_port)
		o.data_port = o.port < 65535 ? o.port + 1 : o.port - 1;
	rc = mesh_run(&o, &hl, &secret, out, err);
	pf_mesh_secret_release(&secret);
	return rc;
}
