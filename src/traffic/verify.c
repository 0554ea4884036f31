// SPDX-License-Identifier: MIT
/*
 * verify.c - the engine's data checks (engine.h): side 1's slots against
 * the pattern of a pass, read in place (host memory, or GPU memory copied
 * out) when side 1 is in this process, else by RDMA READ of every written
 * slot back into a host buffer of side 0 (fabric_peer's writer: no channel
 * besides RDMA-CM), through the same pump as the WRITEs; not after a run
 * cut at its time budget (its QP is in ERR), which says so in a note.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

int pf_eng_readback_open(struct flow *f, struct pf_eng_readback *rb)
{
	rb->len = pf_eng_round_up(f->span, f->page);
	rb->buf = aligned_alloc(f->page, rb->len);
	if (!rb->buf)
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOMEM, "cannot allocate %zu bytes to read "
				   "back into", rb->len);
	errno = 0;
	rb->mr = f->o->api->reg_mr(f->s[0].pd, rb->buf, rb->len, IBV_ACCESS_LOCAL_WRITE);
	if (!rb->mr)
		return pf_eng_fail(f, PF_FAB_MEMORY, -EFAULT, "ibv_reg_mr of the read-back buffer "
				   "on %s: %s", f->s[0].e->dev, strerror(pf_eng_errno_or(EFAULT)));
	f->readback = rb;
	return 0;
}

void pf_eng_readback_release(struct flow *f, struct pf_eng_readback *rb)
{
	if (rb->mr)
		f->o->api->dereg_mr(rb->mr);
	free(rb->buf);
	*rb = (struct pf_eng_readback){ 0 };
	f->readback = NULL;
}

/* The WRs as READs of side 1 into @rb, or back to WRITEs from side 0's buffer. */
static void wrs_read_into(struct flow *f, struct pf_eng_readback *rb)
{
	for (unsigned int i = 0; i < f->o->tx_depth; i++) {
		f->wrs[i].opcode = rb ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
		f->sges[i].lkey = rb ? rb->mr->lkey : f->s[0].mr->lkey;
	}
}

static int verify_readback(struct flow *f, unsigned int pass, unsigned int n)
{
	struct pf_eng_readback *rb = f->readback;
	struct side *s = &f->s[0];
	uint64_t keep_addr = s->addr, done, ns;
	int r;

	if (f->r->cut_short) { /* side 0's QP is in ERR: nothing can be read back */
		pf_eng_note(f, "pass %u not read back", pass);
		return 0;
	}
	wrs_read_into(f, rb);
	s->addr = (uint64_t)(uintptr_t)rb->buf;
	memset(rb->buf, 0, f->span);
	r = n ? pf_eng_pump(f, n, 0, &done, &ns) : 0;
	s->addr = keep_addr;
	wrs_read_into(f, NULL);
	if (r) {
		char why[sizeof(f->r->err)];

		memcpy(why, f->r->err, sizeof(why));
		return pf_eng_fail(f, PF_FAB_VERIFY, r, "RDMA READ back of pass %u: %s", pass, why);
	}
	return pf_eng_check_slots(f, rb->buf, pass, n);
}

int pf_eng_verify(struct flow *f, unsigned int pass, unsigned int n)
{
	struct side *d = &f->s[1];
	pf_autofree uint8_t *copy = NULL;
	const uint8_t *dst;
	int r;

	if (f->readback)
		return verify_readback(f, pass, n);
	r = d->mem->view(f, d, &dst, &copy);
	return r ? r : pf_eng_check_slots(f, dst, pass, n);
}

int pf_eng_refill(struct flow *f, unsigned int pass)
{
	struct side *s = &f->s[0];

	return s->mem->fill(f, s, (int)pass, PF_FAB_VERIFY);
}
