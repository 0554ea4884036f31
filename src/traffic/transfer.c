// SPDX-License-Identifier: MIT
/*
 * transfer.c - ib_write_bw's run on a connected flow (engine.h): a
 * warm-up, the timed WRITEs (from the first post to the last completion),
 * the check of every written slot, then, for a second pass, fresh patterns
 * written once into every slot and checked again (a WRITE that never
 * landed leaves the old pattern).
 */
#include "engine.h"

int pf_eng_transfer(struct flow *f)
{
	uint64_t n, ns;
	int r;

	f->r->stage = PF_FAB_TRANSFER;
	pf_eng_prepare_wrs(f);
	if (f->o->warmup) {
		r = pf_eng_pump(f, f->o->warmup, 0, &n, &ns);
		if (r)
			return r;
		f->n_written += n;
	}
	if (f->o->duration_ms)
		r = pf_eng_pump(f, UINT64_MAX, f->o->duration_ms * 1000000u, &n, &ns);
	else
		r = pf_eng_pump(f, f->o->iterations, 0, &n, &ns);
	if (r)
		return r;
	f->n_written += n;
	f->r->iterations = n;
	f->r->bytes = n * f->o->msg_size;
	f->r->seconds = (double)ns / 1e9;
	f->r->gbps = pf_lb_gbps(f->r->bytes, ns);
	r = pf_eng_verify(f, f->first_pass,
			  f->n_written < f->slots ? (unsigned int)f->n_written : f->slots);
	if (r || !f->second_pass)
		return r;
	r = pf_eng_refill(f, f->first_pass + 1);
	if (!r)
		r = pf_eng_pump(f, f->slots, 0, &n, &ns);
	if (r) {
		if (f->r->stage == PF_FAB_TRANSFER)
			f->r->stage = PF_FAB_VERIFY;
		return r;
	}
	return pf_eng_verify(f, f->first_pass + 1, f->slots);
}
