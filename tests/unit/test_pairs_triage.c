// SPDX-License-Identifier: MIT
/*
 * test_pairs_triage.c - triangulation of a pairwise matrix (src/pairs/triage.c)
 * on synthetic runs of 3 to 8 nodes with 1 or 2 rails and +-15% noise: all
 * healthy names nobody (at any scale, so no fixed number is used); one
 * rail's sender slow names that (node, rail, tx); a node slow on every rail
 * names the node, not its rails; a pair slow only to each other names the
 * path and its direction; a dead path (0) is named, unless a node that
 * sends slowly to everyone is its receiver; with one rail a slow node is
 * named as its rail; two nodes cannot be told apart from their path; a rail
 * index slow on half the nodes or more is one fabric suspect and no node's,
 * while a lossy rail on one node of eight rails still names it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "preflight/pairs.h"
#include "testutil.h"

struct run {
	struct pf_mesh_obs obs[8 * 7 * 2];
	size_t n;
};

/* Every direction of every pair on every rail, around @base with noise. */
static void run_make(struct run *r, uint32_t nodes, uint32_t rails, double base)
{
	unsigned x = 12345;

	r->n = 0;
	for (uint32_t a = 0; a < nodes; a++)
		for (uint32_t b = 0; b < nodes; b++)
			for (uint32_t k = 0; a != b && k < rails; k++) {
				x = x * 1103515245u + 12345u;
				r->obs[r->n++] = (struct pf_mesh_obs){
					.src = a, .dst = b, .rail = k,
					.value = base * (0.85 + 0.30 * (double)((x >> 16) % 1000) / 999.0),
				};
			}
}

/* Scale what matches: src/dst UINT32_MAX is any, rail UINT32_MAX any. */
static void run_scale(struct run *r, uint32_t src, uint32_t dst, uint32_t rail, double f)
{
	for (size_t i = 0; i < r->n; i++) {
		struct pf_mesh_obs *o = &r->obs[i];

		if ((src == UINT32_MAX || o->src == src) && (dst == UINT32_MAX || o->dst == dst) &&
		    (rail == UINT32_MAX || o->rail == rail))
			o->value *= f;
	}
}

static void judge(const struct run *r, struct pf_mesh_triage *t)
{
	assert_int_equal(pf_mesh_triangulate(r->obs, r->n, PF_MESH_SLOW_FRACTION, t), 0);
}

static void expect_one(const struct pf_mesh_triage *t, enum pf_mesh_kind kind, uint32_t node,
		       uint32_t peer, uint32_t rail, enum pf_mesh_dir dir)
{
	if (t->n != 1)
		fail_msg("%zu suspects, want 1", t->n);
	assert_int_equal(t->suspects[0].kind, kind);
	assert_int_equal(t->suspects[0].node, node);
	assert_int_equal(t->suspects[0].peer, peer);
	assert_int_equal(t->suspects[0].rail, rail);
	assert_int_equal(t->suspects[0].dir, dir);
	assert_true(t->suspects[0].n_slow > 0 && t->suspects[0].n_slow <= t->suspects[0].n_seen);
	assert_true(t->suspects[0].ratio < PF_MESH_SLOW_FRACTION);
}

static void test_healthy(void **state)
{
	static const double scales[] = { 0.005, 5.5, 100, 4e5 };
	struct pf_mesh_triage t;
	struct run r;

	(void)state;
	for (uint32_t nodes = 2; nodes <= 8; nodes++)
		for (size_t s = 0; s < PF_ARRAY_SIZE(scales); s++) {
			run_make(&r, nodes, 2, scales[s]);
			judge(&r, &t);
			assert_int_equal(t.n, 0);
			assert_true(t.healthy_median > scales[s] * 0.85 &&
				    t.healthy_median < scales[s] * 1.15);
			pf_mesh_triage_release(&t);
		}
	/* a whole run slow is no suspect: slow against what? */
	run_make(&r, 4, 2, 100);
	run_scale(&r, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0.05);
	judge(&r, &t);
	assert_int_equal(t.n, 0);
	pf_mesh_triage_release(&t);
}

