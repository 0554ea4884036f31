// SPDX-License-Identifier: MIT
/*
 * compat.c - can rail i of one node be measured against rail i of another
 * (include/preflight/pairs.h, docs/mesh.md "Rail compatibility")?  One rule
 * for mesh's data path (which pairs it runs), its judge and the fleet's mesh
 * view (which flows they leave out), so that they never disagree.  The
 * identities come from peers: every string is only compared and printed
 * cut to a bound.
 */
#include <stdio.h>
#include <string.h>

#include "preflight/pairs.h"

/* A known value: present, not empty, not "unknown". */
static bool known(const char *s)
{
	return s && *s && strcmp(s, "unknown") != 0;
}

static bool differ(const char *a, const char *b)
{
	return known(a) && known(b) && strcmp(a, b) != 0;
}

static const char *dev(const struct pf_rail_ident *x)
{
	return known(x->device) ? x->device : "?";
}

/* "rail 1: InfiniBand at rank 0, Ethernet at rank 3 (mlx5_1 vs mlx5_9)" */
static void say(char *why, size_t len, uint32_t rail, const char *what, const char *va,
		uint32_t ra, const char *vb, uint32_t rb, const struct pf_rail_ident *a,
		const struct pf_rail_ident *b)
{
	if (why && len)
		snprintf(why, len, "rail %u: %s%.48s at rank %u, %.48s at rank %u (%.32s vs %.32s)",
			 rail, what, va, ra, vb, rb, dev(a), dev(b));
}

/* A role that may be measured: compute, or anything both ends named with --nics. */
static bool role_ok(const struct pf_rail_ident *x, const struct pf_rail_ident *other)
{
	if (x->by_nics && other->by_nics)
		return true;
	return !known(x->role) || strcmp(x->role, "compute") == 0;
}

enum pf_rail_compat pf_rail_compat(const struct pf_rail_ident *a, uint32_t ra,
				   const struct pf_rail_ident *b, uint32_t rb, uint32_t rail,
				   char *why, size_t len)
{
	bool ib = known(a->link_layer) && strcmp(a->link_layer, "InfiniBand") == 0;

	if (why && len)
		why[0] = '\0';
	if (differ(a->link_layer, b->link_layer)) {
		say(why, len, rail, "", a->link_layer, ra, b->link_layer, rb, a, b);
		return PF_RAIL_APART;
	}
	if (!role_ok(a, b) || !role_ok(b, a)) {
		say(why, len, rail, "role ", known(a->role) ? a->role : "unknown", ra,
		    known(b->role) ? b->role : "unknown", rb, a, b);
		return PF_RAIL_APART;
	}
	if (differ(a->subnet, b->subnet)) {
		say(why, len, rail, "subnet ", a->subnet, ra, b->subnet, rb, a, b);
		return PF_RAIL_ROUTED;
	}
	if (ib && differ(a->ib_subnet, b->ib_subnet)) {
		say(why, len, rail, "IB subnet ", a->ib_subnet, ra, b->ib_subnet, rb, a, b);
		return PF_RAIL_ROUTED;
	}
	return PF_RAIL_SAME;
}

bool pf_rail_not_comparable(enum pf_rail_compat c, const char *stage, bool both_carried)
{
	if (c == PF_RAIL_APART)
		return true;
	return c == PF_RAIL_ROUTED && both_carried && stage &&
	       (!strcmp(stage, "resolve_addr") || !strcmp(stage, "resolve_route") ||
		!strcmp(stage, "connect"));
}
