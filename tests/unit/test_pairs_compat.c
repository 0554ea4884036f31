// SPDX-License-Identifier: MIT
/*
 * test_pairs_compat.c - can rail i of two nodes be compared
 * (src/pairs/compat.c): the same link layer and compute on both is; an
 * HGX's mlx5_2 beside a DGX's mlx5_4 (other names, other rates) is; an
 * InfiniBand rail beside an Ethernet one never is, with why; a storage
 * port beside a compute rail is not, unless both were named with --nics;
 * differing subnets are routed (run it, not comparable only when it never
 * connected); what is unknown never makes a pair incomparable; a hostile
 * long name is cut in the why.
 */
#include <string.h>

#include "preflight/pairs.h"
#include "testutil.h"

static const struct pf_rail_ident ib = {
	.device = "mlx5_1", .link_layer = "InfiniBand", .role = "compute",
	.subnet = "10.1.0.0/16", .ib_subnet = "fe80:0000:0000:0000",
};

static void test_same_rail_other_names(void **state)
{
	struct pf_rail_ident dgx = ib;
	char why[256];

	(void)state;
	dgx.device = "mlx5_4";
	assert_int_equal(pf_rail_compat(&ib, 0, &dgx, 3, 2, why, sizeof(why)), PF_RAIL_SAME);
	assert_string_equal(why, "");
	assert_false(pf_rail_not_comparable(PF_RAIL_SAME, "connect", true));
}

static void test_link_layers_apart(void **state)
{
	struct pf_rail_ident eth = ib;
	char why[256];

	(void)state;
	eth.device = "mlx5_9";
	eth.link_layer = "Ethernet";
	assert_int_equal(pf_rail_compat(&ib, 0, &eth, 3, 1, why, sizeof(why)), PF_RAIL_APART);
	assert_string_equal(why, "rail 1: InfiniBand at rank 0, Ethernet at rank 3 "
				 "(mlx5_1 vs mlx5_9)");
	assert_true(pf_rail_not_comparable(PF_RAIL_APART, NULL, false));
	/* unknown is not a difference */
	eth.link_layer = "unknown";
	assert_int_equal(pf_rail_compat(&ib, 0, &eth, 3, 1, NULL, 0), PF_RAIL_SAME);
	eth.link_layer = NULL;
	assert_int_equal(pf_rail_compat(&ib, 0, &eth, 3, 1, NULL, 0), PF_RAIL_SAME);
}

static void test_roles(void **state)
{
	struct pf_rail_ident st = ib, a = ib;
	char why[256];

	(void)state;
	st.role = "storage";
	st.device = "mlx5_2";
	assert_int_equal(pf_rail_compat(&ib, 0, &st, 1, 0, why, sizeof(why)), PF_RAIL_APART);
	assert_non_null(strstr(why, "role compute at rank 0, storage at rank 1"));
	/* both named with --nics: the operator chose them */
	st.by_nics = a.by_nics = true;
	assert_int_equal(pf_rail_compat(&a, 0, &st, 1, 0, NULL, 0), PF_RAIL_SAME);
	/* one side only: the other side's default is compute rails */
	a.by_nics = false;
	assert_int_equal(pf_rail_compat(&a, 0, &st, 1, 0, NULL, 0), PF_RAIL_APART);
	/* no role known (an older peer): not a difference */
	st.role = NULL;
	assert_int_equal(pf_rail_compat(&a, 0, &st, 1, 0, NULL, 0), PF_RAIL_SAME);
}

static void test_subnets_routed(void **state)
{
	struct pf_rail_ident other = ib;
	char why[256];

	(void)state;
	other.subnet = "10.2.0.0/16";
	assert_int_equal(pf_rail_compat(&ib, 0, &other, 2, 0, why, sizeof(why)), PF_RAIL_ROUTED);
	assert_non_null(strstr(why, "subnet 10.1.0.0/16 at rank 0, 10.2.0.0/16 at rank 2"));
	assert_false(pf_rail_not_comparable(PF_RAIL_ROUTED, NULL, true));
	assert_false(pf_rail_not_comparable(PF_RAIL_ROUTED, "transfer", true));
	assert_false(pf_rail_not_comparable(PF_RAIL_ROUTED, "memory", true));
	assert_true(pf_rail_not_comparable(PF_RAIL_ROUTED, "connect", true));
	assert_true(pf_rail_not_comparable(PF_RAIL_ROUTED, "resolve_addr", true));
	assert_true(pf_rail_not_comparable(PF_RAIL_ROUTED, "resolve_route", true));
	/* a rail that connected with nobody is dead, routed or not: evidence */
	assert_false(pf_rail_not_comparable(PF_RAIL_ROUTED, "connect", false));
	assert_false(pf_rail_not_comparable(PF_RAIL_ROUTED, "resolve_addr", false));
	/* IB subnet prefixes: on InfiniBand only */
	other = ib;
	other.ib_subnet = "fe80:0000:0000:0001";
	assert_int_equal(pf_rail_compat(&ib, 0, &other, 2, 0, why, sizeof(why)), PF_RAIL_ROUTED);
	assert_non_null(strstr(why, "IB subnet"));
	other.subnet = NULL; /* one end without an address: its subnet is not a difference */
	other.ib_subnet = ib.ib_subnet;
	assert_int_equal(pf_rail_compat(&ib, 0, &other, 2, 0, NULL, 0), PF_RAIL_SAME);
}

static void test_hostile_names_cut(void **state)
{
	struct pf_rail_ident eth = ib;
	char name[4096], why[512];

	(void)state;
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	eth.link_layer = name;
	eth.device = name;
	assert_int_equal(pf_rail_compat(&ib, 0, &eth, 1, 0, why, sizeof(why)), PF_RAIL_APART);
	assert_true(strlen(why) < 200);
	/* a short buffer is cut, never overrun */
	assert_int_equal(pf_rail_compat(&ib, 0, &eth, 1, 0, why, 8), PF_RAIL_APART);
	assert_int_equal(strlen(why), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_rail_other_names),
		cmocka_unit_test(test_link_layers_apart),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_subnets_routed),
		cmocka_unit_test(test_hostile_names_cut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
