/* SPDX-License-Identifier: MIT */
/*
 * report.h - the finished report (schema preflight.report/v1) and its
 * renderers.  Renderers only read; they run after every check has finished.
 */
#ifndef PREFLIGHT_REPORT_H
#define PREFLIGHT_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "preflight/check.h"
#include "text.h"

/* One check's run: what the runner (src/runner/runner.c) fills and the report shows. */
struct pf_run {
	const struct pf_check *check;
	void *cfg;
	struct pf_result res;
	double duration_ms;
	unsigned int timeout_s; /* the deadline applied */
	unsigned int attempts;  /* --confirm: times run when a fail was re-run; 0: once */
};

#define PF_REPORT_SCHEMA "preflight.report/v1"

enum pf_format {
	PF_FORMAT_JSON,
	PF_FORMAT_TEXT,
	PF_FORMAT_JUNIT,
	PF_FORMAT_PROM,
	PF_FORMAT_LINE,
	PF_FORMAT_COUNT,
};

/* A check that was not run, and why ("not static: the default selection ..."). */
struct pf_unselected {
	const char *name;
	const char *reason;
};

/*
 * One RDMA port of the rail model (preflight/rails.h) as the report shows it
 * (JSON node.rails, the text report's port table).
 */
struct pf_report_port {
	const char *device;
	unsigned int port;
	const char *role;       /* "compute", "storage", "frontend", "unused" */
	const char *reason;
	bool declared;          /* the site declared the role */
	int rail;               /* rail index, -1 not a compute rail */
	const char *gpu;        /* the GPU it serves (BDF), NULL none */
	const char *link_layer; /* "InfiniBand", "Ethernet", "unknown" */
	double rate_gbps;       /* 0 unknown */
	bool up;
	const char *netdev, *subnet, *ib_subnet; /* NULL or "" unknown */
	unsigned int sm_lid;    /* 0 unknown */
	const char *lldp_chassis, *lldp_port; /* the LLDP neighbour; NULL or "" unknown */
};

struct pf_report {
	const char *version;
	char hostname[256];
	char kernel[256];
	const char *root;
	/*
	 * Where the node facts came from (JSON node.sources): the inventory
	 * ("sysfs" or "hwloc"), the --topology file (or NULL), the files
	 * ("live", "root" or "none") and the providers' name.  NULL inventory:
	 * not recorded.
	 */
	const char *src_inventory, *src_topology, *src_files, *src_providers;
	bool topology_only; /* --topology judged alone: checks that need more were skipped */
	/* the rail model's ports; NULL: none recorded (no inventory) */
	const struct pf_report_port *ports;
	size_t n_ports;
	const char *profile;
	time_t started_at;
	double duration_ms;
	struct pf_run *runs;
	size_t n_runs;
	/* how the checks were chosen: "default", "all" or "only"; NULL: not recorded */
	const char *selection;
	const struct pf_unselected *unselected;
	size_t n_unselected;
	bool compact; /* JSON on one line (--compact) */
	/*
	 * JSON indented with tabs as cJSON_Print() lays it out, not two spaces:
	 * `preflight mesh`'s reports, which have looked so since they shipped.
	 */
	bool json_tabs;
	unsigned int width; /* text: wrap at this many columns (a terminal's); 0: never */
	unsigned int line_max; /* line: bytes a line holds at most; 0: PF_LINE_MAX_DEFAULT */
};

/* node-problem-detector's default max_output_length */
#define PF_LINE_MAX_DEFAULT 80

/* Fill hostname and kernel from uname(2), or from the root's files when not live. */
void pf_report_describe_node(struct pf_report *r, const struct pf_fs *fs);

/* fail > error > warn > pass, over all checks. */
enum pf_status pf_report_verdict(const struct pf_report *r);
void pf_report_counts(const struct pf_report *r, size_t counts[PF_STATUS_COUNT]);

int pf_format_from_name(const char *name, enum pf_format *ret);

cJSON *pf_report_to_json(const struct pf_report *r);
/* Write the report; returns 0 or -errno (from the stream). */
int pf_render(const struct pf_report *r, enum pf_format fmt, FILE *out, bool color);
/*
 * The one report writer (write.c): @r rendered as @fmt into @path by the
 * output walk (src/core/output.h: atomic, nothing another user controls
 * followed), or to @out when @path is NULL (@color: the text view's colours).
 * 0 or -errno (the stream's own errno when a write fails); *@ret_err (may be
 * NULL; caller frees) says which component the walk refused, else NULL.
 */
int pf_report_write(const struct pf_report *r, enum pf_format fmt, const char *path, FILE *out,
		    bool color, char **ret_err);
int pf_render_json(const struct pf_report *r, FILE *out);
int pf_render_text(const struct pf_report *r, FILE *out, bool color);
/* JUnit XML: one testsuite, one testcase per check (src/report/render_junit.c). */
int pf_render_junit(const struct pf_report *r, FILE *out);
/* Prometheus text exposition for node_exporter's textfile collector (src/report/render_prom.c). */
int pf_render_prom(const struct pf_report *r, FILE *out);
/* One line per check that did not pass, worst first, or one "ok" line (src/report/render_line.c). */
int pf_render_line(const struct pf_report *r, FILE *out);

#endif
