/* SPDX-License-Identifier: MIT */
/*
 * net.h - the RoCE netdev facts that are not files, as types, and their text
 * parsers (src/parse/parse_ethtool.c): link modes and pause parameters
 * (ethtool), driver statistics (`ethtool -S`) and the PFC configuration and
 * DSCP table (dcb).  The recorded backend reads the standard tools' output
 * under <root>/preflight/ with these (docs/snapshot.md).
 *
 * How the facts are read from the kernel, the IPv4 addresses and rules, and
 * the providers over them are net_facts.h (src/facts).
 */
#ifndef PREFLIGHT_NET_H
#define PREFLIGHT_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PF_SPEED_UNKNOWN UINT32_MAX
#define PF_PRIOS 8 /* IEEE 802.1Q priorities */

/* ETHTOOL_MSG_LINKMODES_GET, or `ethtool <if>` text. */
struct pf_linkmodes {
	uint32_t speed_mbps; /* PF_SPEED_UNKNOWN when the link is down */
	uint32_t lanes;      /* 0 unknown (kernel < 5.10 or driver silent) */
	int duplex;          /* 0 half, 1 full, -1 unknown */
	int autoneg;         /* 0 off, 1 on, -1 unknown */
};

/* ETHTOOL_MSG_PAUSE_GET with ETHTOOL_FLAG_STATS, or `ethtool -I -a <if>` text. */
struct pf_pause {
	bool autoneg, rx, tx;
	bool has_stats;      /* the driver reported IEEE 802.3 pause frame counters */
	uint64_t tx_frames, rx_frames;
};

/* One driver statistic, as `ethtool -S` names it. */
struct pf_stat {
	char name[64];
	uint64_t value;
};

/* The driver statistics of one netdev, in the driver's order. */
struct pf_stats {
	struct pf_stat *v;
	size_t n;
};

/* DCB_ATTR_IEEE_PFC (struct ieee_pfc), or `dcb -s pfc show dev <if>` text. */
struct pf_pfc {
	unsigned int pfc_cap; /* traffic classes that may have PFC */
	uint8_t pfc_en;       /* bit p: PFC enabled on priority p */
	bool mbc;             /* MACsec bypass */
	unsigned int delay;   /* allowance for cable delay, bit times */
	bool has_counters;    /* requests/indications were reported */
	uint64_t requests[PF_PRIOS];    /* PFC frames sent per priority */
	uint64_t indications[PF_PRIOS]; /* PFC frames received per priority */
	/*
	 * The DCB APP table's DSCP entries (selector 5, IEEE_8021QAZ_APP_SEL_DSCP):
	 * DCB_ATTR_IEEE_APP_TABLE live, `dcb -N app show dev <if>` recorded.  A
	 * port with DSCP entries trusts DSCP (mlx5 installs them when its trust
	 * state is set to dscp); none means PCP trust.
	 */
	bool has_app;         /* the table was read (it may hold no DSCP entry) */
	uint64_t dscp_mapped; /* bit d: DSCP d has an entry */
	uint8_t dscp_prio[64];
};

/* `dcb -N app show dev <if>`: the "dscp-prio D:P ..." entries into @pfc's table. */
int pf_parse_dcb_app(const char *text, struct pf_pfc *pfc);

/* Release the array of @s; the struct is left empty. */
void pf_stats_release(struct pf_stats *s);
/* The value of statistic @name: 0, or -ENOENT when the driver has none. */
int pf_stats_get(const struct pf_stats *s, const char *name, uint64_t *ret);

/*
 * Text parsers (src/parse/parse_ethtool.c).  Each tolerates the header line,
 * indentation with blanks or tabs, CRLF, and garbage lines (skipped); an
 * error message the tool prints instead of data ("netlink error: Operation
 * not supported", "Attribute read: Operation not supported", "no stats
 * available") gives -EOPNOTSUPP.
 */

/*
 * `ethtool -S <if>`: "NIC statistics:" then "     name: value" lines.
 * Returns the number of statistics (0 is valid), -EOPNOTSUPP, or -EINVAL
 * when the text has no statistic and no recognised header.
 */
int pf_parse_ethtool_stats(const char *text, struct pf_stats *ret);
/*
 * `ethtool -a` / `ethtool -I -a <if>`: "Autonegotiate: off", "RX: on",
 * "TX: on", and the optional "Statistics:" block ("tx_pause_frames: N").
 * -EINVAL when RX or TX is missing.
 */
int pf_parse_ethtool_pause(const char *text, struct pf_pause *ret);
/*
 * `dcb [-s] pfc show dev <if>`: "pfc-cap 8 macsec-bypass off delay 0" and
 * "prio-pfc 0:off ... 3:on ...", optionally "requests 0:N ..." and
 * "indications 0:N ...".  Priorities not listed are off.  -EINVAL without a
 * prio-pfc line.
 */
int pf_parse_dcb_pfc(const char *text, struct pf_pfc *ret);
/*
 * `ethtool <if>`: "Speed: 100000Mb/s" ("Unknown!" when down), "Duplex:
 * Full", "Lanes: 4", "Auto-negotiation: on".  -EINVAL without a Speed line.
 */
int pf_parse_ethtool_settings(const char *text, struct pf_linkmodes *ret);

/*
 * LLDP neighbours as lldpd's client prints them with `lldpcli -f keyvalue
 * show neighbors` (src/parse/parse_lldp.c): one "lldp.<if>.<path>=<value>"
 * line per field, <path> the tags joined by '.', a typed tag named after its
 * type ("lldp.eth0.chassis.mac=...", "lldp.eth0.chassis.name=leaf07",
 * "lldp.eth0.port.ifname=swp12"), newlines in values turned into spaces.
 */
#define PF_LLDP_MAX_IFACES 256
#define PF_LLDP_VALUE_MAX 256 /* an LLDP string TLV holds at most 255 octets */

struct pf_lldp_neighbor {
	char ifname[32];                  /* the local interface */
	char chassis[PF_LLDP_VALUE_MAX];  /* system name, else chassis id; "" unknown */
	char port[PF_LLDP_VALUE_MAX];     /* port id; "" unknown */
};

struct pf_lldp_neighbors {
	struct pf_lldp_neighbor *v; /* in the order the interfaces first appear */
	size_t n;
};

/*
 * The first neighbour of each interface in @text (a second one, whose
 * chassis id follows the first's, is left out), at most PF_LLDP_MAX_IFACES
 * interfaces; lines that are not fields of a neighbour's chassis or port are
 * skipped, values longer than a field are cut, control characters become
 * '?'.  Returns the number of interfaces (0 for text with none); never fails
 * on what the text holds.  Release with pf_lldp_neighbors_release().
 */
int pf_parse_lldp_keyvalue(const char *text, struct pf_lldp_neighbors *ret);
void pf_lldp_neighbors_release(struct pf_lldp_neighbors *n);
/* The neighbour of interface @ifname, NULL none. */
const struct pf_lldp_neighbor *pf_lldp_find(const struct pf_lldp_neighbors *n,
					    const char *ifname);

#endif
