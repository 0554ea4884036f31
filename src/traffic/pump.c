// SPDX-License-Identifier: MIT
/*
 * pump.c - the engine's one bandwidth loop (engine.h), perftest's
 * run_iter_bw: tx_depth WRs outstanding on side 0's QP, every cq_mod-th
 * signalled (at most PF_LB_SIGNAL_BYTES apart), completions polled between
 * posts; a run with a time budget (f->stop_at) is cut there and measured.
 * WRs complete in order on an RC QP, so a signalled completion with wr_id
 * i retires every WR up to i.  WR i moves slot i % slots of side 0 to or
 * from slot i % slots of side 1.  The WRITEs of a run and the READs of a
 * check (verify.c) both go through here.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/*
 * Empty polls between two reads of the clock.  The clock is read at every
 * completion (the figure's end), but not at every empty poll: in a VM
 * whose clocksource is not the TSC (qemu's HPET: the rig's guest) every
 * clock_gettime is a system call and an emulated device read, and the
 * busy loop of a flow reading it took the CPU the soft-RoCE transport of
 * both flows needed (docs/checks/fabric_loopback.md, "Rate against
 * perftest").  perftest's loop reads the TSC only at posts and
 * completions.  A timeout or budget is seen at most this many polls late.
 */
#define CLOCK_IDLE_POLLS 256

void pf_eng_prepare_wrs(struct flow *f)
{
	f->wrs = pf_xcalloc(f->o->tx_depth, sizeof(*f->wrs));
	f->sges = pf_xcalloc(f->o->tx_depth, sizeof(*f->sges));
	for (unsigned int i = 0; i < f->o->tx_depth; i++) {
		f->sges[i] = (struct ibv_sge){
			.addr = f->s[0].addr,
			.length = (uint32_t)f->o->msg_size,
			.lkey = f->s[0].mr->lkey,
		};
		f->wrs[i].sg_list = &f->sges[i];
		f->wrs[i].num_sge = 1;
		f->wrs[i].opcode = IBV_WR_RDMA_WRITE;
		f->wrs[i].wr.rdma.remote_addr = f->s[1].addr;
		f->wrs[i].wr.rdma.rkey = f->s[1].rkey;
	}
}

/*
 * The run reached its time budget with WRs outstanding: side 0's QP to
 * ERR, so that they are flushed, then completions until the last
 * signalled WR posted (@last_sig) has one, for at most @timeout_ns; what
 * still completed successfully counts in *done at *t_last.
 */
static int cut(struct flow *f, uint64_t last_sig, uint64_t *done, uint64_t *t_last,
	       uint64_t timeout_ns)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[0];
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	uint64_t t0 = pf_eng_now_ns(f), t;
	struct ibv_wc wc[16];
	int r;

	f->r->cut_short = true;
	errno = 0;
	r = api->modify_qp(s->qp, &a, IBV_QP_STATE);
	if (r)
		return pf_eng_fail(f, PF_FAB_TRANSFER, -EPROTO, "ibv_modify_qp to ERR on %s at "
				   "the end of the run's time budget: %s", f->where,
				   strerror(r > 0 ? r : pf_eng_errno_or(EINVAL)));
	for (bool last = *done > last_sig; !last;) {
		int got = api->poll_cq(s->cq, (int)PF_ARRAY_SIZE(wc), wc);

		if (got < 0)
			return pf_eng_fail(f, PF_FAB_TRANSFER, -EIO, "ibv_poll_cq on %s failed",
					   s->e->dev);
		t = pf_eng_now_ns(f);
		for (int i = 0; i < got; i++) {
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].wr_id + 1 > *done) {
				*done = wc[i].wr_id + 1;
				*t_last = t;
			}
			last = last || wc[i].wr_id >= last_sig;
		}
		if (t - t0 > timeout_ns)
			break; /* destroying the QP flushes the rest */
	}
	return 0;
}

