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

#include "preflight/macro.h"

#define PF_RLIM_UNLIMITED UINT64_MAX

/* A resource limit in bytes (or PF_RLIM_UNLIMITED). */
struct pf_rlimit {
	uint64_t soft; /* bytes, or PF_RLIM_UNLIMITED */
	uint64_t hard;
};

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
 * sysfs formats (src/parse/parse_sysfs.c).
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
 * The Gb/s of a port rate another node sent ("400 Gb/sec (4X NDR)" in a
 * mesh table): believed only within what a port can be (0 < Gb/s <= 1e5),
 * else 0 (unknown).  Hostile input: never NaN, infinite or absurd.
 */
double pf_parse_port_gbps(const char *text);

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

struct pf_fs;
/* Seconds since boot from /proc/uptime under the root; 0 when unknown or malformed. */
double pf_read_uptime(const struct pf_fs *fs);
/* Longest bridge chain followed; real trees are under 10 deep. */
#define PF_PCI_CHAIN_MAX 32

/* A device's place on the PCI tree, from its canonical sysfs or hwloc path. */
struct pf_pci_chain {
	char root[24];                   /* the host bridge: "pci0000:16" */
	char comp[PF_PCI_CHAIN_MAX][24]; /* the BDFs below it: bridges, then the device */
	size_t n;
};

/*
 * The one PCI path splitter.  The last "pci..." component is the root:
 * virtual buses (Hyper-V) put other components above it, and a PCI domain
 * behind a device (Intel VMD, "pci10000:e0") is a root of its own, as NCCL
 * sees it.  The chain stops at the first component after it that is not a
 * BDF ("infiniband/mlx5_0").  -EINVAL without a root and a BDF below it,
 * -E2BIG past PF_PCI_CHAIN_MAX.
 */
int pf_pci_path_split(const char *path, struct pf_pci_chain *ret);

/*
 * pf_pci_path_split() as the inventory keeps it, top down:
 * "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0" gives
 * {"0000:16:02.0", "0000:17:00.0"}.  Fills at most @max entries of @out and
 * returns how many the path has (which may exceed @max; 0 for a path with
 * no PCI root, or with a BDF the inventory does not spell: a domain of
 * other than 4 digits, behind Intel VMD); *ret_root, when not NULL,
 * receives the host bridge component ("pci0000:16") or "".
 */
int pf_pci_path_bdfs(const char *path, char (*out)[16], size_t max, char ret_root[16]);

/*
 * PCI configuration space images (src/parse/parse_pci_config.c), constants as in
 * linux/pci_regs.h.
 */
#define PF_PCI_CFG_SPACE_SIZE 256      /* conventional space; extended caps start here */
#define PF_PCI_CFG_SPACE_EXP_SIZE 4096
#define PF_PCI_EXT_CAP_ID(h) ((h) & 0xffffu)
#define PF_PCI_EXT_CAP_NEXT(h) (((h) >> 20) & 0xffcu)
#define PF_PCI_EXT_CAP_ID_ACS 0x000d
#define PF_PCI_ACS_CAP 0x04            /* u16 capability register, from the cap header */
#define PF_PCI_ACS_CTRL 0x06           /* u16 control register */
#define PF_PCI_ACS_SV 0x0001           /* source validation */
#define PF_PCI_ACS_TB 0x0002           /* translation blocking */
#define PF_PCI_ACS_RR 0x0004           /* P2P request redirect */
#define PF_PCI_ACS_CR 0x0008           /* P2P completion redirect */
#define PF_PCI_ACS_UF 0x0010           /* upstream forwarding */
#define PF_PCI_ACS_EC 0x0020           /* P2P egress control */
#define PF_PCI_ACS_DT 0x0040           /* direct translated P2P */

/*
 * Find extended capability @id by walking the list from 0x100 in the
 * config image @cfg of @len bytes; its offset into *ret_off.  -ENODATA when
 * the image does not reach the list (a non-root read gives 64 bytes, a
 * conventional device 256) or a pointer leaves it, -ENOENT when absent,
 * -ELOOP on a cyclic list, -EIO when the header reads all ones.
 */
