// SPDX-License-Identifier: MIT
/*
 * transfer.c - ib_write_bw's run on a connected flow (engine.h): a
 * warm-up, the timed WRITEs (from the first post to the last completion),
 * the check of every written slot, then, for a second pass, fresh patterns
 * written once into every slot and checked again (a WRITE that never
 * landed leaves the old pattern).  A run with a time budget (opts.max_ms)
 * that reaches it is cut (pump.c) and measured over what completed; its
 * written slots are checked, the second pass is not run.
 */
#include "engine.h"

void pf_eng_timed_end(struct flow *f)
{
	void (*fn)(struct flow *f) = f->timed_end;

	f->timed_end = NULL;
	if (fn)
		fn(f);
}

int pf_eng_transfer(struct flow *f)
{
	uint64_t n = 0, ns = 0;
	bool warm_cut;
	int r;

	f->r->stage = PF_FAB_TRANSFER;
	pf_eng_prepare_wrs(f);
	if (f->o->max_ms)
		f->stop_at = pf_eng_now_ns(f) + f->o->max_ms * 1000000u;
	if (f->o->warmup) {
		r = pf_eng_pump(f, f->o->warmup, 0, &n, &ns);
		if (r) {
			pf_eng_timed_end(f);
			return r;
		}
		f->n_written += n;
	}
	/* cut short in the warm-up: its WRs are the figure */
	warm_cut = f->r->cut_short;
	if (warm_cut)
		r = 0;
	else if (f->o->duration_ms)
		r = pf_eng_pump(f, UINT64_MAX, f->o->duration_ms * 1000000u, &n, &ns);
	else
		r = pf_eng_pump(f, f->o->iterations, 0, &n, &ns);
	f->stop_at = 0; /* the checks' WRs are not cut */
	pf_eng_timed_end(f);
	if (r)
		return r;
	if (!warm_cut)
		f->n_written += n;
	f->r->iterations = n;
	f->r->bytes = n * f->o->msg_size;
	f->r->seconds = (double)ns / 1e9;
	f->r->gbps = pf_lb_gbps(f->r->bytes, ns);
	if (f->r->cut_short)
		pf_eng_note(f, "cut short after %.1f s (max_ms %llu): measured over %llu WRs%s%s",
			    (double)ns / 1e9, (unsigned long long)f->o->max_ms,
			    (unsigned long long)n, warm_cut ? " of the warm-up" : "",
			    f->second_pass ? "; fresh patterns not written" : "");
	r = pf_eng_verify(f, f->first_pass,
			  f->n_written < f->slots ? (unsigned int)f->n_written : f->slots);
	/* side 0's QP is in ERR after a cut: no second pass */
	if (r || !f->second_pass || f->r->cut_short)
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
