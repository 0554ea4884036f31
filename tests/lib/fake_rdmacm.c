// SPDX-License-Identifier: MIT
/*
 * fake_rdmacm.c - RDMA-CM in memory over the fake verbs devices (see
 * fake_rdmacm.h).  Return conventions from rdma-core librdmacm/cma.c
 * (ERR(): -1 with errno) and the kernel's drivers/infiniband/core/cma.c.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_rdmacm.h"
#include "preflight/macro.h"

struct pf_fake_rdmacm pf_fake_rdmacm;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define REJ_INVALID_SERVICE_ID PF_CM_REJ_INVALID_SERVICE_ID

struct fevent;

struct fchan {
	struct pf_cm_channel ch; /* first: the library's struct */
	int wfd;
	struct fevent *head, *tail;
	int ids;
};

struct fid {
	struct pf_cm_id id;      /* first */
	struct fchan *chan;
	int dev;                 /* bound device, -1 none */
	struct in_addr ip, dst_ip;
	uint16_t port, dst_port; /* host order */
	bool bound, listening, addr_ok, route_ok, connected;
	struct fid *peer;        /* the other end of a connection (request or established) */
	bool request;            /* made by a CONNECT_REQUEST */
	uint8_t req_priv[PF_CM_REQ_PRIVATE_MAX]; /* the REQ's private data (request ids) */
	int taken;               /* events handed out, not yet acked */
};

struct fevent {
	struct pf_cm_event ev;   /* first */
	uint8_t priv[PF_CM_REP_PRIVATE_MAX]; /* param.conn.private_data points here */
	int err;                 /* errno rdma_get_cm_event leaves behind (0: untouched) */
	struct fid *owner;
	struct fevent *next;
};

static struct {
	struct ibv_context *ctx;
	struct ibv_device **list; /* the context's device lives in it */
	int refs;
} devctx[PF_FAKE_VERBS_DEVS];

static struct fid *ids[256];
static uint16_t next_port = 40000;

static int err(int e)
{
	errno = e;
	return -1;
}

static void misuse(const char *why)
{
	pf_fake_rdmacm.misuse++;
	snprintf(pf_fake_rdmacm.misuse_why, sizeof(pf_fake_rdmacm.misuse_why), "%s", why);
}

void pf_fake_rdmacm_reset(int n)
{
	pthread_mutex_lock(&lock);
	memset(&pf_fake_rdmacm, 0, sizeof(pf_fake_rdmacm));
	for (int i = 0; i < n && i < PF_FAKE_CM_ADDRS; i++) {
		snprintf(pf_fake_rdmacm.addrs[i].ip, sizeof(pf_fake_rdmacm.addrs[i].ip),
			 "10.10.0.%u", (unsigned int)(i + 1) % 256u);
		pf_fake_rdmacm.addrs[i].dev = i;
	}
	pf_fake_rdmacm.n_addrs = n < PF_FAKE_CM_ADDRS ? n : PF_FAKE_CM_ADDRS;
	pthread_mutex_unlock(&lock);
}

/* Under the lock: the address entry of @ip, or NULL. */
static const struct pf_fake_cm_addr *find_addr(struct in_addr ip)
{
	for (int i = 0; i < pf_fake_rdmacm.n_addrs; i++) {
		struct in_addr a;

		if (inet_pton(AF_INET, pf_fake_rdmacm.addrs[i].ip, &a) == 1 &&
		    a.s_addr == ip.s_addr)
			return &pf_fake_rdmacm.addrs[i];
	}
	return NULL;
}

/* Under the lock: a context on fake device @dev, shared by every id bound to it. */
static struct ibv_context *ctx_get(int dev)
{
	struct ibv_device **list;
	int n = 0;

	if (devctx[dev].refs++)
		return devctx[dev].ctx;
	list = pf_fake_verbs_api.get_device_list(&n);
	devctx[dev].ctx = list && dev < n ? pf_fake_verbs_api.open_device(list[dev]) : NULL;
	devctx[dev].list = list;
	return devctx[dev].ctx;
}

static void ctx_put(int dev)
{
	if (dev < 0 || --devctx[dev].refs)
		return;
	if (devctx[dev].ctx)
		pf_fake_verbs_api.close_device(devctx[dev].ctx);
	if (devctx[dev].list)
		pf_fake_verbs_api.free_device_list(devctx[dev].list);
	devctx[dev].ctx = NULL;
	devctx[dev].list = NULL;
}

