// SPDX-License-Identifier: MIT
/*
 * snapshot.c - `preflight snapshot [--root SRC] [--window MS] DIR`: the front
 * end of the snapshot writer (src/facts/snapshot.c): its options, the call,
 * the summary line and the exit status.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "clock.h"
#include "cmdopt.h"
#include "commands.h"
#include "exit.h"
#include "snapshot.h"

static void snapshot_usage(FILE *out, const struct pf_option *opts)
{
	fputs("usage: preflight snapshot [--root SRC] [--window MS] DIR\n"
	      "\n"
	      "Write a recorded root of this node (or of the root SRC) into DIR, which is\n"
	      "created or must be empty: the files the checks read, sysfs links kept, and\n"
	      "the ethtool/pause/PFC facts as text.  `preflight --root DIR` reads it.\n"
	      "\n",
	      out);
	pf_cmdopt_print_options(opts, 16, out);
	fputs("\n"
	      "Exit status: 0 written, 64 usage, 73 DIR cannot be written.\n",
	      out);
}

int pf_snapshot_main(int argc, char **argv, FILE *out, FILE *err)
{
	struct pf_snapshot_opts opts = { .window_ms = PF_SNAPSHOT_WINDOW_MS };
	struct pf_snapshot_stats st;
	pf_autofs struct pf_fs *src = NULL;
	pf_autofree char *why = NULL;
	const char *root = "/";
	unsigned long window_ms = opts.window_ms;
	const struct pf_option table[] = {
		PF_OPT_STRING(0, "root", &root, "SRC", NULL),
		PF_OPT_UINT(0, "window", &window_ms, "MS",
			    "second `ethtool -S` sample of RDMA netdevs after MS ms\n"
			    "(default 1000; 0 for none)", 0, 600000, "milliseconds"),
		PF_OPT_END,
	};
	double t0 = pf_now_ms();
	struct pf_cmdopt cmd = { .cmd = "snapshot", .usage = snapshot_usage, .out = out,
				 .err = err };
	int r = pf_cmdopt_parse(&cmd, table, argc, argv);

	if (r != PF_CMDOPT_END)
		return r == PF_CMDOPT_HELP ? 0 : PF_EXIT_USAGE;
	opts.window_ms = (unsigned int)window_ms;
	if (argc - optind != 1) {
		snapshot_usage(err, table);
		return PF_EXIT_USAGE;
	}
	r = pf_fs_open(root, &src);
	if (r < 0) {
		fprintf(err, "preflight snapshot: --root: cannot open '%s': %s\n", root,
			strerror(-r));
		return PF_EXIT_USAGE;
	}
	r = pf_snapshot_write(src, argv[optind], &opts, &st, &why);
	if (r < 0) {
		fprintf(err, "preflight snapshot: %s\n", why);
		return r == -ENOTEMPTY ? 64 : 73;
	}
	fprintf(err, "preflight snapshot: wrote %s: %zu files (%.1f KiB), %zu links, %zu facts, "
		     "%zu skipped (see %s/preflight/snapshot.log) in %.0f ms\n",
		argv[optind], st.files, (double)st.bytes / 1024.0, st.links, st.facts, st.skipped,
		argv[optind], pf_now_ms() - t0);
	return 0;
}
