// SPDX-License-Identifier: MIT
/*
 * test_nccl_conf.c - NCCL's configuration read as NCCL reads it (initEnv and
 * setEnvFile in NCCL's src/misc/param.cc): the environment wins over
 * NCCL_CONF_FILE or ~/.nccl.conf, which win over /etc/nccl.conf; the first
 * line of a name in a file wins; '#' lines are comments; nothing is trimmed.
 * And NCCL's interface lists (parseStringList/matchIfList, src/misc/utils.cc).
 */
#include <string.h>

#include "preflight/nccl_conf.h"
#include "testutil.h"

/* the environment part as nccl_config fills it */
static void with_env(struct pf_nccl_conf *c, const char *gid_index)
{
	*c = (struct pf_nccl_conf){ 0 };
	if (gid_index)
		pf_nccl_conf_set(c, "NCCL_IB_GID_INDEX", gid_index, "environment");
}

static void test_precedence(void **state)
{
	char *top = pf_test_mkdtemp();
	struct pf_fs *fs = NULL;
	struct pf_nccl_conf c;
	const struct pf_nccl_var *v;

	pf_test_write(top, "etc/nccl.conf", "NCCL_IB_HCA=mlx5_0\nNCCL_IB_GID_INDEX=3\n"
					    "NCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME=eth\n");
	pf_test_write(top, "home/a/.nccl.conf", "# NCCL_DEBUG=TRACE\nNCCL_DEBUG=INFO\r\n"
						"NCCL_DEBUG=VERSION\nNCCL_IB_GID_INDEX=5\n");
	pf_test_write(top, "opt/n.conf", "NCCL_SOCKET_IFNAME=bond0\n");
	assert_int_equal(pf_fs_open(top, &fs), 0);

	with_env(&c, "7");
	pf_nccl_conf_load_files(fs, NULL, "/home/a", NULL, &c);
	assert_int_equal(c.n_files, 2);
	assert_string_equal(c.files[0].path, "/home/a/.nccl.conf");
	assert_int_equal(c.files[0].status, 0);
	assert_int_equal(c.files[0].n_set, 1);
	v = pf_nccl_conf_get(&c, "NCCL_IB_GID_INDEX");
	assert_string_equal(v->value, "7");
	assert_string_equal(v->origin, "environment");
	v = pf_nccl_conf_get(&c, "NCCL_DEBUG");
	assert_string_equal(v->value, "INFO"); /* first line wins, \r dropped */
	assert_string_equal(v->origin, "/home/a/.nccl.conf:2");
	v = pf_nccl_conf_get(&c, "NCCL_IB_HCA");
	assert_string_equal(v->origin, "/etc/nccl.conf:1");
	pf_nccl_conf_release(&c);

	/* NCCL_CONF_FILE replaces ~/.nccl.conf */
	with_env(&c, NULL);
	pf_nccl_conf_load_files(fs, "/opt/n.conf", "/home/a", NULL, &c);
	assert_string_equal(c.files[0].path, "/opt/n.conf");
	assert_string_equal(c.files[0].why, "NCCL_CONF_FILE");
	assert_string_equal(pf_nccl_conf_get(&c, "NCCL_SOCKET_IFNAME")->value, "bond0");
	assert_string_equal(pf_nccl_conf_get(&c, "NCCL_DEBUG")->value, "WARN");
	assert_string_equal(pf_nccl_conf_get(&c, "NCCL_IB_GID_INDEX")->value, "3");
	pf_nccl_conf_release(&c);
	/* relative: the job's cwd is unknown */
	with_env(&c, NULL);
	pf_nccl_conf_load_files(fs, "n.conf", "/home/a", NULL, &c);
	assert_int_equal(c.files[0].status, -EINVAL);
	pf_nccl_conf_release(&c);
	/* no home: /etc/nccl.conf alone */
	with_env(&c, NULL);
	pf_nccl_conf_load_files(fs, "", NULL, NULL, &c);
	assert_int_equal(c.n_files, 1);
	assert_string_equal(pf_nccl_conf_get(&c, "NCCL_IB_GID_INDEX")->value, "3");
	pf_nccl_conf_release(&c);
	/* absent files */
	with_env(&c, NULL);
	pf_nccl_conf_load_files(fs, NULL, "/home/none", NULL, &c);
	assert_int_equal(c.files[0].status, -ENOENT);
	pf_nccl_conf_release(&c);

	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

static void test_oddities(void **state)
{
	struct pf_nccl_conf c = { 0 };

	assert_int_equal(pf_nccl_conf_apply_text(&c, "NCCL_IB_HCA = mlx5_0\nNCCL_X 1\n=v\n"
						 "NCCL_Y= value with blanks \nplain words\npassword = x\n",
						 "/etc/nccl.conf"), 1);
	assert_int_equal(c.n_odd, 2);
	assert_string_equal(c.odd[0].origin, "/etc/nccl.conf:1");
	/* the name only: a value is never quoted (the file may be no NCCL config) */
	assert_string_equal(c.odd[0].text, "NCCL_IB_HCA");
	assert_string_equal(c.odd[1].text, "NCCL_X");
	assert_null(pf_nccl_conf_get(&c, "NCCL_IB_HCA"));
	assert_string_equal(pf_nccl_conf_get(&c, "NCCL_Y")->value, " value with blanks ");
	pf_nccl_conf_release(&c);
}

static void test_iflist(void **state)
{
	struct pf_nccl_iflist l;

	pf_nccl_iflist_parse("mlx5_1", &l);
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_1", 1));
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_10", 1)); /* a prefix */
	assert_false(pf_nccl_iflist_selects(&l, "mlx5_2", 1));
	pf_nccl_iflist_parse("=mlx5_1", &l);
	assert_true(l.exact);
	assert_false(pf_nccl_iflist_selects(&l, "mlx5_10", 1));
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_1", 1));
	pf_nccl_iflist_parse("^mlx5_8,mlx5_9:1", &l);
	assert_true(l.exclude);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.e[1].port, 1);
	assert_false(pf_nccl_iflist_selects(&l, "mlx5_8", 1));
	assert_false(pf_nccl_iflist_selects(&l, "mlx5_9", 1));
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_9", 2));
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_0", 1));
	pf_nccl_iflist_parse("^=mlx5_1", &l);
	assert_true(l.exclude && l.exact);
	assert_true(pf_nccl_iflist_selects(&l, "mlx5_10", 1));
	pf_nccl_iflist_parse("=^mlx5_1", &l); /* '^' after '=' is part of the name */
	assert_false(l.exclude);
	assert_string_equal(l.e[0].prefix, "^mlx5_1");
	pf_nccl_iflist_parse("", &l);
	assert_true(pf_nccl_iflist_selects(&l, "anything", 1));
	pf_nccl_iflist_parse("^", &l); /* no list matches all, excluded: nothing */
	assert_false(pf_nccl_iflist_selects(&l, "mlx5_0", 1));
	pf_nccl_iflist_parse(",mlx5_2,,:3,mlx5_4:", &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.e[1].port, -1);
	/* netdevs have no port */
	pf_nccl_iflist_parse("ib0:1", &l);
	assert_true(pf_nccl_iflist_selects(&l, "ib0", -1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_oddities),
		cmocka_unit_test(test_iflist),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
