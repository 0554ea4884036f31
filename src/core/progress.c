// SPDX-License-Identifier: MIT
/*
 * progress.c - pf_progress(): a check's one-line progress note to the
 * runner's status line, over the pipe the runner set in ctx->progress_fd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "preflight/check.h"

void pf_progress(const struct pf_ctx *ctx, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	if (!ctx || ctx->progress_fd <= 2)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* non-blocking: a full pipe drops the update, never stalls the check */
	(void)!write(ctx->progress_fd, line, (size_t)n);
}
