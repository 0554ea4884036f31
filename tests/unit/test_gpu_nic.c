// SPDX-License-Identifier: MIT
/*
 * test_gpu_nic.c - the GPU -> nearest RDMA NIC rule (src/node/gpu_nic.c) on a
 * hand-built inventory: nearest class first, then the NIC on the GPU's NUMA
 * node, then the NIC fewer GPUs took, then the name; the @nics selection and
 * @ignore_gpus; GPUs and NICs that cannot be placed on the PCI tree; and the
 * effective NUMA node of a device.
 */
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu_nic.h"
#include "testutil.h"

/*
 * pci0000:00 (NUMA 0): root port 00:01.0, switch 01:00.0 with four downstream
 *   ports: GPU0 03:00.0, mlx5_1 04:00.0, GPU1 05:00.0, mlx5_0 06:00.0
 * pci0000:40 (NUMA 0): mlx5_3 41:00.0 on root port 40:01.0
 * pci0000:80 (NUMA 1): GPU2 82:00.0, mlx5_2 81:00.0 (numa_node 0, as with
 *   sub-NUMA clustering) and mlx5_4 83:00.0 (numa_node 1), each on its own root port
 * scif0: an RDMA device without a PCI function
 */
enum { GPU0, GPU1, GPU2, NIC1, NIC0, NIC3, NIC2, NIC4, N_PCI };

#define SW "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"

static const struct {
	const char *bdf, *path;
	int numa;
} devs[N_PCI] = {
	[GPU0] = { "0000:03:00.0", SW "/0000:02:00.0/0000:03:00.0", 0 },
	[GPU1] = { "0000:05:00.0", SW "/0000:02:02.0/0000:05:00.0", 0 },
	[GPU2] = { "0000:82:00.0", "/sys/devices/pci0000:80/0000:80:02.0/0000:82:00.0", 1 },
	[NIC1] = { "0000:04:00.0", SW "/0000:02:01.0/0000:04:00.0", 0 },
	[NIC0] = { "0000:06:00.0", SW "/0000:02:03.0/0000:06:00.0", 0 },
	[NIC3] = { "0000:41:00.0", "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0", 0 },
	[NIC2] = { "0000:81:00.0", "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", 0 },
	[NIC4] = { "0000:83:00.0", "/sys/devices/pci0000:80/0000:80:03.0/0000:83:00.0", 1 },
};

struct tnode {
	struct pf_node node;
	struct pf_pci_dev pci[N_PCI];
	struct pf_gpu gpus[3];
	struct pf_rdma_dev rdma[6];
	struct pf_numa numa[2];
};

static void build(struct tnode *t)
{
	/* not in name order: the name rule must not be the array's order */
	static const struct {
		const char *name;
		int pci;
	} nics[] = { { "mlx5_1", NIC1 }, { "mlx5_0", NIC0 }, { "scif0", -1 },
		     { "mlx5_3", NIC3 }, { "mlx5_4", NIC4 }, { "mlx5_2", NIC2 } };

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < N_PCI; i++) {
		snprintf(t->pci[i].bdf, sizeof(t->pci[i].bdf), "%s", devs[i].bdf);
		t->pci[i].path = (char *)devs[i].path;
		t->pci[i].numa_node = devs[i].numa;
		t->pci[i].parent = -1;
	}
	for (int i = 0; i < 3; i++)
		t->gpus[i].pci = GPU0 + i;
	for (size_t i = 0; i < PF_ARRAY_SIZE(nics); i++)
		t->rdma[i] = (struct pf_rdma_dev){ .name = (char *)nics[i].name,
						   .pci = nics[i].pci };
	t->numa[0].id = 0;
	t->numa[1].id = 1;
	t->node = (struct pf_node){
		.source = "sysfs",
		.pci = t->pci, .n_pci = N_PCI,
		.gpus = t->gpus, .n_gpus = 3,
		.rdma = t->rdma, .n_rdma = PF_ARRAY_SIZE(nics),
		.numa = t->numa, .n_numa = 2,
	};
}

static const char *nic_name(const struct tnode *t, const struct pf_gpu_nic_pair *p)
{
	return p->nic < 0 ? "(none)" : t->rdma[p->nic].name;
}

