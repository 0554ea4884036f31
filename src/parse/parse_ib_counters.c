// SPDX-License-Identifier: MIT
/*
 * parse_ib_counters.c - RDMA port counters: the text of one counter file
 * and the arithmetic of two samples of it (wrap, saturation, reset), kept
 * pure so that the live sampling window is tested without sleeping.
 */
#include <errno.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/parse.h"

int pf_parse_ib_counter(const char *text, uint64_t *ret)
{
	const char *p;

	if (!text)
		return -EINVAL;
	p = text + strspn(text, " \t");
	/* drivers/infiniband/core/sysfs.c prints this when the port has no PMA */
	if (!strncmp(p, "N/A", 3))
		return -EOPNOTSUPP;
	if (*p < '0' || *p > '9')
		return -EINVAL;      /* no signs, no blanks-only text */
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return -EINVAL;      /* counters are decimal */
	return pf_parse_u64(p, ret);
}

int pf_counter_delta(uint64_t before, uint64_t after, unsigned int width, bool saturating,
		     struct pf_counter_delta *ret)
{
	struct pf_counter_delta d = { 0 };
	uint64_t max;

	if (width < 1 || width > 64)
		return -EINVAL;
	max = width == 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
	if (before > max || after > max)
		return -ERANGE;

	if (after >= before) {
		d.delta = after - before;
	} else if (!saturating && width < 64) {
		/* passed the maximum once: count up to it, then from zero */
		d.delta = (max - before) + after + 1;
		d.wrapped = true;
	} else {
		/* a saturating or 64-bit counter only goes back when cleared */
		d.delta = after;
		d.reset = true;
	}
	d.saturated = saturating && after == max;
	*ret = d;
	return 0;
}
