// SPDX-License-Identifier: MIT
/*
 * test_mesh_judge.c - the verdict of `preflight mesh` on one rank
 * (src/mesh/mesh_judge.c) from synthetic gathers: a healthy pair passes with
 * the whole matrix in the first finding "mesh"; a slow direction between
 * two nodes is a path (warn on both, never a fail that would drain a
 * healthy node); a failed flow fails its sender with the stage (error for
 * its own memory); a rail slow to every partner fails its node only; a
 * rank's measurement claiming another source is dropped; a rank that never
 * came is a skip; no rail is a skip.  Rails by identity: an InfiniBand
 * rail paired with an Ethernet one is "not comparable" with why, never a
 * measurement nor a failure of either end; a routed pair (other subnets)
 * that never connected is not comparable, one that connected and then
 * failed is judged; the longer table's extra rails are named untested; a
 * rail index slow on three of four nodes is one fabric suspect, a warn on
 * every rank.
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

/*
 * The table of @n ranks with @rails[i] rails each, InfiniBand compute rails
 * "mlx5_<k>" in subnet 10.<k>.0.0/16.
 */
static cJSON *table_rails(uint32_t n, const int *rails)
{
	cJSON *t = cJSON_CreateObject(), *ranks = cJSON_AddArrayToObject(t, "ranks");

	cJSON_AddNumberToObject(t, "size", n);
	for (uint32_t i = 0; i < n; i++) {
		cJSON *e = cJSON_CreateObject(), *list;

		cJSON_AddNumberToObject(e, "rank", i);
		cJSON_AddBoolToObject(e, "arrived", true);
		cJSON_AddStringToObject(e, "host", hosts[i]);
		list = cJSON_AddArrayToObject(e, "rails");
		for (int k = 0; k < rails[i]; k++) {
			cJSON *rail = cJSON_CreateObject();
			char dev[16], net[32];

			snprintf(dev, sizeof(dev), "mlx5_%d", k);
			snprintf(net, sizeof(net), "10.%d.0.0/16", k);
			cJSON_AddStringToObject(rail, "device", dev);
			cJSON_AddStringToObject(rail, "link_layer", "InfiniBand");
			cJSON_AddStringToObject(rail, "role", "compute");
			cJSON_AddNumberToObject(rail, "rail", k);
			cJSON_AddStringToObject(rail, "subnet", net);
			cJSON_AddStringToObject(rail, "ip", "10.0.0.1");
			cJSON_AddItemToArray(list, rail);
		}
		cJSON_AddItemToArray(ranks, e);
	}
	return t;
}

/* Rank @rank's rail @k in @t, to change. */
static cJSON *rail_of(cJSON *t, uint32_t rank, int k)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(t, "ranks"), (int)rank), "rails"), k);
}

static void add_rail(cJSON *gathered, uint32_t from, uint32_t src, uint32_t dst, uint32_t rail,
		     double gbps, const char *stage);

/* Add a measurement to rank @from's gathered entry, on rail 0. */
static void add(cJSON *gathered, uint32_t from, uint32_t src, uint32_t dst, double gbps,
		const char *stage)
{
	add_rail(gathered, from, src, dst, 0, gbps, stage);
}

static void add_rail(cJSON *gathered, uint32_t from, uint32_t src, uint32_t dst, uint32_t rail,
		     double gbps, const char *stage)
{
	cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItem(gathered, "ranks"), (int)from);
	cJSON *list = cJSON_GetObjectItem(e, "measurements"), *m = cJSON_CreateObject();

	if (!list)
		list = cJSON_AddArrayToObject(e, "measurements");
	cJSON_AddNumberToObject(m, "round", 1);
	cJSON_AddNumberToObject(m, "src", src);
	cJSON_AddNumberToObject(m, "dst", dst);
	cJSON_AddNumberToObject(m, "rail", rail);
	cJSON_AddStringToObject(m, "src_dev", rail ? "mlx5_1" : "mlx5_0");
	cJSON_AddStringToObject(m, "dst_dev", rail ? "mlx5_1" : "mlx5_0");
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
	/* what this rank sent is in its memory too (the judge reads it there) */
	cJSON_Delete(j->data.sends);
	j->data.sends = cJSON_Duplicate(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(j->gathered, "ranks"), (int)rank), "measurements"), true);
	if (!j->data.sends)
		j->data.sends = cJSON_CreateArray();
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

