// SPDX-License-Identifier: MIT
/*
 * mesh_rdv.c - the rendezvous of `preflight mesh` (mesh_rdv.h):
 * rank 0 polls its listening socket and every connection at once until all
 * ranks said hello or the deadline passed (a silent or garbage peer holds
 * nobody up: each connection has PF_MESH_HELLO_WAIT_MS for its hello, and
 * when the connection table is full the oldest that sent nothing makes
 * room), believes a hello only with the run's MAC, from the nodelist's host
 * of its rank, then answers each arrived rank with the table and its MAC.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sha256.h"
#include "mesh_rdv.h"
#include "preflight/macro.h"
#include "preflight/result.h"

#define MS 1000000ULL


/* A connection rank 0 has accepted and not yet judged. */
struct rdv_conn {
	int fd;
	uint64_t deadline; /* its hello is complete by then, or it is dropped */
	unsigned char hdr[4];
	size_t have;   /* bytes of header and body received */
	uint32_t need; /* body length, once the header is in */
	char *body;
	char peer[64];
	char addr[48]; /* the peer's numeric address */
};

struct rdv_server {
	const struct pf_mesh_rdv_cfg *cfg;
	cJSON *ranks;    /* array of size: an object per arrived rank, null otherwise */
	cJSON *rejected; /* [{"peer","why"}] */
	int *rank_fd;
	uint32_t arrived;
	struct rdv_conn *conns;
	size_t n_conns, max_conns;
};

static const char *rdv_key(const struct pf_mesh_rdv_cfg *cfg)
{
	return cfg->key ? cfg->key : "rails";
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* The MAC of a hello or a table (@what) for @rank (mesh_rdv.h "Wire"). */
static void rdv_mac(const struct pf_mesh_rdv_cfg *cfg, const char *what, uint32_t rank,
		    const void *data, size_t len, unsigned char mac[PF_MESH_MAC_LEN])
{
	struct pf_hmac m;
	unsigned char nums[8];
	char label[40];
	const char *key = rdv_key(cfg);

	snprintf(label, sizeof(label), "%s %s", PF_MESH_MAGIC, what);
	put_be32(nums, cfg->size);
	put_be32(nums + 4, rank);
	pf_hmac_init(&m, cfg->secret, cfg->secret_len);
	pf_hmac_update(&m, label, strlen(label) + 1);
	pf_hmac_update(&m, key, strlen(key) + 1);
	pf_hmac_update(&m, nums, sizeof(nums));
	pf_hmac_update(&m, data, len);
	pf_hmac_final(&m, mac);
}

/* The table's MAC for @rank, from the digest of its text (hashed once for all ranks). */
static void rdv_table_mac(const struct pf_mesh_rdv_cfg *cfg, uint32_t rank,
			  const unsigned char digest[PF_SHA256_LEN],
			  unsigned char mac[PF_MESH_MAC_LEN])
{
	rdv_mac(cfg, "table", rank, digest, PF_SHA256_LEN, mac);
}

static void rdv_digest(const char *text, size_t len, unsigned char digest[PF_SHA256_LEN])
{
	struct pf_sha256 h;

	pf_sha256_init(&h);
	pf_sha256_update(&h, text, len);
	pf_sha256_final(&h, digest);
}

size_t pf_mesh_table_max(uint32_t size)
{
	size_t per_rank = (size_t)size * (8u << 10);

	return per_rank > (16u << 20) ? per_rank : (16u << 20);
}

static cJSON *rdv_entry(const struct pf_mesh_rdv_cfg *cfg, uint32_t rank, const char *host,
			const cJSON *rails)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "rank", rank);
	cJSON_AddBoolToObject(e, "arrived", true);
	cJSON_AddStringToObject(e, "host", host ? host : "");
	cJSON_AddItemToObject(e, rdv_key(cfg), rails ? cJSON_Duplicate(rails, true)
						     : cJSON_CreateArray());
	return e;
}

