// SPDX-License-Identifier: MIT
/*
 * mstconfig.c - one firmware NV configuration parameter of a NIC, as
 * `mstconfig -d <bdf> -e q <NAME>` prints it (Debian's mstflint; NVIDIA's
 * `mlxconfig` from MFT takes the same arguments and prints the same table).
 *
 * Live: the tool is looked up in fixed system directories only (root-owned,
 * not group- or world-writable: preflight runs as root and a PATH entry a
 * user controls would run their program: src/core/trust.h), opened once and
 * that open file checked and executed (fexecve: no second lookup of the path
 * that another rename could answer), run with a minimal environment,
 * stdin /dev/null, stdout and stderr captured, and killed with its process
 * group at the deadline.  Recorded: preflight/mstconfig/<bdf>/<NAME>, the
 * same text (docs/snapshot.md).
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
#include "preflight/net.h"
#include "preflight/providers.h"
#include "preflight/node.h"
#include "preflight/strbuf.h"
#include "record.h"

#define NV_QUERY_DEADLINE_MS 4000
#define NV_QUERY_MAX_OUTPUT (64 * 1024)

static const char *const tool_names[] = { "mstconfig", "mlxconfig" };
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

int pf_nv_tool_path(char *buf, size_t len)
{
	for (size_t t = 0; t < PF_ARRAY_SIZE(tool_names); t++)
		if (pf_tool_path(tool_names[t], buf, len) == 0)
			return 0;
	return -ENOENT;
}

/*
 * @path opened once for executing it (fexecve() below), and that open file
 * judged by the tool-path rule: a root-owned executable nobody else may
 * replace (pf_trust_file(), src/core/trust.h).  The fd, or -errno.
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
	fexecve(exe, argv, envp);
	_exit(127);
}

/* Read @fd until EOF or the deadline; -ETIMEDOUT at the deadline. */
static int slurp(int fd, double deadline, struct pf_strbuf *sb)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		double left = deadline - pf_now_ms();
		char buf[4096];
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)left + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (sb->len + (size_t)n <= NV_QUERY_MAX_OUTPUT)
			pf_strbuf_add(sb, buf, (size_t)n);
	}
}

int pf_nv_run(const char *path, char *const argv[], unsigned int deadline_ms, char **ret_text)
{
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;
	pf_autoclose int exe = open_trusted(path);
	int fds[2], status = 0, r;
	pid_t pid, self = getpid();

	if (exe == -ENOENT || exe == -ENOTDIR)
		return -ENOEXEC; /* as the exec of a missing file answered */
	if (exe < 0)
		return exe;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0)
		child(exe, argv, fds[1], self);
	setpgid(pid, pid); /* as the child does: whichever runs first, the kill reaches the group */
	close(fds[1]);
	r = slurp(fds[0], pf_now_ms() + deadline_ms, &sb);
	close(fds[0]);
	if (r < 0)
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
	if (pf_reap(pid, &status, r < 0 ? PF_REAP_MS : deadline_ms + PF_REAP_MS) < 0) {
		kill(-pid, SIGKILL), kill(pid, SIGKILL);
		r = r < 0 ? r : -ETIMEDOUT; /* its output ended, but it did not */
	}
	if (r < 0)
		return r;
	*ret_text = pf_strbuf_detach(&sb);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOEXEC;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

