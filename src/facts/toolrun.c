// SPDX-License-Identifier: MIT
/*
 * toolrun.c - running a system tool for a fact provider (mstconfig,
 * mlxconfig, lldpcli): found only in fixed system directories and only if
 * root-owned and not group- or world-writable (preflight runs as root: a
 * PATH entry a user controls would run their program: pf_exec_trusted()),
 * opened once and that open file checked and executed (fexecve: no second
 * lookup of the path that a rename could answer), run with stdin
 * /dev/null and a minimal environment, its stdout and stderr captured, in a
 * process group of its own that is killed at the deadline.  Several run at
 * once under one deadline (pf_nv_run_many: a query per card in parallel);
 * a killed tool is waited for with a bound (pf_reap).
 */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "reap.h"
#include "trust.h"
#include "preflight/fs.h"
#include "preflight/providers.h"
#include "preflight/strbuf.h"

/* What is kept of a tool's output; the rest is read and dropped. */
#define TOOL_MAX_OUTPUT (64 * 1024)

static const char *const tool_dirs[] = { "/usr/bin", "/usr/sbin", "/bin", "/sbin",
					 "/usr/local/bin", "/usr/local/sbin" };

int pf_tool_path(const char *name, char *buf, size_t len)
{
	for (size_t d = 0; d < PF_ARRAY_SIZE(tool_dirs); d++) {
		snprintf(buf, len, "%s/%s", tool_dirs[d], name);
		if (pf_exec_trusted(buf, NULL, NULL) == 0) /* root's, nobody else may replace it */
			return 0;
	}
	return -ENOENT;
}

/*
 * @path opened once for executing it (fexecve() below), and that open file
 * judged by the tool-path rule: a root-owned executable nobody else may
 * replace (pf_trust_file()).  The fd, or -errno.
 */
static int open_trusted(const char *path)
{
	struct stat st;
	int fd = open(path, O_PATH | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = fstat(fd, &st) < 0 ? -errno : pf_trust_file(&st);
	if (r == 0 && !(st.st_mode & S_IXUSR))
		r = -ENOENT;
	if (r < 0) {
		close(fd);
		return r;
	}
	return fd;
}

/*
 * The tool runs in a process group of its own, so the deadline kills all it
 * started; PR_SET_PDEATHSIG kills it when the check's process dies first (the
 * runner kills the check's group at the check's deadline, which this group
 * escapes).
 */
static void child(int exe, char *const argv[], int out, pid_t parent)
{
	static char *const envp[] = { (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
				      (char *)"LC_ALL=C", NULL };
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(126);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
		_exit(126);
	/* kept open across the exec so that a '#!' tool's interpreter can read it */
	if (fcntl(exe, F_SETFD, 0) < 0)
		_exit(126);
	fexecve(exe, argv, envp);
	_exit(127);
}

/* A job's child: -errno when it could not be started (r set, no process). */
static pid_t start(struct pf_nv_job *job, int *ret_fd)
{
	pf_autoclose int exe = open_trusted(job->path);
	int fds[2];
	pid_t pid, self = getpid();

	if (exe == -ENOENT || exe == -ENOTDIR)
		return -ENOEXEC; /* as the exec of a missing file answered */
	if (exe < 0)
		return exe;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int r = -errno;

		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0)
		child(exe, job->argv, fds[1], self);
	setpgid(pid, pid); /* as the child does: whichever runs first, the kill reaches the group */
	close(fds[1]);
	*ret_fd = fds[0];
	return pid;
}

/* One read from a job's pipe: 1 more to come, 0 at EOF, -errno. */
static int drain(int fd, struct pf_strbuf *sb)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (sb->len + (size_t)n <= TOOL_MAX_OUTPUT)
		pf_strbuf_add(sb, buf, (size_t)n);
	return 1;
}

/* What is left of @deadline (pf_now_ms()) for a tool that closed its output, plus the reap bound. */
static unsigned int reap_ms(double deadline)
{
	double left = deadline - pf_now_ms();

	return (left > 0 ? (unsigned int)left : 0) + PF_REAP_MS;
}

/* The exit of a job that ran to EOF: 0, -EIO (text kept) or -ENOEXEC. */
static int exit_code(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/*
 * All jobs at once: each in its own process group, their pipes polled
 * together until every one reached EOF or the one deadline passed; those
 * still open then are killed (-ETIMEDOUT).
 */
void pf_nv_run_many(struct pf_nv_job *jobs, size_t n, unsigned int deadline_ms)
{
	pf_autofree struct pollfd *pfd = pf_xcalloc(n ? n : 1, sizeof(*pfd));
	pf_autofree pid_t *pids = pf_xcalloc(n ? n : 1, sizeof(*pids));
	pf_autofree struct pf_strbuf *sb = pf_xcalloc(n ? n : 1, sizeof(*sb));
	double deadline = pf_now_ms() + deadline_ms;
	size_t open_fds = 0;

	for (size_t i = 0; i < n; i++) {
		int fd = -1;

		jobs[i].text = NULL;
		sb[i] = (struct pf_strbuf)PF_STRBUF_INIT;
		pids[i] = start(&jobs[i], &fd);
		pfd[i].fd = -1;
		pfd[i].events = POLLIN;
		if (pids[i] < 0) {
			jobs[i].r = (int)pids[i];
			continue;
		}
		jobs[i].r = 1; /* running */
		pfd[i].fd = fd;
		open_fds++;
	}
	while (open_fds) {
		double left = deadline - pf_now_ms();
		int r;

		if (left <= 0)
			break;
		r = poll(pfd, n, (int)left + 1);
		if (r < 0 && errno != EINTR)
			break;
		for (size_t i = 0; r > 0 && i < n; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			r = drain(pfd[i].fd, &sb[i]);
			if (r <= 0) {
				jobs[i].r = r; /* 0: EOF, the exit decides */
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
			r = 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		int status = 0;

		if (pids[i] < 0)
			continue;
		if (pfd[i].fd >= 0) {
			close(pfd[i].fd);
			jobs[i].r = -ETIMEDOUT;
		}
		if (jobs[i].r != 0)
			kill(-pids[i], SIGKILL), kill(pids[i], SIGKILL);
		/* a tool that closed its output may still run: its time is the deadline's */
		if (pf_reap(pids[i], &status, jobs[i].r != 0 ? PF_REAP_MS :
			    reap_ms(deadline)) < 0) {
			kill(-pids[i], SIGKILL), kill(pids[i], SIGKILL);
			if (jobs[i].r == 0)
				jobs[i].r = -ETIMEDOUT; /* its output ended, but it did not */
		} else if (jobs[i].r == 0) {
			jobs[i].r = exit_code(status);
		}
		if (jobs[i].r == 0 || jobs[i].r == -EIO || jobs[i].r == -ENOEXEC)
			jobs[i].text = pf_strbuf_detach(&sb[i]);
		pf_strbuf_release(&sb[i]);
	}
}

int pf_nv_run(const char *path, char *const argv[], unsigned int deadline_ms, char **ret_text)
{
	struct pf_nv_job job = { .path = path, .argv = argv };

	pf_nv_run_many(&job, 1, deadline_ms);
	if (job.r == 0 || job.r == -EIO || job.r == -ENOEXEC)
		*ret_text = job.text;
	else
		free(job.text);
	return job.r;
}
