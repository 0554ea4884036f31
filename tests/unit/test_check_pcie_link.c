// SPDX-License-Identifier: MIT
/*
 * test_check_pcie_link.c - the pcie_link check on hand-built inventories:
 * link speed and width against the maximum (GPU at x8, at Gen3, idle at
 * 2.5 GT/s, held down by its slot, a degraded NIC, unknown values), and ACS
 * on the bridges between a GPU and its NIC from config-space files written
 * into a temporary root (redirect on, off, absent, 64-byte non-root images).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preflight/node.h"
#include "preflight/parse.h"
#include "registry.h"
#include "testutil.h"

/*
 * root port 0000:00:01.0
 *   switch upstream 0000:01:00.0
 *     downstream 0000:02:00.0 -> GPU 0000:03:00.0
 *     downstream 0000:02:01.0 -> NIC 0000:04:00.0 (mlx5_0)
 * root port 0000:00:02.0 -> GPU 0000:05:00.0 (no NIC below it)
 */
enum { RP, USP, DSP0, DSP1, GPU0, NIC0, RP2, GPU1, N_PCI };

struct tnode {
	struct pf_node node;
	struct pf_pci_dev pci[N_PCI];
	struct pf_gpu gpus[2];
	struct pf_rdma_dev rdma[1];
};

static void set_pci(struct tnode *t, int i, const char *bdf, int parent, uint16_t vendor,
		    uint32_t class, double gts, int width)
{
	struct pf_pci_dev *d = &t->pci[i];

	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	d->parent = parent;
	d->vendor = vendor;
	d->class = class;
	d->numa_node = 0;
	d->cur_speed_gts = d->max_speed_gts = gts;
	d->cur_width = d->max_width = width;
}

/* A healthy Gen5 node; tests then break one thing. */
static void build(struct tnode *t)
{
	static char mlx5_0[] = "mlx5_0";

	memset(t, 0, sizeof(*t));
	set_pci(t, RP, "0000:00:01.0", -1, 0x8086, 0x060400, 32, 16);
	set_pci(t, USP, "0000:01:00.0", RP, 0x1000, 0x060400, 32, 16);
	set_pci(t, DSP0, "0000:02:00.0", USP, 0x1000, 0x060400, 32, 16);
	set_pci(t, DSP1, "0000:02:01.0", USP, 0x1000, 0x060400, 32, 16);
	set_pci(t, GPU0, "0000:03:00.0", DSP0, PF_PCI_VENDOR_NVIDIA, 0x030200, 32, 16);
	set_pci(t, NIC0, "0000:04:00.0", DSP1, PF_PCI_VENDOR_MELLANOX, 0x020700, 32, 16);
	set_pci(t, RP2, "0000:00:02.0", -1, 0x8086, 0x060400, 32, 16);
	set_pci(t, GPU1, "0000:05:00.0", RP2, PF_PCI_VENDOR_NVIDIA, 0x030200, 32, 16);
	t->gpus[0].pci = GPU0;
	t->gpus[1].pci = GPU1;
	t->rdma[0] = (struct pf_rdma_dev){ .name = mlx5_0, .pci = NIC0 };
	t->node = (struct pf_node){
		.source = "sysfs",
		.pci = t->pci, .n_pci = N_PCI,
		.gpus = t->gpus, .n_gpus = 2,
		.rdma = t->rdma, .n_rdma = 1,
	};
}

static void run_pcie(const char *root, struct pf_node *node, const char *const *sets,
		     struct pf_result *res)
{
	pf_test_run_check_node("pcie_link", root, NULL, node, sets, res);
}

static const char *const no_acs[] = { "pcie_link.check_acs=false", NULL };

static void test_healthy(void **state)
{
	struct tnode t;
	struct pf_result res;

	build(&t);
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 4); /* 3 links, iommu (skip: no groups recorded) */
	assert_int_equal(pf_test_must_find(&res, "iommu")->status, PF_STATUS_SKIP);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0")->status, PF_STATUS_PASS);
	pf_test_assert_contains(pf_test_must_find(&res, "0000:03:00.0")->message,
				"32 GT/s (Gen5) x16");
	pf_result_release(&res);
}