/*
 * Forged numbers (a 1e400 that parses as infinity, a NaN, a rate past
 * PF_MESH_GBPS_MAX, negative seconds) are ignored, and the gathered table
 * cannot change what this rank sent: its own sends are judged from memory.
 */
static void test_forged_numbers_and_own_sends(void **state)
{
	struct judged j;
	cJSON *inf = cJSON_Parse("{\"round\":1,\"src\":1,\"dst\":2,\"rail\":0,\"src_dev\":"
				 "\"mlx5_0\",\"dst_dev\":\"mlx5_0\",\"gbps\":1e400,"
				 "\"seconds\":2,\"bytes\":1}");
	cJSON *m;

	(void)state;
	assert_non_null(inf);
	j.table = table_of(3, -1);
	j.gathered = table_of(3, -1);
	add(j.gathered, 0, 0, 1, 10, NULL);
	add(j.gathered, 1, 1, 0, 10, NULL);
	add(j.gathered, 2, 2, 0, 10, NULL);
	add(j.gathered, 1, 1, 2, 2e4, NULL);     /* past 10 Tb/s */
	add(j.gathered, 2, 2, 1, NAN, NULL);     /* not a number */
	cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(j.gathered, "ranks"), 1), "measurements"), inf);
	add(j.gathered, 2, 2, 1, 10, NULL);
	m = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(j.gathered, "ranks"), 2), "measurements"), 2);
	cJSON_ReplaceItemInObject(m, "seconds", cJSON_CreateNumber(-1));
	judge(&j, 0, 3);
	/* rank 0's own flow, then rank 1's and rank 2's good ones */
	assert_int_equal(cJSON_GetArraySize(obs(&j, "measurements")), 3);
	release(&j);

	/* a table that says rank 0 sent slowly: rank 0's memory says 10 Gb/s */
	cJSON_Delete(j.gathered);
	j.gathered = table_of(3, -1);
	add(j.gathered, 0, 0, 1, 10, NULL);
	add(j.gathered, 1, 1, 0, 10, NULL);
	add(j.gathered, 2, 2, 0, 10, NULL);
	judge(&j, 0, 3);
	cJSON_Delete(j.data.sends);
	j.data.sends = cJSON_CreateArray();
	add(j.gathered, 0, 0, 2, 0.1, NULL); /* in the table only */
	cJSON_AddItemToArray(j.data.sends, cJSON_Duplicate(cJSON_GetArrayItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(j.gathered, "ranks"), 0), "measurements"), 0),
		true));
	pf_result_release(&j.res);
	pf_result_init(&j.res);
	pf_mesh_judge(&j.res, &(struct pf_mesh_judge_in){
		.rank = 0, .size = 3, .sched = &j.s, .table = j.table, .gathered = j.gathered,
		.partners = j.partners, .data = &j.data });
	assert_int_equal(cJSON_GetArraySize(obs(&j, "measurements")), 3);
	assert_int_equal(j.res.status, PF_STATUS_PASS);
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

/* Every ordered pair of @n ranks on @rails rails, @gbps(src, dst, rail) each (NAN: not run). */
static void add_all(cJSON *gathered, uint32_t n, uint32_t rails,
		    double (*gbps)(uint32_t src, uint32_t dst, uint32_t rail), const char *stage_0)
{
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++)
			for (uint32_t k = 0; a != b && k < rails; k++) {
				double v = gbps(a, b, k);

				if (!isnan(v))
					add_rail(gathered, a, a, b, k, v, v == 0 ? stage_0 : NULL);
			}
}

static const cJSON *note_of(const struct judged *j, const char *key, int i)
{
	return cJSON_GetArrayItem(obs(j, key), i);
}

/* Rank 3's rail 1 is Ethernet beside InfiniBand: not run, not comparable, blamed on nobody. */
static double gbps_no_eth(uint32_t src, uint32_t dst, uint32_t rail)
{
	return rail == 1 && (src == 3 || dst == 3) ? NAN : 380 + src + dst;
}

