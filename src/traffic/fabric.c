// SPDX-License-Identifier: MIT
/*
 * fabric.c - RDMA WRITE between two NICs of this node
 * (include/preflight/fabric.h): a flow of the engine (engine.h) whose two
 * sides are in this process, connected by the op its options name
 * (RDMA-CM, or plain verbs), and rounds of such flows run at once (their
 * checks after every flow's timed run).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

void pf_fab_opts_default(struct pf_fab_opts *o)
{
	*o = (struct pf_fab_opts){
		.conn = PF_FAB_CM,
		.src = { .port = 1, .numa_node = -1, .gid_index = -1 },
		.dst = { .port = 1, .numa_node = -1, .gid_index = -1 },
		.msg_size = 1u << 20,
		.tx_depth = 128,
		.cq_mod = 100,
		.warmup = 200,
		.iterations = 2000,
		.timeout_ms = 2000,
		.resolve_timeout_ms = 2000,
	};
}

const char *pf_fab_stage_name(enum pf_fab_stage s)
{
	static const char *const names[] = { "open", "resolve_addr", "resolve_route", "memory",
					     "connect", "transfer", "verify", "done" };

	return s <= PF_FAB_DONE ? names[s] : "?";
}

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t expected, arrived;
};

static void gate_arrive(struct gate *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->arrived++;
	pthread_cond_broadcast(&g->cond);
	while (g->arrived < g->expected)
		pthread_cond_wait(&g->cond, &g->lock);
	pthread_mutex_unlock(&g->lock);
}

/* A flow that will never arrive at @g. */
static void gate_leave(struct gate *g)
{
	pthread_mutex_lock(&g->lock);
	g->expected--;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void timed_end(struct flow *f)
{
	gate_arrive(f->round);
}

/*
 * One flow; in a round, its transfer starts once every flow has connected
 * (or failed: @g) and its checks once every flow's timed run has ended
 * (@g_timed).
 */
static int flow_run(const struct pf_fab_opts *o, struct pf_fab_result *ret, struct gate *g,
		    struct gate *g_timed)
{
	static const pf_eng_connect_fn connect_op[] = {
		[PF_FAB_CM] = pf_eng_connect_cm,
		[PF_FAB_VERBS] = pf_eng_connect_local,
	};
	struct flow f;
	int r;

	pf_eng_init(&f, o, ret);
	f.timed_end = g_timed ? timed_end : NULL;
	f.round = g_timed;

	*ret = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
	if (!o->api || !o->src.dev || !o->dst.dev || !o->msg_size || o->msg_size > UINT32_MAX ||
	    !o->tx_depth || (unsigned int)o->conn >= PF_ARRAY_SIZE(connect_op) ||
	    (o->conn == PF_FAB_CM && !o->cm))
		r = pf_eng_fail(&f, PF_FAB_OPEN, -EINVAL, "invalid fabric options");
	else
		r = pf_eng_layout(&f);
	if (!r)
		r = connect_op[o->conn](&f);
	gate_arrive(g);
	if (!r)
		r = pf_eng_transfer(&f);
	pf_eng_timed_end(&f); /* failed before its timed run ended */
	if (!r)
		ret->stage = PF_FAB_DONE;
	pf_eng_release(&f);
	return r;
}

int pf_fabric_flow(const struct pf_fab_opts *o, struct pf_fab_result *ret)
{
	return flow_run(o, ret, NULL, NULL);
}

struct job {
	struct pf_fab_flow *flow;
	struct gate *gate, *timed;
	pthread_t thread;
};

static void *job_main(void *arg)
{
	struct job *j = arg;

	j->flow->rc = flow_run(&j->flow->opts, &j->flow->res, j->gate, j->timed);
	return NULL;
}

void pf_fabric_round(struct pf_fab_flow *flows, size_t n)
{
	struct gate g = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
			  .expected = n };
	struct gate timed = { .lock = PTHREAD_MUTEX_INITIALIZER,
			      .cond = PTHREAD_COND_INITIALIZER, .expected = n };
	pf_autofree struct job *jobs = pf_xcalloc(n + 1, sizeof(*jobs));
	pf_autofree bool *started = pf_xcalloc(n + 1, sizeof(*started));

	for (size_t i = 0; i < n; i++) {
		jobs[i] = (struct job){ .flow = &flows[i], .gate = &g, .timed = &timed };
		started[i] = pthread_create(&jobs[i].thread, NULL, job_main, &jobs[i]) == 0;
		if (started[i])
			continue;
		/* no thread: this flow cannot overlap the others; it is not waited for */
		gate_leave(&g);
		gate_leave(&timed);
		flows[i].res = (struct pf_fab_result){ .stage = PF_FAB_OPEN, .cm_event = -1 };
		snprintf(flows[i].res.err, sizeof(flows[i].res.err), "pthread_create failed");
		flows[i].rc = -EAGAIN;
	}
	for (size_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(jobs[i].thread, NULL);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.cond);
	pthread_mutex_destroy(&timed.lock);
	pthread_cond_destroy(&timed.cond);
}