static void test_gpu_x8(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	t.pci[GPU0].cur_width = 8;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "GPU 0000:03:00.0");
	pf_test_assert_contains(f->message, "x8");
	pf_test_assert_contains(f->message, "max 32 GT/s (Gen5) x16");
	assert_non_null(f->remedy);
	assert_int_equal(cJSON_GetObjectItem(f->observed, "width")->valueint, 8);
	assert_int_equal(cJSON_GetObjectItem(f->expected, "width")->valueint, 16);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static const char *const strict_idle[] = { "pcie_link.check_acs=false",
					   "pcie_link.gpu_idle_gts=0", NULL };

static void test_gpu_gen3(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	t.pci[GPU1].cur_speed_gts = 8;
	t.pci[RP2].cur_speed_gts = 8; /* both ends of a link report it */
	/* a GPU just off a job may idle at Gen3/Gen4: full width, load unknown: a warn */
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_WARN);
	pf_result_release(&res);
	run_pcie(*state, &t.node, strict_idle, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "0000:05:00.0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "8 GT/s (Gen3) x16");
	pf_test_assert_contains(f->message, "max 32 GT/s (Gen5)");
	assert_int_equal(cJSON_GetObjectItem(f->observed, "gen")->valueint, 3);
	pf_result_release(&res);
}

static void test_gpu_idle(void **state)
{
	static const char *const strict[] = { "pcie_link.check_acs=false",
					      "pcie_link.gpu_idle_gts=0", NULL };
	struct tnode t;
	struct pf_result res;

	build(&t);
	t.pci[GPU0].cur_speed_gts = 2.5;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "0000:03:00.0")->message, "idle");
	pf_result_release(&res);

	run_pcie(*state, &t.node, strict, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* the idle allowance is for full width only, and for GPUs only */
	t.pci[GPU0].cur_width = 8;
	t.pci[NIC0].cur_speed_gts = 2.5;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
}

static void test_nic_degraded(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	t.pci[NIC0].cur_width = 4;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "NIC mlx5_0 (0000:04:00.0)");
	pf_test_assert_contains(f->message, "x4");
	pf_test_assert_contains(f->remedy, "reseat");
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_slot_limited(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	/* a Gen5 GPU behind a Gen4 port that trains to Gen4: the slot limits it */
	t.pci[DSP0].max_speed_gts = t.pci[DSP0].cur_speed_gts = 16;
	t.pci[GPU0].cur_speed_gts = 16;
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "upstream port 0000:02:00.0");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "upstream_port")->valuestring,
			    "0000:02:00.0");
	pf_result_release(&res);

	/* below even what the port supports: a warn (may idle), a fail without the allowance */
	t.pci[GPU0].cur_speed_gts = 8;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_WARN);
	pf_result_release(&res);
	run_pcie(*state, &t.node, strict_idle, &res);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "max 16 GT/s (Gen4)");
	pf_result_release(&res);
}

