// SPDX-License-Identifier: MIT
/*
 * fabric_peer.c - the fabric engine with one end per node
 * (include/preflight/fabric_peer.h): a flow of the engine (engine.h) of
 * which this process holds one side, connected over RDMA-CM with a tagged
 * handshake in the private data, or (opts.chan) with plain verbs and
 * exchange records over the caller's channel (connect_peer.c); checked by
 * RDMA READ back.
 *
 * RDMA-CM as rdma-core's rping/cmtime: one event channel per side, every
 * event acked before its id goes.  The writer keeps an "anchor" id bound
 * to its rail's address for the whole flow: librdmacm shares one verbs
 * context per device among ids and closes it with the last one
 * (ucma_put_device), and the PD, CQ and buffers outlive the connecting ids
 * of failed attempts.  Private data as the kernel delivers it (the whole
 * CM field, zero-padded): read by magic and kind, never by length.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "preflight/fabric_peer.h"

#define PEER_MAGIC 0x50464d31u /* "PFM1" */
#define MSG_REQ 'Q'
#define MSG_REP 'P'
#define MSG_REJ 'J'
#define REQ_LEN 20
#define REP_LEN 36
#define REJ_LEN 20
#define WHY_TAG 1   /* reject: another round or source */
#define WHY_SIZE 2  /* reject: a message size that does not fit the slots */
#define MS 1000000ull

void pf_fabp_opts_default(struct pf_fabp_opts *o)
{
	*o = (struct pf_fabp_opts){ .connect_ms = 10000, .linger_ms = 30000, .retry_ms = 100 };
	pf_fab_opts_default(&o->fab);
}

/* ---- private data ------------------------------------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* "PFM1", kind, then three words. */
static void msg_head(uint8_t *p, char kind, uint32_t a, uint32_t b, uint32_t c)
{
	put32(p, PEER_MAGIC);
	put32(p + 4, (uint32_t)(uint8_t)kind);
	put32(p + 8, a);
	put32(p + 12, b);
	put32(p + 16, c);
}

/* The words of a message of @kind and @len bytes, or NULL. */
static const uint8_t *msg_of(const struct pf_cm_event *ev, char kind, size_t len)
{
	const uint8_t *p = ev->param.conn.private_data;

	if (!p || ev->param.conn.private_data_len < len || get32(p) != PEER_MAGIC ||
	    get32(p + 4) != (uint32_t)(uint8_t)kind)
		return NULL;
	return p;
}

static uint64_t left_ms(uint64_t deadline_ns)
{
	uint64_t now = pf_now_ns();

	return now >= deadline_ns ? 0 : (deadline_ns - now + MS - 1) / MS;
}

/* Open the channel and an id bound to @ip:@port (host order) on side @i's device. */
static int bind_side(struct flow *f, int i, uint16_t port, struct pf_cm_id **id)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	const struct pf_fab_end *e = f->s[i].e;
	struct sockaddr_in sa;
	int r;

	if (pf_eng_sockaddr(e->ip, htons(port), &sa))
		return pf_eng_fail(f, PF_FAB_OPEN, -EINVAL, "bad IPv4 address '%s' for %s", e->ip,
				   e->dev);
	errno = 0;
	f->ch = cm->create_event_channel();
	if (!f->ch) {
		r = pf_eng_errno_or(ENODEV);
		return pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_create_event_channel: %s%s",
				   strerror(r), r == ENODEV || r == ENOENT ? " (rdma_ucm not loaded?)"
									   : "");
	}
	if (cm->create_id(f->ch, id, f, PF_RDMA_PS_TCP)) {
		*id = NULL;
		return pf_eng_fail(f, PF_FAB_OPEN, -pf_eng_errno_or(ENOMEM), "rdma_create_id: %s",
				   strerror(pf_eng_errno_or(ENOMEM)));
	}
	if (cm->bind_addr(*id, (struct sockaddr *)&sa)) {
		r = pf_eng_errno_or(EADDRNOTAVAIL);
		return pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_bind_addr(%s:%u) for %s: %s", e->ip,
				   port, e->dev, strerror(r));
	}
	f->s[i].ctx = (*id)->verbs;
	snprintf(f->r->bound[i], sizeof(f->r->bound[i]), "%s", pf_eng_ctx_name(f, f->s[i].ctx));
	if (!f->s[i].ctx || strcmp(f->r->bound[i], e->dev) != 0)
		return pf_eng_fail(f, PF_FAB_OPEN, -EXDEV, "%s is an address of %s, not of %s: the "
				   "traffic would use another rail", e->ip, f->r->bound[i], e->dev);
	return 0;
}