static void test_rail(void **state)
{
	struct pf_mesh_triage t;
	struct run r;

	(void)state;
	for (uint32_t nodes = 3; nodes <= 8; nodes++) {
		run_make(&r, nodes, 2, 100);
		run_scale(&r, 2, UINT32_MAX, 1, 0.3); /* node 2 sends slowly on rail 1 */
		judge(&r, &t);
		expect_one(&t, PF_MESH_RAIL, 2, UINT32_MAX, 1, PF_MESH_TX);
		assert_int_equal(t.suspects[0].n_slow, nodes - 1);
		pf_mesh_triage_release(&t);

		run_make(&r, nodes, 2, 100);
		run_scale(&r, UINT32_MAX, 0, 0, 0.3); /* node 0 receives slowly on rail 0 */
		run_scale(&r, 0, UINT32_MAX, 0, 0.3); /* ... and sends */
		judge(&r, &t);
		expect_one(&t, PF_MESH_RAIL, 0, UINT32_MAX, 0, PF_MESH_BOTH);
		pf_mesh_triage_release(&t);
	}
}

static void test_node(void **state)
{
	struct pf_mesh_triage t;
	struct run r;

	(void)state;
	for (uint32_t nodes = 3; nodes <= 8; nodes++) {
		run_make(&r, nodes, 2, 100);
		run_scale(&r, 1, UINT32_MAX, UINT32_MAX, 0.4);
		run_scale(&r, UINT32_MAX, 1, UINT32_MAX, 0.4);
		judge(&r, &t);
		expect_one(&t, PF_MESH_NODE, 1, UINT32_MAX, UINT32_MAX, PF_MESH_BOTH);
		assert_int_equal(t.suspects[0].n_slow, 4 * (nodes - 1));
		pf_mesh_triage_release(&t);
	}
	/* one rail: the node and its only rail are one; named as the rail */
	run_make(&r, 4, 1, 100);
	run_scale(&r, 3, UINT32_MAX, UINT32_MAX, 0.4);
	judge(&r, &t);
	expect_one(&t, PF_MESH_RAIL, 3, UINT32_MAX, 0, PF_MESH_TX);
	pf_mesh_triage_release(&t);
}

static void test_path(void **state)
{
	struct pf_mesh_triage t;
	struct run r;

	(void)state;
	for (uint32_t nodes = 3; nodes <= 8; nodes++) {
		run_make(&r, nodes, 2, 100);
		run_scale(&r, 2, 0, 1, 0.5); /* only 2 -> 0 on rail 1 */
		judge(&r, &t);
		expect_one(&t, PF_MESH_PATH, 0, 2, 1, PF_MESH_RX); /* a=0 receives */
		assert_int_equal(t.suspects[0].n_seen, 2);
		pf_mesh_triage_release(&t);

		run_make(&r, nodes, 2, 100);
		run_scale(&r, 0, 1, 0, 0); /* a dead path, both ways */
		run_scale(&r, 1, 0, 0, 0);
		judge(&r, &t);
		expect_one(&t, PF_MESH_PATH, 0, 1, 0, PF_MESH_BOTH);
		assert_true(t.suspects[0].ratio == 0);
		pf_mesh_triage_release(&t);
	}
	/* two nodes: every slow thing has one partner, so it stays a path */
	run_make(&r, 2, 2, 100);
	run_scale(&r, 0, 1, 1, 0.3);
	judge(&r, &t);
	expect_one(&t, PF_MESH_PATH, 0, 1, 1, PF_MESH_TX);
	pf_mesh_triage_release(&t);
	/*
	 * a dead flow into a node whose sends are all slow is that node's: the
	 * flow needs its ACKs and READ answers too (a slow flow into it is not)
	 */
	for (uint32_t nodes = 3; nodes <= 8; nodes++) {
		run_make(&r, nodes, 1, 100);
		run_scale(&r, 2, UINT32_MAX, 0, 0.1);
		run_scale(&r, 0, 2, 0, 0);
		judge(&r, &t);
		expect_one(&t, PF_MESH_RAIL, 2, UINT32_MAX, 0, PF_MESH_TX);
		pf_mesh_triage_release(&t);

		run_make(&r, nodes, 1, 100);
		run_scale(&r, 2, UINT32_MAX, 0, 0.1);
		run_scale(&r, 0, 2, 0, 0.2);
		judge(&r, &t);
		assert_int_equal(t.n, 2);
		pf_mesh_triage_release(&t);
	}
}