static void test_unknown(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	t.pci[GPU0].cur_speed_gts = 0;
	/* a snapshot without the file: not captured, nothing to judge */
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "the snapshot has no current_link_speed");
	pf_result_release(&res);

	/* the kernel printed "Unknown": the link is down or the device asleep */
	pf_test_write(*state, "sys/bus/pci/devices/0000:03:00.0/current_link_speed", "Unknown\n");
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	pf_test_assert_contains(f->message, "current_link_speed read \"Unknown\"");
	pf_test_assert_contains(f->remedy, "D3cold");
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);

	/* an SR-IOV virtual function: its link is the physical function's */
	pf_test_write(*state, "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/"
		      "0000:03:00.0/vendor", "0x10de\n");
	pf_test_symlink(*state, "sys/bus/pci/devices/0000:03:00.0/physfn",
			"../../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/"
			"0000:02:00.0/0000:03:00.0");
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "0000:03:00.0");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "virtual function");
	pf_test_assert_contains(f->message, "physical function 0000:03:00.0");
	pf_result_release(&res);

	/* from an hwloc export the values are simply not recorded: skip */
	t.node.source = "hwloc";
	t.node.lacks = PF_NODE_NO_PORT_RATES | PF_NODE_NO_PORT_LIST | PF_NODE_NO_PORT_COUNTERS |
		       PF_NODE_NO_LINK_ATTRS | PF_NODE_NO_IOMMU; /* as node_hwloc.c says */
	t.pci[NIC0].max_width = 0;
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "links");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "topology export");
	pf_test_assert_contains(f->message, "2 of 3 GPUs and NICs");
	assert_null(pf_test_finding(&res, "0000:03:00.0"));
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_PASS);
	pf_test_assert_contains(pf_test_must_find(&res, "iommu")->message, "topology export");
	assert_int_equal(res.n_findings, 3);
	pf_result_release(&res);
}

static void test_ignore_and_empty(void **state)
{
	static const char *const ign[] = { "pcie_link.check_acs=false",
					   "pcie_link.ignore=mlx5_0, 0000:05:00.0", NULL };
	struct tnode t;
	struct pf_result res;

	build(&t);
	t.pci[NIC0].cur_width = 4;
	t.pci[GPU1].cur_width = 4;
	run_pcie(*state, &t.node, ign, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0")->status, PF_STATUS_SKIP);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_SKIP);
	pf_result_release(&res);

	t.node.n_gpus = 0;
	t.node.n_rdma = 0;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);

	run_pcie(*state, NULL, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);
}

/*
 * ACS
 */

static void write_bin(const char *dir, const char *rel, const uint8_t *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;

	pf_test_write(dir, rel, ""); /* creates the parents */
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void put32(uint8_t *cfg, unsigned int off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		cfg[off + i] = (v >> (8 * i)) & 0xff;
}

/* A 4 KiB config image: AER at 0x100, then ACS at 0x148 with @ctrl (or no ACS). */
static void write_config(const char *root, const char *bdf, bool acs, uint16_t ctrl, size_t len)
{
	uint8_t cfg[PF_PCI_CFG_SPACE_EXP_SIZE] = { 0 };
	char rel[128];

	cfg[0] = 0xb5;
	cfg[1] = 0x10;
	cfg[0x0a] = 0x04;
	cfg[0x0b] = 0x06;
	put32(cfg, 0x100, 0x0001 | 1u << 16 | (acs ? 0x148u : 0) << 20);
	if (acs) {
		put32(cfg, 0x148, PF_PCI_EXT_CAP_ID_ACS | 1u << 16);
		put32(cfg, 0x148 + PF_PCI_ACS_CAP, 0x005f | (uint32_t)ctrl << 16);
	}
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/config", bdf);
	write_bin(root, rel, cfg, len);
}

static const char *const acs_on[] = { NULL };

static void test_acs_redirect(void **state)
{
	const char *root = *state;
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	write_config(root, "0000:02:00.0", true, PF_PCI_ACS_SV | PF_PCI_ACS_RR | PF_PCI_ACS_CR |
		     PF_PCI_ACS_UF, 4096);
	write_config(root, "0000:01:00.0", false, 0, 4096);
	write_config(root, "0000:02:01.0", true, PF_PCI_ACS_SV, 4096);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, "0000:02:00.0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "ReqRedir,CmpltRedir");
	pf_test_assert_contains(f->message, "GPU 0000:03:00.0 and mlx5_0");
	pf_test_assert_contains(f->remedy, "setpci -s 0000:02:00.0 ECAP_ACS+0x6.w=0000");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "acs_ctrl")->valuestring, "0x001d");
	f = pf_test_must_find(&res, "0000:01:00.0");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "no ACS capability");
	f = pf_test_must_find(&res, "0000:02:01.0");
	assert_int_equal(f->status, PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "SrcValid");
	/* the root port above the common switch is not on the GPU-NIC path */
	assert_null(pf_test_finding(&res, "0000:00:01.0"));
	/* GPU1 has no NIC below its root port: nothing to check for it */
	assert_null(pf_test_finding(&res, "0000:00:02.0"));
	pf_result_release(&res);

	/* egress control redirects too */
	write_config(root, "0000:02:00.0", true, PF_PCI_ACS_EC, 4096);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:02:00.0")->status, PF_STATUS_WARN);
	pf_result_release(&res);

	/* redirect off everywhere: pass */
	write_config(root, "0000:02:00.0", true, PF_PCI_ACS_SV, 4096);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
}

