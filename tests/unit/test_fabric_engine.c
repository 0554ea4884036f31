// SPDX-License-Identifier: MIT
/*
 * test_fabric_engine.c - the NIC-to-NIC RDMA WRITE engine (src/traffic/fabric.c)
 * through the fake verbs device and the fake RDMA-CM (tests/lib/), and the
 * fake RDMA-CM's own conventions, errno for errno as librdmacm's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fake_gpu.h"
#include "fake_rdmacm.h"
#include "fake_verbs.h"
#include "preflight/fabric.h"
#include "testutil.h"

static void opts_for(struct pf_fab_opts *o, int a, int b, enum pf_fab_conn conn)
{
	pf_fab_opts_default(o);
	o->api = &pf_fake_verbs_api;
	o->cm = &pf_fake_rdmacm_api;
	o->conn = conn;
	o->src.dev = pf_fake_verbs.devs[a].name;
	o->dst.dev = pf_fake_verbs.devs[b].name;
	snprintf(o->src.ip, sizeof(o->src.ip), "10.10.0.%u", (unsigned int)(a + 1) % 256u);
	snprintf(o->dst.ip, sizeof(o->dst.ip), "10.10.0.%u", (unsigned int)(b + 1) % 256u);
	o->msg_size = 65536;
	o->warmup = 50;
	o->iterations = 500;
	o->timeout_ms = 100;
	o->resolve_timeout_ms = 500;
}

static void reset(int n, uint8_t ll)
{
	pf_fake_verbs_reset(n, ll);
	pf_fake_rdmacm_reset(n);
}

/* Nothing left behind: contexts, PDs, CQs, QPs, MRs, ids, channels; no misuse. */
static void assert_clean(void)
{
	assert_int_equal(pf_fake_verbs.live, 0);
	assert_int_equal(pf_fake_rdmacm.live_ids, 0);
	assert_int_equal(pf_fake_rdmacm.live_channels, 0);
	if (pf_fake_rdmacm.misuse)
		fail_msg("misuse: %s", pf_fake_rdmacm.misuse_why);
}

static void test_roce_cm_pass(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[0].gbps = pf_fake_verbs.devs[1].gbps = 392;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_int_equal(r.stage, PF_FAB_DONE);
	assert_float_equal(r.gbps, 392, 0.5);
	assert_int_equal(r.iterations, 500);
	assert_string_equal(r.bound[0], "mlx5_0");
	assert_string_equal(r.bound[1], "mlx5_1");
	assert_string_equal(r.reg[0], "host");
	assert_string_equal(r.reg[1], "host");
	assert_int_equal(r.cm_event, -1);
	assert_int_equal(pf_fake_rdmacm.n_established, 1);
	assert_int_equal(pf_fake_rdmacm.last_resolve_timeout_ms, 500);
	/* the RTR named the other device's RoCE v2 GID from its own */
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 1);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 3);
	/* every slot of two passes: (50 + 500) timed/warm-up WRs, then one per slot */
	assert_int_equal(pf_fake_verbs.wrs, 550 + r.slots);
	assert_clean();
}

static void test_slower_end_sets_the_pace(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[1].gbps = 200;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_float_equal(r.gbps, 200, 0.5);
	/* and the other way */
	opts_for(&o, 1, 0, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_float_equal(r.gbps, 200, 0.5);
	assert_clean();
}

static void test_ib_verbs_pass(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_INFINIBAND);
	pf_fake_verbs.devs[1].lid = 0x42;
	pf_fake_verbs.devs[1].active_mtu = IBV_MTU_2048;
	opts_for(&o, 0, 1, PF_FAB_VERBS);
	o.cm = NULL;
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_int_equal(r.stage, PF_FAB_DONE);
	assert_float_equal(r.gbps, 400, 0.5);
	assert_int_equal(r.mtu, 2048);
	/* the last RTR was the destination's, towards the source's LID */
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.dlid, 0x11);
	assert_int_equal(pf_fake_verbs.n_transitions, 6);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
	assert_clean();

	/* InfiniBand over RDMA-CM (IPoIB addresses) */
	reset(2, IBV_LINK_LAYER_INFINIBAND);
	opts_for(&o, 1, 0, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 0);
	assert_int_equal(pf_fake_rdmacm.n_established, 1);
	assert_clean();
}