static cJSON *rdv_absent(const struct pf_mesh_rdv_cfg *cfg, uint32_t rank, const char *why)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "rank", rank);
	cJSON_AddBoolToObject(e, "arrived", false);
	if (cfg->hosts)
		cJSON_AddStringToObject(e, "host", cfg->hosts[rank]);
	cJSON_AddStringToObject(e, "why", why);
	return e;
}

static void rdv_reject(struct rdv_server *s, const char *peer, const char *why)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "peer", peer);
	cJSON_AddStringToObject(r, "why", why);
	if (cJSON_GetArraySize(s->rejected) < 64) /* bounded: a flood is summarised */
		cJSON_AddItemToArray(s->rejected, r);
	else
		cJSON_Delete(r);
}

/* Is @addr (numeric) one of the addresses @host resolves to?  0, or -1 with @why. */
static int rdv_check_addr(const char *host, const char *addr, char *why, size_t wl)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	const char *a = addr;
	bool found = false;

	if (!strncmp(a, "::ffff:", 7) && strchr(a + 7, '.'))
		a += 7; /* an IPv4 peer of a dual-stack listener */
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return snprintf(why, wl, "its host %s does not resolve (peer %s)", host, addr), -1;
	for (const struct addrinfo *ai = res; ai && !found; ai = ai->ai_next) {
		char num[48];

		found = getnameinfo(ai->ai_addr, ai->ai_addrlen, num, sizeof(num), NULL, 0,
				    NI_NUMERICHOST) == 0 &&
			!strcmp(num, a);
	}
	freeaddrinfo(res);
	if (!found)
		return snprintf(why, wl, "its address %s is not one of %s's", addr, host), -1;
	return 0;
}

/*
 * A hello's rank, or -1 with @why: magic, size and rank, then the MAC over
 * @text (nothing else of a hello without it is believed), then host (the
 * nodelist's, from an address of that name), the items and a second arrival.
 */
static int rdv_check_hello(const struct rdv_server *s, const struct rdv_conn *c, const cJSON *h,
			   const char *text, size_t len, char *why, size_t wl)
{
	const cJSON *magic = cJSON_GetObjectItemCaseSensitive(h, "magic");
	const cJSON *rank = cJSON_GetObjectItemCaseSensitive(h, "rank");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(h, "size");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(h, "host");
	const cJSON *rails = cJSON_GetObjectItemCaseSensitive(h, rdv_key(s->cfg));
	size_t max = s->cfg->max_items ? s->cfg->max_items : PF_MESH_RAILS_MAX;
	unsigned char mac[PF_MESH_MAC_LEN];
	uint32_t r;

	if (!cJSON_IsObject(h) || !cJSON_IsString(magic) || strcmp(magic->valuestring, PF_MESH_MAGIC))
		return snprintf(why, wl, "not a preflight mesh hello"), -1;
	if (!cJSON_IsNumber(size) || size->valuedouble != s->cfg->size)
		return snprintf(why, wl, "its size is not %u", s->cfg->size), -1;
	if (!cJSON_IsNumber(rank) || rank->valuedouble < 1 || rank->valuedouble >= s->cfg->size ||
	    rank->valuedouble != (double)(uint32_t)rank->valuedouble)
		return snprintf(why, wl, "bad rank"), -1;
	r = (uint32_t)rank->valuedouble;
	rdv_mac(s->cfg, "hello", r, text, len, mac);
	if (!pf_mem_equal_ct(mac, c->body, PF_MESH_MAC_LEN))
		return snprintf(why, wl, "its hello as rank %u failed authentication (not this "
				"run's secret)", r), -1;
	if (!cJSON_IsString(host) || strlen(host->valuestring) > 253)
		return snprintf(why, wl, "bad host"), -1;
	if (s->cfg->hosts && strcmp(host->valuestring, s->cfg->hosts[r]))
		return snprintf(why, wl, "rank %u is %s in the nodelist, not %.64s", r,
				s->cfg->hosts[r], host->valuestring), -1;
	if (s->cfg->hosts && rdv_check_addr(s->cfg->hosts[r], c->addr, why, wl) < 0)
		return -1;
	if (!cJSON_IsArray(rails) || (size_t)cJSON_GetArraySize(rails) > max)
		return snprintf(why, wl, "bad %s", rdv_key(s->cfg)), -1;
	if (!cJSON_IsNull(cJSON_GetArrayItem(s->ranks, (int)r)))
		return snprintf(why, wl, "rank %u arrived twice", r), -1;
	return (int)r;
}

