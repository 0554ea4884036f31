// SPDX-License-Identifier: MIT
/*
 * netns.c - the tests' private network namespace (netns.h).
 */
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns.h"
#include "testutil.h"

static char netns[64];
static bool have_netns;
static const char *why_skip = "not run";

int pf_test_sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd) == 0 ? 0 : -1;
}

const char *pf_test_netns_name(void)
{
	return netns;
}

void pf_test_netns_remove(void)
{
	if (!netns[0])
		return;
	pf_test_sh("ip netns del %s >/dev/null 2>&1", netns);
	netns[0] = '\0';
	have_netns = false;
}

/* @setup with every "%1$s" replaced by the namespace's name. */
static int run_setup(const char *setup)
{
	char cmd[2048];
	size_t n = 0, len = strlen(netns);

	for (const char *p = setup; *p && n + len + 1 < sizeof(cmd); p++) {
		if (!strncmp(p, "%1$s", 4)) {
			memcpy(cmd + n, netns, len);
			n += len;
			p += 3;
		} else {
			cmd[n++] = *p;
		}
	}
	cmd[n] = '\0';
	return pf_test_sh("%s", cmd);
}

void pf_test_netns_create(const char *prefix, const char *setup, const char *setup_why)
{
	if (geteuid() != 0) {
		why_skip = "needs root to create a network namespace";
		return;
	}
	if (pf_test_sh("ip -V >/dev/null 2>&1") < 0) {
		why_skip = "iproute2 'ip' not found";
		return;
	}
	snprintf(netns, sizeof(netns), "%s_%ld", prefix, (long)getpid());
	atexit(pf_test_netns_remove);
	if (pf_test_sh("ip netns add %s 2>/dev/null", netns) < 0) {
		why_skip = "'ip netns add' failed (no CAP_SYS_ADMIN or no netns support)";
		netns[0] = '\0';
		return;
	}
	if (setup && run_setup(setup) < 0) {
		why_skip = setup_why;
		pf_test_netns_remove();
		return;
	}
	have_netns = true;
}

int pf_test_netns_enter(void)
{
	char path[128];
	int self, ns;

	if (!have_netns) {
		print_message("skip: %s\n", why_skip);
		skip();
	}
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_true(self >= 0);
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(ns >= 0);
	assert_int_equal(setns(ns, CLONE_NEWNET), 0);
	close(ns);
	return self;
}

void pf_test_netns_leave(int self)
{
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
}