int pf_eng_pump(struct flow *f, uint64_t n, uint64_t duration_ns, uint64_t *ret_n,
		uint64_t *ret_ns)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[0];
	unsigned int depth = f->o->tx_depth;
	unsigned int cq_mod = pf_lb_signal_every(f->o->cq_mod, depth, f->o->msg_size);
	uint64_t posted = 0, done = 0, limit = n, last_sig = 0, t0, t_last, t_now;
	unsigned int idle = 0;
	unsigned int timeout_ms = pf_lb_completion_timeout_ms(f->o->timeout_ms, f->o->msg_size,
							      cq_mod, depth, f->o->min_gbps);
	uint64_t timeout_ns = (uint64_t)timeout_ms * 1000000u;
	struct ibv_wc wc[16];

	t0 = t_last = t_now = pf_eng_now_ns(f);
	while (done < limit) {
		uint64_t room = depth - (posted - done), batch = 0;
		struct ibv_send_wr *bad = NULL;
		int got;

		if (duration_ns && limit == UINT64_MAX && posted && t_now - t0 >= duration_ns)
			limit = (posted + cq_mod - 1) / cq_mod * cq_mod;
		while (batch < room && posted + batch < limit) {
			uint64_t id = posted + batch;
			struct ibv_send_wr *wr = &f->wrs[batch];

			wr->wr_id = id;
			wr->sg_list->addr = s->addr + (id % f->slots) * f->stride;
			wr->wr.rdma.remote_addr = f->s[1].addr + (id % f->slots) * f->stride;
			wr->send_flags = (id + 1) % cq_mod == 0 || id + 1 == limit
						 ? IBV_SEND_SIGNALED : 0;
			if (wr->send_flags)
				last_sig = id;
			wr->next = NULL;
			if (batch)
				f->wrs[batch - 1].next = wr;
			batch++;
		}
		if (batch) {
			int r = api->post_send(s->qp, f->wrs, &bad);

			if (r)
				return pf_eng_fail(f, PF_FAB_TRANSFER, -EIO, "ibv_post_send of WR %llu "
						   "on %s: %s",
						   (unsigned long long)(bad ? bad->wr_id : posted),
						   f->where, strerror(r > 0 ? r : EINVAL));
			posted += batch;
		}
		got = api->poll_cq(s->cq, (int)PF_ARRAY_SIZE(wc), wc);
		if (got < 0)
			return pf_eng_fail(f, PF_FAB_TRANSFER, -EIO, "ibv_poll_cq on %s failed",
					   s->e->dev);
		if (!got && ++idle < CLOCK_IDLE_POLLS)
			continue;
		idle = 0;
		t_now = pf_eng_now_ns(f);
		for (int i = 0; i < got; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				f->r->wc_status = wc[i].status;
				return pf_eng_fail(f, PF_FAB_TRANSFER, -EIO, "WR %llu completed with "
						   "%s (status %d, vendor error 0x%x) on %s",
						   (unsigned long long)wc[i].wr_id,
						   pf_ibv_wc_status_name(wc[i].status),
						   wc[i].status, wc[i].vendor_err, f->where);
			}
			if (wc[i].wr_id + 1 > done)
				done = wc[i].wr_id + 1;
			t_last = t_now;
		}
		/* a budgeted run that has moved data and then waits too long: cut, measured */
		if (!got && t_now - t_last > timeout_ns && f->stop_at && done) {
			pf_eng_note(f, "no completion for %u ms after %llu WRs", timeout_ms,
				    (unsigned long long)done);
			f->stop_at = t_now;
		} else if (!got && t_now - t_last > timeout_ns) {
			f->r->below_gbps = pf_lb_below_gbps(done, cq_mod, f->o->msg_size, t_now - t0);
			return pf_eng_fail(f, PF_FAB_TRANSFER, -ETIMEDOUT, "no completion for %u ms "
					   "on %s (%llu of %llu WRs done): below %.3g Gb/s",
					   timeout_ms, f->where, (unsigned long long)done,
					   (unsigned long long)posted, f->r->below_gbps);
		}
		if (f->stop_at && t_now >= f->stop_at && done < limit) {
			int r = cut(f, last_sig, &done, &t_last, timeout_ns);

			if (r)
				return r;
			break;
		}
	}
	*ret_n = done;
	*ret_ns = t_last - t0;
	return 0;
}