/* Under the lock: queue an event for @owner on its channel. */
static struct fevent *post(struct fid *owner, struct fid *listen, enum pf_cm_event_type type,
			   int status)
{
	struct fevent *e = calloc(1, sizeof(*e));
	struct fchan *c = owner->chan;

	e->ev.id = &owner->id;
	e->ev.listen_id = listen ? &listen->id : NULL;
	e->ev.event = type;
	e->ev.status = status;
	e->owner = listen ? listen : owner; /* a request is acked against its listener */
	if (c->tail)
		c->tail->next = e;
	else
		c->head = e;
	c->tail = e;
	if (write(c->wfd, "e", 1) != 1)
		misuse("event pipe full");
	return e;
}

/*
 * The private data of a CM message as the receiver sees it: the whole
 * field (@field bytes), the sender's bytes then zeros (kernel cma.c).
 */
static void with_private(struct fevent *e, const void *data, uint8_t len, uint8_t field)
{
	memset(e->priv, 0, field);
	if (data && len)
		memcpy(e->priv, data, len);
	e->ev.param.conn.private_data = e->priv;
	e->ev.param.conn.private_data_len = field;
}

static struct pf_cm_channel *f_create_event_channel(void)
{
	struct fchan *c;
	int fds[2];

	if (pf_fake_rdmacm.channel_errno) {
		errno = pf_fake_rdmacm.channel_errno;
		return NULL;
	}
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) < 0)
		return NULL;
	c = calloc(1, sizeof(*c));
	c->ch.fd = fds[0];
	c->wfd = fds[1];
	pthread_mutex_lock(&lock);
	pf_fake_rdmacm.live_channels++;
	pthread_mutex_unlock(&lock);
	return &c->ch;
}

static void f_destroy_event_channel(struct pf_cm_channel *ch)
{
	struct fchan *c = (struct fchan *)ch;

	pthread_mutex_lock(&lock);
	if (c->ids)
		misuse("rdma_destroy_event_channel with ids still on it");
	while (c->head) {
		struct fevent *e = c->head;

		c->head = e->next;
		free(e);
	}
	pf_fake_rdmacm.live_channels--;
	pthread_mutex_unlock(&lock);
	close(c->ch.fd);
	close(c->wfd);
	free(c);
}

static int f_create_id(struct pf_cm_channel *ch, struct pf_cm_id **ret, void *context, int ps)
{
	struct fid *f;

	if (!ch)
		return err(EINVAL); /* synchronous mode is not modelled */
	if (ps != PF_RDMA_PS_TCP)
		return err(EINVAL);
	f = calloc(1, sizeof(*f));
	f->chan = (struct fchan *)ch;
	f->dev = -1;
	f->id.channel = ch;
	f->id.context = context;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < PF_ARRAY_SIZE(ids); i++) {
		if (!ids[i]) {
			ids[i] = f;
			break;
		}
	}
	f->chan->ids++;
	pf_fake_rdmacm.live_ids++;
	pthread_mutex_unlock(&lock);
	*ret = &f->id;
	return 0;
}

/* Under the lock: drop @f's queued events from its channel (the kernel does). */
static void drop_events(struct fid *f)
{
	struct fchan *c = f->chan;
	struct fevent **pp = &c->head;

	c->tail = NULL;
	while (*pp) {
		struct fevent *e = *pp;

		if (e->ev.id == &f->id || e->owner == f) {
			char b;

			*pp = e->next;
			free(e);
			if (read(c->ch.fd, &b, 1) != 1)
				misuse("event pipe out of step");
			continue;
		}
		c->tail = e;
		pp = &e->next;
	}
}

static int f_destroy_id(struct pf_cm_id *id)
{
	struct fid *f = (struct fid *)id;

	pthread_mutex_lock(&lock);
	if (f->taken)
		misuse("rdma_destroy_id with unacked events (librdmacm waits forever)");
	if (id->qp)
		misuse("rdma_destroy_id with its QP (rdma_destroy_qp first)");
	drop_events(f);
	for (size_t i = 0; i < PF_ARRAY_SIZE(ids); i++) {
		if (ids[i] == f)
			ids[i] = NULL;
		else if (ids[i] && ids[i]->peer == f)
			ids[i]->peer = NULL;
	}
	ctx_put(f->dev);
	f->chan->ids--;
	pf_fake_rdmacm.live_ids--;
	pthread_mutex_unlock(&lock);
	free(f);
	return 0;
}

