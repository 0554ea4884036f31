// SPDX-License-Identifier: MIT
/*
 * optics.c - a pluggable module's diagnostics and its own thresholds from
 * EEPROM pages (preflight/optics.h).  Offsets (docs/checks/link_health.md
 * cites them):
 *
 *   SFF-8636 rev 2.10a, lower page 00h: byte 2 bit 2 Flat_mem;
 *     temperature 22-23 (s16, 1/256 C), Vcc 26-27 (u16, 100 uV),
 *     RX power 34-41, TX bias 42-49, TX power 50-57 (4 lanes, u16 each:
 *     0.1 uW, 2 uA, 0.1 uW).
 *   SFF-8636 upper page 03h (thresholds, high alarm / low alarm / high
 *     warning / low warning, u16 each): temperature 128, Vcc 144,
 *     RX power 176, TX bias 184, TX power 192.
 *   CMIS 5.2, lower page 00h: byte 2 bit 7 flat memory; temperature 14-15,
 *     Vcc 16-17.
 *   CMIS page 01h byte 160 bits 4-3: TX bias multiplier (x1, x2, x4).
 *   CMIS page 02h (same order of four): temperature 128, Vcc 136,
 *     TX power 176, TX bias 184, RX power 192.
 *   CMIS page 11h (bank 0, lanes 1-8): TX power 154, TX bias 170,
 *     RX power 186.
 *
 * All multi-byte fields are big-endian.
 */
#include <errno.h>
#include <stddef.h>

#include "preflight/optics.h"

static unsigned int be16(const uint8_t *p)
{
	return (unsigned int)p[0] << 8 | p[1];
}

static double temp_at(const uint8_t *p)
{
	return (double)(int16_t)be16(p) / 256.0;
}

/* The scale of each monitor's raw u16 into its unit (temperature is signed apart). */
static double scale_of(enum pf_optic_mon mon)
{
	switch (mon) {
	case PF_MON_VCC:
		return 100e-6;   /* 100 uV -> V */
	case PF_MON_TX_BIAS:
		return 2e-3;     /* 2 uA -> mA */
	case PF_MON_TX_POWER:
	case PF_MON_RX_POWER:
		return 1e-4;     /* 0.1 uW -> mW */
	default:
		return 1;
	}
}

static double value_at(enum pf_optic_mon mon, const uint8_t *p, double mul)
{
	if (mon == PF_MON_TEMP)
		return temp_at(p);
	return be16(p) * scale_of(mon) * mul;
}

enum pf_optic_kind pf_optic_kind_of(uint8_t id)
{
	switch (id) {
	case 0x0c: /* QSFP */
	case 0x0d: /* QSFP+ */
	case 0x11: /* QSFP28 */
		return PF_OPTIC_SFF8636;
	case 0x18: /* QSFP-DD */
	case 0x19: /* OSFP */
	case 0x1a: /* SFP-DD */
	case 0x1b: /* DSFP */
	case 0x1e: /* QSFP+ or later with CMIS */
	case 0x1f: /* SFP-DD with CMIS */
	case 0x20: /* SFP+ with CMIS */
		return PF_OPTIC_CMIS;
	default:
		return PF_OPTIC_UNKNOWN;
	}
}

bool pf_optic_flat(enum pf_optic_kind kind, const uint8_t *lower)
{
	if (kind == PF_OPTIC_SFF8636)
		return lower[2] & 0x04;
	if (kind == PF_OPTIC_CMIS)
		return lower[2] & 0x80;
	return true;
}

size_t pf_optic_pages_wanted(enum pf_optic_kind kind, uint8_t *ret, size_t max)
{
	static const uint8_t sff[] = { 0x03 };
	static const uint8_t cmis[] = { 0x01, 0x02, 0x11 };
	const uint8_t *v = kind == PF_OPTIC_SFF8636 ? sff : kind == PF_OPTIC_CMIS ? cmis : NULL;
	size_t n = kind == PF_OPTIC_SFF8636 ? sizeof(sff) : kind == PF_OPTIC_CMIS ? sizeof(cmis) : 0;

	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		ret[i] = v[i];
	return n;
}

/* The four thresholds at EEPROM offset @off (128..255) of upper page @page. */
static void thresholds(struct pf_optic *o, enum pf_optic_mon mon, const uint8_t *page,
		       unsigned int off, double mul)
{
	const uint8_t *p = page + (off - 128);
	struct pf_optic_thresholds *t = &o->thr[mon];

	t->high_alarm = value_at(mon, p, mul);
	t->low_alarm = value_at(mon, p + 2, mul);
	t->high_warn = value_at(mon, p + 4, mul);
	t->low_warn = value_at(mon, p + 6, mul);
	t->has = true;
}

/* @n lanes of monitor @mon from @base (an array of u16 in the page's 128-byte buffer). */
static void lanes(struct pf_optic *o, enum pf_optic_mon mon, const uint8_t *base,
		  unsigned int n, double mul)
{
	for (unsigned int i = 0; i < n; i++)
		o->lane[mon][i] = value_at(mon, base + 2 * i, mul);
	o->has[mon] = true;
}