int pf_pci_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t id, unsigned int *ret_off);

struct pf_pci_acs {
	unsigned int offset; /* of the capability header */
	uint16_t cap;        /* PF_PCI_ACS_* features the port implements */
	uint16_t ctrl;       /* PF_PCI_ACS_* features enabled */
};

/* The ACS capability of @cfg; errors as pf_pci_find_ext_cap(). */
int pf_parse_pci_acs(const uint8_t *cfg, size_t len, struct pf_pci_acs *ret);
/*
 * lspci-style names of the bits set in an ACS control value
 * ("SrcValid,ReqRedir,CmpltRedir") into @buf; returns the length needed.
 */
size_t pf_pci_acs_ctrl_names(uint16_t ctrl, char *buf, size_t len);

/*
 * RDMA counters (src/parse/parse_ib_counters.c).
 */

/*
 * One counter file of /sys/class/infiniband/<dev>/ports/<n>/{counters,hw_counters}/:
 * a decimal value.  -EOPNOTSUPP for "N/A (no PMA)", -EINVAL for anything else.
 */
int pf_parse_ib_counter(const char *text, uint64_t *ret);

/* The change of a counter between two samples. */
struct pf_counter_delta {
	uint64_t delta;  /* increase (a lower bound when saturated or reset) */
	bool saturated;  /* the later sample sits at the counter's maximum */
	bool wrapped;    /* a wrapping counter passed its maximum once */
	bool reset;      /* the counter went back: cleared during the window */
};

/*
 * Compare two samples of a counter @width bits wide (1..64).  A saturating
 * counter (IB PMA error counters) sticks at 2^width-1; any other wraps
 * modulo 2^width (mlx5 Q counters are 32-bit).  -ERANGE when a sample does
 * not fit the width, -EINVAL for a bad width.
 */
int pf_counter_delta(uint64_t before, uint64_t after, unsigned int width, bool saturating,
		     struct pf_counter_delta *ret);

/*
 * GPU formats (src/parse/parse_gpu.c).
 */

/*
 * Split one kernel log line, a /dev/kmsg record ("4,1234,5678901,-;msg"), a
 * dmesg line ("[ 5.678901] msg") or a line with no boot-relative time, into
 * its time in seconds since boot (*ret_t, -1 when it has none) and its message.
 */
const char *pf_kmsg_message(const char *line, double *ret_t);

/* One NVIDIA Xid line of the kernel log: "NVRM: Xid (PCI:0000:1b:00): 79, pid=..., ...". */
struct pf_xid {
	char pci[16];     /* as printed after "PCI:", lower-case: "0000:1b:00" */
	unsigned int xid;
	double t_s;       /* seconds since boot from the line, -1 when it carries none */
	char text[160];   /* the rest of the message */
};

/*
 * Collect the Xid lines of a kernel log: /dev/kmsg records
 * ("4,1234,5678901,-;NVRM: Xid ..."), dmesg lines ("[ 5.678901] NVRM: Xid ...")
 * or lines without a boot-relative time (journalctl, dmesg -T).  Returns the
 * count (at most 4096) and the events in *ret (caller frees; NULL for none).
 */
int pf_parse_kmsg_xids(const char *text, struct pf_xid **ret, size_t *ret_n);
/* True if an Xid's PCI address ("0000:1b:00") names the function @bdf ("0000:1b:00.0"). */
bool pf_xid_matches_bdf(const char *pci, const char *bdf);
/* A short meaning of a common Xid, or NULL. */
const char *pf_xid_meaning(unsigned int xid);

/*
 * The "Physical Counters and BER Info" section of `mlxlink -d <dev> -c`
 * (NVIDIA MFT): "Effective Physical BER : 15E-255" (after FEC),
 * "Raw Physical BER : 3E-10" (before FEC), "Effective Physical Errors : 0".
 * A field shown "N/A" or absent is not had.
 */
struct pf_mlxlink_ber {
	bool has_eff, has_raw, has_eff_errors;
	double eff_ber, raw_ber;
	unsigned long long eff_errors;
};
/* 0 when at least one BER was read; -ENODATA when the text holds neither. */
int pf_parse_mlxlink_ber(const char *text, struct pf_mlxlink_ber *ret);

