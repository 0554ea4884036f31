/* SPDX-License-Identifier: MIT */
/*
 * slurm.h - the Slurm gate: a one-line reason for slurmd's log, draining a
 * node whose verdict is fail or error, and resuming a node that preflight
 * itself drained (NHC's rule: never touch an operator's drain).
 *
 * scontrol is run with fork + execvp, never through a shell; the drain reason
 * is one argv element, sanitised and bounded.  As root, $SCONTROL must be
 * root's program alone (pf_exec_trusted()); the node name must be one plain
 * name (pf_hostlist_one_name(): never ALL nor a hostlist) that `scontrol
 * show node` describes as exactly that node before any update.
 */
#ifndef PREFLIGHT_SLURM_H
#define PREFLIGHT_SLURM_H

#include <stdbool.h>
#include <stdio.h>

#include "report.h"

/* Every reason preflight sets starts with this; --undrain only resumes those. */
#define PF_SLURM_REASON_PREFIX "preflight:"
/* Longest drain reason in bytes, "..." included when cut. */
#define PF_SLURM_REASON_MAX 200
/* Deadline for one scontrol call. */
#define PF_SLURM_SCONTROL_TIMEOUT_S 15

struct pf_slurm_opts {
	bool drain;            /* drain the node when the verdict reaches drain_on */
	bool undrain;          /* resume it when the verdict is below warn/error and drain_on */
	/*
	 * The least verdict that drains (--drain-on, the profile's "drain_on"):
	 * PF_STATUS_FAIL, PF_STATUS_ERROR or PF_STATUS_WARN; PF_STATUS_PASS (the
	 * zero value) means the default, fail.  Under Slurm a verdict below it
	 * also exits 0, so that a Prolog does not drain on it either.
	 */
	enum pf_status drain_on;
	/*
	 * --reboot-on: finding codes ("PF-GPU-INVENTORY-020,PF-NVIDIA-PEERMEM-001",
	 * any case, each validated by the caller as a code whose action is reboot
	 * or reload_driver), or NULL.  A drain whose every finding at drain_on
	 * carries one of them asks Slurm for a reboot instead
	 * (pf_slurm_reboot_fixes()).
	 */
	const char *reboot_on;
	const char *scontrol;  /* NULL: $SCONTROL, else "scontrol" from PATH */
	const char *node;      /* NULL: $SLURMD_NODENAME, else the short hostname */
	unsigned int timeout_s; /* per scontrol call; 0: PF_SLURM_SCONTROL_TIMEOUT_S */
};

/* True when running under Slurm (SLURM_JOB_ID or SLURMD_NODENAME set). */
bool pf_slurm_detected(void);

/* "fail", "error" or "warn" (a --drain-on / "drain_on" value); -EINVAL otherwise. */
int pf_slurm_drain_on_from_name(const char *name, enum pf_status *ret);
/* The effective drain_on of @o (fail when unset). */
enum pf_status pf_slurm_drain_on(const struct pf_slurm_opts *o);
/* True when @verdict reaches @o's drain_on: the node is to be drained. */
bool pf_slurm_drains(enum pf_status verdict, const struct pf_slurm_opts *o);
/*
 * True when @verdict lets --undrain resume the node: below drain_on and
 * below error (a node that cannot be judged is not declared healthy).
 */
bool pf_slurm_resumes(enum pf_status verdict, const struct pf_slurm_opts *o);

/*
 * True when a reboot is the whole fix for @r's drain: @o->reboot_on is set,
 * and every check at or above drain_on has findings at that level, each
 * with a code in the list and the action reboot or reload_driver.  Any other
 * finding at that level (or a check with none to show) keeps the plain drain.
 */
bool pf_slurm_reboot_fixes(const struct pf_report *r, const struct pf_slurm_opts *o);

/*
 * "preflight: <check>: [<code> ]<subject>: <message>" for the first check
 * whose status is the verdict, and its first finding of that status (its
 * code when it has one); sanitised by
 * pf_slurm_sanitize() to at most @max bytes.  NULL when the verdict is pass
 * or warn.  Caller frees.
 */
char *pf_slurm_reason(const struct pf_report *r, size_t max);

/*
 * Make @s safe and short as a Slurm reason, in place: control characters
 * become spaces, runs of blanks collapse, double quotes become single ones,
 * invalid UTF-8 bytes become '?', and the text is cut to at most @max bytes
 * (@max >= 4) on a character boundary, ending in "..." when cut.
 */
void pf_slurm_sanitize(char *s, size_t max);

/*
 * Parse `scontrol show node NAME` output: State= (e.g. "IDLE+DRAIN") and
 * Reason= (the rest of its line, without the trailing " [user@time]").
 * Either out pointer may be NULL; a field not present gives NULL.  Returns
 * 0, or -ENOENT when the text has no NodeName=.
 */
int pf_slurm_parse_node(const char *text, char **ret_state, char **ret_reason);

/*
 * Whether `scontrol show node NAME` output @text describes exactly one node
 * and that node's NodeName= is @name: 0, or -ENOENT (no node), -E2BIG
 * (several: a NodeSet name, a pattern) or -ESRCH (another node) with
 * *ret_why a sentence (caller frees).  No `scontrol update` is sent without it.
 */
int pf_slurm_one_node(const char *text, const char *name, char **ret_why);

/* True if @state (State= value) says drained, draining, down or failed. */
bool pf_slurm_state_drained(const char *state);

/*
 * The node name: $SLURMD_NODENAME, else the hostname up to its first dot;
 * -EINVAL when the name is not one plain node name
 * (pf_hostlist_one_name(): no "ALL", no hostlist "n[1-100]", no ',').
 */
int pf_slurm_node_name(char **ret_name);

/*
 * Run @argv (argv[0] looked up in PATH) with stdin from /dev/null, stdout
 * captured into *ret_output (may be NULL to discard), stderr inherited, and
 * a deadline of @timeout_s after which it is killed.  *ret_status gets the
 * wait status.  Returns 0, -ETIMEDOUT, or -errno from pipe/fork.
 */
int pf_slurm_exec(const char *const *argv, unsigned int timeout_s, char **ret_output,
		  int *ret_status);

/*
 * Act on the verdict of @r: write the reason line to @log when the verdict
 * is fail or error (or warn when it drains), and a note when it does not
 * drain; then drain (verdict reaches drain_on; `scontrol reboot ASAP
 * nextstate=RESUME` instead when pf_slurm_reboot_fixes(), and a drain when
 * Slurm refuses the reboot) or resume
 * (pf_slurm_resumes()) as @o asks, logging what was done to @log.  Returns
 * 0; -EINVAL when the node name was refused (not one plain name, or
 * `scontrol show node` does not describe exactly that one node) and -EPERM
 * when, as root, the $SCONTROL program is not root's alone: both a config
 * error (the run exits 64); or another -errno when an scontrol call failed
 * (the caller keeps its exit code: the report's verdict is what matters).
 */
int pf_slurm_gate(const struct pf_report *r, const struct pf_slurm_opts *o, FILE *log);

/*
 * A usage or profile error under --drain: drain this node with the reason
 * "preflight: config error: @msg" (sanitised, bounded; an operator's drain
 * is kept), so that the admin sees the typo rather than "Prolog error".
 */
int pf_slurm_drain_config_error(const struct pf_slurm_opts *o, const char *msg, FILE *log);

#endif
