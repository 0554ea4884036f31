// SPDX-License-Identifier: MIT
/*
 * mesh_data.c - the data path of `preflight mesh` (docs/mesh.md): for each
 * round of the schedule, this rank and its partner run rail i to rail i
 * (the i-th entry of each rank's rail table) in both directions at once,
 * every rail at once: per rail a listener (the partner writes into this
 * rail) and a writer (this rail writes into the partner's), each in its
 * own thread, with the cross-node fabric engine (fabric_peer.h).  A rail
 * pair whose link layers or roles differ is not run (pf_rail_compat()).
 * The flows connect over RDMA-CM, or (c->verbs) with plain verbs, their
 * records through the rendezvous (mesh_verbs.c).  The writer records what
 * it sent: one measurement per (round, rail).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "text.h"
#include "mesh.h"
#include "preflight/fabric_peer.h"

struct flow {
	struct pf_fabp_opts o;
	struct pf_fab_result r;
	int rc;
	bool writer;
	unsigned int rail;
	pthread_t t;
	bool started;
	struct pf_mesh_vround *v; /* the verbs way: the round's mailbox */
	size_t i;                 /* this flow's slot in it */
};

static const cJSON *rank_entry(const cJSON *table, uint32_t rank)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"),
					    (int)rank);

	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")) ? e : NULL;
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void *flow_main(void *arg)
{
	struct flow *f = arg;

	f->rc = f->writer ? pf_fabp_write(&f->o, &f->r) : pf_fabp_listen(&f->o, &f->r);
	if (f->v)
		pf_mesh_vround_gone(f->v, f->i);
	return NULL;
}

/* The partner of @rank in round @r, or -1. */
long pf_mesh_partner(const struct pf_mesh_schedule *s, size_t r, uint32_t rank)
{
	for (size_t i = 0; i < s->rounds[r].n; i++) {
		if (s->rounds[r].pairs[i].a == rank)
			return s->rounds[r].pairs[i].b;
		if (s->rounds[r].pairs[i].b == rank)
			return s->rounds[r].pairs[i].a;
	}
	return -1;
}

/* The options of one end; false when a rail has no usable address (said in @why). */
static bool flow_opts(const struct pf_mesh_data_cfg *c, struct flow *f, const cJSON *mine,
		      const cJSON *theirs, uint32_t round, uint32_t partner, char *why, size_t wl)
{
	const cJSON *numa = cJSON_GetObjectItemCaseSensitive(mine, "numa");
	const cJSON *gidx = cJSON_GetObjectItemCaseSensitive(mine, "gid_index");
	struct pf_fab_end *me = f->writer ? &f->o.fab.src : &f->o.fab.dst;
	struct pf_fab_end *peer = f->writer ? &f->o.fab.dst : &f->o.fab.src;

	if (!c->verbs && (!str_of(mine, "ip") || !str_of(theirs, "ip"))) {
		snprintf(why, wl, "%s %s has no IPv4 address", str_of(mine, "ip") ? "the partner's rail"
			 : "this rail", str_of(str_of(mine, "ip") ? theirs : mine, "device"));
		return false;
	}
	pf_fabp_opts_default(&f->o);
	f->o.fab.api = c->api;
	f->o.fab.cm = c->cm;
	f->o.fab.msg_size = c->msg_size;
	f->o.fab.duration_ms = c->duration_ms;
	/*
	 * ib_write_bw's 64 KiB WRITEs, 16 outstanding, every 8th signalled: 1 MiB
	 * in flight covers a 400 Gb/s rail's bandwidth-delay product within a
	 * leaf and does not flood a shaped or lossy queue into retransmits;
	 * 8 slots (512 KiB) to write and read back twice after the timed run
	 */
	f->o.fab.tx_depth = 16;
	f->o.fab.cq_mod = 8;
	f->o.fab.warmup = 16;
	f->o.fab.slots = 8;
	f->o.fab.timeout_ms = c->timeout_ms;
	/* a link far below its rate is cut at twice the duration and measured, not "stalled" */
	f->o.fab.max_ms = 2 * (uint64_t)c->duration_ms;
	f->o.port = c->port;
	f->o.round = round;
	f->o.src = f->writer ? c->rank : partner;
	f->o.connect_ms = c->connect_ms;
	f->o.linger_ms = c->duration_ms + c->connect_ms;
	me->dev = str_of(mine, "device");
	peer->dev = str_of(theirs, "device");
	me->port = peer->port = 1;
	me->numa_node = cJSON_IsNumber(numa) ? numa->valueint : -1;
	/* this node's own entry: the GID NCCL would send from (RoCE, the verbs way) */
	me->gid_index = cJSON_IsNumber(gidx) ? gidx->valueint : -1;
	if (c->cu && f->rail < c->n_gpu && c->gpu[f->rail] >= 0) {
		me->mem = PF_LB_GPU;
		me->gpu = c->gpu[f->rail];
		me->host_fallback = c->gpu_fallback;
		f->o.fab.cu = c->cu;
		f->o.fab.export_dmabuf = c->api ? c->api->cu_export_dmabuf : NULL;
	}
	if (c->verbs)
		return me->dev && peer->dev;
	snprintf(me->ip, sizeof(me->ip), "%s", str_of(mine, "ip"));
	snprintf(peer->ip, sizeof(peer->ip), "%s", str_of(theirs, "ip"));
	return me->dev && peer->dev;
}

