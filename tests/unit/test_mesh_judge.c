// SPDX-License-Identifier: MIT
/*
 * test_mesh_judge.c - the verdict of `preflight mesh` on one rank
 * (src/mesh/mesh_judge.c) from synthetic gathers: a healthy pair passes with
 * the whole matrix in the first finding "mesh"; a slow direction between
 * two nodes is a path (warn on both, never a fail that would drain a
 * healthy node); a failed flow fails its sender with the stage (error for
 * its own memory); a rail slow to every partner fails its node only; a
 * rank's measurement claiming another source is dropped; a rank that never
 * came is a skip; no rail is a skip.
 */
#include <math.h>
#include <string.h>

#include "mesh.h"
#include "preflight/result.h"
#include "testutil.h"

static const char *hosts[] = { "n1", "n2", "n3", "n4" };

/* The rendezvous table of @n ranks with one rail each ("mlx5_0"), @missing absent. */
static cJSON *table_of(uint32_t n, long missing)
{
	cJSON *t = cJSON_CreateObject(), *ranks = cJSON_AddArrayToObject(t, "ranks");

	cJSON_AddNumberToObject(t, "size", n);
	for (uint32_t i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject(), *rails, *rail;

		cJSON_AddNumberToObject(e, "rank", i);
		cJSON_AddBoolToObject(e, "arrived", (long)i != missing);
		cJSON_AddStringToObject(e, "host", hosts[i]);
		if ((long)i == missing) {
			cJSON_AddStringToObject(e, "why", "did not arrive by the deadline");
		} else {
			rails = cJSON_AddArrayToObject(e, "rails");
			rail = cJSON_CreateObject();
			cJSON_AddStringToObject(rail, "device", "mlx5_0");
			cJSON_AddStringToObject(rail, "ip", "10.0.0.1");
			cJSON_AddItemToArray(rails, rail);
		}
		cJSON_AddItemToArray(ranks, e);
	}
	return t;
}

/* Add a measurement to rank @from's gathered entry. */
static void add(cJSON *gathered, uint32_t from, uint32_t src, uint32_t dst, double gbps,
		const char *stage)
{
	cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(gathered, "ranks"), (int)from);
	cJSON *list = cJSON_GetObjectItem(e, "measurements"), *m = cJSON_CreateObject();

	if (!list)
		list = cJSON_AddArrayToObject(e, "measurements");
	cJSON_AddNumberToObject(m, "round", 1);
	cJSON_AddNumberToObject(m, "src", src);
	cJSON_AddNumberToObject(m, "dst", dst);
	cJSON_AddNumberToObject(m, "rail", 0);
	cJSON_AddStringToObject(m, "src_dev", "mlx5_0");
	cJSON_AddStringToObject(m, "dst_dev", "mlx5_0");
	cJSON_AddNumberToObject(m, "gbps", stage ? 0 : gbps);
	cJSON_AddNumberToObject(m, "seconds", stage ? 0 : 2);
	cJSON_AddNumberToObject(m, "bytes", stage ? 0 : gbps * 2e9 / 8);
	if (stage) {
		cJSON_AddStringToObject(m, "error", "connect: rejected");
		cJSON_AddStringToObject(m, "stage", stage);
	}
	cJSON_AddItemToArray(list, m);
}

struct judged {
	struct pf_result res;
	struct pf_mesh_schedule s;
	struct pf_mesh_data_out data;
	cJSON *table, *gathered, *partners;
};

static void judge(struct judged *j, uint32_t rank, uint32_t n)
{
	pf_result_init(&j->res);
	assert_int_equal(pf_mesh_schedule_build(n, PF_MESH_EXHAUSTIVE_MAX, 1, &j->s), 0);
	j->data = (struct pf_mesh_data_out){ .sends = cJSON_CreateArray(),
					     .skipped = cJSON_CreateArray(),
					     .rx_errors = cJSON_CreateArray() };
	j->partners = cJSON_CreateArray();
	pf_mesh_judge(&j->res, &(struct pf_mesh_judge_in){
		.rank = rank, .size = n, .sched = &j->s, .table = j->table,
		.gathered = j->gathered, .partners = j->partners, .data = &j->data });
}

static void release(struct judged *j)
{
	pf_result_release(&j->res);
	pf_mesh_schedule_release(&j->s);
	cJSON_Delete(j->data.sends);
	cJSON_Delete(j->data.skipped);
	cJSON_Delete(j->data.rx_errors);
	cJSON_Delete(j->partners);
}

static const cJSON *obs(const struct judged *j, const char *key)
{
	assert_true(j->res.n_findings >= 1);
	assert_string_equal(j->res.findings[0].subject, "mesh");
	return cJSON_GetObjectItem(j->res.findings[0].observed, key);
}

static const struct pf_finding *finding(const struct judged *j, const char *subject)
{
	for (size_t i = 0; i < j->res.n_findings; i++)
		if (j->res.findings[i].subject && strstr(j->res.findings[i].subject, subject))
			return &j->res.findings[i];
	return NULL;
}