/* A parameter name as mlxconfig spells them: upper case, digits, '_'. */
static bool valid_name(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* "0000:17:00.0": hex digits, ':' and '.' only (never an option or a path). */
static bool valid_bdf(const char *bdf)
{
	return *bdf && *bdf != '-' && strlen(bdf) < 16 &&
	       strspn(bdf, "0123456789abcdefABCDEF:.") == strlen(bdf);
}

int pf_live_nv_query(const struct pf_ctx *ctx, const char *bdf, const char *name,
		     char **ret_text)
{
	char path[64], dev[16], param[72];
	char *argv[] = { path, (char *)"-d", dev, (char *)"-e", (char *)"q", param, NULL };

	(void)ctx;
	*ret_text = NULL;
	if (!valid_bdf(bdf) || !valid_name(name))
		return -EINVAL;
	if (pf_nv_tool_path(path, sizeof(path)) < 0)
		return -ENOPKG;
	snprintf(dev, sizeof(dev), "%s", bdf);
	snprintf(param, sizeof(param), "%s", name);
	return pf_nv_run(path, argv, NV_QUERY_DEADLINE_MS, ret_text);
}

/* A line of the tool's own error report ("-E- Failed to open the device"). */
static bool tool_error(const char *text)
{
	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (!strncmp(l, "-E-", 3))
			return true;
	return false;
}

/*
 * As the live side answers: the tool's output; -EIO with it when the tool
 * failed (recorded beside as <name>.failed, or a hand capture of the
 * tool's error report, which holds no value); -ENOPKG when the snapshot
 * says no tool was installed (preflight/mstconfig/no-tool); -ENOENT when
 * nothing was recorded.
 */
int pf_recorded_nv_query(const struct pf_ctx *ctx, const char *bdf, const char *name,
			 char **ret_text)
{
	pf_autofree char *path = NULL, *failed = NULL;
	struct pf_nv_value v;
	int r;

	*ret_text = NULL;
	if (!valid_bdf(bdf) || !valid_name(name))
		return -EINVAL;
	path = pf_xasprintf("/preflight/mstconfig/%s/%s", bdf, name);
	r = pf_fs_read_full(ctx->fs, path, 0, ret_text, NULL);
	if (r >= 0)
		return pf_parse_mlxconfig_query(*ret_text, name, &v) < 0 && tool_error(*ret_text)
			       ? -EIO : r;
	if (r != -ENOENT)
		return r;
	failed = pf_xasprintf("%s.failed", path);
	r = pf_fs_read_full(ctx->fs, failed, 0, ret_text, NULL);
	if (r >= 0)
		return -EIO;
	if (r == -ENOENT && pf_fs_exists(ctx->fs, "/preflight/mstconfig/no-tool") == 1)
		return -ENOPKG;
	return r;
}

void pf_roce_cc_param(const char *bdf, size_t n_ports, unsigned int port, char *buf, size_t len)
{
	const char *dot = strrchr(bdf, '.');
	unsigned int fn = dot && dot[1] >= '0' && dot[1] <= '7' ? (unsigned int)(dot[1] - '0') : 0;

	snprintf(buf, len, "ROCE_CC_PRIO_MASK_P%u", n_ports > 1 ? port : fn + 1);
}

/* preflight/mstconfig/<bdf>/<param> of one RoCE port, when the provider answers. */
static int record_port(struct pf_record *rec, const struct pf_pci_dev *pci, size_t n_ports,
		       unsigned int port)
{
	pf_autofree char *text = NULL, *f = NULL;
	char param[48];
	int r;

	pf_roce_cc_param(pci->bdf, n_ports, port, param, sizeof(param));
	f = pf_xasprintf("preflight/mstconfig/%s/%s", pci->bdf, param);
	r = rec->ctx->prov->nv_query(rec->ctx, pci->bdf, param, &text);
	if (r == -ENOPKG)
		return pf_record_put_text(rec, "preflight/mstconfig/no-tool",
					  "neither mstconfig nor mlxconfig is installed\n");
	if (r == -EIO && text) {
		pf_autofree char *failed = pf_xasprintf("%s.failed", f);

		pf_record_skip(rec, f, r);
		return pf_record_put_text(rec, failed, text);
	}
	if (!pf_record_answer(rec, f, r))
		return 0;
	return pf_record_put_text(rec, f, text);
}

/*
 * preflight/mstconfig/<bdf>/ROCE_CC_PRIO_MASK_P<n>: the firmware's DCQCN
 * enable of each NVIDIA/Mellanox RoCE port, as `mstconfig -e q` prints it
 * and pf_recorded_nv_query() reads it.
 */
int pf_record_nv(struct pf_record *rec)
{
	struct pf_node *node = NULL;
	pf_autofree char *err = NULL;
	int r = 0;

	if (pf_node_load(rec->ctx->fs, NULL, &node, &err) < 0)
		return 0;
	for (size_t i = 0; i < node->n_rdma && r >= 0; i++) {
		const struct pf_rdma_dev *dev = &node->rdma[i];
		const struct pf_pci_dev *pci = dev->pci >= 0 ? &node->pci[dev->pci] : NULL;

		for (size_t j = 0; j < dev->n_ports && r >= 0; j++) {
			if (dev->ports[j].link_layer != PF_LINK_ETH || !pci || pci->vendor != 0x15b3)
				continue;
			r = record_port(rec, pci, dev->n_ports, dev->ports[j].num);
		}
	}
	pf_node_free(node);
	return r;
}
