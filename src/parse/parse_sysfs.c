// SPDX-License-Identifier: MIT
/*
 * parse_sysfs.c - sysfs text formats used by the inventory: InfiniBand port
 * rates and states, cpulists, PCIe link speed and width, and PCI addresses
 * and device paths.
 *
 * Every parser is strict about shape (a value it does not recognise is
 * -EINVAL, never a guess) and tolerant of the trailing newline sysfs adds.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/parse.h"

static const char *skip_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return s;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_lower_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f');
}

/* Speed names the kernel prints after the width (drivers/infiniband/core). */
static const char *const ib_speed_names[] = {
	"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR",
};

double pf_parse_port_gbps(const char *text)
{
	struct pf_ib_rate r;

	return text && pf_parse_ib_rate(text, &r) == 0 && r.gbps > 0 && r.gbps <= 1e5 ? r.gbps : 0;
}

int pf_parse_ib_rate(const char *text, struct pf_ib_rate *ret)
{
	struct pf_ib_rate v = { 0 };
	const char *p, *close;
	double g;
	int w, n = -1;

	if (!text || !is_digit(*text))
		return -EINVAL;
	if (sscanf(text, "%lf Gb/sec (%dX%n", &g, &w, &n) != 2 || n < 0)
		return -EINVAL;
	if (!isfinite(g) || g <= 0 || g > 1e6)
		return -EINVAL;
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return -EINVAL;
	p = text + n;
	close = strchr(p, ')');
	if (!close || *skip_blank(close + 1))
		return -EINVAL;
	if (p != close) {
		size_t len;
		bool known = false;

		if (*p != ' ')
			return -EINVAL;
		p++;
		len = (size_t)(close - p);
		for (size_t i = 0; i < PF_ARRAY_SIZE(ib_speed_names); i++)
			if (strlen(ib_speed_names[i]) == len && !memcmp(p, ib_speed_names[i], len))
				known = true;
		if (!known)
			return -EINVAL;
		memcpy(v.speed, p, len);
		v.speed[len] = '\0';
	}
	v.gbps = g;
	v.width = w;
	*ret = v;
	return 0;
}

int pf_parse_state_line(const char *text, int *ret_num, char *name, size_t len)
{
	const char *p = text, *end;
	long num = 0;
	size_t nlen;

	if (!text || !is_digit(*p))
		return -EINVAL;
	while (is_digit(*p)) {
		num = num * 10 + (*p - '0');
		if (num > 255)
			return -EINVAL;
		p++;
	}
	if (p[0] != ':' || p[1] != ' ')
		return -EINVAL;
	p += 2;
	end = p + strcspn(p, "\n");
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (*skip_blank(end))
		return -EINVAL; /* a second line */
	nlen = (size_t)(end - p);
	if (nlen == 0 || nlen >= len)
		return -EINVAL;
	memcpy(name, p, nlen);
	name[nlen] = '\0';
	*ret_num = (int)num;
	return 0;
}

static int parse_cpu(const char **pp, unsigned long *ret)
{
	const char *p = *pp;
	unsigned long v = 0;

	if (!is_digit(*p))
		return -EINVAL;
	while (is_digit(*p)) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= PF_CPUS_MAX)
			return -ERANGE;
		p++;
	}
	*pp = p;
	*ret = v;
	return 0;
}

int pf_parse_cpulist(const char *text, uint64_t *bits)
{
	const char *p = skip_blank(text);
	int count = 0, r;

	if (bits)
		memset(bits, 0, PF_CPU_WORDS * sizeof(*bits));
	if (!*p)
		return 0;
	for (;;) {
		unsigned long a, b;

		r = parse_cpu(&p, &a);
		if (r < 0)
			return r;
		b = a;
		if (*p == '-') {
			p++;
			r = parse_cpu(&p, &b);
			if (r < 0)
				return r;
			if (b < a)
				return -EINVAL;
		}
		for (unsigned long c = a; c <= b; c++) {
			if (bits) {
				if (bits[c / 64] & (1ULL << (c % 64)))
					continue;
				bits[c / 64] |= 1ULL << (c % 64);
			}
			count++;
		}
		if (*p != ',')
			break;
		p++;
	}
	return *skip_blank(p) ? -EINVAL : count;
}

int pf_parse_cpulist_first(const char *text)
{
	uint64_t bits[PF_CPU_WORDS];
	int r = pf_parse_cpulist(text, bits);

	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	for (int w = 0; w < PF_CPU_WORDS; w++)
		if (bits[w])
			return w * 64 + __builtin_ctzll(bits[w]);
	return -ENOENT;
}

int pf_parse_pci_speed(const char *text, double *ret)
{
	const char *p;
	double v;
	int n = -1;

	if (!text || !is_digit(*text))
		return -EINVAL;
	if (sscanf(text, "%lf GT/s%n", &v, &n) != 1 || n < 0)
		return -EINVAL;
	if (!isfinite(v) || v <= 0 || v > 1024)
		return -EINVAL;
	p = skip_blank(text + n);
	if (!strncmp(p, "PCIe", 4))
		p = skip_blank(p + 4);
	if (*p)
		return -EINVAL;
	*ret = v;
	return 0;
}

int pf_parse_pci_width(const char *text, int *ret)
{
	uint64_t v;
	int r;

	if (!text)
		return -EINVAL;
	text = skip_blank(text);
	if (*text == 'x')
		text++;
	if (!is_digit(*text))
		return -EINVAL;
	r = pf_parse_u64(text, &v);
	if (r < 0 || v < 1 || v > 32)
		return -EINVAL;
	*ret = (int)v;
	return 0;
}

