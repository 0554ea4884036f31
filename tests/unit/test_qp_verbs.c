// SPDX-License-Identifier: MIT
/*
 * test_qp_verbs.c - the verbs connection path (src/traffic/qp_verbs.c) over
 * the fake verbs device (tests/lib/fake_verbs.c): the exchange record and
 * its validation against hostile bytes, the GID index as NCCL picks it, LID
 * addressing, a GRH across subnets and on RoCE (a link-local GID alone), the
 * path MTU, a peer that sends a wrong QPN or PSN (an error completion, never
 * a hang), a peer that vanishes mid-exchange, and the fake's errno answers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_verbs.h"
#include "qp_verbs.h"
#include "testutil.h"

#define BUF 4096
#define SLOTS 4

static const struct pf_verbs_api *api = &pf_fake_verbs_api;

struct end {
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t buf[BUF];
	struct pf_qpv_rec rec;
};

/* End on fake device @dev, its QP at INIT, its record (psn @psn, GID index @gidx). */
static void open_end(struct end *e, int dev, uint32_t psn, int gidx)
{
	struct ibv_port_attr pa = { 0 };
	char *err = NULL;
	int n;

	memset(e, 0, sizeof(*e));
	e->list = api->get_device_list(&n);
	assert_non_null(e->list);
	assert_true(dev < n);
	e->ctx = api->open_device(e->list[dev]);
	assert_non_null(e->ctx);
	assert_int_equal(api->query_port(e->ctx, 1, &pa), 0);
	e->pd = api->alloc_pd(e->ctx);
	e->cq = api->create_cq(e->ctx, 16, NULL, NULL, 0);
	e->mr = api->reg_mr(e->pd, e->buf, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	assert_non_null(e->mr);
	assert_int_equal(pf_qpv_create(api, e->pd, e->cq, 8, &e->qp), 0);
	assert_int_equal(pf_qpv_init(api, e->qp, 1, &err), 0);
	assert_null(err);
	e->rec = (struct pf_qpv_rec){
		.link_layer = pa.link_layer,
		.mtu = (uint8_t)pa.active_mtu,
		.lid = pa.lid,
		.gid_index = (uint8_t)gidx,
		.qpn = e->qp->qp_num,
		.psn = psn,
		.rkey = e->mr->rkey,
		.addr = (uint64_t)(uintptr_t)e->buf,
		.slot_stride = BUF / SLOTS,
		.slots = SLOTS,
	};
	assert_int_equal(api->query_gid(e->ctx, 1, gidx, &e->rec.gid), 0);
}

static void close_end(struct end *e)
{
	api->destroy_qp(e->qp);
	api->dereg_mr(e->mr);
	api->destroy_cq(e->cq);
	api->dealloc_pd(e->pd);
	api->close_device(e->ctx);
	api->free_device_list(e->list);
}

/* Swap the records over the in-process channel, each validated: 0 or the first error. */
static int swap(struct end *a, struct end *b, struct pf_qpv_rec peer[2])
{
	struct pf_qpv_pair pair = { 0 };
	struct pf_qpv_chan ca = pf_qpv_pair_chan(&pair, 0), cb = pf_qpv_pair_chan(&pair, 1);
	pf_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL;
	int r;

	r = pf_qpv_send(&ca, &a->rec, &e1);
	if (!r)
		r = pf_qpv_send(&cb, &b->rec, &e2);
	if (!r)
		r = pf_qpv_recv(&ca, &a->rec, 0, &peer[0], &e3);
	if (!r)
		r = pf_qpv_recv(&cb, &b->rec, 0, &peer[1], &e4);
	return r;
}

/* a's QP to RTR/RTS towards @pa, b's towards @pb. */
static void connect_both(struct end *a, struct end *b, const struct pf_qpv_rec *pa,
			 const struct pf_qpv_rec *pb)
{
	pf_autofree char *ea = NULL, *eb = NULL;

	assert_int_equal(pf_qpv_rtr_rts(api, a->qp, 1, &a->rec, pa, &ea), 0);
	assert_int_equal(pf_qpv_rtr_rts(api, b->qp, 1, &b->rec, pb, &eb), 0);
	assert_null(ea);
	assert_null(eb);
}

/* One signalled WRITE of 64 bytes from a into b's slot 1: its completion status. */
static enum ibv_wc_status write_one(struct end *a, struct end *b)
{
	struct ibv_sge sge = { .addr = (uint64_t)(uintptr_t)a->buf, .length = 64,
			       .lkey = a->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = a->rec.addr, .rkey = 0 },
	}, *bad = NULL;
	struct ibv_wc wc;

	(void)b;
	memset(a->buf, 0x5a, 64);
	wr.wr.rdma.remote_addr = b->rec.addr + b->rec.slot_stride;
	wr.wr.rdma.rkey = b->rec.rkey;
	assert_int_equal(api->post_send(a->qp, &wr, &bad), 0);
	/* bounded: the fake completes every WR; a thousand polls is a second of its clock */
	for (int i = 0; i < 1000; i++)
		if (api->poll_cq(a->cq, 1, &wc) == 1)
			return wc.status;
	fail_msg("no completion: the WRITE hangs");
	return IBV_WC_GENERAL_ERR;
}

