// SPDX-License-Identifier: MIT
/*
 * test_node_sysfs.c - the sysfs inventory on roots written by
 * tests/gen_root.py (counts, bridge parents, the numa_node -1 fallback,
 * netdev <-> RDMA port mapping for IB and RoCE, a device without a PCI
 * parent, PCI domain 0001) and on the real hwloc captures in
 * ../shared/fixtures (skipped when absent).
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "preflight/node.h"
#include "testutil.h"

struct genroot {
	char *dir;
	struct pf_fs *fs;
	struct pf_node *node;
};

/* Generate a root with gen_root.py @args and load it. */
static void gen_load(struct genroot *g, const char *args)
{
	char *err = NULL;

	g->dir = pf_test_gen_root(args);
	assert_int_equal(pf_fs_open(g->dir, &g->fs), 0);
	assert_int_equal(pf_node_load(g->fs, NULL, &g->node, &err), 0);
	assert_null(err);
	assert_string_equal(g->node->source, "sysfs");
}

static void gen_free(struct genroot *g)
{
	pf_node_free(g->node);
	pf_fs_free(g->fs);
	pf_test_rmtree(g->dir);
	free(g->dir);
}

static const struct pf_pci_dev *gpu(const struct pf_node *n, size_t i)
{
	assert_true(i < n->n_gpus);
	return &n->pci[n->gpus[i].pci];
}

static void test_dgx_ib(void **state)
{
	struct genroot g = { 0 };
	const struct pf_pci_dev *d, *up;
	const struct pf_rdma_dev *ib;
	const struct pf_netdev *nd;

	(void)state;
	gen_load(&g, "--gpus 8 --nics 8 --numa 2 --nvswitch 4");
	assert_int_equal(g.node->n_gpus, 8); /* NVSwitches (class 0x0680) are not GPUs */
	assert_int_equal(g.node->n_rdma, 8);
	assert_int_equal(g.node->n_numa, 2);
	assert_int_equal(g.node->numa[1].id, 1);
	assert_string_equal(g.node->numa[1].cpulist, "8-15");
	/* chipset 3 + 8 switches x (root port, up, 2 down, GPU, NIC) + 4 x (root port, NVSwitch) */
	assert_int_equal(g.node->n_pci, 3 + 8 * 6 + 4 * 2);

	d = gpu(g.node, 0);
	assert_string_equal(d->bdf, "0000:13:00.0");
	assert_int_equal(d->vendor, 0x10de);
	assert_int_equal(d->device, 0x2330);
	assert_int_equal(d->class, 0x030200);
	assert_int_equal(d->numa_node, 0);
	assert_string_equal(d->local_cpulist, "0-7");
	assert_true(d->cur_speed_gts == 32 && d->max_speed_gts == 32);
	assert_int_equal(d->cur_width, 16);
	assert_string_equal(d->path, "/sys/devices/pci0000:10/0000:10:01.0/0000:11:00.0/"
				     "0000:12:00.0/0000:13:00.0");
	/* parents: downstream port -> upstream port -> root port -> none */
	up = &g.node->pci[d->parent];
	assert_string_equal(up->bdf, "0000:12:00.0");
	up = &g.node->pci[up->parent];
	assert_string_equal(up->bdf, "0000:11:00.0");
	up = &g.node->pci[up->parent];
	assert_string_equal(up->bdf, "0000:10:01.0");
	assert_int_equal(up->parent, -1);
	assert_int_equal(gpu(g.node, 7)->numa_node, 1);

	ib = pf_node_rdma(g.node, "mlx5_0");
	assert_non_null(ib);
	assert_string_equal(g.node->pci[ib->pci].bdf, "0000:14:00.0");
	assert_string_equal(ib->hca_type, "MT4129");
	assert_int_equal(ib->n_ports, 1);
	assert_int_equal(ib->ports[0].num, 1);
	assert_int_equal(ib->ports[0].state, 4);
	assert_string_equal(ib->ports[0].state_name, "ACTIVE");
	assert_int_equal(ib->ports[0].phys_state, 5);
	assert_string_equal(ib->ports[0].phys_state_name, "LinkUp");
	assert_string_equal(ib->ports[0].rate, "400 Gb/sec (4X NDR)");
	assert_true(ib->ports[0].rate_gbps == 400);
	assert_int_equal(ib->ports[0].width, 4);
	assert_string_equal(ib->ports[0].speed_name, "NDR");
	assert_int_equal(ib->ports[0].link_layer, PF_LINK_IB);
	assert_int_equal(ib->ports[0].active_mtu, 0); /* no such sysfs file */
	/* IPoIB: no GID netdev, found through device/net + dev_port */
	assert_true(ib->ports[0].netdev >= 0);
	nd = &g.node->netdevs[ib->ports[0].netdev];
	assert_string_equal(nd->name, "ib0");
	assert_int_equal(nd->rdma_dev, (int)(ib - g.node->rdma));
	assert_int_equal(nd->port, 1);

	nd = pf_node_netdev(g.node, "eno1");
	assert_non_null(nd);
	assert_int_equal(nd->rdma_dev, -1);
	assert_int_equal(nd->speed_mbps, 1000);
	assert_int_equal(nd->mtu, 1500);
	assert_string_equal(nd->operstate, "up");
	nd = pf_node_netdev(g.node, "lo");
	assert_non_null(nd);
	assert_int_equal(nd->speed_mbps, -1);
	assert_null(g.node->notes);
	assert_non_null(pf_node_pci(g.node, "0000:14:00.0"));
	assert_non_null(pf_node_pci(g.node, "0000:14:00.0"));
	assert_ptr_equal(pf_node_pci(g.node, "14:00.0"), pf_node_pci(g.node, "0000:14:00.0"));
	assert_null(pf_node_pci(g.node, "0000:99:00.0"));
	gen_free(&g);
}

