// SPDX-License-Identifier: MIT
/*
 * test_providers.c - the process facts a check may not read itself: the
 * environment and the effective uid, live and recorded, the uptime reader,
 * and what a provider table without them answers; no table (live,
 * recorded, none, the tests' fakes) has a NULL member.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preflight/fs.h"
#include "preflight/gpu.h"
#include "preflight/net_facts.h"
#include "preflight/parse.h"
#include "fake_gpu.h"
#include "fake_rdmacm.h"
#include "fake_verbs.h"
#include "testutil.h"

struct root {
	char *dir;
	struct pf_fs *fs;
	struct pf_ctx ctx;
};

static void root_open(struct root *r, const char *env, const char *euid, const char *uptime)
{
	r->dir = pf_test_mkdtemp();
	pf_test_write(r->dir, "preflight/placeholder", "");
	if (env)
		pf_test_write(r->dir, "preflight/env", env);
	if (euid)
		pf_test_write(r->dir, "preflight/euid", euid);
	if (uptime)
		pf_test_write(r->dir, "proc/uptime", uptime);
	assert_int_equal(pf_fs_open(r->dir, &r->fs), 0);
	r->ctx = (struct pf_ctx){ .fs = r->fs, .prov = &pf_providers_recorded };
}

static void root_close(struct root *r)
{
	pf_fs_free(r->fs);
	pf_test_rmtree(r->dir);
	free(r->dir);
}

static void test_recorded_env(void **state)
{
	struct root r;
	char *v = NULL;

	(void)state;
	root_open(&r, "NCCL_IB_HCA_X=no\nNCCL_IB_HCA==mlx5_0:1,mlx5_1\nEMPTY=\n"
		      "CUDA_VISIBLE_DEVICES=0,1", NULL, NULL);
	/* the whole name, not a prefix; the value keeps its own '=' */
	assert_int_equal(pf_env(&r.ctx, "NCCL_IB_HCA", &v), 0);
	assert_string_equal(v, "=mlx5_0:1,mlx5_1");
	free(v);
	assert_int_equal(pf_env(&r.ctx, "EMPTY", &v), 0);
	assert_string_equal(v, "");
	free(v);
	/* the last line without a newline */
	assert_true(pf_env_isset(&r.ctx, "CUDA_VISIBLE_DEVICES"));
	assert_int_equal(pf_env(&r.ctx, "NCCL_IB", &v), -ENOENT);
	assert_int_equal(pf_env(&r.ctx, "NCCL_IB_HCA_", &v), -ENOENT);
	root_close(&r);

	/* a snapshot without the file: unset, as older snapshots were taken */
	root_open(&r, NULL, NULL, NULL);
	assert_int_equal(pf_env(&r.ctx, "NCCL_IB_HCA", &v), -ENOENT);
	assert_false(pf_env_isset(&r.ctx, "CUDA_VISIBLE_DEVICES"));
	root_close(&r);
}

static void test_live_env(void **state)
{
	struct pf_ctx ctx = { .prov = &pf_providers_live };
	char *v = NULL;

	(void)state;
	assert_int_equal(setenv("PF_TEST_PROVIDERS", "a=b", 1), 0);
	assert_int_equal(pf_env(&ctx, "PF_TEST_PROVIDERS", &v), 0);
	assert_string_equal(v, "a=b");
	free(v);
	unsetenv("PF_TEST_PROVIDERS");
	assert_int_equal(pf_env(&ctx, "PF_TEST_PROVIDERS", &v), -ENOENT);
}

static void test_euid(void **state)
{
	struct pf_ctx live = { .prov = &pf_providers_live };
	struct root r;
	unsigned int uid = 7;
	char buf[32];

	(void)state;
	assert_int_equal(pf_euid(&live, &uid), 0);
	assert_int_equal(uid, (unsigned int)geteuid());

	root_open(&r, NULL, "1001\n", NULL);
	assert_int_equal(pf_euid(&r.ctx, &uid), 0);
	assert_int_equal(uid, 1001);
	assert_string_equal(pf_euid_note(&r.ctx, buf), " (uid 1001)");
	root_close(&r);

	root_open(&r, NULL, "-1\n", NULL);
	assert_true(pf_euid(&r.ctx, &uid) < 0);
	assert_string_equal(pf_euid_note(&r.ctx, buf), "");
	root_close(&r);

	root_open(&r, NULL, "4294967296\n", NULL);
	assert_int_equal(pf_euid(&r.ctx, &uid), -ERANGE);
	root_close(&r);
}

