/* SPDX-License-Identifier: MIT */
/*
 * mesh.h - the library under `preflight mesh` (src/mesh; the front end is
 * src/cmd/mesh.c, docs/mesh.md): this node's rail table (mesh_rails.c), the
 * rendezvous (mesh_rdv.h), the data path between the pairs of each round
 * (mesh_data.c) and the verdict from the gathered matrix (mesh_judge.c).
 */
#ifndef PREFLIGHT_MESH_H
#define PREFLIGHT_MESH_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "preflight/pairs.h"
#include "preflight/result.h"
#include "mesh_rdv.h"

struct pf_fs;
struct pf_node;

struct pf_rails;
/*
 * This node's rail table, a JSON array (mesh_rails.c): the ports of the
 * RDMA devices named in the comma-separated @nics; NULL: the compute rails
 * of @model in rail order (every port without a model).  @gid_env: the
 * job's NCCL_IB_GID_INDEX (NULL unset), for a RoCE port's "gid_index".
 */
cJSON *pf_mesh_rails(const struct pf_fs *fs, const struct pf_node *node,
		     const struct pf_rails *model, const char *nics, const char *gid_env);
/* Is @name in the comma-separated @list (NULL: every device is)? */
bool pf_mesh_nic_listed(const char *list, const char *name);

struct pf_verbs_api;
struct pf_rdmacm_api;
struct pf_cuda_table;

/* The data path (mesh_data.c). */
struct pf_mesh_data_cfg {
	const struct pf_verbs_api *api;
	const struct pf_rdmacm_api *cm;
	uint32_t rank;
	const struct pf_mesh_schedule *sched;
	const cJSON *table;       /* the rendezvous table: every rank's rails with "ip" */
	uint16_t port;            /* RDMA-CM port every rank listens on */
	unsigned int duration_ms; /* the timed run of each flow */
	unsigned int connect_ms;  /* how long a flow's two ends wait for each other */
	unsigned int timeout_ms;  /* no completion for this long fails a transfer */
	size_t msg_size;
	/*
	 * The verbs way (mesh_verbs.c): the flows connect with plain verbs,
	 * their records gathered through the rendezvous of @rdv each round
	 * (every rank gathers every round); @absent (size ranks) marks the
	 * ranks not to wait for, and grows.  false: RDMA-CM on each rail's "ip".
	 */
	bool verbs;
	const struct pf_mesh_rdv_cfg *rdv;
	bool *absent;
	/*
	 * --use-gpu: rail i sends from and receives into the memory of CUDA
	 * device gpu[i] (-1, or i past n_gpu: host memory), registered with
	 * nvidia-peermem or DMA-BUF; @gpu_fallback: a GPU buffer that cannot be
	 * registered becomes host memory with a note (auto), else the flow fails.
	 */
	const struct pf_cuda_table *cu; /* NULL: host memory on every rail */
	const int *gpu;
	size_t n_gpu;
	bool gpu_fallback;
};

struct pf_mesh_data_out {
	cJSON *sends;     /* [{"round","src","dst","rail","src_dev","dst_dev","gbps","seconds",
			   *   "bytes"[,"error","stage"]}]: what this rank sent */
	cJSON *skipped;   /* [{"round"[,"peer"][,"rail"],"why"}]: flows not run */
	cJSON *rx_errors; /* [{"round","peer","rail","why"}]: listeners that failed */
};

/*
 * How the flows connect, the same on every rank (from the one table):
 * @connect "cm" or "rdma_cm": RDMA-CM; "verbs": verbs; "auto": RDMA-CM when
 * every rail of every arrived rank is Ethernet with an "ip", else verbs
 * (InfiniBand: NCCL needs no IPoIB), the reason in @why.  True for verbs.
 */
bool pf_mesh_use_verbs(const cJSON *table, const char *connect, char *why, size_t wl);

/* A round's mailbox between its flows and the rendezvous (mesh_verbs.c). */
struct pf_mesh_vround;
struct pf_fabp_chan;
/* For @n flows: flow i is rail i / 2, a writer when i is odd. */
struct pf_mesh_vround *pf_mesh_vround_new(size_t n);
const struct pf_fabp_chan *pf_mesh_vround_chan(struct pf_mesh_vround *v, size_t i);
/* Flow @i's thread has ended (it may never have sent a record). */
void pf_mesh_vround_gone(struct pf_mesh_vround *v, size_t i);
/*
 * The flows' records gathered as "records-<round>", each handed @partner's
 * (-1: none); then, the flows' QPs at RTS, "ready-<round>": each flow
 * learns whether its peer's end is.
 */
void pf_mesh_vround_swap(struct pf_mesh_vround *v, const struct pf_mesh_data_cfg *c,
			 uint32_t round, long partner, FILE *log);
