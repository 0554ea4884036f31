// SPDX-License-Identifier: MIT
/*
 * connect_local.c - the plain-verbs connect op (engine.h) for a flow whose
 * two sides are in this process: each side's device opened with
 * libibverbs (a loopback's one device twice: two contexts, two transport
 * domains, since mlx5 enables the vport's local loopback only with two user
 * TDs, mlx5_ib_enable_lb() in drivers/infiniband/hw/mlx5/main.c; perftest's
 * loopback is two processes), an RC QP on each, the two exchange records
 * (qp_verbs.h) swapped over an in-process channel and each QP moved INIT ->
 * RTR -> RTS by qp_verbs.c with perftest's attributes: IB addresses the
 * peer port's LID (a GRH across subnets), RoCE the GID NCCL would pick
 * (gid_index), the way NCCL connects its QPs.
 */
#include <string.h>

#include "engine.h"
#include "qp_verbs.h"

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
	/* both sides here (a remote one's link layer comes in its record) */
	if (i == 1 && f->s[0].ctx && s->pa.link_layer != f->s[0].pa.link_layer)
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
		/* libibverbs answers an empty entry with a zero GID: no address to send from */
		if (!pf_qpv_gid_configured(&s->gid))
			return pf_eng_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "GID index %d of RoCE "
					   "port %s/%u is empty", s->e->gid_index, s->e->dev,
					   s->e->port);
	} else if (!s->pa.lid) {
		return pf_eng_fail(f, PF_FAB_OPEN, -EADDRNOTAVAIL, "InfiniBand port %s/%u has no "
				   "LID (no subnet manager?)", s->e->dev, s->e->port);
	} else if (api->query_gid(s->ctx, (uint8_t)s->e->port, 0, &s->gid)) {
		/* IB: GID 0 tells the subnet (a GRH across subnets); without it, the LID alone */
		memset(&s->gid, 0, sizeof(s->gid));
	}
	return 0;
}

struct pf_qpv_rec pf_eng_verbs_rec(struct flow *f, int i)
{
	const struct side *s = &f->s[i];

	return (struct pf_qpv_rec){
		.link_layer = s->pa.link_layer,
		.mtu = (uint8_t)s->pa.active_mtu,
		.lid = s->pa.lid,
		.gid_index = s->e->gid_index > 0 ? (uint8_t)s->e->gid_index : 0,
		.gid = s->gid,
		.qpn = s->qp->qp_num,
		.psn = f->psn[i],
		.rkey = s->rkey,
		.addr = s->addr,
		.slot_stride = (uint32_t)f->stride,
		.slots = f->slots,
	};
}

int pf_eng_verbs_open(struct flow *f, int i)
{
	int r = open_side(f, i);

	return r ? r : check_port(f, i);
}

int pf_eng_verbs_qp(struct flow *f, int i)
{
	struct side *s = &f->s[i];
	pf_autofree char *err = NULL;
	int r;

	r = pf_qpv_create(f->o->api, s->pd, s->cq, f->o->tx_depth, &s->qp);
	if (r)
		return pf_eng_fail(f, PF_FAB_CONNECT, -ENOMEM, "ibv_create_qp(RC, depth %u) on %s: "
				   "%s", f->o->tx_depth, s->e->dev, strerror(-r));
	if (pf_qpv_init(f->o->api, s->qp, (uint8_t)s->e->port, &err))
		return pf_eng_fail(f, PF_FAB_CONNECT, -EPROTO, "%s: %s", s->e->dev, err);
	return 0;
}

int pf_eng_verbs_join(struct flow *f, int i, const struct pf_qpv_rec *me,
		      const struct pf_qpv_rec *peer)
{
	struct side *s = &f->s[i];
	pf_autofree char *err = NULL;

	f->r->mtu = pf_ibv_mtu_bytes(pf_qpv_path_mtu((enum ibv_mtu)me->mtu,
						     (enum ibv_mtu)peer->mtu));
	if (pf_qpv_rtr_rts(f->o->api, s->qp, (uint8_t)s->e->port, me, peer, &err))
		return pf_eng_fail(f, PF_FAB_CONNECT, -EPROTO, "%s/%u: %s", s->e->dev, s->e->port,
				   err);
	return 0;
}

/*
 * Both QPs at INIT, the two records swapped over the in-process channel
 * and validated as a remote peer's would be, each QP to RTR and RTS by
 * qp_verbs.c: the code the mesh runs between nodes, on one node.
 */
int pf_eng_connect_local(struct flow *f)
{
	struct pf_qpv_pair pair = { 0 };
	struct pf_qpv_rec rec[2], peer[2];
	int r = 0;

	/* both contexts first: a loopback's device is open twice before anything else */
	for (int i = 0; i < 2 && !r; i++)
		r = open_side(f, i);
	for (int i = 0; i < 2 && !r; i++)
		r = check_port(f, i);
	for (int i = 0; i < 2 && !r; i++)
		r = pf_eng_side_resources(f, i);
	for (int i = 0; i < 2 && !r; i++)
		r = pf_eng_verbs_qp(f, i);
	for (int i = 0; i < 2 && !r; i++) {
		struct pf_qpv_chan ch = pf_qpv_pair_chan(&pair, i);
		pf_autofree char *err = NULL;

		rec[i] = pf_eng_verbs_rec(f, i);
		r = pf_qpv_send(&ch, &rec[i], &err);
		if (r)
			return pf_eng_fail(f, PF_FAB_CONNECT, r, "%s: %s", f->s[i].e->dev, err);
	}
	for (int i = 0; i < 2 && !r; i++) {
		struct pf_qpv_chan ch = pf_qpv_pair_chan(&pair, i);
		pf_autofree char *err = NULL;

		r = pf_qpv_recv(&ch, &rec[i], 0, &peer[i], &err);
		if (r)
			return pf_eng_fail(f, PF_FAB_CONNECT, r, "%s: %s", f->s[i].e->dev, err);
	}
	if (r)
		return r;
	for (int i = 0; i < 2 && !r; i++)
		r = pf_eng_verbs_join(f, i, &rec[i], &peer[i]);
	return r;
}
