// SPDX-License-Identifier: MIT
/*
 * write.c - the one report writer: the report rendered in the format asked
 * for (render.c) to a stream, or to an --output path by the walk every
 * command writes through (src/core/output.h).  The default run and
 * `preflight mesh` both write their reports here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "output.h"
#include "preflight/macro.h"
#include "report.h"

/*
 * Render into @f; the stream's own errno (ENOSPC, EIO, ...) rather than the
 * renderer's generic error when a write fails.
 */
static int render_to(const struct pf_report *r, enum pf_format fmt, FILE *f, bool color)
{
	int rr;

	errno = 0;
	rr = pf_render(r, fmt, f, color);
	if (rr < 0 && errno)
		rr = -errno;
	if (fflush(f) == EOF || ferror(f))
		rr = rr ? rr : (errno ? -errno : -EIO);
	return rr;
}

/* Rendered in memory, then written atomically by the output walk. */
static int write_file(const struct pf_report *r, enum pf_format fmt, const char *path,
		      char **ret_err)
{
	pf_autofree char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rr;

	f = open_memstream(&buf, &len);
	if (!f)
		return -errno;
	rr = render_to(r, fmt, f, false);
	if (fclose(f) == EOF && rr == 0)
		rr = -errno;
	if (rr == 0)
		rr = pf_output_write(path, buf, len, ret_err);
	return rr;
}

int pf_report_write(const struct pf_report *r, enum pf_format fmt, const char *path, FILE *out,
		    bool color, char **ret_err)
{
	if (ret_err)
		*ret_err = NULL;
	if (path) {
		pf_autofree char *why = NULL;
		int rr = write_file(r, fmt, path, &why);

		if (ret_err)
			*ret_err = PF_TAKE_PTR(why);
		return rr;
	}
	return render_to(r, fmt, out, color);
}