static cJSON *measurement(uint32_t round, uint32_t src, uint32_t dst, unsigned int rail,
			  const struct flow *f)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddNumberToObject(m, "round", round);
	cJSON_AddNumberToObject(m, "src", src);
	cJSON_AddNumberToObject(m, "dst", dst);
	cJSON_AddNumberToObject(m, "rail", rail);
	cJSON_AddStringToObject(m, "src_dev", f->o.fab.src.dev);
	cJSON_AddStringToObject(m, "dst_dev", f->o.fab.dst.dev);
	cJSON_AddStringToObject(m, "connection", f->o.chan ? "verbs" : "rdma_cm");
	if (f->r.reg[0])
		cJSON_AddStringToObject(m, "memory", f->r.reg[0]); /* host, peermem, dmabuf */
	if (!f->rc && f->r.cut_short)
		cJSON_AddBoolToObject(m, "cut_short", true); /* measured, not READ back */
	/* GPU memory asked for, host memory used (--use-gpu auto): the note says why */
	if (f->o.fab.src.mem == PF_LB_GPU && f->r.reg[0] && !strcmp(f->r.reg[0], "host"))
		cJSON_AddBoolToObject(m, "gpu_fallback", true);
	if (f->r.note[0])
		cJSON_AddStringToObject(m, "note", f->r.note);
	cJSON_AddNumberToObject(m, "gbps", f->rc ? 0 : f->r.gbps);
	cJSON_AddNumberToObject(m, "seconds", f->rc ? 0 : f->r.seconds);
	cJSON_AddNumberToObject(m, "bytes", f->rc ? 0 : (double)f->r.bytes);
	if (f->rc) {
		char err[400];

		snprintf(err, sizeof(err), "%s: %s (%s)", pf_fab_stage_name(f->r.stage), f->r.err,
			 strerror(-f->rc));
		cJSON_AddStringToObject(m, "error", err);
		cJSON_AddStringToObject(m, "stage", pf_fab_stage_name(f->r.stage));
	}
	return m;
}

static void skipped(cJSON *list, uint32_t round, long partner, long rail, const char *why)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddNumberToObject(s, "round", round);
	if (partner >= 0)
		cJSON_AddNumberToObject(s, "peer", (double)partner);
	if (rail >= 0)
		cJSON_AddNumberToObject(s, "rail", (double)rail);
	cJSON_AddStringToObject(s, "why", why);
	cJSON_AddItemToArray(list, s);
}

/* One round with @partner: every rail's listener and writer at once. */
static void data_round(const struct pf_mesh_data_cfg *c, uint32_t round, uint32_t partner,
		       struct pf_mesh_data_out *out, FILE *log)
{
	const cJSON *mine = cJSON_GetObjectItemCaseSensitive(rank_entry(c->table, c->rank), "rails");
	const cJSON *theirs = cJSON_GetObjectItemCaseSensitive(rank_entry(c->table, partner),
							       "rails");
	int n = cJSON_GetArraySize(mine) < cJSON_GetArraySize(theirs) ? cJSON_GetArraySize(mine)
								      : cJSON_GetArraySize(theirs);
	pf_autofree struct flow *fl = pf_xcalloc((size_t)(n > 0 ? n : 1) * 2, sizeof(*fl));
	struct pf_mesh_vround *v = c->verbs ? pf_mesh_vround_new((size_t)(n > 0 ? n : 0) * 2) : NULL;
	double t0 = pf_now_ms();

