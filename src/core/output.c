// SPDX-License-Identifier: MIT
/*
 * output.c - atomic --output writes and the --output placeholders.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "output.h"

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t k = write(fd, p, len);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* A device, FIFO or socket: written in place (renaming would replace the node). */
static int write_in_place(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	int r;

	if (fd < 0)
		return -errno;
	r = write_all(fd, buf, len);
	if (close(fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	return r;
}

static int write_atomic(const char *path, const void *buf, size_t len)
{
	pf_autofree char *dir_copy = pf_xstrdup(path), *base_copy = pf_xstrdup(path);
	pf_autofree char *tmp = pf_xasprintf("%s/.%s.XXXXXX", dirname(dir_copy),
					      basename(base_copy));
	int fd, r;

	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	(void)fchmod(fd, 0644);
	r = write_all(fd, buf, len);
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

int pf_output_write(const char *path, const void *buf, size_t len)
{
	pf_autofree char *why = NULL;
	struct stat st;

	if (pf_output_check_link(path, &why) < 0)
		return -EPERM;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return write_in_place(path, buf, len);
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) == 0) {
		pf_autofree char *real = realpath(path, NULL);

		if (real)
			return write_atomic(real, buf, len);
	}
	return write_atomic(path, buf, len);
}

/* A placeholder's value must not leave the directory: '/' and a leading '.' become '_'. */
static void add_safe(struct pf_strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '/' || (i == 0 && c == '.') || (unsigned char)c < 0x20)
			c = '_';
		pf_strbuf_addch(out, c);
	}
}

int pf_output_expand(const char *tmpl, const char *host, const char *jobid, char **ret,
		     char **ret_err)
{
	pf_autostrbuf struct pf_strbuf out = PF_STRBUF_INIT;

	for (const char *p = tmpl; *p; p++) {
		if (*p != '%') {
			pf_strbuf_addch(&out, *p);
			continue;
		}
		switch (p[1]) {
		case 'n': {
			const char *h = host && *host && *host != '.' ? host : "unknown";

			add_safe(&out, h, strcspn(h, "."));
			break;
		}
		case 'j': {
			const char *j = jobid && *jobid ? jobid : "nojob";

			add_safe(&out, j, strlen(j));
			break;
		}
		case '%':
			add_safe(&out, "%", 1);
			break;
		default:
			if (ret_err)
				*ret_err = pf_xasprintf("unknown placeholder '%%%.1s' in '%s' "
							"(%%n hostname, %%j job id, %%%% a percent sign)",
							p[1] ? p + 1 : "", tmpl);
			return -EINVAL;
		}
		p++;
	}
	*ret = pf_strbuf_detach(&out);
	return 0;
}