static void test_healthy_pair_passes(void **state)
{
	struct judged j;

	j.table = table_of(2, -1);
	j.gathered = table_of(2, -1);
	add(j.gathered, 0, 0, 1, 10, NULL);
	add(j.gathered, 1, 1, 0, 11, NULL);
	for (uint32_t r = 0; r < 2; r++) {
		judge(&j, r, 2);
		assert_int_equal(j.res.status, PF_STATUS_PASS);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "measurements")), 2);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 0);
		assert_non_null(obs(&j, "table"));
		release(&j);
	}
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* Two nodes, one direction at a fifth: a path, warn on both, never a fail. */
static void test_two_nodes_slow_is_a_path(void **state)
{
	struct judged j;
	const cJSON *s;

	j.table = table_of(2, -1);
	j.gathered = table_of(2, -1);
	add(j.gathered, 0, 0, 1, 2, NULL);
	add(j.gathered, 1, 1, 0, 10, NULL);
	for (uint32_t r = 0; r < 2; r++) {
		judge(&j, r, 2);
		assert_int_equal(j.res.status, PF_STATUS_WARN);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 1);
		s = cJSON_GetArrayItem(obs(&j, "suspects"), 0);
		assert_string_equal(cJSON_GetObjectItem(s, "kind")->valuestring, "path");
		assert_string_equal(cJSON_GetObjectItem(s, "dir")->valuestring, "tx");
		assert_int_equal(cJSON_GetObjectItem(s, "rank")->valueint, 0);
		assert_int_equal(cJSON_GetObjectItem(s, "peer_rank")->valueint, 1);
		assert_string_equal(cJSON_GetObjectItem(s, "host")->valuestring, "n1");
		assert_string_equal(cJSON_GetObjectItem(s, "peer_host")->valuestring, "n2");
		assert_string_equal(cJSON_GetObjectItem(s, "device")->valuestring, "mlx5_0");
		assert_non_null(finding(&j, "path n1 <-> n2 rail 0"));
		release(&j);
	}
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* A flow that failed: its sender fails with the stage; its own memory: an error. */
static void test_failed_flow(void **state)
{
	struct judged j;
	const struct pf_finding *f;

	j.table = table_of(2, -1);
	j.gathered = table_of(2, -1);
	add(j.gathered, 0, 0, 1, 0, "connect");
	add(j.gathered, 1, 1, 0, 10, NULL);
	judge(&j, 0, 2);
	assert_int_equal(j.res.status, PF_STATUS_FAIL);
	f = finding(&j, "round 1 rail 0 mlx5_0 -> rank 1");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "connect: rejected"));
	release(&j);
	/* the receiver: the dead path touches it (warn), nothing it sent failed */
	judge(&j, 1, 2);
	assert_int_equal(j.res.status, PF_STATUS_WARN);
	release(&j);
	cJSON_Delete(j.gathered);

	j.gathered = table_of(2, -1);
	add(j.gathered, 0, 0, 1, 0, "memory");
	judge(&j, 0, 2);
	assert_int_equal(finding(&j, "round 1")->status, PF_STATUS_ERROR);
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* Four nodes, one rail: rank 2 sends slowly to all: rank 2 fails, rank 0 passes. */
static void test_slow_rail_names_its_node_only(void **state)
{
	struct judged j;

	j.table = table_of(4, -1);
	j.gathered = table_of(4, -1);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = 0; b < 4; b++)
			if (a != b)
				add(j.gathered, a, a, b, a == 2 ? 1.5 : 10 + a + b, NULL);
	judge(&j, 2, 4);
	assert_int_equal(j.res.status, PF_STATUS_FAIL);
	assert_non_null(finding(&j, "rail 0 (mlx5_0) tx"));
	release(&j);
	judge(&j, 0, 4);
	assert_int_equal(j.res.status, PF_STATUS_PASS);
	assert_int_equal(cJSON_GetArraySize(obs(&j, "measurements")), 12);
	assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 1);
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/*
 * Four nodes, rank 2's rail lossy both ways: every flow to and from it
 * fails.  Rank 2 fails (its rail is the suspect); the others' failed sends
 * to it are evidence against that rail, a warn: one bad cable must not make
 * every rank of the run exit 1 (under srun, drain every node).
 */
static void test_failed_sends_to_a_suspect_warn(void **state)
{
	struct judged j;
	const struct pf_finding *f;

	j.table = table_of(4, -1);
	j.gathered = table_of(4, -1);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = 0; b < 4; b++)
			if (a != b)
				add(j.gathered, a, a, b, 10 + a + b,
				    a == 2 || b == 2 ? "transfer" : NULL);
	judge(&j, 2, 4);
	assert_int_equal(j.res.status, PF_STATUS_FAIL);
	assert_non_null(finding(&j, "rail 0 (mlx5_0) both"));
	release(&j);
	for (uint32_t r = 0; r < 4; r++) {
		if (r == 2)
			continue;
		judge(&j, r, 4);
		assert_int_equal(j.res.status, PF_STATUS_WARN);
		f = finding(&j, "-> rank 2 mlx5_0");
		assert_non_null(f);
		assert_int_equal(f->status, PF_STATUS_WARN);
		assert_non_null(strstr(f->message, "explained by the suspect rail of rank 2 (n3)"));
		release(&j);
	}
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/*
 * A slow sender fails the flows into it too: rank 2 sends at a tenth of
 * the others on every flow (its egress shaped), and rank 0's flow to it
 * failed in the READ-back, whose answers rank 2 sends (seen on the VM rig
 * under ASan).  One suspect, rank 2's rail; no path from rank 0; rank 0
 * warns, explained by rank 2.
 */
