/* SPDX-License-Identifier: MIT */
/*
 * providers.h - facts that are not files.
 *
 * A table of function pointers with two backends: "live" asks the running
 * kernel (getrlimit, netlink, ioctls, dlopen'd libraries) and "recorded"
 * reads the same facts from plain-text files under <root>/preflight/ (see
 * docs/snapshot.md).  pf_providers_for() picks live for root "/".  Tests
 * install their own tables.
 */
#ifndef PREFLIGHT_PROVIDERS_H
#define PREFLIGHT_PROVIDERS_H

#include <stdint.h>

#include "preflight/check.h"
#include "preflight/parse.h"

struct pf_node;


struct pf_gpu_provider;
struct pf_ethtool_ops;
struct pf_verbs_api;
struct pf_rdmacm_api;


struct pf_linkmodes;
struct pf_pause;
struct pf_stats;
struct pf_pfc;
struct pf_ipv4_addrs;
struct pf_ip_rules;
struct pf_job_user;
struct pf_devnodes;
struct pf_link_ask;

/*
 * The NVLink fabric's services, as their tools report them (the fabric_svc
 * member; src/facts/fabric_svc.c, parsed by preflight/fabric_svc.h).
 */
enum pf_fabric_svc {
	PF_SVC_FM_UNIT,     /* systemctl show -p LoadState -p ActiveState -p SubState nvidia-fabricmanager.service */
	PF_SVC_FM_VERSION,  /* nv-fabricmanager --version */
	PF_SVC_IMEX_UNIT,   /* the same systemctl show of nvidia-imex.service */
	PF_SVC_IMEX_STATUS, /* nvidia-imex-ctl -N -j */
	PF_SVC_N,
};

/* The most NV parameters asked of one card in one tool call (a port each). */
#define PF_NV_MAX_NAMES 8

/*
 * One card's question to the nv_query provider: a PCI function of the card
 * and the parameters of its ports; the answer: r and the tool's text.
 */
struct pf_nv_ask {
	char bdf[16];                      /* the function the tool is run on */
	char names[PF_NV_MAX_NAMES][32];
	char name_bdf[PF_NV_MAX_NAMES][16]; /* the port's function (a snapshot's directory) */
	size_t n_names;
	int r;
	int name_r[PF_NV_MAX_NAMES];       /* recorded: -ENOENT for a name not captured */
	char *text;
};

/*
 * What a table's facts are (pf_providers.caps).  A check asks these, never
 * where its facts came from (the root, the table's name): a table that sets
 * none of them is a capture (pf_providers_recorded, and the tests' tables
 * built from it or from pf_providers_none).
 */
enum pf_prov_cap {
	/*
	 * The facts are the node itself, read now: a file or fact that is
	 * absent is absent on the node (never "not captured"), and a fact's
	 * text cannot be malformed by whoever captured it.
	 */
	PF_PROV_NODE = 1u << 0,
	/*
	 * ->wait() lets time pass on the node: a file read after it is a
	 * later sample (live counters).  Without it a wait only reports the
	 * interval a capture recorded, and files stay what they were.
	 */
	PF_PROV_ELAPSES = 1u << 1,
	/*
	 * ->memlock, ->env, ->euid and ->job_user are of the process that runs
	 * the checks, and always known.  Without it they are what a snapshot
	 * recorded (pf_prov_holds_process() says whether it did).
	 */
	PF_PROV_PROCESS = 1u << 2,
};