/* ---- the listener -------------------------------------------------------- */

struct listener {
	struct flow f;
	const struct pf_fabp_opts *o;
	struct pf_cm_id *conn;    /* the accepted request's id */
	bool disconnected;
	unsigned int n_rejected;
};

/* Reject a request that is not the expected writer's, and drop its id. */
static void lst_reject(struct listener *l, struct pf_cm_id *id, uint32_t why, const uint8_t *req)
{
	uint8_t rej[REJ_LEN];

	msg_head(rej, MSG_REJ, l->o->round, l->o->src, why);
	l->f.o->cm->reject(id, rej, sizeof(rej));
	l->n_rejected++;
	if (req)
		pf_eng_note(&l->f, "rejected a request tagged round %u from rank %u (expected "
			    "round %u from rank %u)%s", get32(req + 8), get32(req + 12), l->o->round,
			    l->o->src, why == WHY_SIZE ? ": its message size does not fit" : "");
	else
		pf_eng_note(&l->f, "rejected a connection request without a preflight tag");
}

/* A CONNECT_REQUEST (its event acked by the caller after): accept it or reject it. */
static int lst_request(struct listener *l, const struct pf_cm_event *ev, bool *drop)
{
	struct flow *f = &l->f;
	const struct pf_rdmacm_api *cm = f->o->cm;
	const uint8_t *req = msg_of(ev, MSG_REQ, REQ_LEN);
	struct side *s = &f->s[1];
	struct ibv_qp_init_attr ia = pf_eng_qp_attr(f, s);
	struct pf_cm_conn_param p = pf_eng_conn_param();
	uint8_t rep[REP_LEN];

	*drop = true;
	if (l->conn || !req || get32(req + 8) != l->o->round || get32(req + 12) != l->o->src ||
	    get32(req + 16) > f->stride) {
		lst_reject(l, ev->id, req && get32(req + 16) > f->stride &&
			   get32(req + 8) == l->o->round ? WHY_SIZE : WHY_TAG, req);
		return 0;
	}
	if (ev->id->verbs != s->ctx)
		return pf_eng_fail(f, PF_FAB_CONNECT, -EXDEV, "a request for %s arrived on "
				   "another device", s->e->dev);
	if (cm->create_qp(ev->id, s->pd, &ia))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(ENOMEM), "rdma_create_qp "
				   "on %s: %s", s->e->dev, strerror(pf_eng_errno_or(ENOMEM)));
	*drop = false;
	l->conn = s->id = ev->id;
	s->qp = ev->id->qp;
	msg_head(rep, MSG_REP, l->o->round, l->o->src, (uint32_t)(s->addr >> 32));
	put32(rep + 20, (uint32_t)s->addr);
	put32(rep + 24, s->rkey);
	put32(rep + 28, (uint32_t)f->stride);
	put32(rep + 32, f->slots);
	p.private_data = rep;
	p.private_data_len = sizeof(rep);
	if (cm->accept(ev->id, &p))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(EINVAL), "rdma_accept on "
				   "%s: %s", s->e->dev, strerror(pf_eng_errno_or(EINVAL)));
	f->connected = true;
	return 0;
}

