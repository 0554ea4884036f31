/* SPDX-License-Identifier: MIT */
/*
 * fleet_drain.h - the words of `fleet --drain-suspects`' scontrol lines,
 * shared by the mesh view and the wiring view (fleet_drain.c).  A host name
 * and a reason come from reports: hostile bytes that must not reach a shell
 * an operator pastes the lines into.  Private to src/fleet.
 */
#ifndef PREFLIGHT_FLEET_DRAIN_H
#define PREFLIGHT_FLEET_DRAIN_H

#include <stdbool.h>

/* A name scontrol may take unquoted: [A-Za-z0-9._-], not starting with '-', 255 at most. */
bool fl_drain_plain_host(const char *s);
/* A copy of @s (caller frees) with all but [A-Za-z0-9 ._:,/()%=-] as '_': safe inside "...". */
char *fl_drain_text(const char *s);

#endif
