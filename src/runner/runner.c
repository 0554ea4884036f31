// SPDX-License-Identifier: MIT
/*
 * runner.c - per-check isolation: fork, deadline, result over a pipe.
 */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "text.h"
#include "runner.h"

/* A result larger than this is a broken check, not a report. */
#define PF_RESULT_MAX (64u << 20)

/*
 * SIGTERM, SIGINT and SIGHUP (Slurm's PrologTimeout, a CI cancel, Ctrl-C):
 * the first kills the running check's process group at once (each check has
 * its own, so a group kill of preflight misses them) and is remembered, so
 * the runner finishes that check and every later one as "interrupted by
 * SIGTERM" and the report is still written; a second signal exits at once
 * with 128 + its number.  Only async-signal-safe calls in the handler.
 */
static volatile sig_atomic_t interrupted_by;
static volatile sig_atomic_t running_pgid; /* the running check's group, 0 when none */

static void on_signal(int sig)
{
	int saved = errno;
	pid_t pgid = (pid_t)running_pgid;

	if (pgid > 0)
		kill(-pgid, SIGKILL);
	if (interrupted_by)
		_exit(128 + sig);
	interrupted_by = sig;
	errno = saved;
}

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };

void pf_runner_catch_signals(void)
{
	static bool installed;
	struct sigaction sa = { .sa_handler = on_signal };

	if (installed)
		return;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < PF_ARRAY_SIZE(stop_signals); i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	/* no SA_RESTART: poll() and waitpid() return EINTR and look at the flag */
	for (size_t i = 0; i < PF_ARRAY_SIZE(stop_signals); i++)
		sigaction(stop_signals[i], &sa, NULL);
	installed = true;
}

int pf_runner_interrupted(void)
{
	return interrupted_by;
}

void pf_run_inline(const struct pf_ctx *ctx, struct pf_run *run)
{
	int r;

	pf_result_init(&run->res);
	r = run->check->run(ctx, run->cfg, &run->res);
	if (r < 0) {
		bool has_error = false;

		for (size_t i = 0; i < run->res.n_findings; i++)
			has_error |= run->res.findings[i].status == PF_STATUS_ERROR;
		if (!has_error)
			pf_error(&run->res, r, "check could not decide");
	}
	pf_result_finish(&run->res);
	if (r < 0 && run->res.status != PF_STATUS_FAIL)
		run->res.status = PF_STATUS_ERROR;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Test seam for fault injection: defined only by the test-only binary
 * preflight-faults (tests/faults/fault_hook.c), which makes a named check's
 * child hang, crash or send garbage.  The shipped binary has no definition,
 * so the weak reference is NULL and the seam cannot be reached.
 */
void pf_runner_fault_hook(const char *check, int fd) __attribute__((weak));

static void __attribute__((noreturn)) child_main(const struct pf_ctx *ctx, struct pf_run *run,
						 int fd, pid_t parent)
{
	static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS };
	char *text;
	cJSON *j;

	setpgid(0, 0);
	/* a check never outlives preflight, even one killed with SIGKILL */
	for (size_t i = 0; i < PF_ARRAY_SIZE(stop_signals); i++)
		signal(stop_signals[i], SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(4); /* the parent died before the request took effect */
	/* a crash must end the child, whatever handlers the parent installed */
	for (size_t i = 0; i < PF_ARRAY_SIZE(crash_signals); i++)
		signal(crash_signals[i], SIG_DFL);
	/* stdout carries only the report: anything a library prints goes to stderr */
	dup2(STDERR_FILENO, STDOUT_FILENO);
	if (pf_runner_fault_hook)
		pf_runner_fault_hook(run->check->name, fd);
	pf_run_inline(ctx, run);
	j = pf_result_to_json(&run->res);
	text = cJSON_PrintUnformatted(j);
	if (!text || write_all(fd, text, strlen(text)) < 0)
		_exit(3);
	_exit(0);
}

/* The status line of a running check; cleared with "\r\033[K". */
struct status_line {
	FILE *out;
	const struct pf_run *run;
	double t0;
	char detail[96];
	char pending[128]; /* a partial line from the pipe */
	size_t n_pending;
};

static void status_draw(struct status_line *sl)
{
	double elapsed = (pf_now_ms() - sl->t0) / 1e3;
	char line[256];
	struct winsize ws;
	int n;

	if (!sl->out)
		return;
	n = snprintf(line, sizeof(line), "preflight: %s%s%s  %.0f s / %u s", sl->run->check->name,
		     sl->detail[0] ? "  " : "", sl->detail, elapsed, sl->run->timeout_s);
	/* one physical line, or "\r\033[K" would leave the wrapped part behind */
	if (n > 0 && fileno(sl->out) >= 0 && ioctl(fileno(sl->out), TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 1 && (size_t)n >= ws.ws_col) {
		size_t cut = ws.ws_col - 1;

		while (cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 sequence */
		line[cut] = '\0';
	}
	fprintf(sl->out, "\r\033[K%s", line);
	fflush(sl->out);
}

static void status_clear(struct status_line *sl)
{
	if (!sl->out)
		return;
	fputs("\r\033[K", sl->out);
	fflush(sl->out);
}

/* Take the check's progress lines from @fd; the last whole line is shown. */
static void status_read(struct status_line *sl, int fd)
{
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				pf_autofree char *c = NULL;

				sl->pending[sl->n_pending] = '\0';
				c = pf_utf8_clean(sl->pending, true);
				snprintf(sl->detail, sizeof(sl->detail), "%s", c);
				sl->n_pending = 0;
			} else if (sl->n_pending < sizeof(sl->pending) - 1) {
				sl->pending[sl->n_pending++] = buf[i];
			}
		}
	}
}