/* One event for the listener: 1 when the writer is done, 0 to go on, or -errno. */
static int lst_event(struct listener *l, struct pf_cm_event *ev)
{
	const struct pf_rdmacm_api *cm = l->f.o->cm;
	int type = (int)ev->event, status = ev->status, r = 0;
	bool drop = false;

	if (type == PF_CM_EVENT_CONNECT_REQUEST) {
		struct pf_cm_id *id = ev->id;

		r = lst_request(l, ev, &drop);
		cm->ack_cm_event(ev);
		if (drop)
			cm->destroy_id(id);
		return r;
	}
	cm->ack_cm_event(ev);
	if (type == PF_CM_EVENT_ESTABLISHED)
		return 0;
	if (type == PF_CM_EVENT_DISCONNECTED || type == PF_CM_EVENT_TIMEWAIT_EXIT) {
		l->disconnected = true;
		l->f.connected = false;
		return 1;
	}
	l->f.r->cm_event = type;
	l->f.r->cm_status = status;
	r = pf_eng_event_errno(&l->f, type, status);
	return pf_eng_fail(&l->f, PF_FAB_CONNECT, r, "listening on %s:%u (%s): %s, status %d",
			   l->f.o->dst.ip, l->o->port, l->f.o->dst.dev, pf_cm_event_name(type),
			   status);
}

static int lst_wait(struct listener *l)
{
	struct flow *f = &l->f;
	uint64_t t0 = pf_now_ns(), deadline = t0 + l->o->connect_ms * MS;
	bool linger = false;

	for (;;) {
		struct pf_cm_event *ev = NULL;
		int r;

		if (l->conn && !linger) {
			linger = true;
			deadline = pf_now_ns() + l->o->linger_ms * MS;
		}
		r = pf_eng_cm_next(f, (int)left_ms(deadline), &ev);
		if (r == -ETIMEDOUT && !l->conn)
			return pf_eng_fail(f, PF_FAB_CONNECT, -ETIMEDOUT, "no connection from rank %u "
					   "(%s, %s) for round %u on %s:%u (%s) within %u ms%s",
					   l->o->src, f->o->src.dev, f->o->src.ip, l->o->round,
					   f->o->dst.ip, l->o->port, f->o->dst.dev, l->o->connect_ms,
					   l->n_rejected ? " (requests with other tags rejected)" : "");
		if (r == -ETIMEDOUT)
			return pf_eng_fail(f, PF_FAB_TRANSFER, -ETIMEDOUT, "the writer (rank %u, %s) "
					   "did not disconnect from %s within %u ms", l->o->src,
					   f->o->src.ip, f->o->dst.dev, l->o->linger_ms);
		if (r)
			return pf_eng_fail(f, PF_FAB_CONNECT, r, "rdma_get_cm_event: %s",
					   strerror(-r));
		r = lst_event(l, ev);
		if (r)
			return r < 0 ? r : 0;
	}
}

static void lst_release(struct listener *l)
{
	struct flow *f = &l->f;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[1];
	struct pf_fab_result keep = *f->r;

	if (f->connected && l->conn)
		cm->disconnect(l->conn);
	if (l->conn && l->conn->qp)
		cm->destroy_qp(l->conn);
	if (s->cq)
		f->o->api->destroy_cq(s->cq);
	pf_eng_mem_release(f, s);
	if (s->pd)
		f->o->api->dealloc_pd(s->pd);
	if (l->conn)
		cm->destroy_id(l->conn);
	if (f->listen)
		cm->destroy_id(f->listen);
	if (f->ch)
		cm->destroy_event_channel(f->ch);
	*f->r = keep;
}

static bool opts_ok(const struct pf_fabp_opts *o)
{
	const struct pf_fab_opts *b = &o->fab;

	return b->api && b->src.dev && b->dst.dev && b->msg_size && b->msg_size <= UINT32_MAX &&
	       b->tx_depth && o->connect_ms &&
	       (o->chan ? o->chan->send && o->chan->recv && o->chan->ready && o->chan->done
			: b->cm && o->port);
}

/* ---- the verbs way: records over the caller's channel ------------------ */

