// SPDX-License-Identifier: MIT
/*
 * test_fabric_peer.c - the cross-node fabric engine (src/traffic/fabric_peer.c)
 * with two threads as two nodes over the fake verbs devices and the fake
 * RDMA-CM (tests/lib/): a listener on one rail, a writer on another.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fake_gpu.h"
#include "fake_rdmacm.h"
#include "fake_verbs.h"
#include "preflight/fabric_peer.h"
#include "testutil.h"

struct node {
	struct pf_fabp_opts o;
	struct pf_fab_result r;
	int rc;
	unsigned int delay_ms; /* the listener starts this late */
	pthread_t t;
};

static void opts_for(struct pf_fabp_opts *o, int src, int dst, uint32_t round, uint32_t rank)
{
	pf_fabp_opts_default(o);
	o->fab.api = &pf_fake_verbs_api;
	o->fab.cm = &pf_fake_rdmacm_api;
	o->fab.src.dev = pf_fake_verbs.devs[src].name;
	o->fab.dst.dev = pf_fake_verbs.devs[dst].name;
	snprintf(o->fab.src.ip, sizeof(o->fab.src.ip), "10.10.0.%d", src + 1);
	snprintf(o->fab.dst.ip, sizeof(o->fab.dst.ip), "10.10.0.%d", dst + 1);
	o->fab.msg_size = 65536;
	o->fab.slots = 8;
	o->fab.warmup = 20;
	o->fab.duration_ms = 50;
	o->fab.timeout_ms = 100;
	o->fab.resolve_timeout_ms = 200;
	o->port = 18515;
	o->round = round;
	o->src = rank;
	o->connect_ms = 2000;
	o->linger_ms = 2000;
	o->retry_ms = 20;
}

static void *listener_main(void *arg)
{
	struct node *n = arg;

	if (n->delay_ms)
		nanosleep(&(struct timespec){ .tv_nsec = (long)n->delay_ms * 1000000 }, NULL);
	n->rc = pf_fabp_listen(&n->o, &n->r);
	return NULL;
}

static void start(struct node *n)
{
	assert_int_equal(pthread_create(&n->t, NULL, listener_main, n), 0);
}

static void reset(void)
{
	pf_fake_verbs_reset(2, IBV_LINK_LAYER_ETHERNET);
	pf_fake_rdmacm_reset(2);
}

static void assert_clean(void)
{
	assert_int_equal(pf_fake_verbs.live, 0);
	assert_int_equal(pf_fake_rdmacm.live_ids, 0);
	assert_int_equal(pf_fake_rdmacm.live_channels, 0);
	if (pf_fake_rdmacm.misuse)
		fail_msg("misuse: %s", pf_fake_rdmacm.misuse_why);
}

/* Node A's rail 0 writes to node B's rail 1; the data checked by READ; both end clean. */
static void test_write_and_read_back(void **state)
{
	struct node lst = { 0 };
	struct pf_fabp_opts w;
	struct pf_fab_result r;

	reset();
	pf_fake_verbs.devs[0].gbps = pf_fake_verbs.devs[1].gbps = 100;
	opts_for(&lst.o, 0, 1, 3, 0);
	opts_for(&w, 0, 1, 3, 0);
	start(&lst);
	if (pf_fabp_write(&w, &r))
		fail_msg("writer: %s", r.err);
	pthread_join(lst.t, NULL);
	if (lst.rc)
		fail_msg("listener: %s", lst.r.err);
	assert_int_equal(r.stage, PF_FAB_DONE);
	assert_int_equal(lst.r.stage, PF_FAB_DONE);
	assert_float_equal(r.gbps, 100, 1);
	assert_true(r.bytes > 0 && r.seconds >= 0.05);
	assert_int_equal(r.slots, 8);
	assert_string_equal(r.bound[0], "mlx5_0");
	assert_string_equal(lst.r.bound[1], "mlx5_1");
	assert_int_equal(pf_fake_rdmacm.n_established, 1);
	/* writes: warm-up + timed + one per slot; reads: the written slots twice */
	assert_true(pf_fake_verbs.wrs >= 20 + r.iterations + 8 + 16);
	assert_clean();
}

