// SPDX-License-Identifier: MIT
/*
 * slurm.c - the Slurm gate (--slurm, --drain, --undrain): the decision to
 * drain or resume, the reason string, the node-state reader and the
 * scontrol calls.  Its options are the run's (src/cmd/run_opts.c), and
 * the run (src/cmd/run.c) calls pf_slurm_gate() once the report is written.
 *
 * As a Prolog, preflight's exit code alone already drains a failing node
 * (Slurm's reason is then "Prolog error"); --drain sets a reason that names
 * the check, and is what a HealthCheckProgram must do itself.  Only a
 * verdict that reaches drain_on (fail by default; --drain-on error|warn)
 * drains: the run (src/cmd/run.c) also exits 0 under Slurm for a verdict
 * below it, so an undecided check never takes a node out of service unless
 * asked to.  --undrain resumes only a drain whose reason is "preflight:
 * CHECK: ..." for a CHECK that ran in this run and now passes: a node an
 * operator drained for another cause stays drained (and --drain leaves its
 * reason alone), a config-error drain stays until an admin resumes it (else
 * the node would flap between the Prolog and the HealthCheckProgram), and
 * stderr says why.
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "hostlist.h"
#include "preflight/fs.h"
#include "runner.h"
#include "slurm.h"

bool pf_slurm_detected(void)
{
	const char *job = getenv("SLURM_JOB_ID"), *node = getenv("SLURMD_NODENAME");

	return (job && *job) || (node && *node);
}

void pf_slurm_sanitize(char *s, size_t max)
{
	size_t w = 0, last_end = 0, cut_at = 0;
	bool blank = true; /* drops leading blanks */

	PF_BUG_ON(max < 4);
	for (size_t i = 0; s[i];) {
		uint32_t cp;
		int n = pf_utf8_decode(s + i, &cp);

		if (n < 0) {
			s[w++] = '?';
			i++;
			blank = false;
		} else if (cp < 0x20 || cp == 0x7f || cp == ' ') {
			if (!blank)
				s[w++] = ' ';
			blank = true;
			i += (size_t)n;
		} else {
			if (cp == '"') {
				s[w++] = '\'';
			} else {
				memmove(s + w, s + i, (size_t)n);
				w += (size_t)n;
			}
			i += (size_t)n;
			blank = false;
		}
		/* the last character boundary that still leaves room for "..." */
		if (w <= max - 3)
			cut_at = w;
		last_end = w;
		if (w > max)
			break;
	}
	if (last_end > max) {
		while (cut_at > 0 && s[cut_at - 1] == ' ')
			cut_at--;
		memcpy(s + cut_at, "...", 4);
		return;
	}
	while (w > 0 && s[w - 1] == ' ')
		w--;
	s[w] = '\0';
}

int pf_slurm_drain_on_from_name(const char *name, enum pf_status *ret)
{
	enum pf_status s;

	if (pf_status_from_name(name, &s) < 0 ||
	    (s != PF_STATUS_FAIL && s != PF_STATUS_ERROR && s != PF_STATUS_WARN))
		return -EINVAL;
	*ret = s;
	return 0;
}

enum pf_status pf_slurm_drain_on(const struct pf_slurm_opts *o)
{
	return o->drain_on == PF_STATUS_PASS ? PF_STATUS_FAIL : o->drain_on;
}

bool pf_slurm_drains(enum pf_status verdict, const struct pf_slurm_opts *o)
{
	return pf_status_rank(verdict) >= pf_status_rank(pf_slurm_drain_on(o));
}

bool pf_slurm_resumes(enum pf_status verdict, const struct pf_slurm_opts *o)
{
	return !pf_slurm_drains(verdict, o) &&
	       pf_status_rank(verdict) < pf_status_rank(PF_STATUS_ERROR);
}

