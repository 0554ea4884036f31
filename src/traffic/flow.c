// SPDX-License-Identifier: MIT
/*
 * flow.c - what every part of the engine (engine.h) shares: a flow's
 * defaults, its error and notes, the slot layout and the slot patterns.
 *
 * WR i copies source slot i % slots to destination slot i % slots; slot j
 * of pass p carries the pattern seeded by p << 16 | (j + 1), so a check
 * sees every target, tells a WRITE that went to the wrong slot from one
 * that never landed, and (pass 2) an old pattern from a fresh one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"

#define SLOT_BUDGET (32u << 20)
#define MIN_SLOTS 2u
#define MAX_SLOTS 64u
#define SLOT_ALIGN 64u
#define PSN_SRC 0x2a3b4
#define PSN_DST 0x5c6d7

void pf_eng_init(struct flow *f, const struct pf_fab_opts *o, struct pf_fab_result *r)
{
	*f = (struct flow){
		.o = o,
		.r = r,
		.s = { { .e = &o->src }, { .e = &o->dst } },
		.mr_access = ENG_ACCESS,
		.psn = { PSN_SRC, PSN_DST },
		.first_pass = 1,
		.second_pass = true,
	};
	snprintf(f->where, sizeof(f->where), "%s -> %s", o->src.dev ? o->src.dev : "?",
		 o->dst.dev ? o->dst.dev : "?");
}

int pf_eng_fail(struct flow *f, enum pf_fab_stage st, int err, const char *fmt, ...)
{
	va_list ap;

	f->r->stage = st;
	va_start(ap, fmt);
	vsnprintf(f->r->err, sizeof(f->r->err), fmt, ap);
	va_end(ap);
	return err;
}

void pf_eng_note(struct flow *f, const char *fmt, ...)
{
	char line[sizeof(f->r->note)];
	size_t used = strlen(f->r->note);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(f->r->note, line))
		return; /* both sides of a loopback say the same */
	if (used && used + 2 < sizeof(f->r->note)) {
		strcat(f->r->note, "; ");
		used += 2;
	}
	snprintf(f->r->note + used, sizeof(f->r->note) - used, "%s", line);
}

int pf_eng_errno_or(int fallback)
{
	return errno ? errno : fallback;
}

uint64_t pf_eng_now_ns(struct flow *f)
{
	if (f->o->api->now_ns && f->s[0].ctx)
		return f->o->api->now_ns(f->s[0].ctx);
	return pf_now_ns();
}

size_t pf_eng_round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

int pf_eng_layout(struct flow *f)
{
	long sys = sysconf(_SC_PAGESIZE);

	f->page = f->o->page_size ? f->o->page_size : sys > 0 ? (size_t)sys : 4096;
	if (f->page & (f->page - 1))
		return pf_eng_fail(f, PF_FAB_OPEN, -EINVAL, "page size %zu is not a power of two",
				   f->page);
	f->stride = pf_eng_round_up(f->o->msg_size, SLOT_ALIGN);
	f->slots = f->o->slots;
	if (!f->slots) {
		size_t fit = SLOT_BUDGET / f->stride;

		f->slots = fit < MIN_SLOTS ? MIN_SLOTS : fit > MAX_SLOTS ? MAX_SLOTS
									: (unsigned int)fit;
	}
	f->span = f->stride * f->slots;
	f->r->slots = f->slots;
	return 0;
}

static uint64_t seed(unsigned int pass, unsigned int slot)
{
	return (uint64_t)pass << 16 | (slot + 1);
}

void pf_eng_fill_slots(struct flow *f, uint8_t *buf, unsigned int pass)
{
	for (unsigned int j = 0; j < f->slots; j++)
		pf_lb_fill_pattern(buf + j * f->stride, f->o->msg_size, seed(pass, j));
}

int pf_eng_check_slots(struct flow *f, const uint8_t *buf, unsigned int pass, unsigned int n)
{
	char which[16] = "";

	for (unsigned int j = 0; j < n; j++) {
		ssize_t bad = pf_lb_check_pattern(buf + j * f->stride, f->o->msg_size,
						  seed(pass, j));

		if (bad < 0)
			continue;
		f->r->bad_offset = (size_t)bad;
		f->r->bad_slot = j;
		f->r->bad_pass = pass;
		if (f->second_pass)
			snprintf(which, sizeof(which), " (pass %u)", pass);
		return pf_eng_fail(f, PF_FAB_VERIFY, -EBADMSG, "data written through %s differs "
				   "from the source at byte %zd of %zu in slot %u of %u%s",
				   f->where, bad, f->o->msg_size, j, f->slots, which);
	}
	return 0;
}
