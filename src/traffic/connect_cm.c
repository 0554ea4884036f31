// SPDX-License-Identifier: MIT
/*
 * connect_cm.c - the RDMA-CM connect op (engine.h) for a flow whose two
 * sides are in this process (fabric_loopback): in one event channel, a
 * listening id bound to the destination's address, an id bound to the
 * source's that resolves the destination (ARP over the rails) and its
 * route, QPs from rdma_create_qp (the library moves them to RTR/RTS on
 * connect and accept), until both sides are ESTABLISHED.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

/* A listening id on the destination's address, and the source id resolved to it. */
static int cm_resolve(struct flow *f)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct sockaddr_in src, dst;
	uint16_t port;
	int r;

	if (pf_eng_sockaddr(f->o->src.ip, 0, &src) || pf_eng_sockaddr(f->o->dst.ip, 0, &dst))
		return pf_eng_fail(f, PF_FAB_OPEN, -EINVAL, "bad IPv4 address '%s' or '%s'",
				   f->o->src.ip, f->o->dst.ip);
	errno = 0;
	f->ch = cm->create_event_channel();
	if (!f->ch) {
		r = pf_eng_errno_or(ENODEV);
		return pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_create_event_channel: %s%s",
				   strerror(r),
				   r == ENODEV || r == ENOENT ? " (rdma_ucm not loaded?)" : "");
	}
	if (cm->create_id(f->ch, &f->listen, f, PF_RDMA_PS_TCP)) {
		f->listen = NULL;
		return pf_eng_fail(f, PF_FAB_OPEN, -pf_eng_errno_or(ENOMEM), "rdma_create_id: %s",
				   strerror(pf_eng_errno_or(ENOMEM)));
	}
	if (cm->bind_addr(f->listen, (struct sockaddr *)&dst)) {
		r = pf_eng_errno_or(EADDRNOTAVAIL);
		return pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_bind_addr(%s) for %s: %s",
				   f->o->dst.ip, f->o->dst.dev, strerror(r));
	}
	if (cm->listen(f->listen, 4)) {
		r = pf_eng_errno_or(EINVAL);
		return pf_eng_fail(f, PF_FAB_OPEN, -r, "rdma_listen on %s: %s", f->o->dst.ip,
				   strerror(r));
	}
	port = cm->get_src_port(f->listen);
	if (f->listen->verbs)
		snprintf(f->r->bound[1], sizeof(f->r->bound[1]), "%s",
			 pf_eng_ctx_name(f, f->listen->verbs));
	dst.sin_port = port;

	r = pf_eng_resolve_addr(f, &src, &dst);
	if (r)
		return r;
	f->s[0].ctx = f->s[0].id->verbs;
	snprintf(f->r->bound[0], sizeof(f->r->bound[0]), "%s", pf_eng_ctx_name(f, f->s[0].ctx));
	if (strcmp(f->r->bound[0], f->o->src.dev) != 0)
		return pf_eng_fail(f, PF_FAB_ADDR, -EXDEV,
				   "%s is an address of %s, not of %s: the traffic "
				   "would leave through another rail",
				   f->o->src.ip, f->r->bound[0], f->o->src.dev);
	if (f->r->bound[1][0] && strcmp(f->r->bound[1], f->o->dst.dev) != 0)
		return pf_eng_fail(f, PF_FAB_ADDR, -EXDEV, "%s is an address of %s, not of %s",
				   f->o->dst.ip, f->r->bound[1], f->o->dst.dev);
	if (cm->resolve_route(f->s[0].id, (int)f->o->resolve_timeout_ms)) {
		r = pf_eng_errno_or(EINVAL);
		return pf_eng_fail(f, PF_FAB_ROUTE, -r, "rdma_resolve_route %s -> %s: %s",
				   f->o->src.ip, f->o->dst.ip, strerror(r));
	}
	return pf_eng_cm_expect(f, PF_CM_EVENT_ROUTE_RESOLVED, PF_CM_EVENT_ROUTE_ERROR,
				PF_FAB_ROUTE, "rdma_resolve_route", f->o->resolve_timeout_ms);
}