struct pf_providers {
	const char *name; /* "live", "recorded", or a test's name: for messages only */
	unsigned int caps; /* enum pf_prov_cap */
	/* RLIMIT_MEMLOCK of the process that runs the checks. */
	int (*memlock)(const struct pf_ctx *ctx, struct pf_rlimit *ret);
	/*
	 * CUDA, NVML and NCCL tables, kernel log, DMA-BUF facts (preflight/gpu_provider.h);
	 * pf_gpu_none where a table has no GPU facts.
	 */
	const struct pf_gpu_provider *gpu;
	/*
	 * The kernel interfaces under the live ethtool facts (preflight/net_facts.h:
	 * netlink and SIOCETHTOOL), which a test replaces to answer as an old
	 * kernel does; pf_ethtool_none where a table does not ask the kernel.
	 */
	const struct pf_ethtool_ops *ethtool;
	/*
	 * RoCE netdev facts (include/preflight/net.h, net_facts.h); -EOPNOTSUPP when the
	 * driver lacks the operation, -ENOENT when a snapshot lacks the file.
	 */
	int (*linkmodes)(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret);
	int (*pause)(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret);
	/* `ethtool -S`; @sample 0 or 1 (recorded: stats, stats.after). */
	int (*ethtool_stats)(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			     struct pf_stats *ret);
	int (*pfc)(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret);
	/* IPv4 addresses of a netdev (RTM_GETADDR; recorded: preflight/ip/<if>/addr). */
	int (*ipv4_addrs)(const struct pf_ctx *ctx, const char *ifname,
			  struct pf_ipv4_addrs *ret);
	/*
	 * The IPv4 policy routing rules (RTM_GETRULE; recorded: preflight/ip/rule,
	 * `ip -4 rule show`).
	 */
	int (*ip_rules)(const struct pf_ctx *ctx, struct pf_ip_rules *ret);
	/*
	 * Firmware NV configuration parameters of NICs: for each of @n cards,
	 * one `mstconfig -d <bdf> -e q <name>...` asking every name of the
	 * card at once (live: the tool, or NVIDIA's mlxconfig after mstconfig
	 * failed, the cards in parallel under one deadline scaled by their
	 * number; recorded: preflight/mstconfig/<bdf>/<name>, <name>.failed and
	 * no-tool).  Each ask gets r and text: 0 and the tool's table; -EIO with
	 * the tool's output when it failed; -ETIMEDOUT; -ENOENT when nothing was
	 * recorded.  The call returns 0, or -ENOPKG when no tool is installed
	 * (a snapshot records that too).
	 */
	int (*nv_query)(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n);
	/*
	 * The kernel's page size in bytes (live: sysconf(_SC_PAGESIZE);
	 * recorded: preflight/page_size, as `getconf PAGESIZE` prints it).
	 * 64 KiB on many arm64 kernels (Grace, RHEL 9 aarch64).
	 */
	int (*page_size)(const struct pf_ctx *ctx, uint64_t *ret);
	/*
	 * A devlink dump's reply bytes (preflight/devlink.h; @what an enum
	 * pf_devlink_dump): live, the generic netlink dump of family
	 * "devlink"; recorded, preflight/devlink/health.nl or info.nl, the same
	 * bytes.  -ENOENT when the kernel has no devlink family (live) or the
	 * snapshot no file; *ret_buf is the caller's.
	 */
	int (*devlink_dump)(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len);
	/* Wait between two samples; elapsed ms (recorded: preflight/window_ms, no sleep). */
	int (*wait)(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms);
	/*
	 * The libibverbs table (preflight/verbs_api.h) for checks that send
	 * traffic; -ENOMEDIUM where none can be sent (a recorded root), another
	 * -errno with *ret_err (may stay NULL) when it cannot be loaded.
	 */
	int (*verbs)(const struct pf_ctx *ctx, const struct pf_verbs_api **ret, char **ret_err);
	/*
	 * A variable of the environment under judgement (live: preflight's own;
	 * recorded: preflight/env, NAME=VALUE lines): 0 and a malloc'd copy in
	 * *ret, -ENOENT when unset, another -errno when it cannot be known.
	 */
	int (*env)(const struct pf_ctx *ctx, const char *name, char **ret);
	/* Effective uid of the process that runs the checks (recorded: preflight/euid). */
	int (*euid)(const struct pf_ctx *ctx, unsigned int *ret);
	/*
	 * The librdmacm table (preflight/rdmacm_api.h) for traffic between
	 * NICs over RDMA-CM; -ENOMEDIUM where none can be sent (a recorded
	 * root), another -errno with *ret_err (may stay NULL) otherwise.
	 */
	int (*rdmacm)(const struct pf_ctx *ctx, const struct pf_rdmacm_api **ret, char **ret_err);
	/*
	 * The user the job runs as: SLURM_JOB_UID, else the real uid (live);
	 * preflight/job_user (recorded).
	 */
	int (*job_user)(const struct pf_ctx *ctx, struct pf_job_user *ret);
	/*
	 * The entries of a device directory ("/dev/infiniband") with type,
	 * mode, owner and group (live: fstatat; recorded: preflight/ls<dir>,
	 * `ls -ln <dir>`).  -ENOENT when the directory (or the listing) is
	 * absent.
	 */
	int (*devnodes)(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret);
	/*
	 * The node's LLDP neighbours as `lldpcli -f keyvalue show neighbors`
	 * prints them (live: lldpd's client, run only when lldpd's control
	 * socket exists and lldpcli is installed in a system directory, with a
	 * deadline; recorded: preflight/lldp/neighbors).  0 and the text in
	 * *ret_text; -ENOENT when lldpd is not running or nothing was recorded,
	 * -ENOPKG when lldpd runs but lldpcli is not installed, -ETIMEDOUT, -EIO
	 * (the text in *ret_text) when it failed.
	 */
	int (*lldp_neighbors)(const struct pf_ctx *ctx, char **ret_text);
	/*
	 * One ethtool netlink reply for link health (preflight/link_facts.h):
	 * FEC statistics or a module EEPROM page, raw (live: the kernel's;
	 * recorded: preflight/ethtool/<if>/fec.nl, module/...).  0 and the
	 * malloc'd bytes, which may be the kernel's NLMSG_ERROR; -ENOENT not
	 * recorded, another -errno when the kernel could not be asked.
	 */
	int (*link_nl)(const struct pf_ctx *ctx, const struct pf_link_ask *ask, void **ret_buf,
		       size_t *ret_len);
	/*
	 * `mlxlink -d <bdf> -c` of a ConnectX function (src/facts/mlxlink.c;
	 * recorded: preflight/mlxlink/<bdf>).  0 and the text in *ret_text;
	 * -ENOPKG when mlxlink is not installed, -ENOENT not recorded,
	 * -ETIMEDOUT, -EIO (the text in *ret_text) when it failed.
	 */
	int (*mlxlink)(const struct pf_ctx *ctx, const char *bdf, char **ret_text);
	/*
	 * What a service of the NVLink fabric says (enum pf_fabric_svc): its
	 * tool, found in the system directories only and run at a deadline
	 * (live), or preflight/fabric/<file> (recorded: pf_fabric_svc_file).
	 * 0 and the text in *ret_text; -ENOPKG when the tool is not installed,
	 * -ENOENT not recorded, -ETIMEDOUT, -EIO (the text in *ret_text) when
	 * it failed.
	 */
	int (*fabric_svc)(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text);
};

