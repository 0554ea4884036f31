// SPDX-License-Identifier: MIT
/*
 * testutil.c - fixture and temporary-tree helpers for the tests.
 */
#include <errno.h>
#include <fcntl.h>
#include <dlfcn.h>
#include <ftw.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "preflight/gpu_provider.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "preflight/rail_facts.h"
#include "preflight/rails.h"
#include "profile.h"
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

/*
 * Every member of struct pf_providers, by name: the size check fails when a
 * member is added without being listed here.
 */
#define PROVIDER_MEMBERS(X)                                                                  \
	X(memlock) X(gpu) X(ethtool) X(linkmodes) X(pause) X(ethtool_stats) X(pfc)        \
	X(ipv4_addrs) X(ip_rules) X(nv_query) X(page_size) X(devlink_dump) X(wait) X(verbs) X(env) \
	X(euid) X(rdmacm) X(job_user) X(devnodes) X(lldp_neighbors) X(link_nl) \
	X(mlxlink) X(fabric_svc)
#define GPU_MEMBERS(X) X(cuda) X(nvml) X(nccl) X(kmsg) X(verbs_dmabuf) X(cuda_dmabuf) X(cuda_gdr) \
	X(nccl_version) X(nvml_health) X(nvml_nvlink) X(gpu_fabric) \
	X(cuda_fabric_handle)
#define COUNT(m) +1
/* name, then caps (an unsigned int padded to a pointer), then the members */
_Static_assert(offsetof(struct pf_providers, memlock) == 2 * sizeof(void *),
	       "struct pf_providers gained a member before its function pointers");
_Static_assert(sizeof(struct pf_providers) == (2 PROVIDER_MEMBERS(COUNT)) * sizeof(void *),
	       "a member of struct pf_providers is missing from PROVIDER_MEMBERS");
_Static_assert(sizeof(struct pf_gpu_provider) == (0 GPU_MEMBERS(COUNT)) * sizeof(void *),
	       "a member of struct pf_gpu_provider is missing from GPU_MEMBERS");
_Static_assert(sizeof(struct pf_ethtool_ops) == 3 * sizeof(void *),
	       "a member of struct pf_ethtool_ops is not checked");

