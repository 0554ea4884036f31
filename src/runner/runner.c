// SPDX-License-Identifier: MIT
/*
 * runner.c - per-check isolation: fork, deadline, result over a pipe.
 *
 * A check that may load a vendor library (PF_CHECK_LOADS_LIBRARIES, when the
 * providers are live) or sends traffic runs in a child of its own.  The other
 * checks of a run share one child, which runs them in order and sends each
 * result as a frame as soon as it is finished: the parent gives each check its
 * own deadline from the moment the previous frame arrived, so a check that
 * hangs, crashes, exits or sends garbage is that check's error, exactly as in
 * a child of its own, and the checks after it continue in a fresh child.  A
 * fork costs about as much as a static check's work, so this keeps the forked
 * run close to --no-fork (bench/static.sh prints both).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "status.h"
#include "runner.h"

/* A result larger than this is a broken check, not a report. */
#define PF_RESULT_MAX (64u << 20)

/*
 * A result on the pipe: this header (the magic, then the JSON's length in the
 * host's byte order: both ends are one binary) and the JSON.  Bytes that do
 * not start with the magic are not a result; they are kept to the child's end
 * and judged like any unframed output.
 */
static const char frame_magic[4] = { 'P', 'F', 'R', '\1' };
#define FRAME_HEADER (sizeof(frame_magic) + sizeof(uint32_t))

/*
 * SIGTERM, SIGINT and SIGHUP (Slurm's PrologTimeout, a CI cancel, Ctrl-C):
 * the first kills the running check's process group at once (each child has
 * its own, so a group kill of preflight misses them) and is remembered, so
 * the runner finishes that check and every later one as "interrupted by
 * SIGTERM" and the report is still written; a second signal exits at once
 * with 128 + its number.  Only async-signal-safe calls in the handler.
 */
static volatile sig_atomic_t interrupted_by;
static volatile sig_atomic_t running_pgid; /* the running child's group, 0 when none */

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
	pf_result_resolve_codes(&run->res, run->check->name, run->check->codes);
	pf_result_finish(&run->res);
	if (r < 0 && run->res.status != PF_STATUS_FAIL)
		run->res.status = PF_STATUS_ERROR;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *buf = data;

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
/* The same binary's second seam: change a check's finished result (a fail that clears). */
void pf_runner_fault_result(const char *check, struct pf_result *res) __attribute__((weak));

/* The child's side: its own group, no stop handlers, dies with the parent. */
static void child_setup(pid_t parent)
{
	static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS };

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
}

