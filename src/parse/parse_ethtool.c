// SPDX-License-Identifier: MIT
/*
 * parse_ethtool.c - the text of `ethtool -S`, `ethtool -I -a`, `ethtool`
 * and `dcb -s pfc show`, as a snapshot records them (docs/snapshot.md).
 *
 * Dumps come from people as well as from `preflight snapshot`: pasted with
 * other indentation, tabs, CRLF, a header or none, zero counters removed,
 * other lines mixed in.  The parsers take what they recognise line by
 * line and skip the rest; only the absence of every expected line is an
 * error.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "preflight/fs.h"
#include "preflight/net.h"
#include "preflight/strbuf.h"

void pf_stats_release(struct pf_stats *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int pf_stats_get(const struct pf_stats *s, const char *name, uint64_t *ret)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name)) {
			*ret = s->v[i].value;
			return 0;
		}
	return -ENOENT;
}

/* A line of @text without its line break and outer blanks, in @buf. */
static const char *next_line(const char *p, char *buf, size_t len, const char **ret_next)
{
	const char *eol = strchr(p, '\n');
	const char *end = eol ? eol : p + strlen(p);
	size_t n;

	*ret_next = eol ? eol + 1 : end;
	while (p < end && isspace((unsigned char)*p))
		p++;
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	n = (size_t)(end - p);
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* The messages the tools print instead of data when the driver lacks the operation. */
static bool is_unsupported(const char *line)
{
	return strstr(line, "Operation not supported") || strstr(line, "no stats available") ||
	       strstr(line, "not supported");
}

/* Split "key: value" at the last colon; trims both.  False without a colon. */
static bool split_kv(char *line, char **ret_key, char **ret_val)
{
	char *colon = strrchr(line, ':'), *k = line, *v, *e;

	if (!colon)
		return false;
	*colon = '\0';
	v = colon + 1;
	while (*v && isspace((unsigned char)*v))
		v++;
	e = colon;
	while (e > k && isspace((unsigned char)e[-1]))
		*--e = '\0';
	*ret_key = k;
	*ret_val = v;
	return true;
}

int pf_parse_ethtool_stats(const char *text, struct pf_stats *ret)
{
	struct pf_stats s = { 0 };
	size_t cap = 0;
	bool header = false, unsupported = false;
	const char *p = text;
	char buf[256];

	while (*p) {
		char *line = (char *)next_line(p, buf, sizeof(buf), &p), *key, *val;
		uint64_t v;

		if (!*line)
			continue;
		if (!strncasecmp(line, "NIC statistics", 14) || !strncasecmp(line, "Standard stats", 14)) {
			header = true;
			continue;
		}
		if (is_unsupported(line)) {
			unsupported = true;
			continue;
		}
		if (!split_kv(line, &key, &val) || !*key || strlen(key) >= sizeof(s.v[0].name) ||
		    pf_parse_u64(val, &v) < 0)
			continue;
		PF_GROW(s.v, s.n, cap);
		snprintf(s.v[s.n].name, sizeof(s.v[s.n].name), "%s", key);
		s.v[s.n++].value = v;
	}
	if (s.n == 0 && unsupported)
		return -EOPNOTSUPP;
	if (s.n == 0 && !header)
		return -EINVAL;
	*ret = s;
	return (int)s.n;
}

/* "on"/"off" (also "yes"/"no", "1"/"0"); -EINVAL otherwise. */
static int parse_on_off(const char *v, bool *ret)
{
	if (!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1"))
		*ret = true;
	else if (!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcmp(v, "0"))
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

int pf_parse_ethtool_pause(const char *text, struct pf_pause *ret)
{
	struct pf_pause pa = { 0 };
	bool have_rx = false, have_tx = false, unsupported = false;
	const char *p = text;
	char buf[256];

	while (*p) {
		char *line = (char *)next_line(p, buf, sizeof(buf), &p), *key, *val;
		uint64_t v;

		if (is_unsupported(line)) {
			unsupported = true;
			continue;
		}
		if (!split_kv(line, &key, &val) || !*val)
			continue;
		if (!strcasecmp(key, "Autonegotiate")) {
			parse_on_off(val, &pa.autoneg);
		} else if (!strcasecmp(key, "RX")) {
			have_rx = parse_on_off(val, &pa.rx) == 0;
		} else if (!strcasecmp(key, "TX")) {
			have_tx = parse_on_off(val, &pa.tx) == 0;
		} else if ((!strcasecmp(key, "tx_pause_frames") || !strcasecmp(key, "TX pause frames")) &&
			   pf_parse_u64(val, &v) == 0) {
			pa.tx_frames = v;
			pa.has_stats = true;
		} else if ((!strcasecmp(key, "rx_pause_frames") || !strcasecmp(key, "RX pause frames")) &&
			   pf_parse_u64(val, &v) == 0) {
			pa.rx_frames = v;
			pa.has_stats = true;
		}
	}
	if (!have_rx || !have_tx)
		return unsupported ? -EOPNOTSUPP : -EINVAL;
	*ret = pa;
	return 0;
}

/* Fill @on (a bitmap) or @vals from "p:x" tokens after the first word of @line. */
static int parse_prio_map(char *line, uint8_t *on, uint64_t *vals)
{
	char *save = NULL, *tok = strtok_r(line, " \t", &save);
	int n = 0;

	while ((tok = strtok_r(NULL, " \t", &save))) {
		char *colon = strchr(tok, ':');
		uint64_t prio, v;
		bool b;

		if (!colon)
			continue;
		*colon = '\0';
		if (pf_parse_u64(tok, &prio) < 0 || prio >= PF_PRIOS)
			continue;
		if (on) {
			if (parse_on_off(colon + 1, &b) < 0)
				continue;
			if (b)
				*on |= (uint8_t)(1u << prio);
			else
				*on &= (uint8_t)~(1u << prio);
		} else {
			if (pf_parse_u64(colon + 1, &v) < 0)
				continue;
			vals[prio] = v;
		}
		n++;
	}
	return n;
}

/* The value after word @name in "pfc-cap 8 macsec-bypass off delay 0". */
static const char *word_after(const char *line, const char *name, char *buf, size_t len)
{
	size_t nl = strlen(name);

	for (const char *p = line; (p = strstr(p, name)); p += nl) {
		if ((p != line && !isspace((unsigned char)p[-1])) || !isspace((unsigned char)p[nl]))
			continue;
		p += nl;
		while (isspace((unsigned char)*p))
			p++;
		size_t n = strcspn(p, " \t");
		if (n == 0 || n >= len)
			return NULL;
		memcpy(buf, p, n);
		buf[n] = '\0';
		return buf;
	}
	return NULL;
}

int pf_parse_dcb_pfc(const char *text, struct pf_pfc *ret)
{
	struct pf_pfc pfc = { 0 };
	bool have_map = false, have_req = false, have_ind = false, unsupported = false;
	const char *p = text;
	char buf[512], word[32];

	while (*p) {
		char *line = (char *)next_line(p, buf, sizeof(buf), &p);
		uint64_t v;
		bool b;

		if (is_unsupported(line)) {
			unsupported = true;
			continue;
		}
		if (word_after(line, "pfc-cap", word, sizeof(word)) && pf_parse_u64(word, &v) == 0)
			pfc.pfc_cap = (unsigned int)v;
		if (word_after(line, "macsec-bypass", word, sizeof(word)) && parse_on_off(word, &b) == 0)
			pfc.mbc = b;
		if (word_after(line, "delay", word, sizeof(word)) && pf_parse_u64(word, &v) == 0)
			pfc.delay = (unsigned int)v;
		if (!strncmp(line, "prio-pfc", 8) && isspace((unsigned char)line[8])) {
			parse_prio_map(line, &pfc.pfc_en, NULL);
			have_map = true;
		} else if (!strcmp(line, "prio-pfc")) {
			have_map = true; /* nothing listed: all off */
		} else if (!strncmp(line, "requests", 8) && isspace((unsigned char)line[8])) {
			have_req = parse_prio_map(line, NULL, pfc.requests) > 0;
		} else if (!strncmp(line, "indications", 11) && isspace((unsigned char)line[11])) {
			have_ind = parse_prio_map(line, NULL, pfc.indications) > 0;
		}
	}
	if (!have_map)
		return unsupported ? -EOPNOTSUPP : -EINVAL;
	pfc.has_counters = have_req && have_ind;
	*ret = pfc;
	return 0;
}

int pf_parse_dcb_app(const char *text, struct pf_pfc *pfc)
{
	pf_autofree char *copy = pf_xstrdup(text);
	char *save = NULL;
	bool in_dscp = false;

	pfc->has_app = false;
	pfc->dscp_mapped = 0;
	if (is_unsupported(text))
		return -EOPNOTSUPP;
	/* "dscp-prio 24:3 26:3 ..." possibly among "default-prio 0 pcp-prio ..." on one line */
	for (char *w = strtok_r(copy, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		char *colon = strchr(w, ':');
		uint64_t d, p;

		if (!colon) {
			in_dscp = !strcmp(w, "dscp-prio");
			continue;
		}
		if (!in_dscp)
			continue;
		*colon = '\0';
		if (pf_parse_u64(w, &d) < 0 || pf_parse_u64(colon + 1, &p) < 0 || d >= 64 ||
		    p >= PF_PRIOS)
			return -EINVAL;
		pfc->dscp_mapped |= 1ull << d;
		pfc->dscp_prio[d] = (uint8_t)p;
	}
	pfc->has_app = true;
	return 0;
}

int pf_parse_ethtool_settings(const char *text, struct pf_linkmodes *ret)
{
	struct pf_linkmodes lm = { .speed_mbps = PF_SPEED_UNKNOWN, .duplex = -1, .autoneg = -1 };
	bool have_speed = false, unsupported = false;
	const char *p = text;
	char buf[256];

	while (*p) {
		char *line = (char *)next_line(p, buf, sizeof(buf), &p), *key, *val;
		uint64_t v;
		bool b;

		if (is_unsupported(line)) {
			unsupported = true;
			continue;
		}
		if (!split_kv(line, &key, &val))
			continue;
		if (!strcasecmp(key, "Speed")) {
			char num[32];
			size_t n = strspn(val, "0123456789");

			have_speed = true;
			if (n == 0 || n >= sizeof(num) || strcasecmp(val + n, "Mb/s"))
				continue; /* "Unknown!" */
			memcpy(num, val, n);
			num[n] = '\0';
			if (pf_parse_u64(num, &v) == 0 && v < PF_SPEED_UNKNOWN)
				lm.speed_mbps = (uint32_t)v;
		} else if (!strcasecmp(key, "Duplex")) {
			lm.duplex = !strcasecmp(val, "Full") ? 1 : !strcasecmp(val, "Half") ? 0 : -1;
		} else if (!strcasecmp(key, "Lanes") && pf_parse_u64(val, &v) == 0 && v <= 64) {
			lm.lanes = (uint32_t)v;
		} else if (!strcasecmp(key, "Auto-negotiation") && parse_on_off(val, &b) == 0) {
			lm.autoneg = b;
		}
	}
	if (!have_speed)
		return unsupported ? -EOPNOTSUPP : -EINVAL;
	*ret = lm;
	return 0;
}