static void test_record_roundtrip(void **state)
{
	struct pf_qpv_rec r = {
		.link_layer = IBV_LINK_LAYER_ETHERNET, .mtu = IBV_MTU_1024, .lid = 0,
		.gid_index = 3, .qpn = 0xabcdef, .psn = 0x123456, .rkey = 0xdeadbeef,
		.addr = 0x7f0011223340ull, .slot_stride = 4096, .slots = 64,
	}, d;
	uint8_t w[PF_QPV_REC_LEN];
	char *err = NULL;

	(void)state;
	r.gid.raw[10] = r.gid.raw[11] = 0xff;
	r.gid.raw[12] = 10;
	r.gid.raw[15] = 9;
	pf_qpv_encode(&r, w);
	assert_int_equal(pf_qpv_decode(w, sizeof(w), &d, &err), 0);
	assert_null(err);
	assert_int_equal(d.link_layer, r.link_layer);
	assert_int_equal(d.mtu, r.mtu);
	assert_int_equal(d.lid, r.lid);
	assert_int_equal(d.gid_index, r.gid_index);
	assert_memory_equal(d.gid.raw, r.gid.raw, sizeof(r.gid.raw));
	assert_int_equal(d.qpn, r.qpn);
	assert_int_equal(d.psn, r.psn);
	assert_int_equal(d.rkey, r.rkey);
	assert_int_equal(d.addr, r.addr);
	assert_int_equal(d.slot_stride, r.slot_stride);
	assert_int_equal(d.slots, r.slots);
	/* big-endian on the wire: the magic first */
	assert_memory_equal(w, "PFQV", 4);
}

/* @w with byte @off set to @v decodes to -EBADMSG naming @what. */
static void expect_bad(const uint8_t *w, size_t off, uint8_t v, const char *what)
{
	uint8_t c[PF_QPV_REC_LEN];
	struct pf_qpv_rec d;
	pf_autofree char *err = NULL;

	memcpy(c, w, sizeof(c));
	c[off] = v;
	assert_int_equal(pf_qpv_decode(c, sizeof(c), &d, &err), -EBADMSG);
	assert_non_null(err);
	if (!strstr(err, what))
		fail_msg("byte %zu = %#x: '%s' does not name %s", off, v, err, what);
}