/* Side @i here, the other across o->chan (connect_peer.c); the listener holds until done. */
static int verbs_end(const struct pf_fabp_opts *o, struct flow *f, int i)
{
	const struct pf_qpv_chan ch = { .ctx = o->chan->ctx, .send = o->chan->send,
					.recv = o->chan->recv, .ready = o->chan->ready };
	struct pf_eng_readback rb = { 0 };
	int r;

	r = pf_eng_connect_peer(f, i, &ch, (int)o->connect_ms);
	if (!r && i == 0)
		r = pf_eng_readback_open(f, &rb);
	if (!r && i == 0)
		r = pf_eng_transfer(f);
	if (!r && i == 1 && o->chan->done(o->chan->ctx, (int)o->linger_ms))
		r = pf_eng_fail(f, PF_FAB_TRANSFER, -ETIMEDOUT, "the writer did not finish within "
				"%u ms", o->linger_ms);
	if (!r)
		f->r->stage = PF_FAB_DONE;
	pf_eng_readback_release(f, &rb);
	pf_eng_release(f);
	return r;
}

int pf_fabp_listen(const struct pf_fabp_opts *o, struct pf_fab_result *ret)
{
	struct listener l = { .o = o };
	struct flow *f = &l.f;
	int r;

	pf_eng_init(f, &o->fab, ret);
	*ret = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
	r = opts_ok(o) ? pf_eng_layout(f) : pf_eng_fail(f, PF_FAB_OPEN, -EINVAL,
							  "invalid fabric options");
	if (!r && o->chan)
		return verbs_end(o, f, 1);
	if (!r)
		r = bind_side(f, 1, o->port, &f->listen);
	if (!r && o->fab.cm->listen(f->listen, 8)) {
		r = pf_eng_errno_or(EINVAL);
		r = pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_listen on %s:%u: %s", o->fab.dst.ip,
				o->port, strerror(r));
	}
	if (!r)
		r = pf_eng_side_resources(f, 1);
	if (!r)
		r = lst_wait(&l);
	if (!r)
		ret->stage = PF_FAB_DONE;
	lst_release(&l);
	return r;
}

/* ---- the writer ------------------------------------------------------------ */

struct writer {
	struct flow f;
	const struct pf_fabp_opts *o;
	struct pf_cm_id *anchor;  /* bound to the rail for the whole flow */
	struct pf_eng_readback rb; /* side 1 READ back into here */
	unsigned int attempts;
	char last[256];           /* why the last attempt did not connect */
};

/* The reply to our request: 0 connected, 1 try again, -errno final. */
static int wr_reply(struct writer *w, struct pf_cm_event *ev)
{
	struct flow *f = &w->f;
	int type = (int)ev->event, status = ev->status;
	const uint8_t *rep = msg_of(ev, MSG_REP, REP_LEN), *rej = msg_of(ev, MSG_REJ, REJ_LEN);

	f->r->cm_event = type;
	f->r->cm_status = status;
	if (type == PF_CM_EVENT_ESTABLISHED) {
		if (!rep || get32(rep + 8) != w->o->round || get32(rep + 12) != w->o->src ||
		    get32(rep + 28) != f->stride || get32(rep + 32) != f->slots)
			return pf_eng_fail(f, PF_FAB_CONNECT, -EPROTO, "%s:%u accepted round %u "
					   "from rank %u but its reply is not a preflight target of "
					   "%u slots of %zu bytes", f->o->dst.ip, w->o->port,
					   w->o->round, w->o->src, f->slots, f->stride);
		f->s[1].addr = (uint64_t)get32(rep + 16) << 32 | get32(rep + 20);
		f->s[1].rkey = get32(rep + 24);
		f->r->cm_event = -1;
		f->r->cm_status = 0;
		return 0;
	}
	if (type == PF_CM_EVENT_REJECTED && rej && get32(rej + 8) >= w->o->round)
		return pf_eng_fail(f, PF_FAB_CONNECT, -ECONNREFUSED, "%s:%u (%s) rejected round %u "
				   "from rank %u: it expects round %u from rank %u%s", f->o->dst.ip,
				   w->o->port, f->o->dst.dev, w->o->round, w->o->src,
				   get32(rej + 8), get32(rej + 12), get32(rej + 16) == WHY_SIZE ?
				   " and another message size" : "");
	if (type == PF_CM_EVENT_REJECTED || type == PF_CM_EVENT_UNREACHABLE) {
		snprintf(w->last, sizeof(w->last), "%s, status %d%s", pf_cm_event_name(type),
			 status, rej ? " (the partner is in an earlier round)" : status ==
			 PF_CM_REJ_INVALID_SERVICE_ID ? " (nobody listening)" : "");
		return 1;
	}
	return pf_eng_fail(f, PF_FAB_CONNECT, pf_eng_event_errno(f, type, status), "rdma_connect "
			   "%s -> %s:%u: %s, status %d", f->o->src.ip, f->o->dst.ip, w->o->port,
			   pf_cm_event_name(type), status);
}