/* The reason for @verdict (warn, fail or error): its first check and finding of that status. */
static char *reason_for(const struct pf_report *r, enum pf_status verdict, size_t max)
{
	char *reason;

	for (size_t i = 0; i < r->n_runs; i++) {
		const struct pf_result *res = &r->runs[i].res;
		const struct pf_finding *f = NULL;

		if (res->status != verdict)
			continue;
		for (size_t k = 0; k < res->n_findings && !f; k++)
			if (res->findings[k].status == verdict)
				f = &res->findings[k];
		if (f)
			reason = pf_xasprintf(PF_SLURM_REASON_PREFIX " %s: %s%s%s%s%s",
					      r->runs[i].check->name, f->code ? f->code : "",
					      f->code ? " " : "", f->subject ? f->subject : "",
					      f->subject ? ": " : "", f->message);
		else
			reason = pf_xasprintf(PF_SLURM_REASON_PREFIX " %s: %s",
					      r->runs[i].check->name,
					      res->summary ? res->summary : pf_status_name(verdict));
		pf_slurm_sanitize(reason, max);
		return reason;
	}
	PF_BUG_ON(true); /* the verdict is some check's status */
	return NULL;
}

/* True when @code is one of the comma-separated codes of @list (any case). */
static bool code_listed(const char *list, const char *code)
{
	size_t len = strlen(code);

	for (const char *p = list; *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (strcspn(p, ",") == len && !strncasecmp(p, code, len))
			return true;
	}
	return false;
}

bool pf_slurm_reboot_fixes(const struct pf_report *r, const struct pf_slurm_opts *o)
{
	int level = pf_status_rank(pf_slurm_drain_on(o));
	bool any = false;

	if (!o->reboot_on || !*o->reboot_on)
		return false;
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct pf_result *res = &r->runs[i].res;
		bool shown = false;

		if (pf_status_rank(res->status) < level)
			continue;
		for (size_t k = 0; k < res->n_findings; k++) {
			const struct pf_finding *f = &res->findings[k];

			if (pf_status_rank(f->status) < level)
				continue;
			if (!f->code || !code_listed(o->reboot_on, f->code) ||
			    (f->action != PF_ACTION_REBOOT && f->action != PF_ACTION_RELOAD_DRIVER))
				return false;
			shown = true;
		}
		if (!shown)
			return false; /* an error with no finding: a reboot is not known to fix it */
		any = true;
	}
	return any;
}

char *pf_slurm_reason(const struct pf_report *r, size_t max)
{
	enum pf_status verdict = pf_report_verdict(r);

	if (verdict != PF_STATUS_FAIL && verdict != PF_STATUS_ERROR)
		return NULL;
	return reason_for(r, verdict, max);
}

bool pf_slurm_state_drained(const char *state)
{
	return state && (strstr(state, "DRAIN") || strstr(state, "DOWN") || strstr(state, "FAIL"));
}

/* The value of token @key ("State=") in @line, up to the next blank. */
static char *token_value(const char *line, size_t len, const char *key)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i + klen <= len; i++) {
		size_t end;

		if ((i > 0 && line[i - 1] != ' ' && line[i - 1] != '\t') ||
		    strncmp(line + i, key, klen))
			continue;
		i += klen;
		for (end = i; end < len && line[end] != ' ' && line[end] != '\t'; end++)
			;
		return pf_xasprintf("%.*s", (int)(end - i), line + i);
	}
	return NULL;
}