/*
 * A run cut at its time budget (fab.max_ms): measured over what completed,
 * nothing READ back (the writer's QP is in ERR), the note says so.
 */
static void test_cut_short_not_read_back(void **state)
{
	struct node lst = { 0 };
	struct pf_fabp_opts w;
	struct pf_fab_result r;

	reset();
	pf_fake_verbs.devs[0].gbps = pf_fake_verbs.devs[1].gbps = 0.1;
	opts_for(&lst.o, 0, 1, 3, 0);
	opts_for(&w, 0, 1, 3, 0);
	/* 5000 x 64 KiB at 0.1 Gb/s is 26 s: cut at 1 s */
	w.fab.duration_ms = 0;
	w.fab.warmup = 0;
	w.fab.iterations = 5000;
	w.fab.max_ms = 1000;
	w.fab.cq_mod = 8;
	w.fab.timeout_ms = 1000;
	start(&lst);
	if (pf_fabp_write(&w, &r))
		fail_msg("writer: %s", r.err);
	pthread_join(lst.t, NULL);
	if (lst.rc)
		fail_msg("listener: %s", lst.r.err);
	assert_int_equal(r.stage, PF_FAB_DONE);
	assert_true(r.cut_short);
	assert_float_equal(r.gbps, 0.1, 0.01);
	assert_in_range(r.iterations, 150, 200);
	assert_non_null(strstr(r.note, "cut short"));
	assert_non_null(strstr(r.note, "pass 1 not read back"));
	/* no READ posted: the fake refuses a post on a QP out of RTS (-EIO) */
	assert_true(pf_fake_verbs.wrs <= r.iterations + w.fab.tx_depth);
	assert_clean();
}

/* The writer starts first: refused (nobody listening) until the listener is up. */
static void test_writer_retries_until_listening(void **state)
{
	struct node lst = { .delay_ms = 300 };
	struct pf_fabp_opts w;
	struct pf_fab_result r;

	reset();
	opts_for(&lst.o, 1, 0, 1, 1);
	opts_for(&w, 1, 0, 1, 1);
	start(&lst);
	if (pf_fabp_write(&w, &r))
		fail_msg("writer: %s", r.err);
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, 0);
	assert_true(pf_fake_rdmacm.n_connects > 1);
	assert_int_equal(pf_fake_rdmacm.n_established, 1);
	assert_clean();
}

/* Corruption on the wire into the listener's rail: the READ back finds it. */
static void test_data_mismatch(void **state)
{
	struct node lst = { 0 };
	struct pf_fabp_opts w;
	struct pf_fab_result r;

	reset();
	pf_fake_verbs.devs[1].corrupt = true;
	opts_for(&lst.o, 0, 1, 2, 0);
	opts_for(&w, 0, 1, 2, 0);
	start(&lst);
	assert_int_equal(pf_fabp_write(&w, &r), -EBADMSG);
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, 0); /* the writer disconnected after its verdict */
	assert_int_equal(r.stage, PF_FAB_VERIFY);
	assert_int_equal(r.bad_pass, 1);
	assert_int_equal(r.bad_offset, 65536 / 2);
	assert_non_null(strstr(r.err, "differs from the source"));
	assert_clean();

	/* one slot only, in pass 2's fresh patterns: the first pass's leftovers are not taken */
	reset();
	pf_fake_verbs.corrupt_mr_offset = 3 * 65536 + 7;
	opts_for(&lst.o, 0, 1, 2, 0);
	opts_for(&w, 0, 1, 2, 0);
	w.fab.warmup = 0;
	start(&lst);
	assert_int_equal(pf_fabp_write(&w, &r), -EBADMSG);
	pthread_join(lst.t, NULL);
	assert_int_equal(r.bad_slot, 3);
	assert_int_equal(r.bad_offset, 7);
	assert_clean();
}

