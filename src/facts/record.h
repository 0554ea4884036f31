/* SPDX-License-Identifier: MIT */
/*
 * record.h - the writer's side of the recorded providers: each
 * pf_record_*() asks ctx->prov for its facts and writes them under
 * preflight/ as the recorded provider reads them back (docs/snapshot.md
 * lists the file of each fact and the function that writes it).
 * The snapshot writer (src/facts/snapshot.c) gives the sink; a test gives
 * its own and reads the facts back (tests/unit/test_record_roundtrip.c).
 *
 * Errors of a provider are not errors of the snapshot: the fact is left
 * out and named in the log (quietly when a recorded source lacks it); the
 * functions return -errno only when the snapshot cannot be written.
 */
#ifndef PF_FACTS_RECORD_H
#define PF_FACTS_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "preflight/job.h"
#include "preflight/providers.h"

struct pf_record {
	const struct pf_ctx *ctx; /* the source root and its providers */
	/* Write @rel (relative to the snapshot, its directories made) as one fact. */
	int (*put)(struct pf_record *rec, const char *rel, const char *buf, size_t len);
	/* Make the directory @rel of the snapshot and its parents. */
	int (*mkdirs)(struct pf_record *rec, const char *rel);
	/* Copy the source's file @path as it is: 1 copied, 0 absent, -errno. */
	int (*copy)(struct pf_record *rec, const char *path);
	/* Whether the snapshot already holds @rel. */
	bool (*has)(struct pf_record *rec, const char *rel);
	/* Log a fact that could not be read, and why. */
	void (*skip)(struct pf_record *rec, const char *what, const char *why);
	void *userdata;
};

/* rec->skip() with strerror(-@err). */
void pf_record_skip(struct pf_record *rec, const char *what, int err);
/*
 * A provider's answer @r for the fact @rel: true when it is one to write;
 * an error is logged, except -ENOENT from a recorded source (not captured)
 * and -ENOSYS (a table without that fact), left out quietly.
 */
bool pf_record_answer(struct pf_record *rec, const char *rel, int r);
/* A memory stream for a fact's text (aborts when none can be made). */
FILE *pf_record_text(char **buf, size_t *len);
/* rec->put() of a NUL-terminated @text. */
int pf_record_put_text(struct pf_record *rec, const char *rel, const char *text);

/*
 * The netdev facts (ethtool settings, pause, statistics, dcb pfc/app,
 * ip addr) of every netdev with a device and of every RDMA port's netdev,
 * a second statistics sample of RDMA netdevs @window_ms later (0: none),
 * then the addresses of RoCE netdevs named only by a GID table
 * (record_net.c, beside recorded_net.c).
 */
int pf_record_net(struct pf_record *rec, unsigned int window_ms);
/*
 * The link-health replies of @ifname (link_facts.c): its first FEC sample
 * and its module EEPROM pages; pf_record_link_fec() one FEC sample (1: the
 * second, after the window).  1 written, 0 nothing to write, or -errno.
 */
int pf_record_link(struct pf_record *rec, const char *ifname);
int pf_record_link_fec(struct pf_record *rec, const char *ifname, unsigned int sample);
/* preflight/devlink/{health,info}.nl, the devlink dumps' reply bytes (devlink_nl.c). */
int pf_record_devlink(struct pf_record *rec);
/* preflight/page_size, preflight/env and preflight/euid (providers.c). */
int pf_record_page_size(struct pf_record *rec);
int pf_record_process(struct pf_record *rec);
/* preflight/ip/rule (rtrule.c). */
int pf_record_ip_rules(struct pf_record *rec);
/* preflight/mstconfig/<bdf>/<param> of each NVIDIA RoCE port (mstconfig.c). */
int pf_record_nv(struct pf_record *rec);
/* preflight/lldp/neighbors, where lldpd runs (lldp.c). */
int pf_record_lldp(struct pf_record *rec);
/* preflight/mlxlink/<bdf> of every ConnectX function where mlxlink is installed (mlxlink.c). */
int pf_record_mlxlink(struct pf_record *rec);
/*
 * preflight/fabric/<file> of each NVLink fabric service whose tool is
 * installed, on a node with an NVIDIA GPU or NVSwitch, and IMEX's node list
 * when its config.cfg names another file than the default (fabric_svc.c).
 */
int pf_record_fabric_svc(struct pf_record *rec);
/* preflight/kmsg, ibverbs/reg_dmabuf_mr, cuda/<attr> on a node with GPUs (gpu_record.c). */
int pf_record_gpu(struct pf_record *rec);
/*
 * preflight/job_user and preflight/ls/dev/infiniband (job_recorded.c); the
 * job's user in *ret_user and true in *ret_known when the provider knew it.
 */
int pf_record_job(struct pf_record *rec, struct pf_job_user *ret_user, bool *ret_known);

#endif
