/* SPDX-License-Identifier: MIT */
/*
 * fabric_svc.h - the NVLink fabric's services as their tools print them
 * (src/parse/parse_fabric_svc.c): a systemd unit's state (`systemctl show
 * -p LoadState -p ActiveState -p SubState UNIT`), Fabric Manager's version
 * (`nv-fabricmanager --version`), the IMEX domain's status
 * (`nvidia-imex-ctl -N -j`) and IMEX's node list (nodes_config.cfg).  Pure
 * text in, values out; the tools are run by src/facts/fabric_svc.c.
 */
#ifndef PREFLIGHT_FABRIC_SVC_H
#define PREFLIGHT_FABRIC_SVC_H

#include <stdbool.h>
#include <stddef.h>

/* A systemd unit's states, "" where systemctl printed none. */
struct pf_unit_state {
	char load[24];   /* loaded, not-found, masked, error, ... */
	char active[24]; /* active, activating, inactive, failed, deactivating, reloading */
	char sub[24];    /* running, exited, dead, failed, ... */
};

/* `systemctl show` KEY=VALUE lines; -EINVAL when neither LoadState nor ActiveState is there. */
int pf_parse_unit_state(const char *text, struct pf_unit_state *ret);

/*
 * The version `nv-fabricmanager --version` prints ("Fabric Manager version
 * is : 550.54.15"): the first dotted number after the word "version" into
 * @buf; -EINVAL when there is none.
 */
int pf_parse_fm_version(const char *text, char *buf, size_t len);

#define PF_IMEX_MAX_NODES 128
#define PF_IMEX_WORD 48

/* One IMEX instance of `nvidia-imex-ctl -N -j`, and its connections' states. */
struct pf_imex_node {
	char host[PF_IMEX_WORD];     /* its IP address */
	char status[PF_IMEX_WORD];   /* READY, UNAVAILABLE, WAITING_FOR_PEERS, ... */
	char version[PF_IMEX_WORD];  /* "" not given */
	size_t n_conn, n_connected;  /* connections listed, CONNECTED among them */
	char not_connected[160];     /* "10.0.0.2 INVALID, ..." (cut) */
};

struct pf_imex_status {
	char domain[PF_IMEX_WORD];   /* the domain's status: UP, DOWN, DEGRADED; "" none */
	struct pf_imex_node nodes[PF_IMEX_MAX_NODES];
	size_t n_nodes;              /* entries past PF_IMEX_MAX_NODES are dropped */
};

/*
 * `nvidia-imex-ctl -N -j`: {"status": ..., "nodes": {"0": {"host", "status",
 * "version", "connections": {"0": {"host", "status"}, ...}}, ...}}.  Read
 * defensively: a node entry or connection of the wrong type is skipped, a
 * string is cut to its field.  -EINVAL when the text is not a JSON object
 * holding "nodes" as an object or "status" as a string.
 */
int pf_parse_imex_status(const char *text, size_t len, struct pf_imex_status *ret);

#define PF_IMEX_MAX_ADDRS 512

/* IMEX's node list: one IP address per line, '#' comments and blank lines ignored. */
struct pf_imex_nodes {
	char addr[PF_IMEX_MAX_ADDRS][PF_IMEX_WORD];
	size_t n;               /* addresses kept (past PF_IMEX_MAX_ADDRS: counted in n_more) */
	size_t n_more;
	size_t n_bad;           /* lines that are no IPv4 or IPv6 address */
	unsigned int first_bad; /* the first such line's number, 1-based */
};

/* Parse @text (nodes_config.cfg); always 0: what is wrong is counted. */
int pf_parse_imex_nodes(const char *text, struct pf_imex_nodes *ret);

/*
 * The node list file IMEX reads: IMEX_NODE_CONFIG_FILE of its config.cfg
 * text @config (NULL: none) into @buf, else /etc/nvidia-imex/nodes_config.cfg.
 */
void pf_imex_nodes_path(const char *config, char *buf, size_t len);

#endif
