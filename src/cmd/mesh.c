// SPDX-License-Identifier: MIT
/*
 * mesh.c - `preflight mesh`: run on every node of an allocation (srun -N N
 * --ntasks-per-node=1 preflight mesh --output DIR/%n.json), the ranks meet
 * (mesh_rdv.c), each prints the exchanged rail tables and the schedule of
 * node pairs (mesh_schedule.c) and writes a preflight.report/v1 report.
 * The data path is not wired yet: the report's one check, "mesh", is a skip
 * that says so, never a pass (docs/mesh.md).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "exit.h"
#include "mesh.h"
#include "output.h"
#include "preflight/fs.h"
#include "hostlist.h"
#include "preflight/node.h"
#include "report.h"
#include "version.h"

#define MESH_PORT_DEFAULT 29517
#define MESH_TIMEOUT_DEFAULT 30

struct mesh_opts {
	const char *peers, *output, *bind;
	long rank, size;
	unsigned long port, timeout_s, seed;
	bool compact;
};

static const struct pf_check mesh_check = {
	.name = "mesh",
	.summary = "pairwise traffic between the nodes of an allocation",
	.tags = "rdma,multinode",
	.reads = "the other ranks over TCP (rendezvous)",
};

static int mesh_usage(FILE *f, int rc)
{
	fputs("usage: preflight mesh [--peers HOSTLIST] [--rank N] [--size N] [--port P]\n"
	      "                      [--timeout SECONDS] [--seed N] [--bind ADDR]\n"
	      "                      [--output FILE] [--compact]\n"
	      "Under srun, rank, size and peers come from SLURM_PROCID, SLURM_NTASKS and\n"
	      "SLURM_JOB_NODELIST (one task per node; the first host is rank 0).\n"
	      "The data path is not wired yet: the report is a skip (docs/mesh.md).\n", f);
	return rc;
}

/* A decimal number in [min, max] from an option or the environment. */
static bool mesh_num(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v >= min && *v <= max;
}

