// SPDX-License-Identifier: MIT
/*
 * fuzz_fs_resolve.c - root-relative path resolution must never leave the root.
 *
 * A temporary tree holds <tmp>/outside/secret (a marker) and <tmp>/root with
 * a few real files and directories.  The input's lines are symlink targets
 * for <root>/s0 .. <root>/s3 and <root>/d/s4 (written fresh for each input);
 * its last line is a path looked up under the root, with openat2
 * (RESOLVE_IN_ROOT) and with the user-space resolver (PF_FS_NO_OPENAT2).
 * Properties: no read returns the marker, pf_fs_realpath() gives an absolute
 * path without "." or ".." components that names a file inside the root, and
 * every call returns 0 or -errno.
 */
#include <errno.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "preflight/fs.h"

#define MARKER "PF-FUZZ-ESCAPED-THE-ROOT"
#define N_LINKS 5

static char tmp[256];
static char root[300];

static void mkfile(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static void rmtree(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_fs_resolve: could not remove %s\n", tmp);
}

static void setup(void)
{
	char p[400];
	const char *base = getenv("TMPDIR");

	snprintf(tmp, sizeof(tmp), "%s/pf-fuzz-fs-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmp))
		abort();
	atexit(rmtree);
	snprintf(p, sizeof(p), "%s/outside", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/outside/secret", tmp);
	mkfile(p, MARKER "\n");
	snprintf(p, sizeof(p), "%s/outside/sys", tmp);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/outside/sys/secret", tmp);
	mkfile(p, MARKER "\n");
	snprintf(root, sizeof(root), "%s/root", tmp);
	mkdir(root, 0755);
	snprintf(p, sizeof(p), "%s/d", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/d/e", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/d/f", root);
	mkfile(p, "inside-f\n");
	snprintf(p, sizeof(p), "%s/g", root);
	mkfile(p, "inside-g\n");
}

static const char *link_path(int i, char *buf, size_t len)
{
	if (i < 4)
		snprintf(buf, len, "%s/s%d", root, i);
	else
		snprintf(buf, len, "%s/d/s%d", root, i);
	return buf;
}

static void probe(const char *path)
{
	struct pf_fs *fs = NULL;
	char *buf = NULL, *real = NULL, *target = NULL;
	char **names = NULL;
	size_t len = 0;
	int r;

	PF_FUZZ_ASSERT(pf_fs_open(root, &fs) == 0);
	r = pf_fs_read_full(fs, path, 4096, &buf, &len);
	PF_FUZZ_ASSERT(r <= 0);
	if (r == 0) {
		PF_FUZZ_ASSERT(!memmem(buf, len, MARKER, strlen(MARKER)));
		free(buf);
	}
	r = pf_fs_realpath(fs, path, &real);
	PF_FUZZ_ASSERT(r <= 0);
	if (r == 0) {
		char host[700];
		struct stat st;

		PF_FUZZ_ASSERT(real[0] == '/');
		PF_FUZZ_ASSERT(!strstr(real, "/../") && !strstr(real, "/./"));
		/* the canonical path names something that exists inside the root */
		snprintf(host, sizeof(host), "%s%s", root, real);
		PF_FUZZ_ASSERT(lstat(host, &st) == 0 && !S_ISLNK(st.st_mode));
		free(real);
	}
	r = pf_fs_readlink(fs, path, &target);
	PF_FUZZ_ASSERT(r <= 0);
	if (r == 0)
		free(target);
	r = pf_fs_list(fs, path, &names);
	PF_FUZZ_ASSERT(r < 0 || names);
	if (r >= 0) {
		for (int i = 0; names[i]; i++)
			PF_FUZZ_ASSERT(strcmp(names[i], "secret") != 0);
		pf_strv_free(names);
	}
	r = pf_fs_exists(fs, path);
	PF_FUZZ_ASSERT(r == 0 || r == 1 || r < 0);
	pf_fs_free(fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	char *line = text, *nl, lp[400];
	int i;

	if (!tmp[0])
		setup();
	for (i = 0; i < N_LINKS; i++)
		unlink(link_path(i, lp, sizeof(lp)));
	/* every line but the last is a symlink target */
	for (i = 0; (nl = strchr(line, '\n')); i++) {
		*nl = '\0';
		if (i < N_LINKS && *line)
			(void)symlink(line, link_path(i, lp, sizeof(lp)));
		line = nl + 1;
	}
	unsetenv("PF_FS_NO_OPENAT2");
	probe(line);
	setenv("PF_FS_NO_OPENAT2", "1", 1);
	probe(line);
	unsetenv("PF_FS_NO_OPENAT2");
	free(text);
	return 0;
}