void pf_test_assert_providers_complete(const struct pf_providers *p)
{
#define NOT_NULL(m)                                                                        \
	if (!p->m)                                                                         \
		fail_msg("providers '%s': member %s is NULL", p->name, #m);
#define GPU_NOT_NULL(m)                                                                    \
	if (!p->gpu->m)                                                                    \
		fail_msg("providers '%s': gpu->%s is NULL", p->name, #m);
	assert_non_null(p->name);
	if (p->caps & ~(unsigned int)(PF_PROV_NODE | PF_PROV_ELAPSES | PF_PROV_PROCESS))
		fail_msg("providers '%s': caps 0x%x holds an unknown capability", p->name, p->caps);
	PROVIDER_MEMBERS(NOT_NULL)
	GPU_MEMBERS(GPU_NOT_NULL)
	if (!p->ethtool->genl || !p->ethtool->ioctl || !p->ethtool->eeprom)
		fail_msg("providers '%s': an ethtool op is NULL", p->name);
#undef NOT_NULL
#undef GPU_NOT_NULL
}

/* Run @name on @root (may be NULL) with @node, or the node loaded from @root when @load. */
static void run_check(const char *name, const char *root, const struct pf_providers *prov,
		      struct pf_node *node, bool load, const char *const *sets,
		      struct pf_result *res)
{
	const struct pf_check *c = pf_registry_find(name);
	struct pf_profile prof;
	struct pf_fs *fs = NULL;
	struct pf_run run = { 0 };
	struct pf_ctx ctx = { 0 };
	struct pf_rails *rails = NULL;
	char *err = NULL;

	if (!c)
		fail_msg("no check named '%s'", name);
	pf_profile_init(&prof);
	for (size_t i = 0; sets && sets[i]; i++)
		pf_profile_add_set(&prof, sets[i]);
	if (pf_config_build(c, &prof, &run.cfg, &err) < 0)
		fail_msg("%s: settings refused: %s", name, err ? err : "?");
	if (root && pf_fs_open(root, &fs) < 0)
		fail_msg("cannot open the root %s", root);
	ctx.node = node;
	if (load && (c->flags & (PF_CHECK_NEEDS_NODE | PF_CHECK_USES_NODE))) {
		/* as the run does: the inventory, read once before the check runs */
		if (pf_node_load(fs, NULL, &ctx.node, &err) < 0) {
			if (c->flags & PF_CHECK_NEEDS_NODE)
				fail_msg("cannot load the node under %s: %s", root,
					 err ? err : "?");
			ctx.node = NULL; /* a check that only uses it runs without */
			free(err);
			err = NULL;
		}
	}
	ctx.fs = fs;
	ctx.prov = prov ? prov : &pf_providers_recorded;
	pf_test_assert_providers_complete(ctx.prov);
	if (ctx.node && fs) {
		/* as the run does: the rail model, with the roles the settings declare */
		const char *declared[PF_ROLE_COUNT];

		for (int i = 0; i < PF_ROLE_COUNT; i++)
			declared[i] = pf_profile_rails(&prof, pf_port_role_name((enum pf_port_role)i));
		if (pf_rails_for_ctx(&ctx, declared, &rails, &err) < 0)
			fail_msg("%s: rail model: %s", name, err ? err : "?");
		ctx.rails = rails;
	}
	run.check = c;
	pf_run_inline(&ctx, &run);
	pf_rails_free(rails);
	*res = run.res;
	pf_config_free(c, run.cfg);
	if (load)
		pf_node_free(ctx.node);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

void pf_test_run_check(const char *name, const char *root, const struct pf_providers *prov,
		       const char *const *sets, struct pf_result *res)
{
	assert_non_null(root);
	run_check(name, root, prov, NULL, true, sets, res);
}

void pf_test_run_check_node(const char *name, const char *root, const struct pf_providers *prov,
			    struct pf_node *node, const char *const *sets, struct pf_result *res)
{
	run_check(name, root, prov, node, false, sets, res);
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

const struct pf_finding *pf_test_must_find(const struct pf_result *res, const char *subject)
{
	const struct pf_finding *f = pf_test_finding(res, subject);

	if (f)
		return f;
	for (size_t i = 0; i < res->n_findings; i++)
		print_message("  %s: %s\n", res->findings[i].subject ? res->findings[i].subject : "-",
			      res->findings[i].message ? res->findings[i].message : "");
	fail_msg("no finding for '%s' (%zu findings above)", subject, res->n_findings);
	return NULL;
}

const struct pf_finding *pf_test_need(const struct pf_result *res, const char *subject,
				      enum pf_status st)
{
	const struct pf_finding *f = pf_test_must_find(res, subject);

	if (f->status != st)
		fail_msg("'%s' is %s (%s), expected %s", subject, pf_status_name(f->status),
			 f->message ? f->message : "", pf_status_name(st));
	return f;
}

const struct pf_finding *pf_test_need_text(const struct pf_result *res, const char *subject,
					   enum pf_status st, const char *text)
{
	const struct pf_finding *f = pf_test_need(res, subject, st);

	if (text)
		pf_test_assert_contains(f->message, text);
	return f;
}

bool pf_test_notes_have(char *const *notes, const char *part)
{
	for (char *const *n = notes; n && *n; n++)
		if (strstr(*n, part))
			return true;
	return false;
}

void pf_test_assert_contains(const char *s, const char *part)
{
	if (!s || !strstr(s, part))
		fail_msg("'%s' does not contain '%s'", s ? s : "(null)", part);
}

int pf_test_tmpdir_setup(void **state)
{
	*state = pf_test_mkdtemp();
	return 0;
}

int pf_test_tmpdir_teardown(void **state)
{
	pf_test_rmtree(*state);
	free(*state);
	*state = NULL;
	return 0;
}

/* --- ../shared and what ctest is told ------------------------------------------ */

#define SHARED_PREFIX "shared_"

static enum { SEL_NONE, SEL_ALL, SEL_SHARED, SEL_LOCAL } selection;
static size_t n_selected, shared_skips;

void pf_test_select(const struct CMUnitTest *tests, size_t n)
{
	const char *only = getenv("PF_TEST_ONLY");

	selection = SEL_ALL;
	if (only && !strcmp(only, "shared")) {
		selection = SEL_SHARED;
		cmocka_set_test_filter(SHARED_PREFIX "*");
	} else if (only && !strcmp(only, "local")) {
		selection = SEL_LOCAL;
		cmocka_set_skip_filter(SHARED_PREFIX "*");
	}
	n_selected = 0;
	for (size_t i = 0; i < n; i++) {
		bool shared = tests[i].name && !strncmp(tests[i].name, SHARED_PREFIX,
							strlen(SHARED_PREFIX));

		n_selected += selection == SEL_ALL || (selection == SEL_SHARED) == shared;
	}
	shared_skips = 0;
}

char *pf_test_shared_or_skip(const char *rel)
{
	const char *env = getenv("PF_SHARED_DIR");
	char *path;

	/* a skip without these would reach ctest as Passed */
	if (selection == SEL_NONE)
		fail_msg("pf_test_shared_or_skip(): main() must return pf_test_run_group()");
	if (selection == SEL_LOCAL)
		fail_msg("pf_test_shared_or_skip(%s): a test that needs ../shared is named "
			 SHARED_PREFIX "*", rel);
	path = pf_xasprintf("%s/%s", env && *env ? env : PF_SHARED_DIR, rel);
	if (access(path, R_OK) == 0)
		return path;
	print_message("skipped: %s absent (real captures live in ../shared beside the "
		      "checkout, or $PF_SHARED_DIR)\n", path);
	free(path);
	shared_skips++;
	skip();
	return NULL;
}

char *pf_test_unpack_shared(const char *rel, const char *dir, const char *top)
{
	char *tar = pf_test_shared_or_skip(rel);
	char *cmd = pf_xasprintf("tar -xjf '%s' -C '%s'", tar, dir);
	int r = system(cmd);

	if (r != 0)
		fail_msg("%s: exit status %d", cmd, r);
	free(cmd);
	free(tar);
	return pf_xasprintf("%s/%s", dir, top);
}

int pf_test_finish(int failed)
{
	if (failed)
		return failed == 77 ? 78 : failed;
	if (!shared_skips)
		return 0;
	printf("%s: %zu of %zu tests skipped: ../shared absent\n", program_invocation_short_name,
	       shared_skips, n_selected);
	return shared_skips >= n_selected ? 77 : 0;
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

const char *pf_test_libm(void)
{
	static char path[4096];
	struct link_map *map = NULL;
	void *h;

	if (path[0])
		return path;
	h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) < 0 || !map || map->l_name[0] != '/') {
		fprintf(stderr, "pf_test_libm: libm.so.6 not found by its path\n");
		abort();
	}
	snprintf(path, sizeof(path), "%s", map->l_name);
	dlclose(h);
	return path;
}
