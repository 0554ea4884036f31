// SPDX-License-Identifier: MIT
/*
 * test_mesh_verbs.c - the verbs way of `preflight mesh` (src/mesh/mesh_verbs.c):
 * which way a run connects (the same on every rank: from the one table),
 * and a round's mailbox between the flows and the rendezvous, here with a
 * one-rank rendezvous (rank 0 alone: its gathers answer at once) so that
 * the channel's waits, a flow that ended without a record, and a partner
 * that sent nothing are seen without a network.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "mesh.h"
#include "preflight/fabric_peer.h"
#include "testutil.h"

static cJSON *table_of(const char *json)
{
	cJSON *t = cJSON_Parse(json);

	assert_non_null(t);
	return t;
}

static void test_way(void **state)
{
	char why[256];
	cJSON *t;

	/* RoCE with an address on every rail of every arrived rank: RDMA-CM */
	t = table_of("{\"ranks\":[{\"rank\":0,\"arrived\":true,\"rails\":[{\"device\":\"mlx5_0\","
		     "\"link_layer\":\"Ethernet\",\"ip\":\"10.0.0.1\"}]},{\"rank\":1,\"arrived\":true,"
		     "\"rails\":[{\"device\":\"mlx5_0\",\"link_layer\":\"Ethernet\",\"ip\":\"10.0.0.2\"}]},"
		     "{\"rank\":2,\"arrived\":false}]}");
	assert_false(pf_mesh_use_verbs(t, "auto", why, sizeof(why)));
	assert_string_equal(why, "");
	assert_true(pf_mesh_use_verbs(t, "verbs", why, sizeof(why)));
	assert_false(pf_mesh_use_verbs(t, "cm", why, sizeof(why)));
	assert_false(pf_mesh_use_verbs(t, "rdma_cm", why, sizeof(why)));
	cJSON_Delete(t);

	/* one rail of rank 1 without an address: verbs, named (escaped: a peer's string) */
	t = table_of("{\"ranks\":[{\"rank\":0,\"arrived\":true,\"rails\":[{\"device\":\"mlx5_0\","
		     "\"link_layer\":\"Ethernet\",\"ip\":\"10.0.0.1\"}]},{\"rank\":1,\"arrived\":true,"
		     "\"rails\":[{\"device\":\"mlx5_\\u001b[1m\",\"link_layer\":\"Ethernet\"}]}]}");
	assert_true(pf_mesh_use_verbs(t, "auto", why, sizeof(why)));
	pf_test_assert_contains(why, "of rank 1 has no IPv4 address");
	assert_null(strchr(why, '\033'));
	/* forced RDMA-CM stays RDMA-CM: that rail is then skipped with its reason */
	assert_false(pf_mesh_use_verbs(t, "cm", why, sizeof(why)));
	cJSON_Delete(t);

	/* InfiniBand, even with IPoIB: verbs, as NCCL needs no IPoIB */
	t = table_of("{\"ranks\":[{\"rank\":0,\"arrived\":true,\"rails\":[{\"device\":\"mlx5_0\","
		     "\"link_layer\":\"InfiniBand\",\"ip\":\"10.0.0.1\"}]}]}");
	assert_true(pf_mesh_use_verbs(t, "auto", why, sizeof(why)));
	pf_test_assert_contains(why, "mlx5_0 of rank 0 is not Ethernet");
	cJSON_Delete(t);
}

/* One rank: its gathers are its own, at once. */
static const struct pf_mesh_rdv_cfg solo = { .rank = 0, .size = 1, .timeout_ms = 1000 };

struct flow_end {
	const struct pf_fabp_chan *ch;
	int send_rc;
	long recv_rc;
	int ready_rc, done_rc;
	pthread_t t;
};

static void *end_main(void *arg)
{
	struct flow_end *e = arg;
	uint8_t rec[64] = { 1, 2, 3 }, in[64];

	e->send_rc = e->ch->send(e->ch->ctx, rec, sizeof(rec));
	e->recv_rc = e->ch->recv(e->ch->ctx, in, sizeof(in), 2000);
	e->ready_rc = e->ch->ready(e->ch->ctx, 2000);
	e->done_rc = e->ch->done(e->ch->ctx, 2000);
	return NULL;
}

/*
 * A round with no partner (its records gathered, nobody's to take): each
 * flow hears -ECONNRESET at once (no record came), is not ready with a
 * peer, and is let go by the round's end; a slot whose flow never ran does
 * not hold the round up.
 */
static void test_round_without_partner(void **state)
{
	bool absent[1] = { false };
	struct pf_mesh_data_cfg c = { .rank = 0, .rdv = &solo, .absent = absent,
				      .connect_ms = 1000, .duration_ms = 10, .timeout_ms = 10 };
	struct pf_mesh_vround *v = pf_mesh_vround_new(4);
	struct flow_end e[2];

	for (int i = 0; i < 2; i++) {
		e[i] = (struct flow_end){ .ch = pf_mesh_vround_chan(v, (size_t)i) };
		assert_int_equal(pthread_create(&e[i].t, NULL, end_main, &e[i]), 0);
	}
	pf_mesh_vround_gone(v, 2);
	pf_mesh_vround_gone(v, 3);
	pf_mesh_vround_swap(v, &c, 1, -1, NULL);
	pf_mesh_vround_finish(v, &c, 1, NULL);
	for (int i = 0; i < 2; i++) {
		pthread_join(e[i].t, NULL);
		assert_int_equal(e[i].send_rc, 0);
		assert_int_equal(e[i].recv_rc, -ECONNRESET);
		assert_int_equal(e[i].ready_rc, -ECONNRESET);
		assert_int_equal(e[i].done_rc, 0);
	}
	pf_mesh_vround_free(v);
}

/* Nobody swaps: a flow's wait for its peer's record ends at its deadline. */
static void test_recv_times_out(void **state)
{
	struct pf_mesh_vround *v = pf_mesh_vround_new(2);
	const struct pf_fabp_chan *ch = pf_mesh_vround_chan(v, 1);
	uint8_t rec[200] = { 0 }, in[64];

	assert_int_equal(ch->send(ch->ctx, rec, sizeof(rec)), -EMSGSIZE);
	assert_int_equal(ch->send(ch->ctx, rec, 64), 0);
	assert_int_equal(ch->recv(ch->ctx, in, sizeof(in), 50), -ETIMEDOUT);
	assert_int_equal(ch->ready(ch->ctx, 50), -ETIMEDOUT);
	assert_int_equal(ch->done(ch->ctx, 50), -ETIMEDOUT);
	pf_mesh_vround_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_way),
		cmocka_unit_test(test_round_without_partner),
		cmocka_unit_test(test_recv_times_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