static void expect(const struct tnode *t, const struct pf_gpu_nic_pair *p, const char *gpu,
		   const char *nic, enum pf_path_class cls, size_t n_at_best)
{
	assert_string_equal(p->gpu->bdf, gpu);
	if (strcmp(nic_name(t, p), nic) || p->cls != cls || p->n_at_best != n_at_best)
		fail_msg("%s: %s %s (%zu at best), expected %s %s (%zu)", gpu, nic_name(t, p),
			 pf_path_class_name(p->cls), p->n_at_best, nic, pf_path_class_name(cls),
			 n_at_best);
}

static void test_all_nics(void **state)
{
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;

	(void)state;
	build(&t);
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &p), 3);
	/* two NICs beside GPU0 behind its switch: the name decides */
	expect(&t, &p[0], "0000:03:00.0", "mlx5_0", PF_PATH_PIX, 2);
	assert_int_equal(p[0].gpu_numa, 0);
	assert_int_equal(p[0].nic_numa, 0);
	/* GPU1 behind the same switch takes the one GPU0 left: two rails, not one */
	expect(&t, &p[1], "0000:05:00.0", "mlx5_1", PF_PATH_PIX, 2);
	/* two NICs through GPU2's host bridge: the one on GPU2's NUMA node, though named later */
	expect(&t, &p[2], "0000:82:00.0", "mlx5_4", PF_PATH_PHB, 2);
	assert_int_equal(p[2].gpu_numa, 1);
	assert_int_equal(p[2].nic_numa, 1);
}

/*
 * Of NICs as near, one with a port up wins over one that is down (a DGX
 * Spark with 2 of its 4 RoCE ports DOWN named a DOWN one); a nearer NIC that
 * is down still wins over a farther one that is up: that rail is down.
 */
static void test_prefers_up(void **state)
{
	struct pf_rdma_port down = { .num = 1, .state = 1 }, up = { .num = 1, .state = 4 };
	struct pf_rdma_port unknown = { .num = 1, .state = 0 };
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;
	pf_autofree struct pf_gpu_nic_pair *q = NULL;
	pf_autofree struct pf_gpu_nic_pair *r = NULL;

	(void)state;
	build(&t);
	for (size_t i = 0; i < t.node.n_rdma; i++) {
		t.rdma[i].ports = &up;
		t.rdma[i].n_ports = 1;
	}
	t.rdma[1].ports = &down; /* mlx5_0: by name GPU0's NIC */
	t.rdma[4].ports = &down; /* mlx5_4: by NUMA node GPU2's NIC */
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &p), 3);
	expect(&t, &p[0], "0000:03:00.0", "mlx5_1", PF_PATH_PIX, 2);
	/* GPU1: mlx5_0 is as near but down; mlx5_1 is up and taken once: still mlx5_1 */
	expect(&t, &p[1], "0000:05:00.0", "mlx5_1", PF_PATH_PIX, 2);
	expect(&t, &p[2], "0000:82:00.0", "mlx5_2", PF_PATH_PHB, 2);

	/* a port of unknown state (an export) is not evidence of a down NIC */
	t.rdma[1].ports = &unknown;
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &q), 3);
	expect(&t, &q[0], "0000:03:00.0", "mlx5_0", PF_PATH_PIX, 2);

	/* the only NIC behind GPU0's switch that is down is still GPU0's */
	t.rdma[0].ports = &down; /* mlx5_1 */
	t.rdma[1].ports = &down; /* mlx5_0 */
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &r), 3);
	expect(&t, &r[0], "0000:03:00.0", "mlx5_0", PF_PATH_PIX, 2);
}

