// SPDX-License-Identifier: MIT
/*
 * qp_verbs.c - an RC connection over plain verbs and an out-of-band channel
 * (qp_verbs.h): the exchange record, its wire form and validation, the GID
 * index as NCCL picks it, and the INIT -> RTR -> RTS transitions with
 * perftest's attributes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "qp_verbs.h"

#define QPV_MIN_RNR_TIMER 12 /* 0.64 ms */
#define QPV_TIMEOUT 14       /* 4.096 us * 2^14: 67 ms per try */
#define QPV_RETRY 7
#define QPV_HOP_LIMIT 0xff
#define QPV_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define QPV_LID_UNICAST_MAX 0xbfff

/*
 * Wire layout (big-endian):
 *   0 magic  4 version(1) link_layer(1) mtu(1) gid_index(1)  8 lid(2) reserved(2)
 *  12 qpn   16 psn  20 rkey  24 addr(8)  32 slot_stride  36 slots  40 gid(16)
 *  56 reserved(8)
 */
enum {
	OFF_MAGIC = 0,
	OFF_VERSION = 4,
	OFF_LL = 5,
	OFF_MTU = 6,
	OFF_GIDX = 7,
	OFF_LID = 8,
	OFF_RSV1 = 10,
	OFF_QPN = 12,
	OFF_PSN = 16,
	OFF_RKEY = 20,
	OFF_ADDR = 24,
	OFF_STRIDE = 32,
	OFF_SLOTS = 36,
	OFF_GID = 40,
	OFF_RSV2 = 56,
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void pf_qpv_encode(const struct pf_qpv_rec *r, uint8_t out[PF_QPV_REC_LEN])
{
	memset(out, 0, PF_QPV_REC_LEN);
	put32(out + OFF_MAGIC, PF_QPV_MAGIC);
	out[OFF_VERSION] = PF_QPV_VERSION;
	out[OFF_LL] = r->link_layer;
	out[OFF_MTU] = r->mtu;
	out[OFF_GIDX] = r->gid_index;
	put16(out + OFF_LID, r->lid);
	put32(out + OFF_QPN, r->qpn);
	put32(out + OFF_PSN, r->psn);
	put32(out + OFF_RKEY, r->rkey);
	put64(out + OFF_ADDR, r->addr);
	put32(out + OFF_STRIDE, r->slot_stride);
	put32(out + OFF_SLOTS, r->slots);
	memcpy(out + OFF_GID, r->gid.raw, sizeof(r->gid.raw));
}

static int bad(char **ret_err, const char *what)
{
	*ret_err = pf_xasprintf("the peer's connection record is malformed: %s", what);
	return -EBADMSG;
}

bool pf_qpv_gid_configured(const union ibv_gid *g)
{
	static const uint8_t fe80[8] = { 0xfe, 0x80 };
	static const uint8_t zero[16];

	if (!memcmp(g->raw, zero, sizeof(zero)))
		return false;
	/* the bare link-local prefix with no interface id: an empty slot */
	return memcmp(g->raw, fe80, sizeof(fe80)) || memcmp(g->raw + 8, zero, 8);
}

static bool zero_bytes(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

int pf_qpv_decode(const void *buf, size_t len, struct pf_qpv_rec *ret, char **ret_err)
{
	const uint8_t *p = buf;
	struct pf_qpv_rec r = { 0 };

	*ret_err = NULL;
	if (len != PF_QPV_REC_LEN)
		return bad(ret_err, len < PF_QPV_REC_LEN ? "too short" : "too long");
	if (get32(p + OFF_MAGIC) != PF_QPV_MAGIC)
		return bad(ret_err, "no record magic");
	if (p[OFF_VERSION] != PF_QPV_VERSION)
		return bad(ret_err, "unknown record version");
	if (!zero_bytes(p + OFF_RSV1, 2) || !zero_bytes(p + OFF_RSV2, PF_QPV_REC_LEN - OFF_RSV2))
		return bad(ret_err, "reserved bytes set");
	r.link_layer = p[OFF_LL];
	if (r.link_layer != IBV_LINK_LAYER_INFINIBAND && r.link_layer != IBV_LINK_LAYER_ETHERNET)
		return bad(ret_err, "unknown link layer");
	r.mtu = p[OFF_MTU];
	if (r.mtu < IBV_MTU_256 || r.mtu > IBV_MTU_4096)
		return bad(ret_err, "MTU is no IBV_MTU_256..4096");
	r.gid_index = p[OFF_GIDX];
	r.lid = get16(p + OFF_LID);
	memcpy(r.gid.raw, p + OFF_GID, sizeof(r.gid.raw));
	if (r.link_layer == IBV_LINK_LAYER_INFINIBAND && (!r.lid || r.lid > QPV_LID_UNICAST_MAX))
		return bad(ret_err, "InfiniBand LID is not a unicast LID");
	if (r.link_layer == IBV_LINK_LAYER_ETHERNET && !pf_qpv_gid_configured(&r.gid))
		return bad(ret_err, "RoCE GID is empty");
	r.qpn = get32(p + OFF_QPN);
	if (r.qpn > PF_QPV_24BITS || r.qpn < 2)
		return bad(ret_err, "QPN is not a 24-bit QP number above QP1");
	r.psn = get32(p + OFF_PSN);
	if (r.psn > PF_QPV_24BITS)
		return bad(ret_err, "PSN is wider than 24 bits");
	r.rkey = get32(p + OFF_RKEY);
	r.addr = get64(p + OFF_ADDR);
	r.slot_stride = get32(p + OFF_STRIDE);
	r.slots = get32(p + OFF_SLOTS);
	if (!r.addr)
		return bad(ret_err, "buffer address 0");
	if (!r.slots || r.slots > PF_QPV_MAX_SLOTS || !r.slot_stride)
		return bad(ret_err, "slot layout out of range");
	if ((uint64_t)r.slots * r.slot_stride > UINT64_MAX - r.addr)
		return bad(ret_err, "buffer runs past the end of the address space");
	*ret = r;
	return 0;
}

static bool ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static int env_index(const char *s, int n, int *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v >= n)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int pf_qpv_pick_gid(const struct pf_qpv_gid *tbl, int n, const char *env_gid_index, int *ret)
{
	int v4 = -1, v2 = -1;

	if (env_gid_index && *env_gid_index)
		return env_index(env_gid_index, n, ret);
	for (int i = 0; i < n; i++) {
		if (!pf_qpv_gid_configured(&tbl[i].gid))
			continue;
		if (ipv4_mapped(&tbl[i].gid)) {
			if (tbl[i].roce_version == 2) {
				*ret = i;
				return 0;
			}
			if (v4 < 0)
				v4 = i;
		} else if (tbl[i].roce_version == 2 && v2 < 0) {
			v2 = i;
		}
	}
	if (v4 >= 0)
		*ret = v4;
	else if (n > 0 && pf_qpv_gid_configured(&tbl[0].gid))
		*ret = 0;
	else if (v2 >= 0)
		*ret = v2;
	else
		return -EADDRNOTAVAIL;
	return 0;
}

enum ibv_mtu pf_qpv_path_mtu(enum ibv_mtu a, enum ibv_mtu b)
{
	return a < b ? a : b;
}

static int errno_or(int fallback)
{
	return errno > 0 ? errno : fallback;
}

struct ibv_qp_init_attr pf_qpv_qp_attr(struct ibv_cq *cq, unsigned int depth)
{
	return (struct ibv_qp_init_attr){
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
}

int pf_qpv_create(const struct pf_verbs_api *api, struct ibv_pd *pd, struct ibv_cq *cq,
		  unsigned int depth, struct ibv_qp **ret_qp)
{
	struct ibv_qp_init_attr ia = pf_qpv_qp_attr(cq, depth);

	errno = 0;
	*ret_qp = api->create_qp(pd, &ia);
	return *ret_qp ? 0 : -errno_or(ENOMEM);
}

/* ibv_modify_qp answers a positive errno (the provider's), rarely -1 with errno. */
static int modify(const struct pf_verbs_api *api, struct ibv_qp *qp, struct ibv_qp_attr *a,
		  int mask, const char *to, uint8_t port, char **ret_err)
{
	int r;

	errno = 0;
	r = api->modify_qp(qp, a, mask);
	if (!r)
		return 0;
	r = r > 0 ? r : errno_or(EINVAL);
	*ret_err = pf_xasprintf("ibv_modify_qp to %s on port %u: %s", to, port, strerror(r));
	return -r;
}

int pf_qpv_init(const struct pf_verbs_api *api, struct ibv_qp *qp, uint8_t port, char **ret_err)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = port,
		.qp_access_flags = QPV_ACCESS,
	};

	*ret_err = NULL;
	return modify(api, qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		      IBV_QP_ACCESS_FLAGS, "INIT", port, ret_err);
}

/* The peer sits in another IB subnet: its GID's 64-bit subnet prefix is not ours. */
static bool other_subnet(const struct pf_qpv_rec *me, const struct pf_qpv_rec *peer)
{
	return pf_qpv_gid_configured(&peer->gid) && pf_qpv_gid_configured(&me->gid) &&
	       memcmp(me->gid.raw, peer->gid.raw, 8);
}

/* The RTR address vector to @peer: LID on IB (GRH across subnets), GID and GRH on RoCE. */
static int address(uint8_t port, const struct pf_qpv_rec *me, const struct pf_qpv_rec *peer,
		   struct ibv_ah_attr *ah, char **ret_err)
{
	bool grh;

