// SPDX-License-Identifier: MIT
/*
 * parse_mlxlink.c - the bit error rates of `mlxlink -d <dev> -c` (NVIDIA
 * MFT), pf_parse_mlxlink_ber() in parse.h.  Its text is "Name : value"
 * lines under section headings; the values read here are mlxlink's own
 * scientific notation ("15E-255" is how it prints no error at all).  Pure
 * functions, no I/O.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/parse.h"

/* The value of the line "@name<blanks>: value" in @text, or NULL; its length in *ret_len. */
static const char *field(const char *text, const char *name, size_t *ret_len)
{
	size_t nlen = strlen(name);

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n'), *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, name, nlen)) {
			p += nlen;
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p == ':') {
				p++;
				while (*p == ' ' || *p == '\t')
					p++;
				*ret_len = nl ? (size_t)(nl - p) : strlen(p);
				while (*ret_len && isspace((unsigned char)p[*ret_len - 1]))
					(*ret_len)--;
				return p;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* A BER as mlxlink prints it: a finite number in [0, 1]; false for N/A or garbage. */
static bool ber_value(const char *text, const char *name, double *ret)
{
	char buf[48], *end;
	size_t len;
	const char *v = field(text, name, &len);
	double d;

	if (!v || len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, v, len);
	buf[len] = '\0';
	errno = 0;
	d = strtod(buf, &end);
	/* "15E-255" underflows to a denormal or 0: that is mlxlink's zero */
	if (end == buf || *end || !isfinite(d) || d < 0 || d > 1)
		return false;
	*ret = d;
	return true;
}

int pf_parse_mlxlink_ber(const char *text, struct pf_mlxlink_ber *ret)
{
	char buf[32], *end;
	const char *v;
	size_t len;

	memset(ret, 0, sizeof(*ret));
	ret->has_eff = ber_value(text, "Effective Physical BER", &ret->eff_ber);
	ret->has_raw = ber_value(text, "Raw Physical BER", &ret->raw_ber);
	v = field(text, "Effective Physical Errors", &len);
	if (v && len && len < sizeof(buf) && isdigit((unsigned char)*v)) {
		memcpy(buf, v, len);
		buf[len] = '\0';
		errno = 0;
		ret->eff_errors = strtoull(buf, &end, 10);
		ret->has_eff_errors = !*end && errno == 0;
	}
	return ret->has_eff || ret->has_raw ? 0 : -ENODATA;
}
