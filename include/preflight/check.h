/* SPDX-License-Identifier: MIT */
/*
 * check.h - the check contract: the descriptor, its parameters and the
 * context.  Every check includes it; what else a check reads comes from the
 * other headers of include/preflight/ (node.h, providers.h, net.h, gpu.h,
 * ...), and a check includes nothing outside include/preflight/ (README
 * "Layout"; tests/arch/layers.py enforces it).
 *
 * A check is a const descriptor: its name, what it reads, a parameter table
 * that declares every profile key once (type, default, bounds, unit, help),
 * and a run() that turns (context, config) into findings.  A check never
 * prints, exits or reads globals; it reads the node only through ctx->fs and
 * ctx->prov.
 */
#ifndef PREFLIGHT_CHECK_H
#define PREFLIGHT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/fs.h"
#include "preflight/result.h"

enum pf_param_type {
	PF_PARAM_BOOL,   /* bool */
	PF_PARAM_U64,    /* uint64_t */
	PF_PARAM_I64,    /* int64_t */
	PF_PARAM_DOUBLE, /* double */
	PF_PARAM_STRING, /* char * (owned by the config; a JSON array becomes "a,b,c") */
	PF_PARAM_ENUM,   /* char *, one of .choices (matched without case, stored as spelled there) */
};

/* What the words of a PF_PARAM_STRING must be, checked when the profile is built. */
enum pf_param_syntax {
	PF_SYNTAX_ANY,      /* free text (names, patterns) */
	PF_SYNTAX_U64_LIST, /* comma-separated unsigned integers within min..max */
	PF_SYNTAX_BDF_LIST, /* comma-separated PCI addresses, stored in sysfs form (0000:17:00.0) */
	PF_SYNTAX_VERSION,  /* a dotted numeric version ("550.54.15"), or empty */
};

struct pf_param {
	const char *key;
	enum pf_param_type type;
	size_t offset;
	const char *def; /* default, written as on the command line */
	double min, max; /* bounds for numbers (inclusive) */
	const char *unit;
	const char *help;
	const char *const *choices; /* PF_PARAM_ENUM: the allowed words, NULL-terminated */
	enum pf_param_syntax syntax; /* PF_PARAM_STRING */
};

#define PF_PARAM_(cfg_type, field, key_, type_, def_, min_, max_, unit_, help_) \
	{ .key = (key_), .type = (type_), .offset = offsetof(cfg_type, field),     \
	  .def = (def_), .min = (min_), .max = (max_), .unit = (unit_), .help = (help_) }