/* RoCE by GID in-process (connect=verbs), as NCCL connects: the RTR names the peer's GID */
static void test_roce_verbs_by_gid(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[1].gbps = 300;
	opts_for(&o, 0, 1, PF_FAB_VERBS);
	o.cm = NULL;
	o.src.gid_index = o.dst.gid_index = 3;
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_float_equal(r.gbps, 300, 0.5);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	/* the last RTR is the destination's, towards the source's GID */
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 1);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 3);
	assert_memory_equal(&pf_fake_verbs.rtr.ah_attr.grh.dgid, &pf_fake_verbs.devs[0].gid[3],
			    sizeof(union ibv_gid));
	assert_clean();

	/* without a RoCE v2 IPv4 GID */
	o.dst.gid_index = -1;
	assert_int_equal(pf_fabric_flow(&o, &r), -EADDRNOTAVAIL);
	assert_non_null(strstr(r.err, "RoCE port mlx5_1/1 has no RoCE v2 GID"));
	assert_clean();

	/* a GID index the port does not have */
	o.dst.gid_index = 9;
	assert_int_equal(pf_fabric_flow(&o, &r), -EADDRNOTAVAIL);
	assert_clean();
}

static void test_addr_timeout(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(3, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[1].arp_timeout = true;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -ETIMEDOUT);
	assert_int_equal(r.stage, PF_FAB_ADDR);
	assert_int_equal(r.cm_event, PF_CM_EVENT_ADDR_ERROR);
	assert_int_equal(r.cm_status, -ETIMEDOUT);
	assert_non_null(strstr(r.err, "RDMA_CM_EVENT_ADDR_ERROR"));
	assert_clean();

	/* the same port as a source resolves others fine */
	opts_for(&o, 1, 2, PF_FAB_CM);
	if (pf_fabric_flow(&o, &r))
		fail_msg("%s", r.err);

	/* a destination address no netdev here has: the listener cannot bind */
	opts_for(&o, 0, 2, PF_FAB_CM);
	snprintf(o.dst.ip, sizeof(o.dst.ip), "10.10.9.9");
	assert_int_equal(pf_fabric_flow(&o, &r), -EADDRNOTAVAIL); /* rdma_bind_addr */
	assert_int_equal(r.stage, PF_FAB_OPEN);
	assert_clean();
}

static void test_no_route_and_route_error(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[0].no_route = true;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -ENETUNREACH);
	assert_int_equal(r.stage, PF_FAB_ADDR);
	assert_int_equal(r.cm_status, -ENETUNREACH);
	assert_clean();

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[1].route_status = -EHOSTUNREACH;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -EHOSTUNREACH);
	assert_int_equal(r.stage, PF_FAB_ROUTE);
	assert_int_equal(r.cm_event, PF_CM_EVENT_ROUTE_ERROR);
	assert_clean();
}

static void test_rejected_and_unreachable(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[1].reject = 28;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -ECONNREFUSED);
	assert_int_equal(r.stage, PF_FAB_CONNECT);
	assert_int_equal(r.cm_event, PF_CM_EVENT_REJECTED);
	assert_int_equal(r.cm_status, 28); /* the reason, positive */
	assert_clean();

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[1].unreachable = true;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -ETIMEDOUT);
	assert_int_equal(r.stage, PF_FAB_CONNECT);
	assert_int_equal(r.cm_event, PF_CM_EVENT_UNREACHABLE);
	assert_clean();

	/* librdmacm could not take the QP to RTR/RTS on the reply: status -1, errno */
	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[1].conn_resp_errno = EINVAL;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -EINVAL);
	assert_int_equal(r.cm_event, PF_CM_EVENT_CONNECT_ERROR);
	assert_int_equal(r.cm_status, -1);
	assert_non_null(strstr(r.err, "Invalid argument"));
	assert_clean();
}