/* A complete frame from @c (MAC and JSON): a rank arrives, or the peer is rejected. */
static void rdv_hello(struct rdv_server *s, struct rdv_conn *c)
{
	const char *text = c->body + PF_MESH_MAC_LEN;
	size_t len = c->need - PF_MESH_MAC_LEN;
	pf_autojson cJSON *h = cJSON_ParseWithLength(text, len);
	char why[192];
	int rank = h ? rdv_check_hello(s, c, h, text, len, why, sizeof(why)) : -1;

	if (!h)
		snprintf(why, sizeof(why), "its hello is not JSON");
	if (rank < 0) {
		rdv_reject(s, c->peer, why);
		close(c->fd);
	} else {
		const char *host = s->cfg->hosts ? s->cfg->hosts[rank]
						 : cJSON_GetObjectItem(h, "host")->valuestring;

		cJSON_ReplaceItemInArray(s->ranks, rank,
					 rdv_entry(s->cfg, (uint32_t)rank, host,
						   cJSON_GetObjectItem(h, rdv_key(s->cfg))));
		s->rank_fd[rank] = c->fd;
		s->arrived++;
	}
	c->fd = -1;
}

/* Read what @c has; 1 when it is done with (judged or dropped). */
static int rdv_read(struct rdv_server *s, struct rdv_conn *c)
{
	bool in_hdr = c->have < 4;
	char *dst = in_hdr ? (char *)c->hdr + c->have : c->body + (c->have - 4);
	size_t want = in_hdr ? 4 - c->have : c->need - (c->have - 4);
	ssize_t r = recv(c->fd, dst, want, MSG_DONTWAIT);

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (r <= 0) {
		rdv_reject(s, c->peer, "closed before a complete hello");
		close(c->fd);
		return 1;
	}
	c->have += (size_t)r;
	if (c->have == 4) {
		c->need = (uint32_t)c->hdr[0] << 24 | (uint32_t)c->hdr[1] << 16 |
			  (uint32_t)c->hdr[2] << 8 | c->hdr[3];
		if (c->need <= PF_MESH_MAC_LEN || c->need > PF_MESH_HELLO_MAX) {
			rdv_reject(s, c->peer, "bad frame length");
			close(c->fd);
			return 1;
		}
		c->body = malloc(c->need);
		if (!c->body)
			abort();
	}
	if (c->have > 4 && c->have == 4 + (size_t)c->need) {
		rdv_hello(s, c);
		return 1;
	}
	return 0;
}

/* Drop @c (index @i) with @why: its slot goes to the last connection. */
static void rdv_drop(struct rdv_server *s, size_t i, const char *why)
{
	struct rdv_conn *c = &s->conns[i];

	rdv_reject(s, c->peer, why);
	close(c->fd);
	free(c->body);
	s->conns[i] = s->conns[--s->n_conns];
}

/* The oldest connection that sent nothing (the first in accept order), or -1. */
static long rdv_oldest_silent(const struct rdv_server *s)
{
	long best = -1;

	for (size_t i = 0; i < s->n_conns; i++)
		if (s->conns[i].have == 0 &&
		    (best < 0 || s->conns[i].deadline < s->conns[best].deadline))
			best = (long)i;
	return best;
}