/* Under the lock. */
static int bind_locked(struct fid *f, const struct sockaddr *sa)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
	const struct pf_fake_cm_addr *a;
	uint16_t port;

	if (!sa || sa->sa_family != AF_INET)
		return err(EAFNOSUPPORT);
	if (f->bound)
		return err(EINVAL);
	a = find_addr(in->sin_addr);
	if (!a)
		return err(EADDRNOTAVAIL); /* rdma_translate_ip: no netdev has it */
	if (a->dev < 0 || a->dev >= pf_fake_verbs.n_devs)
		return err(ENODEV);        /* cma_acquire_dev_by_src_ip */
	port = ntohs(in->sin_port);
	if (!port)
		port = next_port++;
	for (size_t i = 0; i < PF_ARRAY_SIZE(ids); i++)
		if (ids[i] && ids[i] != f && ids[i]->bound && ids[i]->port == port &&
		    ids[i]->ip.s_addr == in->sin_addr.s_addr)
			return err(EADDRINUSE);
	f->ip = in->sin_addr;
	f->port = port;
	f->dev = a->dev;
	f->bound = true;
	f->id.verbs = ctx_get(a->dev);
	return 0;
}

static int f_bind_addr(struct pf_cm_id *id, struct sockaddr *sa)
{
	int r;

	pthread_mutex_lock(&lock);
	r = bind_locked((struct fid *)id, sa);
	pthread_mutex_unlock(&lock);
	return r;
}

