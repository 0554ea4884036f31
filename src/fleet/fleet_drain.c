// SPDX-License-Identifier: MIT
/*
 * fleet_drain.c - host names and reasons fit for `fleet --drain-suspects`'
 * scontrol lines (fleet_drain.h): a host is drained only when it is one
 * plain node name and the node.hostname of a report read.
 */
#include <string.h>

#include "fleet_drain.h"
#include "hostlist.h"
#include "preflight/macro.h"

static const char reason_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ._:,/()%=-";

const char *fl_drain_refusal(const char *host, const struct pf_strmap *own)
{
	uint32_t any;

	if (!pf_hostlist_one_name(host))
		return "not a plain host name";
	if (!pf_strmap_get(own, host, &any))
		return "not a reporting node"; /* no report of this set is its own */
	return NULL;
}

char *fl_drain_text(const char *s)
{
	char *r = pf_xstrdup(s);

	for (char *p = r; *p; p++)
		if (!strchr(reason_chars, *p))
			*p = '_';
	return r;
}
