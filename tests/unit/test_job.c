// SPDX-License-Identifier: MIT
/*
 * test_job.c - the job user and device listing formats
 * (include/preflight/job.h): parse, format and parse again; `ls -ln` as GNU
 * ls and busybox print it; who may open a device node; the live backends on
 * this machine.
 */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/job.h"
#include "testutil.h"

static void test_job_user(void **state)
{
	struct pf_job_user u, back;
	char *text;

	assert_int_equal(pf_parse_job_user("uid=1000\nuser=alice\ngids=1000,27,995\nhome=/home/a\n"
					   "future=1\n", &u), 0);
	assert_int_equal(u.uid, 1000);
	assert_int_equal(u.n_gids, 3);
	assert_int_equal(u.gids[2], 995);
	assert_string_equal(u.source, "recorded");
	text = pf_format_job_user(&u);
	assert_int_equal(pf_parse_job_user(text, &back), 0);
	assert_memory_equal(&u, &back, sizeof(u));
	free(text);
	assert_int_equal(pf_parse_job_user("user=alice\n", &u), -EINVAL);
	assert_int_equal(pf_parse_job_user("uid=x\n", &u), -EINVAL);
	assert_int_equal(pf_parse_job_user("uid=1\ngids=1,,x\n", &u), -EINVAL);
}

static void test_can_rw(void **state)
{
	struct pf_job_user u = { .uid = 1000, .gids = { 1000, 995 }, .n_gids = 2 };
	struct pf_job_user root = { .uid = 0 };

	assert_true(pf_job_user_can_rw(&u, 0, 0, 0666));
	assert_false(pf_job_user_can_rw(&u, 0, 0, 0660));
	assert_true(pf_job_user_can_rw(&u, 0, 995, 0660));
	assert_false(pf_job_user_can_rw(&u, 0, 995, 0640));
	/* the owner's bits decide for the owner, even when others may */
	assert_false(pf_job_user_can_rw(&u, 1000, 0, 0066));
	assert_true(pf_job_user_can_rw(&u, 1000, 0, 0600));
	assert_true(pf_job_user_can_rw(&root, 0, 0, 0000));
}

static void test_ls_ln(void **state)
{
	struct pf_devnodes d, back;
	const struct pf_devnode *n;
	char *text;

	/* GNU ls (two date styles), busybox, a symlink, an ACL */
	assert_int_equal(pf_parse_ls_ln("total 0\n"
					"crw-rw-rw-  1 0 0  10, 58 Nov 25 09:00 rdma_cm\n"
					"crw-rw----+ 1 0 995 231, 192 2026-11-25 09:00 uverbs0\n"
					"crw-------    1 0        0         231, 193 Nov 25  2025 uverbs1\n"
					"crw-rw-rw-. 1 0 0 231, 64 Nov 25 09:00 umad0\n"
					"drwxr-xr-x 2 0 0 60 Nov 25 09:00 by-ibdev\n"
					"lrwxrwxrwx 1 0 0 7 Nov 25 09:00 link -> uverbs0\n", &d), 0);
	assert_int_equal(d.n, 6);
	n = pf_devnodes_find(&d, "uverbs0");
	assert_non_null(n);
	assert_int_equal(n->mode, 0660);
	assert_int_equal(n->gid, 995);
	assert_int_equal(n->major, 231);
	assert_int_equal(n->minor, 192);
	assert_true(n->acl);
	n = pf_devnodes_find(&d, "uverbs1");
	assert_int_equal(n->mode, 0600);
	assert_false(n->acl);
	assert_int_equal(pf_devnodes_find(&d, "by-ibdev")->type, 'd');
	assert_int_equal(pf_devnodes_find(&d, "link")->type, 'l');
	assert_null(pf_devnodes_find(&d, "uverbs9"));
	text = pf_format_ls_ln(&d);
	assert_int_equal(pf_parse_ls_ln(text, &back), 0);
	assert_int_equal(back.n, d.n);
	for (size_t i = 0; i < d.n; i++) {
		assert_string_equal(back.v[i].name, d.v[i].name);
		assert_int_equal(back.v[i].mode, d.v[i].mode);
		assert_int_equal(back.v[i].gid, d.v[i].gid);
		assert_int_equal(back.v[i].minor, d.v[i].minor);
		assert_int_equal(back.v[i].acl, d.v[i].acl);
	}
	free(text);
	pf_devnodes_release(&back);
	pf_devnodes_release(&d);
	assert_int_equal(pf_parse_ls_ln("crw-rw-rw 1 0 0 10, 58 Nov 25 09:00 x\n", &d), -EINVAL);
	assert_int_equal(pf_parse_ls_ln("crw-rw-rw- 1 root root 10, 58 Nov 25 09:00 x\n", &d),
			 -EINVAL);
	assert_int_equal(pf_parse_ls_ln("crw-rw-rw- 1 0 0 10 58 Nov 25 09:00 x\n", &d), -EINVAL);
	assert_int_equal(pf_parse_ls_ln("crwxrwzrw- 1 0 0 10, 58 Nov 25 09:00 x\n", &d), -EINVAL);
}

static int chmod_under(const char *top)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/dev/infiniband/uverbs0", top);
	return chmod(path, 0640);
}

/* The live backends on this machine: whatever it is, they answer. */
static void test_live(void **state)
{
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { .prov = &pf_providers_live };
	struct pf_job_user u;
	struct pf_devnodes d = { 0 };
	char *top = pf_test_mkdtemp();
	int r;

	assert_int_equal(pf_fs_open("/", &fs), 0);
	ctx.fs = fs;
	unsetenv("SLURM_JOB_UID");
	assert_int_equal(pf_live_job_user(&ctx, &u), 0);
	assert_int_equal(u.uid, getuid());
	assert_string_equal(u.source, "real uid");
	assert_true(u.n_gids >= 1);
	assert_int_equal(u.gids[0], getgid());
	setenv("SLURM_JOB_UID", "4242", 1);
	setenv("SLURM_JOB_GID", "4343", 1);
	assert_int_equal(pf_live_job_user(&ctx, &u), 0);
	assert_int_equal(u.uid, 4242);
	assert_string_equal(u.source, "SLURM_JOB_UID");
	unsetenv("SLURM_JOB_UID");
	unsetenv("SLURM_JOB_GID");
	pf_fs_free(fs);

	/* fstatat under any root */
	pf_test_write(top, "dev/infiniband/uverbs0", "");
	assert_int_equal(chmod_under(top), 0);
	assert_int_equal(pf_fs_open(top, &fs), 0);
	ctx.fs = fs;
	r = pf_live_devnodes(&ctx, "/dev/infiniband", &d);
	assert_int_equal(r, 0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.v[0].name, "uverbs0");
	assert_int_equal(d.v[0].type, '-');
	assert_int_equal(d.v[0].mode, 0640);
	pf_devnodes_release(&d);
	assert_int_equal(pf_live_devnodes(&ctx, "/dev/none", &d), -ENOENT);
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_user),
		cmocka_unit_test(test_can_rw),
		cmocka_unit_test(test_ls_ln),
		cmocka_unit_test(test_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