static void test_not_comparable_pair(void **state)
{
	static const int rails[] = { 2, 2, 2, 2 };
	struct judged j;
	const cJSON *nc;
	const struct pf_finding *f;

	(void)state;
	j.table = table_rails(4, rails);
	cJSON_ReplaceItemInObject(rail_of(j.table, 3, 1), "link_layer",
				  cJSON_CreateString("Ethernet"));
	cJSON_ReplaceItemInObject(rail_of(j.table, 3, 1), "device", cJSON_CreateString("mlx5_9"));
	j.gathered = table_rails(4, rails);
	add_all(j.gathered, 4, 2, gbps_no_eth, NULL);
	/* an old or hostile rank ran it anyway and says it failed: still not held against rank 0 */
	add_rail(j.gathered, 0, 0, 3, 1, 0, "connect");
	for (uint32_t r = 0; r < 4; r++) {
		judge(&j, r, 4);
		assert_int_equal(j.res.status, PF_STATUS_PASS);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 0);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "not_comparable")), 3);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "untested")), 0);
		release(&j);
	}
	judge(&j, 0, 4);
	for (int i = 0; i < 3; i++) {
		nc = note_of(&j, "not_comparable", i);
		assert_int_equal(cJSON_GetObjectItem(nc, "peer")->valueint, 3);
		assert_int_equal(cJSON_GetObjectItem(nc, "rail")->valueint, 1);
		if (cJSON_GetObjectItem(nc, "rank")->valueint == 0)
			assert_string_equal(cJSON_GetObjectItem(nc, "why")->valuestring,
					    "rail 1: InfiniBand at rank 0, Ethernet at rank 3 "
					    "(mlx5_1 vs mlx5_9)");
	}
	f = finding(&j, "rail 1 mlx5_1 <-> rank 3 mlx5_9");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "not comparable: rail 1: InfiniBand"));
	assert_null(finding(&j, "-> rank 3 mlx5_1")); /* the forged failure: no finding */
	assert_non_null(strstr(j.res.summary, "3 not comparable"));
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/*
 * Routed fabrics.  Rank 3 alone on another subnet: a flow that connected
 * and then lost everything is its rail's, as ever; one that never
 * connected with anybody is a dead rail (or an address nobody can reach):
 * evidence too, not "not comparable".
 */
static double gbps_rank3_dead(uint32_t src, uint32_t dst, uint32_t rail)
{
	(void)rail;
	return src == 3 || dst == 3 ? 0 : 380 + src + dst;
}

static void test_routed_pair(void **state)
{
	static const int rails[] = { 1, 1, 1, 1 };
	static const char *stages[] = { "connect", "transfer" };
	struct judged j;

	(void)state;
	for (int s = 0; s < 2; s++) {
		j.table = table_rails(4, rails);
		cJSON_ReplaceItemInObject(rail_of(j.table, 3, 0), "subnet",
					  cJSON_CreateString("10.9.0.0/16"));
		j.gathered = table_rails(4, rails);
		add_all(j.gathered, 4, 1, gbps_rank3_dead, stages[s]);
		judge(&j, 0, 4);
		assert_int_equal(j.res.status, PF_STATUS_WARN); /* explained by rank 3's rail */
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 1);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "not_comparable")), 0);
		release(&j);
		judge(&j, 3, 4);
		assert_int_equal(j.res.status, PF_STATUS_FAIL);
		release(&j);
		cJSON_Delete(j.table);
		cJSON_Delete(j.gathered);
	}
}

/*
 * Two subnets that do not route to each other, ranks 0-1 and 2-3: every
 * rail carries its flows inside its own subnet, so the flows across that
 * never connected are the routing's: not comparable, nobody blamed.
 */
static double gbps_halves(uint32_t src, uint32_t dst, uint32_t rail)
{
	(void)rail;
	return (src < 2) != (dst < 2) ? 0 : 380 + src + dst;
}

