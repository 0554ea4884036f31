/* SPDX-License-Identifier: MIT */
/*
 * devlink.h - NIC firmware and driver health through devlink (generic
 * netlink family "devlink", include/uapi/linux/devlink.h): the health
 * reporters (DEVLINK_CMD_HEALTH_REPORTER_GET; mlx5 has fw, fw_fatal, tx, rx,
 * drivers/net/ethernet/mellanox/mlx5/core/health.c) and the device info
 * (DEVLINK_CMD_INFO_GET: driver, fixed/running/stored versions).  The
 * provider hands over the kernel's reply bytes of a dump, live or as a
 * snapshot recorded them (preflight/devlink/{health,info}.nl), and the same
 * parsers read both (src/facts/devlink_nl.c).
 */
#ifndef PREFLIGHT_DEVLINK_H
#define PREFLIGHT_DEVLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pf_devlink_dump {
	PF_DEVLINK_HEALTH, /* DEVLINK_CMD_HEALTH_REPORTER_GET, every reporter of every device */
	PF_DEVLINK_INFO,   /* DEVLINK_CMD_INFO_GET, every device */
};

/* devlink's reporter states (enum devlink_health_reporter_state) */
#define PF_DEVLINK_STATE_HEALTHY 0
#define PF_DEVLINK_STATE_ERROR 1

struct pf_devlink_reporter {
	char bus[16];          /* "pci" */
	char dev[32];          /* "0000:1c:00.0" */
	char name[32];         /* "fw_fatal" */
	int state;             /* PF_DEVLINK_STATE_*, -1 not given */
	uint64_t errors, recovers;
};

struct pf_devlink_info {
	char bus[16], dev[32];
	char driver[32];       /* "mlx5_core" */
	char psid[64];         /* fixed "fw.psid", else "board.id"; "" none */
	char fw_running[64];   /* running "fw.version", else "fw"; "" none */
	char fw_stored[64];    /* stored "fw.version", else "fw"; "" none */
};

/*
 * Every message of a dump's reply bytes @buf: the reporters or the devices,
 * in *ret (caller frees; NULL for none) and their count in *ret_n.  A
 * netlink error in the reply is returned as its -errno; -EBADMSG for bytes
 * that are not netlink messages of that command.
 */
int pf_devlink_parse_health(const void *buf, size_t len, struct pf_devlink_reporter **ret,
			    size_t *ret_n);
int pf_devlink_parse_info(const void *buf, size_t len, struct pf_devlink_info **ret,
			  size_t *ret_n);

struct pf_ctx;
/* The providers' devlink_dump (preflight/providers.h): live, and from a snapshot. */
int pf_live_devlink_dump(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len);
int pf_recorded_devlink_dump(const struct pf_ctx *ctx, int what, void **ret_buf, size_t *ret_len);

#endif