/* Nobody ever listens: the writer gives up at its deadline, saying why. */
static void test_partner_never_listening(void **state)
{
	struct pf_fabp_opts w;
	struct pf_fab_result r;
	double t0;

	reset();
	opts_for(&w, 0, 1, 1, 0);
	w.connect_ms = 400;
	t0 = pf_now_ms();
	assert_int_equal(pf_fabp_write(&w, &r), -ETIMEDOUT);
	assert_true(pf_now_ms() - t0 < 1500);
	assert_int_equal(r.stage, PF_FAB_CONNECT);
	assert_true(pf_fake_rdmacm.n_connects >= 3);
	assert_non_null(strstr(r.err, "within 400 ms"));
	assert_non_null(strstr(r.err, "nobody listening"));
	assert_clean();

	/* the same, the partner's address never answering ARP */
	reset();
	pf_fake_rdmacm.ports[1].arp_timeout = true;
	opts_for(&w, 0, 1, 1, 0);
	w.connect_ms = 300;
	w.fab.resolve_timeout_ms = 50;
	assert_int_equal(pf_fabp_write(&w, &r), -ETIMEDOUT);
	assert_non_null(strstr(r.err, "RDMA_CM_EVENT_ADDR_ERROR"));
	assert_clean();

	/* a listener nobody connects to: bounded too */
	struct node lst = { 0 };

	reset();
	opts_for(&lst.o, 0, 1, 1, 0);
	lst.o.connect_ms = 300;
	t0 = pf_now_ms();
	start(&lst);
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, -ETIMEDOUT);
	assert_true(pf_now_ms() - t0 < 1500);
	assert_non_null(strstr(lst.r.err, "no connection from rank 0"));
	assert_clean();
}

/* A writer with another tag is rejected; the listener keeps waiting for its own. */
static void test_wrong_tag_rejected(void **state)
{
	struct node lst = { 0 };
	struct pf_fabp_opts w;
	struct pf_fab_result r;

	reset();
	opts_for(&lst.o, 0, 1, 4, 2); /* expects round 4 from rank 2 */
	lst.o.connect_ms = 1500;
	opts_for(&w, 0, 1, 4, 7);     /* rank 7 */
	start(&lst);
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	assert_int_equal(pf_fabp_write(&w, &r), -ECONNREFUSED);
	assert_int_equal(r.cm_event, PF_CM_EVENT_REJECTED);
	assert_int_equal(r.cm_status, PF_CM_REJ_CONSUMER_DEFINED);
	assert_non_null(strstr(r.err, "expects round 4 from rank 2"));
	/* the right writer still gets in */
	opts_for(&w, 0, 1, 4, 2);
	if (pf_fabp_write(&w, &r))
		fail_msg("writer: %s", r.err);
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, 0);
	assert_non_null(strstr(lst.r.note, "rejected a request tagged round 4 from rank 7"));
	assert_clean();

	/* a writer a round ahead waits for the listener to get there: here it never does */
	reset();
	opts_for(&lst.o, 0, 1, 4, 2);
	lst.o.connect_ms = 600;
	opts_for(&w, 0, 1, 5, 2);
	w.connect_ms = 400;
	start(&lst);
	assert_int_equal(pf_fabp_write(&w, &r), -ETIMEDOUT);
	assert_non_null(strstr(r.err, "earlier round"));
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, -ETIMEDOUT);
	assert_clean();
}

