// SPDX-License-Identifier: MIT
/*
 * connect_peer.c - the plain-verbs connection of a flow with one side in
 * this process and the other on another node (engine.h): this side's QP
 * made and at INIT, the exchange records (qp_verbs.h) swapped over the
 * caller's channel (the mesh: its rendezvous, under the run's MAC), the
 * peer's record validated as hostile bytes, then this QP to RTR and RTS.
 * perftest's ib_write_bw without -R connects the same way over its TCP
 * socket; no RDMA-CM and no IP address on the rail is needed.
 */
#include <string.h>

#include "engine.h"

int pf_eng_connect_peer(struct flow *f, int i, const struct pf_qpv_chan *ch, int ms)
{
	struct pf_qpv_rec mine, peer;
	pf_autofree char *err = NULL;
	int r;

	r = pf_eng_verbs_open(f, i);
	if (!r)
		r = pf_eng_side_resources(f, i);
	if (!r)
		r = pf_eng_verbs_qp(f, i);
	if (r)
		return r;
	mine = pf_eng_verbs_rec(f, i);
	r = pf_qpv_exchange(ch, &mine, ms, &peer, &err);
	if (r)
		return pf_eng_fail(f, PF_FAB_CONNECT, r, "%s/%u: %s", f->s[i].e->dev,
				   f->s[i].e->port, err);
	/* the remote side: only what its record says */
	f->s[1 - i].addr = peer.addr;
	f->s[1 - i].rkey = peer.rkey;
	r = pf_eng_verbs_join(f, i, &mine, &peer);
	if (r || !ch->ready)
		return r;
	/* both QPs at RTS before the first WRITE, as perftest's handshake after connecting */
	r = ch->ready(ch->ctx, ms);
	if (r)
		return pf_eng_fail(f, PF_FAB_CONNECT, r, "%s/%u: the peer's QP %s", f->s[i].e->dev,
				   f->s[i].e->port, r == -ETIMEDOUT ? "was not ready in time"
				   : "never came up (its end failed)");
	return 0;
}