static void test_record_hostile(void **state)
{
	struct pf_qpv_rec r = {
		.link_layer = IBV_LINK_LAYER_INFINIBAND, .mtu = IBV_MTU_4096, .lid = 0x11,
		.qpn = 0x100, .psn = 1, .rkey = 1, .addr = 0x1000, .slot_stride = 64, .slots = 2,
	}, d;
	uint8_t w[PF_QPV_REC_LEN], big[PF_QPV_REC_LEN + 1] = { 0 };
	pf_autofree char *err = NULL;

	(void)state;
	pf_qpv_encode(&r, w);
	/* every length but the record's own */
	for (size_t n = 0; n < PF_QPV_REC_LEN; n++) {
		pf_autofree char *e = NULL;

		assert_int_equal(pf_qpv_decode(w, n, &d, &e), -EBADMSG);
		assert_non_null(strstr(e, "too short"));
	}
	memcpy(big, w, sizeof(w));
	assert_int_equal(pf_qpv_decode(big, sizeof(big), &d, &err), -EBADMSG);
	assert_non_null(strstr(err, "too long"));
	expect_bad(w, 0, 'X', "magic");
	expect_bad(w, 4, 2, "version");
	expect_bad(w, 5, 9, "link layer");
	expect_bad(w, 6, 0, "MTU");
	expect_bad(w, 6, 6, "MTU");
	expect_bad(w, 8, 0xc0, "LID");  /* 0xc011: multicast */
	expect_bad(w, 9, 0, "LID");     /* LID 0 */
	expect_bad(w, 10, 1, "reserved");
	expect_bad(w, 60, 1, "reserved");
	expect_bad(w, 12, 1, "QPN");    /* 0x01000100: 25 bits */
	expect_bad(w, 14, 0, "QPN");    /* 0x000000: QP0 */
	expect_bad(w, 16, 1, "PSN");    /* 25 bits */
	expect_bad(w, 35, 0, "slot");   /* stride 0 */
	expect_bad(w, 39, 0, "slot");   /* 0 slots */
	expect_bad(w, 37, 0x10, "slot"); /* 0x100002 slots */
	/* RoCE with an empty GID */
	expect_bad(w, 5, IBV_LINK_LAYER_ETHERNET, "GID");
}

static void test_record_hostile_address(void **state)
{
	struct pf_qpv_rec r = {
		.link_layer = IBV_LINK_LAYER_INFINIBAND, .mtu = IBV_MTU_4096, .lid = 0x11,
		.qpn = 0x100, .psn = 1, .rkey = 1, .addr = 0, .slot_stride = 64, .slots = 2,
	}, d;
	uint8_t w[PF_QPV_REC_LEN];
	pf_autofree char *err = NULL;

	(void)state;
	pf_autofree char *err2 = NULL;

	pf_qpv_encode(&r, w);
	assert_int_equal(pf_qpv_decode(w, sizeof(w), &d, &err), -EBADMSG);
	assert_non_null(strstr(err, "address 0"));
	/* slots that run past the end of the address space */
	r.addr = UINT64_MAX - 100;
	pf_qpv_encode(&r, w);
	assert_int_equal(pf_qpv_decode(w, sizeof(w), &d, &err2), -EBADMSG);
	assert_non_null(strstr(err2, "address space"));
}

static void gid_v4(union ibv_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[10] = g->raw[11] = 0xff;
	g->raw[12] = 10;
	g->raw[15] = last;
}

static void gid_ll(union ibv_gid *g, uint8_t last)
{
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xfe;
	g->raw[1] = 0x80;
	g->raw[15] = last;
}

