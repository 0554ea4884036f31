// SPDX-License-Identifier: MIT
/*
 * mesh_rdv.c - the rendezvous of `preflight mesh` (mesh_rdv.h):
 * rank 0 polls its listening socket and every connection at once until all
 * ranks said hello or the deadline passed (a silent or garbage peer holds
 * nobody up), then answers each arrived rank with the table.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "mesh_rdv.h"
#include "preflight/macro.h"
#include "preflight/result.h"

#define MS 1000000ULL


/* A connection rank 0 has accepted and not yet judged. */
struct rdv_conn {
	int fd;
	unsigned char hdr[4];
	size_t have;   /* bytes of header and body received */
	uint32_t need; /* body length, once the header is in */
	char *body;
	char peer[64];
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

/* A hello's rank, or -1 with @why: magic, rank, size, host, rails all checked. */
static int rdv_check_hello(const struct rdv_server *s, const cJSON *h, char *why, size_t wl)
{
	const cJSON *magic = cJSON_GetObjectItemCaseSensitive(h, "magic");
	const cJSON *rank = cJSON_GetObjectItemCaseSensitive(h, "rank");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(h, "size");
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(h, "host");
	const cJSON *rails = cJSON_GetObjectItemCaseSensitive(h, rdv_key(s->cfg));
	size_t max = s->cfg->max_items ? s->cfg->max_items : PF_MESH_RAILS_MAX;

	if (!cJSON_IsObject(h) || !cJSON_IsString(magic) || strcmp(magic->valuestring, PF_MESH_MAGIC))
		return snprintf(why, wl, "not a preflight mesh hello"), -1;
	if (!cJSON_IsNumber(size) || size->valuedouble != s->cfg->size)
		return snprintf(why, wl, "its size is not %u", s->cfg->size), -1;
	if (!cJSON_IsNumber(rank) || rank->valuedouble < 1 || rank->valuedouble >= s->cfg->size ||
	    rank->valuedouble != (double)(uint32_t)rank->valuedouble)
		return snprintf(why, wl, "bad rank"), -1;
	if (!cJSON_IsString(host) || strlen(host->valuestring) > 253)
		return snprintf(why, wl, "bad host"), -1;
	if (!cJSON_IsArray(rails) || (size_t)cJSON_GetArraySize(rails) > max)
		return snprintf(why, wl, "bad %s", rdv_key(s->cfg)), -1;
	if (!cJSON_IsNull(cJSON_GetArrayItem(s->ranks, (int)rank->valuedouble)))
		return snprintf(why, wl, "rank %u arrived twice", (uint32_t)rank->valuedouble), -1;
	return (int)rank->valuedouble;
}

/* A complete frame from @c: a rank arrives, or the peer is rejected. */
static void rdv_hello(struct rdv_server *s, struct rdv_conn *c)
{
	pf_autojson cJSON *h = cJSON_ParseWithLength(c->body, c->need);
	char why[96];
	int rank = h ? rdv_check_hello(s, h, why, sizeof(why)) : -1;

	if (!h)
		snprintf(why, sizeof(why), "its hello is not JSON");
	if (rank < 0) {
		rdv_reject(s, c->peer, why);
		close(c->fd);
	} else {
		cJSON_ReplaceItemInArray(
			s->ranks, rank,
			rdv_entry(s->cfg, (uint32_t)rank, cJSON_GetObjectItem(h, "host")->valuestring,
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
		if (c->need == 0 || c->need > PF_MESH_HELLO_MAX) {
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

static void rdv_accept(struct rdv_server *s, int lfd)
{
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
		if (s->n_conns == s->max_conns) { /* more talkers than ranks: not one of ours */
			close(fd);
			continue;
		}
		c = &s->conns[s->n_conns++];
		*c = (struct rdv_conn){ .fd = fd };
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, svc);
	}
}

/* Until every rank arrived or @deadline: accept and read all at once. */
static void rdv_collect(struct rdv_server *s, int lfd, uint64_t deadline)
{
	struct pollfd *p = calloc(s->max_conns + 1, sizeof(*p));

	if (!p)
		abort();
	while (s->arrived < s->cfg->size && pf_now_ns() < deadline) {
		uint64_t left = deadline - pf_now_ns();

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
	for (size_t i = 0; i < s->n_conns; i++) {
		rdv_reject(s, s->conns[i].peer, "sent no complete hello before the rendezvous closed");
		close(s->conns[i].fd);
		free(s->conns[i].body);
	}
	s->n_conns = 0;
	free(p);
}

static int rdv_listen(const struct pf_mesh_rdv_cfg *cfg, char *err, size_t el)
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

static int rdv_serve(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, cJSON **table,
		     char *err, size_t el)
{
	uint64_t deadline = pf_now_ns() + cfg->timeout_ms * MS;
	struct rdv_server s = { .cfg = cfg, .max_conns = (size_t)cfg->size + 16 };
	pf_autoclose int lfd = rdv_listen(cfg, err, el);
	pf_autofree char *text = NULL;

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
	text = cJSON_PrintUnformatted(*table);
	deadline = pf_now_ns() + cfg->timeout_ms * MS; /* the answers: bounded too */
	for (uint32_t i = 1; i < cfg->size; i++) {
		if (s.rank_fd[i] >= 0 && text)
			pf_mesh_send_frame(s.rank_fd[i], text, strlen(text), deadline);
		if (s.rank_fd[i] >= 0)
			close(s.rank_fd[i]);
	}
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
		if (cJSON_IsTrue(arrived) &&
		    (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "host")) ||
		     !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(e, rdv_key(cfg)))))
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

static int rdv_join(const struct pf_mesh_rdv_cfg *cfg, const cJSON *rails, cJSON **table)
{
	uint64_t start = pf_now_ns(), t = cfg->timeout_ms * MS;
	pf_autofree char *hello = rdv_hello_text(cfg, rails), *reply = NULL;
	pf_autoclose int fd = pf_mesh_connect(cfg->root_host, cfg->port, start + t);
	char why[160];
	size_t len;
	int r = fd < 0 ? fd : pf_mesh_send_frame(fd, hello, strlen(hello), start + t);

	if (r >= 0)
		r = pf_mesh_recv_frame(fd, &reply, &len, start + 2 * t);
	if (r >= 0) {
		cJSON *doc = cJSON_ParseWithLength(reply, len);

		if (doc && rdv_table_ok(cfg, doc)) {
			*table = doc;
			return 0;
		}
		cJSON_Delete(doc);
		snprintf(why, sizeof(why), "sent a table that is not one (%s:%u)", cfg->root_host,
			 cfg->port);
	} else {
		snprintf(why, sizeof(why), "did not answer at %s:%u by the deadline: %s",
			 cfg->root_host, cfg->port, strerror(-r));
	}
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