static void test_selected_nics(void **state)
{
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;

	(void)state;
	build(&t);
	/* NCCL_IB_HCA-style list: the switch NICs are out */
	assert_int_equal(pf_gpu_nic_pairs(&t.node, "mlx5_2,mlx5_3", NULL, &p), 3);
	/* mlx5_3 (another host bridge, NUMA 0) and mlx5_2 (NUMA 0 on GPU2's bridge): NODE both */
	expect(&t, &p[0], "0000:03:00.0", "mlx5_2", PF_PATH_NODE, 2);
	expect(&t, &p[1], "0000:05:00.0", "mlx5_3", PF_PATH_NODE, 2);
	/* GPU2: mlx5_2 through its host bridge beats mlx5_3 across sockets */
	expect(&t, &p[2], "0000:82:00.0", "mlx5_2", PF_PATH_PHB, 1);
	free(p);
	p = NULL;

	/* an empty list is every NIC */
	assert_int_equal(pf_gpu_nic_pairs(&t.node, "", NULL, &p), 3);
	expect(&t, &p[0], "0000:03:00.0", "mlx5_0", PF_PATH_PIX, 2);
	free(p);
	p = NULL;

	/* a NIC without a PCI function is never a GPU's NIC, even when named */
	assert_int_equal(pf_gpu_nic_pairs(&t.node, "scif0", NULL, &p), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(p[i].nic, -1);
		assert_int_equal(p[i].cls, PF_PATH_UNKNOWN);
		assert_int_equal(p[i].nic_numa, -1);
	}
}

static void test_ignore_gpus(void **state)
{
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;

	(void)state;
	build(&t);
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, "0000:03:00.0,0000:82:00.0", &p), 1);
	/* GPU1 alone: nothing taken, so the name decides */
	expect(&t, &p[0], "0000:05:00.0", "mlx5_0", PF_PATH_PIX, 2);
}

static void test_unplaced(void **state)
{
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;

	(void)state;
	build(&t);
	/* GPU1 has no path (an export without the PCI tree): no NIC, nothing taken */
	t.pci[GPU1].path = NULL;
	/* mlx5_4's path reaches no host bridge: never picked */
	t.pci[NIC4].path = (char *)"/sys/devices/virtual/infiniband/mlx5_4";
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &p), 3);
	expect(&t, &p[0], "0000:03:00.0", "mlx5_0", PF_PATH_PIX, 2);
	assert_int_equal(p[1].nic, -1);
	assert_int_equal(p[1].cls, PF_PATH_UNKNOWN);
	assert_int_equal(p[1].gpu_numa, 0);
	assert_int_equal(p[1].nic_numa, -1);
	expect(&t, &p[2], "0000:82:00.0", "mlx5_2", PF_PATH_PHB, 1);
	assert_int_equal(p[2].nic_numa, 0);
}

static void test_no_gpus(void **state)
{
	struct tnode t;
	pf_autofree struct pf_gpu_nic_pair *p = NULL;

	(void)state;
	build(&t);
	t.node.n_gpus = 0;
	assert_int_equal(pf_gpu_nic_pairs(&t.node, NULL, NULL, &p), 0);
	assert_non_null(p); /* an empty array the caller frees, not garbage */
}

static void test_effective_numa(void **state)
{
	struct tnode t;
	struct pf_pci_dev d = { .numa_node = 3 };

	(void)state;
	build(&t);
	assert_int_equal(pf_node_effective_numa(&t.node, &d), 3);
	d.numa_node = -1;
	/* two NUMA nodes: an unknown one stays unknown */
	assert_int_equal(pf_node_effective_numa(&t.node, &d), -1);
	/* one NUMA node: that node, whatever its id */
	t.numa[0].id = 5;
	t.node.n_numa = 1;
	assert_int_equal(pf_node_effective_numa(&t.node, &d), 5);
	/* none listed: 0 */
	t.node.n_numa = 0;
	assert_int_equal(pf_node_effective_numa(&t.node, &d), 0);
}

static void test_placed(void **state)
{
	struct pf_pci_dev d = { 0 };

	(void)state;
	assert_false(pf_pci_dev_placed(&d));
	d.path = (char *)devs[GPU2].path;
	assert_true(pf_pci_dev_placed(&d));
	d.path = (char *)"/sys/devices/virtual/net/lo";
	assert_false(pf_pci_dev_placed(&d));
	d.path = (char *)"/sys/devices/pci0000:80";
	assert_false(pf_pci_dev_placed(&d));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_nics),
		cmocka_unit_test(test_prefers_up),
		cmocka_unit_test(test_selected_nics),
		cmocka_unit_test(test_ignore_gpus),
		cmocka_unit_test(test_unplaced),
		cmocka_unit_test(test_no_gpus),
		cmocka_unit_test(test_effective_numa),
		cmocka_unit_test(test_placed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
