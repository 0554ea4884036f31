/* SPDX-License-Identifier: MIT */
/*
 * text.h - text that leaves preflight: UTF-8 cleaning of bytes read from a
 * node, JSON printed the way jq prints it, doubles as XML and Prometheus
 * readers parse them.  Used by the runner, the report and the commands.
 */
#ifndef PREFLIGHT_TEXT_H
#define PREFLIGHT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/*
 * Decode one UTF-8 sequence at @s: its length in bytes, or -EINVAL for an
 * invalid, overlong or surrogate sequence and for the terminating NUL.
 */
int pf_utf8_decode(const char *s, uint32_t *ret_cp);
/*
 * A copy of @s (NULL: "") that is valid UTF-8: each invalid byte becomes
 * U+FFFD; with @escape_controls, C0 controls, DEL and C1 controls become
 * "\xNN" so that text read from a node cannot drive a terminal.  Caller frees.
 */
char *pf_utf8_clean(const char *s, bool escape_controls);
/* pf_utf8_clean() every key and string of the tree @j, in place. */
void pf_json_clean(cJSON *j, bool escape_controls);
/*
 * @j as JSON text the way jq prints it: two-space indentation, "key": value,
 * [] and {} for empty containers; with @compact, one line with no spaces.
 * No trailing newline.  Caller frees.
 */
char *pf_json_print(const cJSON *j, bool compact);
/* A double as Prometheus and XML readers parse it: "%.15g", "NaN", "+Inf", "-Inf". */
void pf_format_double(char *buf, size_t len, double v);

#endif
