// SPDX-License-Identifier: MIT
/*
 * providers.c - the live and recorded provider tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preflight/net_facts.h"
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/parse.h"
#include "preflight/link_facts.h"
#include "preflight/devlink.h"
#include "preflight/providers.h"
#include "preflight/rdmacm_api.h"
#include "preflight/verbs_api.h"
#include "record.h"

static uint64_t rlim_to_u64(rlim_t v)
{
	return v == RLIM_INFINITY ? PF_RLIM_UNLIMITED : (uint64_t)v;
}

static int live_memlock(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) < 0)
		return -errno;
	ret->soft = rlim_to_u64(rl.rlim_cur);
	ret->hard = rlim_to_u64(rl.rlim_max);
	return 0;
}

/* Under a recorded root the limits of the capturing process are a file. */
static int recorded_memlock(const struct pf_ctx *ctx, struct pf_rlimit *ret)
{
	pf_autofree char *text = NULL;
	int r;

	r = pf_fs_read_full(ctx->fs, "/proc/self/limits", 0, &text, NULL);
	if (r < 0)
		return r;
	return pf_parse_proc_limits(text, "Max locked memory", ret);
}

static int live_env(const struct pf_ctx *ctx, const char *name, char **ret)
{
	const char *v = getenv(name);

	if (!v)
		return -ENOENT;
	*ret = pf_xstrdup(v);
	return 0;
}

/* preflight/env: NAME=VALUE lines, as `preflight snapshot` records them. */
static int recorded_env(const struct pf_ctx *ctx, const char *name, char **ret)
{
	pf_autofree char *text = NULL;
	size_t len = strlen(name);
	int r;

	r = pf_fs_read_full(ctx->fs, "/preflight/env", 0, &text, NULL);
	if (r < 0)
		return r;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, name, len) == 0 && line[len] == '=') {
			*ret = pf_xstrdup(line + len + 1);
			return 0;
		}
	}
	return -ENOENT;
}

static int live_euid(const struct pf_ctx *ctx, unsigned int *ret)
{
	*ret = (unsigned int)geteuid();
	return 0;
}

/* preflight/euid: the uid the snapshot was taken as. */
static int recorded_euid(const struct pf_ctx *ctx, unsigned int *ret)
{
	uint64_t v;
	int r = pf_fs_read_u64(ctx->fs, "/preflight/euid", &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (unsigned int)v;
	return 0;
}

static int live_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	long v = sysconf(_SC_PAGESIZE);

	if (v <= 0)
		return -EINVAL;
	*ret = (uint64_t)v;
	return 0;
}

/* preflight/page_size: one decimal integer, a power of two. */
static int recorded_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	uint64_t v;
	int r;

	r = pf_fs_read_u64(ctx->fs, "/preflight/page_size", &v);
	if (r < 0)
		return r;
	if (v < 1024 || (v & (v - 1)))
		return -EINVAL;
	*ret = v;
	return 0;
}

static int live_verbs(const struct pf_ctx *ctx, const struct pf_verbs_api **ret, char **ret_err)
{
	return pf_dl_verbs(ret, ret_err);
}

static int live_rdmacm(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret,
		       char **ret_err)
{
	return pf_dl_rdmacm(ret, ret_err);
}

/* A recorded root sends no traffic: the checks that would skip. */
static int recorded_verbs(const struct pf_ctx *ctx, const struct pf_verbs_api **ret,
			  char **ret_err)
{
	*ret_err = pf_xstrdup("a recorded root cannot send traffic");
	return -ENOMEDIUM;
}

static int recorded_rdmacm(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret,
			   char **ret_err)
{
	*ret_err = pf_xstrdup("a recorded root cannot send traffic");
	return -ENOMEDIUM;
}

const struct pf_providers pf_providers_live = {
	.name = "live",
	.caps = PF_PROV_NODE | PF_PROV_ELAPSES | PF_PROV_PROCESS,
	.memlock = live_memlock,
	.gpu = &pf_gpu_live,
	.ethtool = &pf_ethtool_sys,
	.verbs = live_verbs,
	.rdmacm = live_rdmacm,
	.linkmodes = pf_live_linkmodes,
	.pause = pf_live_pause,
	.ethtool_stats = pf_live_ethtool_stats,
	.pfc = pf_live_pfc,
	.ipv4_addrs = pf_live_ipv4_addrs,
	.ip_rules = pf_live_ip_rules,
	.nv_query = pf_live_nv_query,
	.page_size = live_page_size,
	.devlink_dump = pf_live_devlink_dump,
	.wait = pf_live_wait,
	.env = live_env,
	.euid = live_euid,
	.job_user = pf_live_job_user,
	.devnodes = pf_live_devnodes,
	.lldp_neighbors = pf_live_lldp_neighbors,
	.link_nl = pf_live_link_nl,
	.mlxlink = pf_live_mlxlink,
	.fabric_svc = pf_live_fabric_svc,
};

