// SPDX-License-Identifier: MIT
/*
 * test_fleet_wiring.c - the fleet's wiring rule (src/fleet/fleet_wiring.c):
 * a flat InfiniBand fabric and a routed one (a subnet per port) are not
 * judged, healthy per-rail subnets name nobody, one node's swapped rails
 * 0/1 name exactly that node with "sits with the other nodes' rail 1",
 * two nodes are too few, a DGX beside an HGX (different device names for
 * the same rails) names nobody, LLDP leaves judge where the subnets cannot,
 * a superseded report is not used, and a malformed rail table is refused
 * whole with its origin and reason.
 */
#include <stdio.h>
#include <string.h>

#include "fleet_wiring.h"
#include "testutil.h"

enum shape { SUBNETS, FLAT_IB, ROUTED, LLDP };

static const int dgx_devs[8] = { 0, 3, 4, 5, 6, 9, 10, 11 };

/*
 * Node @k (host "n<k+1>") with 8 rails of @shape from a new source; rail
 * i plugs in at slot i, except rails @a and @b swapped when @swap.
 */
static void add_node(struct fl_wiring *w, size_t node, int k, enum shape shape, bool dgx,
		     bool swap, uint32_t a, uint32_t b)
{
	uint32_t src = fl_wiring_source(w, node);
	char host[16];

	snprintf(host, sizeof(host), "n%d", k + 1);
	for (uint32_t i = 0; i < 8; i++) {
		uint32_t slot = swap && i == a ? b : swap && i == b ? a : i;
		char dev[16], subnet[32] = "", leaf[16] = "";
		const char *key[FL_WIRE_BY_COUNT] = { NULL, NULL, NULL };

		snprintf(dev, sizeof(dev), "mlx5_%d", dgx ? dgx_devs[i] : (int)i);
		switch (shape) {
		case SUBNETS:
			snprintf(subnet, sizeof(subnet), "10.0.%u.0/24", slot);
			key[FL_WIRE_SUBNET] = subnet;
			break;
		case ROUTED:
			snprintf(subnet, sizeof(subnet), "10.%d.%u.%d/31", k, slot, 2 * k);
			key[FL_WIRE_SUBNET] = subnet;
			break;
		case LLDP:
			snprintf(leaf, sizeof(leaf), "leaf-%u", slot);
			key[FL_WIRE_LLDP] = leaf; /* on an InfiniBand fabric with one prefix */
			key[FL_WIRE_IB_SUBNET] = "fe80:0000:0000:0000";
			break;
		case FLAT_IB:
			key[FL_WIRE_IB_SUBNET] = "fe80:0000:0000:0000";
			break;
		}
		fl_wiring_add(w, src, host, i, dev, 1, shape == SUBNETS || shape == ROUTED ?
			      "Ethernet" : "InfiniBand", key);
	}
}

static struct fl_wiring *fleet_of(int n, enum shape shape, int swapped_node, uint32_t a,
				  uint32_t b)
{
	struct fl_wiring *w = fl_wiring_new();

	for (int k = 0; k < n; k++)
		add_node(w, (size_t)k, k, shape, false, k == swapped_node, a, b);
	fl_wiring_finish(w, NULL, 0);
	return w;
}

static void assert_none_judged(const struct fl_wiring *w, const char *why)
{
	assert_int_equal(w->n_mis, 0);
	assert_int_equal(w->n_rails, 8);
	for (size_t i = 0; i < w->n_rails; i++) {
		assert_false(w->rails[i].judged);
		assert_non_null(strstr(w->rails[i].why, why));
	}
}

static void test_flat_ib_not_judged(void **state)
{
	struct fl_wiring *w = fleet_of(4, FLAT_IB, -1, 0, 0);

	(void)state;
	assert_none_judged(w, "one flat fabric, no wiring information");
	assert_int_equal(w->rails[3].by, FL_WIRE_IB_SUBNET);
	fl_wiring_free(w);
	/* and a node whose rails 0/1 are swapped cannot be seen: not named either */
	w = fleet_of(4, FLAT_IB, 2, 0, 1);
	assert_none_judged(w, "flat");
	fl_wiring_free(w);
}

static void test_subnets_healthy(void **state)
{
	struct fl_wiring *w = fleet_of(4, SUBNETS, -1, 0, 0);

	(void)state;
	assert_int_equal(w->n_hosts, 4);
	assert_int_equal(w->n_rails, 8);
	for (size_t i = 0; i < 8; i++) {
		assert_true(w->rails[i].judged);
		assert_int_equal(w->rails[i].in_group, 4);
	}
	assert_string_equal(w->rails[5].group, "10.0.5.0/24");
	assert_int_equal(w->n_mis, 0);
	assert_int_equal(w->n_mis_hosts, 0);
	fl_wiring_free(w);
}