int pf_slurm_parse_node(const char *text, char **ret_state, char **ret_reason)
{
	pf_autofree char *state = NULL, *reason = NULL;
	bool node = false;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t lead = strspn(line, " \t");

		if (lead < len && !strncmp(line + lead, "Reason=", 7)) {
			/* the reason has blanks: it runs to the end of its line */
			const char *v = line + lead + 7, *end = line + len, *at;

			at = end;
			while (at > v && at[-1] == ' ')
				at--;
			if (at > v && at[-1] == ']') {
				/* drop " [user@time]" that scontrol appends */
				const char *open = at - 1;

				while (open > v && *open != '[')
					open--;
				if (*open == '[' && memchr(open, '@', (size_t)(at - open)) &&
				    open > v && open[-1] == ' ')
					at = open - 1;
			}
			free(reason);
			reason = pf_xasprintf("%.*s", (int)(at - v), v);
		} else {
			char *v;

			if (!node && (v = token_value(line, len, "NodeName="))) {
				node = true;
				free(v);
			}
			if (!state && (v = token_value(line, len, "State=")))
				state = v;
		}
		line = nl ? nl + 1 : NULL;
	}
	if (!node)
		return -ENOENT;
	if (ret_state)
		*ret_state = PF_TAKE_PTR(state);
	if (ret_reason)
		*ret_reason = PF_TAKE_PTR(reason);
	return 0;
}

