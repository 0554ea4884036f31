// SPDX-License-Identifier: MIT
/*
 * mesh_verbs.c - the verbs way of `preflight mesh` (docs/mesh.md
 * "Connecting"): a round's flows connect with plain verbs, their exchange
 * records carried by the rendezvous, so no rail needs an IP address (an
 * InfiniBand cluster without IPoIB).  Each round, every rank:
 *
 *   1. starts its flows; each makes its QP and hands its record to the
 *      round's mailbox (its channel's send) and waits for its peer's;
 *   2. gathers the records under the key "records-<round>" (every rank,
 *      with a partner or not: the gather is the channel, rank 0 its hub),
 *      each as {"rail","end","rec"} with the record in hex; the partner's
 *      record for the same rail and the other end goes to each flow, which
 *      validates it (qp_verbs.c: bytes from another node);
 *   3. once each flow's QP is at RTS (or the flow ended), gathers
 *      "ready-<round>", the ends that are; a flow posts no WRITE before
 *      its peer's end is among them (a QP not at RTR drops what reaches it;
 *      perftest's handshake after connecting);
 *   4. once its writers have finished, gathers "done-<round>" (empty): when
 *      that returns every writer of the round has, so the listeners let go
 *      of their buffers.
 *
 * Every gather is authenticated with the run's MAC (mesh_rdv.h); the key
 * is in the MAC, so a frame of one round cannot stand for another's.  A
 * rank that misses a gather is not waited for again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mesh.h"
#include "preflight/fabric_peer.h"
#include "text.h"

#define REC_MAX 128 /* bytes of a record (qp_verbs.h: 64) */

struct vslot {
	struct pf_mesh_vround *v;
	struct pf_fabp_chan chan;
	uint8_t mine[REC_MAX], peer[REC_MAX];
	size_t mine_len, peer_len;
	bool posted, gone, has_peer, ready, peer_ready;
};

struct pf_mesh_vround {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t n;
	struct vslot *slot;
	bool peers_in, all_ready, done;
};