/* After this rank's writers: the "done-<round>" barrier, then the listeners let go. */
void pf_mesh_vround_finish(struct pf_mesh_vround *v, const struct pf_mesh_data_cfg *c,
			   uint32_t round, FILE *log);
void pf_mesh_vround_free(struct pf_mesh_vround *v);

/* Run this rank's rounds; @log (or NULL) gets a line per flow and per round. */
void pf_mesh_data_run(const struct pf_mesh_data_cfg *c, struct pf_mesh_data_out *out, FILE *log);
/*
 * Rail compatibility (mesh_compat.c, the rule in pf_rail_compat()): a rail
 * entry of the rendezvous table as an identity (its strings stay @entry's).
 */
void pf_mesh_rail_ident(const cJSON *entry, struct pf_rail_ident *id);
/* Rail @rail of the rail arrays @ra (rank @a) and @rb (rank @b). */
enum pf_rail_compat pf_mesh_rail_compat(const cJSON *ra, uint32_t a, const cJSON *rb, uint32_t b,
					uint32_t rail, char *why, size_t len);
/* Every rank's rails from the table, by rank (NULL: it did not arrive). */
struct pf_mesh_index {
	uint32_t size;
	const cJSON **rails;
	bool *carried; /* [rank * PF_MESH_INDEX_RAILS + rail]: a flow ran on it without error */
};
#define PF_MESH_INDEX_RAILS 64
/* The rails of @table's ranks, and which carried a flow in the checked @matrix (may be NULL). */
void pf_mesh_index_init(struct pf_mesh_index *ix, const cJSON *table, uint32_t size,
			const cJSON *matrix);
void pf_mesh_index_release(struct pf_mesh_index *ix);
/* Is the checked measurement @m not comparable (pf_rail_not_comparable())? */
bool pf_mesh_flow_not_comparable(const struct pf_mesh_index *ix, const cJSON *m, char *why,
				 size_t len);
/*
 * The run-wide records: [{"round","rank","peer","rail","device","peer_device",
 * "why"}] for the scheduled pairs whose rail i is apart and the routed flows
 * of @matrix that never connected; [{"rank","rail","device","partners","of",
 * "why"}] for the rails beyond a partner's shorter table.  At most 4096 each.
 */
cJSON *pf_mesh_not_comparable(const struct pf_mesh_index *ix, const struct pf_mesh_schedule *s,
			      const cJSON *matrix);
cJSON *pf_mesh_untested(const struct pf_mesh_index *ix, const struct pf_mesh_schedule *s);

/* The verdict (mesh_judge.c). */
struct pf_result;
struct pf_mesh_judge_in {
	uint32_t rank, size;
	const struct pf_mesh_schedule *sched;
	const cJSON *table;    /* the first rendezvous: rails */
	const cJSON *gathered; /* the second: every rank's "measurements" */
	const cJSON *partners; /* this rank's partner per round, -1 none */
	const struct pf_mesh_data_out *data;
	/* recorded in the report so runs can be told apart (NULL: not known) */
	const char *job_id;   /* SLURM_JOB_ID */
	const char *nodelist; /* the hostlist of the run (--peers or SLURM_JOB_NODELIST) */
	const char *connection; /* how the flows connected: "rdma_cm", "verbs" (NULL: not said) */
	/* --use-gpu: why GPU memory could not be used where asked (NULL: it could, or not
	 * asked); an error (on) or a warning (auto) */
	const char *gpu_why;
	bool gpu_error;
};

/*
 * The numbers a measurement may carry (finite, in [0, max]; else the whole
 * measurement is ignored): 10 Tb/s, a day, an exabyte.
 */
#define PF_MESH_GBPS_MAX 1e4
#define PF_MESH_SECONDS_MAX 86400.0
#define PF_MESH_BYTES_MAX 1e18

/*
 * The "mesh" check of this rank: the matrix, its suspects, this node's
 * verdict.  This rank's sends are @in->data's, never the gathered ones; a
 * gathered measurement counts only from its source rank, with every number
 * in range.
 */
void pf_mesh_judge(struct pf_result *res, const struct pf_mesh_judge_in *in);
/* The mesh check's code table (PF-MESH-<NNN>), resolved by pf_mesh_judge(). */
extern const struct pf_code pf_mesh_codes[];
/*
 * Every valid measurement of @gathered (a rank's only as its source, numbers
 * in range), as one array.
 */
cJSON *pf_mesh_matrix(const cJSON *gathered, uint32_t size);
/* The partner of @rank in round @r (0-based), or -1. */
long pf_mesh_partner(const struct pf_mesh_schedule *s, size_t r, uint32_t rank);

#endif