static void test_address_of_another_rail(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(3, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.addrs[0].dev = 2; /* 10.10.0.1 sits on mlx5_2's netdev */
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -EXDEV);
	assert_non_null(strstr(r.err, "10.10.0.1 is an address of mlx5_2, not of mlx5_0"));
	assert_clean();

	/* an address on a netdev without an RDMA device */
	pf_fake_rdmacm.addrs[0].dev = -1;
	assert_int_equal(pf_fabric_flow(&o, &r), -ENODEV);
	assert_int_equal(r.stage, PF_FAB_ADDR);
	assert_clean();
}

static void test_no_ucm(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.channel_errno = ENODEV;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -ENODEV);
	assert_int_equal(r.stage, PF_FAB_OPEN);
	assert_non_null(strstr(r.err, "rdma_ucm"));
	assert_clean();
}

static void test_corrupting_link(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[1].corrupt = true;
	opts_for(&o, 0, 1, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -EBADMSG);
	assert_int_equal(r.stage, PF_FAB_VERIFY);
	assert_int_equal(r.bad_offset, 65536 / 2);
	assert_int_equal(r.bad_pass, 1);
	assert_clean();
}

/* A WRITE of the fresh-pattern pass that is lost leaves pass 1's data: caught. */
static unsigned long lose_from;

static void lose_late_writes(unsigned long wr)
{
	if (wr >= lose_from)
		pf_fake_verbs.corrupt_mr_offset = 0; /* slot 0's first byte from now on */
}

static void test_fresh_pattern_pass(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_INFINIBAND);
	opts_for(&o, 0, 1, PF_FAB_VERBS);
	lose_from = 549; /* from the last timed WRITE on: pass 2 finds slot 0 stale */
	pf_fake_verbs.on_wr = lose_late_writes;
	assert_int_equal(pf_fabric_flow(&o, &r), -EBADMSG);
	assert_int_equal(r.bad_pass, 2);
	assert_int_equal(r.bad_slot, 0);
	assert_float_equal(r.gbps, 400, 0.5); /* the timed run itself was fine */
	pf_fake_verbs.on_wr = NULL;
	assert_clean();
}

static void test_retry_exhausted(void **state)
{
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[0].wc_error = IBV_WC_RETRY_EXC_ERR;
	opts_for(&o, 1, 0, PF_FAB_CM);
	assert_int_equal(pf_fabric_flow(&o, &r), -EIO);
	assert_int_equal(r.stage, PF_FAB_TRANSFER);
	assert_int_equal(r.wc_status, IBV_WC_RETRY_EXC_ERR);
	assert_non_null(strstr(r.err, "IBV_WC_RETRY_EXC_ERR"));
	assert_clean();
}

