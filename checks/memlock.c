// SPDX-License-Identifier: MIT
/*
 * memlock - the locked-memory limit must allow RDMA memory registration.
 *
 * Reads RLIMIT_MEMLOCK of this process through the providers (live:
 * getrlimit; recorded: /proc/self/limits under the root) and, when slurmd
 * runs, its limit from /proc/<pid>/limits, since Slurm jobs inherit it.
 * pass: soft and hard limits unlimited (or >= min_kib when set).  A
 * capture with slurmd's limits but not the process's judges slurmd's (what
 * jobs inherit) and reports the process's as not captured.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

/* rdma-core prints a warning at or below this many bytes. */
#define RDMA_CORE_FLOOR 32768

struct memlock_cfg {
	uint64_t min_kib;
	bool check_slurmd;
};

static const struct pf_param memlock_params[] = {
	PF_PARAM_U64(struct memlock_cfg, min_kib, "0", 0, 9007199254740992.0, "KiB",
		     "minimum soft and hard limit; 0 requires unlimited"),
	PF_PARAM_BOOL(struct memlock_cfg, check_slurmd, "true",
		      "also judge the limit of a running slurmd, which jobs inherit"),
	PF_PARAM_END,
};

static bool limit_ok(uint64_t v, uint64_t min_kib)
{
	return v == PF_RLIM_UNLIMITED || (min_kib != 0 && v / 1024 >= min_kib);
}

static void obs_limit(struct pf_finding *f, const char *key, uint64_t v)
{
	if (v == PF_RLIM_UNLIMITED)
		pf_obs_str(f, key, "unlimited");
	else
		pf_obs_num(f, key, (double)(v / 1024));
}

static void fmt_limit(char *buf, size_t len, uint64_t v)
{
	if (v == PF_RLIM_UNLIMITED)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v / 1024));
}

/* One finding for a soft/hard pair. */
static void judge(struct pf_result *res, const char *subject, const struct pf_rlimit *rl,
		  const struct memlock_cfg *cfg, const char *remedy)
{
	char soft[32], hard[32], want[48];
	bool soft_ok = limit_ok(rl->soft, cfg->min_kib), hard_ok = limit_ok(rl->hard, cfg->min_kib);
	struct pf_finding *f;

	fmt_limit(soft, sizeof(soft), rl->soft);
	fmt_limit(hard, sizeof(hard), rl->hard);
	if (cfg->min_kib)
		snprintf(want, sizeof(want), "at least %llu KiB", (unsigned long long)cfg->min_kib);
	else
		snprintf(want, sizeof(want), "unlimited");

	if (soft_ok && hard_ok) {
		f = pf_add(res, PF_STATUS_PASS, subject, "soft %s, hard %s", soft, hard);
	} else if (!hard_ok) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "hard limit %s, expected %s%s", hard, want,
			   rl->hard <= RDMA_CORE_FLOOR ? " (libibverbs warns at this level)" : "");
		pf_remedy(f, "%s", remedy);
		pf_code(f, 1);
	} else {
		f = pf_add(res, PF_STATUS_FAIL, subject,
			   "soft limit %s below hard limit %s, expected %s", soft, hard, want);
		pf_remedy(f, "%s; under Slurm set PropagateResourceLimitsExcept=MEMLOCK in "
			  "slurm.conf so jobs do not inherit a login node's soft limit", remedy);
		pf_code(f, 2);
	}
	obs_limit(f, "soft_kib", rl->soft);
	obs_limit(f, "hard_kib", rl->hard);
	if (cfg->min_kib)
		pf_exp_num(f, "min_kib", (double)cfg->min_kib);
	else
		pf_exp_str(f, "limit", "unlimited");
}

/* The pid of a running slurmd, from its pid file or by scanning /proc; 0 if none. */
static long find_slurmd(const struct pf_fs *fs)
{
	pf_autostrv char **names = NULL;
	pf_autofree char *pidtext = NULL;
	int64_t pid;
	int n;

	if (pf_fs_read_line(fs, "/run/slurmd.pid", &pidtext) == 0 &&
	    pf_parse_i64(pidtext, &pid) == 0 && pid > 0) {
		pf_autofree char *comm = NULL;

		if (pf_fs_readf_line(fs, &comm, "/proc/%lld/comm", (long long)pid) == 0 &&
		    !strcmp(comm, "slurmd"))
			return (long)pid;
	}
	n = pf_fs_list(fs, "/proc", &names);
	for (int i = 0; i < n; i++) {
		pf_autofree char *comm = NULL;

		if (strspn(names[i], "0123456789") != strlen(names[i]))
			continue;
		if (pf_fs_readf_line(fs, &comm, "/proc/%s/comm", names[i]) == 0 &&
		    !strcmp(comm, "slurmd"))
			return strtol(names[i], NULL, 10);
	}
	return 0;
}