/* The destination's side, on the CONNECT_REQUEST's new id: resources, QP, accept. */
static int cm_accept(struct flow *f, struct pf_cm_id *id)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[1];
	struct ibv_qp_init_attr ia;
	struct pf_cm_conn_param p = pf_eng_conn_param();
	int r;

	s->id = id;
	s->ctx = id->verbs;
	r = pf_eng_side_resources(f, 1);
	if (r)
		return r;
	ia = pf_eng_qp_attr(f, s);
	if (cm->create_qp(id, s->pd, &ia))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(ENOMEM),
				   "rdma_create_qp on %s: %s", s->e->dev,
				   strerror(pf_eng_errno_or(ENOMEM)));
	s->qp = id->qp;
	if (cm->accept(id, &p))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(EINVAL),
				   "rdma_accept on %s: %s", s->e->dev,
				   strerror(pf_eng_errno_or(EINVAL)));
	return 0;
}

static int cm_connect(struct flow *f)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct side *s = &f->s[0];
	struct pf_cm_conn_param p = pf_eng_conn_param();
	struct ibv_qp_init_attr ia;
	int r;

	r = pf_eng_side_resources(f, 0);
	if (r)
		return r;
	ia = pf_eng_qp_attr(f, s);
	if (cm->create_qp(s->id, s->pd, &ia))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(ENOMEM),
				   "rdma_create_qp on %s: %s", s->e->dev,
				   strerror(pf_eng_errno_or(ENOMEM)));
	s->qp = s->id->qp;
	if (cm->connect(s->id, &p))
		return pf_eng_fail(f, PF_FAB_CONNECT, -pf_eng_errno_or(EINVAL),
				   "rdma_connect %s -> %s: %s", f->o->src.ip, f->o->dst.ip,
				   strerror(pf_eng_errno_or(EINVAL)));
	f->connected = true;
	while (!f->s[0].established || !f->s[1].established) {
		struct pf_cm_event *ev = NULL;
		struct pf_cm_id *id;
		int type, status;

		r = pf_eng_cm_next(f, (int)f->o->timeout_ms * 2 + 1000, &ev);
		if (r == -ETIMEDOUT)
			return pf_eng_fail(f, PF_FAB_CONNECT, -ETIMEDOUT,
					   "connection %s -> %s: no RDMA-CM "
					   "event within %u ms",
					   f->o->src.ip, f->o->dst.ip, f->o->timeout_ms * 2 + 1000);
		if (r)
			return pf_eng_fail(f, PF_FAB_CONNECT, r, "rdma_get_cm_event: %s",
					   strerror(-r));
		type = (int)ev->event;
		status = ev->status;
		id = ev->id;
		if (type == PF_CM_EVENT_CONNECT_REQUEST && ev->listen_id == f->listen &&
		    !f->s[1].id) {
			r = cm_accept(f, id);
			cm->ack_cm_event(ev);
			if (r)
				return r;
			continue;
		}
		cm->ack_cm_event(ev);
		if (type == PF_CM_EVENT_ESTABLISHED) {
			f->s[id == f->s[0].id ? 0 : 1].established = true;
			continue;
		}
		f->r->cm_event = type;
		f->r->cm_status = status;
		r = pf_eng_event_errno(f, type, status);
		return pf_eng_fail(f, PF_FAB_CONNECT, r,
				   "connection %s (%s) -> %s (%s): %s, status %d (%s)",
				   f->o->src.ip, f->o->src.dev, f->o->dst.ip, f->o->dst.dev,
				   pf_cm_event_name(type), status,
				   type == PF_CM_EVENT_REJECTED ? "rejected" : strerror(-r));
	}
	return 0;
}

int pf_eng_connect_cm(struct flow *f)
{
	int r = cm_resolve(f);

	return r ? r : cm_connect(f);
}