static void rdv_accept(struct rdv_server *s, int lfd)
{
	unsigned wait_ms = s->cfg->timeout_ms < PF_MESH_HELLO_WAIT_MS ? s->cfg->timeout_ms
								       : PF_MESH_HELLO_WAIT_MS;

	for (;;) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		char host[48] = "?", svc[8] = "?";
		int fd = accept4(lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct rdv_conn *c;

		if (fd < 0)
			return;
		getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), svc, sizeof(svc),
			    NI_NUMERICHOST | NI_NUMERICSERV);
		if (s->n_conns == s->max_conns) { /* full: the oldest silent one makes room */
			long old = rdv_oldest_silent(s);

			if (old < 0) {
				close(fd);
				continue;
			}
			rdv_drop(s, (size_t)old, "sent nothing; dropped for a newer connection "
						 "(the connection table was full)");
		}
		c = &s->conns[s->n_conns++];
		*c = (struct rdv_conn){ .fd = fd, .deadline = pf_now_ns() + wait_ms * MS };
		snprintf(c->addr, sizeof(c->addr), "%s", host);
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, svc);
	}
}

/* Drop the connections whose hello is late; the next deadline of any, up to @deadline. */
static uint64_t rdv_expire(struct rdv_server *s, uint64_t deadline)
{
	uint64_t now = pf_now_ns(), next = deadline;
	char why[80];

	snprintf(why, sizeof(why), "sent no complete hello within %u ms of connecting",
		 s->cfg->timeout_ms < PF_MESH_HELLO_WAIT_MS ? s->cfg->timeout_ms
							    : PF_MESH_HELLO_WAIT_MS);
	for (size_t i = s->n_conns; i-- > 0;) {
		if (s->conns[i].deadline <= now)
			rdv_drop(s, i, why);
	}
	for (size_t i = 0; i < s->n_conns; i++)
		if (s->conns[i].deadline < next)
			next = s->conns[i].deadline;
	return next;
}

/* Until every rank arrived or @deadline: accept and read all at once. */
static void rdv_collect(struct rdv_server *s, int lfd, uint64_t deadline)
{
	struct pollfd *p = calloc(s->max_conns + 1, sizeof(*p));

	if (!p)
		abort();
	while (s->arrived < s->cfg->size && pf_now_ns() < deadline) {
		uint64_t next = rdv_expire(s, deadline), now = pf_now_ns();
		uint64_t left = next > now ? next - now : 0;

		p[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (size_t i = 0; i < s->n_conns; i++)
			p[i + 1] = (struct pollfd){ .fd = s->conns[i].fd, .events = POLLIN };
		if (poll(p, s->n_conns + 1, (int)((left + MS - 1) / MS)) <= 0)
			continue;
		for (size_t i = s->n_conns; i-- > 0;) {
			if (!(p[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) ||
			    !rdv_read(s, &s->conns[i]))
				continue;
			free(s->conns[i].body);
			s->conns[i] = s->conns[--s->n_conns];
		}
		if (p[0].revents & POLLIN)
			rdv_accept(s, lfd);
	}
	while (s->n_conns)
		rdv_drop(s, s->n_conns - 1, "sent no complete hello before the rendezvous closed");
	free(p);
}

int pf_mesh_listen(const struct pf_mesh_rdv_cfg *cfg, char *err, size_t el)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	char svc[8];
	int fd = -1, e = EADDRNOTAVAIL;

	snprintf(svc, sizeof(svc), "%u", cfg->port);
	if (getaddrinfo(cfg->bind, svc, &hints, &res) != 0) {
		snprintf(err, el, "cannot resolve the address to listen on: %s",
			 cfg->bind ? cfg->bind : "*");
		return -EADDRNOTAVAIL;
	}
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		int one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, el, "rank 0 cannot listen on port %u: %s", cfg->port, strerror(e));
	return fd < 0 ? -e : fd;
}