static void test_routed_not_judged(void **state)
{
	struct fl_wiring *w = fleet_of(6, ROUTED, -1, 0, 0);

	(void)state;
	assert_none_judged(w, "a routed fabric");
	fl_wiring_free(w);
}

static void test_swapped_names_that_node(void **state)
{
	struct fl_wiring *w = fleet_of(4, SUBNETS, 2, 0, 1);
	char *why;

	(void)state;
	assert_int_equal(w->n_mis_hosts, 1);
	assert_int_equal(w->n_mis, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(w->mis[i].rec->host, "n3");
		assert_int_equal(w->mis[i].rec->rail, i);
		assert_int_equal(w->mis[i].sits_with, 1 - (int)i);
		assert_true(w->mis[i].swapped);
	}
	assert_string_equal(w->mis[0].sits_in, "10.0.1.0/24");
	assert_string_equal(w->mis[0].should, "10.0.0.0/24");
	why = fl_wire_mis_why(&w->mis[0]);
	assert_non_null(strstr(why, "mlx5_0:1 (rail 0) sits in IPv4 subnet 10.0.1.0/24 with the "
				    "other nodes' rail 1"));
	assert_non_null(strstr(why, "(rails 0<->1 swapped)"));
	free(why);
	fl_wiring_free(w);
}

static void test_two_nodes_not_judged(void **state)
{
	struct fl_wiring *w = fleet_of(2, SUBNETS, 1, 0, 1);

	(void)state;
	assert_none_judged(w, "only 2 nodes report rail");
	fl_wiring_free(w);
}

/* Of 3 nodes (the VM rig), two outvote one: the swapped one is named. */
static void test_three_nodes(void **state)
{
	struct fl_wiring *w = fleet_of(3, SUBNETS, 1, 0, 1);

	(void)state;
	assert_true(w->rails[0].judged);
	assert_int_equal(w->rails[0].in_group, 2);
	assert_int_equal(w->n_mis_hosts, 1);
	assert_int_equal(w->n_mis, 2);
	assert_string_equal(w->mis[0].rec->host, "n2");
	assert_true(w->mis[0].swapped && w->mis[1].swapped);
	fl_wiring_free(w);
}

/* 2 of 4 in one subnet is no majority: nobody is named. */
static void test_half_is_no_majority(void **state)
{
	struct fl_wiring *w = fl_wiring_new();

	(void)state;
	for (int k = 0; k < 4; k++)
		add_node(w, (size_t)k, k, SUBNETS, false, k >= 2, 0, 1);
	fl_wiring_finish(w, NULL, 0);
	assert_false(w->rails[0].judged);
	assert_false(w->rails[1].judged);
	assert_true(w->rails[2].judged);
	assert_int_equal(w->n_mis, 0);
	fl_wiring_free(w);
}

