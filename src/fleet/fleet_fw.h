/* SPDX-License-Identifier: MIT */
/*
 * fleet_fw.h - NIC firmware drift across the fleet: the running firmware
 * each node's nic_health findings observed (observed.psid, .fw_running),
 * grouped by PSID (one board and firmware flavour), and the NICs whose
 * version differs from the majority of their PSID (fleet_fw.c).
 */
#ifndef PREFLIGHT_FLEET_FW_H
#define PREFLIGHT_FLEET_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

struct fl_fw;

struct fl_fw *fl_fw_new(void);
void fl_fw_free(struct fl_fw *w);
/*
 * The nic_health findings of an accepted report's @checks, node @node (its
 * index) named @host: each that observed a PSID and a running version.
 */
void fl_fw_add_report(struct fl_fw *w, const cJSON *checks, size_t node, const char *host);
/* Group by PSID and find the NICs off the majority; @superseded[i]: node i is left out. */
void fl_fw_finish(struct fl_fw *w, const bool *superseded);
/* Whether any NIC firmware was seen (the views show the section only then). */
bool fl_fw_any(const struct fl_fw *w);
/* "firmware_drift": [{node, subject, psid, fw, majority, nics}], each NIC off its PSID's majority. */
cJSON *fl_fw_to_json(const struct fl_fw *w);
/* The same as a text section. */
void fl_fw_render_text(const struct fl_fw *w, FILE *out);

#endif
