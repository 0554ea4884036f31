// SPDX-License-Identifier: MIT
/*
 * reap.c - pf_reap(): waitpid() with a deadline, by polling (reap.h).
 */
#include <errno.h>
#include <sys/wait.h>
#include <time.h>

#include "clock.h"
#include "reap.h"

#define REAP_POLL_MS 5

int pf_reap(pid_t pid, int *ret_status, unsigned int ms)
{
	double deadline = pf_now_ms() + ms;
	int status = 0;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == pid) {
			if (ret_status)
				*ret_status = status;
			return 0;
		}
		if (pf_now_ms() >= deadline)
			return -ETIMEDOUT;
		(void)nanosleep(&(struct timespec){ .tv_nsec = REAP_POLL_MS * 1000000L }, NULL);
	}
}
