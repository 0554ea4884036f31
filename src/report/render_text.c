// SPDX-License-Identifier: MIT
/*
 * render_text.c - the report as an aligned table for people.
 *
 * One row per check; below a check that is not pass, its findings that are
 * not pass, each with its remedy.  Colour only when the caller asks (a TTY
 * without NO_COLOR).  Every string that may come from the node is cleaned
 * first (pf_utf8_clean): a sysfs file must not be able to send escape
 * sequences to the operator's terminal.
 */
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *colour(enum pf_status s)
{
	switch (s) {
	case PF_STATUS_PASS: return "\033[32m";
	case PF_STATUS_WARN: return "\033[33m";
	case PF_STATUS_FAIL: return "\033[1;31m";
	case PF_STATUS_ERROR: return "\033[1;35m";
	case PF_STATUS_SKIP: return "\033[2m";
	case PF_STATUS_COUNT: break;
	}
	return "";
}

static void put_status(FILE *out, enum pf_status s, bool color, int width)
{
	char word[8];

	snprintf(word, sizeof(word), "%s", pf_status_name(s));
	if (s == PF_STATUS_FAIL || s == PF_STATUS_ERROR)
		for (char *p = word; *p; p++)
			*p = (char)(*p - 'a' + 'A');
	if (color)
		fprintf(out, "%s%-*s\033[0m", colour(s), width, word);
	else
		fprintf(out, "%-*s", width, word);
}

/* fputs() of @s as valid UTF-8 without control characters. */
/* Columns taken by @len bytes of UTF-8 (one per character). */
static size_t cols(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/*
 * The bytes of the word at @p, up to the next blank; with @quotes, a blank
 * inside '...' or "..." (closed later in the word's text) belongs to the
 * word, so that a fix: command's quoted argument is never broken across
 * lines, where a copy and paste would run something else.
 */
static size_t word_len(const char *p, bool quotes)
{
	size_t n = 0;

	while (p[n] && p[n] != ' ') {
		const char *close;

		if (quotes && (p[n] == '\'' || p[n] == '"') && (close = strchr(p + n + 1, p[n]))) {
			n = (size_t)(close - p) + 1;
			continue;
		}
		n++;
	}
	return n;
}

/*
 * Print @s (cleaned) starting at column @col; with a @width, break between
 * words so that no line passes it, continuing at column @indent; with
 * @quotes, never inside a quoted span.  A word longer than a line is not
 * cut.  Returns the column after the text.
 */
static size_t put_wrapped_q(FILE *out, const char *s, size_t col, size_t indent, size_t width,
			    bool quotes)
{
	pf_autofree char *c = pf_utf8_clean(s, true);
	const char *p = c;
	size_t pending = 0;

	if (!width) {
		fputs(c, out);
		return col + cols(c, strlen(c));
	}
	if (indent + 20 > width)
		indent = width > 20 ? width - 20 : 0; /* a narrow terminal: keep 20 columns of text */
	while (*p) {
		size_t sp = strspn(p, " "), wlen;

		pending += sp;
		p += sp;
		if (!*p)
			break;
		wlen = word_len(p, quotes);
		if (col > indent && col + pending + cols(p, wlen) > width) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
			pending = 0;
		}
		fprintf(out, "%*s%.*s", (int)pending, "", (int)wlen, p);
		col += pending + cols(p, wlen);
		pending = 0;
		p += wlen;
	}
	return col;
}

static size_t put_wrapped(FILE *out, const char *s, size_t col, size_t indent, size_t width)
{
	return put_wrapped_q(out, s, col, indent, width, false);
}

/* Compute rails by rail index, then the other ports by device name (natural order) and port. */
static int port_order(const void *a, const void *b)
{
	const struct pf_report_port *x = *(const struct pf_report_port *const *)a;
	const struct pf_report_port *y = *(const struct pf_report_port *const *)b;
	int c;

	if ((x->rail >= 0) != (y->rail >= 0))
		return x->rail >= 0 ? -1 : 1;
	if (x->rail >= 0 && x->rail != y->rail)
		return x->rail < y->rail ? -1 : 1;
	c = strverscmp(x->device, y->device); /* mlx5_2 before mlx5_10 */
	return c ? c : (x->port > y->port) - (x->port < y->port);
}

/*
 * The rail model, one line per RDMA port: "rail 0  mlx5_0/1  compute  InfiniBand
 * 400 Gb/s up  ib0 10.0.0.0/24  lldp leaf07 swp12  (why)".
 */
