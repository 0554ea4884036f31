// SPDX-License-Identifier: MIT
/*
 * parse_gpu.c - text formats of the GPU checks: NVIDIA Xid lines in the
 * kernel log, /proc/driver/nvidia/version, kernel release strings and
 * dotted version numbers.  Pure functions, no I/O.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/parse.h"
#include "preflight/strbuf.h"

/* Largest number of Xid events kept from one log. */
#define XID_MAX 4096

const char *pf_kmsg_message(const char *line, double *ret_t)
{
	const char *p = line;
	char *end;

	*ret_t = -1;
	if (isdigit((unsigned char)*p)) {
		/* /dev/kmsg record: "<prio>,<seq>,<usec>,<flags>[,...];<message>" */
		const char *semi = strchr(p, ';');
		const char *c1 = strchr(p, ',');

		if (semi && c1 && c1 < semi) {
			const char *c2 = strchr(c1 + 1, ',');

			if (c2 && c2 < semi) {
				unsigned long long us = strtoull(c2 + 1, &end, 10);

				if (end != c2 + 1 && *end == ',')
					*ret_t = (double)us / 1e6;
			}
			return semi + 1;
		}
	}
	if (*p == '[') {
		/* dmesg: "[ 1234.567890] <message>" */
		double t = strtod(p + 1, &end);

		if (end != p + 1 && *end == ']') {
			*ret_t = t;
			p = end + 1;
			while (*p == ' ')
				p++;
			return p;
		}
	}
	return p;
}

static int parse_xid_line(const char *line, struct pf_xid *ret)
{
	const char *msg, *p, *close;
	unsigned long xid;
	char *end;
	size_t n;

	msg = pf_kmsg_message(line, &ret->t_s);
	p = strstr(msg, "NVRM: Xid (");
	if (!p)
		return -ENOENT;
	p += strlen("NVRM: Xid (");
	if (!strncmp(p, "PCI:", 4))
		p += 4;
	close = strchr(p, ')');
	if (!close || close == p || (size_t)(close - p) >= sizeof(ret->pci))
		return -EINVAL;
	n = (size_t)(close - p);
	for (size_t i = 0; i < n; i++)
		ret->pci[i] = (char)tolower((unsigned char)p[i]);
	ret->pci[n] = '\0';
	p = close + 1;
	if (*p == ':')
		p++;
	while (*p == ' ')
		p++;
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	xid = strtoul(p, &end, 10);
	if (errno || xid > 100000)
		return -EINVAL;
	ret->xid = (unsigned int)xid;
	p = end;
	while (*p == ',' || *p == ' ')
		p++;
	n = strcspn(p, "\n");
	if (n >= sizeof(ret->text))
		n = sizeof(ret->text) - 1;
	memcpy(ret->text, p, n);
	ret->text[n] = '\0';
	return 0;
}