static int mesh_parse(int argc, char **argv, struct mesh_opts *o, FILE *out, FILE *err)
{
	static const struct option lo[] = {
		{ "peers", required_argument, NULL, 'P' }, { "rank", required_argument, NULL, 'r' },
		{ "size", required_argument, NULL, 's' },  { "port", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' }, { "seed", required_argument, NULL, 'S' },
		{ "bind", required_argument, NULL, 'b' },  { "output", required_argument, NULL, 'o' },
		{ "compact", no_argument, NULL, 'c' },     { "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		switch (c) {
		case 'P': o->peers = optarg; break;
		case 'o': o->output = optarg; break;
		case 'b': o->bind = optarg; break;
		case 'c': o->compact = true; break;
		case 'h': mesh_usage(out, PF_EXIT_OK); return -1; /* done */
		case 'r': case 's': case 'p': case 't': case 'S':
			if (!mesh_num(optarg, c == 's' || c == 'p' || c == 't', c == 'S' ? ULONG_MAX :
				      c == 'p' ? 65535 : c == 't' ? 3600 : PF_MESH_RANKS_MAX, &v)) {
				fprintf(err, "preflight mesh: bad --%s '%s'\n",
					c == 'r' ? "rank" : c == 's' ? "size" : c == 'p' ? "port" :
					c == 't' ? "timeout" : "seed", optarg);
				return PF_EXIT_USAGE;
			}
			if (c == 'r') o->rank = (long)v;
			else if (c == 's') o->size = (long)v;
			else if (c == 'p') o->port = v;
			else if (c == 't') o->timeout_s = v;
			else o->seed = v;
			break;
		default: return mesh_usage(err, PF_EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(err, "preflight mesh: unexpected argument '%s'\n", argv[optind]);
		return PF_EXIT_USAGE;
	}
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
	n = pf_hostlist_expand(peers, PF_MESH_RANKS_MAX, hl, &why);
	if (n < 1) {
		fprintf(err, "preflight mesh: bad peer list: %s\n", n < 0 ? why.buf : "empty");
		return PF_EXIT_USAGE;
	}
	if (o->rank < 0 && mesh_num(getenv("SLURM_PROCID"), 0, PF_MESH_RANKS_MAX, &v))
		o->rank = (long)v;
	if (o->size < 0 && mesh_num(getenv("SLURM_NTASKS"), 1, PF_MESH_RANKS_MAX, &v))
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

/* The exchanged rail tables and the schedule, for a person. */
static void mesh_print(FILE *f, const cJSON *table, const struct pf_mesh_schedule *s)
{
	const cJSON *e;

	fprintf(f, "mesh: %u ranks\n", s->size);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const cJSON *host = cJSON_GetObjectItemCaseSensitive(e, "host"), *rail;
		bool here = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived"));

		fprintf(f, "  rank %d %s: %s\n", cJSON_GetObjectItemCaseSensitive(e, "rank")->valueint,
			cJSON_IsString(host) ? host->valuestring : "?",
			here ? "arrived" : cJSON_GetObjectItemCaseSensitive(e, "why")->valuestring);
		cJSON_ArrayForEach(rail, cJSON_GetObjectItemCaseSensitive(e, "rails")) {
			pf_autofree char *text = cJSON_PrintUnformatted(rail);

			fprintf(f, "    rail %s\n", text ? text : "?");
		}
	}
	fprintf(f, "schedule: %zu round%s (%s)\n", s->n_rounds, s->n_rounds == 1 ? "" : "s",
		s->exhaustive ? "every pair once" : "ring, opposite and seeded ring");
	for (size_t r = 0; r < s->n_rounds; r++) {
		fprintf(f, "  round %zu:", r + 1);
		for (size_t i = 0; i < s->rounds[r].n; i++)
			fprintf(f, " %u-%u", s->rounds[r].pairs[i].a, s->rounds[r].pairs[i].b);
		fputc('\n', f);
	}
}

/* This rank's partner in each round (-1: none), for the report. */
static cJSON *mesh_partners(const struct pf_mesh_schedule *s, uint32_t rank)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t r = 0; r < s->n_rounds; r++) {
		long partner = -1;

		for (size_t i = 0; i < s->rounds[r].n; i++)
			if (s->rounds[r].pairs[i].a == rank || s->rounds[r].pairs[i].b == rank)
				partner = s->rounds[r].pairs[i].a == rank ? s->rounds[r].pairs[i].b :
									     s->rounds[r].pairs[i].a;
		cJSON_AddItemToArray(a, cJSON_CreateNumber((double)partner));
	}
	return a;
}

/* The mesh check's result: a skip (data path not wired), missing ranks named. */
static void mesh_result(struct pf_result *res, const cJSON *table,
			const struct pf_mesh_schedule *s, uint32_t rank)
{
	char names[512];
	size_t missing = pf_mesh_missing(table, names, sizeof(names));
	const cJSON *e;
	struct pf_finding *f;

	f = pf_add(res, PF_STATUS_SKIP, NULL,
		   "the data path is not yet wired: rendezvous and schedule only, no traffic "
		   "was measured (docs/mesh.md)");
	pf_obs_num(f, "rank", rank);
	pf_obs_num(f, "size", s->size);
	pf_obs_num(f, "rounds", (double)s->n_rounds);
	pf_obs_json(f, "partners", mesh_partners(s, rank));
	pf_obs_json(f, "table", cJSON_Duplicate(table, true));
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const cJSON *host = cJSON_GetObjectItemCaseSensitive(e, "host");
		char subject[300];

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
			continue;
		snprintf(subject, sizeof(subject), "rank %d%s%s%s",
			 cJSON_GetObjectItemCaseSensitive(e, "rank")->valueint,
			 cJSON_IsString(host) ? " (" : "", cJSON_IsString(host) ? host->valuestring : "",
			 cJSON_IsString(host) ? ")" : "");
		pf_add(res, PF_STATUS_SKIP, subject, "%s",
		       cJSON_GetObjectItemCaseSensitive(e, "why")->valuestring);
	}
	pf_summary(res, "data path not wired yet: %u of %u ranks arrived%s%s; %zu rounds scheduled",
		   s->size - (uint32_t)missing, s->size, missing ? ", missing " : "",
		   missing ? names : "", s->n_rounds);
	pf_result_finish(res);
}