static void test_routed_halves(void **state)
{
	static const int rails[] = { 1, 1, 1, 1 };
	struct judged j;

	(void)state;
	j.table = table_rails(4, rails);
	for (uint32_t r = 2; r < 4; r++)
		cJSON_ReplaceItemInObject(rail_of(j.table, r, 0), "subnet",
					  cJSON_CreateString("10.9.0.0/16"));
	j.gathered = table_rails(4, rails);
	add_all(j.gathered, 4, 1, gbps_halves, "connect");
	for (uint32_t r = 0; r < 4; r++) {
		judge(&j, r, 4);
		assert_int_equal(j.res.status, PF_STATUS_PASS);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 0);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "not_comparable")), 8);
		assert_non_null(strstr(cJSON_GetObjectItem(note_of(&j, "not_comparable", 0),
				"why")->valuestring, "did not connect"));
		release(&j);
	}
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* Rank 2 has three rails, the others two: its rail 2 is named untested, not failed. */
static double gbps_two_rails(uint32_t src, uint32_t dst, uint32_t rail)
{
	(void)rail;
	return 380 + src + dst;
}

static void test_untested_rails(void **state)
{
	static const int rails[] = { 2, 2, 3 };
	struct judged j;
	const cJSON *u;
	const struct pf_finding *f;

	(void)state;
	j.table = table_rails(3, rails);
	j.gathered = table_rails(3, rails);
	add_all(j.gathered, 3, 2, gbps_two_rails, NULL);
	judge(&j, 2, 3);
	assert_int_equal(j.res.status, PF_STATUS_PASS);
	assert_int_equal(cJSON_GetArraySize(obs(&j, "untested")), 1);
	u = note_of(&j, "untested", 0);
	assert_int_equal(cJSON_GetObjectItem(u, "rank")->valueint, 2);
	assert_int_equal(cJSON_GetObjectItem(u, "rail")->valueint, 2);
	assert_string_equal(cJSON_GetObjectItem(u, "device")->valuestring, "mlx5_2");
	assert_int_equal(cJSON_GetObjectItem(u, "partners")->valueint, 2);
	assert_int_equal(cJSON_GetObjectItem(u, "of")->valueint, 2);
	assert_non_null(strstr(cJSON_GetObjectItem(u, "why")->valuestring, "has 2 rails"));
	f = finding(&j, "rail 2 mlx5_2");
	assert_non_null(f);
	assert_int_equal(f->status, PF_STATUS_SKIP);
	assert_non_null(strstr(f->message, "untested: rank "));
	release(&j);
	judge(&j, 0, 3);
	assert_int_equal(j.res.status, PF_STATUS_PASS);
	assert_null(finding(&j, "rail 2 mlx5_2"));
	release(&j);
	cJSON_Delete(j.table);
	cJSON_Delete(j.gathered);
}

/* Rail 1 slow from three of four nodes: one fabric suspect, a warn everywhere, no fail. */
static double gbps_fabric(uint32_t src, uint32_t dst, uint32_t rail)
{
	return rail == 1 && src != 0 ? 100 : 380 + src + dst;
}

static void test_fabric_warns(void **state)
{
	static const int rails[] = { 2, 2, 2, 2 };
	struct judged j;
	const cJSON *s;

	(void)state;
	j.table = table_rails(4, rails);
	j.gathered = table_rails(4, rails);
	add_all(j.gathered, 4, 2, gbps_fabric, NULL);
	for (uint32_t r = 0; r < 4; r++) {
		judge(&j, r, 4);
		assert_int_equal(j.res.status, PF_STATUS_WARN);
		assert_int_equal(cJSON_GetArraySize(obs(&j, "suspects")), 1);
		s = cJSON_GetArrayItem(obs(&j, "suspects"), 0);
		assert_string_equal(cJSON_GetObjectItem(s, "kind")->valuestring, "fabric");
		assert_int_equal(cJSON_GetObjectItem(s, "rail")->valueint, 1);
		assert_int_equal(cJSON_GetObjectItem(s, "nodes_bad")->valueint, 3);
		assert_int_equal(cJSON_GetObjectItem(s, "nodes")->valueint, 4);
		assert_null(cJSON_GetObjectItem(s, "rank"));
		assert_int_equal(finding(&j, "fabric rail 1")->status, PF_STATUS_WARN);
		release(&j);
	}
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
		cmocka_unit_test(test_forged_numbers_and_own_sends),
		cmocka_unit_test(test_nothing_sent_is_a_skip),
		cmocka_unit_test(test_not_comparable_pair),
		cmocka_unit_test(test_routed_pair),
		cmocka_unit_test(test_routed_halves),
		cmocka_unit_test(test_untested_rails),
		cmocka_unit_test(test_fabric_warns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
