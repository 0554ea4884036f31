// SPDX-License-Identifier: MIT
/*
 * test_parse_pci_config.c - the PCIe extended capability walker and the ACS
 * parser, on config-space images built by hand.
 */
#include <errno.h>
#include <string.h>

#include "preflight/parse.h"
#include "testutil.h"

#define CAP_AER 0x0001
#define CAP_VNDR 0x000b

static uint8_t cfg[PF_PCI_CFG_SPACE_EXP_SIZE];

static void put32(unsigned int off, uint32_t v)
{
	cfg[off] = v & 0xff;
	cfg[off + 1] = (v >> 8) & 0xff;
	cfg[off + 2] = (v >> 16) & 0xff;
	cfg[off + 3] = (v >> 24) & 0xff;
}

static void put16(unsigned int off, uint16_t v)
{
	cfg[off] = v & 0xff;
	cfg[off + 1] = v >> 8;
}

/* An extended capability header: ID, version 1, next pointer. */
static void put_cap(unsigned int off, uint16_t id, unsigned int next)
{
	put32(off, id | 1u << 16 | (uint32_t)next << 20);
}

static int setup(void **state)
{
	memset(cfg, 0, sizeof(cfg));
	/* a bridge header in conventional space, to show it is not walked */
	put16(0x00, 0x10b5);
	put16(0x0a, 0x0604);
	return 0;
}

/* AER at 0x100 -> vendor-specific at 0x148 -> ACS at 0x160 -> end. */
static void build_chain(uint16_t acs_ctrl)
{
	put_cap(0x100, CAP_AER, 0x148);
	put_cap(0x148, CAP_VNDR, 0x160);
	put_cap(0x160, PF_PCI_EXT_CAP_ID_ACS, 0);
	put16(0x160 + PF_PCI_ACS_CAP, 0x005f);
	put16(0x160 + PF_PCI_ACS_CTRL, acs_ctrl);
}

static void test_find_in_chain(void **state)
{
	unsigned int off = 0;

	build_chain(0);
	assert_int_equal(pf_pci_find_ext_cap(cfg, sizeof(cfg), PF_PCI_EXT_CAP_ID_ACS, &off), 0);
	assert_int_equal(off, 0x160);
	assert_int_equal(pf_pci_find_ext_cap(cfg, sizeof(cfg), CAP_AER, &off), 0);
	assert_int_equal(off, 0x100);
	assert_int_equal(pf_pci_find_ext_cap(cfg, sizeof(cfg), CAP_VNDR, &off), 0);
	assert_int_equal(off, 0x148);
	assert_int_equal(pf_pci_find_ext_cap(cfg, sizeof(cfg), 0x0010 /* SR-IOV */, &off), -ENOENT);
}

static void test_acs_bits(void **state)
{
	struct pf_pci_acs acs;

	build_chain(PF_PCI_ACS_SV | PF_PCI_ACS_RR | PF_PCI_ACS_CR | PF_PCI_ACS_UF);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), 0);
	assert_int_equal(acs.offset, 0x160);
	assert_int_equal(acs.cap, 0x005f);
	assert_int_equal(acs.ctrl, 0x001d);
	assert_true(acs.ctrl & PF_PCI_ACS_RR);
	assert_true(acs.ctrl & PF_PCI_ACS_CR);
	assert_false(acs.ctrl & PF_PCI_ACS_EC);
}

static void test_acs_first_and_only(void **state)
{
	struct pf_pci_acs acs;

	put_cap(0x100, PF_PCI_EXT_CAP_ID_ACS, 0);
	put16(0x100 + PF_PCI_ACS_CTRL, PF_PCI_ACS_EC);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), 0);
	assert_int_equal(acs.offset, 0x100);
	assert_int_equal(acs.ctrl, PF_PCI_ACS_EC);
}

static void test_no_ext_caps(void **state)
{
	struct pf_pci_acs acs;

	/* header 0 at 0x100: no extended capabilities */
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -ENOENT);
	/* a list without ACS */
	put_cap(0x100, CAP_AER, 0);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -ENOENT);
}