static void test_acs_not_root(void **state)
{
	const char *root = *state;
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	/* a capture made without root holds 64 bytes of each config file */
	build(&t);
	write_config(root, "0000:02:00.0", true, PF_PCI_ACS_RR, 64);
	write_config(root, "0000:01:00.0", true, PF_PCI_ACS_RR, 64);
	write_config(root, "0000:02:01.0", true, PF_PCI_ACS_RR, 64);
	run_pcie(root, &t.node, acs_on, &res);
	f = pf_test_must_find(&res, "acs");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "3 of 3 bridges");
	pf_test_assert_contains(f->message, "holds 64 bytes");
	pf_test_assert_contains(f->message, "needs root");
	assert_null(pf_test_finding(&res, "0000:02:00.0"));
	assert_int_equal(res.status, PF_STATUS_PASS); /* links pass, ACS unknown */
	pf_result_release(&res);

	/* one bridge readable: judged; the others noted once */
	write_config(root, "0000:02:00.0", true, PF_PCI_ACS_RR, 4096);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:02:00.0")->status, PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "acs")->message, "2 of 3 bridges");
	pf_result_release(&res);

	/* no config files at all (e.g. a partial capture) */
	pf_test_rmtree(root);
	assert_int_equal(mkdir(root, 0700), 0);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "acs")->status, PF_STATUS_SKIP);
	pf_test_assert_contains(pf_test_must_find(&res, "acs")->message,
				"3 of 3 bridges (0000:02:00.0, ...): no config file");
	pf_result_release(&res);
}

static void test_acs_malformed(void **state)
{
	const char *root = *state;
	uint8_t cfg[4096] = { 0 };
	struct tnode t;
	struct pf_result res;

	build(&t);
	put32(cfg, 0x100, 0x0001 | 1u << 16 | 0x100u << 20); /* points at itself */
	write_bin(root, "sys/bus/pci/devices/0000:02:00.0/config", cfg, sizeof(cfg));
	write_config(root, "0000:01:00.0", false, 0, 4096);
	write_config(root, "0000:02:01.0", false, 0, 4096);
	run_pcie(root, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:02:00.0")->status, PF_STATUS_ERROR);
	pf_test_assert_contains(pf_test_must_find(&res, "0000:02:00.0")->message, "malformed");
	pf_result_release(&res);
}

static void test_acs_not_applicable(void **state)
{
	struct tnode t;
	struct pf_result res;

	/* the NIC moves under GPU1's root port's sibling: no shared bridge */
	build(&t);
	t.gpus[0].pci = GPU1;
	t.node.n_gpus = 1;
	run_pcie(*state, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "acs")->status, PF_STATUS_SKIP);
	pf_test_assert_contains(pf_test_must_find(&res, "acs")->message, "host bridge");
	pf_result_release(&res);

	build(&t);
	t.node.n_rdma = 0;
	run_pcie(*state, &t.node, acs_on, &res);
	assert_int_equal(pf_test_must_find(&res, "acs")->status, PF_STATUS_SKIP);
	pf_test_assert_contains(pf_test_must_find(&res, "acs")->message, "no RDMA NIC");
	pf_result_release(&res);
}