static void test_pick_gid(void **state)
{
	struct pf_qpv_gid t[6] = { 0 };
	int i = -1;

	(void)state;
	gid_ll(&t[0].gid, 1);
	t[0].roce_version = 1;
	gid_ll(&t[1].gid, 1);
	t[1].roce_version = 2;
	gid_v4(&t[2].gid, 1);
	t[2].roce_version = 1;
	gid_v4(&t[3].gid, 1);
	t[3].roce_version = 2;
	/* the RoCE v2 IPv4-mapped entry, as NCCL */
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &i), 0);
	assert_int_equal(i, 3);
	/* NCCL_IB_GID_INDEX wins; empty is unset; a bad one is refused */
	assert_int_equal(pf_qpv_pick_gid(t, 4, "1", &i), 0);
	assert_int_equal(i, 1);
	assert_int_equal(pf_qpv_pick_gid(t, 4, "", &i), 0);
	assert_int_equal(i, 3);
	assert_int_equal(pf_qpv_pick_gid(t, 4, "4", &i), -EINVAL);
	assert_int_equal(pf_qpv_pick_gid(t, 4, "-1", &i), -EINVAL);
	assert_int_equal(pf_qpv_pick_gid(t, 4, "2x", &i), -EINVAL);
	/* only a RoCE v1 IPv4 entry: that one */
	t[3].roce_version = 1;
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &i), 0);
	assert_int_equal(i, 2);
	/* addresses removed: the link-local GID at 0, as NCCL keeps it */
	memset(&t[2], 0, sizeof(t[2]) * 2);
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &i), 0);
	assert_int_equal(i, 0);
	/* 0 empty: the first configured RoCE v2 entry */
	memset(&t[0], 0, sizeof(t[0]));
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &i), 0);
	assert_int_equal(i, 1);
	/* nothing configured (a bare fe80:: prefix is an empty slot) */
	memset(&t[1].gid.raw[2], 0, 14);
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &i), -EADDRNOTAVAIL);
}

static void test_ib_lid(void **state)
{
	struct end a, b;
	struct pf_qpv_rec peer[2];

	(void)state;
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_INFINIBAND);
	open_end(&a, 0, 0x111, 0);
	open_end(&b, 1, 0x222, 0);
	assert_int_equal(swap(&a, &b, peer), 0);
	assert_int_equal(peer[0].lid, 0x12);
	assert_int_equal(peer[1].qpn, a.qp->qp_num);
	connect_both(&a, &b, &peer[0], &peer[1]);
	/* b's RTR (the last): by LID, no GRH on one subnet, a's PSN expected */
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.dlid, 0x11);
	assert_int_equal(pf_fake_verbs.rtr.rq_psn, 0x111);
	assert_int_equal(pf_fake_verbs.rtr.dest_qp_num, a.qp->qp_num);
	assert_int_equal(pf_fake_verbs.rtr.min_rnr_timer, 12);
	assert_int_equal(write_one(&a, &b), IBV_WC_SUCCESS);
	assert_memory_equal(b.buf + BUF / SLOTS, a.buf, 64);
	close_end(&a);
	close_end(&b);
	assert_int_equal(pf_fake_verbs.live, 0);
}

static void test_ib_other_subnet_grh(void **state)
{
	struct end a, b;
	struct pf_qpv_rec peer[2];

	(void)state;
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_INFINIBAND);
	/* device 1 in subnet fec0:0:0:1::/64 */
	pf_fake_verbs.devs[1].gid[0].raw[1] = 0xc0;
	pf_fake_verbs.devs[1].gid[0].raw[7] = 1;
	open_end(&a, 0, 5, 0);
	open_end(&b, 1, 6, 0);
	assert_int_equal(swap(&a, &b, peer), 0);
	connect_both(&a, &b, &peer[0], &peer[1]);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 1);
	assert_memory_equal(&pf_fake_verbs.rtr.ah_attr.grh.dgid, &pf_fake_verbs.devs[0].gid[0],
			    sizeof(union ibv_gid));
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.hop_limit, 0xff);
	assert_int_equal(write_one(&a, &b), IBV_WC_SUCCESS);
	close_end(&a);
	close_end(&b);
}

