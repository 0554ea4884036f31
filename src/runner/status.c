// SPDX-License-Identifier: MIT
/*
 * status.c - the status line of a running check (status.h).
 */
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "clock.h"
#include "text.h"
#include "status.h"

void pf_status_start(struct pf_status_line *sl, const struct pf_run *run, double t0)
{
	sl->run = run;
	sl->t0 = t0;
	sl->detail[0] = '\0';
	sl->n_pending = 0;
}

void pf_status_draw(struct pf_status_line *sl)
{
	double elapsed = (pf_now_ms() - sl->t0) / 1e3;
	char line[256];
	struct winsize ws;
	int n;

	if (!sl->out)
		return;
	n = snprintf(line, sizeof(line), "preflight: %s%s%s  %.0f s / %u s", sl->run->check->name,
		     sl->detail[0] ? "  " : "", sl->detail, elapsed, sl->run->timeout_s);
	/* one physical line, or "\r\033[K" would leave the wrapped part behind */
	if (n > 0 && fileno(sl->out) >= 0 && ioctl(fileno(sl->out), TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col > 1 && (size_t)n >= ws.ws_col) {
		size_t cut = ws.ws_col - 1;

		while (cut > 0 && ((unsigned char)line[cut] & 0xc0) == 0x80)
			cut--; /* not inside a UTF-8 sequence */
		line[cut] = '\0';
	}
	fprintf(sl->out, "\r\033[K%s", line);
	fflush(sl->out);
}

void pf_status_clear(struct pf_status_line *sl)
{
	if (!sl->out)
		return;
	fputs("\r\033[K", sl->out);
	fflush(sl->out);
}

void pf_status_read(struct pf_status_line *sl, int fd)
{
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				pf_autofree char *c = NULL;

				sl->pending[sl->n_pending] = '\0';
				c = pf_utf8_clean(sl->pending, true);
				snprintf(sl->detail, sizeof(sl->detail), "%s", c);
				sl->n_pending = 0;
			} else if (sl->n_pending < sizeof(sl->pending) - 1) {
				sl->pending[sl->n_pending++] = buf[i];
			}
		}
	}
}