static void decode_sff8636(const struct pf_optic_pages *pg, struct pf_optic *o)
{
	const uint8_t *lo = pg->lower, *p3 = pg->upper[0x03];

	o->temp_c = temp_at(lo + 22);
	o->vcc_v = value_at(PF_MON_VCC, lo + 26, 1);
	o->has[PF_MON_TEMP] = o->has[PF_MON_VCC] = true;
	o->n_lanes = 4;
	lanes(o, PF_MON_RX_POWER, lo + 34, 4, 1);
	lanes(o, PF_MON_TX_BIAS, lo + 42, 4, 1);
	lanes(o, PF_MON_TX_POWER, lo + 50, 4, 1);
	if (!p3 || pf_optic_flat(PF_OPTIC_SFF8636, lo))
		return;
	thresholds(o, PF_MON_TEMP, p3, 128, 1);
	thresholds(o, PF_MON_VCC, p3, 144, 1);
	thresholds(o, PF_MON_RX_POWER, p3, 176, 1);
	thresholds(o, PF_MON_TX_BIAS, p3, 184, 1);
	thresholds(o, PF_MON_TX_POWER, p3, 192, 1);
}

static void decode_cmis(const struct pf_optic_pages *pg, struct pf_optic *o)
{
	const uint8_t *lo = pg->lower;
	const uint8_t *p1 = pg->upper[0x01], *p2 = pg->upper[0x02], *p11 = pg->upper[0x11];
	double bias_mul = 1;

	o->temp_c = temp_at(lo + 14);
	o->vcc_v = value_at(PF_MON_VCC, lo + 16, 1);
	o->has[PF_MON_TEMP] = o->has[PF_MON_VCC] = true;
	if (pf_optic_flat(PF_OPTIC_CMIS, lo))
		return;
	if (p1)
		bias_mul = 1u << ((p1[160 - 128] >> 3) & 0x3);
	if (p2) {
		thresholds(o, PF_MON_TEMP, p2, 128, 1);
		thresholds(o, PF_MON_VCC, p2, 136, 1);
		thresholds(o, PF_MON_TX_POWER, p2, 176, 1);
		thresholds(o, PF_MON_TX_BIAS, p2, 184, bias_mul);
		thresholds(o, PF_MON_RX_POWER, p2, 192, 1);
	}
	if (!p11)
		return;
	o->n_lanes = 8;
	lanes(o, PF_MON_TX_POWER, p11 + (154 - 128), 8, 1);
	lanes(o, PF_MON_TX_BIAS, p11 + (170 - 128), 8, bias_mul);
	lanes(o, PF_MON_RX_POWER, p11 + (186 - 128), 8, 1);
}

int pf_optic_decode(const struct pf_optic_pages *pages, struct pf_optic *ret)
{
	struct pf_optic o = { 0 };

	if (!pages->lower)
		return -EINVAL;
	o.id = pages->lower[0];
	o.kind = pf_optic_kind_of(o.id);
	if (o.kind == PF_OPTIC_SFF8636)
		decode_sff8636(pages, &o);
	else if (o.kind == PF_OPTIC_CMIS)
		decode_cmis(pages, &o);
	else
		return -EOPNOTSUPP;
	*ret = o;
	return 0;
}

enum pf_optic_level pf_optic_level(const struct pf_optic_thresholds *t, double v)
{
	if (!t->has)
		return PF_OPTIC_OK;
	if (v > t->high_alarm)
		return PF_OPTIC_ALARM_HIGH;
	if (v < t->low_alarm)
		return PF_OPTIC_ALARM_LOW;
	if (v > t->high_warn)
		return PF_OPTIC_WARN_HIGH;
	if (v < t->low_warn)
		return PF_OPTIC_WARN_LOW;
	return PF_OPTIC_OK;
}

const char *pf_optic_mon_name(enum pf_optic_mon mon)
{
	static const char *const names[PF_MON_COUNT] = {
		"temperature", "supply voltage", "TX bias", "TX power", "RX power",
	};

	return mon < PF_MON_COUNT ? names[mon] : "?";
}

const char *pf_optic_mon_unit(enum pf_optic_mon mon)
{
	static const char *const units[PF_MON_COUNT] = { "C", "V", "mA", "mW", "mW" };

	return mon < PF_MON_COUNT ? units[mon] : "";
}

int pf_fec_corrected_rise(const struct pf_fec *a, const struct pf_fec *b, uint64_t *ret_delta,
			  int *ret_lane)
{
	const struct pf_fec_counter *x = &a->corrected, *y = &b->corrected;
	uint64_t worst = 0;
	int lane = -1;

	if (!x->has || !y->has)
		return -ENODATA;
	if (x->n_lanes && x->n_lanes == y->n_lanes) {
		for (unsigned int i = 0; i < x->n_lanes; i++) {
			uint64_t d = y->lane[i] >= x->lane[i] ? y->lane[i] - x->lane[i] : 0;

			if (d > worst || lane < 0) {
				worst = d;
				lane = (int)i;
			}
		}
	} else {
		worst = y->total >= x->total ? y->total - x->total : 0;
	}
	*ret_delta = worst;
	*ret_lane = lane;
	return 0;
}
