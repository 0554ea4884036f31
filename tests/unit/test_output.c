// SPDX-License-Identifier: MIT
/*
 * test_output.c - --output placeholders (%n short hostname, %j Slurm job id,
 * %%), values that cannot leave the directory, unknown placeholders; the
 * atomic writer replaces a file and leaves no temporary behind.
 */
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>

#include "output.h"
#include "testutil.h"

static void expect(const char *tmpl, const char *host, const char *job, const char *want)
{
	char *got = NULL, *err = NULL;

	assert_int_equal(pf_output_expand(tmpl, host, job, &got, &err), 0);
	if (strcmp(got, want))
		fail_msg("'%s' -> '%s', expected '%s'", tmpl, got, want);
	free(got);
}

static void test_expand(void **state)
{
	(void)state;
	expect("/shared/reports/%n.json", "gpu-047.cluster.example", "4242",
	       "/shared/reports/gpu-047.json");
	expect("/r/%j/%n.json", "gpu-047", "4242", "/r/4242/gpu-047.json");
	expect("/r/%j/%n.json", "gpu-047", NULL, "/r/nojob/gpu-047.json");
	expect("/r/%n-100%%.json", "n1", "", "/r/n1-100%.json");
	expect("/r/plain.json", "n1", "1", "/r/plain.json");
	/* a hostname or job id from the environment never leaves the directory */
	expect("/r/%n.json", "../../etc/x", "1", "/r/unknown.json");
	expect("/r/%n.json", "gpu/047", "1", "/r/gpu_047.json");
	expect("/r/%j.json", "n", "1/../../x", "/r/1_.._.._x.json");
	expect("/r/%n.json", "", NULL, "/r/unknown.json");
}

static void test_unknown(void **state)
{
	char *got = NULL, *err = NULL;

	(void)state;
	assert_int_equal(pf_output_expand("/r/%h.json", "n", "1", &got, &err), -EINVAL);
	assert_null(got);
	assert_non_null(strstr(err, "unknown placeholder '%h'"));
	free(err);
	err = NULL;
	assert_int_equal(pf_output_expand("/r/x%", "n", "1", &got, &err), -EINVAL);
	free(err);
}

static void test_write_atomic(void **state)
{
	char dir[] = "/tmp/pf-test-output.XXXXXX", path[256], buf[64] = "";
	DIR *d;
	struct dirent *e;
	FILE *f;
	char *err = NULL;
	int n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/r.json", dir);
	assert_int_equal(pf_output_write(path, "old\n", 4, &err), 0);
	assert_int_equal(pf_output_write(path, "new\n", 4, &err), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "new\n");
	d = opendir(dir);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' || strncmp(e->d_name, ".r.json.", 8) == 0 ? 1 : 0;
	closedir(d);
	assert_int_equal(n, 1); /* r.json, no .r.json.XXXXXX left */
	/* missing directories are created 0755; below a file is ENOTDIR */
	snprintf(path, sizeof(path), "%s/missing/r.json", dir);
	assert_int_equal(pf_output_write(path, "x", 1, &err), 0);
	snprintf(path, sizeof(path), "%s/r.json/x.json", dir);
	assert_int_equal(pf_output_write(path, "x", 1, &err), -ENOTDIR);
	free(err);
	err = NULL;
	pf_test_rmtree(dir);
}

/* A directory other users may write (not sticky) is refused by name, whoever runs. */
static void test_write_refuses_open_dir(void **state)
{
	char dir[] = "/tmp/pf-test-output.XXXXXX", path[256];
	char *err = NULL;
	struct stat st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chmod(path, 0777), 0);
	snprintf(path, sizeof(path), "%s/open/r.json", dir);
	assert_int_equal(pf_output_write(path, "x", 1, &err), -EPERM);
	assert_non_null(err);
	assert_non_null(strstr(err, "/open' (owner uid"));
	assert_non_null(strstr(err, "mode 0777"));
	free(err);
	err = NULL;
	assert_int_equal(stat(path, &st), -1);
	/* sticky: allowed, as /tmp is */
	snprintf(path, sizeof(path), "%s/open", dir);
	assert_int_equal(chmod(path, 01777), 0);
	snprintf(path, sizeof(path), "%s/open/r.json", dir);
	assert_int_equal(pf_output_write(path, "x", 1, &err), 0);
	assert_null(err);
	pf_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_write_refuses_open_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
