// SPDX-License-Identifier: MIT
/*
 * loopback.c - the RDMA WRITE loopback behind gdr_loopback
 * (include/preflight/loopback.h): a flow of the engine (engine.h) whose
 * two sides are one port of one device, opened twice and connected with
 * plain verbs in this process (connect_local.c), one pattern pass checked
 * in place, memory registered with relaxed ordering.
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "preflight/loopback.h"

#define LB_ACCESS (ENG_ACCESS | IBV_ACCESS_RELAXED_ORDERING)
#define LB_PSN_A 0x1a2b3
#define LB_PSN_B 0x4c5d6

void pf_lb_opts_default(struct pf_lb_opts *o)
{
	*o = (struct pf_lb_opts){
		.port = 1,
		.gid_index = -1,
		.msg_size = 8u << 20,
		.tx_depth = 128,
		.cq_mod = 100,
		.warmup = 1000,
		.iterations = 5000,
		.timeout_ms = 2000,
		.mem = PF_LB_HOST,
		.numa_node = -1,
	};
}

const char *pf_lb_stage_name(enum pf_lb_stage s)
{
	static const char *const names[] = { "open", "memory", "connect", "transfer", "verify",
					     "done" };

	return s <= PF_LB_DONE ? names[s] : "?";
}

static enum pf_lb_stage lb_stage(enum pf_fab_stage st)
{
	switch (st) {
	case PF_FAB_OPEN:
	case PF_FAB_ADDR:
	case PF_FAB_ROUTE:
		return PF_LB_OPEN;
	case PF_FAB_MEMORY:
		return PF_LB_MEMORY;
	case PF_FAB_CONNECT:
		return PF_LB_CONNECT;
	case PF_FAB_TRANSFER:
		return PF_LB_TRANSFER;
	case PF_FAB_VERIFY:
		return PF_LB_VERIFY;
	case PF_FAB_DONE:
		break;
	}
	return PF_LB_DONE;
}

/* Both ends of the flow: the loopback's device, port and memory. */
static struct pf_fab_end lb_end(const struct pf_lb_opts *o)
{
	return (struct pf_fab_end){
		.dev = o->dev,
		.port = o->port,
		.numa_node = o->numa_node,
		.gid_index = o->gid_index,
		.mem = o->mem,
		.gpu = o->gpu,
	};
}

static void fab_opts(const struct pf_lb_opts *o, struct pf_fab_opts *fo)
{
	*fo = (struct pf_fab_opts){
		.api = o->api,
		.conn = PF_FAB_VERBS,
		.src = lb_end(o),
		.dst = lb_end(o),
		.msg_size = o->msg_size,
		.tx_depth = o->tx_depth,
		.cq_mod = o->cq_mod,
		.warmup = o->warmup,
		.iterations = o->iterations,
		.duration_ms = o->duration_ms,
		.timeout_ms = o->timeout_ms,
		.min_gbps = o->min_gbps,
		.max_ms = o->max_ms,
		.slots = o->slots,
		.page_size = o->page_size,
		.cu = o->cu,
		.export_dmabuf = o->export_dmabuf,
		.reg = o->reg,
	};
}

/* What the loopback's caller reads of the flow's result and its first side. */
static void lb_result(const struct flow *f, const struct pf_fab_result *fr,
		      struct pf_lb_result *ret)
{
	const struct side *s = &f->s[0];

	*ret = (struct pf_lb_result){
		.stage = lb_stage(fr->stage),
		.gbps = fr->gbps,
		.seconds = fr->seconds,
		.bytes = fr->bytes,
		.iterations = fr->iterations,
		.reg = fr->reg[0],
		.numa_local = s->host_numa,
		.link_layer = s->pa.link_layer,
		.mtu = pf_ibv_mtu_bytes(s->pa.active_mtu),
		.lid = s->pa.lid,
		.wc_status = fr->wc_status,
		.bad_offset = fr->bad_offset,
		.slots = fr->slots,
		.bad_slot = fr->bad_slot,
		.page_size = f->page,
		.below_gbps = fr->below_gbps,
		.cut_short = fr->cut_short,
	};
	memcpy(ret->note, fr->note, sizeof(ret->note));
	memcpy(ret->err, fr->err, sizeof(ret->err));
}

int pf_loopback_run(const struct pf_lb_opts *o, struct pf_lb_result *ret)
{
	struct pf_fab_result fr = { .stage = PF_FAB_OPEN, .cm_event = -1 };
	struct pf_fab_opts fo;
	struct flow f;
	int r;

	*ret = (struct pf_lb_result){ .stage = PF_LB_OPEN };
	if (!o->api || !o->dev || !o->msg_size || o->msg_size > UINT32_MAX || !o->tx_depth) {
		snprintf(ret->err, sizeof(ret->err), "invalid loopback options");
		return -EINVAL;
	}
	fab_opts(o, &fo);
	pf_eng_init(&f, &fo, &fr);
	snprintf(f.where, sizeof(f.where), "%s/%u", o->dev, o->port);
	f.mr_access = LB_ACCESS;
	f.psn[0] = LB_PSN_A;
	f.psn[1] = LB_PSN_B;
	f.first_pass = 0;
	f.second_pass = false;
	r = pf_eng_layout(&f);
	if (!r)
		r = pf_eng_connect_local(&f);
	if (!r)
		r = pf_eng_transfer(&f);
	if (!r)
		fr.stage = PF_FAB_DONE;
	lb_result(&f, &fr, ret);
	pf_eng_release(&f);
	return r;
}

int pf_loopback_roce_gid(const struct pf_fs *fs, const char *dev, unsigned int port,
			 int *ret_index, char ret_ip[16])
{
	for (int i = 0; i < 256; i++) {
		pf_autofree char *type = NULL, *gid = NULL;
		unsigned int w[8];
		int r;

		r = pf_fs_readf_line(fs, &type, "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
				     "types/%d", dev, port, i);
		if (r == -ENOENT)
			break;
		if (r < 0 || strcmp(type, "RoCE v2") != 0)
			continue;
		if (pf_fs_readf_line(fs, &gid, "/sys/class/infiniband/%s/ports/%u/gids/%d", dev,
				     port, i) < 0)
			continue;
		if (sscanf(gid, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &w[0], &w[1], &w[2], &w[3],
			   &w[4], &w[5], &w[6], &w[7]) != 8)
			continue;
		if (w[0] || w[1] || w[2] || w[3] || w[4] || w[5] != 0xffff)
			continue;
		*ret_index = i;
		snprintf(ret_ip, 16, "%u.%u.%u.%u", (w[6] >> 8) & 0xff, w[6] & 0xff, (w[7] >> 8) & 0xff,
			 w[7] & 0xff);
		return 0;
	}
	return -ENOENT;
}