/*
 * The mlx5 driver's health messages of one PCI function in the kernel log
 * (drivers/net/ethernet/mellanox/mlx5/core/health.c, printed by
 * mlx5_core_err as "mlx5_core <bdf>: <function>:<line>:(pid <n>): <text>"):
 * "Fatal error <n> detected" (a fatal sensor: the firmware or the PCI link
 * stopped), "device's health compromised" (the firmware's health counter
 * stopped), the health buffer's "synd 0x<n>: <meaning>", and the recovery
 * flow's "starting health recovery flow", "health recovery failed" and
 * "health recovery flow aborted".
 */
struct pf_mlx5_health {
	char bdf[16];              /* "0000:3b:00.0", lower-case */
	unsigned int fatal, compromised, recoveries, recovery_failed;
	bool recovered;            /* the last event is a recovery that did not fail */
	double last_t;             /* seconds since boot of its last fatal event; -1 unknown */
	char what[96];             /* its last fatal event's text, with the syndrome when seen */
};

/*
 * The mlx5 health events of a kernel log, one entry per PCI function that
 * has any fatal event or recovery (at most 256).  Returns the count and the
 * entries in *ret (caller frees; NULL for none).
 */
int pf_parse_kmsg_mlx5(const char *text, struct pf_mlx5_health **ret, size_t *ret_n);

/* Major and minor of a kernel release ("6.8.0-45-generic"); -EINVAL if malformed. */
int pf_parse_kernel_release(const char *text, int *ret_major, int *ret_minor);
/*
 * The first line of /proc/driver/nvidia/version: the driver version
 * ("550.54.15") into @version and whether it is the open kernel module.
 * -EINVAL if it is not that line, -ERANGE if @len is too small.
 */
int pf_parse_nvidia_version(const char *text, char *version, size_t len, bool *ret_open);
/* Compare dotted numeric versions ("550.54.15" < "550.127"): <0, 0, >0. */
int pf_version_cmp(const char *a, const char *b);

/*
 * One firmware NV configuration parameter as `mstconfig -d <pci> -e q NAME`
 * (Debian's mstflint; NVIDIA's `mlxconfig` prints the same table) shows it:
 * a "Configurations:" header naming the columns (Default, Current, Next
 * Boot; without -e only Next Boot), then one row per parameter, "*" marking
 * a next-boot value that differs, "RO" a read-only one.  Values print as
 * "255", "True(1)", "0x8(8)" or "N/A" (unknown: has_* false).
 */
struct pf_nv_value {
	bool has_default, has_current, has_next;
	uint64_t def, cur, next;
};
/* 0, -ENOENT when @name has no row, -EINVAL without a header or for a malformed row. */
int pf_parse_mlxconfig_query(const char *text, const char *name, struct pf_nv_value *ret);

/*
 * A PCIe AER statistics file, /sys/bus/pci/devices/<bdf>/aer_dev_{correctable,
 * nonfatal,fatal} (src/parse/parse_aer.c): "NAME count" lines, one per error
 * the kernel names, and a "TOTAL_ERR_*" line.
 */
#define PF_AER_MAX_ERRS 40
#define PF_AER_NAME_MAX 24
struct pf_aer_stats {
	struct {
		char name[PF_AER_NAME_MAX]; /* "RxErr", "DLP", as the kernel spells it */
		uint64_t count;
	} err[PF_AER_MAX_ERRS];
	size_t n;
	uint64_t total;       /* the TOTAL_ERR_* line */
	bool has_total;
};
/*
 * 0; -EINVAL for a line that is not "NAME count" (or a second total),
 * -E2BIG for more than PF_AER_MAX_ERRS names, -ENODATA for an empty file.
 */
int pf_parse_aer_stats(const char *text, struct pf_aer_stats *ret);
/* The file's total: its TOTAL_ERR_* line, else the sum of its lines. */
uint64_t pf_aer_sum(const struct pf_aer_stats *s);

#endif