int pf_pci_gen(double gts)
{
	static const double gen_gts[] = { 2.5, 5, 8, 16, 32, 64 };

	for (size_t i = 0; i < PF_ARRAY_SIZE(gen_gts); i++)
		if (fabs(gts - gen_gts[i]) < 0.01)
			return (int)i + 1;
	return 0;
}

/* Match "dddd:bb:dd.f" exactly; @len must be 12. */
static bool bdf_shape(const char *s, size_t len)
{
	static const char shape[] = "hhhh:hh:hh.h";

	if (len != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (shape[i] == 'h' ? !is_lower_hex(s[i]) : s[i] != shape[i])
			return false;
	}
	return s[11] <= '7'; /* function 0..7 */
}

bool pf_is_bdf(const char *s)
{
	return s && bdf_shape(s, strlen(s));
}

int pf_bdf_normalize(const char *s, char out[16])
{
	unsigned int dom = 0, bus, dev, fn;
	int n = -1;

	if (!s)
		return -EINVAL;
	s = skip_blank(s);
	/* only hex digits and separators: scanf's %x would take "0x" prefixes */
	if (strspn(s, "0123456789abcdefABCDEF:.") != strcspn(s, " \t\n"))
		return -EINVAL;
	if (sscanf(s, "%x:%x:%x.%x%n", &dom, &bus, &dev, &fn, &n) != 4 || n < 0) {
		dom = 0;
		n = -1;
		if (sscanf(s, "%x:%x.%x%n", &bus, &dev, &fn, &n) != 3 || n < 0)
			return -EINVAL;
	}
	if (*skip_blank(s + n) || dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return -EINVAL;
	snprintf(out, 16, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static bool hex_run(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* "0000:17:00.0": a domain of 4 or more hex digits (VMD uses 5), bus, device, function. */
static bool bdf_shaped(const char *s, size_t len)
{
	size_t d = 0;

	while (d < len && s[d] != ':')
		d++;
	if (d < 4 || d > 8 || !hex_run(s, d) || len != d + 8)
		return false;
	s += d;
	return s[0] == ':' && hex_run(s + 1, 2) && s[3] == ':' && hex_run(s + 4, 2) &&
	       s[6] == '.' && s[7] >= '0' && s[7] <= '7';
}

/* "pci0000:16": a host bridge. */
static bool root_shaped(const char *s, size_t len)
{
	size_t d = 3;

	if (len < 10 || strncmp(s, "pci", 3))
		return false;
	while (d < len && s[d] != ':')
		d++;
	return d - 3 >= 4 && d - 3 <= 8 && hex_run(s + 3, d - 3) && len == d + 3 &&
	       hex_run(s + d + 1, 2);
}

/*
 * Split @path into the host bridge and the BDF chain below it.  The last
 * "pci..." component is the root: virtual buses (Hyper-V) put other
 * components above it, and a PCI domain behind a device (Intel VMD,
 * "pci10000:e0") is a root of its own, as NCCL sees it.  The chain stops at
 * the first component after it that is not a BDF ("infiniband/mlx5_0").
 */
int pf_pci_path_split(const char *path, struct pf_pci_chain *ret)
{
	const char *p = path;
	bool in_chain = false;

	memset(ret, 0, sizeof(*ret));
	while (*p) {
		const char *comp;
		size_t len;

		while (*p == '/')
			p++;
		comp = p;
		len = strcspn(p, "/");
		p += len;
		if (len == 0)
			break;
		if (root_shaped(comp, len)) {
			/* a domain behind a device (Intel VMD) starts over */
			memcpy(ret->root, comp, len);
			ret->root[len] = '\0';
			ret->n = 0;
			in_chain = false;
			continue;
		}
		if (ret->root[0] && bdf_shaped(comp, len)) {
			if (ret->n == PF_PCI_CHAIN_MAX)
				return -E2BIG;
			memcpy(ret->comp[ret->n], comp, len);
			ret->comp[ret->n][len] = '\0';
			ret->n++;
			in_chain = true;
			continue;
		}
		if (in_chain)
			break;
		ret->root[0] = '\0'; /* a "pci..." not followed by a BDF */
	}
	return ret->root[0] && ret->n > 0 ? 0 : -EINVAL;
}

int pf_pci_path_bdfs(const char *path, char (*out)[16], size_t max, char ret_root[16])
{
	struct pf_pci_chain c;

	if (ret_root)
		ret_root[0] = '\0';
	if (pf_pci_path_split(path, &c) < 0)
		return 0;
	/*
	 * The inventory keeps sysfs's own spelling, 4-digit domains: a chain
	 * with another (behind Intel VMD, or upper-case) is no chain of it.
	 */
	for (size_t i = 0; i < c.n; i++)
		if (!pf_is_bdf(c.comp[i]))
			return 0;
	if (ret_root && strlen(c.root) < 16)
		memcpy(ret_root, c.root, strlen(c.root) + 1);
	for (size_t i = 0; i < c.n && i < max; i++)
		memcpy(out[i], c.comp[i], strlen(c.comp[i]) + 1);
	return (int)c.n;
}

double pf_read_uptime(const struct pf_fs *fs)
{
	pf_autofree char *line = NULL;
	char *end;
	double v;

	if (pf_fs_read_line(fs, "/proc/uptime", &line) < 0)
		return 0;
	v = strtod(line, &end);
	if (end == line || !isfinite(v) || v < 0)
		return 0;
	return v;
}
