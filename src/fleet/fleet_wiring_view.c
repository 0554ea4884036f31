// SPDX-License-Identifier: MIT
/*
 * fleet_wiring_view.c - the wiring part of `preflight fleet`'s views
 * (fleet_wiring.h): each rail index's group or why it was not judged, and
 * the miswired ports, as JSON, a text table, CSV rows, and for
 * --drain-suspects the scontrol commands (printed, never run): a miswired
 * node's cables need hands.
 */
#include <string.h>

#include "fleet_drain.h"
#include "fleet_wiring.h"
#include "preflight/macro.h"
#include "preflight/strbuf.h"
#include "table.h"

static cJSON *rail_json(const struct fl_wire_rail *rl)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddNumberToObject(e, "rail", rl->rail);
	if (rl->by < FL_WIRE_BY_COUNT)
		cJSON_AddStringToObject(e, "by", fl_wire_by_name(rl->by));
	else
		cJSON_AddNullToObject(e, "by");
	if (rl->group)
		cJSON_AddStringToObject(e, "group", rl->group);
	else
		cJSON_AddNullToObject(e, "group");
	cJSON_AddNumberToObject(e, "nodes", (double)rl->nodes);
	cJSON_AddNumberToObject(e, "in_group", (double)rl->in_group);
	cJSON_AddNumberToObject(e, "unknown", (double)rl->unknown);
	cJSON_AddBoolToObject(e, "judged", rl->judged);
	if (!rl->judged)
		cJSON_AddStringToObject(e, "why", rl->why);
	return e;
}

static cJSON *mis_json(const struct fl_wire_miswired *m)
{
	cJSON *e = cJSON_CreateObject();
	pf_autofree char *why = fl_wire_mis_why(m);

	cJSON_AddStringToObject(e, "host", m->rec->host);
	cJSON_AddStringToObject(e, "device", m->rec->device);
	if (m->rec->port)
		cJSON_AddNumberToObject(e, "port", m->rec->port);
	else
		cJSON_AddNullToObject(e, "port");
	cJSON_AddNumberToObject(e, "rail", m->rec->rail);
	cJSON_AddStringToObject(e, "by", fl_wire_by_name(m->by));
	cJSON_AddStringToObject(e, "sits_in", m->sits_in);
	cJSON_AddStringToObject(e, "belongs_in", m->should);
	if (m->sits_with >= 0)
		cJSON_AddNumberToObject(e, "sits_with_rail", m->sits_with);
	else
		cJSON_AddNullToObject(e, "sits_with_rail");
	cJSON_AddBoolToObject(e, "swapped", m->swapped);
	cJSON_AddStringToObject(e, "why", why);
	return e;
}

/* Is any rail index judged? */
static bool any_judged(const struct fl_wiring *w)
{
	for (size_t i = 0; i < w->n_rails; i++)
		if (w->rails[i].judged)
			return true;
	return false;
}

cJSON *fl_wiring_to_json(const struct fl_wiring *w)
{
	cJSON *j = cJSON_CreateObject(), *a;

	cJSON_AddNumberToObject(j, "nodes", (double)w->n_hosts);
	cJSON_AddBoolToObject(j, "judged", any_judged(w));
	if (!w->n_hosts)
		cJSON_AddStringToObject(j, "not_judged", "no rail tables in the reports (node.rails "
							 "or a mesh rendezvous table)");
	else if (!any_judged(w))
		cJSON_AddStringToObject(j, "not_judged", "no rail index judged (see rails[].why)");
	a = cJSON_AddArrayToObject(j, "rails");
	for (size_t i = 0; i < w->n_rails; i++)
		cJSON_AddItemToArray(a, rail_json(&w->rails[i]));
	a = cJSON_AddArrayToObject(j, "miswired");
	for (size_t i = 0; i < w->n_mis; i++)
		cJSON_AddItemToArray(a, mis_json(&w->mis[i]));
	a = cJSON_AddArrayToObject(j, "errors");
	for (size_t i = 0; i < w->n_errs; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "file", w->errs[i].origin);
		cJSON_AddStringToObject(e, "reason", w->errs[i].reason);
		cJSON_AddItemToArray(a, e);
	}
	return j;
}

/* "mlx5_0:1", or the device alone when the port is unknown. */
static void port_name(const struct fl_wire_rec *r, char *buf, size_t len)
{
	if (r->port)
		snprintf(buf, len, "%.200s:%u", r->device, r->port);
	else
		snprintf(buf, len, "%.200s", r->device);
}

