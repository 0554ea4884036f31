// SPDX-License-Identifier: MIT
/*
 * parse_limits.c - /proc/<pid>/limits and multi-field sysctl values.
 *
 * /proc/<pid>/limits is a fixed-width table whose row names contain blanks,
 * so rows are matched by prefix and only the two columns after the name are
 * split.
 */
#include <string.h>

#include "preflight/fs.h"
#include "preflight/parse.h"

static int parse_limit_token(const char *tok, size_t len, uint64_t *ret)
{
	char buf[32];

	if (len == 9 && !memcmp(tok, "unlimited", 9)) {
		*ret = PF_RLIM_UNLIMITED;
		return 0;
	}
	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	return pf_parse_u64(buf, ret);
}

static const char *next_token(const char *p, const char *end, size_t *ret_len)
{
	const char *s;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	s = p;
	while (p < end && *p != ' ' && *p != '\t')
		p++;
	*ret_len = (size_t)(p - s);
	return s;
}

int pf_parse_proc_limits(const char *text, const char *name, struct pf_rlimit *ret)
{
	size_t nlen = strlen(name);
	const char *line = text;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		const char *end = eol ? eol : line + strlen(line);

		if ((size_t)(end - line) > nlen && !memcmp(line, name, nlen) &&
		    (line[nlen] == ' ' || line[nlen] == '\t')) {
			struct pf_rlimit rl;
			const char *tok;
			size_t len;

			tok = next_token(line + nlen, end, &len);
			if (parse_limit_token(tok, len, &rl.soft) < 0)
				return -EINVAL;
			tok = next_token(tok + len, end, &len);
			if (parse_limit_token(tok, len, &rl.hard) < 0)
				return -EINVAL;
			*ret = rl;
			return 0;
		}
		line = eol ? eol + 1 : NULL;
	}
	return -ENOENT;
}

int pf_parse_u64_fields(const char *text, uint64_t *fields, size_t max)
{
	pf_autofree char *copy = pf_xstrdup(text);
	char *save = NULL, *tok;
	size_t n = 0;

	for (tok = strtok_r(copy, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return -E2BIG;
		if (pf_parse_u64(tok, &fields[n]) < 0)
			return -EINVAL;
		n++;
	}
	return n ? (int)n : -EINVAL;
}
