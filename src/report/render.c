// SPDX-License-Identifier: MIT
/*
 * render.c - the report in the format asked for: names of the formats, the
 * JSON renderer, and the dispatch to render_text.c, render_junit.c,
 * render_prom.c and render_line.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int pf_format_from_name(const char *name, enum pf_format *ret)
{
	static const char *const names[PF_FORMAT_COUNT] = {
		[PF_FORMAT_JSON] = "json", [PF_FORMAT_TEXT] = "text",
		[PF_FORMAT_JUNIT] = "junit", [PF_FORMAT_PROM] = "prom",
		[PF_FORMAT_LINE] = "line",
	};

	for (int i = 0; i < PF_FORMAT_COUNT; i++)
		if (names[i] && !strcmp(name, names[i])) {
			*ret = (enum pf_format)i;
			return 0;
		}
	return -EINVAL;
}

int pf_render_json(const struct pf_report *r, FILE *out)
{
	pf_autojson cJSON *j = pf_report_to_json(r);
	char *text;
	int rc = 0;

	/* RFC 8259 wants UTF-8 (strict readers reject the report otherwise); cJSON escapes controls */
	pf_json_clean(j, false);
	text = r->json_tabs && !r->compact ? cJSON_Print(j) : pf_json_print(j, r->compact);
	if (!text)
		return -ENOMEM;
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		rc = -EIO;
	free(text);
	return rc;
}

int pf_render(const struct pf_report *r, enum pf_format fmt, FILE *out, bool color)
{
	switch (fmt) {
	case PF_FORMAT_JSON: return pf_render_json(r, out);
	case PF_FORMAT_TEXT: return pf_render_text(r, out, color);
	case PF_FORMAT_JUNIT: return pf_render_junit(r, out);
	case PF_FORMAT_PROM: return pf_render_prom(r, out);
	case PF_FORMAT_LINE: return pf_render_line(r, out);
	case PF_FORMAT_COUNT: break;
	}
	return -EINVAL;
}
