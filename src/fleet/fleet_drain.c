// SPDX-License-Identifier: MIT
/*
 * fleet_drain.c - host names and reasons fit for `fleet --drain-suspects`'
 * scontrol lines (fleet_drain.h).
 */
#include <string.h>

#include "fleet_drain.h"
#include "preflight/macro.h"

static const char plain_host_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
static const char reason_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 ._:,/()%=-";

bool fl_drain_plain_host(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 255)
		return false;
	return s[strspn(s, plain_host_chars)] == 0;
}

char *fl_drain_text(const char *s)
{
	char *r = pf_xstrdup(s);

	for (char *p = r; *p; p++)
		if (!strchr(reason_chars, *p))
			*p = '_';
	return r;
}