static void test_round_overlaps(void **state)
{
	struct pf_fab_flow flows[4];

	reset(4, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.devs[2].gbps = 100;
	for (int i = 0; i < 4; i++)
		opts_for(&flows[i].opts, i, (i + 1) % 4, PF_FAB_CM);
	pf_fabric_round(flows, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(flows[i].rc, 0);
		/* 1 -> 2 and 2 -> 3 cross mlx5_2's slow link */
		assert_float_equal(flows[i].res.gbps, i == 1 || i == 2 ? 100 : 400, 0.5);
	}
	assert_int_equal(pf_fake_rdmacm.n_established, 4);
	/* one failing flow does not hold the others at the gate */
	reset(4, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm.ports[3].arp_timeout = true;
	for (int i = 0; i < 4; i++)
		opts_for(&flows[i].opts, i, (i + 1) % 4, PF_FAB_CM);
	pf_fabric_round(flows, 4);
	assert_int_equal(flows[2].rc, -ETIMEDOUT);
	assert_int_equal(flows[0].rc, 0);
	assert_int_equal(flows[3].rc, 0);
	assert_clean();
}

/* Per posting thread (one per flow of a round): WRs posted, and the other's count at each. */
static pthread_t poster[2];
static unsigned long posted_by[2], other_at[2][16];

static void count_by_thread(unsigned long wr)
{
	(void)wr; /* called under the fake's lock */
	for (int t = 0; t < 2; t++) {
		if (posted_by[t] && !pthread_equal(poster[t], pthread_self()))
			continue;
		poster[t] = pthread_self();
		if (posted_by[t] < PF_ARRAY_SIZE(other_at[t]))
			other_at[t][posted_by[t]] = posted_by[1 - t];
		posted_by[t]++;
		return;
	}
}

/*
 * A round's flows check and refill only once every flow's timed run has
 * ended: the short flow's second-pass WRITEs (its 11th WR on) come after
 * the long flow's 3000 timed ones, never inside its timed window.
 */
static void test_round_checks_after_timed_runs(void **state)
{
	struct pf_fab_flow flows[2];
	int a;

	reset(2, IBV_LINK_LAYER_INFINIBAND);
	for (int i = 0; i < 2; i++) {
		opts_for(&flows[i].opts, i, 1 - i, PF_FAB_VERBS);
		flows[i].opts.warmup = 0;
		flows[i].opts.iterations = i ? 3000 : 10;
	}
	memset(posted_by, 0, sizeof(posted_by));
	pf_fake_verbs.on_wr = count_by_thread;
	pf_fabric_round(flows, 2);
	pf_fake_verbs.on_wr = NULL;
	assert_int_equal(flows[0].rc, 0);
	assert_int_equal(flows[1].rc, 0);
	a = posted_by[0] < posted_by[1] ? 0 : 1;
	/* 10 timed WRITEs, then one per slot (64 of 64 KiB) */
	assert_int_equal(posted_by[a], 10 + 64);
	assert_int_equal(posted_by[1 - a], 3000 + 64);
	assert_true(other_at[a][10] >= 3000);
	assert_clean();
}

static void test_gpu_memory_both_sides(void **state)
{
	static const char *const bdfs[] = { "0000:17:00.0", "0000:2a:00.0" };
	struct pf_fab_opts o;
	struct pf_fab_result r;

	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_gpu_reset(2, bdfs);
	opts_for(&o, 0, 1, PF_FAB_CM);
	o.cu = pf_fake_verbs_cuda();
	o.export_dmabuf = pf_fake_export_dmabuf;
	o.src.mem = o.dst.mem = PF_LB_GPU;
	o.src.gpu = 0;
	o.dst.gpu = 1;
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_string_equal(r.reg[0], "peermem");
	assert_string_equal(r.reg[1], "peermem");
	assert_int_equal(pf_fake_verbs.n_peermem_regs, 2);
	assert_int_equal(pf_fake.allocs, 0);
	assert_clean();

	/* DMA-BUF when peermem is not there */
	reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_verbs.peermem = false;
	assert_int_equal(pf_fabric_flow(&o, &r), 0);
	assert_string_equal(r.reg[0], "dmabuf");
	assert_int_equal(pf_fake_verbs.n_dmabuf_regs, 2);
	assert_int_equal(pf_fake.allocs, 0);
	assert_clean();
}

/* The fake answers like librdmacm: -1 and errno for calls, statuses in events. */
static void test_fake_conventions(void **state)
{
	const struct pf_rdmacm_api *cm = &pf_fake_rdmacm_api;
	struct pf_cm_channel *ch;
	struct pf_cm_id *id;
	struct pf_cm_event *ev;
	struct sockaddr_in sa = { .sin_family = AF_INET };

	reset(2, IBV_LINK_LAYER_ETHERNET);
	ch = cm->create_event_channel();
	assert_non_null(ch);
	assert_int_equal(cm->create_id(ch, &id, NULL, PF_RDMA_PS_TCP), 0);
	/* nothing queued */
	errno = 0;
	assert_int_equal(cm->get_cm_event(ch, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	/* route before address */
	errno = 0;
	assert_int_equal(cm->resolve_route(id, 100), -1);
	assert_int_equal(errno, EINVAL);
	/* an address no netdev has */
	inet_pton(AF_INET, "192.0.2.1", &sa.sin_addr);
	errno = 0;
	assert_int_equal(cm->bind_addr(id, (struct sockaddr *)&sa), -1);
	assert_int_equal(errno, EADDRNOTAVAIL);
	inet_pton(AF_INET, "10.10.0.1", &sa.sin_addr);
	assert_int_equal(cm->bind_addr(id, (struct sockaddr *)&sa), 0);
	assert_non_null(id->verbs);
	/* a second bind */
	errno = 0;
	assert_int_equal(cm->bind_addr(id, (struct sockaddr *)&sa), -1);
	assert_int_equal(errno, EINVAL);
	/* resolve with the ARP of the destination unanswered: 0 now, the error as an event */
	pf_fake_rdmacm.ports[1].arp_timeout = true;
	inet_pton(AF_INET, "10.10.0.2", &sa.sin_addr);
	assert_int_equal(cm->resolve_addr(id, NULL, (struct sockaddr *)&sa, 100), 0);
	assert_int_equal(cm->get_cm_event(ch, &ev), 0);
	assert_int_equal(ev->event, PF_CM_EVENT_ADDR_ERROR);
	assert_int_equal(ev->status, -ETIMEDOUT);
	assert_ptr_equal(ev->id, id);
	assert_int_equal(cm->ack_cm_event(ev), 0);
	assert_int_equal(cm->destroy_id(id), 0);
	cm->destroy_event_channel(ch);
	assert_clean();
}

/* The loader: a missing library and one without the symbols are messages, not crashes. */
static void test_loader(void **state)
{
	struct pf_rdmacm_api api;
	char *err = NULL;

	assert_int_equal(pf_rdmacm_load("/nonexistent/librdmacm.so.1", &api, &err), -ENOENT);
	assert_non_null(strstr(err, "librdmacm.so.1 not found: install rdma-core"));
	free(err);
	err = NULL;
	assert_int_equal(pf_rdmacm_load("libc.so.6", &api, &err), -ENOSYS);
	assert_non_null(strstr(err, "has no rdma_create_event_channel@RDMACM_1.0"));
	assert_null(api.create_id);
	free(err);
	assert_string_equal(pf_cm_event_name(PF_CM_EVENT_ROUTE_ERROR), "RDMA_CM_EVENT_ROUTE_ERROR");
	assert_string_equal(pf_cm_event_name(99), "RDMA_CM_EVENT_?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roce_cm_pass),
		cmocka_unit_test(test_slower_end_sets_the_pace),
		cmocka_unit_test(test_ib_verbs_pass),
		cmocka_unit_test(test_roce_verbs_by_gid),
		cmocka_unit_test(test_addr_timeout),
		cmocka_unit_test(test_no_route_and_route_error),
		cmocka_unit_test(test_rejected_and_unreachable),
		cmocka_unit_test(test_address_of_another_rail),
		cmocka_unit_test(test_no_ucm),
		cmocka_unit_test(test_corrupting_link),
		cmocka_unit_test(test_fresh_pattern_pass),
		cmocka_unit_test(test_retry_exhausted),
		cmocka_unit_test(test_round_overlaps),
		cmocka_unit_test(test_round_checks_after_timed_runs),
		cmocka_unit_test(test_gpu_memory_both_sides),
		cmocka_unit_test(test_fake_conventions),
		cmocka_unit_test(test_loader),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
