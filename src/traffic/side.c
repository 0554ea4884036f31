// SPDX-License-Identifier: MIT
/*
 * side.c - one side of a flow (engine.h): its PD, CQ and buffer, the
 * attributes of its RC QP, and the release of a flow whose two sides are
 * in this process.
 */
#include <stdlib.h>

#include "engine.h"
#include "qp_verbs.h"

int pf_eng_side_resources(struct flow *f, int i)
{
	const struct pf_verbs_api *api = f->o->api;
	struct side *s = &f->s[i];
	int cqe = (int)f->o->tx_depth * 2, r;

	s->pd = api->alloc_pd(s->ctx);
	if (!s->pd)
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOMEM, "ibv_alloc_pd(%s) failed", s->e->dev);
	s->cq = api->create_cq(s->ctx, cqe, NULL, NULL, 0);
	if (!s->cq)
		return pf_eng_fail(f, PF_FAB_MEMORY, -ENOMEM, "ibv_create_cq(%s, %d) failed",
				   s->e->dev, cqe);
	r = pf_eng_side_memory(f, i);
	if (!r)
		s->rkey = s->mr->rkey;
	return r;
}

struct ibv_qp_init_attr pf_eng_qp_attr(struct flow *f, struct side *s)
{
	return pf_qpv_qp_attr(s->cq, f->o->tx_depth);
}

/* QPs, then CQs, MRs and buffers, PDs, ids, the channel; verbs: contexts last. */
void pf_eng_release(struct flow *f)
{
	const struct pf_verbs_api *api = f->o->api;
	const struct pf_rdmacm_api *cm = f->o->cm;
	struct pf_fab_result keep = *f->r;

	if (f->connected && f->s[0].id)
		cm->disconnect(f->s[0].id);
	for (int i = 0; i < 2; i++) {
		if (f->s[i].id && f->s[i].id->qp)
			cm->destroy_qp(f->s[i].id);
		else if (f->s[i].qp && !f->s[i].id)
			api->destroy_qp(f->s[i].qp);
	}
	for (int i = 0; i < 2; i++)
		if (f->s[i].cq)
			api->destroy_cq(f->s[i].cq);
	for (int i = 0; i < 2; i++)
		pf_eng_mem_release(f, &f->s[i]);
	for (int i = 0; i < 2; i++)
		if (f->s[i].pd)
			api->dealloc_pd(f->s[i].pd);
	for (int i = 1; i >= 0; i--)
		if (f->s[i].id)
			cm->destroy_id(f->s[i].id);
	if (f->listen)
		cm->destroy_id(f->listen);
	if (f->ch)
		cm->destroy_event_channel(f->ch);
	for (int i = 0; i < 2; i++)
		if (f->s[i].own_ctx)
			api->close_device(f->s[i].ctx);
	if (f->list)
		api->free_device_list(f->list);
	free(f->wrs);
	free(f->sges);
	*f->r = keep;
}
