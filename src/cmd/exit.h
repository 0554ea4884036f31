/* SPDX-License-Identifier: MIT */
/*
 * exit.h - preflight's exit codes, one list for every command (README
 * "Exit status"; 64, 70 and 74 are sysexits.h's EX_USAGE, EX_SOFTWARE and
 * EX_IOERR).
 */
#ifndef PREFLIGHT_EXIT_H
#define PREFLIGHT_EXIT_H

enum pf_exit {
	PF_EXIT_OK = 0,       /* no check failed and none errored */
	PF_EXIT_FAIL = 1,     /* a check failed */
	PF_EXIT_ERROR = 2,    /* a check could not decide, none failed */
	PF_EXIT_USAGE = 64,   /* usage, profile or site config error */
	PF_EXIT_SOFTWARE = 70, /* a bug of ours */
	PF_EXIT_IOERR = 74,   /* the report or view could not be written */
};

#endif
