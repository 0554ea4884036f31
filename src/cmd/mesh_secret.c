// SPDX-License-Identifier: MIT
/*
 * mesh_secret.c - the per-run secret of `preflight mesh` (mesh_secret.h):
 * a file only its owner can read, or hex in the environment (srun passes
 * the job's environment to every task).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mesh_rdv.h"
#include "mesh_secret.h"
#include "preflight/macro.h"

static int secret_file(const char *file, struct pf_mesh_secret *s, char *why, size_t wl)
{
	pf_autoclose int fd = open(file, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	size_t have = 0;

	if (fd < 0) {
		int e = errno;

		snprintf(why, wl, "%s: %s", file, e == ELOOP ? "a symbolic link" : strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0)
		return snprintf(why, wl, "%s: %s", file, strerror(errno)), -EIO;
	if (!S_ISREG(st.st_mode))
		return snprintf(why, wl, "%s: not a regular file", file), -EINVAL;
	if (st.st_uid != geteuid())
		return snprintf(why, wl, "%s: owned by uid %u, not by this user", file,
				(unsigned)st.st_uid), -EPERM;
	if (st.st_mode & 077)
		return snprintf(why, wl, "%s: mode %04o lets others read it (chmod 600)", file,
				(unsigned)(st.st_mode & 07777)), -EPERM;
	if (st.st_size < PF_MESH_SECRET_MIN || st.st_size > PF_MESH_SECRET_FILE_MAX)
		return snprintf(why, wl, "%s: %lld bytes, not %d to %d", file, (long long)st.st_size,
				PF_MESH_SECRET_MIN, PF_MESH_SECRET_FILE_MAX), -EINVAL;
	s->bytes = pf_xcalloc(1, (size_t)st.st_size);
	while (have < (size_t)st.st_size) {
		ssize_t r = read(fd, s->bytes + have, (size_t)st.st_size - have);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(why, wl, "%s: %s", file, r < 0 ? strerror(errno) : "shrank while read");
			pf_mesh_secret_release(s);
			return -EIO;
		}
		have += (size_t)r;
	}
	s->len = have;
	return 0;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int secret_env(const char *env, struct pf_mesh_secret *s, char *why, size_t wl)
{
	size_t n = strlen(env);

	if (n < PF_MESH_SECRET_HEX_MIN || n % 2 || n > 2 * PF_MESH_SECRET_FILE_MAX)
		return snprintf(why, wl, "PREFLIGHT_MESH_SECRET: %zu characters, not an even number "
				"of hex digits from %d to %d", n, PF_MESH_SECRET_HEX_MIN,
				2 * PF_MESH_SECRET_FILE_MAX), -EINVAL;
	s->bytes = pf_xcalloc(1, n / 2);
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hex_digit(env[2 * i]), lo = hex_digit(env[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			pf_mesh_secret_release(s);
			return snprintf(why, wl, "PREFLIGHT_MESH_SECRET: not hex at character %zu",
					2 * i + (hi < 0 ? 1 : 2)), -EINVAL;
		}
		s->bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	s->len = n / 2;
	return 0;
}

int pf_mesh_secret_load(const char *file, const char *env, struct pf_mesh_secret *s, char *why,
			size_t wl)
{
	*s = (struct pf_mesh_secret){ 0 };
	if (file)
		return secret_file(file, s, why, wl);
	if (env && *env)
		return secret_env(env, s, why, wl);
	snprintf(why, wl, "no secret");
	return -ENOENT;
}

void pf_mesh_secret_release(struct pf_mesh_secret *s)
{
	if (s->bytes)
		memset(s->bytes, 0, s->len);
	free(s->bytes);
	*s = (struct pf_mesh_secret){ 0 };
}

int pf_mesh_secret_new(FILE *out)
{
	unsigned char b[32];
	size_t have = 0;

	while (have < sizeof(b)) {
		ssize_t r = getrandom(b + have, sizeof(b) - have, 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		have += (size_t)r;
	}
	for (size_t i = 0; i < sizeof(b); i++)
		fprintf(out, "%02x", b[i]);
	fputc('\n', out);
	memset(b, 0, sizeof(b));
	return ferror(out) ? -EIO : 0;
}
