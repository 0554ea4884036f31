// SPDX-License-Identifier: MIT
/*
 * fuzz_pci_config.c - the PCI config-space extended capability walker and ACS parser on arbitrary images.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/*
	 * The first two bytes pick the capability id to look for; the rest is
	 * the image, placed at offset 0x100 when short so that the walk
	 * reaches it (a real image starts with 256 bytes of conventional space).
	 */
	uint16_t id = size >= 2 ? (uint16_t)(data[0] | data[1] << 8) : 0;
	size_t len = size >= 2 ? size - 2 : 0;
	size_t img_len = len < PF_PCI_CFG_SPACE_SIZE ? PF_PCI_CFG_SPACE_SIZE + len : len;
	uint8_t *cfg;
	unsigned int off = 0;
	struct pf_pci_acs acs;
	char names[128], tiny[4];
	int r;

	if (img_len > PF_PCI_CFG_SPACE_EXP_SIZE * 2)
		img_len = PF_PCI_CFG_SPACE_EXP_SIZE * 2;
	cfg = calloc(1, img_len ? img_len : 1);
	if (!cfg)
		abort();
	if (len < PF_PCI_CFG_SPACE_SIZE)
		memcpy(cfg + PF_PCI_CFG_SPACE_SIZE, data + 2, len);
	else
		memcpy(cfg, data + 2, img_len);

	r = pf_pci_find_ext_cap(cfg, img_len, id, &off);
	PF_FUZZ_ASSERT(r == 0 || r == -ENODATA || r == -ENOENT || r == -ELOOP || r == -EIO);
	if (r == 0)
		PF_FUZZ_ASSERT(off >= PF_PCI_CFG_SPACE_SIZE && off + 4 <= img_len);
	/* the same bytes at their own length (a short, non-root read) */
	r = pf_pci_find_ext_cap(data, size, id, &off);
	PF_FUZZ_ASSERT(r == 0 || r == -ENODATA || r == -ENOENT || r == -ELOOP || r == -EIO);

	r = pf_parse_pci_acs(cfg, img_len, &acs);
	PF_FUZZ_ASSERT(r == 0 || r == -ENODATA || r == -ENOENT || r == -ELOOP || r == -EIO);
	if (r == 0) {
		size_t need = pf_pci_acs_ctrl_names(acs.ctrl, names, sizeof(names));

		PF_FUZZ_ASSERT(need < sizeof(names) && strlen(names) == need);
		memset(tiny, 'x', sizeof(tiny));
		pf_pci_acs_ctrl_names(acs.ctrl, tiny, 3);
		PF_FUZZ_ASSERT(tiny[3] == 'x' && pf_fuzz_terminated(tiny, 3));
	}
	free(cfg);
	return 0;
}
