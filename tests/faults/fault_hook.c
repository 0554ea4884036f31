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
 * Only preflight-faults defines pf_runner_fault_hook(); the shipped
 * preflight binary leaves the weak reference in src/runner/runner.c NULL, so none
 * of this is reachable there (docs/hardening.md).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void pf_runner_fault_hook(const char *check, int fd);

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
