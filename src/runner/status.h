/* SPDX-License-Identifier: MIT */
/*
 * status.h - the status line of a running check on the operator's terminal:
 * "preflight: NAME  DETAIL  12 s / 60 s", redrawn in place and cleared with
 * "\r\033[K" when the check ends.  DETAIL is the last whole line the check
 * sent with pf_progress().
 */
#ifndef PREFLIGHT_RUNNER_STATUS_H
#define PREFLIGHT_RUNNER_STATUS_H

#include <stdio.h>

#include "report.h" /* struct pf_run */

struct pf_status_line {
	FILE *out; /* NULL: no status line, every call is a no-op */
	const struct pf_run *run;
	double t0;
	char detail[96];
	char pending[128]; /* a partial line from the progress pipe */
	size_t n_pending;
};

/* From now on the line shows @run, started at @t0 (pf_now_ms()), with no detail yet. */
void pf_status_start(struct pf_status_line *sl, const struct pf_run *run, double t0);
void pf_status_draw(struct pf_status_line *sl);
void pf_status_clear(struct pf_status_line *sl);
/* Take the check's progress lines from the non-blocking @fd. */
void pf_status_read(struct pf_status_line *sl, int fd);

#endif