/* A test's provider table without the entries: -ENOSYS, never a crash. */
static void test_missing_entries(void **state)
{
	struct pf_ctx ctx = { .prov = &pf_providers_none };
	unsigned int uid;
	char *v = NULL, buf[32];

	(void)state;
	assert_int_equal(pf_env(&ctx, "HOME", &v), -ENOSYS);
	assert_false(pf_env_isset(&ctx, "HOME"));
	assert_int_equal(pf_euid(&ctx, &uid), -ENOSYS);
	assert_string_equal(pf_euid_note(&ctx, buf), "");
}

static void test_no_null_member(void **state)
{
	(void)state;
	pf_test_assert_providers_complete(&pf_providers_live);
	pf_test_assert_providers_complete(&pf_providers_recorded);
	pf_test_assert_providers_complete(&pf_providers_none);
	pf_test_assert_providers_complete(pf_fake_providers());
	pf_test_assert_providers_complete(pf_fake_verbs_providers());
	pf_test_assert_providers_complete(pf_fake_fabric_providers());
}

/* The empty table answers -ENOSYS everywhere, traffic and GPU tables included. */
static void test_none_answers_enosys(void **state)
{
	const struct pf_providers *p = &pf_providers_none;
	struct pf_ctx ctx = { .prov = p };
	const struct pf_verbs_api *va = NULL;
	const struct pf_rdmacm_api *ca = NULL;
	const struct pf_cuda_table *cu = NULL;
	char *err = NULL, *text = NULL;
	struct pf_nv_ask ask = { .bdf = "0000:17:00.0", .n_names = 1, .names = { "X" } };
	uint64_t v;
	double ms;

	(void)state;
	assert_int_equal(p->page_size(&ctx, &v), -ENOSYS);
	assert_int_equal(p->wait(&ctx, 1, &ms), -ENOSYS);
	assert_int_equal(p->verbs(&ctx, &va, &err), -ENOSYS);
	assert_null(err);
	assert_int_equal(p->rdmacm(&ctx, &ca, &err), -ENOSYS);
	assert_null(err);
	assert_int_equal(p->nv_query(&ctx, &ask, 1), -ENOSYS);
	assert_int_equal(p->ethtool->ioctl("eth0", NULL), -ENOSYS);
	assert_int_equal(p->gpu->cuda(&ctx, &cu, &err), -ENOSYS);
	assert_string_equal(err, "no GPU provider");
	free(err);
	err = NULL;
	assert_int_equal(p->gpu->kmsg(&ctx, &text, &err), -ENOSYS);
	free(err);
}

/* A recorded root sends no traffic: -ENOMEDIUM, the checks' "run it on the node" skip. */
static void test_recorded_no_traffic(void **state)
{
	const struct pf_providers *p = &pf_providers_recorded;
	struct pf_ctx ctx = { .prov = p };
	const struct pf_verbs_api *va = NULL;
	const struct pf_rdmacm_api *ca = NULL;
	char *err = NULL;

	(void)state;
	assert_int_equal(p->verbs(&ctx, &va, &err), -ENOMEDIUM);
	free(err);
	err = NULL;
	assert_int_equal(p->rdmacm(&ctx, &ca, &err), -ENOMEDIUM);
	free(err);
	assert_int_equal(p->ethtool->genl(1, 1, "eth0", 0, NULL, NULL), -ENOSYS);
}

static void test_uptime(void **state)
{
	static const struct {
		const char *text;
		double want;
	} cases[] = {
		{ "350735.47 234388.90\n", 350735.47 },
		{ "12", 12 },
		{ "", 0 },
		{ "abc 1", 0 },
		{ "-5 1", 0 },
		{ "nan 1", 0 },
		{ "inf 1", 0 },
	};
	struct root r;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		root_open(&r, NULL, NULL, cases[i].text);
		assert_true(pf_read_uptime(r.fs) == cases[i].want);
		root_close(&r);
	}
	root_open(&r, NULL, NULL, NULL);
	assert_true(pf_read_uptime(r.fs) == 0);
	root_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_env),
		cmocka_unit_test(test_live_env),
		cmocka_unit_test(test_euid),
		cmocka_unit_test(test_missing_entries),
		cmocka_unit_test(test_no_null_member),
		cmocka_unit_test(test_none_answers_enosys),
		cmocka_unit_test(test_recorded_no_traffic),
		cmocka_unit_test(test_uptime),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
