/* SPDX-License-Identifier: MIT */
/*
 * link_facts.h - the link-health facts over ethtool netlink
 * (src/facts/ethtool_link_nl.c): FEC block counters (ETHTOOL_MSG_FEC_GET
 * with ETHTOOL_FLAG_STATS, kernel >= 5.13) and module EEPROM pages
 * (ETHTOOL_MSG_MODULE_EEPROM_GET, kernel >= 5.13), as the kernel's uapi
 * include/uapi/linux/ethtool_netlink.h defines them.  The parsers take one
 * reply as recv(2) gave it, so a recorded reply and a live one go through
 * the same code; an NLMSG_ERROR reply gives the kernel's error
 * (-EOPNOTSUPP: the driver lacks get_fec_stats or get_module_eeprom_by_page,
 * as veth and virtio-net do).  The decoded types are preflight/optics.h.
 */
#ifndef PREFLIGHT_LINK_FACTS_H
#define PREFLIGHT_LINK_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "preflight/check.h"
#include "preflight/optics.h"

struct pf_ethtool_ops;

/* An ETHTOOL_MSG_FEC_GET_REPLY: active mode and the counters present. */
int pf_ethtool_parse_fec(const void *buf, size_t len, struct pf_fec *ret);
/*
 * An ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY: its data copied into @data (at
 * most @max bytes), the count in *ret_len.  -EBADMSG without data.
 */
int pf_ethtool_parse_module_eeprom(const void *buf, size_t len, uint8_t *data, size_t max,
				   size_t *ret_len);

/* One module EEPROM read: 128 bytes at @offset (0 lower, 128 upper) of @page, @bank. */
struct pf_eeprom_ask {
	uint8_t page, bank, i2c_address; /* 0x50 for SFF-8636 and CMIS */
	uint32_t offset, length;
};

/* What a link_nl provider is asked: FEC statistics (sample 0 or 1) or one EEPROM read. */
enum pf_link_kind { PF_LINK_FEC, PF_LINK_EEPROM };
struct pf_link_ask {
	enum pf_link_kind kind;
	const char *ifname;
	unsigned int sample;            /* PF_LINK_FEC: 0 first, 1 after the window */
	struct pf_eeprom_ask eeprom;    /* PF_LINK_EEPROM */
};

/*
 * The link_nl providers (ctx->prov->link_nl): the kernel's raw reply
 * (live), or the reply a snapshot recorded (preflight/ethtool/<if>/fec.nl,
 * fec.after.nl, module/<page>.nl; src/facts/link_facts.c), -ENOENT when none
 * was.  An NLMSG_ERROR reply is an answer too ("not supported"): the
 * parsers return it.
 */
int pf_live_link_nl(const struct pf_ctx *ctx, const struct pf_link_ask *ask, void **ret_buf,
		    size_t *ret_len);
int pf_recorded_link_nl(const struct pf_ctx *ctx, const struct pf_link_ask *ask,
			void **ret_buf, size_t *ret_len);
/* The snapshot's name of @ask's reply, relative to the root ("preflight/..."); malloc'd. */
char *pf_link_nl_path(const struct pf_link_ask *ask);

/* ctx->prov->link_nl and the parser: FEC counters of @ifname, sample @sample. */
int pf_link_fec(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
		struct pf_fec *ret);
/*
 * The module of @ifname decoded: lower page 00h, then the upper pages its
 * family needs (none on flat memory); an upper page the driver or the
 * snapshot lacks leaves its monitors unset.  -EOPNOTSUPP without a module
 * EEPROM (the kernel's answer) or for a family not decoded.
 */
int pf_link_optic(const struct pf_ctx *ctx, const char *ifname, struct pf_optic *ret);

/* Socket I/O (live): the raw reply of each request, for the parsers above. */
int pf_ethtool_fec_request(const struct pf_ethtool_ops *ops, const char *ifname,
			   void **ret_buf, size_t *ret_len);
int pf_ethtool_eeprom_request(const char *ifname, const struct pf_eeprom_ask *ask,
			      void **ret_buf, size_t *ret_len);

#endif