static void test_roce_netdevs(void **state)
{
	struct genroot g = { 0 };
	const struct pf_rdma_dev *d;
	const struct pf_netdev *nd;

	(void)state;
	gen_load(&g, "--gpus 4 --nics 4 --link-layer eth --down-port mlx5_1 --mtu-port mlx5_2");
	d = pf_node_rdma(g.node, "mlx5_0");
	assert_int_equal(d->ports[0].link_layer, PF_LINK_ETH);
	nd = &g.node->netdevs[d->ports[0].netdev];
	assert_string_equal(nd->name, "enp20s0np0");
	assert_int_equal(nd->speed_mbps, 400000);
	assert_int_equal(nd->mtu, 9000);
	assert_int_equal(nd->port, 1);

	d = pf_node_rdma(g.node, "mlx5_1");
	assert_int_equal(d->ports[0].state, 1);
	assert_int_equal(d->ports[0].phys_state, 3);
	nd = &g.node->netdevs[d->ports[0].netdev];
	assert_int_equal(nd->speed_mbps, -1); /* speed unreadable on a down link */
	assert_string_equal(nd->operstate, "down");

	d = pf_node_rdma(g.node, "mlx5_2");
	assert_int_equal(g.node->netdevs[d->ports[0].netdev].mtu, 1500);
	gen_free(&g);
}

static void test_numa_minus_one(void **state)
{
	struct genroot g = { 0 };

	(void)state;
	gen_load(&g, "--gpus 8 --nics 8 --numa 4 --numa-minus-one");
	/* numa_node reads -1 everywhere; local_cpulist recovers the node */
	for (size_t i = 0; i < g.node->n_gpus; i++)
		assert_int_equal(gpu(g.node, i)->numa_node, (int)i / 2);
	assert_int_equal(g.node->pci[pf_node_rdma(g.node, "mlx5_7")->pci].numa_node, 3);
	gen_free(&g);
}

static void test_no_pci_parent_and_domain(void **state)
{
	struct genroot g = { 0 };
	const struct pf_rdma_dev *d;

	(void)state;
	gen_load(&g, "--gpus 2 --nics 2 --domain 0001 --no-pci-parent-dev scif0 --storage-nic");
	assert_int_equal(g.node->n_gpus, 2);
	assert_int_equal(g.node->n_rdma, 4);
	d = pf_node_rdma(g.node, "scif0");
	assert_non_null(d);
	assert_int_equal(d->pci, -1);
	assert_int_equal(d->n_ports, 1);
	assert_true(pf_test_notes_have(g.node->notes, "scif0: no PCI parent"));
	/* domain 0001 for the GPU hierarchy, 0000 for the chipset */
	assert_string_equal(gpu(g.node, 0)->bdf, "0001:13:00.0");
	assert_non_null(pf_node_pci(g.node, "0000:00:00.0"));
	d = pf_node_rdma(g.node, "mlx5_1");
	assert_string_equal(g.node->pci[d->pci].bdf, "0001:1c:00.0");
	assert_string_equal(g.node->pci[g.node->pci[d->pci].parent].bdf, "0001:1a:01.0");
	d = pf_node_rdma(g.node, "mlx5_2"); /* the storage NIC */
	assert_string_equal(d->hca_type, "MT4123");
	assert_true(d->ports[0].rate_gbps == 200);
	gen_free(&g);
}