/* slurmd's limits: @found false when no slurmd runs (or it exited meanwhile). */
struct slurmd_limits {
	bool found;
	long pid;
	int r;             /* reading its limits: 0 or -errno */
	struct pf_rlimit rl;
};

static void read_slurmd(const struct pf_ctx *ctx, struct slurmd_limits *sd)
{
	pf_autofree char *text = NULL;
	char path[64];

	*sd = (struct slurmd_limits){ .pid = find_slurmd(ctx->fs) };
	if (sd->pid <= 0)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/limits", sd->pid);
	sd->r = pf_fs_read_full(ctx->fs, path, 0, &text, NULL);
	if (sd->r == 0)
		sd->r = pf_parse_proc_limits(text, "Max locked memory", &sd->rl);
	sd->found = sd->r != -ENOENT; /* ENOENT: slurmd exited meanwhile */
}

static bool slurmd_fails(const struct slurmd_limits *sd, const struct memlock_cfg *cfg)
{
	return sd->found && sd->r == 0 &&
	       !(limit_ok(sd->rl.soft, cfg->min_kib) && limit_ok(sd->rl.hard, cfg->min_kib));
}

/*
 * The subject is "slurmd", never "slurmd[<pid>]": a label that changes
 * with every restart makes a new Prometheus series; the pid is observed.
 */
static void judge_slurmd(const struct slurmd_limits *sd, const struct memlock_cfg *cfg,
			 struct pf_result *res)
{
	struct pf_finding *f;

	if (!sd->found)
		return;
	if (sd->r == -EACCES || sd->r == -EPERM) {
		f = pf_add(res, PF_STATUS_SKIP, "slurmd",
			   "cannot read /proc/%ld/limits: reading another process's limits needs "
			   "root", sd->pid);
	} else if (sd->r < 0) {
		f = pf_add(res, PF_STATUS_ERROR, "slurmd", "cannot read /proc/%ld/limits: %s",
			   sd->pid, strerror(-sd->r));
	} else {
		judge(res, "slurmd", &sd->rl, cfg,
		      "set LimitMEMLOCK=infinity in slurmd's systemd unit (systemctl edit slurmd) "
		      "and restart slurmd; limits.conf does not apply to services");
		f = pf_last(res);
	}
	pf_obs_num(f, "pid", (double)sd->pid);
}

/* The parent pid in /proc/@pid/stat ("pid (comm) state ppid ..."): 0 or -errno. */
static int read_ppid(const struct pf_fs *fs, const char *pid, long *ret)
{
	pf_autofree char *stat = NULL;
	const char *p;
	int64_t v;
	int r = pf_fs_readf_line(fs, &stat, "/proc/%s/stat", pid);

	if (r < 0)
		return r;
	p = strrchr(stat, ')'); /* comm may hold blanks and parentheses */
	if (!p || sscanf(p + 1, " %*c %" SCNd64, &v) != 1 || v < 0)
		return -EINVAL;
	*ret = (long)v;
	return 0;
}

/*
 * Whether this process runs under slurmd @sd_pid (a Prolog, a job, srun): 1
 * when its ancestry, read from /proc/self/stat and each parent's stat,
 * reaches that pid; 0 when it reaches init without it; -1 when a link of
 * the chain cannot be read (a snapshot without them).  Equal limits are no
 * evidence: Debian gives a login shell and slurmd the same 8 MiB.
 */
static int under_slurmd(const struct pf_fs *fs, long sd_pid)
{
	char pid[24] = "self";
	long ppid;

	for (int depth = 0; depth < 64; depth++) {
		if (read_ppid(fs, pid, &ppid) < 0)
			return -1;
		if (ppid == sd_pid)
			return 1;
		if (ppid <= 1)
			return 0;
		snprintf(pid, sizeof(pid), "%ld", ppid);
	}
	return -1;
}