/*
 * Not root on the live node: the ACS part says it needs root and reads
 * nothing.  Runs in a child that drops to nobody when the tests run as root;
 * the links come from the hand-built inventory, so the host's /sys is not
 * read.  The child reports with its exit status (no cmocka in the child).
 */
static int acs_as_nobody(void)
{
	const struct pf_check *c = pf_registry_find("pcie_link");
	struct pf_profile prof;
	struct pf_fs *fs = NULL;
	struct pf_run run = { 0 };
	struct pf_ctx ctx = { 0 };
	struct pf_providers prov;
	const struct pf_finding *f;
	struct tnode t;
	char *err = NULL;

	if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 10;
	if (geteuid() == 0)
		return 11;
	build(&t);
	pf_profile_init(&prof);
	if (!c || pf_config_build(c, &prof, &run.cfg, &err) < 0 || pf_fs_open("/", &fs) < 0)
		return 12;
	/* the host's files and the live uid (nobody's, set above), recorded facts otherwise */
	prov = pf_providers_recorded;
	prov.caps = PF_PROV_NODE | PF_PROV_PROCESS;
	prov.euid = pf_providers_live.euid;
	ctx = (struct pf_ctx){ .fs = fs, .prov = &prov, .node = &t.node };
	run.check = c;
	pf_run_inline(&ctx, &run);
	f = pf_test_finding(&run.res, "acs");
	if (!f || f->status != PF_STATUS_SKIP || !strstr(f->message, "needs root"))
		return 13;
	/* 4 links and acs, plus iommu: that one reads the host's IOMMU groups */
	if (run.res.n_findings != 5 || !pf_test_finding(&run.res, "iommu"))
		return 14;
	for (size_t i = 0; i < run.res.n_findings; i++) {
		const struct pf_finding *x = &run.res.findings[i];

		if (x->subject && strcmp(x->subject, "iommu") &&
		    x->status != PF_STATUS_PASS && x->status != PF_STATUS_SKIP)
			return 15;
	}
	return 0;
}

static void test_acs_live_not_root(void **state)
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(acs_as_nobody());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Generated roots (tests/gen_root.py) and real captures, through the loader.
 */

/* Generate a root under @dir with gen_root.py @args; returns the root path. */
static char *gen(const char *dir, const char *args)
{
	char cmd[PATH_MAX + 512];

	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/gen_root.py' '%s/root' %s >/dev/null", PF_SOURCE_DIR,
		 dir, args);
	assert_int_equal(system(cmd), 0);
	return pf_xasprintf("%s/root", dir);
}

static struct pf_node *load(const char *root)
{
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	char *err = NULL;

	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	pf_fs_free(fs);
	return node;
}

static const char *gpu_bdf(const struct pf_node *node, size_t i)
{
	assert_true(i < node->n_gpus);
	return node->pci[node->gpus[i].pci].bdf;
}