static cJSON *rdv_table(const struct pf_mesh_rdv_cfg *cfg, cJSON *ranks, cJSON *rejected)
{
	cJSON *t = cJSON_CreateObject();

	cJSON_AddStringToObject(t, "magic", PF_MESH_MAGIC);
	cJSON_AddNumberToObject(t, "size", cfg->size);
	cJSON_AddItemToObject(t, "ranks", ranks);
	cJSON_AddItemToObject(t, "rejected", rejected ? rejected : cJSON_CreateArray());
	return t;
}

/* Each arrived rank gets the table with its MAC; a table past the frame limit goes to none. */
static void rdv_answer(const struct pf_mesh_rdv_cfg *cfg, const int *rank_fd, cJSON *table)
{
	pf_autofree char *text = cJSON_PrintUnformatted(table);
	uint64_t deadline = pf_now_ns() + cfg->timeout_ms * MS; /* the answers: bounded too */
	size_t len = text ? strlen(text) : 0, max = pf_mesh_table_max(cfg->size);
	unsigned char digest[PF_SHA256_LEN], mac[PF_MESH_MAC_LEN];
	char why[160];

	if (!text)
		abort();
	if (len + PF_MESH_MAC_LEN > max) {
		snprintf(why, sizeof(why), "the table is %zu bytes, past the frame limit of %zu: "
			 "no rank got it (docs/mesh.md \"Limits\")", len + PF_MESH_MAC_LEN, max);
		cJSON_AddStringToObject(table, "error", why);
	}
	rdv_digest(text, len, digest);
	for (uint32_t i = 1; i < cfg->size; i++) {
		if (rank_fd[i] < 0)
			continue;
		rdv_table_mac(cfg, i, digest, mac);
		if (len + PF_MESH_MAC_LEN <= max)
			pf_mesh_send_frame(rank_fd[i], mac, text, len, max, deadline);
		close(rank_fd[i]);
	}
}

static int rdv_serve(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, cJSON **table,
		     char *err, size_t el)
{
	uint64_t deadline = pf_now_ns() + cfg->timeout_ms * MS;
	struct rdv_server s = { .cfg = cfg, .max_conns = (size_t)cfg->size + 16 };
	pf_autoclose int own = cfg->listen_fd ? -1 : pf_mesh_listen(cfg, err, el);
	int lfd = cfg->listen_fd ? *cfg->listen_fd : own;

	if (lfd < 0)
		return lfd;
	s.ranks = cJSON_CreateArray();
	s.rejected = cJSON_CreateArray();
	s.rank_fd = malloc(cfg->size * sizeof(*s.rank_fd));
	s.conns = calloc(s.max_conns, sizeof(*s.conns));
	if (!s.rank_fd || !s.conns)
		abort();
	for (uint32_t i = 0; i < cfg->size; i++) {
		s.rank_fd[i] = -1;
		if (i && cfg->absent && cfg->absent[i])
			cJSON_AddItemToArray(s.ranks, rdv_absent(cfg, i, "did not arrive at the first "
								   "rendezvous: not waited for"));
		else
			cJSON_AddItemToArray(s.ranks, i ? cJSON_CreateNull()
							: rdv_entry(cfg, 0, cfg->self, rails));
		s.arrived += !i || (cfg->absent && cfg->absent[i]);
	}
	rdv_collect(&s, lfd, deadline);
	for (uint32_t i = 1; i < cfg->size; i++)
		if (cJSON_IsNull(cJSON_GetArrayItem(s.ranks, (int)i)))
			cJSON_ReplaceItemInArray(s.ranks, (int)i,
						 rdv_absent(cfg, i, "did not arrive by the deadline"));
	*table = rdv_table(cfg, s.ranks, s.rejected);
	rdv_answer(cfg, s.rank_fd, *table);
	free(s.rank_fd);
	free(s.conns);
	return 0;
}