#define LIMITS_CONF_REMEDY                                                                    \
	"add '* soft memlock unlimited' and '* hard memlock unlimited' to "                   \
	"/etc/security/limits.conf (or a file in /etc/security/limits.d/) and log in again"

/* The process's remedy when slurmd's limit fails too: by where this process runs. */
static const char *process_remedy(const struct pf_ctx *ctx, long sd_pid)
{
	switch (under_slurmd(ctx->fs, sd_pid)) {
	case 1:
		return "this process runs under slurmd, which passes its own limit on: fix "
		       "slurmd's LimitMEMLOCK as its finding says";
	case 0:
		return LIMITS_CONF_REMEDY;
	default:
		return "under slurmd (a Prolog or a job) this limit is slurmd's: fix slurmd's "
		       "LimitMEMLOCK as its finding says; from a login shell, " LIMITS_CONF_REMEDY;
	}
}

/*
 * A capture with slurmd's limits and not the capturing process's (a
 * support bundle, a hand capture of /proc/<slurmd>/limits): the limit jobs
 * inherit is slurmd's, so it is judged, and the process's own is reported as
 * not captured.  Neither captured: one skip naming the file, as before.
 */
static int judge_without_self(const struct slurmd_limits *sd, const struct memlock_cfg *cfg,
			      struct pf_result *res)
{
	struct pf_finding *f;

	if (!sd->found)
		return pf_skip(res, "/proc/self/limits not in the snapshot: RLIMIT_MEMLOCK unknown");
	judge_slurmd(sd, cfg, res);
	f = pf_add(res, PF_STATUS_SKIP, "process", "/proc/self/limits not in the snapshot: the "
		   "capturing process's RLIMIT_MEMLOCK is not captured (jobs inherit slurmd's, "
		   "judged above)");
	pf_remedy(f, "take the snapshot with preflight snapshot, which records "
		  "/proc/self/limits, to judge the process's own limit too");
	return 0;
}

static int memlock_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct memlock_cfg *cfg = config;
	struct slurmd_limits sd = { 0 };
	struct pf_rlimit rl;
	bool self_missing;
	int r;

	r = ctx->prov->memlock(ctx, &rl);
	/* under --root a capture without /proc/self/limits: the process's limit unknown */
	self_missing = r == -ENOENT && !pf_prov_can(ctx, PF_PROV_PROCESS) &&
		       pf_fs_exists(ctx->fs, "/proc/self/limits") == 0;
	if (r < 0 && !self_missing)
		return pf_error(res, r, "cannot read RLIMIT_MEMLOCK%s",
				pf_prov_can(ctx, PF_PROV_PROCESS) ? "" : " from /proc/self/limits");
	if (cfg->check_slurmd)
		read_slurmd(ctx, &sd);
	if (self_missing)
		return judge_without_self(&sd, cfg, res);
	/*
	 * Jobs, Prologs and this process under Slurm inherit slurmd's limit:
	 * when slurmd's is too low it is the cause, so its finding leads (the
	 * drain reason names the first failing finding), and a process that
	 * runs under slurmd (its ancestry says so) is pointed at slurmd's unit,
	 * not at limits.conf.
	 */
	if (slurmd_fails(&sd, cfg)) {
		judge_slurmd(&sd, cfg, res);
		judge(res, "process", &rl, cfg, process_remedy(ctx, sd.pid));
		return 0;
	}
	judge(res, "process", &rl, cfg, LIMITS_CONF_REMEDY);
	judge_slurmd(&sd, cfg, res);
	return 0;
}

static const struct pf_code memlock_codes[] = {
	{ 1, PF_ACTION_RECONFIGURE, "the hard locked-memory limit is below the profile's minimum" },
	{ 2, PF_ACTION_RECONFIGURE, "the soft locked-memory limit is below the hard one or the minimum" },
	{ 0 },
};

const struct pf_check pf_check_memlock = {
	.name = "memlock",
	.summary = "locked-memory limit allows RDMA memory registration",
	.tags = "rdma,static",
	.reads = "RLIMIT_MEMLOCK (getrlimit; /proc/self/limits under --root), "
		 "/run/slurmd.pid, /proc/<slurmd>/limits; /proc/self/stat and the parents' "
		 "/proc/<pid>/stat (whether it runs under slurmd, for the remedy)",
	.params = memlock_params,
	.codes = memlock_codes,
	.cfg_size = sizeof(struct memlock_cfg),
	.timeout_s = 5,
	.run = memlock_run,
};
