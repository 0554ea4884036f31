/* SPDX-License-Identifier: MIT */
/*
 * netns.h - a private network namespace for tests that need a real kernel's
 * netlink and ethtool (veth pairs, addresses, rules): made with `ip netns
 * add`, entered with setns(2) around one call, removed in the group's
 * teardown and, should the process die first, by an atexit handler.  Needs
 * root and iproute2; without them every test that enters skips, naming why.
 */
#ifndef PF_TEST_NETNS_H
#define PF_TEST_NETNS_H

#include <stdbool.h>

#include "preflight/macro.h"

/* Run a shell command (printf-formatted); 0 when it exits 0, else -1. */
int pf_test_sh(const char *fmt, ...) PF_PRINTF(1, 2);

/*
 * Make the namespace "<prefix>_<pid>" and run @setup in it (a shell command
 * where every "%1$s" is the namespace's name; NULL: none); @setup_why is the
 * skip reason when it fails.  Never fails the test: pf_test_netns_enter()
 * skips with the reason instead.  One namespace per process.
 */
void pf_test_netns_create(const char *prefix, const char *setup, const char *setup_why);
/* Its name ("" when there is none). */
const char *pf_test_netns_name(void);
void pf_test_netns_remove(void);
/* Enter it (cmocka skip() when there is none); returns the fd to leave by. */
int pf_test_netns_enter(void);
void pf_test_netns_leave(int self);

#endif