/* Now plus @ms on CLOCK_MONOTONIC (the condition's clock). */
static struct timespec deadline_in(int ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/* Wait with the lock held until *@flag or @ms: true when it is set. */
static bool wait_for(struct pf_mesh_vround *v, const bool *flag, int ms)
{
	struct timespec until = deadline_in(ms > 0 ? ms : 0);

	while (!*flag)
		if (pthread_cond_timedwait(&v->cond, &v->lock, &until) == ETIMEDOUT)
			break;
	return *flag;
}

static int ch_send(void *ctx, const uint8_t *buf, size_t len)
{
	struct vslot *s = ctx;
	struct pf_mesh_vround *v = s->v;

	if (len > sizeof(s->mine))
		return -EMSGSIZE;
	pthread_mutex_lock(&v->lock);
	memcpy(s->mine, buf, len);
	s->mine_len = len;
	s->posted = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
	return 0;
}

static long ch_recv(void *ctx, uint8_t *buf, size_t cap, int ms)
{
	struct vslot *s = ctx;
	struct pf_mesh_vround *v = s->v;
	long r;

	pthread_mutex_lock(&v->lock);
	if (!wait_for(v, &v->peers_in, ms))
		r = -ETIMEDOUT;
	else if (!s->has_peer)
		r = -ECONNRESET;
	else if (s->peer_len > cap)
		r = -EMSGSIZE;
	else {
		memcpy(buf, s->peer, s->peer_len);
		r = (long)s->peer_len;
	}
	pthread_mutex_unlock(&v->lock);
	return r;
}

static int ch_ready(void *ctx, int ms)
{
	struct vslot *s = ctx;
	struct pf_mesh_vround *v = s->v;
	int r;

	pthread_mutex_lock(&v->lock);
	s->ready = true;
	pthread_cond_broadcast(&v->cond);
	if (!wait_for(v, &v->all_ready, ms))
		r = -ETIMEDOUT;
	else
		r = s->peer_ready ? 0 : -ECONNRESET;
	pthread_mutex_unlock(&v->lock);
	return r;
}

static int ch_done(void *ctx, int ms)
{
	struct vslot *s = ctx;
	struct pf_mesh_vround *v = s->v;
	bool done;

	pthread_mutex_lock(&v->lock);
	done = wait_for(v, &v->done, ms);
	pthread_mutex_unlock(&v->lock);
	return done ? 0 : -ETIMEDOUT;
}

struct pf_mesh_vround *pf_mesh_vround_new(size_t n)
{
	struct pf_mesh_vround *v = pf_xcalloc(1, sizeof(*v));
	pthread_condattr_t ca;

	pthread_mutex_init(&v->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&v->cond, &ca);
	pthread_condattr_destroy(&ca);
	v->n = n;
	v->slot = pf_xcalloc(n ? n : 1, sizeof(*v->slot));
	for (size_t i = 0; i < n; i++)
		v->slot[i] = (struct vslot){
			.v = v,
			.chan = { .ctx = &v->slot[i], .send = ch_send, .recv = ch_recv,
				  .ready = ch_ready, .done = ch_done },
		};
	return v;
}

const struct pf_fabp_chan *pf_mesh_vround_chan(struct pf_mesh_vround *v, size_t i)
{
	return &v->slot[i].chan;
}

void pf_mesh_vround_gone(struct pf_mesh_vround *v, size_t i)
{
	pthread_mutex_lock(&v->lock);
	v->slot[i].gone = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
}

void pf_mesh_vround_free(struct pf_mesh_vround *v)
{
	if (!v)
		return;
	pthread_cond_destroy(&v->cond);
	pthread_mutex_destroy(&v->lock);
	free(v->slot);
	free(v);
}

/* Every flow has posted its record (@ready: is at RTS) or ended, or @ms passed. */
static void wait_flows(struct pf_mesh_vround *v, bool ready, int ms)
{
	struct timespec until = deadline_in(ms);

	pthread_mutex_lock(&v->lock);
	for (;;) {
		size_t open = 0;

		for (size_t i = 0; i < v->n; i++)
			open += !(ready ? v->slot[i].ready : v->slot[i].posted) && !v->slot[i].gone;
		if (!open || pthread_cond_timedwait(&v->cond, &v->lock, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&v->lock);
}

static void hex_of(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Lower-case hex of at most @cap bytes into @out: the count, or -1. */
static long bytes_of(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > cap)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

/* This rank's posted records (@ready: its ends at RTS, no record) as the gather's items. */
static cJSON *records_of(struct pf_mesh_vround *v, bool ready)
{
	cJSON *items = cJSON_CreateArray();

	pthread_mutex_lock(&v->lock);
	for (size_t i = 0; i < v->n; i++) {
		const struct vslot *s = &v->slot[i];
		char hex[2 * REC_MAX + 1];
		cJSON *it;

		if (ready ? !s->ready : !s->posted)
			continue;
		it = cJSON_CreateObject();
		cJSON_AddNumberToObject(it, "rail", (double)(i / 2));
		cJSON_AddStringToObject(it, "end", i % 2 ? "writer" : "listener");
		if (!ready) {
			hex_of(s->mine, s->mine_len, hex);
			cJSON_AddStringToObject(it, "rec", hex);
		}
		cJSON_AddItemToArray(items, it);
	}
	pthread_mutex_unlock(&v->lock);
	return items;
}

/* Rank @rank's items under @key in @table, if it arrived. */
static const cJSON *items_of(const cJSON *table, long rank, const char *key)
{
	const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(table, "ranks"),
					    (int)rank);

	if (rank < 0 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(e, key);
}

/*
 * The partner's item for flow @i (rail i / 2; a writer's peer is the
 * partner's listener on that rail, and the other way round): the first one
 * for that rail and end, or NULL.
 */
static const cJSON *peer_item(size_t i, const cJSON *theirs)
{
	const char *want = i % 2 ? "listener" : "writer";
	const cJSON *it;

	cJSON_ArrayForEach(it, theirs) {
		const cJSON *rail = cJSON_GetObjectItemCaseSensitive(it, "rail");
		const cJSON *end = cJSON_GetObjectItemCaseSensitive(it, "end");

		if (cJSON_IsNumber(rail) && rail->valuedouble == (double)(i / 2) &&
		    cJSON_IsString(end) && !strcmp(end->valuestring, want))
			return it;
	}
	return NULL;
}

/* The peer's record bytes, still unchecked, into the slot; anything malformed is none. */
static void take_peer(struct vslot *s, const cJSON *item)
{
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(item, "rec");
	long n = cJSON_IsString(rec) ? bytes_of(rec->valuestring, s->peer, sizeof(s->peer)) : -1;

	if (n > 0) {
		s->peer_len = (size_t)n;
		s->has_peer = true;
	}
}

/* Ranks that did not arrive in @table are not waited for again. */
static void mark_absent(const cJSON *table, uint32_t size, bool *absent)
{
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(table, "ranks");

	for (uint32_t r = 1; r < size; r++)
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(ranks, (int)r),
								    "arrived")))
			absent[r] = true;
}

/* One gather of @items under "<what>-<round>": the table, or NULL (said in @log). */
static cJSON *gather(const struct pf_mesh_data_cfg *c, const char *what, uint32_t round,
		     unsigned int extra_ms, const cJSON *items, FILE *log)
{
	struct pf_mesh_rdv_cfg cfg = *c->rdv;
	cJSON *table = NULL;
	char key[32], why[256];

	snprintf(key, sizeof(key), "%s-%u", what, round);
	cfg.key = key;
	cfg.max_items = 2 * PF_MESH_RAILS_MAX;
	cfg.absent = c->absent;
	cfg.timeout_ms += extra_ms;
	if (pf_mesh_rendezvous(&cfg, items, &table, why, sizeof(why)) < 0) {
		if (log)
			fprintf(log, "  round %u: %s gather: %s\n", round, what, why);
		return NULL;
	}
	mark_absent(table, cfg.size, c->absent);
	return table;
}

void pf_mesh_vround_swap(struct pf_mesh_vround *v, const struct pf_mesh_data_cfg *c,
			 uint32_t round, long partner, FILE *log)
{
	for (int step = 0; step < 2; step++) {
		const char *what = step ? "ready" : "records";
		const cJSON *theirs;
		cJSON *items, *table;
		char key[32];

		wait_flows(v, step, (int)c->connect_ms);
		items = records_of(v, step);
		table = gather(c, what, round, c->connect_ms, items, log);
		snprintf(key, sizeof(key), "%s-%u", what, round);
		theirs = items_of(table, partner, key);
		pthread_mutex_lock(&v->lock);
		for (size_t i = 0; theirs && i < v->n; i++) {
			const cJSON *it = peer_item(i, theirs);

			if (it && step)
				v->slot[i].peer_ready = true;
			else if (it)
				take_peer(&v->slot[i], it);
		}
		*(step ? &v->all_ready : &v->peers_in) = true;
		pthread_cond_broadcast(&v->cond);
		pthread_mutex_unlock(&v->lock);
		cJSON_Delete(items);
		cJSON_Delete(table);
	}
}

void pf_mesh_vround_finish(struct pf_mesh_vround *v, const struct pf_mesh_data_cfg *c,
			   uint32_t round, FILE *log)
{
	cJSON *items = cJSON_CreateArray();

	/* the ranks reach it within a flow of each other: its run, checks and timeouts */
	cJSON_Delete(gather(c, "done", round, 2 * c->duration_ms + c->timeout_ms +
			    c->connect_ms, items, log));
	cJSON_Delete(items);
	pthread_mutex_lock(&v->lock);
	v->done = true;
	pthread_cond_broadcast(&v->cond);
	pthread_mutex_unlock(&v->lock);
}

bool pf_mesh_use_verbs(const cJSON *table, const char *connect, char *why, size_t wl)
{
	const cJSON *e;

	if (why && wl)
		why[0] = '\0';
	if (!strcmp(connect, "verbs"))
		return true;
	if (strcmp(connect, "auto"))
		return false; /* cm, rdma_cm */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const cJSON *rail;

		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
			continue;
		cJSON_ArrayForEach(rail, cJSON_GetObjectItemCaseSensitive(e, "rails")) {
			const cJSON *ll = cJSON_GetObjectItemCaseSensitive(rail, "link_layer");
			const cJSON *dev = cJSON_GetObjectItemCaseSensitive(rail, "device");
			const cJSON *rank = cJSON_GetObjectItemCaseSensitive(e, "rank");
			bool eth = cJSON_IsString(ll) && !strcmp(ll->valuestring, "Ethernet");

			if (eth && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rail, "ip")))
				continue;
			/* names a device of another node: from the network, kept printable */
			if (why && wl) {
				pf_autofree char *clean = pf_utf8_clean(cJSON_IsString(dev) ?
									dev->valuestring : "?", true);

				snprintf(why, wl, "%s of rank %d %s", clean,
					 cJSON_IsNumber(rank) ? rank->valueint : -1,
					 eth ? "has no IPv4 address" : "is not Ethernet");
			}
			return true;
		}
	}
	return false;
}
