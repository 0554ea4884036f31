// SPDX-License-Identifier: MIT
/*
 * parse_lldp.c - LLDP neighbours from `lldpcli -f keyvalue show neighbors`
 * (include/preflight/net.h).
 *
 * The key-value writer of upstream lldpd (src/client/kv_writer.c) prints
 * one line per value: the tags from "lldp" down joined by '.', then '=' and the value.
 * An interface's tag is renamed after the interface ("lldp.eth0"), a typed
 * tag after its type: the chassis id is "chassis.<subtype>" (mac, ip,
 * ifname, ifalias, local, unhandled), the system name "chassis.name", the
 * port id "port.<subtype>" (upstream src/client/display.c: display_chassis,
 * display_port).  An interface name may itself hold dots (eth0.100), so the
 * line is read from its end.  The text is another program's output, and a
 * snapshot's may have been edited: every field is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/macro.h"
#include "preflight/net.h"

/* The id subtypes lldpd's client names (lldpctl maps of chassis and port ids). */
static const char *const id_subtypes[] = { "mac", "ip", "ifname", "ifalias", "local",
					   "unhandled" };

struct iface_state {
	char chassis_id[PF_LLDP_VALUE_MAX];
	char sysname[PF_LLDP_VALUE_MAX];
	bool done; /* a second neighbour began: the first is complete */
};

static bool is_id_subtype(const char *leaf, size_t len)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(id_subtypes); i++)
		if (strlen(id_subtypes[i]) == len && !memcmp(leaf, id_subtypes[i], len))
			return true;
	return false;
}

/* Copy @len bytes of @src into @dst (cut to fit), control characters as '?'. */
static void put_value(char *dst, size_t size, const char *src, size_t len)
{
	if (len >= size)
		len = size - 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)src[i];

		dst[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	dst[len] = '\0';
}

/*
 * The entry of interface @name (@len bytes), added when new; -ENOSPC when
 * full.  Names are compared as they are kept (control characters as '?'),
 * so two raw names that keep alike are one interface, as pf_lldp_find()
 * sees them.
 */
static int iface_index(struct pf_lldp_neighbors *n, struct iface_state **st, const char *name,
		       size_t len)
{
	char kept[sizeof(n->v[0].ifname)];

	put_value(kept, sizeof(kept), name, len);
	for (size_t i = 0; i < n->n; i++)
		if (!strcmp(n->v[i].ifname, kept))
			return (int)i;
	if (n->n >= PF_LLDP_MAX_IFACES)
		return -ENOSPC;
	if (n->n == 0) {
		n->v = pf_xcalloc(PF_LLDP_MAX_IFACES, sizeof(*n->v));
		*st = pf_xcalloc(PF_LLDP_MAX_IFACES, sizeof(**st));
	}
	memcpy(n->v[n->n].ifname, kept, sizeof(kept));
	return (int)n->n++;
}

/*
 * One line, "lldp.<if>.chassis.<leaf>=v" or "lldp.<if>.port.<leaf>=v", into
 * @n; anything else is skipped.
 */
static void parse_line(const char *line, size_t len, struct pf_lldp_neighbors *n,
		       struct iface_state **st)
{
	const char *eq = memchr(line, '=', len), *key = line + 5, *leaf, *part;
	size_t klen, llen, plen, iflen;
	bool chassis;
	int i;

	if (!eq || len < 5 || memcmp(line, "lldp.", 5))
		return;
	klen = (size_t)(eq - key);
	/* the leaf: after the key's last dot */
	for (leaf = eq; leaf > key && leaf[-1] != '.'; leaf--)
		;
	if (leaf == key)
		return;
	llen = (size_t)(eq - leaf);
	/* the part before it: ".chassis" or ".port", after a non-empty interface name */
	if (llen == 0 || klen < llen + 1)
		return;
	part = leaf - 1;
	if ((size_t)(part - key) > strlen(".chassis") &&
	    !memcmp(part - strlen(".chassis"), ".chassis", strlen(".chassis"))) {
		chassis = true;
		plen = strlen(".chassis");
	} else if ((size_t)(part - key) > strlen(".port") &&
		   !memcmp(part - strlen(".port"), ".port", strlen(".port"))) {
		chassis = false;
		plen = strlen(".port");
	} else {
		return;
	}
	iflen = (size_t)(part - plen - key);
	if (iflen == 0 || iflen >= sizeof(n->v[0].ifname))
		return;
	if (!(chassis && llen == 4 && !memcmp(leaf, "name", 4)) && !is_id_subtype(leaf, llen))
		return;
	i = iface_index(n, st, key, iflen);
	if (i < 0 || (*st)[i].done)
		return;
	eq++;
	len -= (size_t)(eq - line);
	if (!chassis) {
		if (!n->v[i].port[0])
			put_value(n->v[i].port, sizeof(n->v[i].port), eq, len);
	} else if (llen == 4 && !memcmp(leaf, "name", 4)) {
		if (!(*st)[i].sysname[0])
			put_value((*st)[i].sysname, sizeof((*st)[i].sysname), eq, len);
	} else if ((*st)[i].chassis_id[0]) {
		(*st)[i].done = true; /* the next neighbour's chassis */
	} else {
		put_value((*st)[i].chassis_id, sizeof((*st)[i].chassis_id), eq, len);
	}
}

int pf_parse_lldp_keyvalue(const char *text, struct pf_lldp_neighbors *ret)
{
	struct pf_lldp_neighbors n = { 0 };
	pf_autofree struct iface_state *st = NULL;
	const char *p = text ? text : "";

	while (*p) {
		size_t len = strcspn(p, "\n");

		parse_line(p, len && p[len - 1] == '\r' ? len - 1 : len, &n, &st);
		p += len;
		if (*p == '\n')
			p++;
	}
	for (size_t i = 0; i < n.n; i++) {
		const char *c = st[i].sysname[0] ? st[i].sysname : st[i].chassis_id;

		snprintf(n.v[i].chassis, sizeof(n.v[i].chassis), "%s", c);
	}
	*ret = n;
	return (int)n.n;
}

void pf_lldp_neighbors_release(struct pf_lldp_neighbors *n)
{
	free(n->v);
	n->v = NULL;
	n->n = 0;
}

const struct pf_lldp_neighbor *pf_lldp_find(const struct pf_lldp_neighbors *n,
					    const char *ifname)
{
	for (size_t i = 0; n && ifname && i < n->n; i++)
		if (!strcmp(n->v[i].ifname, ifname))
			return &n->v[i];
	return NULL;
}