void fl_wiring_render_text(const struct fl_wiring *w, FILE *out)
{
	struct pf_table t = { .ncol = 5, .right = { true, false, false, true } };

	if (!w->n_hosts && !w->n_errs)
		return; /* reports without rail tables: nothing to say */
	fprintf(out, "\nWiring: rail i of every node where the others' rail i is (%zu node%s, "
		     "%zu rail%s)\n", w->n_hosts, w->n_hosts == 1 ? "" : "s", w->n_rails,
		w->n_rails == 1 ? "" : "s");
	for (size_t i = 0; i < w->n_errs; i++)
		fprintf(out, "  ignored %s: %s\n", w->errs[i].origin, w->errs[i].reason);
	if (w->n_rails) {
		pf_table_row(&t, (const char *const[]){ "RAIL", "BY", "GROUP", "NODES", "VERDICT" });
		for (size_t i = 0; i < w->n_rails; i++) {
			const struct fl_wire_rail *rl = &w->rails[i];
			char rail[16], nodes[48];
			pf_autofree char *verdict = rl->judged ? pf_xstrdup("judged") :
						    pf_xasprintf("not judged: %s", rl->why);

			snprintf(rail, sizeof(rail), "%u", rl->rail);
			snprintf(nodes, sizeof(nodes), "%zu/%zu", rl->in_group, rl->nodes);
			pf_table_row(&t, (const char *const[]){ rail,
				rl->by < FL_WIRE_BY_COUNT ? fl_wire_by_name(rl->by) : "-",
				rl->group ? rl->group : "-", nodes, verdict });
		}
		pf_table_print(&t, out);
	}
	if (!w->n_mis) {
		fputs(any_judged(w) ? "No miswired nodes.\n" : "", out);
		return;
	}
	fprintf(out, "Miswired (%zu port%s on %zu node%s)\n", w->n_mis, w->n_mis == 1 ? "" : "s",
		w->n_mis_hosts, w->n_mis_hosts == 1 ? "" : "s");
	t = (struct pf_table){ .ncol = 4, .right = { false, false, true } };
	pf_table_row(&t, (const char *const[]){ "NODE", "PORT", "RAIL", "WHERE" });
	for (size_t i = 0; i < w->n_mis; i++) {
		const struct fl_wire_miswired *m = &w->mis[i];
		pf_autofree char *why = fl_wire_mis_why(m);
		char port[224], rail[16];

		port_name(m->rec, port, sizeof(port));
		snprintf(rail, sizeof(rail), "%u", m->rec->rail);
		pf_table_row(&t, (const char *const[]){ m->rec->host, port, rail, why });
	}
	pf_table_print(&t, out);
}

void fl_wiring_render_csv(const struct fl_wiring *w, FILE *out,
			  void (*row)(FILE *out, const char *const cells[9]))
{
	for (size_t i = 0; i < w->n_mis; i++) {
		const struct fl_wire_miswired *m = &w->mis[i];
		pf_autofree char *why = fl_wire_mis_why(m);
		char port[224], rail[16];

		port_name(m->rec, port, sizeof(port));
		snprintf(rail, sizeof(rail), "%u", m->rec->rail);
		row(out, (const char *const[9]){ "miswired", m->rec->host, "wiring", port,
			"miswired", fl_wire_by_name(m->by), rail, m->should, why });
	}
}

/* The ports of one host's miswired run w->mis[a..b) in a drain reason. */
static char *host_reason(const struct fl_wiring *w, size_t a, size_t b)
{
	struct pf_strbuf sb = PF_STRBUF_INIT;

	pf_strbuf_adds(&sb, "preflight fleet wiring: ");
	for (size_t i = a; i < b; i++) {
		const struct fl_wire_miswired *m = &w->mis[i];
		char port[224];

		port_name(m->rec, port, sizeof(port));
		if (m->sits_with >= 0)
			pf_strbuf_addf(&sb, "%s%s rail %u sits with rail %d", i > a ? ", " : "", port,
					 m->rec->rail, m->sits_with);
		else
			pf_strbuf_addf(&sb, "%s%s rail %u outside its group", i > a ? ", " : "",
					 port, m->rec->rail);
	}
	pf_strbuf_adds(&sb, ": check the cables");
	return pf_strbuf_detach(&sb);
}

size_t fl_wiring_render_drain(const struct fl_wiring *w, const struct pf_strmap *own, FILE *out)
{
	size_t drained = 0;

	fprintf(out, "# preflight fleet --drain-suspects: %zu miswired node%s; printed, not run\n",
		w->n_mis_hosts, w->n_mis_hosts == 1 ? "" : "s");
	for (size_t a = 0, b; a < w->n_mis; a = b) {
		const char *host = w->mis[a].rec->host;
		pf_autofree char *raw = NULL, *reason = NULL, *h = NULL;
		const char *refused;

		for (b = a + 1; b < w->n_mis && !strcmp(w->mis[b].rec->host, host); b++)
			;
		raw = host_reason(w, a, b);
		reason = fl_drain_text(raw);
		refused = fl_drain_refusal(host, own);
		if (refused) {
			h = fl_drain_text(host);
			fprintf(out, "# not drained: host '%s' is %s: %s\n", h, refused, reason);
			continue;
		}
		fprintf(out, "scontrol update NodeName=%s State=DRAIN Reason=\"%s\"\n", host, reason);
		drained++;
	}
	return drained;
}
