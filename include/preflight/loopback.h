/* SPDX-License-Identifier: MIT */
/*
 * loopback.h - the RDMA WRITE loopback engine behind gdr_loopback.
 *
 * One run measures one (device, port, memory) combination the way
 * perftest's ib_write_bw does, in one process: the device opened twice
 * (two contexts, so two transport domains: mlx5 enables the vport's local
 * loopback only with two user TDs, mlx5_ib_enable_lb() in
 * drivers/infiniband/hw/mlx5/main.c; perftest's loopback is two processes),
 * a PD, a CQ and an RC QP in each, on the same port and connected to each
 * other (IB: the port's LID; RoCE: the port's RoCE v2 IPv4 GID), RDMA WRITEs of msg_size bytes from buffer A to
 * buffer B with tx_depth WRs outstanding and every cq_mod-th signalled, a
 * warm-up, then a timed run from the first post to the last completion.
 * Bandwidth is decimal Gb/s (bytes * 8 / ns), as `--report_gbits`.
 * Buffers are host memory on the NIC's NUMA node or GPU memory registered
 * through nvidia-peermem (ibv_reg_mr) or DMA-BUF (ibv_reg_dmabuf_mr).
 * A and B hold `slots` message-sized slots; WRITE i copies A's slot
 * i % slots, which carries that slot's own pattern, to B's slot i % slots,
 * and after the run every slot of B must hold its pattern (a WRITE that
 * was lost, landed in another slot or arrived corrupted fails).  Every verb goes through a
 * struct pf_verbs_api, every CUDA call through a struct pf_cuda_table, so
 * tests drive it with a software device.  It never prints.
 */
#ifndef PREFLIGHT_LOOPBACK_H
#define PREFLIGHT_LOOPBACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "preflight/cuda_api.h"
#include "preflight/fs.h"
#include "preflight/gpu.h"
#include "preflight/verbs_api.h"

enum pf_lb_mem {
	PF_LB_HOST,
	PF_LB_GPU,
};

/* How to register GPU memory. */
enum pf_lb_reg {
	PF_LB_REG_AUTO,    /* peermem, then DMA-BUF */
	PF_LB_REG_PEERMEM, /* ibv_reg_mr on the device pointer (nvidia-peermem) */
	PF_LB_REG_DMABUF,  /* cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr */
};

struct pf_lb_opts {
	const struct pf_verbs_api *api;
	const char *dev;           /* "mlx5_0" */
	unsigned int port;         /* 1-based */
	int gid_index;             /* RoCE: RoCE v2 IPv4 GID index; -1 none (IB uses the LID) */
	size_t msg_size;           /* bytes per WRITE */
	unsigned int tx_depth;     /* WRs outstanding (the SQ depth) */
	unsigned int cq_mod;       /* signal every cq_mod-th WR (clamped to tx_depth) */
	uint64_t warmup;           /* WRs before timing */
	uint64_t iterations;       /* timed WRs, when duration_ms is 0 */
	uint64_t duration_ms;      /* timed run by time instead (rounded up to cq_mod WRs) */
	unsigned int timeout_ms;   /* floor of the completion timeout (pf_lb_completion_timeout_ms) */
	/*
	 * The slowest rate the run is held to (port rate x minimum fraction);
	 * the completion timeout adds the time cq_mod WRITEs take at it, so a
	 * slow link is measured, not timed out.  0: unknown (PF_LB_FLOOR_GBPS).
	 */
	double min_gbps;
	/*
	 * The longest the warm-up and the timed run may take together (0: no
	 * limit).  A link too slow to finish its WRs in it is cut there, not
	 * timed out: the figure is what completed by then (result.cut_short),
	 * the WRs still outstanding are flushed (A's QP moved to ERR).
	 */
	uint64_t max_ms;
	enum pf_lb_mem mem;
	int numa_node;             /* host buffers: the NIC's node, -1 unknown */
	/* GPU buffers */
	const struct pf_cuda_table *cu;
	pf_CUdevice gpu;
	pf_cuMemGetHandleForAddressRange_fn export_dmabuf; /* NULL: no DMA-BUF path */
	enum pf_lb_reg reg;
	/*
	 * The node's page size (ctx->prov->page_size): DMA-BUF exports and
	 * registrations cover whole pages of it (64 KiB on many arm64/Grace
	 * kernels).  0: this process's sysconf(_SC_PAGESIZE).
	 */
	size_t page_size;
	unsigned int slots;        /* distinct WRITE targets; 0: as many as fit in 32 MiB, 2-64 */
};

/* The opts a profile starts from: 8 MiB, depth 128, cq_mod 100, 1000 + 5000 WRs, 2 s. */
void pf_lb_opts_default(struct pf_lb_opts *o);

/* Where a run stopped. */
enum pf_lb_stage {
	PF_LB_OPEN,      /* device, port, PD, CQ */
	PF_LB_MEMORY,    /* allocation and registration */
	PF_LB_CONNECT,   /* QP creation and RESET->INIT->RTR->RTS */
	PF_LB_TRANSFER,  /* posting and completions */
	PF_LB_VERIFY,    /* data check */
	PF_LB_DONE,
};

