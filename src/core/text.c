// SPDX-License-Identifier: MIT
/*
 * text.c - text that leaves preflight: UTF-8 validation and cleaning, JSON
 * printed as jq prints it, and number spelling.
 *
 * Findings carry bytes read from the node (sysfs strings, tool output), so
 * a renderer cannot assume valid UTF-8; both XML and the Prometheus text
 * format require it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "preflight/result.h" /* pf_autojson */
#include "preflight/strbuf.h"
#include "text.h"

int pf_utf8_decode(const char *s, uint32_t *ret_cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp, min;
	int n;

	if (u[0] < 0x80) {
		*ret_cp = u[0];
		return u[0] ? 1 : -EINVAL;
	}
	if ((u[0] & 0xe0) == 0xc0) {
		n = 2, cp = u[0] & 0x1f, min = 0x80;
	} else if ((u[0] & 0xf0) == 0xe0) {
		n = 3, cp = u[0] & 0x0f, min = 0x800;
	} else if ((u[0] & 0xf8) == 0xf0) {
		n = 4, cp = u[0] & 0x07, min = 0x10000;
	} else {
		return -EINVAL;
	}
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return -EINVAL;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -EINVAL; /* overlong, out of range, or a surrogate */
	*ret_cp = cp;
	return n;
}

void pf_format_double(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else if (v == 0.0)
		snprintf(buf, len, "0"); /* no "-0" */
	else
		snprintf(buf, len, "%.15g", v);
}

char *pf_utf8_clean(const char *s, bool escape_controls)
{
	size_t len = 0, cap = s ? strlen(s) + 1 : 1;
	char *out = pf_xmalloc(cap);

	while (s && *s) {
		char esc[8];
		const char *put;
		uint32_t cp;
		int n = pf_utf8_decode(s, &cp), k;

		if (n < 0) {
			put = "\xef\xbf\xbd"; /* U+FFFD for one bad byte */
			k = 3;
			n = 1;
		} else if (escape_controls && (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))) {
			/* C0, DEL and C1: a terminal would act on them (ESC [ ...) */
			k = snprintf(esc, sizeof(esc), "\\x%02x", (unsigned int)cp);
			put = esc;
		} else {
			put = s;
			k = n;
		}
		if (len + (size_t)k + 1 > cap) {
			cap = 2 * cap + (size_t)k;
			out = pf_xrealloc(out, cap);
		}
		memcpy(out + len, put, (size_t)k);
		len += (size_t)k;
		s += n;
	}
	out[len] = '\0';
	return out;
}

static void jb_indent(struct pf_strbuf *b, int depth)
{
	pf_strbuf_add(b, "\n", 1);
	for (int i = 0; i < depth; i++)
		pf_strbuf_add(b, "  ", 2);
}

/* A scalar, or a key as a JSON string: cJSON's own escaping and number format. */
static void jb_scalar(struct pf_strbuf *b, const cJSON *item)
{
	cJSON copy = *item;
	char *text;

	copy.next = copy.prev = NULL;
	copy.string = NULL;
	text = cJSON_PrintUnformatted(&copy);
	PF_BUG_ON(!text);
	pf_strbuf_adds(b, text);
	cJSON_free(text);
}

static void jb_key(struct pf_strbuf *b, const char *key, bool compact)
{
	pf_autojson cJSON *k = cJSON_CreateString(key);

	jb_scalar(b, k);
	pf_strbuf_adds(b, compact ? ":" : ": ");
}

static void jb_value(struct pf_strbuf *b, const cJSON *j, int depth, bool compact)
{
	bool obj = cJSON_IsObject(j);
	const cJSON *it;

	if (!obj && !cJSON_IsArray(j)) {
		jb_scalar(b, j);
		return;
	}
	pf_strbuf_add(b, obj ? "{" : "[", 1);
	for (it = j->child; it; it = it->next) {
		if (!compact)
			jb_indent(b, depth + 1);
		if (obj)
			jb_key(b, it->string ? it->string : "", compact);
		jb_value(b, it, depth + 1, compact);
		if (it->next)
			pf_strbuf_add(b, ",", 1);
	}
	if (!compact && j->child)
		jb_indent(b, depth);
	pf_strbuf_add(b, obj ? "}" : "]", 1);
}

char *pf_json_print(const cJSON *j, bool compact)
{
	struct pf_strbuf b = PF_STRBUF_INIT;

	jb_value(&b, j, 0, compact);
	return pf_strbuf_detach(&b);
}

void pf_json_clean(cJSON *j, bool escape_controls)
{
	for (cJSON *it = j; it; it = it->next) {
		if (it->string && !(it->type & cJSON_StringIsConst)) {
			char *c = pf_utf8_clean(it->string, escape_controls);

			if (strcmp(c, it->string)) {
				free(it->string);
				it->string = c;
			} else {
				free(c);
			}
		}
		if (cJSON_IsString(it) && it->valuestring) {
			pf_autofree char *c = pf_utf8_clean(it->valuestring, escape_controls);

			if (strcmp(c, it->valuestring))
				cJSON_SetValuestring(it, c);
		}
		if (it->child)
			pf_json_clean(it->child, escape_controls);
	}
}
