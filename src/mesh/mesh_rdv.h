/* SPDX-License-Identifier: MIT */
/*
 * mesh_rdv.h - the rendezvous of `preflight mesh`, like NCCL's bootstrap:
 * rank 0 listens on a TCP port, every other rank connects and sends its rail
 * table, rank 0 answers every rank with the table of all ranks.  Every
 * connect, read and write is bounded by a deadline, and a rank that does not
 * arrive is named in the table, never waited for (docs/mesh.md).
 *
 * Wire: frames of a 4-byte big-endian length and that many bytes: a 32-byte
 * HMAC-SHA256 under the run's secret, then JSON (the MAC's input below).
 * Hello (rank > 0 to rank 0), at most PF_MESH_HELLO_MAX:
 *   {"magic":"preflight-mesh/1","rank":R,"size":N,"host":"...","rails":[...]}
 * ("rails" is cfg->key: the second gather of `preflight mesh` brings
 * "measurements"); its MAC is HMAC(secret, "preflight-mesh/1 hello" NUL
 * key NUL size rank JSON), size and rank 4 bytes big-endian each.  Rank 0
 * checks it in constant time before it believes anything else of the hello,
 * then that "host" is the nodelist's name of rank R and that the peer's
 * address is one of that name's (getaddrinfo).
 * Table (rank 0 to each rank), the same JSON on every rank, at most
 * pf_mesh_table_max(N):
 *   {"magic":...,"size":N,"ranks":[{"rank":0,"arrived":true,"host":...,
 *    "rails":[...]}, {"rank":1,"arrived":false,"why":"..."}, ...],
 *    "rejected":[{"peer":"addr:port","why":"..."}]}
 * Its MAC, for receiving rank R: HMAC(secret, "preflight-mesh/1 table" NUL
 * key NUL size R SHA-256(JSON)) (the digest: the table is hashed once, not
 * once per rank).  A "host" of the table is the nodelist's name, never a
 * hello's.  A table whose MAC fails is not read: rank 0 did not answer.
 */
#ifndef PREFLIGHT_MESH_RDV_H
#define PREFLIGHT_MESH_RDV_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PF_MESH_MAGIC "preflight-mesh/1"
#define PF_MESH_HELLO_MAX (1u << 20)  /* a hello: one rank's rails or measurements */
#define PF_MESH_MAC_LEN 32
#define PF_MESH_SECRET_MIN 16         /* bytes of the run's secret, at least */
#define PF_MESH_HELLO_WAIT_MS 2000    /* a connection's hello comes within this */
#define PF_MESH_RAILS_MAX 64
#define PF_MESH_RANKS_MAX 65536

struct pf_mesh_rdv_cfg {
	uint32_t rank, size;
	const char *root_host; /* rank 0's address, for ranks > 0 */
	const char *bind;      /* rank 0 binds here; NULL: every address */
	uint16_t port;
	unsigned timeout_ms;   /* rank 0 collects this long; the others wait twice it */
	const char *self;      /* this rank's host name, as the table shows it */
	const char *const *hosts; /* every rank's host (the nodelist), or NULL:
				     names a rank that did not arrive */
	/*
	 * What each rank brings: the key of its array in the hello and in its
	 * table entry (NULL: "rails") and the most items it may hold (0:
	 * PF_MESH_RAILS_MAX).  The second gather of `preflight mesh` brings
	 * "measurements".
	 */
	const char *key;
	size_t max_items;
	/* rank 0 does not wait for the ranks marked here (NULL: waits for all) */
	const bool *absent;
	/* the run's secret (PF_MESH_SECRET_MIN bytes or more; NULL only for one rank) */
	const unsigned char *secret;
	size_t secret_len;
	/*
	 * Rank 0: the socket of pf_mesh_listen(), kept by the caller from
	 * before the first gather to after the last, so nobody else can take
	 * the port between them.  NULL: this call binds and closes its own.
	 */
	const int *listen_fd;
};

/*
 * The largest table frame of a run of @size ranks: 16 MiB, or 8 KiB a rank
 * when that is more (512 MiB at PF_MESH_RANKS_MAX: 8 rails of 3 rounds of
 * measurements take about 6 KiB a rank).  A table past it is not sent; rank
 * 0's own table says so in "error".
 */
size_t pf_mesh_table_max(uint32_t size);

/* Rank 0's listening socket for @cfg (bind, port): the fd or -errno, why in @err. */
int pf_mesh_listen(const struct pf_mesh_rdv_cfg *cfg, char *err, size_t err_len);

/*
 * Meet the other ranks.  On return 0, *@table is the table above (the
 * caller cJSON_Delete()s it) with every rank present, arrived or named with
 * why not, even when rank 0 never answered (then built here: this rank
 * arrived, rank 0 "did not answer" or "closed the connection", the others
 * unknown).  A connect refused or reset is retried until the deadline.
 * -errno when this rank cannot take part at all (rank 0 cannot bind its
 * port, a bad @cfg or no secret), with a sentence in @err.
 */
int pf_mesh_rendezvous(const struct pf_mesh_rdv_cfg *cfg, const cJSON *items, cJSON **table,
		       char *err, size_t err_len);

/*
 * Frame I/O bounded by @deadline_ns of pf_now_ns() (mesh_wire.c): @mac and
 * the @len bytes of @buf; -EMSGSIZE past @max bytes (MAC and text).
 */
int pf_mesh_send_frame(int fd, const unsigned char mac[PF_MESH_MAC_LEN], const char *buf,
		       size_t len, size_t max, uint64_t deadline_ns);
/*
 * A frame's MAC and its text (NUL-terminated, *@len bytes); -ETIMEDOUT,
 * -EPIPE (closed), -ECONNRESET, -EBADMSG (no text or past @max).
 */
int pf_mesh_recv_frame(int fd, unsigned char mac[PF_MESH_MAC_LEN], char **buf, size_t *len,
		       size_t max, uint64_t deadline_ns);
/*
 * Connect to @host:@port, retrying refusals until @deadline_ns, from an
 * address of @self where one is this node's (NULL, or none: any).
 */
int pf_mesh_connect(const char *host, const char *self, uint16_t port, uint64_t deadline_ns);
/* Wait for @events on @fd until @deadline_ns: 0, -ETIMEDOUT or -errno. */
int pf_mesh_wait(int fd, short events, uint64_t deadline_ns);

/* The number of ranks of @table marked not arrived; names into @names. */
size_t pf_mesh_missing(const cJSON *table, char *names, size_t names_len);

#endif