/* 4 nodes, 8 rails: rail 3 slow on 3 (or 2) of them is the fabric's, nobody's rail. */
static void test_fabric(void **state)
{
	struct pf_mesh_triage t;
	struct run r;

	(void)state;
	for (uint32_t slow = 2; slow <= 3; slow++) {
		run_make(&r, 4, 8, 390);
		for (uint32_t node = 1; node <= slow; node++)
			run_scale(&r, node, UINT32_MAX, 3, 0.3);
		judge(&r, &t);
		if (t.n != 1)
			fail_msg("%u slow: %zu suspects, want 1", slow, t.n);
		assert_int_equal(t.suspects[0].kind, PF_MESH_FABRIC);
		assert_int_equal(t.suspects[0].rail, 3);
		assert_int_equal(t.suspects[0].node, UINT32_MAX);
		assert_int_equal(t.suspects[0].dir, PF_MESH_TX);
		assert_int_equal(t.suspects[0].n_nodes_bad, slow);
		assert_int_equal(t.suspects[0].n_nodes, 4);
		assert_true(t.suspects[0].ratio < 0.4 && t.suspects[0].n_slow > 0);
		assert_int_equal(t.suspects[0].n_seen, 12);
		assert_string_equal(pf_mesh_kind_name(t.suspects[0].kind), "fabric");
		pf_mesh_triage_release(&t);
	}
	/* one node's rail lossy both ways (every flow on it failed): its rail, not the fabric */
	run_make(&r, 4, 8, 390);
	run_scale(&r, 2, UINT32_MAX, 5, 0);
	run_scale(&r, UINT32_MAX, 2, 5, 0);
	judge(&r, &t);
	expect_one(&t, PF_MESH_RAIL, 2, UINT32_MAX, 5, PF_MESH_BOTH);
	pf_mesh_triage_release(&t);
	/* the fabric's rail does not make a node slow on its other rail a node suspect */
	run_make(&r, 4, 2, 100);
	run_scale(&r, 1, UINT32_MAX, 1, 0.3);
	run_scale(&r, 2, UINT32_MAX, 1, 0.3);
	run_scale(&r, 3, UINT32_MAX, 1, 0.3);
	run_scale(&r, 0, UINT32_MAX, 0, 0.3);
	judge(&r, &t);
	assert_int_equal(t.n, 2);
	for (size_t i = 0; i < t.n; i++)
		assert_true(t.suspects[i].kind == PF_MESH_FABRIC ||
			    (t.suspects[i].kind == PF_MESH_RAIL && t.suspects[i].node == 0 &&
			     t.suspects[i].rail == 0));
	pf_mesh_triage_release(&t);
}

static void test_ranked_and_invalid(void **state)
{
	struct pf_mesh_triage t;
	struct run r;
	struct pf_mesh_obs bad = { .src = 1, .dst = 1, .value = 1 };
	struct pf_mesh_obs nan = { .src = 0, .dst = 1, .value = NAN };

	(void)state;
	run_make(&r, 6, 2, 100);
	run_scale(&r, 4, UINT32_MAX, 0, 0.5);
	run_scale(&r, 5, 3, 1, 0.1);
	judge(&r, &t);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.suspects[0].kind, PF_MESH_PATH); /* the worst first */
	assert_int_equal(t.suspects[1].kind, PF_MESH_RAIL);
	pf_mesh_triage_release(&t);

	assert_int_equal(pf_mesh_triangulate(r.obs, 0, 0.7, &t), -EINVAL);
	assert_int_equal(pf_mesh_triangulate(&bad, 1, 0.7, &t), -EINVAL);
	assert_int_equal(pf_mesh_triangulate(&nan, 1, 0.7, &t), -EINVAL);
	assert_int_equal(pf_mesh_triangulate(r.obs, r.n, 1.5, &t), -EINVAL);
	assert_int_equal(t.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_rail),
		cmocka_unit_test(test_node),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_ranked_and_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