static void result_error(struct pf_run *run, const char *fmt, ...) PF_PRINTF(2, 3);
static void result_error(struct pf_run *run, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	pf_result_release(&run->res);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	pf_add(&run->res, PF_STATUS_ERROR, NULL, "%s", msg ? msg : "check failed");
	pf_summary(&run->res, "%s", msg ? msg : "check failed");
	free(msg);
	pf_result_finish(&run->res);
}

const char *pf_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/*
 * Read the child's result until EOF or the deadline; returns 0, -ETIME or
 * -errno.  With a status line, also its progress pipe @pfd, and a redraw
 * each second.
 */
static int read_result(int fd, double deadline, struct status_line *sl, int pfd,
		       char **ret_buf, size_t *ret_len)
{
	pf_autofree char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		struct pollfd pfds[2] = { { .fd = fd, .events = POLLIN },
					  { .fd = pfd, .events = POLLIN } };
		double left = deadline - pf_now_ms();
		ssize_t n;
		int r;

		if (interrupted_by)
			return -ECANCELED;
		if (left <= 0)
			return -ETIME;
		r = poll(pfds, pfd >= 0 ? 2 : 1, sl->out && left > 1000 ? 1000 : (int)(left + 1));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd >= 0 && (pfds[1].revents & POLLIN)) {
			status_read(sl, pfd);
			status_draw(sl);
		} else if (r == 0) {
			status_draw(sl); /* the elapsed time moves on */
		}
		if (pfds[1].revents & (POLLHUP | POLLERR))
			pfd = -1; /* the check closed it (it ended): nothing more to show */
		if (!(pfds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 16384;
			if (cap > PF_RESULT_MAX)
				return -EFBIG;
			buf = pf_xrealloc(buf, cap);
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (!buf)
		buf = pf_xstrdup("");
	buf[len] = '\0';
	*ret_buf = PF_TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

/* Reap @pid by the deadline, killing its process group if it is late. */
static int reap(pid_t pid, double deadline, int *ret_status, bool *ret_killed)
{
	*ret_killed = false;
	for (;;) {
		pid_t w = waitpid(pid, ret_status, WNOHANG);

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (pf_now_ms() >= deadline && !*ret_killed) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*ret_killed = true;
			if (waitpid(pid, ret_status, 0) == pid)
				return 0;
			return -errno;
		}
		{
			struct timespec ts = { 0, 200000 };

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * The result of a forked check from how it ended: @r the read's (-ETIME past
 * the deadline, -EFBIG too big), @rr the wait's, @status and @killed the
 * child's; else the JSON it sent in @buf.
 */
static void finish_forked(struct pf_run *run, int r, int rr, int status, bool killed,
			  const char *buf, size_t len)
{
	char name[32];

	if (interrupted_by)
		result_error(run, "interrupted by %s",
			     pf_signal_name(interrupted_by, name, sizeof(name)));
	else if (r == -EFBIG)
		result_error(run, "sent a result over %u MiB", PF_RESULT_MAX >> 20);
	else if (r == -ETIME || killed)
		result_error(run, "timed out after %u s", run->timeout_s);
	else if (rr < 0)
		result_error(run, "cannot wait for the check: %s", strerror(-rr));
	else if (WIFSIGNALED(status))
		result_error(run, "crashed: %s", pf_signal_name(WTERMSIG(status), name, sizeof(name)));
	else if (r < 0)
		result_error(run, "cannot read the check's result: %s", strerror(-r));
	else if (WEXITSTATUS(status) != 0 || len == 0)
		result_error(run, "exited with status %d without a result", WEXITSTATUS(status));
	else {
		pf_autojson cJSON *j = cJSON_ParseWithLength(buf, len);

		r = pf_result_from_json(j, &run->res);
		if (r < 0)
			result_error(run, "sent an unreadable result");
	}
}

static void run_forked(const struct pf_ctx *ctx, struct pf_run *run, FILE *progress)
{
	double deadline = pf_now_ms() + run->timeout_s * 1000.0;
	struct status_line sl = { .out = progress, .run = run, .t0 = pf_now_ms() };
	struct pf_ctx child_ctx = *ctx;
	pf_autofree char *buf = NULL;
	pf_autoclose int rfd = -1, prfd = -1;
	int fds[2], pfds[2] = { -1, -1 }, status = 0, r, rr;
	bool killed;
	size_t len = 0;
	pid_t pid, parent;

	pf_result_init(&run->res);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		result_error(run, "cannot create a pipe: %s", strerror(errno));
		return;
	}
	/* progress is a nicety: without its pipe the check still runs */
	if (progress && pipe2(pfds, O_CLOEXEC | O_NONBLOCK) < 0)
		pfds[0] = pfds[1] = -1;
	child_ctx.progress_fd = pfds[1] > 2 ? pfds[1] : 0;
	status_draw(&sl);
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		if (pfds[0] >= 0) {
			close(pfds[0]);
			close(pfds[1]);
		}
		status_clear(&sl);
		result_error(run, "cannot fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		if (pfds[0] >= 0)
			close(pfds[0]);
		child_main(&child_ctx, run, fds[1], parent);
	}
	setpgid(pid, pid); /* both sides, to win the race */
	running_pgid = pid;
	if (interrupted_by) /* the signal came between fork and here */
		kill(-pid, SIGKILL);
	close(fds[1]);
	rfd = fds[0];
	if (pfds[0] >= 0)
		close(pfds[1]);
	prfd = pfds[0];

	r = read_result(rfd, deadline, &sl, prfd, &buf, &len);
	status_clear(&sl);
	/* a child whose result is too big blocks on the full pipe: kill it now */
	rr = reap(pid, r == -ETIME || r == -EFBIG || r == -ECANCELED ? 0 : deadline, &status,
		  &killed);
	running_pgid = 0;
	finish_forked(run, r, rr, status, killed, buf, len);
}

/*
 * A check the run cannot judge (pf_runner_opts): an error naming the missing
 * inventory, or a skip under a topology export alone.  True when decided.
 */
static bool not_judged(const struct pf_ctx *ctx, struct pf_run *run,
		       const struct pf_runner_opts *opts)
{
	if (!ctx->node && opts->node_error && (run->check->flags & PF_CHECK_NEEDS_NODE))
		pf_add(&run->res, PF_STATUS_ERROR, NULL, "%s", opts->node_error);
	else if (opts->topology_only && !(run->check->flags & PF_CHECK_JUDGES_TOPOLOGY))
		pf_add(&run->res, PF_STATUS_SKIP, NULL, "not run under --topology alone: the "
		       "export holds the PCI, GPU and NIC inventory, not what %s judges; run it "
		       "on the node, or with --root on a snapshot of it", run->check->name);
	else
		return false;
	pf_result_finish(&run->res);
	return true;
}

void pf_runner_run(const struct pf_ctx *ctx, struct pf_run *runs, size_t n,
		   const struct pf_runner_opts *opts)
{
	for (size_t i = 0; i < n; i++) {
		struct pf_run *run = &runs[i];
		double t0 = pf_now_ms();

		if (not_judged(ctx, run, opts))
			continue;

		run->timeout_s = opts->timeout_s ? opts->timeout_s
				 : run->check->deadline_s && run->cfg ? run->check->deadline_s(run->cfg)
				 : run->check->timeout_s;
		pf_runner_catch_signals();
		if (interrupted_by) {
			char name[32];

			pf_result_init(&run->res);
			result_error(run, "interrupted by %s before it ran",
				     pf_signal_name(interrupted_by, name, sizeof(name)));
		} else if (opts->no_fork) {
			struct status_line sl = { .out = opts->progress, .run = run, .t0 = t0 };

			status_draw(&sl);
			if (pf_runner_fault_hook)
				pf_runner_fault_hook(run->check->name, -1);
			pf_run_inline(ctx, run);
			status_clear(&sl);
		} else {
			run_forked(ctx, run, opts->progress);
		}
		run->duration_ms = pf_now_ms() - t0;
	}
}
