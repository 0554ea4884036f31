// SPDX-License-Identifier: MIT
/*
 * cm.c - the RDMA-CM helpers of the engine (engine.h), as rdma-core's
 * examples use librdmacm (librdmacm/examples/rping.c, cmtime.c):
 * asynchronous calls on one event channel, every event acked, each wait
 * bounded.  The connect ops (connect_cm.c) and fabric_peer.c build on them.
 */
#include <arpa/inet.h>
#include <poll.h>
#include <string.h>

#include "engine.h"

int pf_eng_sockaddr(const char *ip, uint16_t port_be, struct sockaddr_in *sa)
{
	*sa = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = port_be };
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

/*
 * The next event within @ms: 0 and *ret (ack it), -ETIMEDOUT, or the errno
 * of poll/rdma_get_cm_event.
 */
int pf_eng_cm_next(struct flow *f, int ms, struct pf_cm_event **ret)
{
	struct pollfd p = { .fd = f->ch->fd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	errno = 0;
	if (f->o->cm->get_cm_event(f->ch, ret))
		return -pf_eng_errno_or(EIO);
	f->ev_errno = errno; /* librdmacm's own processing of the event may have set it */
	return 0;
}

/*
 * The -errno an error event stands for: REJECTED carries the IB CM reject
 * reason (ECONNREFUSED); a status librdmacm made itself while handling
 * the event (CONNECT_ERROR from ucma_process_conn_resp: ERR()'s -1 with
 * errno, or a positive errno from ibv_set_ece) is that errno; otherwise
 * the kernel's negative errno.
 */
int pf_eng_event_errno(const struct flow *f, int type, int status)
{
	if (type == PF_CM_EVENT_REJECTED)
		return -ECONNREFUSED;
	if (status == -1)
		return f->ev_errno > 0 ? -f->ev_errno : -ECONNABORTED;
	if (status > 0)
		return -status;
	return status < 0 ? status : -ECONNABORTED;
}

/* The device name of an ibv_context. */
const char *pf_eng_ctx_name(struct flow *f, struct ibv_context *c)
{
	return c && c->device ? f->o->api->get_device_name(c->device) : "?";
}

/* ADDR_RESOLVED / ROUTE_RESOLVED for the source id, or why not. */
int pf_eng_cm_expect(struct flow *f, enum pf_cm_event_type ok, enum pf_cm_event_type bad,
		     enum pf_fab_stage st, const char *call, unsigned int timeout_ms)
{
	struct pf_cm_event *ev = NULL;
	int type, status, r;

	r = pf_eng_cm_next(f, (int)timeout_ms + 1000, &ev);
	if (r == -ETIMEDOUT)
		return pf_eng_fail(f, st, -ETIMEDOUT, "%s %s -> %s: no RDMA-CM event within %u ms",
				   call, f->s[0].e->ip, f->s[1].e->ip, timeout_ms + 1000);
	if (r)
		return pf_eng_fail(f, st, r, "rdma_get_cm_event after %s: %s", call, strerror(-r));
	type = (int)ev->event;
	status = ev->status;
	f->o->cm->ack_cm_event(ev);
	if (type == (int)ok && status == 0)
		return 0;
	f->r->cm_event = type;
	f->r->cm_status = status;
	if (type == (int)bad) {
		r = pf_eng_event_errno(f, type, status);
		return pf_eng_fail(f, st, r, "%s %s (%s) -> %s (%s): %s, status %d (%s)", call,
				   f->s[0].e->ip, f->s[0].e->dev, f->s[1].e->ip, f->s[1].e->dev,
				   pf_cm_event_name(type), status, strerror(-r));
	}
	return pf_eng_fail(f, st, -EPROTO, "%s: unexpected %s (status %d)", call,
			   pf_cm_event_name(type), status);
}

/*
 * The source side's id, and its address resolved from @src to @dst (ARP over
 * the rail, or the node-local path): 0, or the failure made (-errno).
 */
int pf_eng_resolve_addr(struct flow *f, const struct sockaddr_in *src,
			const struct sockaddr_in *dst)
{
	const struct pf_rdmacm_api *cm = f->o->cm;
	int r;

	if (cm->create_id(f->ch, &f->s[0].id, f, PF_RDMA_PS_TCP)) {
		f->s[0].id = NULL;
		return pf_eng_fail(f, PF_FAB_OPEN, -pf_eng_errno_or(ENOMEM), "rdma_create_id: %s",
				   strerror(pf_eng_errno_or(ENOMEM)));
	}
	if (cm->resolve_addr(f->s[0].id, (struct sockaddr *)src, (struct sockaddr *)dst,
			     (int)f->o->resolve_timeout_ms)) {
		r = pf_eng_errno_or(EINVAL);
		return pf_eng_fail(f, PF_FAB_ADDR, -r, "rdma_resolve_addr %s (%s) -> %s: %s",
				   f->o->src.ip, f->o->src.dev, f->o->dst.ip, strerror(r));
	}
	return pf_eng_cm_expect(f, PF_CM_EVENT_ADDR_RESOLVED, PF_CM_EVENT_ADDR_ERROR, PF_FAB_ADDR,
				"rdma_resolve_addr", f->o->resolve_timeout_ms);
}

struct pf_cm_conn_param pf_eng_conn_param(void)
{
	return (struct pf_cm_conn_param){
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
}