/* Resolve the partner's address and route: 0, 1 (try again: not answering yet), -errno. */
static int wr_resolve(struct writer *w, uint64_t deadline)
{
	struct flow *f = &w->f;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct sockaddr_in src, dst;
	int r;

	pf_eng_sockaddr(f->o->src.ip, 0, &src);
	if (pf_eng_sockaddr(f->o->dst.ip, htons(w->o->port), &dst))
		return pf_eng_fail(f, PF_FAB_ADDR, -EINVAL, "bad IPv4 address '%s' for %s",
				   f->o->dst.ip, f->o->dst.dev);
	r = pf_eng_resolve_addr(f, &src, &dst);
	if (!r && f->s[0].id->verbs != f->s[0].ctx)
		return pf_eng_fail(f, PF_FAB_ADDR, -EXDEV, "%s -> %s resolved through %s, not %s",
				   f->o->src.ip, f->o->dst.ip,
				   pf_eng_ctx_name(f, f->s[0].id->verbs), f->o->src.dev);
	if (!r && cm->resolve_route(f->s[0].id, (int)f->o->resolve_timeout_ms)) {
		r = pf_eng_errno_or(EINVAL);
		return pf_eng_fail(f, PF_FAB_ROUTE, -r, "rdma_resolve_route %s -> %s: %s",
				   f->o->src.ip, f->o->dst.ip, strerror(r));
	}
	if (!r)
		r = pf_eng_cm_expect(f, PF_CM_EVENT_ROUTE_RESOLVED, PF_CM_EVENT_ROUTE_ERROR,
				      PF_FAB_ROUTE, "rdma_resolve_route", f->o->resolve_timeout_ms);
	if ((r == -ETIMEDOUT || r == -EHOSTUNREACH || r == -ENETUNREACH) && left_ms(deadline)) {
		snprintf(w->last, sizeof(w->last), "%s", f->r->err);
		return 1;
	}
	return r;
}

/* One attempt: 0 connected, 1 try again, -errno final. */
static int wr_attempt(struct writer *w, uint64_t deadline)
{
	struct flow *f = &w->f;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[0];
	struct ibv_qp_init_attr ia = pf_eng_qp_attr(f, s);
	struct pf_cm_conn_param p = pf_eng_conn_param();
	struct pf_cm_event *ev = NULL;
	uint8_t req[REQ_LEN];
	int r;

	w->attempts++;
	r = wr_resolve(w, deadline);
	if (r)
		return r;
	if (cm->create_qp(s->id, s->pd, &ia))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(ENOMEM), "rdma_create_qp "
				   "on %s: %s", s->e->dev, strerror(pf_eng_errno_or(ENOMEM)));
	s->qp = s->id->qp;
	msg_head(req, MSG_REQ, w->o->round, w->o->src, (uint32_t)f->o->msg_size);
	p.private_data = req;
	p.private_data_len = sizeof(req);
	if (cm->connect(s->id, &p))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(EINVAL), "rdma_connect %s "
				   "-> %s: %s", f->o->src.ip, f->o->dst.ip,
				   strerror(pf_eng_errno_or(EINVAL)));
	r = pf_eng_cm_next(f, (int)f->o->timeout_ms * 2 + 1000, &ev);
	if (r == -ETIMEDOUT)
		return pf_eng_fail(f, PF_FAB_CONNECT, -ETIMEDOUT, "rdma_connect %s -> %s:%u: no "
				   "RDMA-CM event within %u ms", f->o->src.ip, f->o->dst.ip,
				   w->o->port, f->o->timeout_ms * 2 + 1000);
	if (r)
		return pf_eng_fail(f, PF_FAB_CONNECT, r, "rdma_get_cm_event: %s", strerror(-r));
	r = wr_reply(w, ev);
	cm->ack_cm_event(ev);
	if (!r)
		f->connected = true;
	return r;
}