int pf_slurm_one_node(const char *text, const char *name, char **ret_why)
{
	static const char key[] = "NodeName=";
	const size_t klen = sizeof(key) - 1;
	pf_autofree char *first = NULL;
	size_t n = 0;

	/* every "NodeName=" that starts a token: one per node described */
	for (const char *p = text; (p = strstr(p, key)); p += klen) {
		size_t len;

		if (p > text && p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n')
			continue;
		if (n++ == 0) {
			len = strcspn(p + klen, " \t\n");
			first = pf_xasprintf("%.*s", (int)len, p + klen);
		}
	}
	if (n == 0) {
		*ret_why = pf_xstrdup("it describes no node (no NodeName=)");
		return -ENOENT;
	}
	if (n > 1) {
		/* a NodeSet name, a pattern, ALL: each would be drained */
		*ret_why = pf_xasprintf("it describes %zu nodes: the name stands for a set", n);
		return -E2BIG;
	}
	if (strcmp(first, name)) {
		*ret_why = pf_xasprintf("it describes node '%s', not '%s'", first, name);
		return -ESRCH;
	}
	*ret_why = NULL;
	return 0;
}

int pf_slurm_node_name(char **ret_name)
{
	const char *env = getenv("SLURMD_NODENAME");
	struct utsname u;

	if (env && *env) {
		if (!pf_hostlist_one_name(env))
			return -EINVAL;
		*ret_name = pf_xstrdup(env);
		return 0;
	}
	if (uname(&u) < 0)
		return -errno;
	u.nodename[strcspn(u.nodename, ".")] = '\0';
	if (!*u.nodename)
		return -ENOENT;
	if (!pf_hostlist_one_name(u.nodename))
		return -EINVAL; /* a host called "all" would name every node */
	*ret_name = pf_xstrdup(u.nodename);
	return 0;
}

/*
 * scontrol's output from @rfd into @mem until EOF: 0, -ETIMEDOUT past
 * @deadline, -EINTR once a SIGTERM arrived (scontrol is then killed: a
 * drain stops going out), or -errno.
 */
static int collect(int rfd, FILE *mem, double deadline)
{
	int r = 0;

	for (;;) {
		struct pollfd p = { .fd = rfd, .events = POLLIN };
		char chunk[4096];
		double left = deadline - pf_now_ms() / 1e3;
		ssize_t n;
		int pr;

		if (left <= 0) {
			r = -ETIMEDOUT;
			break;
		}
		if (pf_runner_interrupted()) {
			r = -EINTR; /* SIGTERM while scontrol runs: stop it, send nothing more */
			break;
		}
		pr = poll(&p, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0) {
			r = -errno;
			break;
		}
		if (pr == 0)
			continue;
		n = read(rfd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fwrite(chunk, 1, (size_t)n, mem);
	}
	return r;
}

int pf_slurm_exec(const char *const *argv, unsigned int timeout_s, char **ret_output,
		  int *ret_status)
{
	int pipefd[2], status = 0, r = 0;
	pf_autoclose int rfd = -1;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;
	double deadline = pf_now_ms() / 1e3 + (timeout_s ? timeout_s : PF_SLURM_SCONTROL_TIMEOUT_S);
	pid_t pid;

	if (pf_runner_interrupted())
		return -EINTR; /* a SIGTERM before scontrol ran: nothing goes out */
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	rfd = pipefd[0];
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pipefd[1]);
		return r;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		/* own process group, so that a deadline kills scontrol's children too */
		setpgid(0, 0);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	mem = open_memstream(&buf, &len);
	PF_BUG_ON(!mem);
	r = collect(rfd, mem, deadline);
	if (r < 0) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	fclose(mem);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret_status = status;
	if (ret_output)
		*ret_output = buf;
	else
		free(buf);
	return 0;
}

/* Run scontrol with @args (NULL-terminated); 0 when it exited 0. */
static int scontrol(const struct pf_slurm_opts *o, const char *const *args, char **ret_output,
		    FILE *log)
{
	const char *path = o->scontrol ? o->scontrol : getenv("SCONTROL");
	pf_autofree char *real = NULL;
	const char *argv[8];
	size_t n = 0;
	int status, r;

	if (path && *path && geteuid() == 0) {
		pf_autofree char *why = NULL;

		/* root runs it: no other user may have put it there or swap it */
		r = pf_exec_trusted(path, &real, &why);
		if (r < 0) {
			fprintf(log, "preflight: not running scontrol '%s' as root: %s (SCONTROL "
				"must be an absolute path to root's program, it and its "
				"directories not writable by others)\n", path, why);
			return -EPERM;
		}
		path = real; /* the file judged, not a link that could change */
	}
	argv[n++] = path && *path ? path : "scontrol";
	for (; *args && n < PF_ARRAY_SIZE(argv) - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	r = pf_slurm_exec(argv, o->timeout_s, ret_output, &status);
	if (r < 0) {
		fprintf(log, "preflight: %s %s: %s\n", argv[0], argv[1],
			r == -ETIMEDOUT ? "timed out" : r == -EINTR ?
			"not run: preflight was interrupted by a signal" : strerror(-r));
		return r;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		fprintf(log, "preflight: cannot run '%s' (set SCONTROL to its path)\n", argv[0]);
	else if (WIFEXITED(status))
		fprintf(log, "preflight: %s %s exited with status %d\n", argv[0], argv[1],
			WEXITSTATUS(status));
	else
		fprintf(log, "preflight: %s %s killed by signal %d\n", argv[0], argv[1],
			WTERMSIG(status));
	if (ret_output) {
		free(*ret_output);
		*ret_output = NULL;
	}
	return -ECHILD;
}

/*
 * State and reason of @node, once `scontrol show node` says it is exactly
 * one node of that name; 0, -EINVAL when it is not (a set, another node),
 * -EPERM when scontrol may not run, or -errno (the reasons were logged).
 */
static int show_node(const struct pf_slurm_opts *o, const char *node, char **ret_state,
		     char **ret_reason, FILE *log)
{
	const char *args[] = { "show", "node", node, NULL };
	pf_autofree char *out = NULL;
	int r = scontrol(o, args, &out, log);

	pf_autofree char *why = NULL;

	if (r < 0)
		return r;
	/* a NodeSet name looks plain: the update would act on every node it holds */
	if (pf_slurm_one_node(out, node, &why) < 0) {
		fprintf(log, "preflight: 'scontrol show node %s': %s; node %s is neither drained "
			"nor resumed\n", node, why, node);
		return -EINVAL;
	}
	return pf_slurm_parse_node(out, ret_state, ret_reason);
}

/*
 * `scontrol reboot ASAP nextstate=RESUME reason=@reason @node`: Slurm drains
 * the node, reboots it once idle (its RebootProgram) and resumes it when it
 * registers again, after which the Prolog or HealthCheckProgram judges the
 * fresh boot.  0, or -errno when Slurm refused (no RebootProgram, an older
 * scontrol): the caller drains instead.
 */
static int request_reboot(const struct pf_slurm_opts *o, const char *node, const char *reason,
			  FILE *log)
{
	pf_autofree char *reason_arg = pf_xasprintf("reason=%s", reason);
	const char *args[] = { "reboot", "ASAP", "nextstate=RESUME", reason_arg, node, NULL };
	int r = scontrol(o, args, NULL, log);

	if (r == 0)
		fprintf(log, "preflight: asked Slurm to reboot node %s once idle and resume it "
			"(--reboot-on)\n", node);
	else if (r != -EINTR)
		fprintf(log, "preflight: Slurm did not take the reboot request (is RebootProgram "
			"set in slurm.conf?); draining node %s instead\n", node);
	return r;
}

static int drain(const struct pf_slurm_opts *o, const char *node, const char *reason,
		 bool reboot, FILE *log)
{
	pf_autofree char *state = NULL, *old = NULL, *node_arg = NULL, *reason_arg = NULL;
	int r;

	/* Never an update on a name scontrol does not show as exactly that one node. */
	r = show_node(o, node, &state, &old, log);
	if (r < 0)
		return r;
	/* Keep an operator's drain: only replace a reason preflight set. */
	if (pf_slurm_state_drained(state) && old && *old &&
	    strncmp(old, PF_SLURM_REASON_PREFIX, strlen(PF_SLURM_REASON_PREFIX))) {
		fprintf(log, "preflight: node %s is already %s (reason '%s'); left as it is\n", node,
			state, old);
		return 0;
	}
	if (reboot) {
		r = request_reboot(o, node, reason, log);
		if (r == 0 || r == -EINTR || r == -EPERM)
			return r;
	}
	node_arg = pf_xasprintf("NodeName=%s", node);
	reason_arg = pf_xasprintf("Reason=%s", reason);
	{
		const char *args[] = { "update", node_arg, "State=DRAIN", reason_arg, NULL };

		r = scontrol(o, args, NULL, log);
	}
	if (r == 0)
		fprintf(log, "preflight: drained node %s\n", node);
	return r;
}

/*
 * The run of the check a drain @reason ("preflight: CHECK: ...") names, or
 * NULL: a config error, a check this run did not run, or another text.
 */
static const struct pf_run *drained_by(const struct pf_report *r, const char *reason)
{
	const char *name = reason + strlen(PF_SLURM_REASON_PREFIX);
	size_t len;

	name += strspn(name, " ");
	len = strcspn(name, ":");
	if (!name[len])
		return NULL;
	for (size_t i = 0; i < r->n_runs; i++)
		if (strlen(r->runs[i].check->name) == len &&
		    !strncmp(r->runs[i].check->name, name, len))
			return &r->runs[i];
	return NULL;
}

/*
 * Why the drain @reason of @node stays, or NULL when this run may resume
 * it: only a drain preflight set for a check that ran now and passes (or
 * stays below drain_on).  Never a config error: the next run with the same
 * wrapper would fail at launch again, and the node would flap.
 */
static char *keep_drain(const struct pf_report *r, const struct pf_slurm_opts *o,
			const char *node, const char *reason)
{
	const size_t n = strlen(PF_SLURM_REASON_PREFIX);
	const struct pf_run *run;

	if (strncmp(reason, PF_SLURM_REASON_PREFIX, n))
		return pf_xasprintf("drained by someone else (reason '%s')", reason);
	if (!strncmp(reason + n + strspn(reason + n, " "), "config error", 12))
		return pf_xasprintf("a config error (reason '%s'): fix the wrapper or site config, "
				    "check it with --check-config, then resume by hand: scontrol "
				    "update NodeName=%s State=RESUME", reason, node);
	run = drained_by(r, reason);
	if (!run)
		return pf_xasprintf("drained for a check this run did not run (reason '%s'); the "
				    "run that drained it resumes it, or: scontrol update "
				    "NodeName=%s State=RESUME", reason, node);
	if (!pf_slurm_resumes(run->res.status, o))
		return pf_xasprintf("%s is still %s (reason '%s')", run->check->name,
				    pf_status_name(run->res.status), reason);
	return NULL;
}

static int undrain(const struct pf_report *rep, const struct pf_slurm_opts *o, const char *node,
		   FILE *log)
{
	pf_autofree char *state = NULL, *reason = NULL, *node_arg = NULL, *why = NULL;
	int r = show_node(o, node, &state, &reason, log);

	if (r < 0)
		return r;
	if (!pf_slurm_state_drained(state) || !reason || !*reason)
		return 0; /* not drained (or drained with no reason: not preflight's) */
	why = keep_drain(rep, o, node, reason);
	if (why) {
		fprintf(log, "preflight: --undrain: node %s left %s: %s\n", node, state, why);
		return 0;
	}
	node_arg = pf_xasprintf("NodeName=%s", node);
	{
		const char *args[] = { "update", node_arg, "State=RESUME", NULL };

		r = scontrol(o, args, NULL, log);
	}
	if (r == 0)
		fprintf(log, "preflight: resumed node %s (was %s: %s)\n", node, state, reason);
	return r;
}

static int node_name(const struct pf_slurm_opts *o, char **ret_node, FILE *log)
{
	int ret;

	if (o->node) {
		if (!pf_hostlist_one_name(o->node)) {
			fprintf(log, "preflight: node name '%s' is not one plain host name: not "
				"drained nor resumed\n", o->node);
			return -EINVAL;
		}
		*ret_node = pf_xstrdup(o->node);
		return 0;
	}
	ret = pf_slurm_node_name(ret_node);
	if (ret == -EINVAL)
		fprintf(log, "preflight: %s is not one plain host name (ALL or a hostlist such "
			"as n[1-100] would name many nodes): not drained nor resumed\n",
			getenv("SLURMD_NODENAME") && *getenv("SLURMD_NODENAME") ? "SLURMD_NODENAME" :
			"the short host name");
	else if (ret < 0)
		fprintf(log, "preflight: cannot tell this node's Slurm name: %s\n", strerror(-ret));
	return ret;
}

int pf_slurm_gate(const struct pf_report *r, const struct pf_slurm_opts *o, FILE *log)
{
	enum pf_status verdict = pf_report_verdict(r);
	bool drains = pf_slurm_drains(verdict, o);
	pf_autofree char *reason = NULL;
	pf_autofree char *node = NULL;
	int ret;

	if (drains || verdict == PF_STATUS_FAIL || verdict == PF_STATUS_ERROR)
		reason = reason_for(r, verdict, PF_SLURM_REASON_MAX);
	if (reason)
		fprintf(log, "%s\n", reason);
	if (reason && !drains)
		fprintf(log, "preflight: not draining on %s: the node drains on %s "
			"(--drain-on, the profile's \"drain_on\")\n", pf_status_name(verdict),
			pf_slurm_drain_on(o) == PF_STATUS_FAIL ? "fail only" :
			pf_status_name(pf_slurm_drain_on(o)));
	if (drains ? !o->drain : !(o->undrain && pf_slurm_resumes(verdict, o)))
		return 0;
	ret = node_name(o, &node, log);
	if (ret < 0)
		return ret;
	if (!drains)
		return undrain(r, o, node, log);
	return drain(o, node, reason, pf_slurm_reboot_fixes(r, o), log);
}

int pf_slurm_drain_config_error(const struct pf_slurm_opts *o, const char *msg, FILE *log)
{
	pf_autofree char *node = NULL;
	pf_autofree char *reason = pf_xasprintf(PF_SLURM_REASON_PREFIX " config error: %s",
						 msg && *msg ? msg : "invalid arguments");
	int ret;

	pf_slurm_sanitize(reason, PF_SLURM_REASON_MAX);
	ret = node_name(o, &node, log);
	if (ret < 0)
		return ret;
	return drain(o, node, reason, false, log);
}
