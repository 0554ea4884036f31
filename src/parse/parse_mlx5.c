// SPDX-License-Identifier: MIT
/*
 * parse_mlx5.c - the mlx5 driver's health messages in the kernel log, per
 * PCI function (pf_parse_kmsg_mlx5() in parse.h).  The texts are those of
 * drivers/net/ethernet/mellanox/mlx5/core/health.c (poll_health,
 * print_health_info, mlx5_health_try_recover); mlx5_core_err prefixes them
 * with "mlx5_core <bdf>: <function>:<line>:(pid <n>): ".  Pure functions, no
 * I/O.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/parse.h"

/* Largest number of PCI functions kept from one log. */
#define MLX5_MAX 256

enum event { EV_NONE, EV_FATAL, EV_COMPROMISED, EV_SYND, EV_RECOVERY, EV_RECOVERY_FAILED };

static const struct {
	const char *text;
	enum event ev;
} patterns[] = {
	{ "device's health compromised", EV_COMPROMISED },
	{ "health recovery flow aborted", EV_RECOVERY_FAILED },
	{ "health recovery failed", EV_RECOVERY_FAILED },
	{ "starting health recovery flow", EV_RECOVERY },
	{ "synd 0x", EV_SYND },
};

/* "Fatal error <n> detected": the number's end, or NULL. */
static const char *fatal_error(const char *msg)
{
	const char *p = strstr(msg, "Fatal error ");

	if (!p)
		return NULL;
	p += strlen("Fatal error ");
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	return strncmp(p, " detected", 9) ? NULL : p;
}

/*
 * The function and the event of one message: 0, or -ENOENT when it is not
 * an mlx5 health message.  @bdf gets "dddd:bb:dd.f" lower-case.
 */
static int classify(const char *msg, char bdf[16], enum event *ret)
{
	const char *p = strstr(msg, "mlx5_core ");
	const size_t n = 12; /* "0000:3b:00.0": the address holds colons of its own */

	if (!p)
		return -ENOENT;
	p += strlen("mlx5_core ");
	if (strnlen(p, n + 1) < n + 1 || p[n] != ':')
		return -ENOENT;
	memcpy(bdf, p, n);
	bdf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		bdf[i] = (char)tolower((unsigned char)bdf[i]);
	if (!pf_is_bdf(bdf))
		return -ENOENT;
	p += n + 1;
	*ret = EV_NONE;
	if (fatal_error(p))
		*ret = EV_FATAL;
	for (size_t i = 0; *ret == EV_NONE && i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (strstr(p, patterns[i].text))
			*ret = patterns[i].ev;
	return *ret == EV_NONE ? -ENOENT : 0;
}

/* The text after "(pid <n>): " (mlx5_core_err's prefix), or @msg's rest. */
static const char *event_text(const char *msg)
{
	const char *p = strstr(msg, "(pid ");

	if (p && (p = strstr(p, "): ")))
		return p + 3;
	p = strstr(msg, "mlx5_core ");
	return p ? p + strlen("mlx5_core ") : msg;
}

static struct pf_mlx5_health *entry(struct pf_mlx5_health **v, size_t *n, const char *bdf)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].bdf, bdf))
			return &(*v)[i];
	if (*n >= MLX5_MAX)
		return NULL;
	*v = pf_xrealloc(*v, (*n + 1) * sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	snprintf((*v)[*n].bdf, sizeof((*v)[*n].bdf), "%s", bdf);
	(*v)[*n].last_t = -1;
	return &(*v)[(*n)++];
}

static void apply(struct pf_mlx5_health *h, enum event ev, const char *msg, double t)
{
	char text[96];
	size_t len = strcspn(event_text(msg), "\r\n");

	snprintf(text, sizeof(text), "%.*s", (int)(len < sizeof(text) ? len : sizeof(text) - 1),
		 event_text(msg));
	switch (ev) {
	case EV_FATAL:
	case EV_COMPROMISED:
		if (ev == EV_FATAL)
			h->fatal++;
		else
			h->compromised++;
		h->recovered = false;
		h->last_t = t;
		snprintf(h->what, sizeof(h->what), "%s", text);
		break;
	case EV_SYND:
		/* print_health_info follows the fatal line: name the syndrome with it */
		if (h->fatal + h->compromised && !strstr(h->what, "synd"))
			snprintf(h->what + strlen(h->what), sizeof(h->what) - strlen(h->what),
				 " (%s)", text);
		break;
	case EV_RECOVERY:
		h->recoveries++;
		h->recovered = true;
		break;
	case EV_RECOVERY_FAILED:
		h->recovery_failed++;
		h->recovered = false;
		break;
	case EV_NONE:
		break;
	}
}

int pf_parse_kmsg_mlx5(const char *text, struct pf_mlx5_health **ret, size_t *ret_n)
{
	struct pf_mlx5_health *v = NULL;
	size_t n = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[512], bdf[16];
		enum event ev;
		double t;

		/* kmsg continuation lines (" DEVICE=+pci:...") start with a blank */
		if (len > 0 && line[0] != ' ') {
			const char *msg;
			struct pf_mlx5_health *h;

			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
			memcpy(buf, line, len);
			buf[len] = '\0';
			msg = pf_kmsg_message(buf, &t);
			if (classify(msg, bdf, &ev) == 0 && (h = entry(&v, &n, bdf)))
				apply(h, ev, msg, t);
		}
		line = nl ? nl + 1 : NULL;
	}
	/* a syndrome alone (the fw reporter's, no fatal event) is no entry of its own */
	for (size_t i = 0; i < n;) {
		if (v[i].fatal + v[i].compromised + v[i].recoveries + v[i].recovery_failed) {
			i++;
			continue;
		}
		memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(v[0]));
		n--;
	}
	if (!n) {
		free(v);
		v = NULL;
	}
	*ret = v;
	*ret_n = n;
	return (int)n;
}
