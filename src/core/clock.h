/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the monotonic clock, for deadlines and durations.  Not for
 * checks: a check measures time through ctx->prov->wait, so that a
 * recorded root reproduces it (tests/arch/layers.py enforces that).
 */
#ifndef PREFLIGHT_CLOCK_H
#define PREFLIGHT_CLOCK_H

#include <stdint.h>

/* Milliseconds of CLOCK_MONOTONIC, fractions included. */
double pf_now_ms(void);
/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t pf_now_ns(void);

#endif
