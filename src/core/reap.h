/* SPDX-License-Identifier: MIT */
/*
 * reap.h - waiting for a child with a bound.  A child killed with SIGKILL
 * still cannot die while it sleeps uninterruptibly (a read from a hung NFS
 * server), and an unbounded waitpid() would hang its parent with it.
 */
#ifndef PREFLIGHT_REAP_H
#define PREFLIGHT_REAP_H

#include <sys/types.h>

/* How long a killed child is waited for before it is left behind. */
#define PF_REAP_MS 1000

/*
 * Wait up to @ms for @pid to exit; 0 with its status in @ret_status (may be
 * NULL), -ETIMEDOUT when it is still there (not reaped: the caller has
 * killed it, and init reaps it once preflight exits), or -errno.
 */
int pf_reap(pid_t pid, int *ret_status, unsigned int ms);

#endif