static void test_dgx_beside_hgx_healthy(void **state)
{
	struct fl_wiring *w = fl_wiring_new();

	(void)state;
	for (int k = 0; k < 4; k++)
		add_node(w, (size_t)k, k, SUBNETS, k < 2, false, 0, 0);
	fl_wiring_finish(w, NULL, 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(w->rails[i].judged);
	assert_int_equal(w->n_mis, 0);
	fl_wiring_free(w);
}

/* A flat InfiniBand fabric whose leaves LLDP names: judged by the leaf. */
static void test_lldp_judges_a_flat_fabric(void **state)
{
	struct fl_wiring *w = fleet_of(5, LLDP, 1, 2, 5);

	(void)state;
	assert_true(w->rails[0].judged);
	assert_int_equal(w->rails[0].by, FL_WIRE_LLDP);
	assert_int_equal(w->n_mis_hosts, 1);
	assert_string_equal(w->mis[0].rec->host, "n2");
	assert_int_equal(w->mis[0].rec->rail, 2);
	assert_int_equal(w->mis[0].sits_with, 5);
	fl_wiring_free(w);
}

/* A port in a subnet no rail's group is: named, sitting with no rail. */
static void test_stray_port(void **state)
{
	struct fl_wiring *w = fl_wiring_new();
	const char *key[FL_WIRE_BY_COUNT] = { "10.0.9.0/24", NULL, NULL };
	char *why;

	(void)state;
	for (int k = 0; k < 3; k++)
		add_node(w, (size_t)k, k, SUBNETS, false, false, 0, 0);
	fl_wiring_add(w, fl_wiring_source(w, 3), "n4", 3, "mlx5_3", 1, "Ethernet", key);
	fl_wiring_finish(w, NULL, 0);
	assert_int_equal(w->n_mis, 1);
	assert_int_equal(w->mis[0].sits_with, -1);
	assert_false(w->mis[0].swapped);
	why = fl_wire_mis_why(&w->mis[0]);
	assert_non_null(strstr(why, "where no other node's rail does; rail 3 belongs in "
				    "10.0.3.0/24"));
	free(why);
	fl_wiring_free(w);
}

/* A superseded report is not used; a node's own report wins over a mesh table. */
static void test_sources(void **state)
{
	struct fl_wiring *w = fl_wiring_new();
	bool superseded[5] = { false, false, false, true, false };

	(void)state;
	/* a mesh table naming n3 swapped, then the nodes' own reports */
	add_node(w, SIZE_MAX, 2, SUBNETS, false, true, 0, 1);
	for (int k = 0; k < 4; k++)
		add_node(w, (size_t)k, k, SUBNETS, false, k == 3, 0, 1);
	/* node 3 (n4, swapped) was superseded by node 4, a newer healthy n4 */
	add_node(w, 4, 3, SUBNETS, false, false, 0, 0);
	fl_wiring_finish(w, superseded, 5);
	assert_int_equal(w->n_hosts, 4);
	assert_int_equal(w->n_mis, 0);
	fl_wiring_free(w);
}

static size_t read_report(struct fl_wiring *w, const char *text)
{
	cJSON *j = cJSON_Parse(text);
	size_t before = w->n_errs;

	assert_non_null(j);
	fl_wiring_add_report(w, j, 0, "n1", "r.json");
	cJSON_Delete(j);
	return w->n_errs - before;
}

static void test_hostile_tables(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "{\"node\":{\"rails\":{}}}", "'node.rails' is not an array" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":99}]}}", "'rail' is not a whole" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":-1}]}}", "'rail' is not a whole" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":1.5}]}}", "'rail' is not a whole" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":0},{\"device\":\"b\",\"rail\":0}]}}",
		  "rail 0 twice (a and b)" },
		{ "{\"node\":{\"rails\":[{\"rail\":0}]}}", "rail 0 without a 'device'" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":0,\"subnet\":7}]}}", "'subnet'" },
		{ "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":0,\"lldp\":\"x\"}]}}", "'lldp'" },
		{ "{\"node\":{\"rails\":[7]}}", "node.rails[0]: not an object" },
		{ "{\"checks\":[{\"name\":\"mesh\",\"findings\":[{\"observed\":{\"table\":"
		  "{\"ranks\":[{\"host\":\"h\",\"rails\":[{\"device\":\"a\",\"rail\":64}]}]}}}]}]}",
		  "mesh table.ranks[0].rails[0]: 'rail'" },
		{ "{\"checks\":[{\"name\":\"mesh\",\"findings\":[{\"observed\":{\"table\":"
		  "{\"ranks\":[{\"host\":5}]}}}]}]}", "mesh table.ranks[0]" },
	};
	struct fl_wiring *w = fl_wiring_new();
	char *big = malloc(FL_WIRE_STR_MAX + 200), *text;

	(void)state;
	for (size_t i = 0; i < PF_ARRAY_SIZE(bad); i++) {
		assert_int_equal(read_report(w, bad[i].text), 1);
		assert_string_equal(w->errs[w->n_errs - 1].origin, "r.json");
		if (!strstr(w->errs[w->n_errs - 1].reason, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, w->errs[w->n_errs - 1].reason,
				 bad[i].why);
	}
	/* a string longer than the bound */
	memset(big, 'x', FL_WIRE_STR_MAX + 1);
	big[FL_WIRE_STR_MAX + 1] = '\0';
	text = pf_xasprintf("{\"node\":{\"rails\":[{\"device\":\"%s\",\"rail\":0}]}}", big);
	assert_int_equal(read_report(w, text), 1);
	free(text);
	free(big);
	assert_int_equal(w->n_recs, 0); /* nothing of a refused table was kept */
	/* well-formed: a storage port (no rail index) is left out, lldp null is fine */
	assert_int_equal(read_report(w, "{\"node\":{\"rails\":[{\"device\":\"a\",\"rail\":0,"
				     "\"lldp\":null,\"subnet\":\"10.0.0.0/24\"},{\"device\":\"s\","
				     "\"rail\":null,\"role\":\"storage\"}]}}"), 0);
	assert_int_equal(w->n_recs, 1);
	assert_string_equal(w->recs[0].key[FL_WIRE_SUBNET], "10.0.0.0/24");
	fl_wiring_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flat_ib_not_judged),
		cmocka_unit_test(test_subnets_healthy),
		cmocka_unit_test(test_routed_not_judged),
		cmocka_unit_test(test_swapped_names_that_node),
		cmocka_unit_test(test_two_nodes_not_judged),
		cmocka_unit_test(test_three_nodes),
		cmocka_unit_test(test_half_is_no_majority),
		cmocka_unit_test(test_dgx_beside_hgx_healthy),
		cmocka_unit_test(test_lldp_judges_a_flat_fabric),
		cmocka_unit_test(test_stray_port),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_hostile_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
