// SPDX-License-Identifier: MIT
/*
 * test_pci_path.c - the PCI path classifier: every class, PCI domains other
 * than 0000, multi-level switch trees, devices on root ports, odd paths, and
 * the class names, ranks and NCCL GPUDirect default; NCCL's fusing of
 * Broadcom two-level switches (pf_node_path_classify()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preflight/node.h"
#include "testutil.h"

#define RC "/sys/devices/pci0000:16"
/* A switch below root port 16:02.0: upstream 17:00.0, downstreams 18:10.0 and 18:14.0. */
#define SW RC "/0000:16:02.0/0000:17:00.0"

static enum pf_path_class cls(const char *a, int na, const char *b, int nb)
{
	enum pf_path_class c = PF_PATH_UNKNOWN, c2 = PF_PATH_UNKNOWN;

	assert_int_equal(pf_pci_path_classify(a, na, b, nb, &c), 0);
	/* symmetric */
	assert_int_equal(pf_pci_path_classify(b, nb, a, na, &c2), 0);
	assert_int_equal(c, c2);
	return c;
}

static void test_pix(void **state)
{
	(void)state;
	/* the interfaces.md example: GPU and NIC on two downstream ports of one switch */
	assert_int_equal(cls(SW "/0000:18:10.0/0000:1b:00.0", 0, SW "/0000:18:14.0/0000:1c:00.0", 0),
			 PF_PATH_PIX);
	/* same downstream port (a switch behind it would make it PXB; here two functions) */
	assert_int_equal(cls(SW "/0000:18:10.0/0000:1b:00.0", 0, SW "/0000:18:10.0/0000:1b:00.1", 0),
			 PF_PATH_PIX);
	/* NUMA does not matter below one host bridge */
	assert_int_equal(cls(SW "/0000:18:10.0/0000:1b:00.0", -1, SW "/0000:18:14.0/0000:1c:00.0", 3),
			 PF_PATH_PIX);
}

static void test_pxb(void **state)
{
	(void)state;
	/*
	 * DGX A100 style: a two-level switch.  Root port 16:02.0, top switch
	 * 17:00.0 (up) with downstreams 18:00.0 and 18:04.0, each leading to a
	 * second-level switch (19:00.0 / 1d:00.0) with GPU and NIC below.
	 */
	const char *gpu = SW "/0000:18:00.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0";
	const char *nic_same = SW "/0000:18:00.0/0000:19:00.0/0000:1a:04.0/0000:1c:00.0";
	const char *nic_other = SW "/0000:18:04.0/0000:1d:00.0/0000:1e:00.0/0000:1f:00.0";
	const char *nic_top = SW "/0000:18:08.0/0000:20:00.0";

	assert_int_equal(cls(gpu, 0, nic_same, 0), PF_PATH_PIX);
	assert_int_equal(cls(gpu, 0, nic_other, 0), PF_PATH_PXB);
	/* one side hangs off the top switch directly: two switches on the path */
	assert_int_equal(cls(gpu, 0, nic_top, 0), PF_PATH_PXB);
	assert_int_equal(cls(nic_top, 0, SW "/0000:18:0c.0/0000:21:00.0", 0), PF_PATH_PIX);
}