/* The fake RDMA-CM's private data as librdmacm's: sizes, padding, reject reason. */
static void test_fake_private_data(void **state)
{
	struct pf_cm_channel *ch;
	struct pf_cm_id *id;
	uint8_t big[PF_CM_REQ_PRIVATE_MAX + 1] = { 0 };
	struct pf_cm_conn_param p = { .private_data = big, .private_data_len = sizeof(big) };

	reset();
	ch = pf_fake_rdmacm_api.create_event_channel();
	assert_int_equal(pf_fake_rdmacm_api.create_id(ch, &id, NULL, PF_RDMA_PS_TCP), 0);
	/* a connect before the route and a reject of an id that is no request: EINVAL */
	errno = 0;
	assert_int_equal(pf_fake_rdmacm_api.connect(id, &p), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(pf_fake_rdmacm_api.reject(id, NULL, 0), -1);
	assert_int_equal(errno, EINVAL);
	pf_fake_rdmacm_api.destroy_id(id);
	pf_fake_rdmacm_api.destroy_event_channel(ch);
	assert_clean();
}

/* ---- the verbs way: records over a test channel (the mesh's is its rendezvous) ---- */

/*
 * Two ends' mailboxes: end i's record goes to box[1 - i]; a recv waits for
 * its box (the other thread sends); @tamper rewrites what end 0 sends
 * before end 1 reads it (a hostile or broken peer); @silent: end 0 never
 * sends (a peer that vanished).
 */
struct vchan {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint8_t box[2][128];
	size_t len[2];
	bool full[2], ready[2], done, silent;
	void (*tamper)(uint8_t *rec, size_t len);
	struct pf_fabp_chan end[2];
};

struct vend {
	struct vchan *c;
	int i;
};

static struct vend vends[2];

static int vc_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct vend *e = ctx;
	struct vchan *c = e->c;

	if (c->silent && e->i == 0)
		return 0;
	pthread_mutex_lock(&c->lock);
	memcpy(c->box[1 - e->i], buf, len);
	c->len[1 - e->i] = len;
	if (e->i == 0 && c->tamper)
		c->tamper(c->box[1], len);
	c->full[1 - e->i] = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return 0;
}

/* With c->lock held: wait until @cond(@c, @i) or @ms pass (polling, as the flows do); its value. */
static bool vc_wait(struct vchan *c, int i, bool (*cond)(const struct vchan *, int), int ms)
{
	uint64_t until = pf_now_ns() + (uint64_t)ms * 1000000u;

	while (!cond(c, i) && pf_now_ns() < until) {
		pthread_mutex_unlock(&c->lock);
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
		pthread_mutex_lock(&c->lock);
	}
	return cond(c, i);
}

static bool box_full(const struct vchan *c, int i)
{
	return c->full[i];
}

static bool both_ready(const struct vchan *c, int i)
{
	(void)i;
	return c->ready[0] && c->ready[1];
}

static bool writer_done(const struct vchan *c, int i)
{
	(void)i;
	return c->done;
}