static int mesh_write(const struct mesh_opts *o, struct pf_report *rep, const char *host,
		      FILE *out, FILE *err)
{
	cJSON *json = pf_report_to_json(rep);
	pf_autofree char *text = o->compact ? cJSON_PrintUnformatted(json) : cJSON_Print(json);
	pf_autofree char *path = NULL, *why = NULL;
	int r = 0;

	cJSON_Delete(json);
	if (!text)
		abort();
	if (!o->output) {
		fprintf(out, "%s\n", text);
		return ferror(out) ? PF_EXIT_IOERR : PF_EXIT_OK;
	}
	r = pf_output_expand(o->output, host, getenv("SLURM_JOB_ID"), &path, &why);
	if (r == 0) {
		size_t len = strlen(text);

		text[len] = '\n'; /* the NUL: the file ends with a newline */
		r = pf_output_write(path, text, len + 1, &why); /* the walk of docs/hardening.md */
		text[len] = '\0';
	}
	if (r < 0) {
		fprintf(err, "preflight mesh: cannot write the report: %s\n",
			why ? why : strerror(-r));
		return r == -EINVAL && !path ? PF_EXIT_USAGE : PF_EXIT_IOERR;
	}
	return PF_EXIT_OK;
}

/* This node's rails; an unreadable inventory leaves the table empty, said on @err. */
static cJSON *mesh_my_rails(const struct pf_fs *fs, FILE *err)
{
	pf_autonode struct pf_node *node = NULL;
	pf_autofree char *why = NULL;

	if (fs && pf_node_load(fs, NULL, &node, &why) < 0)
		fprintf(err, "preflight mesh: no rail table: %s\n", why ? why : "inventory failed");
	return pf_mesh_rails(fs, node);
}

static int mesh_run(const struct mesh_opts *o, const struct pf_hostlist *hl, FILE *out,
		    FILE *err)
{
	struct pf_mesh_rdv_cfg cfg = {
		.rank = (uint32_t)o->rank, .size = (uint32_t)o->size, .root_host = hl->hosts[0],
		.bind = o->bind, .port = (uint16_t)o->port, .timeout_ms = (unsigned)o->timeout_s * 1000,
		.self = hl->hosts[o->rank], .hosts = (const char *const *)hl->hosts,
	};
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
	rails = mesh_my_rails(fs, err);
	pf_result_init(&run.res);
	rc = pf_mesh_rendezvous(&cfg, rails, &table, why, sizeof(why));
	if (cfg.size >= 2)
		pf_mesh_schedule_build(cfg.size, PF_MESH_EXHAUSTIVE_MAX, o->seed, &s);
	if (rc < 0) {
		fprintf(err, "preflight mesh: %s\n", why);
		pf_error(&run.res, rc, "%s", why);
		pf_result_finish(&run.res);
	} else {
		mesh_print(o->output ? out : err, table, &s);
		mesh_result(&run.res, table, &s, cfg.rank);
	}
	rep.runs = &run;
	rep.n_runs = 1;
	if (fs)
		pf_report_describe_node(&rep, fs);
	rep.duration_ms = pf_now_ms() - t0;
	rc = mesh_write(o, &rep, cfg.self, out, err);
	if (rc == PF_EXIT_OK && run.res.status == PF_STATUS_ERROR)
		rc = PF_EXIT_ERROR;
	pf_result_release(&run.res);
	pf_mesh_schedule_release(&s);
	cJSON_Delete(table);
	cJSON_Delete(rails);
	return rc;
}

int pf_mesh_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct mesh_opts o = { .rank = -1, .size = -1, .port = MESH_PORT_DEFAULT,
			       .timeout_s = MESH_TIMEOUT_DEFAULT, .seed = 1 };
	pf_autohostlist struct pf_hostlist hl = { 0 };
	int rc = mesh_parse(argc, argv, &o, out, err);

	if (rc)
		return rc < 0 ? PF_EXIT_OK : rc;
	rc = mesh_world(&o, &hl, err);
	if (rc)
		return rc;
	return mesh_run(&o, &hl, out, err);
}
