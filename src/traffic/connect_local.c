// SPDX-License-Identifier: MIT
/*
 * connect_local.c - the plain-verbs connect op (engine.h) for a flow whose
 * two sides are in this process: each side's device opened with
 * libibverbs (a loopback's one device twice: two contexts, two transport
 * domains, since mlx5 enables the vport's local loopback only with two user
 * TDs, mlx5_ib_enable_lb() in drivers/infiniband/hw/mlx5/main.c; perftest's
 * loopback is two processes), an RC QP on each, moved INIT -> RTR -> RTS
 * here with the other side's QPN, PSN and address.
 *
 * Attributes follow perftest (ctx_modify_qp_to_rtr/_rts): path MTU the
 * smaller active MTU, min_rnr_timer 12, timeout 14, retry_cnt and rnr_retry
 * 7, one outstanding RDMA read/atomic; IB addresses the peer port's LID
 * (is_global 0), RoCE its RoCE v2 IPv4 GID (is_global 1, sgid_index = our
 * GID, hop_limit 0xff), the way NCCL connects its QPs.
 */
#include <string.h>

#include "engine.h"

/* Open side @i's device and check its port: ACTIVE, a GID (RoCE) or a LID (IB). */
static int open_side(struct flow *f, int i)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[i];
	struct ibv_device *dev = NULL;
	int n = 0;

	if (!f->list) {
		errno = 0;
		f->list = api->get_device_list(&n);
		if (!f->list)
			return pf_eng_fail(f, PF_FAB_OPEN, -pf_eng_errno_or(ENODEV), "no RDMA "
					   "devices: ibv_get_device_list: %s",
					   strerror(pf_eng_errno_or(ENODEV)));
	}
	for (n = 0; f->list[n]; n++)
		if (!dev && strcmp(api->get_device_name(f->list[n]), s->e->dev) == 0)
			dev = f->list[n];
	if (!dev)
		return pf_eng_fail(f, PF_FAB_OPEN, -ENODEV, "%s is not among the %d RDMA device%s "
				   "that libibverbs lists", s->e->dev, n, n == 1 ? "" : "s");
	errno = 0;
	s->ctx = api->open_device(dev);
	if (!s->ctx)
		return pf_eng_fail(f, PF_FAB_OPEN, -pf_eng_errno_or(EIO), "ibv_open_device(%s)%s: "
				   "%s", s->e->dev, i && f->s[0].ctx && f->s[0].e->dev &&
				   strcmp(f->s[0].e->dev, s->e->dev) == 0 ? " a second time" : "",
				   strerror(pf_eng_errno_or(EIO)));
	s->own_ctx = true;
	return 0;
}

static int check_port(struct flow *f, int i)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[i];

	memset(&s->pa, 0, sizeof(s->pa));
	if (api->query_port(s->ctx, (uint8_t)s->e->port, &s->pa))
		return pf_eng_fail(f, PF_FAB_OPEN, -ENODEV, "ibv_query_port(%s, %u) failed",
				   s->e->dev, s->e->port);
	if (s->pa.state != IBV_PORT_ACTIVE)
		return pf_eng_fail(f, PF_FAB_OPEN, -ENETDOWN, "port %s/%u is not ACTIVE (state %d)",
				   s->e->dev, s->e->port, s->pa.state);
	if (i == 1 && s->pa.link_layer != f->s[0].pa.link_layer)
		return pf_eng_fail(f, PF_FAB_OPEN, -EPROTO, "%s/%u and %s/%u have different link "
				   "layers", f->s[0].e->dev, f->s[0].e->port, s->e->dev,
				   s->e->port);
	if (s->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (s->e->gid_index < 0)
			return pf_eng_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "RoCE port %s/%u has no "
					   "RoCE v2 GID with an IPv4 address", s->e->dev,
					   s->e->port);
		if (api->query_gid(s->ctx, (uint8_t)s->e->port, s->e->gid_index, &s->gid))
			return pf_eng_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "ibv_query_gid(%s, %u, "
					   "%d) failed", s->e->dev, s->e->port, s->e->gid_index);
	} else if (!s->pa.lid) {
		return pf_eng_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "InfiniBand port %s/%u has no "
				   "LID (no subnet manager?)", s->e->dev, s->e->port);
	}
	return 0;
}

static int modify(struct flow *f, struct side *s, struct ibv_qp_attr *a, int mask,
		  const char *to)
{
	int r = f->o->api->modify_qp(s->qp, a, mask);

	if (r)
		return pf_eng_fail(f, PF_FAB_CONNECT, -EPROTO, "ibv_modify_qp to %s on %s/%u: %s",
				   to, s->e->dev, s->e->port,
				   strerror(r > 0 ? r : pf_eng_errno_or(EINVAL)));
	return 0;
}

static int qp_init(struct flow *f, struct side *s)
{
	struct ibv_qp_init_attr ia = pf_eng_qp_attr(f, s);
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = (uint8_t)s->e->port,
		.qp_access_flags = ENG_ACCESS,
	};

	errno = 0;
	s->qp = f->o->api->create_qp(s->pd, &ia);
	if (!s->qp)
		return pf_eng_fail(f, PF_FAB_CONNECT, -ENOMEM, "ibv_create_qp(RC, depth %u) on %s: "
				   "%s", f->o->tx_depth, s->e->dev,
				   strerror(pf_eng_errno_or(ENOMEM)));
	return modify(f, s, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS, "INIT");
}

/* Side @i to RTR towards the other side's QP, at @mtu. */
static int qp_rtr(struct flow *f, int i, enum ibv_mtu mtu)
{
	struct side *s = &f->s[i], *peer = &f->s[1 - i];
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu,
		.dest_qp_num = peer->qp->qp_num,
		.rq_psn = f->psn[1 - i],
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .port_num = (uint8_t)s->e->port },
	};

	if (s->pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = peer->gid;
		a.ah_attr.grh.sgid_index = (uint8_t)s->e->gid_index;
		a.ah_attr.grh.hop_limit = 0xff;
	} else {
		a.ah_attr.dlid = peer->pa.lid;
	}
	return modify(f, s, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR");
}

static int qp_rts(struct flow *f, int i)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.sq_psn = f->psn[i],
		.max_rd_atomic = 1,
	};

	return modify(f, &f->s[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

int pf_eng_connect_local(struct flow *f)
{
	enum ibv_mtu mtu;
	int r = 0;

	/* both contexts first: a loopback's device is open twice before anything else */
	for (int i = 0; i < 2 && !r; i++)
		r = open_side(f, i);
	for (int i = 0; i < 2 && !r; i++)
		r = check_port(f, i);
	for (int i = 0; i < 2 && !r; i++)
		r = pf_eng_side_resources(f, i);
	if (r)
		return r;
	mtu = f->s[0].pa.active_mtu < f->s[1].pa.active_mtu ? f->s[0].pa.active_mtu
							    : f->s[1].pa.active_mtu;
	f->r->mtu = pf_ibv_mtu_bytes(mtu);
	for (int i = 0; i < 2 && !r; i++)
		r = qp_init(f, &f->s[i]);
	for (int i = 0; i < 2 && !r; i++)
		r = qp_rtr(f, i, mtu);
	for (int i = 0; i < 2 && !r; i++)
		r = qp_rts(f, i);
	return r;
}