static void test_gen_healthy(void **state)
{
	pf_autofree char *root = gen(*state, "--gpus 8 --nics 8");
	struct pf_node *node = load(root);
	struct pf_result res;

	assert_int_equal(node->n_gpus, 8);
	run_pcie(root, node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	for (size_t i = 0; i < node->n_gpus; i++)
		assert_int_equal(pf_test_must_find(&res, gpu_bdf(node, i))->status, PF_STATUS_PASS);
	for (size_t i = 0; i < node->n_rdma; i++)
		assert_int_equal(pf_test_must_find(&res, node->rdma[i].name)->status,
				 PF_STATUS_PASS);
	/* the generator writes no config files: ACS is one skip for all 24 bridges */
	assert_int_equal(pf_test_must_find(&res, "acs")->status, PF_STATUS_SKIP);
	pf_test_assert_contains(pf_test_must_find(&res, "acs")->message, "24 of 24 bridges");
	/* and no IOMMU groups in it: a skip, not a verdict on the IOMMU */
	assert_int_equal(pf_test_must_find(&res, "iommu")->status, PF_STATUS_SKIP);
	assert_int_equal(res.n_findings, 8 + 8 + 2);
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_gen_degraded_gpu_and_acs(void **state)
{
	pf_autofree char *root = gen(*state, "--gpus 4 --nics 4 --gpu-degraded-link 2");
	struct pf_node *node = load(root);
	const struct pf_pci_dev *gpu0, *dsp;
	struct pf_result res;
	const struct pf_finding *f;
	char rel[PATH_MAX];

	run_pcie(root, node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, gpu_bdf(node, 2));
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "8 GT/s (Gen3) x8, max 32 GT/s (Gen5) x16");
	assert_int_equal(pf_test_must_find(&res, gpu_bdf(node, 1))->status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* ACS redirect on the switch port above GPU 0, read from its config file */
	gpu0 = &node->pci[node->gpus[0].pci];
	assert_true(gpu0->parent >= 0);
	dsp = &node->pci[gpu0->parent];
	snprintf(rel, sizeof(rel), "root%s", dsp->path);
	{
		char full[PATH_MAX + 16];
		uint8_t cfg[4096] = { 0 };

		put32(cfg, 0x100, PF_PCI_EXT_CAP_ID_ACS | 1u << 16);
		put32(cfg, 0x100 + PF_PCI_ACS_CAP, 0x005f | (uint32_t)(PF_PCI_ACS_SV | PF_PCI_ACS_RR |
									PF_PCI_ACS_CR) << 16);
		snprintf(full, sizeof(full), "%s/config", rel);
		write_bin(*state, full, cfg, sizeof(cfg));
	}
	run_pcie(root, node, NULL, &res);
	f = pf_test_must_find(&res, dsp->bdf);
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, gpu_bdf(node, 0));
	pf_test_assert_contains(f->message, "ReqRedir,CmpltRedir");
	pf_result_release(&res);
	pf_node_free(node);
}

/*
 * A GH200/GB200 GPU sits alone below a Grace (NVIDIA) root port and moves its
 * data over NVLink-C2C: a short PCIe link warns, never fails.  The same GPU
 * below an Intel root port, an L40S alone below a Grace root port, or an
 * NVIDIA GPU behind a switch below a Grace root port (PCIe cards in a Grace
 * server), still fail.
 */
static void test_c2c_gpu(void **state)
{
	struct tnode t;
	struct pf_result res;
	const struct pf_finding *f;

	build(&t);
	t.pci[GPU1].cur_width = 1;
	t.pci[GPU1].cur_speed_gts = 2.5;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* an L40S (10de:26b9), a PCIe card, alone below a Grace root port: as on x86 */
	t.pci[RP2].vendor = PF_PCI_VENDOR_NVIDIA;
	t.pci[GPU1].device = 0x26b9;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:05:00.0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);

	/* a GH200's GPU (10de:2342) there: NVLink-C2C carries its data */
	t.pci[GPU1].device = 0x2342;
	run_pcie(*state, &t.node, no_acs, &res);
	f = pf_test_must_find(&res, "0000:05:00.0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "NVLink-C2C");
	pf_test_assert_contains(f->message, "0000:00:02.0");
	assert_int_equal(res.status, PF_STATUS_WARN);
	pf_result_release(&res);

	/* behind a switch below a Grace root port: a PCIe card, judged as any other */
	t.pci[RP].vendor = PF_PCI_VENDOR_NVIDIA;
	t.pci[GPU0].device = 0x2342;
	t.pci[GPU0].cur_width = 8;
	run_pcie(*state, &t.node, no_acs, &res);
	assert_int_equal(pf_test_must_find(&res, "0000:03:00.0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
}

/* gen_root --grace --grace-gpu l40s: an L40S at x8 of x16 below a Grace root port fails. */
static void test_gen_grace_l40s(void **state)
{
	pf_autofree char *root = gen(*state, "--gpus 4 --nics 4 --grace --grace-gpu l40s "
				     "--gpu-degraded-link 1");
	struct pf_node *node = load(root);
	struct pf_result res;
	const struct pf_finding *f;

	run_pcie(root, node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, gpu_bdf(node, 1));
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "x8, max 32 GT/s (Gen5) x16");
	assert_int_equal(pf_test_must_find(&res, gpu_bdf(node, 0))->status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_gen_grace(void **state)
{
	pf_autofree char *root = gen(*state, "--gpus 4 --nics 4 --grace --gpu-degraded-link 1");
	struct pf_node *node = load(root);
	struct pf_result res;
	const struct pf_finding *f;

	run_pcie(root, node, no_acs, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	f = pf_test_must_find(&res, gpu_bdf(node, 1));
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "2.5 GT/s (Gen1) x1");
	pf_test_assert_contains(f->message, "Grace superchip");
	assert_int_equal(pf_test_must_find(&res, gpu_bdf(node, 0))->status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);
}

/* Write an ACS capability with P2P redirect on at the switch port above GPU 0. */
static const char *acs_redirect_above_gpu0(const char *dir, const struct pf_node *node)
{
	const struct pf_pci_dev *dsp = &node->pci[node->pci[node->gpus[0].pci].parent];
	char full[PATH_MAX + 16];
	uint8_t cfg[4096] = { 0 };

	put32(cfg, 0x100, PF_PCI_EXT_CAP_ID_ACS | 1u << 16);
	put32(cfg, 0x100 + PF_PCI_ACS_CAP, 0x005f | (uint32_t)(PF_PCI_ACS_SV | PF_PCI_ACS_RR |
								PF_PCI_ACS_CR) << 16);
	snprintf(full, sizeof(full), "root%s/config", dsp->path);
	write_bin(dir, full, cfg, sizeof(cfg));
	return dsp->bdf;
}

/* Run on a generated root with gen_root.py @args; returns the "iommu" finding's status. */
static enum pf_status gen_iommu(const char *dir, const char *args, struct pf_result *res,
				struct pf_node **ret_node)
{
	pf_autofree char *root = NULL;
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/root'", dir);
	assert_int_equal(system(cmd), 0);
	root = gen(dir, args);
	*ret_node = load(root);
	run_pcie(root, *ret_node, no_acs, res);
	return pf_test_must_find(res, "iommu")->status;
}

/*
 * IOMMU default domain type of the GPUs' and NICs' groups: identity passes,
 * DMA/DMA-FQ warns and turns the ACS remedy around, a kernel without the
 * type file (before 5.11) is a skip, no group on a live-like root passes.
 */
static void test_gen_iommu(void **state)
{
	struct pf_node *node;
	struct pf_result res;
	const struct pf_finding *f;
	const char *bdf;
	pf_autofree char *root = NULL;

	assert_int_equal(gen_iommu(*state, "--gpus 4 --nics 4 --iommu identity", &res, &node),
			 PF_STATUS_PASS);
	pf_test_assert_contains(pf_test_must_find(&res, "iommu")->message,
				"passthrough (identity) for 8");
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);

	assert_int_equal(gen_iommu(*state, "--gpus 4 --nics 4 --iommu DMA-FQ", &res, &node),
			 PF_STATUS_WARN);
	f = pf_test_must_find(&res, "iommu");
	pf_test_assert_contains(f->message, "translates DMA (DMA-FQ) for 8 of 8");
	pf_test_assert_contains(f->message, "(group");
	pf_test_assert_contains(f->remedy, "iommu=pt");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(f->observed, "iommu_types"),
						"mlx5_0")->valuestring, "DMA-FQ");
	pf_result_release(&res);
	/* ACS redirect while the IOMMU translates: do not tell them to clear it first */
	bdf = acs_redirect_above_gpu0(*state, node);
	root = pf_xasprintf("%s/root", (const char *)*state);
	run_pcie(root, node, NULL, &res);
	f = pf_test_must_find(&res, bdf);
	assert_int_equal(f->status, PF_STATUS_WARN);
	pf_test_assert_contains(f->remedy, "do not clear it while translation is on");
	assert_null(strstr(f->remedy, "setpci"));
	assert_string_equal(cJSON_GetObjectItem(f->observed, "iommu_type")->valuestring, "DMA-FQ");
	pf_result_release(&res);
	pf_node_free(node);

	assert_int_equal(gen_iommu(*state, "--gpus 2 --nics 2 --iommu DMA", &res, &node),
			 PF_STATUS_WARN);
	pf_result_release(&res);
	pf_node_free(node);

	assert_int_equal(gen_iommu(*state, "--gpus 2 --nics 2 --iommu blocked", &res, &node),
			 PF_STATUS_WARN);
	pf_test_assert_contains(pf_test_must_find(&res, "iommu")->message, "blocked");
	pf_result_release(&res);
	pf_node_free(node);

	/* RHEL 8 / Ubuntu 20.04 kernels: groups without a type file */
	assert_int_equal(gen_iommu(*state, "--gpus 2 --nics 2 --iommu no-type", &res, &node),
			 PF_STATUS_SKIP);
	pf_test_assert_contains(pf_test_must_find(&res, "iommu")->message, "before 5.11");
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);

	/* the kernel's iommu_groups directory with no group for them: not translated */
	assert_int_equal(gen_iommu(*state, "--gpus 2 --nics 2 --file "
				   "/sys/kernel/iommu_groups/README=x", &res, &node),
			 PF_STATUS_PASS);
	pf_test_assert_contains(pf_test_must_find(&res, "iommu")->message, "not translated");
	pf_result_release(&res);
	pf_node_free(node);
}