int pf_parse_kmsg_xids(const char *text, struct pf_xid **ret, size_t *ret_n)
{
	pf_autofree struct pf_xid *v = NULL;
	size_t n = 0, cap = 0;

	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		struct pf_xid x = { 0 };

		/* kmsg continuation lines (" SUBSYSTEM=pci") start with a blank */
		if (len > 0 && line[0] != ' ' && n < XID_MAX) {
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
			memcpy(buf, line, len);
			buf[len] = '\0';
			if (parse_xid_line(buf, &x) == 0) {
				PF_GROW(v, n, cap);
				v[n++] = x;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	*ret = PF_TAKE_PTR(v);
	*ret_n = n;
	return (int)n;
}

bool pf_xid_matches_bdf(const char *pci, const char *bdf)
{
	size_t n = strlen(pci);

	if (n == 0)
		return false;
	/* "0000:1b:00" (domain:bus:device) or, rarely, "1b:00" */
	if (!strncmp(bdf, pci, n) && (bdf[n] == '.' || bdf[n] == '\0'))
		return true;
	return strlen(bdf) > 5 && !strncmp(bdf + 5, pci, n) && (bdf[5 + n] == '.' || bdf[5 + n] == '\0');
}

struct xid_info {
	unsigned int xid;
	const char *meaning;
};

/* Common Xids, summarised from NVIDIA's Xid catalogue. */
static const struct xid_info xids[] = {
	{ 8, "GPU stopped processing: channel timeout" },
	{ 13, "graphics engine exception (usually an application fault)" },
	{ 31, "GPU memory page fault (usually an application's illegal address)" },
	{ 32, "invalid or corrupted push buffer stream" },
	{ 38, "driver firmware error" },
	{ 43, "GPU stopped processing (application fault or hang)" },
	{ 44, "graphics engine fault during context switch" },
	{ 45, "preemptive cleanup after earlier errors (channels torn down)" },
	{ 48, "double-bit ECC error" },
	{ 56, "display engine error" },
	{ 57, "error programming the video memory interface" },
	{ 58, "unstable video memory interface" },
	{ 61, "internal micro-controller breakpoint or warning" },
	{ 62, "internal micro-controller halt" },
	{ 63, "ECC page retirement or row remapping recorded" },
	{ 64, "ECC page retirement or row remapping failed to record" },
	{ 65, "video processor exception" },
	{ 68, "video decoder (NVDEC) exception" },
	{ 69, "graphics engine class error" },
	{ 73, "NVENC2 error" },
	{ 74, "NVLink error" },
	{ 79, "GPU has fallen off the bus" },
	{ 80, "corrupted data sent to the GPU" },
	{ 81, "VGA subsystem error" },
	{ 92, "high single-bit ECC error rate" },
	{ 94, "contained ECC error (the affected application was stopped)" },
	{ 95, "uncontained ECC error (every application on the GPU affected; reset needed)" },
	{ 109, "context switch timeout" },
	{ 119, "GSP RPC timeout" },
	{ 120, "GSP (GPU System Processor) error" },
	{ 121, "C2C link error" },
	{ 140, "unrecovered ECC error" },
	{ 154, "GPU recovery action changed (reset or reboot required)" },
};

const char *pf_xid_meaning(unsigned int xid)
{
	for (size_t i = 0; i < PF_ARRAY_SIZE(xids); i++)
		if (xids[i].xid == xid)
			return xids[i].meaning;
	return NULL;
}

int pf_parse_kernel_release(const char *text, int *ret_major, int *ret_minor)
{
	char *end;
	long major, minor;

	errno = 0;
	major = strtol(text, &end, 10);
	if (end == text || *end != '.' || errno)
		return -EINVAL;
	text = end + 1;
	minor = strtol(text, &end, 10);
	if (end == text || errno || major < 0 || minor < 0 || major > 1000 || minor > 1000)
		return -EINVAL;
	*ret_major = (int)major;
	*ret_minor = (int)minor;
	return 0;
}

int pf_parse_nvidia_version(const char *text, char *version, size_t len, bool *ret_open)
{
	const char *p = strstr(text, "Kernel Module");

	if (strncmp(text, "NVRM version:", 13) || !p)
		return -EINVAL;
	*ret_open = strstr(text, "Open Kernel Module") != NULL;
	/* the first blank-separated token after "Kernel Module" that starts with a digit */
	for (p += strlen("Kernel Module"); *p && *p != '\n'; p++) {
		size_t n;

		if (!isdigit((unsigned char)*p) || (p[-1] != ' ' && p[-1] != '\t'))
			continue;
		n = strspn(p, "0123456789.");
		if (!memchr(p, '.', n))
			continue;
		if (n >= len)
			return -ERANGE;
		memcpy(version, p, n);
		version[n] = '\0';
		return 0;
	}
	return -EINVAL;
}

int pf_version_cmp(const char *a, const char *b)
{
	for (;;) {
		char *ea, *eb;
		unsigned long va = strtoul(a, &ea, 10), vb = strtoul(b, &eb, 10);

		if (va != vb)
			return va < vb ? -1 : 1;
		if (*ea != '.' && *eb != '.')
			return 0;
		a = *ea == '.' ? ea + 1 : ea;
		b = *eb == '.' ? eb + 1 : eb;
	}
}