/* Drop a failed attempt's QP and id (their events are acked). */
static void wr_drop_attempt(struct writer *w)
{
	struct side *s = &w->f.s[0];

	if (s->id && s->id->qp)
		w->f.o->cm->destroy_qp(s->id);
	if (s->id)
		w->f.o->cm->destroy_id(s->id);
	s->id = NULL;
	s->qp = NULL;
}

static int wr_connect(struct writer *w)
{
	struct flow *f = &w->f;
	uint64_t deadline = pf_now_ns() + w->o->connect_ms * MS;

	snprintf(w->last, sizeof(w->last), "no attempt");
	for (;;) {
		int r = wr_attempt(w, deadline);
		uint64_t pause;

		if (r <= 0)
			return r;
		wr_drop_attempt(w);
		pause = left_ms(deadline);
		if (!pause)
			break;
		pause = pause < w->o->retry_ms ? pause : w->o->retry_ms;
		nanosleep(&(struct timespec){ .tv_sec = (time_t)(pause / 1000),
					      .tv_nsec = (long)(pause % 1000) * 1000000 }, NULL);
		if (!left_ms(deadline))
			break;
	}
	return pf_eng_fail(f, PF_FAB_CONNECT, -ETIMEDOUT, "rank %u could not connect %s (%s) -> "
			   "%s:%u (%s) for round %u within %u ms, %u attempts; the last: %s",
			   w->o->src, f->o->src.ip, f->o->src.dev, f->o->dst.ip, w->o->port,
			   f->o->dst.dev, w->o->round, w->o->connect_ms, w->attempts, w->last);
}

static int wr_open(struct writer *w)
{
	struct flow *f = &w->f;
	int r = bind_side(f, 0, 0, &w->anchor);

	if (!r)
		r = pf_eng_side_resources(f, 0);
	return r ? r : pf_eng_readback_open(f, &w->rb);
}

static void wr_release(struct writer *w)
{
	struct flow *f = &w->f;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[0];
	struct pf_fab_result keep = *f->r;

	if (f->connected && s->id)
		cm->disconnect(s->id);
	wr_drop_attempt(w);
	if (s->cq)
		f->o->api->destroy_cq(s->cq);
	pf_eng_readback_release(f, &w->rb);
	pf_eng_mem_release(f, s);
	if (s->pd)
		f->o->api->dealloc_pd(s->pd);
	if (w->anchor)
		cm->destroy_id(w->anchor);
	if (f->ch)
		cm->destroy_event_channel(f->ch);
	free(f->wrs);
	free(f->sges);
	*f->r = keep;
}

int pf_fabp_write(const struct pf_fabp_opts *o, struct pf_fab_result *ret)
{
	struct writer w = { .o = o };
	int r;

	pf_eng_init(&w.f, &o->fab, ret);
	*ret = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
	r = opts_ok(o) ? pf_eng_layout(&w.f) : pf_eng_fail(&w.f, PF_FAB_OPEN, -EINVAL,
							     "invalid fabric options");
	if (!r && o->chan)
		return verbs_end(o, &w.f, 0);
	if (!r)
		r = wr_open(&w);
	if (!r)
		r = wr_connect(&w);
	if (!r)
		r = pf_eng_transfer(&w.f);
	if (!r)
		ret->stage = PF_FAB_DONE;
	wr_release(&w);
	return r;
}