/* RoCE with the rails' IPv4 addresses gone: the link-local GID at 0, as NCCL picks it. */
static void test_roce_link_local(void **state)
{
	struct pf_qpv_gid t[4];
	struct end a, b;
	struct pf_qpv_rec peer[2];
	int gidx = -1;

	(void)state;
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_ETHERNET);
	for (int d = 0; d < 2; d++)
		memset(&pf_fake_verbs.devs[d].gid[2], 0, 2 * sizeof(union ibv_gid));
	for (int k = 0; k < 4; k++)
		t[k] = (struct pf_qpv_gid){ pf_fake_verbs.devs[0].gid[k],
					    pf_fake_verbs.devs[0].gid_version[k] };
	assert_int_equal(pf_qpv_pick_gid(t, 4, NULL, &gidx), 0);
	assert_int_equal(gidx, 0);
	open_end(&a, 0, 1, gidx);
	open_end(&b, 1, 2, gidx);
	assert_int_equal(swap(&a, &b, peer), 0);
	connect_both(&a, &b, &peer[0], &peer[1]);
	assert_int_equal(pf_fake_verbs.n_refused, 0);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, 1);
	assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 0);
	assert_int_equal(write_one(&a, &b), IBV_WC_SUCCESS);
	assert_int_equal(write_one(&b, &a), IBV_WC_SUCCESS);
	close_end(&a);
	close_end(&b);
}

static void test_mtu_min(void **state)
{
	struct end a, b;
	struct pf_qpv_rec peer[2];
	pf_autofree char *err = NULL;

	(void)state;
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_INFINIBAND);
	pf_fake_verbs.devs[1].active_mtu = IBV_MTU_1024;
	open_end(&a, 0, 1, 0);
	open_end(&b, 1, 2, 0);
	assert_int_equal(swap(&a, &b, peer), 0);
	assert_int_equal(peer[0].mtu, IBV_MTU_1024);
	assert_int_equal(pf_qpv_rtr_rts(api, a.qp, 1, &a.rec, &peer[0], &err), 0);
	assert_int_equal(pf_fake_verbs.rtr.path_mtu, IBV_MTU_1024);
	assert_int_equal(pf_qpv_rtr_rts(api, b.qp, 1, &b.rec, &peer[1], &err), 0);
	assert_int_equal(pf_fake_verbs.rtr.path_mtu, IBV_MTU_1024);
	assert_int_equal(pf_qpv_path_mtu(IBV_MTU_4096, IBV_MTU_2048), IBV_MTU_2048);
	close_end(&a);
	close_end(&b);
}

/* A peer that sends a QPN or PSN other than its own: the WRITE fails, it never hangs. */
static void test_wrong_qpn_psn(void **state)
{
	struct end a, b;
	struct pf_qpv_rec peer[2];

	(void)state;
	for (int which = 0; which < 2; which++) {
		pf_fake_verbs_reset(2, IBV_LINK_LAYER_INFINIBAND);
		open_end(&a, 0, 0x10, 0);
		open_end(&b, 1, 0x20, 0);
		assert_int_equal(swap(&a, &b, peer), 0);
		if (which == 0)
			peer[0].qpn = (peer[0].qpn + 100) & PF_QPV_24BITS; /* b lied about its QPN */
		else
			peer[1].psn = (peer[1].psn + 1) & PF_QPV_24BITS; /* a's PSN, wrong at b */
		connect_both(&a, &b, &peer[0], &peer[1]);
		assert_int_equal(write_one(&a, &b), IBV_WC_RETRY_EXC_ERR);
		close_end(&a);
		close_end(&b);
		assert_int_equal(pf_fake_verbs.live, 0);
	}
}