const struct pf_providers pf_providers_recorded = {
	.name = "recorded",
	.caps = 0, /* a capture: see enum pf_prov_cap */
	.memlock = recorded_memlock,
	.gpu = &pf_gpu_recorded,
	.ethtool = &pf_ethtool_none,
	.verbs = recorded_verbs,
	.rdmacm = recorded_rdmacm,
	.linkmodes = pf_recorded_linkmodes,
	.pause = pf_recorded_pause,
	.ethtool_stats = pf_recorded_ethtool_stats,
	.pfc = pf_recorded_pfc,
	.ipv4_addrs = pf_recorded_ipv4_addrs,
	.ip_rules = pf_recorded_ip_rules,
	.nv_query = pf_recorded_nv_query,
	.page_size = recorded_page_size,
	.devlink_dump = pf_recorded_devlink_dump,
	.wait = pf_recorded_wait,
	.env = recorded_env,
	.euid = recorded_euid,
	.job_user = pf_recorded_job_user,
	.devnodes = pf_recorded_devnodes,
	.lldp_neighbors = pf_recorded_lldp_neighbors,
	.link_nl = pf_recorded_link_nl,
	.mlxlink = pf_recorded_mlxlink,
	.fabric_svc = pf_recorded_fabric_svc,
};

const struct pf_providers *pf_providers_for(const struct pf_fs *fs)
{
	return pf_fs_is_live(fs) ? &pf_providers_live : &pf_providers_recorded;
}

int pf_env(const struct pf_ctx *ctx, const char *name, char **ret)
{
	if (!ctx->prov)
		return -ENOSYS;
	return ctx->prov->env(ctx, name, ret);
}

bool pf_env_isset(const struct pf_ctx *ctx, const char *name)
{
	pf_autofree char *v = NULL;

	return pf_env(ctx, name, &v) == 0;
}

int pf_euid(const struct pf_ctx *ctx, unsigned int *ret)
{
	if (!ctx->prov)
		return -ENOSYS;
	return ctx->prov->euid(ctx, ret);
}

const char *pf_euid_note(const struct pf_ctx *ctx, char buf[32])
{
	unsigned int uid;

	if (pf_euid(ctx, &uid) < 0)
		return "";
	snprintf(buf, 32, " (uid %u)", uid);
	return buf;
}

/* preflight/page_size, as recorded_page_size() reads it. */
int pf_record_page_size(struct pf_record *rec)
{
	uint64_t v;
	char text[32];
	int r;

	r = rec->ctx->prov->page_size(rec->ctx, &v);
	if (!pf_record_answer(rec, "preflight/page_size", r))
		return 0;
	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	return pf_record_put_text(rec, "preflight/page_size", text);
}

/*
 * The environment variables a check judges: NCCL's own, CUDA's device mask,
 * HOME (where NCCL 2.30+ finds ~/.nccl.conf) and Slurm's script context (set
 * in a prolog or epilog, whose environment is not the job's).
 */
static bool env_recorded(const char *entry)
{
	return strncmp(entry, "NCCL_", 5) == 0 || strncmp(entry, "CUDA_VISIBLE_DEVICES=", 21) == 0 ||
	       strncmp(entry, "HOME=", 5) == 0 || strncmp(entry, "SLURM_SCRIPT_CONTEXT=", 21) == 0;
}

/*
 * preflight/env (NAME=VALUE lines of env_recorded() variables, none: an
 * empty file) and preflight/euid, as recorded_env() and recorded_euid()
 * read them.  A recorded source's files are copied.
 */
int pf_record_process(struct pf_record *rec)
{
	extern char **environ;
	pf_autofree char *buf = NULL;
	unsigned int uid;
	char text[32];
	size_t len = 0;
	FILE *f;
	int r;

	if (!pf_fs_is_live(rec->ctx->fs)) {
		r = rec->copy(rec, "/preflight/env");
		if (r >= 0)
			r = rec->copy(rec, "/preflight/euid");
		return r < 0 ? r : 0;
	}
	f = pf_record_text(&buf, &len);
	for (char **e = environ; *e; e++)
		if (env_recorded(*e) && !strchr(*e, '\n'))
			fprintf(f, "%s\n", *e);
	fclose(f);
	r = rec->put(rec, "preflight/env", buf, len);
	if (r < 0 || pf_euid(rec->ctx, &uid) < 0)
		return r < 0 ? r : 0;
	snprintf(text, sizeof(text), "%u\n", uid);
	return pf_record_put_text(rec, "preflight/euid", text);
}