/* The table of a rank that rank 0 did not answer: itself, rank 0 and why. */
static cJSON *rdv_alone(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, const char *why)
{
	cJSON *ranks = cJSON_CreateArray();

	for (uint32_t i = 0; i < cfg->size; i++) {
		if (i == cfg->rank)
			cJSON_AddItemToArray(ranks, rdv_entry(cfg, i, cfg->self, rails));
		else
			cJSON_AddItemToArray(ranks, rdv_absent(cfg, i, i ? "unknown: rank 0 did not answer"
									: why));
	}
	return rdv_table(cfg, ranks, NULL);
}

/* Rank 0's table, checked as hostile input: the shape every reader relies on. */
static bool rdv_table_ok(const struct pf_mesh_rdv_cfg *cfg, const cJSON *t)
{
	const cJSON *magic = cJSON_GetObjectItemCaseSensitive(t, "magic");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(t, "size");
	const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(t, "ranks");
	const cJSON *e;
	uint32_t i = 0;

	if (!cJSON_IsString(magic) || strcmp(magic->valuestring, PF_MESH_MAGIC) ||
	    !cJSON_IsNumber(size) || size->valuedouble != cfg->size || !cJSON_IsArray(ranks) ||
	    cJSON_GetArraySize(ranks) != (int)cfg->size ||
	    !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(t, "rejected")))
		return false;
	cJSON_ArrayForEach(e, ranks) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "rank");
		const cJSON *arrived = cJSON_GetObjectItemCaseSensitive(e, "arrived");

		if (!cJSON_IsNumber(r) || r->valuedouble != i++ || !cJSON_IsBool(arrived))
			return false;
		const cJSON *host = cJSON_GetObjectItemCaseSensitive(e, "host");

		if (cJSON_IsTrue(arrived) &&
		    (!cJSON_IsString(host) ||
		     !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, rdv_key(cfg)))))
			return false;
		/* the nodelist's names only */
		if (cfg->hosts && host && (!cJSON_IsString(host) ||
					   strcmp(host->valuestring, cfg->hosts[i - 1])))
			return false;
		if (!cJSON_IsTrue(arrived) &&
		    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "why")))
			return false;
	}
	return true;
}

static char *rdv_hello_text(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails)
{
	pf_autojson cJSON *h = rdv_entry(cfg, cfg->rank, cfg->self, rails);

	cJSON_DeleteItemFromObject(h, "arrived");
	cJSON_AddStringToObject(h, "magic", PF_MESH_MAGIC);
	cJSON_AddNumberToObject(h, "size", cfg->size);
	return cJSON_PrintUnformatted(h);
}

/* Rank 0's answer on @fd: 0 with *@table, or -errno; why a table is not believed in @why. */
static int rdv_read_table(const struct pf_mesh_rdv_cfg *cfg, int fd, uint64_t deadline,
			  cJSON **table, char *why, size_t wl)
{
	unsigned char mac[PF_MESH_MAC_LEN], want[PF_MESH_MAC_LEN], digest[PF_SHA256_LEN];
	pf_autofree char *reply = NULL;
	cJSON *doc;
	size_t len;
	int r = pf_mesh_recv_frame(fd, mac, &reply, &len, pf_mesh_table_max(cfg->size), deadline);

	if (r < 0)
		return r;
	rdv_digest(reply, len, digest);
	rdv_table_mac(cfg, cfg->rank, digest, want);
	if (!pf_mem_equal_ct(mac, want, PF_MESH_MAC_LEN)) {
		snprintf(why, wl, "rank 0's table failed authentication (%s:%u): not believed",
			 cfg->root_host, cfg->port);
		return -EBADMSG;
	}
	doc = cJSON_ParseWithLength(reply, len);
	if (!doc || !rdv_table_ok(cfg, doc)) {
		cJSON_Delete(doc);
		snprintf(why, wl, "sent a table that is not one (%s:%u)", cfg->root_host, cfg->port);
		return -EBADMSG;
	}
	*table = doc;
	return 0;
}