static long vc_recv(void *ctx, uint8_t *buf, size_t cap, int ms)
{
	struct vend *e = ctx;
	struct vchan *c = e->c;
	long r;

	pthread_mutex_lock(&c->lock);
	if (!vc_wait(c, e->i, box_full, ms))
		r = c->silent ? -ECONNRESET : -ETIMEDOUT;
	else if (c->len[e->i] > cap)
		r = -EMSGSIZE;
	else {
		memcpy(buf, c->box[e->i], c->len[e->i]);
		r = (long)c->len[e->i];
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* Both ends at RTS, as perftest's handshake; the silent end never is. */
static int vc_ready(void *ctx, int ms)
{
	struct vend *e = ctx;
	bool both;

	pthread_mutex_lock(&e->c->lock);
	e->c->ready[e->i] = true;
	both = vc_wait(e->c, e->i, both_ready, ms);
	pthread_mutex_unlock(&e->c->lock);
	return both ? 0 : -ETIMEDOUT;
}

static int vc_done(void *ctx, int ms)
{
	struct vend *e = ctx;
	bool done;

	pthread_mutex_lock(&e->c->lock);
	done = vc_wait(e->c, e->i, writer_done, ms);
	pthread_mutex_unlock(&e->c->lock);
	return done ? 0 : -ETIMEDOUT;
}

static void vchan_init(struct vchan *c)
{
	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	for (int i = 0; i < 2; i++) {
		vends[i] = (struct vend){ .c = c, .i = i };
		c->end[i] = (struct pf_fabp_chan){ .ctx = &vends[i], .send = vc_send,
						   .recv = vc_recv, .ready = vc_ready,
						   .done = vc_done };
	}
}

/* Writer (end 0, mlx5_0) and listener (end 1, mlx5_1) over @c; the writer's rc. */
static int verbs_pair(struct vchan *c, struct node *lst, struct pf_fab_result *r)
{
	struct pf_fabp_opts w;
	int rc;

	opts_for(&lst->o, 0, 1, 1, 0);
	opts_for(&w, 0, 1, 1, 0);
	/* no address at all: the records are the only way to reach the peer */
	lst->o.fab.src.ip[0] = lst->o.fab.dst.ip[0] = w.fab.src.ip[0] = w.fab.dst.ip[0] = '\0';
	lst->o.fab.cm = w.fab.cm = NULL;
	lst->o.port = w.port = 0;
	lst->o.fab.dst.gid_index = w.fab.src.gid_index = 3;
	/* generous: a loaded machine; the done signal ends the listener's wait anyway */
	lst->o.connect_ms = w.connect_ms = 1000;
	lst->o.linger_ms = 10000;
	w.chan = &c->end[0];
	lst->o.chan = &c->end[1];
	start(lst);
	rc = pf_fabp_write(&w, r);
	pthread_mutex_lock(&c->lock);
	c->done = true;
	pthread_mutex_unlock(&c->lock);
	pthread_join(lst->t, NULL);
	return rc;
}

static void test_verbs_write_and_read_back(void **state)
{
	struct vchan c;
	struct node lst = { 0 };
	struct pf_fab_result r;

	for (int ll = 0; ll < 2; ll++) {
		pf_fake_verbs_reset(2, ll ? IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET);
		pf_fake_rdmacm_reset(2);
		pf_fake_verbs.devs[0].gbps = pf_fake_verbs.devs[1].gbps = 100;
		vchan_init(&c);
		memset(&lst, 0, sizeof(lst));
		if (verbs_pair(&c, &lst, &r))
			fail_msg("writer: %s; listener: %s", r.err, lst.r.err);
		if (lst.rc)
			fail_msg("listener: %s", lst.r.err);
		assert_int_equal(r.stage, PF_FAB_DONE);
		assert_int_equal(lst.r.stage, PF_FAB_DONE);
		assert_float_equal(r.gbps, 100, 1);
		assert_int_equal(r.mtu, 4096);
		/* IB by LID, no GRH in one subnet; RoCE by the GID at index 3 */
		assert_int_equal(pf_fake_verbs.rtr.ah_attr.is_global, ll ? 0 : 1);
		if (!ll)
			assert_int_equal(pf_fake_verbs.rtr.ah_attr.grh.sgid_index, 3);
		assert_int_equal(pf_fake_rdmacm.n_resolves, 0);
		assert_true(pf_fake_verbs.wrs >= 20 + r.iterations + 8 + 16);
		assert_clean();
	}
}

static void wrong_qpn(uint8_t *rec, size_t len)
{
	assert_true(len >= 16);
	rec[15] ^= 0x01; /* the QPN's low byte (qp_verbs.c's wire layout: QPN at 12) */
}

static void bad_magic(uint8_t *rec, size_t len)
{
	(void)len;
	rec[0] ^= 0xff;
}

/* A record naming another QP: the WRITEs go nowhere; an error, never a hang. */
static void test_verbs_wrong_qpn(void **state)
{
	struct vchan c;
	struct node lst = { 0 };
	struct pf_fab_result r;
	uint64_t t0;

	reset();
	vchan_init(&c);
	c.tamper = wrong_qpn;
	t0 = pf_now_ns();
	assert_true(verbs_pair(&c, &lst, &r) < 0);
	assert_true(pf_now_ns() - t0 < 5000000000ull);
	assert_true(r.stage == PF_FAB_TRANSFER || r.stage == PF_FAB_CONNECT);
	assert_true(r.err[0]);
	assert_clean();
}

/* Bytes that are no record: refused by the listener, named. */
static void test_verbs_hostile_record(void **state)
{
	struct vchan c;
	struct node lst = { 0 };
	struct pf_fab_result r;

	reset();
	vchan_init(&c);
	c.tamper = bad_magic;
	(void)verbs_pair(&c, &lst, &r);
	assert_int_equal(lst.rc, -EBADMSG);
	assert_int_equal(lst.r.stage, PF_FAB_CONNECT);
	assert_non_null(strstr(lst.r.err, "mlx5_1/1"));
	assert_clean();
}

/* The peer never sends its record: each end says so within its deadline. */
static void test_verbs_peer_vanished(void **state)
{
	struct vchan c;
	struct node lst = { 0 };
	struct pf_fab_result r;

	reset();
	vchan_init(&c);
	c.silent = true;
	(void)verbs_pair(&c, &lst, &r);
	assert_int_equal(lst.rc, -ECONNRESET);
	assert_non_null(strstr(lst.r.err, "went away"));
	assert_clean();
}

/* --use-gpu auto: GPU memory nothing can register falls back to host memory, with a note. */
static void test_verbs_gpu_host_fallback(void **state)
{
	static const char *const bdfs[] = { "0000:17:00.0", NULL };
	struct vchan c;
	struct node lst = { 0 };
	struct pf_fab_result r;
	struct pf_fabp_opts w;

	reset();
	pf_fake_gpu_reset(1, bdfs);
	pf_fake_verbs.peermem = pf_fake_verbs.dmabuf = false;
	vchan_init(&c);
	opts_for(&lst.o, 0, 1, 1, 0);
	opts_for(&w, 0, 1, 1, 0);
	lst.o.fab.cm = w.fab.cm = NULL;
	lst.o.fab.dst.gid_index = w.fab.src.gid_index = 3;
	lst.o.linger_ms = 10000;
	w.chan = &c.end[0];
	lst.o.chan = &c.end[1];
	w.fab.src.mem = PF_LB_GPU;
	w.fab.src.gpu = 0;
	w.fab.cu = pf_fake_verbs_cuda();
	w.fab.export_dmabuf = pf_fake_export_dmabuf;
	w.fab.src.host_fallback = true;
	start(&lst);
	if (pf_fabp_write(&w, &r))
		fail_msg("writer: %s", r.err);
	pthread_mutex_lock(&c.lock);
	c.done = true;
	pthread_mutex_unlock(&c.lock);
	pthread_join(lst.t, NULL);
	assert_int_equal(lst.rc, 0);
	assert_string_equal(r.reg[0], "host");
	pf_test_assert_contains(r.note, "mlx5_0: GPU memory not usable for RDMA, host memory "
				"instead");
	pf_test_assert_contains(r.note, "ibv_reg_dmabuf_mr");
	assert_clean();

	/* on (no fallback): the flow fails at its memory, naming why */
	reset();
	pf_fake_gpu_reset(1, bdfs);
	pf_fake_verbs.peermem = pf_fake_verbs.dmabuf = false;
	vchan_init(&c);
	w.fab.src.host_fallback = false;
	start(&lst);
	assert_true(pf_fabp_write(&w, &r) < 0);
	assert_int_equal(r.stage, PF_FAB_MEMORY);
	pf_test_assert_contains(r.err, "GPU memory cannot be registered");
	pthread_mutex_lock(&c.lock);
	c.done = true;
	pthread_mutex_unlock(&c.lock);
	pthread_join(lst.t, NULL);
	assert_clean();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_and_read_back),
		cmocka_unit_test(test_cut_short_not_read_back),
		cmocka_unit_test(test_writer_retries_until_listening),
		cmocka_unit_test(test_data_mismatch),
		cmocka_unit_test(test_partner_never_listening),
		cmocka_unit_test(test_wrong_tag_rejected),
		cmocka_unit_test(test_fake_private_data),
		cmocka_unit_test(test_verbs_write_and_read_back),
		cmocka_unit_test(test_verbs_wrong_qpn),
		cmocka_unit_test(test_verbs_hostile_record),
		cmocka_unit_test(test_verbs_peer_vanished),
		cmocka_unit_test(test_verbs_gpu_host_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