	if (n <= 0)
		skipped(out->skipped, round, partner, -1, cJSON_GetArraySize(mine) ? "the partner has "
			"no rail" : "this node has no rail");
	for (int i = 0; i < 2 * n; i++) {
		struct flow *f = &fl[i];
		char why[256];

		f->writer = i % 2;
		f->rail = (unsigned int)i / 2;
		f->i = (size_t)i;
		/* not comparable (docs/mesh.md "Rail compatibility"): not run, the judge records it */
		if (pf_mesh_rail_compat(mine, c->rank, theirs, partner, f->rail, why, sizeof(why)) ==
		    PF_RAIL_APART) {
			if (log && f->writer) {
				/* names the partner's devices: from the network, escaped */
				pf_autofree char *clean = pf_utf8_clean(why, true);

				fprintf(log, "  round %u %s: not comparable, not run\n", round,
					clean);
			}
			continue;
		}
		if (!flow_opts(c, f, cJSON_GetArrayItem(mine, i / 2), cJSON_GetArrayItem(theirs, i / 2),
			       round, partner, why, sizeof(why))) {
			if (f->writer)
				skipped(out->skipped, round, partner, i / 2, why);
			continue;
		}
		if (v) {
			f->o.chan = pf_mesh_vround_chan(v, f->i);
			/* the records come after every rank's gather; the buffer goes after the next */
			f->o.linger_ms += 2 * c->rdv->timeout_ms + c->connect_ms + c->timeout_ms;
			f->o.connect_ms += c->rdv->timeout_ms;
		}
		f->v = v;
		f->started = pthread_create(&f->t, NULL, flow_main, f) == 0;
		if (!f->started) {
			f->rc = -EAGAIN;
			snprintf(f->r.err, sizeof(f->r.err), "pthread_create failed");
		}
	}
	if (v) {
		for (int i = 0; i < 2 * n; i++)
			if (!fl[i].started)
				pf_mesh_vround_gone(v, fl[i].i); /* no record will come from it */
		pf_mesh_vround_swap(v, c, round, partner, log);
		/* the writers first: the listeners hold their buffers until the round's barrier */
		for (int i = 1; i < 2 * n; i += 2)
			if (fl[i].started)
				pthread_join(fl[i].t, NULL);
		pf_mesh_vround_finish(v, c, round, log);
	}
	for (int i = 0; i < 2 * n; i++) {
		struct flow *f = &fl[i];

		if (f->started && !(v && f->writer))
			pthread_join(f->t, NULL);
		if (!f->started && !f->rc)
			continue; /* skipped: no address */
		if (f->writer)
			cJSON_AddItemToArray(out->sends, measurement(round, c->rank, partner, f->rail, f));
		else if (f->rc)
			skipped(out->rx_errors, round, partner, f->rail, f->r.err);
		if (log && f->rc) {
			pf_autofree char *clean = pf_utf8_clean(f->r.err, true);

			fprintf(log, "  round %u rail %u %s rank %u: %s\n", round, f->rail,
				f->writer ? "->" : "<-", partner, clean);
		} else if (log)
			fprintf(log, f->writer ? "  round %u rail %u -> rank %u: %.3f Gb/s, %s\n"
				: "  round %u rail %u <- rank %u: the writer finished\n", round,
				f->rail, partner, f->r.gbps, f->r.cut_short ? "cut at its budget "
				"(twice --duration), not read back" : "verified");
	}
	if (log)
		fprintf(log, "round %u with rank %u: %.1f s\n", round, partner,
			(pf_now_ms() - t0) / 1000);
	pf_mesh_vround_free(v);
}

/* The verbs way, a round without a flow here: this rank still takes part in its gathers. */
static void idle_round(const struct pf_mesh_data_cfg *c, uint32_t round, long partner, FILE *log)
{
	struct pf_mesh_vround *v = pf_mesh_vround_new(0);

	pf_mesh_vround_swap(v, c, round, partner, log);
	pf_mesh_vround_finish(v, c, round, log);
	pf_mesh_vround_free(v);
}

void pf_mesh_data_run(const struct pf_mesh_data_cfg *c, struct pf_mesh_data_out *out, FILE *log)
{
	out->sends = cJSON_CreateArray();
	out->skipped = cJSON_CreateArray();
	out->rx_errors = cJSON_CreateArray();
	for (size_t r = 0; c->sched && r < c->sched->n_rounds; r++) {
		long p = pf_mesh_partner(c->sched, r, c->rank);

		if (p >= 0 && !rank_entry(c->table, (uint32_t)p))
			skipped(out->skipped, (uint32_t)r + 1, p, -1, "the partner did not arrive at "
				"the rendezvous");
		if (p < 0 || !rank_entry(c->table, (uint32_t)p)) {
			if (c->verbs)
				idle_round(c, (uint32_t)r + 1, -1, log);
			continue;
		}
		data_round(c, (uint32_t)r + 1, (uint32_t)p, out, log);
	}
}