static void test_empty_root(void **state)
{
	pf_autofree char *dir = pf_test_mkdtemp();
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	char *err = NULL;

	(void)state;
	pf_test_write(dir, "proc/uptime", "1.0 1.0\n");
	assert_int_equal(pf_fs_open(dir, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	assert_int_equal(node->n_pci + node->n_rdma + node->n_netdevs + node->n_numa, 0);
	pf_node_free(node);

	/* an unreadable directory is an error with a message, not an empty model */
	if (geteuid() != 0) {
		char path[PATH_MAX];

		pf_test_write(dir, "sys/class/infiniband/x", "");
		snprintf(path, sizeof(path), "%s/sys/class/infiniband", dir);
		chmod(path, 0);
		assert_int_equal(pf_node_load(fs, NULL, &node, &err), -EACCES);
		assert_non_null(strstr(err, "/sys/class/infiniband"));
		free(err);
		chmod(path, 0755);
	}
	pf_fs_free(fs);
	pf_test_rmtree(dir);
}

static void shared_capture_qib(void **state)
{
	pf_autofree char *root = NULL;
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	const struct pf_rdma_dev *d;
	const struct pf_pci_dev *p;
	char *err = NULL;

	root = pf_test_unpack_shared("fixtures/hwloc-linux/40intel64-2g2n4c+pcilocality.tar.bz2",
				     *state,
				     "40intel64-2g2n4c+pci");
	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load_sysfs(fs, &node, &err), 0);
	assert_int_equal(node->n_numa, 4);
	assert_string_equal(node->numa[2].cpulist, "2,6,10,14,18,22,26,30,34,38");
	assert_int_equal(node->n_pci, 37);
	d = pf_node_rdma(node, "qib0");
	assert_non_null(d);
	p = &node->pci[d->pci];
	assert_string_equal(p->bdf, "0000:43:00.0");
	assert_int_equal(p->vendor, 0x1077);
	assert_int_equal(p->class, 0x0c0600);
	assert_int_equal(p->numa_node, 2);
	assert_true(p->cur_speed_gts == 8); /* old kernel format "8 GT/s" */
	assert_int_equal(p->cur_width, 4);
	assert_true(p->max_speed_gts == 0); /* not in the capture */
	assert_string_equal(node->pci[p->parent].bdf, "0000:40:03.0");
	assert_int_equal(d->ports[0].state, 4);
	assert_int_equal(d->ports[0].phys_state, 5);
	assert_true(d->ports[0].rate_gbps == 40);
	assert_int_equal(d->ports[0].width, 4);
	assert_string_equal(d->ports[0].speed_name, "QDR");
	assert_int_equal(d->ports[0].link_layer, PF_LINK_IB);
	assert_int_equal(node->n_gpus, 0);
	pf_node_free(node);
	pf_fs_free(fs);
}

static void shared_capture_scif(void **state)
{
	pf_autofree char *root = NULL;
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	const struct pf_rdma_dev *d;
	char *err = NULL;

	root = pf_test_unpack_shared("fixtures/hwloc-linux/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2",
				     *state,
				     "32em64t-2n8c+1mic");
	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load_sysfs(fs, &node, &err), 0);
	/* scif0's class link dangles in the capture: a note, not a failure */
	d = pf_node_rdma(node, "scif0");
	assert_non_null(d);
	assert_int_equal(d->pci, -1);
	assert_true(pf_test_notes_have(node->notes, "scif0: no PCI parent"));
	d = pf_node_rdma(node, "mlx4_0");
	assert_string_equal(node->pci[d->pci].bdf, "0000:82:00.0");
	assert_true(d->ports[0].rate_gbps == 56);
	assert_string_equal(d->ports[0].speed_name, "FDR");
	/* IPoIB on an old kernel: no dev_port, dev_id 0x0 */
	assert_true(d->ports[0].netdev >= 0);
	assert_string_equal(node->netdevs[d->ports[0].netdev].name, "ib0");
	pf_node_free(node);
	pf_fs_free(fs);
}

/*
 * Both loaders end with pf_node_classify_links(): an Amazon (EFA) function's
 * ports are never RoCE, whether sysfs said "Ethernet" (early out-of-tree
 * efa) or an lstopo export only gave the Ethernet PCI class; others keep theirs.
 */
static void test_classify_efa(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_rdma_port efa_port = { .num = 1, .link_layer = PF_LINK_ETH, .netdev = -1 };
	struct pf_rdma_port mlx_port = { .num = 1, .link_layer = PF_LINK_ETH, .netdev = -1 };

	node->pci = pf_xcalloc(2, sizeof(*node->pci));
	node->n_pci = 2;
	node->pci[0].vendor = PF_PCI_VENDOR_AMAZON;
	node->pci[0].device = 0xefa0;
	node->pci[1].vendor = PF_PCI_VENDOR_MELLANOX;
	node->rdma = pf_xcalloc(2, sizeof(*node->rdma));
	node->n_rdma = 2;
	node->rdma[0] = (struct pf_rdma_dev){ .name = pf_xstrdup("efa_0"), .pci = 0, .n_ports = 1 };
	node->rdma[0].ports = pf_xcalloc(1, sizeof(efa_port));
	node->rdma[0].ports[0] = efa_port;
	node->rdma[1] = (struct pf_rdma_dev){ .name = pf_xstrdup("mlx5_0"), .pci = 1, .n_ports = 1 };
	node->rdma[1].ports = pf_xcalloc(1, sizeof(mlx_port));
	node->rdma[1].ports[0] = mlx_port;
	pf_node_classify_links(node);
	assert_int_equal(node->rdma[0].ports[0].link_layer, PF_LINK_UNKNOWN);
	assert_int_equal(node->rdma[1].ports[0].link_layer, PF_LINK_ETH);
	pf_node_free(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dgx_ib),
		cmocka_unit_test(test_roce_netdevs),
		cmocka_unit_test(test_numa_minus_one),
		cmocka_unit_test(test_no_pci_parent_and_domain),
		cmocka_unit_test(test_empty_root),
		pf_test_in_tmpdir(shared_capture_qib),
		pf_test_in_tmpdir(shared_capture_scif),
		cmocka_unit_test(test_classify_efa),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