static void shared_capture_qib(void **state)
{
	pf_autofree char *root = pf_test_unpack_shared(
		"fixtures/hwloc-linux/40intel64-2g2n4c+pcilocality.tar.bz2", *state,
		"40intel64-2g2n4c+pci");
	struct pf_node *node;
	struct pf_result res;
	const struct pf_finding *f;

	node = load(root);
	/* qib0 shows 8 GT/s x4 but the capture has no max_link_*: a skip, not a pass */
	run_pcie(root, node, NULL, &res);
	f = pf_test_must_find(&res, "qib0");
	assert_int_equal(f->status, PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "no max_link_speed, max_link_width");
	assert_int_equal(cJSON_GetObjectItem(f->observed, "width")->valueint, 4);
	assert_int_equal(pf_test_must_find(&res, "acs")->status, PF_STATUS_SKIP);
	pf_result_release(&res);
	pf_node_free(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		pf_test_in_tmpdir(test_healthy),
		pf_test_in_tmpdir(test_gpu_x8),
		pf_test_in_tmpdir(test_gpu_gen3),
		pf_test_in_tmpdir(test_gpu_idle),
		pf_test_in_tmpdir(test_nic_degraded),
		pf_test_in_tmpdir(test_slot_limited),
		pf_test_in_tmpdir(test_unknown),
		pf_test_in_tmpdir(test_ignore_and_empty),
		pf_test_in_tmpdir(test_acs_redirect),
		pf_test_in_tmpdir(test_acs_not_root),
		pf_test_in_tmpdir(test_acs_malformed),
		pf_test_in_tmpdir(test_acs_not_applicable),
		cmocka_unit_test(test_acs_live_not_root),
		pf_test_in_tmpdir(test_gen_healthy),
		pf_test_in_tmpdir(test_gen_iommu),
		pf_test_in_tmpdir(test_gen_degraded_gpu_and_acs),
		pf_test_in_tmpdir(test_c2c_gpu),
		pf_test_in_tmpdir(test_gen_grace),
		pf_test_in_tmpdir(test_gen_grace_l40s),
		pf_test_in_tmpdir(shared_capture_qib),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