static void test_short_images(void **state)
{
	struct pf_pci_acs acs;

	build_chain(PF_PCI_ACS_RR);
	/* what a non-root reader gets */
	assert_int_equal(pf_parse_pci_acs(cfg, 64, &acs), -ENODATA);
	/* a conventional PCI device */
	assert_int_equal(pf_parse_pci_acs(cfg, 256, &acs), -ENODATA);
	/* the chain points past the end of a truncated capture */
	assert_int_equal(pf_parse_pci_acs(cfg, 0x150, &acs), -ENODATA);
	/* the header fits but the control register does not */
	assert_int_equal(pf_parse_pci_acs(cfg, 0x166, &acs), -ENODATA);
	assert_int_equal(pf_parse_pci_acs(cfg, 0x168, &acs), 0);
	assert_int_equal(pf_pci_find_ext_cap(NULL, 0, PF_PCI_EXT_CAP_ID_ACS, NULL), -ENODATA);
}

static void test_loop(void **state)
{
	struct pf_pci_acs acs;

	put_cap(0x100, CAP_AER, 0x140);
	put_cap(0x140, CAP_VNDR, 0x100);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -ELOOP);
	/* a capability pointing at itself */
	put_cap(0x100, CAP_AER, 0x100);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -ELOOP);
}

static void test_bogus_pointers(void **state)
{
	struct pf_pci_acs acs;

	/* a next pointer into conventional space ends the walk */
	put_cap(0x100, CAP_AER, 0x40);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -ENOENT);
	/* the low two bits of the pointer are reserved: 0x163 means 0x160 */
	put32(0x100, CAP_AER | 1u << 16 | 0x163u << 20);
	put_cap(0x160, PF_PCI_EXT_CAP_ID_ACS, 0);
	put16(0x160 + PF_PCI_ACS_CTRL, PF_PCI_ACS_RR);
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), 0);
	assert_int_equal(acs.offset, 0x160);
	/* the last dword of config space is a valid header position */
	put_cap(0x100, CAP_AER, 0xffc);
	put_cap(0xffc, PF_PCI_EXT_CAP_ID_ACS, 0);
	assert_int_equal(pf_pci_find_ext_cap(cfg, sizeof(cfg), PF_PCI_EXT_CAP_ID_ACS, NULL), 0);
}

static void test_all_ones(void **state)
{
	struct pf_pci_acs acs;

	memset(cfg, 0xff, sizeof(cfg));
	assert_int_equal(pf_parse_pci_acs(cfg, sizeof(cfg), &acs), -EIO);
}

static void test_ctrl_names(void **state)
{
	char buf[96], tiny[8];

	assert_int_equal(pf_pci_acs_ctrl_names(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	pf_pci_acs_ctrl_names(0x001d, buf, sizeof(buf));
	assert_string_equal(buf, "SrcValid,ReqRedir,CmpltRedir,UpstreamFwd");
	pf_pci_acs_ctrl_names(0x007f, buf, sizeof(buf));
	assert_string_equal(buf, "SrcValid,TransBlk,ReqRedir,CmpltRedir,UpstreamFwd,EgressCtrl,"
			    "DirectTrans");
	/* truncation: NUL-terminated, returns the length needed */
	assert_int_equal(pf_pci_acs_ctrl_names(0x000c, tiny, sizeof(tiny)),
			 strlen("ReqRedir,CmpltRedir"));
	assert_string_equal(tiny, "ReqRedi");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_find_in_chain, setup),
		cmocka_unit_test_setup(test_acs_bits, setup),
		cmocka_unit_test_setup(test_acs_first_and_only, setup),
		cmocka_unit_test_setup(test_no_ext_caps, setup),
		cmocka_unit_test_setup(test_short_images, setup),
		cmocka_unit_test_setup(test_loop, setup),
		cmocka_unit_test_setup(test_bogus_pointers, setup),
		cmocka_unit_test_setup(test_all_ones, setup),
		cmocka_unit_test_setup(test_ctrl_names, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
