// SPDX-License-Identifier: MIT
/*
 * testutil.c - fixture and temporary-tree helpers for the tests.
 */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "preflight/node.h"
#include "registry.h"
#include "testutil.h"

const char *pf_test_fixture(const char *name)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/%s", PF_FIXTURES, name);
	return buf;
}

/*
 * Where temporary trees go: $TMPDIR, else /dev/shm when it is a roomy tmpfs
 * (generated roots and unpacked captures are thousands of small files,
 * several times faster to write there than on a disk-backed /tmp), else /tmp.
 */
static const char *tmp_base(void)
{
	const char *env = getenv("TMPDIR");
	struct statvfs sv;

	if (env && *env)
		return env;
	if (statvfs("/dev/shm", &sv) == 0 && access("/dev/shm", W_OK) == 0 &&
	    (uint64_t)sv.f_bavail * sv.f_frsize >= 512ULL << 20)
		return "/dev/shm";
	return "/tmp";
}

char *pf_test_mkdtemp(void)
{
	char *dir = pf_xasprintf("%s/pftest.XXXXXX", tmp_base());

	assert_non_null(mkdtemp(dir));
	return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void pf_test_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkparents(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(buf, 0755);
		*p = '/';
	}
}

void pf_test_write(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkparents(path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

void pf_test_symlink(const char *dir, const char *rel, const char *target)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	mkparents(path);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
}

void pf_test_run_check(const char *name, const char *root, const struct pf_providers *prov,
		       const char *const *sets, struct pf_result *res)
{
	const struct pf_check *c = pf_registry_find(name);
	struct pf_profile prof;
	struct pf_fs *fs = NULL;
	struct pf_run run = { 0 };
	struct pf_ctx ctx = { 0 };
	char *err = NULL;

	assert_non_null(c);
	pf_profile_init(&prof);
	for (size_t i = 0; sets && sets[i]; i++)
		pf_profile_add_set(&prof, sets[i]);
	assert_int_equal(pf_config_build(c, &prof, &run.cfg, &err), 0);
	assert_int_equal(pf_fs_open(root, &fs), 0);
	if (c->flags & PF_CHECK_NEEDS_NODE) {
		/* as main.c does: the inventory, read once before the check runs */
		if (pf_node_load(fs, NULL, &ctx.node, &err) < 0)
			fail_msg("cannot load the node under %s: %s", root, err ? err : "?");
	}
	ctx.fs = fs;
	ctx.prov = prov ? prov : &pf_providers_recorded;
	run.check = c;
	pf_run_inline(&ctx, &run);
	*res = run.res;
	pf_config_free(c, run.cfg);
	pf_node_free(ctx.node);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

char *pf_test_gen_root(const char *args)
{
	char *dir = pf_test_mkdtemp();
	char *cmd = pf_xasprintf("python3 '%s/tests/gen_root.py' '%s' %s", PF_SOURCE_DIR, dir, args);
	int r = system(cmd);

	free(cmd);
	if (r != 0)
		fail_msg("gen_root.py %s: exit status %d", args, r);
	return dir;
}

const struct pf_finding *pf_test_finding(const struct pf_result *res, const char *subject)
{
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].subject && !strcmp(res->findings[i].subject, subject))
			return &res->findings[i];
	return NULL;
}

void pf_test_config_rejected(const char *check, const char *const *sets, const char *needle)
{
	const struct pf_check *c = pf_registry_find(check);
	struct pf_profile prof;
	void *cfg = NULL;
	char *err = NULL;

	assert_non_null(c);
	pf_profile_init(&prof);
	for (size_t i = 0; sets[i]; i++)
		pf_profile_add_set(&prof, sets[i]);
	assert_int_equal(pf_config_build(c, &prof, &cfg, &err), -EINVAL);
	assert_null(cfg);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("'%s' does not name '%s'", err, needle);
	free(err);
	pf_profile_release(&prof);
}