/*
 * Say hello to rank 0 and read its table.  A connect refused or reset
 * (rank 0 not listening yet, or the connection landed in a listener that
 * went away) is tried again until the deadline; an orderly close is rank
 * 0's answer (it rejected the hello, or its rendezvous had closed).
 */
static int rdv_join(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, cJSON **table)
{
	uint64_t start = pf_now_ns(), t = cfg->timeout_ms * MS;
	pf_autofree char *hello = rdv_hello_text(cfg, rails);
	unsigned char mac[PF_MESH_MAC_LEN];
	char why[192] = "";
	int r;

	if (!hello)
		abort();
	rdv_mac(cfg, "hello", cfg->rank, hello, strlen(hello), mac);
	for (;;) {
		pf_autoclose int fd = pf_mesh_connect(cfg->root_host, cfg->self, cfg->port,
						  start + t);

		r = fd < 0 ? fd
			   : pf_mesh_send_frame(fd, mac, hello, strlen(hello), PF_MESH_HELLO_MAX,
						start + t);
		if (r >= 0)
			r = rdv_read_table(cfg, fd, start + 2 * t, table, why, sizeof(why));
		if (r >= 0)
			return 0;
		if (r != -ECONNRESET && r != -ECONNREFUSED)
			break;
		if (pf_now_ns() + 100 * MS >= start + t)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	if (r == -EPIPE)
		snprintf(why, sizeof(why), "closed the connection at %s:%u without a table (it "
			 "rejected this rank's hello, or its rendezvous had closed)", cfg->root_host,
			 cfg->port);
	else if (!why[0])
		snprintf(why, sizeof(why), "did not answer at %s:%u by the deadline: %s",
			 cfg->root_host, cfg->port, strerror(-r));
	*table = rdv_alone(cfg, rails, why);
	return 0;
}

int pf_mesh_rendezvous(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, cJSON **table,
		       char *err, size_t err_len)
{
	*table = NULL;
	if (cfg->size < 1 || cfg->size > PF_MESH_RANKS_MAX || cfg->rank >= cfg->size ||
	    cfg->timeout_ms == 0 || (cfg->rank > 0 && (!cfg->root_host || !cfg->port))) {
		snprintf(err, err_len, "bad rendezvous: rank %u of %u", cfg->rank, cfg->size);
		return -EINVAL;
	}
	if (cfg->size > 1 && (!cfg->secret || cfg->secret_len < PF_MESH_SECRET_MIN)) {
		snprintf(err, err_len, "no secret for the rendezvous (at least %d bytes)",
			 PF_MESH_SECRET_MIN);
		return -EINVAL;
	}
	if (cfg->rank == 0)
		return rdv_serve(cfg, rails, table, err, err_len);
	return rdv_join(cfg, rails, table);
}

size_t pf_mesh_missing(const cJSON *table, char *names, size_t names_len)
{
	const cJSON *e;
	size_t n = 0, used = 0;
	bool full = !names_len;

	if (names_len)
		names[0] = '\0';
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(table, "ranks")) {
		const cJSON *host = cJSON_GetObjectItemCaseSensitive(e, "host");
		bool named = cJSON_IsString(host);
		int w;

		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "arrived")))
			continue;
		n++;
		if (full)
			continue;
		w = snprintf(names + used, names_len - used, "%s%d%s%s%s", n > 1 ? ", " : "",
			     cJSON_GetObjectItemCaseSensitive(e, "rank")->valueint, named ? " (" : "",
			     named ? host->valuestring : "", named ? ")" : "");
		if (w > 0 && used + (size_t)w < names_len) {
			used += (size_t)w;
		} else { /* the list stops at the last name that fitted */
			names[used] = '\0';
			full = true;
		}
	}
	return n;
}