static void test_peer_vanishes(void **state)
{
	struct pf_qpv_rec me = {
		.link_layer = IBV_LINK_LAYER_INFINIBAND, .mtu = IBV_MTU_4096, .lid = 1,
		.qpn = 0x100, .psn = 1, .addr = 0x1000, .slot_stride = 64, .slots = 2,
	}, peer;
	struct pf_qpv_pair pair = { 0 };
	struct pf_qpv_chan c0 = pf_qpv_pair_chan(&pair, 0), c1 = pf_qpv_pair_chan(&pair, 1);
	pf_autofree char *e1 = NULL, *e2 = NULL, *e3 = NULL, *e4 = NULL, *e5 = NULL;

	(void)state;
	/* the peer never sends: bounded by the deadline */
	assert_int_equal(pf_qpv_exchange(&c0, &me, 50, &peer, &e1), -ETIMEDOUT);
	assert_non_null(strstr(e1, "within 50 ms"));
	/* the peer went away mid-exchange: its end closed */
	pair.box[0].closed = true;
	assert_int_equal(pf_qpv_recv(&c0, &me, 50, &peer, &e2), -ECONNRESET);
	assert_non_null(strstr(e2, "went away"));
	assert_int_equal(pf_qpv_send(&c1, &me, &e3), -ECONNRESET);
	assert_non_null(e3);
	/* a record of another slot layout */
	pair = (struct pf_qpv_pair){ 0 };
	me.slots = 4;
	assert_int_equal(pf_qpv_send(&c1, &me, &e4), 0);
	me.slots = 2;
	assert_int_equal(pf_qpv_recv(&c0, &me, 50, &peer, &e5), -EBADMSG);
	assert_non_null(strstr(e5, "slot layout"));
}

static void test_link_layers_differ(void **state)
{
	struct pf_qpv_rec me = { .link_layer = IBV_LINK_LAYER_INFINIBAND, .mtu = IBV_MTU_4096 };
	struct pf_qpv_rec peer = { .link_layer = IBV_LINK_LAYER_ETHERNET, .mtu = IBV_MTU_4096 };
	struct end a;
	pf_autofree char *err = NULL;

	(void)state;
	pf_fake_verbs_reset(1, IBV_LINK_LAYER_INFINIBAND);
	open_end(&a, 0, 1, 0);
	assert_int_equal(pf_qpv_rtr_rts(api, a.qp, 1, &me, &peer, &err), -EPROTO);
	assert_non_null(strstr(err, "RoCE"));
	close_end(&a);
}

/* The fake answers as libibverbs and the kernel do, errno for errno. */
static void test_fake_errnos(void **state)
{
	struct end a;
	struct ibv_port_attr pa;
	union ibv_gid g;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RTR };
	pf_autofree char *err = NULL;

	(void)state;
	pf_fake_verbs_reset(1, IBV_LINK_LAYER_ETHERNET);
	open_end(&a, 0, 1, 3);
	assert_int_equal(api->query_port(a.ctx, 2, &pa), EINVAL);
	errno = 0;
	assert_int_equal(api->query_gid(a.ctx, 1, 4, &g), -1);
	assert_int_equal(errno, EINVAL);
	/* an empty entry: 0 and an all-zero GID */
	memset(&pf_fake_verbs.devs[0].gid[2], 0, sizeof(g));
	memset(&g, 0xaa, sizeof(g));
	assert_int_equal(api->query_gid(a.ctx, 1, 2, &g), 0);
	assert_false(pf_qpv_gid_configured(&g));
	/* an attribute INIT->RTR does not take (SQ PSN): EINVAL, the state kept */
	assert_int_equal(api->modify_qp(a.qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
					IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER |
					IBV_QP_SQ_PSN), EINVAL);
	assert_int_equal(a.qp->state, IBV_QPS_INIT);
	/* RTR whose source GID is the empty slot: refused, the error names the step */
	a.rec.gid_index = 2;
	assert_int_equal(pf_qpv_rtr_rts(api, a.qp, 1, &a.rec, &a.rec, &err), -EINVAL);
	assert_non_null(err);
	close_end(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_roundtrip),
		cmocka_unit_test(test_record_hostile),
		cmocka_unit_test(test_record_hostile_address),
		cmocka_unit_test(test_pick_gid),
		cmocka_unit_test(test_ib_lid),
		cmocka_unit_test(test_ib_other_subnet_grh),
		cmocka_unit_test(test_roce_link_local),
		cmocka_unit_test(test_mtu_min),
		cmocka_unit_test(test_wrong_qpn_psn),
		cmocka_unit_test(test_peer_vanishes),
		cmocka_unit_test(test_link_layers_differ),
		cmocka_unit_test(test_fake_errnos),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
