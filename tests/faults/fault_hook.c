// SPDX-License-Identifier: MIT
/*
 * fault_hook.c - fault injection for the test-only binary preflight-faults.
 *
 * PF_TEST_FAULT=<kind>:<check>[,<kind>:<check>...] makes the forked child of
 * <check> misbehave before the check runs:
 *   hang     sleep forever (the runner's deadline must kill it)
 *   crash    SIGSEGV
 *   abort    abort()
 *   exit     exit 5 without a result
 *   garbage  send bytes that are not a result, then exit 0
 *   huge     send 80 MB without end (over the runner's 64 MiB cap)
 *   stdout   write to stdout (must not reach the report)
 *   failonce the check's result becomes a fail the first time it runs, and
 *            is its own afterwards: "the first time" is the creation of the
 *            file PF_TEST_FAULT_ONCE names (--confirm's re-runs, t0712)
 * Only preflight-faults defines pf_runner_fault_hook(); the shipped
 * preflight binary leaves the weak reference in src/runner/runner.c NULL, so none
 * of this is reachable there (docs/hardening.md).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight/result.h"

void pf_runner_fault_hook(const char *check, int fd);
void pf_runner_fault_result(const char *check, struct pf_result *res);

static void put(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n <= 0)
			_exit(4);
		s += n;
		len -= (size_t)n;
	}
}

/* Whether PF_TEST_FAULT names @kind for @check. */
static bool fault_named(const char *kind, const char *check)
{
	const char *spec = getenv("PF_TEST_FAULT");
	size_t klen = strlen(kind), clen = strlen(check);

	while (spec && *spec) {
		const char *end = strchr(spec, ',');

		if (!end)
			end = spec + strlen(spec);
		if ((size_t)(end - spec) == klen + 1 + clen && !memcmp(spec, kind, klen) &&
		    spec[klen] == ':' && !memcmp(spec + klen + 1, check, clen))
			return true;
		spec = *end ? end + 1 : end;
	}
	return false;
}

void pf_runner_fault_result(const char *check, struct pf_result *res)
{
	const char *once = getenv("PF_TEST_FAULT_ONCE");
	int fd;

	if (!once || !fault_named("failonce", check))
		return;
	fd = open(once, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return; /* not the first time */
	close(fd);
	pf_result_release(res);
	pf_add(res, PF_STATUS_FAIL, NULL, "a fail injected once (PF_TEST_FAULT=failonce:%s)", check);
	pf_result_finish(res);
}

void pf_runner_fault_hook(const char *check, int fd)
{
	const char *spec = getenv("PF_TEST_FAULT");
	char kind[16];
	size_t clen = strlen(check);

	while (spec && *spec) {
		const char *colon = strchr(spec, ':'), *end = strchr(spec, ',');
		size_t klen, nlen;

		if (!end)
			end = spec + strlen(spec);
		if (!colon || colon > end)
			return;
		klen = (size_t)(colon - spec);
		nlen = (size_t)(end - colon - 1);
		if (klen < sizeof(kind) && nlen == clen && !memcmp(colon + 1, check, clen)) {
			memcpy(kind, spec, klen);
			kind[klen] = '\0';
			if (!strcmp(kind, "hang")) {
				for (;;)
					pause();
			} else if (!strcmp(kind, "crash")) {
				raise(SIGSEGV);
			} else if (!strcmp(kind, "abort")) {
				abort();
			} else if (!strcmp(kind, "exit")) {
				_exit(5);
			} else if (!strcmp(kind, "garbage")) {
				put(fd, "{\"status\": \"pass\", \"findings\": [", 33);
				_exit(0);
			} else if (!strcmp(kind, "huge")) {
				static char block[65536];

				memset(block, ' ', sizeof(block));
				for (int i = 0; i < 1280; i++)
					put(fd, block, sizeof(block));
				_exit(0);
			} else if (!strcmp(kind, "stdout")) {
				fputs("PF-FAULT-STDOUT-NOISE\n", stdout);
				fflush(stdout);
				printf("{\"not\": \"the report\"}\n");
				fflush(stdout);
			}
		}
		spec = *end ? end + 1 : end;
	}
}