	*ah = (struct ibv_ah_attr){ .port_num = port, .sl = 0, .src_path_bits = 0 };
	if (me->link_layer != peer->link_layer) {
		*ret_err = pf_xasprintf("the peer's port is %s, this one %s",
					peer->link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand",
					me->link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand");
		return -EPROTO;
	}
	if (me->link_layer == IBV_LINK_LAYER_INFINIBAND) {
		ah->dlid = peer->lid;
		grh = other_subnet(me, peer);
	} else {
		if (!pf_qpv_gid_configured(&me->gid)) {
			*ret_err = pf_xasprintf("GID index %u of port %u is empty", me->gid_index,
						port);
			return -EINVAL;
		}
		grh = true;
	}
	if (grh) {
		ah->is_global = 1;
		ah->grh.dgid = peer->gid;
		ah->grh.sgid_index = me->gid_index;
		ah->grh.hop_limit = QPV_HOP_LIMIT;
		ah->grh.traffic_class = 0;
	}
	return 0;
}

int pf_qpv_rtr_rts(const struct pf_verbs_api *api, struct ibv_qp *qp, uint8_t port,
		   const struct pf_qpv_rec *me, const struct pf_qpv_rec *peer, char **ret_err)
{
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = pf_qpv_path_mtu((enum ibv_mtu)me->mtu, (enum ibv_mtu)peer->mtu),
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = QPV_MIN_RNR_TIMER,
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.timeout = QPV_TIMEOUT,
		.retry_cnt = QPV_RETRY,
		.rnr_retry = QPV_RETRY,
		.sq_psn = me->psn,
		.max_rd_atomic = 1,
	};
	int r;