static int f_resolve_addr(struct pf_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
			  int timeout_ms)
{
	struct fid *f = (struct fid *)id;
	const struct sockaddr_in *d = (const struct sockaddr_in *)dst;
	const struct pf_fake_cm_addr *a;
	int r = 0;

	if (!dst || dst->sa_family != AF_INET)
		return err(EINVAL);
	pthread_mutex_lock(&lock);
	pf_fake_rdmacm.n_resolves++;
	pf_fake_rdmacm.last_resolve_timeout_ms = timeout_ms;
	if (!f->bound)
		r = src ? bind_locked(f, src) : err(EINVAL);
	if (r) {
		pthread_mutex_unlock(&lock);
		return r;
	}
	f->dst_ip = d->sin_addr;
	f->dst_port = ntohs(d->sin_port);
	a = find_addr(d->sin_addr);
	if (pf_fake_rdmacm.ports[f->dev].no_route)
		post(f, NULL, PF_CM_EVENT_ADDR_ERROR, -ENETUNREACH);
	else if (!a || a->dev < 0 || pf_fake_rdmacm.ports[a->dev].arp_timeout)
		post(f, NULL, PF_CM_EVENT_ADDR_ERROR, -ETIMEDOUT); /* ARP never answered */
	else {
		f->addr_ok = true;
		post(f, NULL, PF_CM_EVENT_ADDR_RESOLVED, 0);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static int f_resolve_route(struct pf_cm_id *id, int timeout_ms)
{
	struct fid *f = (struct fid *)id;
	const struct pf_fake_cm_addr *a;
	int st;

	pthread_mutex_lock(&lock);
	if (!f->addr_ok) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	a = find_addr(f->dst_ip);
	st = pf_fake_rdmacm.ports[f->dev].route_status;
	if (!st && a && a->dev >= 0)
		st = pf_fake_rdmacm.ports[a->dev].route_status;
	f->route_ok = !st;
	post(f, NULL, st ? PF_CM_EVENT_ROUTE_ERROR : PF_CM_EVENT_ROUTE_RESOLVED, st);
	pthread_mutex_unlock(&lock);
	return 0;
}

static int f_listen(struct pf_cm_id *id, int backlog)
{
	struct fid *f = (struct fid *)id;

	pthread_mutex_lock(&lock);
	if (!f->bound || f->listening || backlog < 0) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	f->listening = true;
	pthread_mutex_unlock(&lock);
	return 0;
}

static uint16_t f_get_src_port(struct pf_cm_id *id)
{
	return htons(((struct fid *)id)->port);
}

static int f_create_qp(struct pf_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp;

	if (!id->verbs || !pd || pd->context != id->verbs || id->qp)
		return err(EINVAL);
	qp = pf_fake_verbs_api.create_qp(pd, attr);
	if (!qp)
		return -1;
	if (pf_fake_verbs_api.modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
					IBV_QP_ACCESS_FLAGS)) {
		pf_fake_verbs_api.destroy_qp(qp);
		return err(EINVAL);
	}
	id->qp = qp;
	return 0;
}

static void f_destroy_qp(struct pf_cm_id *id)
{
	if (id->qp)
		pf_fake_verbs_api.destroy_qp(id->qp);
	id->qp = NULL;
}

static int f_connect(struct pf_cm_id *id, struct pf_cm_conn_param *param)
{
	struct fid *f = (struct fid *)id, *l = NULL, *s;
	const struct pf_fake_cm_port *p;
	const struct pf_fake_cm_addr *a;

	pthread_mutex_lock(&lock);
	if (!f->route_ok || !id->qp || f->connected || !param ||
	    param->private_data_len > PF_CM_REQ_PRIVATE_MAX) { /* ib_send_cm_req: -EINVAL */
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	pf_fake_rdmacm.n_connects++;
	a = find_addr(f->dst_ip);
	p = a && a->dev >= 0 ? &pf_fake_rdmacm.ports[a->dev] : NULL;
	for (size_t i = 0; i < PF_ARRAY_SIZE(ids) && !l; i++)
		if (ids[i] && ids[i]->listening && ids[i]->port == f->dst_port &&
		    ids[i]->ip.s_addr == f->dst_ip.s_addr)
			l = ids[i];
	if (p && p->unreachable) {
		post(f, NULL, PF_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
	} else if (p && p->conn_resp_errno) {
		post(f, NULL, PF_CM_EVENT_CONNECT_ERROR, -1)->err = p->conn_resp_errno;
	} else if (p && p->reject) {
		with_private(post(f, NULL, PF_CM_EVENT_REJECTED, p->reject), NULL, 0,
			     PF_CM_REJ_PRIVATE_MAX);
	} else if (!l) {
		with_private(post(f, NULL, PF_CM_EVENT_REJECTED, REJ_INVALID_SERVICE_ID), NULL, 0,
			     PF_CM_REJ_PRIVATE_MAX);
	} else {
		pthread_mutex_unlock(&lock);
		if (f_create_id(&l->chan->ch, (struct pf_cm_id **)&s, l->id.context, PF_RDMA_PS_TCP))
			return -1;
		pthread_mutex_lock(&lock);
		s->dev = l->dev;
		s->ip = l->ip;
		s->port = l->port;
		s->bound = s->request = true;
		s->id.verbs = ctx_get(l->dev);
		s->peer = f;
		f->peer = s;
		if (param->private_data && param->private_data_len)
			memcpy(s->req_priv, param->private_data, param->private_data_len);
		with_private(post(s, l, PF_CM_EVENT_CONNECT_REQUEST, 0), s->req_priv,
			     PF_CM_REQ_PRIVATE_MAX, PF_CM_REQ_PRIVATE_MAX);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Under the lock: @a's QP to RTR and RTS towards @b's, as the CM does. */
static int to_rts(struct fid *a, struct fid *b)
{
	const struct pf_fake_verbs_dev *da = &pf_fake_verbs.devs[a->dev];
	const struct pf_fake_verbs_dev *db = &pf_fake_verbs.devs[b->dev];
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = da->active_mtu < db->active_mtu ? da->active_mtu : db->active_mtu,
		.dest_qp_num = b->id.qp->qp_num,
		.rq_psn = 1,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .port_num = 1 },
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = 1,
		.max_rd_atomic = 1,
	};

	if (da->link_layer == IBV_LINK_LAYER_ETHERNET) {
		rtr.ah_attr.is_global = 1;
		rtr.ah_attr.grh.dgid = db->gid[db->roce_gid_index >= 0 ? db->roce_gid_index : 0];
		rtr.ah_attr.grh.sgid_index = (uint8_t)da->roce_gid_index;
		rtr.ah_attr.grh.hop_limit = 64;
	} else {
		rtr.ah_attr.dlid = db->lid;
	}
	if (pf_fake_verbs_api.modify_qp(a->id.qp, &rtr, IBV_QP_STATE | IBV_QP_AV |
					IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
					IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	return pf_fake_verbs_api.modify_qp(a->id.qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT |
					   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
					   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC) ? -1 : 0;
}

static int f_accept(struct pf_cm_id *id, struct pf_cm_conn_param *param)
{
	struct fid *s = (struct fid *)id, *c;

	pthread_mutex_lock(&lock);
	c = s->peer;
	if (!s->request || !c || !id->qp || !c->id.qp || s->connected || !param ||
	    param->private_data_len > PF_CM_REP_PRIVATE_MAX) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	if (to_rts(s, c) || to_rts(c, s)) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	s->connected = c->connected = true;
	pf_fake_rdmacm.n_established++;
	/* the active side's ESTABLISHED carries the REP's private data (ucma_copy_conn_event) */
	with_private(post(c, NULL, PF_CM_EVENT_ESTABLISHED, 0), param->private_data,
		     param->private_data_len, PF_CM_REP_PRIVATE_MAX);
	post(s, NULL, PF_CM_EVENT_ESTABLISHED, 0);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* rdma_reject of a CONNECT_REQUEST's id: the active side gets REJECTED, reason 28. */
static int f_reject(struct pf_cm_id *id, const void *data, uint8_t len)
{
	struct fid *s = (struct fid *)id, *c;

	pthread_mutex_lock(&lock);
	c = s->peer;
	if (!s->request || s->connected || len > PF_CM_REJ_PRIVATE_MAX) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	if (c) {
		with_private(post(c, NULL, PF_CM_EVENT_REJECTED, PF_CM_REJ_CONSUMER_DEFINED), data,
			     len, PF_CM_REJ_PRIVATE_MAX);
		c->peer = NULL;
	}
	s->peer = NULL;
	pthread_mutex_unlock(&lock);
	return 0;
}

static int f_disconnect(struct pf_cm_id *id)
{
	struct fid *f = (struct fid *)id;

	pthread_mutex_lock(&lock);
	if (!f->connected) {
		pthread_mutex_unlock(&lock);
		return err(EINVAL);
	}
	f->connected = false;
	post(f, NULL, PF_CM_EVENT_DISCONNECTED, 0);
	if (f->peer && f->peer->connected) {
		f->peer->connected = false;
		post(f->peer, NULL, PF_CM_EVENT_DISCONNECTED, 0);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static int f_get_cm_event(struct pf_cm_channel *ch, struct pf_cm_event **ret)
{
	struct fchan *c = (struct fchan *)ch;
	struct fevent *e;
	char b;

	pthread_mutex_lock(&lock);
	e = c->head;
	if (!e) {
		pthread_mutex_unlock(&lock);
		return err(EAGAIN); /* a non-blocking channel with nothing queued */
	}
	if (read(c->ch.fd, &b, 1) != 1)
		misuse("event pipe out of step");
	c->head = e->next;
	if (!c->head)
		c->tail = NULL;
	e->owner->taken++;
	pthread_mutex_unlock(&lock);
	if (e->err)
		errno = e->err;
	*ret = &e->ev;
	return 0;
}

static int f_ack_cm_event(struct pf_cm_event *ev)
{
	struct fevent *e = (struct fevent *)ev;

	pthread_mutex_lock(&lock);
	e->owner->taken--;
	pthread_mutex_unlock(&lock);
	free(e);
	return 0;
}

const struct pf_rdmacm_api pf_fake_rdmacm_api = {
	.create_event_channel = f_create_event_channel,
	.destroy_event_channel = f_destroy_event_channel,
	.create_id = f_create_id,
	.destroy_id = f_destroy_id,
	.bind_addr = f_bind_addr,
	.resolve_addr = f_resolve_addr,
	.resolve_route = f_resolve_route,
	.listen = f_listen,
	.get_src_port = f_get_src_port,
	.create_qp = f_create_qp,
	.destroy_qp = f_destroy_qp,
	.connect = f_connect,
	.accept = f_accept,
	.reject = f_reject,
	.disconnect = f_disconnect,
	.get_cm_event = f_get_cm_event,
	.ack_cm_event = f_ack_cm_event,
};

static int fake_rdmacm_load(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret,
			    char **ret_err)
{
	*ret = &pf_fake_rdmacm_api;
	return 0;
}

const struct pf_providers *pf_fake_fabric_providers(void)
{
	static struct pf_providers p;

	p = *pf_fake_verbs_providers();
	p.name = "fake-fabric";
	p.rdmacm = fake_rdmacm_load;
	return &p;
}