struct pf_lb_result {
	enum pf_lb_stage stage;
	double gbps;               /* decimal Gb/s over the timed run */
	double seconds;            /* timed run */
	uint64_t bytes;            /* timed run */
	uint64_t iterations;       /* timed WRs */
	const char *reg;           /* "host", "peermem" or "dmabuf" */
	bool numa_local;           /* host buffers on opts.numa_node (libnuma) */
	uint8_t link_layer;        /* IBV_LINK_LAYER_* */
	int mtu;                   /* path MTU used, bytes */
	uint16_t lid;
	int wc_status;             /* IBV_WC_* of a failed completion, else 0 */
	size_t bad_offset;         /* first corrupt byte, within its slot */
	unsigned int slots;        /* WRITE targets used */
	unsigned int bad_slot;     /* the slot that held it */
	size_t page_size;          /* alignment used for buffers and DMA-BUF ranges */
	/*
	 * -ETIMEDOUT in the transfer: the run moved less than this (the WRs
	 * done plus the next signalled batch, over the time waited), 0 else.
	 */
	double below_gbps;
	/*
	 * The run reached opts.max_ms: gbps, seconds, bytes and iterations are
	 * the WRs completed by then (the warm-up's when it had not ended).
	 */
	bool cut_short;
	char note[256];            /* what else happened: a path that failed, no NUMA */
	char err[256];             /* why the run failed */
};

/* The rate the completion timeout assumes when min_gbps is unknown. */
#define PF_LB_FLOOR_GBPS 1.0

/*
 * At most this many bytes between two signalled WRs: a message of 8 MiB
 * or more is signalled every WR, so that a link much slower than expected
 * (soft-RoCE: 0.2 Gb/s where the port says 10) still completes something
 * within the completion timeout and is measured, not reported stalled.
 */
#define PF_LB_SIGNAL_BYTES (8u << 20)

/*
 * Every how many WRs the engines signal: @cq_mod, at least 1, at most
 * @tx_depth and at most PF_LB_SIGNAL_BYTES / @msg_size (at least 1).
 */
unsigned int pf_lb_signal_every(unsigned int cq_mod, unsigned int tx_depth, size_t msg_size);

/*
 * How long a run waits for a completion: @floor_ms plus the time the
 * WRITEs between two signalled completions (pf_lb_signal_every() x
 * msg_size) take at @min_gbps (PF_LB_FLOOR_GBPS when 0).
 * A link slower than @min_gbps then fails as slow, with its figure.
 */
unsigned int pf_lb_completion_timeout_ms(unsigned int floor_ms, size_t msg_size,
					 unsigned int cq_mod, unsigned int tx_depth,
					 double min_gbps);

/* Upper bound on a stalled run's rate: (@done + @cq_mod) WRITEs of @msg_size in @ns. */
double pf_lb_below_gbps(uint64_t done, unsigned int cq_mod, size_t msg_size, uint64_t ns);

/*
 * Run one loopback measurement.  0 with the result, or -errno with
 * ret->stage and ret->err: -ENODEV (no such device/port), -ENETDOWN (port
 * not ACTIVE), -EADDRNOTAVAIL (RoCE port without gid_index), -ENOMEM,
 * -EFAULT (memory could not be registered), -EPROTO (a QP transition was
 * refused), -EIO (post failure or error completion), -ETIMEDOUT, -EBADMSG
 * (the written data differs).  Everything it created is released in the
 * order QPs, CQs, MRs, PDs, contexts.
 */
int pf_loopback_run(const struct pf_lb_opts *o, struct pf_lb_result *ret);

/*
 * The RoCE v2 GID with an IPv4-mapped address (::ffff:a.b.c.d) of
 * <dev>/<port>, from /sys/class/infiniband/<dev>/ports/<port>/gid_attrs/
 * types/<i> ("RoCE v2") and gids/<i>.  0 with the index and the dotted
 * address, -ENOENT when there is none.
 */
int pf_loopback_roce_gid(const struct pf_fs *fs, const char *dev, unsigned int port,
			 int *ret_index, char ret_ip[16]);

/*
 * The GID index <dev>/<port> sends from on the verbs path, chosen as NCCL
 * does (ncclIbGetGidIndex): @env_gid_index (the job's NCCL_IB_GID_INDEX,
 * NULL unset) when set, else the RoCE v2 entry with an IPv4-mapped address,
 * else with no address on the port the link-local GID at 0
 * (pf_qpv_pick_gid, src/traffic/qp_verbs.h).  Read from sysfs gids/<i> and
 * gid_attrs/types/<i>.  0 and the index; -ENOENT (no GID table),
 * -EADDRNOTAVAIL (no configured GID), -EINVAL (@env_gid_index is no index
 * of the table).
 */
int pf_verbs_gid_index(const struct pf_fs *fs, const char *dev, unsigned int port,
		       const char *env_gid_index, int *ret_index);

/*
 * The data pattern of the engines: @len bytes from @seed (any value below
 * 2^24), and the check: -1 when @buf holds it, else the first differing offset.
 */
void pf_lb_fill_pattern(uint8_t *buf, size_t len, uint64_t seed);
ssize_t pf_lb_check_pattern(const uint8_t *buf, size_t len, uint64_t seed);

/* Decimal Gb/s of @bytes in @ns. */
double pf_lb_gbps(uint64_t bytes, uint64_t ns);

const char *pf_lb_stage_name(enum pf_lb_stage s);

#endif