/* Run each of @runs in turn and send its result as a frame; then exit. */
static void __attribute__((noreturn)) child_main(const struct pf_ctx *ctx, struct pf_run **runs,
						 size_t n, int fd, pid_t parent)
{
	child_setup(parent);
	for (size_t i = 0; i < n; i++) {
		char header[FRAME_HEADER];
		uint32_t len;
		char *text;
		cJSON *j;

		if (pf_runner_fault_hook)
			pf_runner_fault_hook(runs[i]->check->name, fd);
		pf_run_inline(ctx, runs[i]);
		if (pf_runner_fault_result)
			pf_runner_fault_result(runs[i]->check->name, &runs[i]->res);
		j = pf_result_to_json(&runs[i]->res);
		text = j ? cJSON_PrintUnformatted(j) : NULL;
		if (!text || strlen(text) > PF_RESULT_MAX)
			_exit(3);
		len = (uint32_t)strlen(text);
		memcpy(header, frame_magic, sizeof(frame_magic));
		memcpy(header + sizeof(frame_magic), &len, sizeof(len));
		if (write_all(fd, header, sizeof(header)) < 0 || write_all(fd, text, len) < 0)
			_exit(3);
		free(text);
		cJSON_Delete(j);
		pf_result_release(&runs[i]->res);
	}
	_exit(0);
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

/* @len bytes of @p and a NUL (@p may be NULL when @len is 0). */
static char *xmemdup0(const char *p, size_t len)
{
	char *s = pf_xmalloc(len + 1);

	if (len)
		memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* What the parent has read from a child and not yet taken as a result. */
struct child_stream {
	int fd;
	int pfd; /* the progress pipe, -1 when none or closed */
	char *buf;
	size_t len, cap;
	bool eof;
};

/*
 * The frame at the front of @s: 1 with its JSON's length in *ret_n when it is
 * whole, 0 when more must be read, -EBADMSG when the bytes are not a frame,
 * -EFBIG when it says it is larger than a result may be.
 */
static int frame_at_front(const struct child_stream *s, size_t *ret_n)
{
	size_t head = s->len < sizeof(frame_magic) ? s->len : sizeof(frame_magic);
	uint32_t n;

	if (memcmp(s->buf, frame_magic, head))
		return -EBADMSG;
	if (s->len < FRAME_HEADER)
		return 0;
	memcpy(&n, s->buf + sizeof(frame_magic), sizeof(n));
	if (n > PF_RESULT_MAX)
		return -EFBIG;
	*ret_n = n;
	return s->len >= FRAME_HEADER + n;
}

/* Read more of @s by @deadline, feeding the status line; 0, -ETIME, -ECANCELED, -EFBIG, -errno. */
static int stream_fill(struct child_stream *s, double deadline, struct pf_status_line *sl)
{
	for (;;) {
		struct pollfd pfds[2] = { { .fd = s->fd, .events = POLLIN },
					  { .fd = s->pfd, .events = POLLIN } };
		double left = deadline - pf_now_ms();
		ssize_t n;
		int r;

		if (interrupted_by)
			return -ECANCELED;
		if (left <= 0)
			return -ETIME;
		r = poll(pfds, s->pfd >= 0 ? 2 : 1, sl->out && left > 1000 ? 1000 : (int)(left + 1));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (s->pfd >= 0 && (pfds[1].revents & POLLIN)) {
			pf_status_read(sl, s->pfd);
			pf_status_draw(sl);
		} else if (r == 0) {
			pf_status_draw(sl); /* the elapsed time moves on */
		}
		if (s->pfd >= 0 && (pfds[1].revents & (POLLHUP | POLLERR))) {
			close(s->pfd); /* the child closed it (it ended): nothing more to show */
			s->pfd = -1;
		}
		if (!(pfds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		/* one frame and the start of the next at most: more is not a result */
		if (s->len > FRAME_HEADER + PF_RESULT_MAX)
			return -EFBIG;
		if (s->len + 4096 + 1 > s->cap) {
			s->cap = s->cap ? s->cap * 2 : 16384;
			s->buf = pf_xrealloc(s->buf, s->cap);
		}
		n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (n == 0)
			s->eof = true;
		s->len += (size_t)n;
		return 0;
	}
}

/*
 * The next result from @s by @deadline.  0 and *ret_framed with a whole frame
 * in *ret_buf; 0 and !*ret_framed at the child's end, with whatever else it
 * sent (maybe nothing) in *ret_buf; else -ETIME, -ECANCELED, -EFBIG or -errno.
 */
static int stream_next(struct child_stream *s, double deadline, struct pf_status_line *sl,
		       char **ret_buf, size_t *ret_len, bool *ret_framed)
{
	for (;;) {
		size_t n = 0;
		int r = s->len ? frame_at_front(s, &n) : 0;

		if (r == -EFBIG)
			return r;
		if (r == 1) {
			*ret_buf = xmemdup0(s->buf + FRAME_HEADER, n);
			*ret_len = n;
			*ret_framed = true;
			s->len -= FRAME_HEADER + n;
			memmove(s->buf, s->buf + FRAME_HEADER + n, s->len);
			return 0;
		}
		if (s->eof) {
			*ret_buf = xmemdup0(s->buf, s->len);
			*ret_len = s->len;
			*ret_framed = false;
			s->len = 0;
			return 0;
		}
		r = stream_fill(s, deadline, sl);
		if (r < 0)
			return r;
	}
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

/* @run's result from the JSON of its frame. */
static void take_frame(struct pf_run *run, const char *buf, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(buf, len);
	int r;

	pf_result_init(&run->res);
	r = pf_result_from_json(j, &run->res);
	cJSON_Delete(j);
	if (r < 0)
		result_error(run, "sent an unreadable result");
}

/*
 * The result of a check whose child ended or was stopped before its frame:
 * @r the read's (-ETIME past the deadline, -EFBIG too big), @rr the wait's,
 * @status and @killed the child's; else what the child sent unframed in @buf.
 */
static void finish_broken(struct pf_run *run, int r, int rr, int status, bool killed,
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
		/* unframed bytes: a result only if they parse (they never do from our child) */
		pf_autojson cJSON *j = cJSON_ParseWithLength(buf, len);

		pf_result_init(&run->res);
		r = pf_result_from_json(j, &run->res);
		if (r < 0)
			result_error(run, "sent an unreadable result");
	}
}

/*
 * Start a child running @runs[0..n), with a progress pipe when @sl shows a
 * line; on failure -errno and what failed in *ret_what.
 */
static int spawn(const struct pf_ctx *ctx, struct pf_run **runs, size_t n,
		 const struct pf_status_line *sl, struct child_stream *s, pid_t *ret_pid,
		 const char **ret_what)
{
	struct pf_ctx child_ctx = *ctx;
	int fds[2], pfds[2] = { -1, -1 }, r;
	pid_t pid, parent;

	*ret_what = "create a pipe";
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* progress is a nicety: without its pipe the checks still run */
	if (sl->out && pipe2(pfds, O_CLOEXEC | O_NONBLOCK) < 0)
		pfds[0] = pfds[1] = -1;
	child_ctx.progress_fd = pfds[1] > 2 ? pfds[1] : 0;
	fflush(NULL);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		r = -errno;
		*ret_what = "fork";
		close(fds[0]);
		close(fds[1]);
		if (pfds[0] >= 0) {
			close(pfds[0]);
			close(pfds[1]);
		}
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		if (pfds[0] >= 0)
			close(pfds[0]);
		child_main(&child_ctx, runs, n, fds[1], parent);
	}
	setpgid(pid, pid); /* both sides, to win the race */
	running_pgid = pid;
	if (interrupted_by) /* the signal came between fork and here */
		kill(-pid, SIGKILL);
	close(fds[1]);
	if (pfds[0] >= 0)
		close(pfds[1]);
	*s = (struct child_stream){ .fd = fds[0], .pfd = pfds[0] };
	*ret_pid = pid;
	return 0;
}

static void stream_close(struct child_stream *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->pfd >= 0)
		close(s->pfd);
	free(s->buf);
	*s = (struct child_stream){ .fd = -1, .pfd = -1 };
}

/*
 * Run @runs[0..n) in one child, each with its own deadline from the moment
 * the one before it finished.  Returns how many got a result: all n, or
 * fewer when a check broke the child (it died, hung or misbehaved: that
 * check's error is its result, and the caller goes on with the rest in a new
 * child).
 */
static size_t run_child(const struct pf_ctx *ctx, struct pf_run **runs, size_t n, FILE *progress)
{
	struct pf_status_line sl = { .out = progress };
	struct child_stream s = { .fd = -1, .pfd = -1 };
	double t0 = pf_now_ms();
	const char *what;
	int status = 0, r, rr;
	bool killed;
	pid_t pid = -1;

	pf_status_start(&sl, runs[0], t0);
	pf_status_draw(&sl);
	r = spawn(ctx, runs, n, &sl, &s, &pid, &what);
	if (r < 0) {
		pf_status_clear(&sl);
		pf_result_init(&runs[0]->res);
		result_error(runs[0], "cannot %s: %s", what, strerror(-r));
		runs[0]->duration_ms = pf_now_ms() - t0;
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct pf_run *run = runs[i];
		double deadline = t0 + run->timeout_s * 1000.0;
		pf_autofree char *buf = NULL;
		size_t len = 0;
		bool framed = false;

		if (i > 0) {
			pf_status_start(&sl, run, t0);
			pf_status_draw(&sl);
		}
		r = stream_next(&s, deadline, &sl, &buf, &len, &framed);
		if (r == 0 && framed) {
			take_frame(run, buf, len);
			run->duration_ms = pf_now_ms() - t0;
			t0 = pf_now_ms();
			continue;
		}
		/* this check broke its child; a child that is too big or late is killed now */
		pf_status_clear(&sl);
		rr = reap(pid, r == -ETIME || r == -EFBIG || r == -ECANCELED ? 0 : deadline,
			  &status, &killed);
		running_pgid = 0;
		finish_broken(run, r, rr, status, killed, buf, len);
		run->duration_ms = pf_now_ms() - t0;
		stream_close(&s);
		return i + 1;
	}
	pf_status_clear(&sl);
	/* every result is in and the child is exiting; one that lingers is killed */
	reap(pid, pf_now_ms() + 1000.0, &status, &killed);
	running_pgid = 0;
	stream_close(&s);
	return n;
}

/* True when @run gets a child of its own rather than sharing one. */
static bool own_child(const struct pf_run *run, const struct pf_runner_opts *opts)
{
	unsigned int flags = run->check->flags;

	return (flags & PF_CHECK_TRAFFIC) ||
	       ((flags & PF_CHECK_LOADS_LIBRARIES) && opts->libraries_live);
}

static void interrupted_before(struct pf_run *run)
{
	char name[32];

	pf_result_init(&run->res);
	result_error(run, "interrupted by %s before it ran",
		     pf_signal_name(interrupted_by, name, sizeof(name)));
}

/*
 * Run @runs[0..n) in children: a check that needs one of its own gets it,
 * each stretch of the others between them shares one, and the checks after
 * one that broke its child go on in a new one.
 */
static void run_in_children(const struct pf_ctx *ctx, struct pf_run **runs, size_t n,
			    const struct pf_runner_opts *opts)
{
	size_t i = 0;

	while (i < n) {
		size_t m = 1;

		if (interrupted_by) {
			interrupted_before(runs[i++]);
			continue;
		}
		if (!own_child(runs[i], opts))
			while (i + m < n && !own_child(runs[i + m], opts))
				m++;
		i += run_child(ctx, runs + i, m, opts->progress);
	}
}

static void run_in_process(const struct pf_ctx *ctx, struct pf_run *run,
			   const struct pf_runner_opts *opts)
{
	struct pf_status_line sl = { .out = opts->progress };
	double t0 = pf_now_ms();

	if (interrupted_by) {
		interrupted_before(run);
	} else {
		pf_status_start(&sl, run, t0);
		pf_status_draw(&sl);
		if (pf_runner_fault_hook)
			pf_runner_fault_hook(run->check->name, -1);
		pf_run_inline(ctx, run);
		if (pf_runner_fault_result)
			pf_runner_fault_result(run->check->name, &run->res);
		pf_status_clear(&sl);
	}
	run->duration_ms = pf_now_ms() - t0;
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
	pf_autofree struct pf_run **todo = pf_xcalloc(n ? n : 1, sizeof(*todo));
	size_t n_todo = 0;

	pf_runner_catch_signals();
	for (size_t i = 0; i < n; i++) {
		struct pf_run *run = &runs[i];

		if (not_judged(ctx, run, opts))
			continue;
		run->timeout_s = opts->timeout_s ? opts->timeout_s
				 : run->check->deadline_s && run->cfg ? run->check->deadline_s(run->cfg)
				 : run->check->timeout_s;
		todo[n_todo++] = run;
	}
	if (!opts->no_fork) {
		run_in_children(ctx, todo, n_todo, opts);
		return;
	}
	for (size_t i = 0; i < n_todo; i++)
		run_in_process(ctx, todo[i], opts);
}