static void test_deep_tree(void **state)
{
	/* four switch levels below one root port */
	const char *base = "/sys/devices/pci0000:80/0000:80:01.0"
			   "/0000:81:00.0/0000:82:00.0"  /* switch 1 */
			   "/0000:83:00.0/0000:84:00.0"; /* switch 2 */
	char a[512], b[512], c[512], d[512];

	(void)state;
	/* switch 3 (85:00.0) with switch 4 (87:00.0) below one port */
	snprintf(a, sizeof(a), "%s/0000:85:00.0/0000:86:00.0/0000:87:00.0/0000:88:00.0/0000:89:00.0",
		 base);
	snprintf(b, sizeof(b), "%s/0000:85:00.0/0000:86:00.0/0000:87:00.0/0000:88:01.0/0000:8a:00.0",
		 base);
	snprintf(c, sizeof(c), "%s/0000:85:00.0/0000:86:04.0/0000:8b:00.0", base);
	snprintf(d, sizeof(d), "%s/0000:84:04.0/0000:8c:00.0", base);
	assert_int_equal(cls(a, 1, b, 1), PF_PATH_PIX);  /* siblings below switch 4 */
	assert_int_equal(cls(a, 1, c, 1), PF_PATH_PXB);  /* switch 4 + switch 3 */
	assert_int_equal(cls(a, 1, d, 1), PF_PATH_PXB);  /* 4, 3, 2 */
	assert_int_equal(cls(c, 1, d, 1), PF_PATH_PXB);
	/* a device on root port 80:03.0 of the same host bridge */
	assert_int_equal(cls(a, 1, "/sys/devices/pci0000:80/0000:80:03.0/0000:90:00.0", 1),
			 PF_PATH_PHB);
}

