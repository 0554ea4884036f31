// SPDX-License-Identifier: MIT
/*
 * parse_pci_config.c - PCI configuration space images, as read from
 * /sys/bus/pci/devices/<bdf>/config: the PCI Express extended capability
 * list (offset 0x100 onwards) and the ACS capability found on it.
 *
 * Pure functions over a byte buffer.  The buffer is whatever the file gave:
 * 64 bytes for a reader without CAP_SYS_ADMIN, 256 for a conventional PCI
 * device, 4096 for PCI Express read as root.  Multi-byte registers are
 * little-endian.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preflight/macro.h"
#include "preflight/parse.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

int pf_pci_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t id, unsigned int *ret_off)
{
	/* One bit per dword of extended space: a visited header means a loop. */
	uint64_t seen[(PF_PCI_CFG_SPACE_EXP_SIZE - PF_PCI_CFG_SPACE_SIZE) / 4 / 64] = { 0 };
	unsigned int pos = PF_PCI_CFG_SPACE_SIZE;
	uint32_t header;

	if (!cfg || len < PF_PCI_CFG_SPACE_SIZE + 4)
		return -ENODATA;
	header = le32(cfg + pos);
	if (header == 0)
		return -ENOENT;     /* no extended capabilities at all */
	if (header == UINT32_MAX)
		return -EIO;        /* all ones: the device did not answer */

	for (;;) {
		unsigned int slot = (pos - PF_PCI_CFG_SPACE_SIZE) / 4;

		if (seen[slot / 64] & (UINT64_C(1) << (slot % 64)))
			return -ELOOP;
		seen[slot / 64] |= UINT64_C(1) << (slot % 64);

		if (PF_PCI_EXT_CAP_ID(header) == id) {
			if (ret_off)
				*ret_off = pos;
			return 0;
		}
		pos = PF_PCI_EXT_CAP_NEXT(header);
		if (pos < PF_PCI_CFG_SPACE_SIZE)
			return -ENOENT; /* 0 ends the list; anything else below 0x100 is bogus too */
		if (pos + 4 > len)
			return -ENODATA;
		header = le32(cfg + pos);
	}
}

int pf_parse_pci_acs(const uint8_t *cfg, size_t len, struct pf_pci_acs *ret)
{
	unsigned int off;
	int r;

	r = pf_pci_find_ext_cap(cfg, len, PF_PCI_EXT_CAP_ID_ACS, &off);
	if (r < 0)
		return r;
	if (off + PF_PCI_ACS_CTRL + 2 > len)
		return -ENODATA;
	*ret = (struct pf_pci_acs){
		.offset = off,
		.cap = le16(cfg + off + PF_PCI_ACS_CAP),
		.ctrl = le16(cfg + off + PF_PCI_ACS_CTRL),
	};
	return 0;
}

size_t pf_pci_acs_ctrl_names(uint16_t ctrl, char *buf, size_t len)
{
	static const struct {
		uint16_t bit;
		const char *name;
	} bits[] = {
		{ PF_PCI_ACS_SV, "SrcValid" },   { PF_PCI_ACS_TB, "TransBlk" },
		{ PF_PCI_ACS_RR, "ReqRedir" },   { PF_PCI_ACS_CR, "CmpltRedir" },
		{ PF_PCI_ACS_UF, "UpstreamFwd" }, { PF_PCI_ACS_EC, "EgressCtrl" },
		{ PF_PCI_ACS_DT, "DirectTrans" },
	};
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < PF_ARRAY_SIZE(bits); i++) {
		const char *sep = n ? "," : "";

		if (!(ctrl & bits[i].bit))
			continue;
		if (n < len)
			snprintf(buf + n, len - n, "%s%s", sep, bits[i].name);
		n += strlen(sep) + strlen(bits[i].name);
	}
	return n;
}
