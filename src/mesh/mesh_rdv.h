/* SPDX-License-Identifier: MIT */
/*
 * mesh_rdv.h - the rendezvous of `preflight mesh`, like NCCL's bootstrap:
 * rank 0 listens on a TCP port, every other rank connects and sends its rail
 * table, rank 0 answers every rank with the table of all ranks.  Every
 * connect, read and write is bounded by a deadline, and a rank that does not
 * arrive is named in the table, never waited for (docs/mesh.md).
 *
 * Wire: frames of a 4-byte big-endian length and that many bytes of JSON,
 * at most PF_MESH_FRAME_MAX.  Hello (rank > 0 to rank 0):
 *   {"magic":"preflight-mesh/1","rank":R,"size":N,"host":"...","rails":[...]}
 * ("rails" is cfg->key: the second gather of `preflight mesh` brings
 * "measurements")
 * Table (rank 0 to each rank), the same on every rank:
 *   {"magic":...,"size":N,"ranks":[{"rank":0,"arrived":true,"host":...,
 *    "rails":[...]}, {"rank":1,"arrived":false,"why":"..."}, ...],
 *    "rejected":[{"peer":"addr:port","why":"..."}]}
 */
#ifndef PREFLIGHT_MESH_RDV_H
#define PREFLIGHT_MESH_RDV_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PF_MESH_MAGIC "preflight-mesh/1"
#define PF_MESH_FRAME_MAX (16u << 20) /* a table: every rank's measurements */
#define PF_MESH_HELLO_MAX (1u << 20)  /* a hello: one rank's rails or measurements */
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
};

/*
 * Meet the other ranks.  On return 0, *@table is the table above (the
 * caller cJSON_Delete()s it) with every rank present, arrived or named with
 * why not, even when rank 0 never answered (then built here: this rank
 * arrived, rank 0 "did not answer", the others unknown).  -errno when this
 * rank cannot take part at all (rank 0 cannot bind its port, a bad @cfg),
 * with a sentence in @err.
 */
int pf_mesh_rendezvous(const struct pf_mesh_rdv_cfg *cfg, const cJSON *items, cJSON **table,
		       char *err, size_t err_len);

/* Frame I/O bounded by @deadline_ns of pf_now_ns() (mesh_wire.c). */
int pf_mesh_send_frame(int fd, const char *buf, size_t len, uint64_t deadline_ns);
/* -ETIMEDOUT, -EPIPE (closed), -EBADMSG (length 0 or past the maximum). */
int pf_mesh_recv_frame(int fd, char **buf, size_t *len, uint64_t deadline_ns);
/* Connect to @host:@port, retrying refusals until @deadline_ns. */
int pf_mesh_connect(const char *host, uint16_t port, uint64_t deadline_ns);
/* Wait for @events on @fd until @deadline_ns: 0, -ETIMEDOUT or -errno. */
int pf_mesh_wait(int fd, short events, uint64_t deadline_ns);

/* The number of ranks of @table marked not arrived; names into @names. */
size_t pf_mesh_missing(const cJSON *table, char *names, size_t names_len);

#endif