int pf_live_nv_query(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n);
int pf_recorded_nv_query(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n);
/*
 * The live query with the tools given (@tools: paths tried in order, a
 * later one only for the cards the earlier failed on), under one deadline of
 * @deadline_ms for all cards; the seam the tests drive with a fake tool.
 */
int pf_nv_query_tools(const char *const *tools, size_t n_tools, struct pf_nv_ask *asks,
		      size_t n, unsigned int deadline_ms);
/* The live deadline of a query of @n cards in parallel: 4 s, plus 1 s for each card past
 * the first (the tools share the CPUs), at most 24 s (the check's own is 40 s). */
unsigned int pf_nv_deadline_ms(size_t n);
/*
 * Add @name of the port at PCI function @bdf to the ask of its card (the
 * functions of one bus:device), a new ask when none has it yet; -E2BIG past
 * PF_NV_MAX_NAMES names.
 */
int pf_nv_ask_add(struct pf_nv_ask **asks, size_t *n, size_t *alloc, const char *bdf,
		  const char *name);
/*
 * The DCQCN parameters an RoCE port is judged by, into @names (up to @max):
 * its own ROCE_CC_PRIO_MASK_P<n>; on a RoCE LAG (the port's netdev a bond
 * of k members) P1..Pk, every physical port the bond spans.  Their count.
 */
size_t pf_roce_cc_params(const struct pf_node *node, size_t dev, size_t port_idx,
			 char names[][32], size_t max);