	*ret_err = NULL;
	r = address(port, me, peer, &rtr.ah_attr, ret_err);
	if (r)
		return r;
	r = modify(api, qp, &rtr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR", port,
		   ret_err);
	if (r)
		return r;
	return modify(api, qp, &rts, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		      IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS", port,
		      ret_err);
}

int pf_qpv_send(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, char **ret_err)
{
	uint8_t out[PF_QPV_REC_LEN];
	int r;

	*ret_err = NULL;
	pf_qpv_encode(mine, out);
	r = ch->send(ch->ctx, out, sizeof(out));
	if (r)
		*ret_err = pf_xasprintf("sending the connection record: %s", strerror(-r));
	return r;
}

int pf_qpv_recv(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, int ms,
		struct pf_qpv_rec *ret_peer, char **ret_err)
{
	uint8_t in[PF_QPV_REC_LEN + 1];
	long n;
	int r;

	*ret_err = NULL;
	/* one byte more than a record: a longer message is caught, not cut */
	n = ch->recv(ch->ctx, in, sizeof(in), ms);
	if (n == -ETIMEDOUT) {
		*ret_err = pf_xasprintf("no connection record from the peer within %d ms", ms);
		return -ETIMEDOUT;
	}
	if (n == -EMSGSIZE)
		return bad(ret_err, "too long");
	if (n < 0) {
		*ret_err = pf_xasprintf("the peer went away before sending its connection record "
					"(%s)", strerror((int)-n));
		return (int)n;
	}
	r = pf_qpv_decode(in, (size_t)n, ret_peer, ret_err);
	if (r)
		return r;
	if (ret_peer->slots != mine->slots || ret_peer->slot_stride != mine->slot_stride) {
		*ret_err = pf_xasprintf("the peer's slot layout (%u x %u bytes) is not this end's "
					"(%u x %u)", ret_peer->slots, ret_peer->slot_stride,
					mine->slots, mine->slot_stride);
		return -EBADMSG;
	}
	return 0;
}

int pf_qpv_exchange(const struct pf_qpv_chan *ch, const struct pf_qpv_rec *mine, int ms,
		    struct pf_qpv_rec *ret_peer, char **ret_err)
{
	int r = pf_qpv_send(ch, mine, ret_err);

	return r ? r : pf_qpv_recv(ch, mine, ms, ret_peer, ret_err);
}

/* ---- the in-process channel ------------------------------------------ */

static int box_put(struct pf_qpv_box *b, const uint8_t *buf, size_t len)
{
	if (b->closed)
		return -ECONNRESET;
	if (b->full || len > sizeof(b->buf))
		return -EMSGSIZE;
	memcpy(b->buf, buf, len);
	b->len = len;
	b->full = true;
	return 0;
}

static long box_take(struct pf_qpv_box *b, uint8_t *buf, size_t cap)
{
	if (!b->full)
		return b->closed ? -ECONNRESET : -ETIMEDOUT;
	if (b->len > cap)
		return -EMSGSIZE;
	memcpy(buf, b->buf, b->len);
	b->full = false;
	return (long)b->len;
}

static int send0(void *ctx, const uint8_t *buf, size_t len)
{
	return box_put(&((struct pf_qpv_pair *)ctx)->box[1], buf, len);
}

static int send1(void *ctx, const uint8_t *buf, size_t len)
{
	return box_put(&((struct pf_qpv_pair *)ctx)->box[0], buf, len);
}

static long recv0(void *ctx, uint8_t *buf, size_t cap, int ms)
{
	(void)ms; /* one thread: what is not there yet never comes */
	return box_take(&((struct pf_qpv_pair *)ctx)->box[0], buf, cap);
}

static long recv1(void *ctx, uint8_t *buf, size_t cap, int ms)
{
	(void)ms;
	return box_take(&((struct pf_qpv_pair *)ctx)->box[1], buf, cap);
}

struct pf_qpv_chan pf_qpv_pair_chan(struct pf_qpv_pair *p, int i)
{
	return (struct pf_qpv_chan){
		.ctx = p,
		.send = i ? send1 : send0,
		.recv = i ? recv1 : recv0,
	};
}
