// SPDX-License-Identifier: MIT
/*
 * replay_main.c - run a fuzz target over its seed corpus without libFuzzer.
 *
 * Usage: fuzz_<target>_replay FILE|DIR...  Every regular file (directories
 * are read one level deep, in name order) is fed to LLVMFuzzerTestOneInput()
 * once, so the corpora replay as ordinary ctest tests under gcc, with or
 * without sanitizers.  A crash or a broken property aborts the test; an
 * empty corpus fails it, so a lost corpus directory is noticed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	/* An exact-size copy: ASan then catches reads past the input. */
	{
		uint8_t *exact = pf_fuzz_dup(buf, len);

		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int r = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		if (!names)
			abort();
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		char path[4096];
		struct stat st;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				r = -1;
			else
				(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i, r = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			r = 1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count) < 0)
				r = 1;
		} else if (replay_file(argv[i]) < 0) {
			r = 1;
		} else {
			count++;
		}
	}
	printf("replayed %zu inputs\n", count);
	if (count == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	return r;
}
