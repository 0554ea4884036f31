// SPDX-License-Identifier: MIT
/*
 * test_soak.c - no fd or memory growth over many consecutive runs.
 *
 * One process loads the inventory of a generated 2-GPU RoCE root, runs
 * every static check and renders the JSON report, over and over: 1,000
 * times in-process (the --no-fork path) and 100 times through the forking
 * runner.  The number of open fds (/proc/self/fd) must not change from
 * the first run to the last, and the heap in use (mallinfo2) must not grow
 * over the second half of the runs (the first half lets the allocator
 * settle: glibc's heap in use steps up, by ~150 KiB and then by a few KiB
 * more for hundreds of runs, then stays flat however many runs follow);
 * under ASan the leak checker at exit
 * judges memory instead.  PF_SOAK_RUNS overrides the
 * in-process count (bench/soak.sh runs more).
 */
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "version.h"
#include "testutil.h"
#include "preflight/fs.h"
#include "preflight/node.h"
#include "registry.h"
#include "report.h"

#if defined(__SANITIZE_ADDRESS__)
#define PF_SOAK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PF_SOAK_ASAN 1
#endif
#endif

static char *root;

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own fd */
}

static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* One whole run, as main.c does it: inventory, every static check, the JSON report. */
static void one_run(bool no_fork, FILE *sink)
{
	size_t n_all, n = 0;
	const struct pf_check *const *all = pf_registry(&n_all);
	struct pf_run *runs = calloc(n_all, sizeof(*runs));
	struct pf_runner_opts opts = { .no_fork = no_fork };
	struct pf_report report = { 0 };
	struct pf_profile prof;
	struct pf_ctx ctx = { 0 };
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	char *err = NULL;

	assert_non_null(runs);
	pf_profile_init(&prof);
	assert_int_equal(pf_fs_open(root, &fs), 0);
	if (pf_node_load(fs, NULL, &node, &err) < 0)
		fail_msg("node: %s", err ? err : "?");
	ctx.fs = fs;
	ctx.node = node;
	ctx.prov = pf_providers_for(fs);
	for (size_t i = 0; i < n_all; i++) {
		if (all[i]->flags & PF_CHECK_TRAFFIC)
			continue;
		runs[n].check = all[i];
		assert_int_equal(pf_config_build(all[i], &prof, &runs[n].cfg, &err), 0);
		n++;
	}
	pf_runner_run(&ctx, runs, n, &opts);
	report.version = PF_VERSION;
	report.root = pf_fs_root(fs);
	report.profile = "generic";
	report.started_at = time(NULL);
	report.runs = runs;
	report.n_runs = n;
	pf_report_describe_node(&report, fs);
	assert_int_equal(pf_render_json(&report, sink), 0);
	for (size_t i = 0; i < n; i++) {
		pf_config_free(runs[i].check, runs[i].cfg);
		pf_result_release(&runs[i].res);
	}
	free(runs);
	pf_node_free(node);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

/* The heap after a flush and a trim, for a reading at a checkpoint. */
static size_t heap_settled(FILE *sink)
{
	fflush(sink);
	malloc_trim(0);
	return heap_in_use();
}

static void soak(bool no_fork, unsigned int count)
{
	FILE *sink = fopen("/dev/null", "w");
	struct timespec t0, t1;
	size_t heap0 = 0, heap_mid = 0, heap1;
	int fds0, fds1;

	assert_non_null(sink);
	fds0 = count_fds();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned int i = 0; i < count; i++) {
		if (i == count / 2)
			heap0 = heap_settled(sink);
		if (i == count / 2 + count / 4)
			heap_mid = heap_settled(sink);
		one_run(no_fork, sink);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	heap1 = heap_settled(sink);
	fds1 = count_fds();
	printf("soak %s: %u runs in %.2f s; fds %d -> %d; heap in use %zu -> %zu -> %zu bytes\n",
	       no_fork ? "in-process" : "forked", count,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, fds0,
	       fds1, heap0, heap_mid, heap1);
	fclose(sink);
	assert_int_equal(fds1, fds0);
#ifndef PF_SOAK_ASAN
	/*
	 * Measured over the second half of the runs, in its two quarters: the
	 * heap in use keeps moving in steps with no leak (valgrind finds none,
	 * and its still-reachable bytes are the same after 10 runs and 80);
	 * over 20 runs of 1000 the second half grew by up to ~23 KiB, the two
	 * quarters by up to 13 and 10 KiB together, on the tree before issue 30
	 * and after.  A leak grows in both quarters: one 64-byte block per run
	 * is 16 KiB in each of 250 runs (a malloc(48) a run failed 3 of 3 runs when
	 * injected).  A fail needs that in both, so no
	 * settling step drains CI.  Smaller leaks are valgrind's and
	 * LeakSanitizer's to find (bench/soak.sh, the sanitizer build).
	 */
	if (heap_mid > heap0 + 16384 && heap1 > heap_mid + 16384)
		fail_msg("heap grew by %zu then %zu bytes over two quarters of %u runs",
			 heap_mid - heap0, heap1 - heap_mid, count);
#endif
}

static void test_soak_in_process(void **state)
{
	const char *env = getenv("PF_SOAK_RUNS");

	soak(true, env ? (unsigned int)strtoul(env, NULL, 10) : 1000);
}

static void test_soak_forked(void **state)
{
	soak(false, 100);
}

static int setup(void **state)
{
	root = pf_test_gen_root("--gpus 2 --nics 2 --link-layer eth "
				"--file 'preflight/dcb/enp20s0np0/pfc=prio-pfc 3:on' "
				"--file 'preflight/ethtool/enp20s0np0/stats=NIC statistics:'");
	return 0;
}

static int teardown(void **state)
{
	pf_test_rmtree(root);
	free(root);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soak_in_process),
		cmocka_unit_test(test_soak_forked),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