/* Every ask answered @r (a provider that failed as a whole), no text. */
void pf_nv_asks_fail(struct pf_nv_ask *asks, size_t n, int r);
/* Free the answers of @n asks. */
void pf_nv_asks_release(struct pf_nv_ask *asks, size_t n);
/*
 * The NV parameter that enables DCQCN per priority for an RDMA port:
 * ROCE_CC_PRIO_MASK_P<port> on a device with several ports (mlx4), else
 * P<function + 1> (mlx5: one PCI function, one RDMA device per physical port).
 */
void pf_roce_cc_param(const char *bdf, size_t n_ports, unsigned int port, char *buf, size_t len);
/*
 * @name in the system directories (/usr/bin, /usr/sbin, /bin, /sbin,
 * /usr/local/bin, /usr/local/sbin), a root-owned executable nobody else may
 * replace, never from PATH; -ENOENT none.
 */
int pf_tool_path(const char *name, char *buf, size_t len);
/* The first trusted mstconfig/mlxconfig in the system directories; -ENOENT none. */
int pf_nv_tool_path(char *buf, size_t len);
/* The mlxlink providers (src/facts/mlxlink.c). */
int pf_live_mlxlink(const struct pf_ctx *ctx, const char *bdf, char **ret_text);
int pf_recorded_mlxlink(const struct pf_ctx *ctx, const char *bdf, char **ret_text);
/* The fabric_svc providers (src/facts/fabric_svc.c). */
int pf_live_fabric_svc(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text);
int pf_recorded_fabric_svc(const struct pf_ctx *ctx, enum pf_fabric_svc which, char **ret_text);
/* The live query with the tool at @path (the seam the tests drive with a fake tool). */
int pf_fabric_svc_run(const char *path, enum pf_fabric_svc which, char **ret_text);
/* The tool of @which ("systemctl", "nv-fabricmanager", "nvidia-imex-ctl"), its recorded file
 * under preflight/fabric/ ("fabricmanager.unit", ...). */
const char *pf_fabric_svc_tool(enum pf_fabric_svc which);
const char *pf_fabric_svc_file(enum pf_fabric_svc which);
/* The lldp_neighbors providers (src/facts/lldp.c). */
int pf_live_lldp_neighbors(const struct pf_ctx *ctx, char **ret_text);
int pf_recorded_lldp_neighbors(const struct pf_ctx *ctx, char **ret_text);
/*
 * Run @path with @argv (stdin /dev/null, minimal environment), its stdout
 * and stderr in *ret_text; killed at @deadline_ms (-ETIMEDOUT).  @path is
 * opened once, that file must be a root-owned executable nobody else may
 * write (-EPERM), and that file is what runs (fexecve: a binary, not a
 * script).  0 on exit status 0, -EIO on another (text kept), -ENOEXEC when
 * it could not be run.
 */
int pf_nv_run(const char *path, char *const argv[], unsigned int deadline_ms, char **ret_text);
/* One of several tools run at once by pf_nv_run_many(): its answer as pf_nv_run's. */
struct pf_nv_job {
	const char *path;
	char *const *argv;
	int r;
	char *text;
};
/* Run @n tools in parallel, all killed at one deadline @deadline_ms from now. */
void pf_nv_run_many(struct pf_nv_job *jobs, size_t n, unsigned int deadline_ms);

extern const struct pf_providers pf_providers_live;
extern const struct pf_providers pf_providers_recorded;
/* A table that knows nothing: every member answers -ENOSYS (tests start from it). */
extern const struct pf_providers pf_providers_none;

const struct pf_providers *pf_providers_for(const struct pf_fs *fs);

/* Whether ctx's table declares every capability in @caps (false without a table). */
bool pf_prov_can(const struct pf_ctx *ctx, unsigned int caps);
/*
 * Whether the process facts (environment, uid) are known: always with
 * PF_PROV_PROCESS, else when the capture recorded them (preflight/env).
 */
bool pf_prov_holds_process(const struct pf_ctx *ctx);

/* ctx->prov->env and ->euid, -ENOSYS where the context has no table. */
int pf_env(const struct pf_ctx *ctx, const char *name, char **ret);
bool pf_env_isset(const struct pf_ctx *ctx, const char *name);
int pf_euid(const struct pf_ctx *ctx, unsigned int *ret);
/* " (uid N)" for a permission message, "" when the uid is unknown. */
const char *pf_euid_note(const struct pf_ctx *ctx, char buf[32]);

#endif