static void test_failed_into_a_slow_sender_warns(void **state)
{
	struct judged j;
	const struct pf_finding *f;

	(void)state;
	j.table = table_of(4, -1);
	j.gathered = table_of(4, -1);
	for (uint32_t a = 0; a < 4; a++)
		for (uint32_t b = 0; b < 4; b++)
			if (a != b)
				add(j.gathered, a, a, b, a == 2 ? 1 : 10 + a + b,
				    a == 0 && b == 2 ? "verify" : NULL);
	judge(&j, 0, 4);
	assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 1);
	assert_int_equal(j.res.status, PF_STATUS_WARN);
	f = finding(&j, "-> rank 2 mlx5_0");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_non_null(strstr(f->message, "explained by the suspect rail of rank 2 (n3)"));
	release(&j);
	judge(&j, 2, 4);
	assert_int_equal(j.res.status, PF_STATUS_FAIL);
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/*
 * Mixed node types: rank 3's port runs at 200 Gb/s beside three at 400.
 * Its flows at half the others' Gb/s are at its line rate: no suspect.
 * At a quarter they are slow for it: its rail is named.
 */
static void test_rates_normalise(void **state)
{
	struct judged j;

	for (int slow = 0; slow < 2; slow++) {
		j.table = table_of(4, -1);
		for (uint32_t r = 0; r < 4; r++) {
			cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(j.table, "ranks"), (int)r);
			cJSON *rail = cJSON_GetArrayItem(cJSON_GetObjectItem(e, "rails"), 0);

			cJSON_AddStringToObject(rail, "rate", r == 3 ? "200 Gb/sec (4X HDR)"
								     : "400 Gb/sec (4X NDR)");
		}
		j.gathered = table_of(4, -1);
		for (uint32_t a = 0; a < 4; a++)
			for (uint32_t b = 0; b < 4; b++)
				if (a != b)
					add(j.gathered, a, a, b,
					    a == 3 || b == 3 ? (slow ? 90 : 180) : 360, NULL);
		judge(&j, 0, 4);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), slow ? 1 : 0);
		assert_int_equal(j.res.status, PF_STATUS_PASS);
		release(&j);
		judge(&j, 3, 4);
		assert_int_equal(j.res.status, slow ? PF_STATUS_FAIL : PF_STATUS_PASS);
		release(&j);
		cJSON_Delete(j.table);
		cJSON_Delete(j.gathered);
	}
}

/* Rank 1 claims rank 0 sent slowly: not taken; rank 3 never came: a skip naming it. */
static void test_hostile_and_missing(void **state)
{
	struct judged j;
	const struct pf_finding *f;

	j.table = table_of(4, 3);
	j.gathered = table_of(4, 3);
	add(j.gathered, 0, 0, 1, 10, NULL);
	add(j.gathered, 1, 1, 0, 10, NULL);
	add(j.gathered, 1, 0, 2, 0.1, NULL); /* forged: rank 1 speaking for rank 0 */
	add(j.gathered, 2, 2, 0, 10, NULL);
	add(j.gathered, 0, 0, 2, 10, NULL);
	judge(&j, 0, 4);
	assert_int_equal(cJSON_GetArraySize(obs(&j, "measurements")), 4);
	assert_int_equal(j.res.status, PF_STATUS_PASS);
	f = finding(&j, "rank 3 (n4)");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(j.res.summary, "missing 3 (n4)"));
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* Nothing sent (no rail, or one rank): a skip, never a pass. */
static void test_nothing_sent_is_a_skip(void **state)
{
	struct judged j;

	j.table = table_of(2, -1);
	j.gathered = table_of(2, -1);
	judge(&j, 0, 2);
	assert_int_equal(j.res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(j.res.findings[0].message, "nothing measured"));
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_pair_passes),
		cmocka_unit_test(test_two_nodes_slow_is_a_path),
		cmocka_unit_test(test_failed_flow),
		cmocka_unit_test(test_slow_rail_names_its_node_only),
		cmocka_unit_test(test_failed_sends_to_a_suspect_warn),
		cmocka_unit_test(test_failed_into_a_slow_sender_warns),
		cmocka_unit_test(test_rates_normalise),
		cmocka_unit_test(test_hostile_and_missing),
		cmocka_unit_test(test_nothing_sent_is_a_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
