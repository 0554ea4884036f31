/* SPDX-License-Identifier: MIT */
/*
 * optics.h - what a link's health is read from, as plain structs: the FEC
 * block counters (ethtool netlink ETHTOOL_MSG_FEC_GET with
 * ETHTOOL_FLAG_STATS) and a pluggable module's diagnostics decoded from
 * its EEPROM pages (SFF-8636 lower page 00h and page 03h; CMIS lower page
 * 00h and pages 01h, 02h, 11h), with the module's own alarm and warning
 * thresholds.  The decoder (src/parse/optics.c) reads bytes only; the
 * netlink parsers that fill these are preflight/link_facts.h.
 */
#ifndef PREFLIGHT_OPTICS_H
#define PREFLIGHT_OPTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's ETHTOOL_MAX_LANES (include/uapi/linux/ethtool.h). */
#define PF_FEC_LANES 8

/*
 * One FEC counter: the total and, when the driver splits it (mlx5 in
 * FC-FEC mode), per lane.  The kernel sends the total first, then one u64
 * per lane (net/ethtool/fec.c, fec_stat_grp).
 */
struct pf_fec_counter {
	bool has;
	uint64_t total;
	uint64_t lane[PF_FEC_LANES];
	unsigned int n_lanes;
};

struct pf_fec {
	uint32_t active;       /* ETHTOOL_FEC_* bits of ETHTOOL_A_FEC_ACTIVE; 0 unknown */
	bool has_stats;        /* ETHTOOL_A_FEC_STATS present */
	struct pf_fec_counter corrected, uncorrectable, corrected_bits;
};

/*
 * The worst rise of the corrected-block counter between two samples @a and
 * @b (wrap or reset: a counter that went back is no rise): per lane where
 * both samples split it, else the total.  *ret_lane is the lane index, or
 * -1 for the total.  0, or -ENODATA when either sample lacks the counter.
 */
int pf_fec_corrected_rise(const struct pf_fec *a, const struct pf_fec *b, uint64_t *ret_delta,
			  int *ret_lane);

/* The module families the decoder knows (byte 0 of lower page 00h, SFF-8024). */
enum pf_optic_kind {
	PF_OPTIC_UNKNOWN,
	PF_OPTIC_SFF8636,      /* QSFP+ / QSFP28 (0x0c, 0x0d, 0x11) */
	PF_OPTIC_CMIS,         /* QSFP-DD, OSFP, QSFP+ CMIS (0x18, 0x19, 0x1e, ...) */
};

/* The monitors the decoder reads, each with the module's four thresholds. */
enum pf_optic_mon {
	PF_MON_TEMP,           /* degrees C */
	PF_MON_VCC,            /* V */
	PF_MON_TX_BIAS,        /* mA, per lane */
	PF_MON_TX_POWER,       /* mW, per lane */
	PF_MON_RX_POWER,       /* mW, per lane */
	PF_MON_COUNT,
};

#define PF_OPTIC_LANES 8

struct pf_optic_thresholds {
	bool has;
	double high_alarm, low_alarm, high_warn, low_warn;
};

struct pf_optic {
	enum pf_optic_kind kind;
	uint8_t id;                      /* SFF-8024 identifier */
	unsigned int n_lanes;            /* lanes with per-lane monitors: 4 or 8; 0 none */
	bool has[PF_MON_COUNT];
	double temp_c, vcc_v;
	double lane[PF_MON_COUNT][PF_OPTIC_LANES]; /* TX_BIAS, TX_POWER, RX_POWER */
	struct pf_optic_thresholds thr[PF_MON_COUNT];
};

/*
 * The pages a decoder needs of the module, each 128 bytes: lower page 00h
 * (EEPROM offsets 0-127), then the upper pages by number; NULL when not
 * read (a flat-memory module has none).
 */
struct pf_optic_pages {
	const uint8_t *lower;            /* offsets 0..127 */
	const uint8_t *upper[256];       /* page N, offsets 128..255 */
};

/* The family of a module from byte 0 of its lower page. */
enum pf_optic_kind pf_optic_kind_of(uint8_t id);
/* Whether the module's memory is flat (no upper pages beyond 00h) per its lower page. */
bool pf_optic_flat(enum pf_optic_kind kind, const uint8_t *lower);
/*
 * The upper pages @kind's decoder reads, into @ret (at most @max): SFF-8636
 * 03h; CMIS 01h, 02h, 11h (bank 0).  Their count.
 */
size_t pf_optic_pages_wanted(enum pf_optic_kind kind, uint8_t *ret, size_t max);
/*
 * Decode the monitors and thresholds of @pages into @ret.  -EINVAL without
 * a lower page, -EOPNOTSUPP for a module family not decoded (SFP: SFF-8472).
 * Monitors whose page is absent stay unset (has[] false, thresholds has false).
 */
int pf_optic_decode(const struct pf_optic_pages *pages, struct pf_optic *ret);

/* The judgement of one monitor value against its module thresholds. */
enum pf_optic_level { PF_OPTIC_OK, PF_OPTIC_WARN_LOW, PF_OPTIC_WARN_HIGH,
		      PF_OPTIC_ALARM_LOW, PF_OPTIC_ALARM_HIGH };
/* OK when the thresholds are absent. */
enum pf_optic_level pf_optic_level(const struct pf_optic_thresholds *t, double v);
/* "temperature", "supply voltage", "TX bias", "TX power", "RX power". */
const char *pf_optic_mon_name(enum pf_optic_mon mon);
/* "C", "V", "mA", "mW". */
const char *pf_optic_mon_unit(enum pf_optic_mon mon);

#endif
