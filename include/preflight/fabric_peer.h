/* SPDX-License-Identifier: MIT */
/*
 * fabric_peer.h - the fabric engine across two nodes: one end per process
 * (src/traffic/fabric_peer.c), for `preflight mesh` (docs/mesh.md).
 *
 * The passive side (pf_fabp_listen) listens with RDMA-CM on its rail's
 * IPv4 address and port, accepts one connection whose private data carries
 * the tag it expects (round, source rank), rejects any other with its own
 * expected tag in the reject's private data, hands its target buffer
 * (address, rkey, slot stride, slots) to the writer in the accept's private
 * data, and stays up until the writer disconnects or its deadline.
 *
 * The active side (pf_fabp_write) resolves the partner rail's address and
 * connects, retrying while nobody listens there yet (REJECTED, invalid
 * service ID; UNREACHABLE; an address that does not resolve) until its
 * deadline, runs ib_write_bw's timed WRITE loop (fabric.h: warm-up, a
 * timed run, every slot its own pattern), then checks that the data landed
 * by RDMA READ of every written slot back into a local buffer (no control
 * channel besides RDMA-CM), writes every slot once more with fresh patterns
 * and reads them back again, and disconnects.
 *
 * Private data (big-endian): request "PFM1" 'Q' round src msg_size (20
 * bytes, within the 56 a REQ carries); accept "PFM1" 'P' round src addr
 * rkey stride slots (36); reject "PFM1" 'J' round src why (20), the round
 * and source the listener expects.
 *
 * With a channel (opts.chan), neither end uses RDMA-CM: each opens its
 * rail with libibverbs, makes its QP, sends its exchange record (LID, GID
 * and GID index, QPN, PSN, MTU, rkey, address, slot layout) over the
 * channel and receives the peer's, and moves its own QP to RTS, as
 * perftest without -R and NCCL do; the rail needs no IP address.  The
 * listener then holds its buffer until the channel says the writer is done.
 *
 * Every wait is bounded; every error is a -errno with ret->stage and a
 * sentence in ret->err, as pf_fabric_flow's.  It never prints.
 */
#ifndef PREFLIGHT_FABRIC_PEER_H
#define PREFLIGHT_FABRIC_PEER_H

#include <stdint.h>

#include "preflight/fabric.h"

/*
 * The out-of-band channel of the verbs way, the caller's (the mesh: its
 * rendezvous).  send: this end's record, 0 or -errno.  recv: the peer's
 * record (at most @cap bytes) within @ms: its length, -ETIMEDOUT, or
 * -ECONNRESET (the peer sent none).  ready: this end's QP is at RTS; 0
 * once the peer's is too (perftest's handshake after connecting), within
 * @ms, else -ETIMEDOUT or -ECONNRESET (the peer's end failed).  done (the
 * listener): within @ms, 0 once the writer has finished with this end's
 * buffer, else -ETIMEDOUT.
 */
struct pf_fabp_chan {
	void *ctx;
	int (*send)(void *ctx, const uint8_t *buf, size_t len);
	long (*recv)(void *ctx, uint8_t *buf, size_t cap, int ms);
	int (*ready)(void *ctx, int ms);
	int (*done)(void *ctx, int ms);
};

struct pf_fabp_opts {
	/*
	 * api, cm, msg_size, tx_depth, cq_mod, warmup, duration_ms, timeout_ms,
	 * resolve_timeout_ms, slots, page_size as for pf_fabric_flow (conn is
	 * PF_FAB_CM).  The writer: src is this node's rail, dst the partner's
	 * (ip; dev for messages only).  The listener: dst is this node's rail,
	 * src the partner's (for messages only).
	 */
	struct pf_fab_opts fab;
	uint16_t port;          /* RDMA-CM port of the listener, host order */
	uint32_t round, src;    /* the tag: the writer's round and rank */
	unsigned int connect_ms; /* writer: keep trying this long; listener: wait this
				  * long for the writer's request */
	unsigned int linger_ms; /* listener: once connected, wait this long for the
				 * writer to disconnect */
	unsigned int retry_ms;  /* writer: the pause between attempts */
	/*
	 * Set: connect with plain verbs over this channel, not RDMA-CM (port
	 * and the ends' ip unused; fab.src/dst.gid_index: this end's GID on
	 * RoCE).  The peer's record comes within connect_ms; the listener
	 * waits up to linger_ms for done.
	 */
	const struct pf_fabp_chan *chan;
};

/* pf_fab_opts_default, port 0, connect 10 s, linger 30 s, retry 100 ms. */
void pf_fabp_opts_default(struct pf_fabp_opts *o);

/*
 * The listener.  0 when the writer connected with the expected tag and
 * disconnected (ret->stage PF_FAB_DONE; nothing measured here), else
 * -ETIMEDOUT (no request with the tag by connect_ms: ret->note names any
 * request rejected; or no disconnect by linger_ms), -EADDRNOTAVAIL,
 * -EADDRINUSE, -EXDEV (the address is another device's), -ENOMEM, ...
 */
int pf_fabp_listen(const struct pf_fabp_opts *o, struct pf_fab_result *ret);

/*
 * The writer.  0 with gbps, seconds, bytes of the timed run and the data
 * verified; -ETIMEDOUT (nobody accepted by connect_ms, or WRITEs/READs
 * unanswered), -ECONNREFUSED (rejected: the listener expects another tag),
 * -EPROTO (an accept that is not one of ours), -EBADMSG (data: bad_slot,
 * bad_pass, bad_offset), -EIO (an error completion: wc_status), ...
 */
int pf_fabp_write(const struct pf_fabp_opts *o, struct pf_fab_result *ret);

#endif