#define PF_PARAM_U64(t, f, def, min, max, unit, help) \
	PF_PARAM_(t, f, #f, PF_PARAM_U64, def, min, max, unit, help)
#define PF_PARAM_I64(t, f, def, min, max, unit, help) \
	PF_PARAM_(t, f, #f, PF_PARAM_I64, def, min, max, unit, help)
#define PF_PARAM_DOUBLE(t, f, def, min, max, unit, help) \
	PF_PARAM_(t, f, #f, PF_PARAM_DOUBLE, def, min, max, unit, help)
#define PF_PARAM_BOOL(t, f, def, help) \
	PF_PARAM_(t, f, #f, PF_PARAM_BOOL, def, 0, 1, NULL, help)
#define PF_PARAM_STRING(t, f, def, help) \
	PF_PARAM_(t, f, #f, PF_PARAM_STRING, def, 0, 0, NULL, help)
#define PF_PARAM_STRING_(t, f, def_, syntax_, min_, max_, help_)                 \
	{ .key = #f, .type = PF_PARAM_STRING, .offset = offsetof(t, f), .def = (def_), \
	  .syntax = (syntax_), .min = (min_), .max = (max_), .help = (help_) }
#define PF_PARAM_U64_LIST(t, f, def, min, max, help) \
	PF_PARAM_STRING_(t, f, def, PF_SYNTAX_U64_LIST, min, max, help)
#define PF_PARAM_BDF_LIST(t, f, def, help) PF_PARAM_STRING_(t, f, def, PF_SYNTAX_BDF_LIST, 0, 0, help)
#define PF_PARAM_VERSION(t, f, def, help) PF_PARAM_STRING_(t, f, def, PF_SYNTAX_VERSION, 0, 0, help)
/* PF_PARAM_ENUM(t, f, def, help, "auto", "window", ...): a string that must be one of the words */
#define PF_PARAM_ENUM(t, f, def_, help_, ...)                                      \
	{ .key = #f, .type = PF_PARAM_ENUM, .offset = offsetof(t, f), .def = (def_),  \
	  .help = (help_), .choices = (const char *const[]){ __VA_ARGS__, NULL } }
#define PF_PARAM_END { .key = NULL }

struct pf_node;
struct pf_providers;

/* What a check sees of the world. */
struct pf_ctx {
	const struct pf_fs *fs;          /* the root: "/" or a snapshot */
	const struct pf_providers *prov; /* facts that are not files */
	struct pf_node *node;            /* inventory, when the check asked for it */
	/* each RDMA port's role, rail and identity (preflight/rails.h); NULL with no node */
	const struct pf_rails *rails;
	int progress_fd;                 /* set by the runner for pf_progress(); 0: none */
};

/*
 * Say how far a long check has got ("pair 3/8", "size 64 MiB"): shown on the
 * operator's terminal next to the check's name while it runs, never in the
 * report.  Cheap and non-blocking; does nothing when nobody is watching.
 */
void pf_progress(const struct pf_ctx *ctx, const char *fmt, ...) PF_PRINTF(2, 3);

enum pf_check_flags {
	PF_CHECK_NEEDS_NODE = 1 << 0, /* run() uses ctx->node */
	PF_CHECK_TRAFFIC = 1 << 1,    /* sends traffic: not a static check */
	/*
	 * judges what a topology export holds (PCI tree, GPUs, NICs, ports):
	 * runs under --topology alone; every other check is skipped there
	 */
	PF_CHECK_JUDGES_TOPOLOGY = 1 << 2,
	/*
	 * may load and initialise a vendor library (CUDA, NVML, NCCL, libibverbs,
	 * librdmacm) through ctx->prov: with live providers the runner gives it a
	 * child of its own, where the other static checks share one
	 * (arch_check_contract: a check that reaches ctx->prov->gpu, ->verbs or
	 * ->rdmacm declares it, or PF_CHECK_TRAFFIC)
	 */
	PF_CHECK_LOADS_LIBRARIES = 1 << 3,
	/*
	 * run() reads ctx->node and ctx->rails when the inventory can be read,
	 * and judges without them otherwise (no error): the run loads the
	 * inventory and builds the rail model for it as for PF_CHECK_NEEDS_NODE,
	 * so that it judges alike alone (--only) and among the others
	 */
	PF_CHECK_USES_NODE = 1 << 4,
	/*
	 * judges counters over a sampling window on the live node: --confirm
	 * re-runs a fail of it once (a new window), not N times
	 */
	PF_CHECK_WINDOWED = 1 << 5,
};

struct pf_check {
	const char *name;    /* [a-z0-9_]+, same as file and symbol */
	const char *summary; /* one line, for --list */
	const char *tags;    /* comma-separated: "rdma,static" */
	const char *reads;   /* what it reads, for --describe */
	const struct pf_param *params; /* PF_PARAM_END-terminated, may be NULL */
	/*
	 * The codes its fail and warn findings carry (pf_code()), ended by
	 * { 0 }: PF-<NAME>-<NNN>, each with its meaning and action (docs/codes.md).
	 */
	const struct pf_code *codes;
	size_t cfg_size;
	unsigned int timeout_s; /* default deadline in the runner */
	/*
	 * Optional: the deadline for a given config (a traffic check's run time
	 * follows its settings); overrides timeout_s, --timeout overrides both.
	 */
	unsigned int (*deadline_s)(const void *cfg);
	unsigned int flags;
	/*
	 * Optional: rules that span several settings (min below max, ...), run
	 * when the profile is built, so that a bad combination is a usage error
	 * (exit 64) and never reaches run().  Return 0, or pf_param_invalid()'s
	 * -EINVAL with a message that names the keys as "check.key".
	 */
	int (*validate)(const void *cfg, char **ret_err);
	/*
	 * Fill @res.  Return 0 once findings are recorded, or -errno when the
	 * check could not decide (the runner then makes sure the status is error).
	 */
	int (*run)(const struct pf_ctx *ctx, const void *cfg, struct pf_result *res);
};

/* For validate(): *ret_err = the formatted message; returns -EINVAL. */
int pf_param_invalid(char **ret_err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True if @item appears in the comma-separated @list (blanks around items ignored). */
bool pf_list_has(const char *list, const char *item);

#endif
