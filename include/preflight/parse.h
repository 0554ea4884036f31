/* SPDX-License-Identifier: MIT */
/*
 * parse.h - pure parsers of kernel text formats.  No I/O: each takes the
 * text and returns plain values, so each is unit-tested and fuzzed alone.
 */
#ifndef PREFLIGHT_PARSE_H
#define PREFLIGHT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preflight/providers.h"

/*
 * Find the row named @name ("Max locked memory") in /proc/<pid>/limits text
 * and parse its soft and hard columns ("unlimited" -> PF_RLIM_UNLIMITED).
 * -ENOENT if the row is absent, -EINVAL if malformed.
 */
int pf_parse_proc_limits(const char *text, const char *name, struct pf_rlimit *ret);

/*
 * Split a sysctl value into whitespace-separated unsigned fields
 * ("4096\t131072\t33554432").  Returns the number of fields (at most @max),
 * -EINVAL on a non-numeric field or none at all, -E2BIG if more than @max.
 */
int pf_parse_u64_fields(const char *text, uint64_t *fields, size_t max);

/*
 * sysfs formats (src/parse_sysfs.c).
 */

/* An InfiniBand port rate: "400 Gb/sec (4X NDR)". */
struct pf_ib_rate {
	double gbps;      /* 400, 2.5 */
	int width;        /* lanes: 1, 2, 4, 8 or 12 */
	char speed[8];    /* "NDR", "FDR10"; "" when the kernel printed none (old-kernel SDR) */
};

/*
 * Parse /sys/class/infiniband/<dev>/ports/<n>/rate as the kernel prints it,
 * "%d%s Gb/sec (%dX%s)", of every generation from SDR to XDR.  -EINVAL for
 * "Unknown", a width other than 1/2/4/8/12, a speed name the kernel does
 * not print, or trailing text.
 */
int pf_parse_ib_rate(const char *text, struct pf_ib_rate *ret);

/*
 * Parse a port state or phys_state line, "4: ACTIVE" or "7: Phy Test":
 * the number into *ret_num and the name (may contain blanks, may be
 * "<unknown>") into @name of size @len.  -EINVAL if malformed.
 */
int pf_parse_state_line(const char *text, int *ret_num, char *name, size_t len);

/* Largest CPU number a cpulist may name (exclusive). */
#define PF_CPUS_MAX 8192
#define PF_CPU_WORDS (PF_CPUS_MAX / 64)

/*
 * Parse a kernel cpulist ("0-3,8-11", "0", "" for none) into @bits (PF_CPU_WORDS words, cleared first; may be NULL).
 * Returns the number of CPUs named; -EINVAL if malformed, -ERANGE for a CPU
 * at or beyond PF_CPUS_MAX.
 */
int pf_parse_cpulist(const char *text, uint64_t *bits);
/* The lowest CPU of a cpulist; -ENOENT for an empty list, -EINVAL if malformed. */
int pf_parse_cpulist_first(const char *text);

/*
 * Parse a PCIe link speed file ("8 GT/s", "16.0 GT/s PCIe", "2.5 GT/s"):
 * GT/s into *ret.  -EINVAL for "Unknown" and anything else.
 */
int pf_parse_pci_speed(const char *text, double *ret);
/* A link width file ("16", "x16"); -EINVAL unless 1..32. */
int pf_parse_pci_width(const char *text, int *ret);
/* The PCIe generation of a speed in GT/s (2.5 -> 1 ... 64 -> 6), 0 if unknown. */
int pf_pci_gen(double gts);

/* True if @s is a BDF as sysfs spells it: "0000:17:00.0" (4-digit domain, lower-case hex). */
bool pf_is_bdf(const char *s);
/*
 * Normalise a PCI address as CUDA, NVML, hwloc or lspci write it
 * ("0000:1B:00.0", "00000000:1b:00.0", "1b:00.0") to sysfs form in @out.
 * -EINVAL if it is not one.
 */
int pf_bdf_normalize(const char *s, char out[16]);
/*
 * The BDF-shaped components of a sysfs device path, top down:
 * "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0" gives
 * {"0000:16:02.0", "0000:17:00.0"}.  Fills at most @max entries of @out and
 * returns how many the path has (which may exceed @max); *ret_root, when not
 * NULL, receives the host bridge component ("pci0000:16") or "".
 */
int pf_pci_path_bdfs(const char *path, char (*out)[16], size_t max, char ret_root[16]);

#endif