static void put_ports(const struct pf_report *r, FILE *out)
{
	pf_autofree const struct pf_report_port **order = NULL;

	if (!r->n_ports)
		return;
	/* the compute rails in rail order, then the other ports by name as a person counts */
	order = pf_xcalloc(r->n_ports, sizeof(*order));
	for (size_t i = 0; i < r->n_ports; i++)
		order[i] = &r->ports[i];
	qsort(order, r->n_ports, sizeof(*order), port_order);
	fputs("\nrdma ports:\n", out);
	for (size_t i = 0; i < r->n_ports; i++) {
		const struct pf_report_port *p = order[i];
		pf_autofree char *rail = p->rail >= 0 ? pf_xasprintf("rail %d", p->rail)
						      : pf_xstrdup("-");
		pf_autofree char *rate = p->rate_gbps > 0 ? pf_xasprintf(" %g Gb/s", p->rate_gbps)
							  : pf_xstrdup("");
		pf_autofree char *line = NULL, *lldp = NULL;

		/* the LLDP neighbour: "  lldp leaf07 swp12" */
		if ((p->lldp_chassis && p->lldp_chassis[0]) || (p->lldp_port && p->lldp_port[0]))
			lldp = pf_xasprintf("  lldp %s %s",
					    p->lldp_chassis && p->lldp_chassis[0] ? p->lldp_chassis : "?",
					    p->lldp_port && p->lldp_port[0] ? p->lldp_port : "?");
		else
			lldp = pf_xstrdup("");
		line = pf_xasprintf("%s/%u  %s  %s%s %s%s%s%s%s%s%s%s  (%s)", p->device, p->port,
				    p->role, p->link_layer, rate, p->up ? "up" : "down",
				    p->netdev && p->netdev[0] ? "  " : "",
				    p->netdev ? p->netdev : "",
				    p->subnet && p->subnet[0] ? " " : "", p->subnet ? p->subnet : "",
				    p->ib_subnet && p->ib_subnet[0] ? "  subnet " : "",
				    p->ib_subnet ? p->ib_subnet : "", lldp, p->reason);
		fprintf(out, "  %-7s  ", rail);
		put_wrapped(out, line, 11, 13, r->width);
		fputc('\n', out);
	}
}

/* "not selected: a, b (reason)", one line per reason, in registry order. */
static void put_unselected(const struct pf_report *r, FILE *out)
{
	for (size_t i = 0; i < r->n_unselected; i++) {
		const char *reason = r->unselected[i].reason;
		bool first = true, seen = false;
		char *line = NULL, *prev = NULL;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(r->unselected[k].reason, reason);
		if (seen)
			continue;
		for (size_t k = i; k < r->n_unselected; k++) {
			if (strcmp(r->unselected[k].reason, reason))
				continue;
			line = pf_xasprintf("%s%s%s", line ? line : "", first ? "" : ", ",
					    r->unselected[k].name);
			free(prev);
			prev = line;
			first = false;
		}
		{
			pf_autofree char *full = pf_xasprintf("%s (%s)", line, reason);

			fputs("\nnot selected: ", out);
			put_wrapped(out, full, 14, 14, r->width);
		}
		free(line);
		line = prev = NULL;
	}
	if (r->n_unselected)
		fputc('\n', out);
}

int pf_render_text(const struct pf_report *r, FILE *out, bool color)
{
	size_t c[PF_STATUS_COUNT];
	int name_w = 5;

	size_t summary_col, col;

	for (size_t i = 0; i < r->n_runs; i++) {
		int n = (int)strlen(r->runs[i].check->name);

		if (n > name_w)
			name_w = n;
	}
	summary_col = 6 + 2 + (size_t)name_w + 2 + 9 + 2;
	{
		pf_autofree char *head = pf_xasprintf("preflight %s on %s (kernel %s, root %s, "
						       "profile %s)", r->version, r->hostname,
						       r->kernel, r->root, r->profile);

		put_wrapped(out, head, 0, 2, r->width);
		fputs("\n\n", out);
	}
	fprintf(out, "%-6s  %-*s  %9s  %s\n", "STATUS", name_w, "CHECK", "TIME", "SUMMARY");
	for (size_t i = 0; i < r->n_runs; i++) {
		const struct pf_run *run = &r->runs[i];
		const struct pf_result *res = &run->res;

		put_status(out, res->status, color, 6);
		fprintf(out, "  %-*s  %6.1f ms  ", name_w, run->check->name, run->duration_ms);
		put_wrapped(out, res->summary, summary_col, summary_col, r->width);
		fputc('\n', out);
		if (res->status == PF_STATUS_PASS)
			continue;
		for (size_t k = 0; k < res->n_findings; k++) {
			const struct pf_finding *f = &res->findings[k];

			if (f->status == PF_STATUS_PASS)
				continue;
			if (res->status == PF_STATUS_SKIP && res->n_findings == 1)
				continue; /* the summary already says why */
			fprintf(out, "%8s", "");
			put_status(out, f->status, color, 5);
			fputc(' ', out);
			if (f->subject) {
				pf_autofree char *head = pf_xasprintf("%s:", f->subject);

				col = put_wrapped(out, head, 14, 14, r->width);
				fputc(' ', out);
				col++;
			} else {
				col = 14;
			}
			put_wrapped(out, f->message, col, 16, r->width);
			fputc('\n', out);
			if (f->remedy) {
				fprintf(out, "%14sfix: ", "");
				put_wrapped_q(out, f->remedy, 19, 19, r->width, true);
				fputc('\n', out);
			}
			if (f->code)
				fprintf(out, "%14scode: %s (action: %s)\n", "", f->code,
					pf_action_name(f->action));
		}
	}
	put_unselected(r, out);
	put_ports(r, out);
	pf_report_counts(r, c);
	fputc('\n', out);
	fputs("verdict: ", out);
	put_status(out, pf_report_verdict(r), color, 0);
	fprintf(out, " (%zu pass, %zu warn, %zu fail, %zu skip, %zu error) in %.1f ms\n",
		c[PF_STATUS_PASS], c[PF_STATUS_WARN], c[PF_STATUS_FAIL], c[PF_STATUS_SKIP],
		c[PF_STATUS_ERROR], r->duration_ms);
	return ferror(out) ? -EIO : 0;
}
