// SPDX-License-Identifier: MIT
/*
 * parse_aer.c - a PCIe AER statistics file of sysfs: aer_dev_correctable,
 * aer_dev_nonfatal or aer_dev_fatal under /sys/bus/pci/devices/<bdf>/
 * (Documentation/ABI/testing/sysfs-bus-pci-devices-aer, kernel 4.19 on).
 * drivers/pci/pcie/aer.c prints one "NAME count" line for each error bit it
 * has a name for (RxErr, BadTLP, ... for correctable; DLP, SDES, CmpltTO,
 * ... for the uncorrectable ones) and then the file's total,
 * "TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL" or "TOTAL_ERR_FATAL".  The names are
 * kept as the kernel spells them, so a newer kernel's new bit is read too.
 */
#include <errno.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/parse.h"

/* One "NAME count" line of @line (@len bytes, no newline) into @s. */
static int parse_line(const char *line, size_t len, struct pf_aer_stats *s)
{
	char name[PF_AER_NAME_MAX], num[24];
	size_t n = 0, k;
	uint64_t v;
	int r;

	while (n < len && (line[n] == '_' || (line[n] >= 'A' && line[n] <= 'Z') ||
			   (line[n] >= 'a' && line[n] <= 'z') || (line[n] >= '0' && line[n] <= '9')))
		n++;
	if (!n || n >= sizeof(name) || n >= len || line[n] != ' ')
		return -EINVAL;
	memcpy(name, line, n);
	name[n] = '\0';
	k = len - n - 1;
	if (!k || k >= sizeof(num))
		return -EINVAL;
	memcpy(num, line + n + 1, k);
	num[k] = '\0';
	if (num[0] < '0' || num[0] > '9' || num[1] == 'x' || num[1] == 'X')
		return -EINVAL;       /* decimal, no sign, no blank */
	r = pf_parse_u64(num, &v);
	if (r < 0)
		return r;
	if (!strncmp(name, "TOTAL_ERR_", 10)) {
		if (s->has_total)
			return -EINVAL;
		s->has_total = true;
		s->total = v;
		return 0;
	}
	if (s->n >= PF_AER_MAX_ERRS)
		return -E2BIG;
	memcpy(s->err[s->n].name, name, n + 1);
	s->err[s->n].count = v;
	s->n++;
	return 0;
}

int pf_parse_aer_stats(const char *text, struct pf_aer_stats *ret)
{
	struct pf_aer_stats s = { 0 };
	const char *p = text;

	if (!text)
		return -EINVAL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int r;

		if (len && p[len - 1] == '\r')
			return -EINVAL;
		if (len) {
			r = parse_line(p, len, &s);
			if (r < 0)
				return r;
		}
		p += len + (nl != NULL);
	}
	if (!s.n && !s.has_total)
		return -ENODATA;
	*ret = s;
	return 0;
}

uint64_t pf_aer_sum(const struct pf_aer_stats *s)
{
	uint64_t sum = 0;

	if (s->has_total)
		return s->total;
	for (size_t i = 0; i < s->n; i++)
		sum = s->err[i].count > UINT64_MAX - sum ? UINT64_MAX : sum + s->err[i].count;
	return sum;
}