static void test_phb(void **state)
{
	(void)state;
	/* different root ports of one host bridge */
	assert_int_equal(cls(RC "/0000:16:02.0/0000:17:00.0", 0, RC "/0000:16:03.0/0000:18:00.0", 0),
			 PF_PATH_PHB);
	/* behind switches on different root ports: still the host bridge */
	assert_int_equal(cls(SW "/0000:18:10.0/0000:1b:00.0", 0,
			     RC "/0000:16:04.0/0000:30:00.0/0000:31:00.0/0000:32:00.0", 0),
			 PF_PATH_PHB);
	/* a device directly on the host bridge (integrated, bus 00) */
	assert_int_equal(cls("/sys/devices/pci0000:00/0000:00:1f.6", 0,
			     "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0),
			 PF_PATH_PHB);
	/* two functions directly on one root port: NCCL hangs both on the CPU */
	assert_int_equal(cls(RC "/0000:16:02.0/0000:17:00.0", 0, RC "/0000:16:02.0/0000:17:00.1", 0),
			 PF_PATH_PHB);
}

static void test_node_sys_unknown(void **state)
{
	const char *a = "/sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0";
	const char *b = "/sys/devices/pci0000:32/0000:32:02.0/0000:33:00.0";

	(void)state;
	assert_int_equal(cls(a, 0, b, 0), PF_PATH_NODE);
	assert_int_equal(cls(a, 0, b, 1), PF_PATH_SYS);
	assert_int_equal(cls(a, -1, b, 1), PF_PATH_UNKNOWN);
	assert_int_equal(cls(a, 0, b, -1), PF_PATH_UNKNOWN);
	assert_int_equal(cls(a, -1, b, -1), PF_PATH_UNKNOWN);
}

static void test_domains(void **state)
{
	(void)state;
	/* same bus numbers, different domains: different host bridges */
	assert_int_equal(cls("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0,
			     "/sys/devices/pci0001:00/0001:00:01.0/0001:01:00.0", 0),
			 PF_PATH_NODE);
	assert_int_equal(cls("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0,
			     "/sys/devices/pci0001:00/0001:00:01.0/0001:01:00.0", 8),
			 PF_PATH_SYS);
	/* POWER9 style domains, a switch in domain 0035 */
	assert_int_equal(cls("/sys/devices/pci0035:00/0035:00:00.0/0035:01:00.0/0035:02:04.0/0035:03:00.0", 0,
			     "/sys/devices/pci0035:00/0035:00:00.0/0035:01:00.0/0035:02:05.0/0035:04:00.0", 0),
			 PF_PATH_PIX);
	/* VMD: 5-digit domain, and upper-case hex compares equal */
	assert_int_equal(cls("/sys/devices/pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0/10000:e1:00.0/10000:e2:00.0/10000:e3:00.0", 0,
			     "/sys/devices/pci0000:00/0000:00:0e.0/pci10000:E0/10000:E0:06.0/10000:E1:00.0/10000:E2:01.0/10000:E4:00.0", 0),
			 PF_PATH_PIX);
}

static void test_odd_paths(void **state)
{
	enum pf_path_class c = PF_PATH_PIX;
	const char *ok = SW "/0000:18:10.0/0000:1b:00.0";

	(void)state;
	/* a path below the device (the infiniband/ directory) is cut at the device */
	assert_int_equal(cls(SW "/0000:18:14.0/0000:1c:00.0/infiniband/mlx5_0", 0, ok, 0),
			 PF_PATH_PIX);
	/* virtual buses above the host bridge (Hyper-V) */
	assert_int_equal(cls("/sys/devices/LNXSYSTM:00/VMBUS:00/abcd/pci7870:00/7870:00:00.0", 0,
			     "/sys/devices/LNXSYSTM:00/VMBUS:00/ef01/pci8a30:00/8a30:00:00.0", 0),
			 PF_PATH_NODE);
	/* no host bridge, no BDF, nothing */
	assert_int_equal(pf_pci_path_classify("/sys/bus/pci/devices/0000:1b:00.0", 0, ok, 0, &c),
			 -EINVAL);
	assert_int_equal(pf_pci_path_classify(ok, 0, "/sys/devices/pci0000:16", 0, &c), -EINVAL);
	assert_int_equal(pf_pci_path_classify(ok, 0, "", 0, &c), -EINVAL);
	assert_int_equal(pf_pci_path_classify(ok, 0, "/sys/devices/pci0000:16/0000:16:2.0", 0, &c),
			 -EINVAL);
	assert_int_equal(pf_pci_path_classify(ok, 0, "/sys/devices/pcixyz/0000:16:02.0", 0, &c),
			 -EINVAL);
	assert_int_equal(c, PF_PATH_PIX); /* untouched on error */
}

static void test_too_deep(void **state)
{
	char path[4096];
	size_t len;
	enum pf_path_class c;

	(void)state;
	len = (size_t)snprintf(path, sizeof(path), "/sys/devices/pci0000:00");
	for (int i = 0; i < 40; i++)
		len += (size_t)snprintf(path + len, sizeof(path) - len, "/0000:%02x:00.0", i);
	assert_int_equal(pf_pci_path_classify(path, 0, path, 0, &c), -E2BIG);
}

static void test_names(void **state)
{
	enum pf_path_class c;

	(void)state;
	assert_string_equal(pf_path_class_name(PF_PATH_PIX), "PIX");
	assert_string_equal(pf_path_class_name(PF_PATH_PXB), "PXB");
	assert_string_equal(pf_path_class_name(PF_PATH_PHB), "PHB");
	assert_string_equal(pf_path_class_name(PF_PATH_NODE), "NODE");
	assert_string_equal(pf_path_class_name(PF_PATH_SYS), "SYS");
	assert_string_equal(pf_path_class_name(PF_PATH_UNKNOWN), "UNKNOWN");
	assert_string_equal(pf_path_class_name((enum pf_path_class)42), "UNKNOWN");
	for (int i = PF_PATH_PIX; i <= PF_PATH_UNKNOWN; i++) {
		assert_int_equal(pf_path_class_from_name(pf_path_class_name(i), &c), 0);
		assert_int_equal(c, i);
	}
	assert_int_equal(pf_path_class_from_name("pxb", &c), 0);
	assert_int_equal(c, PF_PATH_PXB);
	assert_int_equal(pf_path_class_from_name("NVL", &c), -EINVAL);
	assert_int_equal(pf_path_class_from_name("", &c), -EINVAL);

	assert_true(pf_path_class_rank(PF_PATH_PIX) < pf_path_class_rank(PF_PATH_PXB));
	assert_true(pf_path_class_rank(PF_PATH_PXB) < pf_path_class_rank(PF_PATH_PHB));
	assert_true(pf_path_class_rank(PF_PATH_PHB) < pf_path_class_rank(PF_PATH_NODE));
	assert_true(pf_path_class_rank(PF_PATH_NODE) < pf_path_class_rank(PF_PATH_UNKNOWN));
	assert_true(pf_path_class_rank(PF_PATH_UNKNOWN) < pf_path_class_rank(PF_PATH_SYS));

	assert_true(pf_path_gdr_default(PF_PATH_PIX));
	assert_true(pf_path_gdr_default(PF_PATH_PXB));
	assert_false(pf_path_gdr_default(PF_PATH_PHB));
	assert_false(pf_path_gdr_default(PF_PATH_NODE));
	assert_false(pf_path_gdr_default(PF_PATH_SYS));
	assert_false(pf_path_gdr_default(PF_PATH_UNKNOWN));
}

/* Link bandwidth per direction: line encoding x 0.9 for TLP/DLLP overhead. */
static void test_link_gbps(void **state)
{
	(void)state;
	assert_float_equal(pf_pcie_link_gbps(2.5, 1), 2.5 * 0.8 * 0.9, 1e-9);
	assert_float_equal(pf_pcie_link_gbps(16, 16), 256 * 128.0 / 130 * 0.9, 1e-9);
	assert_float_equal(pf_pcie_link_gbps(64, 16), 1024 * 242.0 / 256 * 0.9, 1e-9);
	assert_float_equal(pf_pcie_link_gbps(0, 16), 0, 0);
	assert_float_equal(pf_pcie_link_gbps(32, 0), 0, 0);
}

/*
 * root port 0 -> switch up 1 (Gen4 x16) -> down 2 -> NIC 3 (dual port, Gen4 x16)
 *                                        -> down 4 -> NIC 5 (Gen4 x16)
 * root port 6 -> NIC 7 (Gen5 x16)
 */
static void test_share(void **state)
{
	struct pf_pci_dev pci[8] = { 0 };
	struct pf_node node = { .pci = pci, .n_pci = 8 };
	const int parent[8] = { -1, 0, 1, 2, 1, 4, -1, 6 };
	double cap4 = pf_pcie_link_gbps(16, 16);
	int link;

	(void)state;
	for (int i = 0; i < 8; i++) {
		pci[i].parent = parent[i];
		pci[i].cur_speed_gts = i >= 6 ? 32 : 16;
		pci[i].cur_width = 16;
	}
	{
		/* the two ports of NIC 3 at 200G each: its own x16 link is the limit */
		const int dev[] = { 3, 3 };
		const double want[] = { 200, 200 };

		assert_float_equal(pf_pcie_share(&node, dev, want, 2, 0, &link), cap4 / 400, 1e-9);
		assert_int_equal(link, 3);
	}
	{
		/* NIC 3 and NIC 5 at 200G each: the switch uplink (device 1) carries 226 */
		const int dev[] = { 3, 5, 7 };
		const double want[] = { 200, 200, 400 };

		assert_float_equal(pf_pcie_share(&node, dev, want, 3, 1, &link), cap4 / 400, 1e-9);
		assert_int_equal(link, 1);
		/* NIC 7 alone below its root port: room */
		assert_float_equal(pf_pcie_share(&node, dev, want, 3, 2, &link), 1, 0);
		assert_int_equal(link, -1);
	}
	{
		/* NIC 5 idle this round: NIC 3 alone fits */
		const int dev[] = { 3, 5 };
		const double want[] = { 200, 0 };

		assert_float_equal(pf_pcie_share(&node, dev, want, 2, 0, NULL), 1, 0);
	}
	/* unknown links and devices without a PCI function are not limits */
	pci[1].cur_width = 0;
	{
		const int dev[] = { 5, -1 };
		const double want[] = { 100, 400 };

		assert_float_equal(pf_pcie_share(&node, dev, want, 2, 0, NULL), 1, 0);
		assert_float_equal(pf_pcie_share(&node, dev, want, 2, 1, NULL), 1, 0);
	}
}

/* A switch bridge of the model with its IDs. */
static void bridge(struct pf_pci_dev *d, const char *bdf, uint16_t device, uint16_t sv, uint16_t sd)
{
	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	d->vendor = 0x1000;
	d->device = device;
	d->subsys_vendor = sv;
	d->subsys_device = sd;
	d->class = 0x060400;
}

/* pf_node_path_classify() both ways round, with the model's switch IDs. */
static enum pf_path_class node_cls(const struct pf_node *node, const char *a, const char *b)
{
	struct pf_pci_dev da = { .path = (char *)a }, db = { .path = (char *)b };
	enum pf_path_class c = PF_PATH_UNKNOWN, c2 = PF_PATH_UNKNOWN;

	assert_int_equal(pf_node_path_classify(node, &da, 0, &db, 0, &c), 0);
	assert_int_equal(pf_node_path_classify(node, &db, 0, &da, 0, &c2), 0);
	assert_int_equal(c, c2);
	return c;
}

/*
 * NCCL's ncclTopoFlattenBcmSwitches(): a Broadcom switch's second level is
 * fused into its first when getBcmGen() gives both the same generation.
 * The DGX A100 shape of test_pxb: top 17:00.0, sub-switches 19:00.0 and
 * 1d:00.0, a third level 22:00.0 below 1d:00.0.
 */
static void test_bcm_fused(void **state)
{
	const char *gpu = SW "/0000:18:00.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0";
	const char *nic_other = SW "/0000:18:04.0/0000:1d:00.0/0000:1e:00.0/0000:1f:00.0";
	const char *nic_top = SW "/0000:18:08.0/0000:20:00.0";
	const char *nic_deep = SW "/0000:18:04.0/0000:1d:00.0/0000:1e:04.0/0000:22:00.0"
			       "/0000:23:00.0/0000:24:00.0";
	struct pf_pci_dev pci[4] = { 0 };
	struct pf_node node = { .pci = pci, .n_pci = 4 };
	struct pf_pci_dev nobody = { .path = NULL }, gpu_dev = { .path = (char *)gpu };
	enum pf_path_class c;

	(void)state;
	/* PEX88000: 1000:c010, subsystem 1000:a0xx at both levels */
	bridge(&pci[0], "0000:17:00.0", 0xc010, 0x1000, 0xa064);
	bridge(&pci[1], "0000:19:00.0", 0xc010, 0x1000, 0xa064);
	bridge(&pci[2], "0000:1d:00.0", 0xc010, 0x1000, 0xa064);
	bridge(&pci[3], "0000:22:00.0", 0xc010, 0x1000, 0xa064);
	assert_int_equal(pf_pci_bcm_gen(&pci[0], 0), 4);
	assert_int_equal(pf_pci_bcm_gen(&pci[1], 1), 4);
	assert_int_equal(node_cls(&node, gpu, nic_other), PF_PATH_PIX);
	assert_int_equal(node_cls(&node, gpu, nic_top), PF_PATH_PIX);
	/* sysfs alone, and without the model, still counts two switches */
	assert_int_equal(cls(gpu, 0, nic_other, 0), PF_PATH_PXB);
	assert_int_equal(node_cls(NULL, gpu, nic_other), PF_PATH_PXB);
	/* the fused switch is not fused again: a third level is a switch of its own */
	assert_int_equal(node_cls(&node, gpu, nic_deep), PF_PATH_PXB);
	assert_int_equal(node_cls(&node, nic_other, nic_deep), PF_PATH_PXB);

	/* PEX89000 base mode: 1000:c030, subsystem 1000:0xxx on top, 1000:1xxx below */
	bridge(&pci[0], "0000:17:00.0", 0xc030, 0x1000, 0x0000);
	bridge(&pci[1], "0000:19:00.0", 0xc030, 0x1000, 0x1000);
	bridge(&pci[2], "0000:1d:00.0", 0xc030, 0x1000, 0x1000);
	assert_int_equal(pf_pci_bcm_gen(&pci[0], 0), 5);
	assert_int_equal(pf_pci_bcm_gen(&pci[1], 0), 0);
	assert_int_equal(node_cls(&node, gpu, nic_other), PF_PATH_PIX);
	/* a lower level that reads as a top level (subsystem 1000:0000) is not fused */
	pci[2].subsys_device = 0x0000;
	assert_int_equal(node_cls(&node, gpu, nic_other), PF_PATH_PXB);
	/* generations do not mix: a PEX88000 below a PEX89000 */
	bridge(&pci[2], "0000:1d:00.0", 0xc010, 0x1000, 0xa064);
	assert_int_equal(node_cls(&node, gpu, nic_other), PF_PATH_PXB);
	/* another vendor's subsystem, or none read: not Broadcom's base mode */
	bridge(&pci[0], "0000:17:00.0", 0xc010, 0x10de, 0xa064);
	assert_int_equal(pf_pci_bcm_gen(&pci[0], 0), 0);
	bridge(&pci[0], "0000:17:00.0", 0xc010, 0, 0);
	assert_int_equal(pf_pci_bcm_gen(&pci[0], 0), 0);
	/* a switch missing from the model is not fused */
	bridge(&pci[0], "0000:17:00.0", 0xc010, 0x1000, 0xa064);
	bridge(&pci[1], "0000:99:00.0", 0xc010, 0x1000, 0xa064);
	bridge(&pci[2], "0000:1d:00.0", 0xc010, 0x1000, 0xa064);
	assert_int_equal(node_cls(&node, gpu, nic_other), PF_PATH_PXB);
	/* a function without a path */
	assert_int_equal(pf_node_path_classify(&node, &gpu_dev, 0, &nobody, 0, &c), -EINVAL);
}

/*
 * Issue 31 item 9: only the links a flow's buffers cross.  NIC 3 and NIC 5
 * at 200G behind switch 1, each moving the memory of a GPU behind the same
 * switch (the path turns at 1): the uplink is not crossed, so no share; the
 * same flows from host memory share the uplink; one rail of each kind: the
 * host-memory one alone crosses it and fits.
 */
static void test_share_to(void **state)
{
	struct pf_pci_dev pci[8] = { 0 };
	struct pf_node node = { .pci = pci, .n_pci = 8 };
	const int parent[8] = { -1, 0, 1, 2, 1, 4, 1, 6 };
	const int dev[] = { 3, 5 };
	const double want[] = { 200, 200 };
	double cap4 = pf_pcie_link_gbps(16, 16);
	int link;

	(void)state;
	for (int i = 0; i < 8; i++) {
		pci[i].parent = parent[i];
		pci[i].cur_speed_gts = 16;
		pci[i].cur_width = 16;
	}
	/* GPU 7 below down port 6 of switch 1: NIC 3 and GPU 7 meet at 1 */
	assert_int_equal(pf_pcie_common_above(&node, 3, 7), 1);
	assert_int_equal(pf_pcie_common_above(&node, 3, 5), 1);
	assert_int_equal(pf_pcie_common_above(&node, 3, -1), -1);
	{
		const int gpu[] = { 1, 1 }, host[] = { -1, -1 }, mixed[] = { 1, -1 };

		assert_float_equal(pf_pcie_share_to(&node, dev, gpu, want, 2, 0, &link), 1, 0);
		assert_int_equal(link, -1);
		assert_float_equal(pf_pcie_share_to(&node, dev, host, want, 2, 0, &link),
				   cap4 / 400, 1e-9);
		assert_int_equal(link, 1);
		assert_float_equal(pf_pcie_share_to(&node, dev, mixed, want, 2, 1, &link), 1, 0);
		assert_float_equal(pf_pcie_share_to(&node, dev, NULL, want, 2, 0, NULL),
				   pf_pcie_share(&node, dev, want, 2, 0, NULL), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pix),
		cmocka_unit_test(test_pxb),
		cmocka_unit_test(test_bcm_fused),
		cmocka_unit_test(test_deep_tree),
		cmocka_unit_test(test_phb),
		cmocka_unit_test(test_node_sys_unknown),
		cmocka_unit_test(test_share_to),
		cmocka_unit_test(test_domains),
		cmocka_unit_test(test_odd_paths),
		cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_link_gbps),
		cmocka_unit_test(test_share),
	};

	return cmocka_run_group_tests_name("pci_path", tests, NULL, NULL);
}
