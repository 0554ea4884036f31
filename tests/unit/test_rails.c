// SPDX-License-Identifier: MIT
/*
 * test_rails.c - the rail model (src/node/rails.c) on hand-built inventories:
 * rail indexes follow the GPUs, not the device names (a DGX H100 names its
 * rails mlx5_0,3,4,...); a node with no NIC beside a GPU takes the fastest
 * ports of the common link layer; declared roles win and a port declared
 * twice is refused; NCCL_IB_HCA, in NCCL's syntax, picks the rails unless it
 * selects nothing here.
 */
#include <string.h>

#include "preflight/rails.h"
#include "testutil.h"

#define SW0 "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define SW1 "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0"

enum { GPU0, GPU1, NIC_A, NIC_B, NIC_C, N_PCI };

struct tnode {
	struct pf_node node;
	struct pf_pci_dev pci[N_PCI];
	struct pf_gpu gpus[2];
	struct pf_rdma_dev rdma[3];
	struct pf_rdma_port ports[3];
};

/*
 * GPU0 and "mlx5_9" behind one switch, GPU1 and "mlx5_3" behind another,
 * "mlx5_0" (200G) on a root port of its own: mlx5_9 is rail 0 though named later.
 */
static void build(struct tnode *t, bool gpus)
{
	static const char *const paths[N_PCI] = {
		SW0 "/0000:02:00.0/0000:03:00.0", SW1 "/0000:42:00.0/0000:43:00.0",
		SW0 "/0000:02:01.0/0000:04:00.0", SW1 "/0000:42:01.0/0000:44:00.0",
		"/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0",
	};
	static const char *const names[3] = { "mlx5_0", "mlx5_3", "mlx5_9" };
	static const int pci_of[3] = { NIC_C, NIC_B, NIC_A };
	static const double rate[3] = { 200, 400, 400 };

	memset(t, 0, sizeof(*t));
	for (int i = 0; i < N_PCI; i++) {
		snprintf(t->pci[i].bdf, sizeof(t->pci[i].bdf), "0000:%02x:00.0", 0x10 + i);
		t->pci[i].path = (char *)paths[i];
		t->pci[i].numa_node = i == NIC_C ? 1 : 0;
		t->pci[i].parent = -1;
	}
	t->gpus[0].pci = GPU0;
	t->gpus[1].pci = GPU1;
	for (int i = 0; i < 3; i++) {
		t->ports[i] = (struct pf_rdma_port){ .num = 1, .state = 4, .phys_state = 5,
						     .rate_gbps = rate[i],
						     .link_layer = PF_LINK_IB, .netdev = -1 };
		t->rdma[i] = (struct pf_rdma_dev){ .name = (char *)names[i], .pci = pci_of[i],
						   .ports = &t->ports[i], .n_ports = 1 };
	}
	t->node = (struct pf_node){ .source = "sysfs", .pci = t->pci, .n_pci = N_PCI,
				    .gpus = t->gpus, .n_gpus = gpus ? 2 : 0,
				    .rdma = t->rdma, .n_rdma = 3 };
}

static const struct pf_rail_port *port_of(const struct pf_rails *r, const char *name,
					  const struct tnode *t)
{
	for (size_t i = 0; i < r->n_ports; i++)
		if (!strcmp(t->rdma[r->ports[i].rdma].name, name))
			return &r->ports[i];
	fail_msg("no port of %s", name);
	return NULL;
}

static void expect(const struct pf_rails *r, const struct tnode *t, const char *name,
		   enum pf_port_role role, int rail)
{
	const struct pf_rail_port *p = port_of(r, name, t);

	if (p->role != role || p->rail != rail)
		fail_msg("%s: %s rail %d (%s), expected %s rail %d", name,
			 pf_port_role_name(p->role), p->rail, p->reason, pf_port_role_name(role),
			 rail);
}

static void test_rails_follow_gpus(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	pf_autofree char *err = NULL;
	struct tnode t;

	(void)state;
	build(&t, true);
	assert_int_equal(pf_rails_build(fs, &t.node, NULL, &r, &err), 0);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 1);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
	assert_int_equal(r->n_compute, 2);
	assert_int_equal(r->compute_link, PF_LINK_IB);
	assert_int_equal(port_of(r, "mlx5_9", &t)->gpu, 0);
	assert_string_equal(r->rule, "gpu");

	/* a GPU's own rail that is down stays a rail: the checks fail it */
	pf_rails_free(PF_TAKE_PTR(r));
	t.ports[2].state = 1;
	t.ports[2].phys_state = 2;
	assert_int_equal(pf_rails_build(fs, &t.node, NULL, &r, &err), 0);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	assert_false(port_of(r, "mlx5_9", &t)->up);
}

static void test_fastest_without_gpus(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	pf_autofree char *err = NULL;
	struct tnode t;

	(void)state;
	build(&t, false);
	t.ports[2].link_layer = PF_LINK_ETH; /* mlx5_9: Ethernet, alone of its kind */
	assert_int_equal(pf_rails_build(fs, &t.node, NULL, &r, &err), 0);
	assert_string_equal(r->rule, "fastest");
	/* InfiniBand is the common link layer; 400 its fastest rate */
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
	expect(r, &t, "mlx5_9", PF_ROLE_FRONTEND, -1);

	/* nothing up (cables out, not never linked): the common link layer's ports stay rails */
	pf_rails_free(PF_TAKE_PTR(r));
	for (int i = 0; i < 3; i++)
		t.ports[i].state = 1;
	assert_int_equal(pf_rails_build(fs, &t.node, NULL, &r, &err), 0);
	expect(r, &t, "mlx5_0", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 1);
	expect(r, &t, "mlx5_9", PF_ROLE_FRONTEND, -1);
}

static void test_declared(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	pf_autofree char *err = NULL;
	struct pf_rails_spec spec = { 0 };
	struct tnode t;

	(void)state;
	build(&t, true);
	spec.declared[PF_ROLE_COMPUTE] = " mlx5_0:1 ";
	spec.declared[PF_ROLE_UNUSED] = "mlx5_3, mlx5_77";
	assert_int_equal(pf_rails_build(fs, &t.node, &spec, &r, &err), 0);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_0", PF_ROLE_COMPUTE, 1);
	expect(r, &t, "mlx5_3", PF_ROLE_UNUSED, -1);
	assert_true(port_of(r, "mlx5_0", &t)->declared);
	assert_non_null(strstr(port_of(r, "mlx5_0", &t)->reason, "rails.compute"));

	/* another port number is another port */
	pf_rails_free(PF_TAKE_PTR(r));
	spec.declared[PF_ROLE_COMPUTE] = "mlx5_0:2";
	spec.declared[PF_ROLE_UNUSED] = NULL;
	assert_int_equal(pf_rails_build(fs, &t.node, &spec, &r, &err), 0);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);

	pf_rails_free(PF_TAKE_PTR(r));
	spec.declared[PF_ROLE_COMPUTE] = "mlx5_0";
	spec.declared[PF_ROLE_STORAGE] = "mlx5_0:1";
	assert_int_equal(pf_rails_build(fs, &t.node, &spec, &r, &err), -EINVAL);
	assert_null(r);
	assert_string_equal(err, "rails: mlx5_0/1 is declared both compute and storage");
}

/* The model with NCCL_IB_HCA=@hca set in the environment. */
static struct pf_rails *with_hca(const struct pf_fs *fs, const struct tnode *t, const char *hca,
				 const char *declared_storage)
{
	struct pf_rails_spec spec = { .nccl_ib_hca = hca, .nccl_ib_hca_origin = "environment" };
	struct pf_rails *r = NULL;
	pf_autofree char *err = NULL;

	spec.declared[PF_ROLE_STORAGE] = declared_storage;
	assert_int_equal(pf_rails_build(fs, &t->node, &spec, &r, &err), 0);
	return r;
}

static void test_nccl_ib_hca(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	struct tnode t;

	(void)state;
	build(&t, true);
	/* a prefix: "mlx5_3" is GPU1's rail alone; GPU0's rail is not NCCL's */
	r = with_hca(fs, &t, "mlx5_3", NULL);
	assert_string_equal(r->rule, "nccl");
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_9", PF_ROLE_STORAGE, -1);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
	assert_string_equal(port_of(r, "mlx5_3", &t)->reason,
			    "selected by NCCL_IB_HCA=mlx5_3 (environment)");
	assert_string_equal(port_of(r, "mlx5_9", &t)->reason,
			    "not selected by NCCL_IB_HCA=mlx5_3 (environment)");
	/* what nccl_config judges the list against: the rails by the node's rules */
	assert_true(port_of(r, "mlx5_9", &t)->rules_compute);
	assert_false(port_of(r, "mlx5_0", &t)->rules_compute);

	/* "mlx5" is a prefix of all three: rails in GPU order, the GPU-less port last */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "mlx5", NULL);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 1);
	expect(r, &t, "mlx5_0", PF_ROLE_COMPUTE, 2);

	/* '^' excludes */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "^mlx5_9", NULL);
	expect(r, &t, "mlx5_9", PF_ROLE_STORAGE, -1);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_0", PF_ROLE_COMPUTE, 1);

	/* ":port": mlx5_0 has no port 2; mlx5_9:1 is its port 1 */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "mlx5_0:2,mlx5_9:1", NULL);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
	expect(r, &t, "mlx5_3", PF_ROLE_STORAGE, -1);

	/* a site's declaration wins over it */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "mlx5_9,mlx5_3", "mlx5_9");
	expect(r, &t, "mlx5_9", PF_ROLE_STORAGE, -1);
	assert_true(port_of(r, "mlx5_9", &t)->declared);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
}

static void test_nccl_ib_hca_selects_nothing(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	struct tnode t;

	(void)state;
	build(&t, true);
	/* '=' matches whole names: "mlx5" names no device, so the rules decide, and say so */
	r = with_hca(fs, &t, "=mlx5", NULL);
	assert_string_equal(r->rule, "gpu");
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 1);
	expect(r, &t, "mlx5_0", PF_ROLE_STORAGE, -1);
	assert_string_equal(port_of(r, "mlx5_9", &t)->reason,
			    "shares a PCIe switch with GPU 0000:10:00.0 (NCCL_IB_HCA==mlx5 "
			    "(environment) selects no port of this node)");
	assert_non_null(strstr(port_of(r, "mlx5_0", &t)->reason, "selects no port"));

	/* "=mlx5_3" is that one device */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "=mlx5_3", NULL);
	expect(r, &t, "mlx5_3", PF_ROLE_COMPUTE, 0);
	expect(r, &t, "mlx5_9", PF_ROLE_STORAGE, -1);

	/* "^" alone excludes everything: NCCL would use no RDMA port */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, "^", NULL);
	expect(r, &t, "mlx5_9", PF_ROLE_COMPUTE, 0);
	assert_non_null(strstr(port_of(r, "mlx5_9", &t)->reason, "selects no port"));

	/* an empty list restricts nothing, as unset: the rules, with no word of it */
	pf_rails_free(PF_TAKE_PTR(r));
	r = with_hca(fs, &t, ",", NULL);
	assert_string_equal(r->rule, "gpu");
	assert_string_equal(port_of(r, "mlx5_9", &t)->reason,
			    "shares a PCIe switch with GPU 0000:10:00.0");
}

/* Each port's LLDP neighbour, by its netdev; none known is no neighbour. */
static void test_lldp_identity(void **state)
{
	pf_autofs struct pf_fs *fs = pf_fs_open_empty();
	pf_autorails struct pf_rails *r = NULL;
	pf_autofree char *err = NULL;
	struct pf_netdev nd[2] = { { .name = (char *)"enp4s0np0", .rdma_dev = 2, .port = 1 },
				   { .name = (char *)"enp3s0np0", .rdma_dev = 1, .port = 1 } };
	struct pf_lldp_neighbors lldp;
	struct pf_rails_spec spec = { .lldp = &lldp };
	struct tnode t;

	(void)state;
	build(&t, true);
	t.node.netdevs = nd;
	t.node.n_netdevs = 2;
	t.ports[2].netdev = 0; /* mlx5_9 */
	t.ports[1].netdev = 1; /* mlx5_3: no neighbour */
	assert_int_equal(pf_parse_lldp_keyvalue("lldp.enp4s0np0.chassis.mac=b8:59:9f:00:00:01\n"
						"lldp.enp4s0np0.chassis.name=leaf07\n"
						"lldp.enp4s0np0.port.ifname=swp12\n", &lldp), 1);
	assert_int_equal(pf_rails_build(fs, &t.node, &spec, &r, &err), 0);
	assert_string_equal(port_of(r, "mlx5_9", &t)->lldp_chassis, "leaf07");
	assert_string_equal(port_of(r, "mlx5_9", &t)->lldp_port, "swp12");
	assert_string_equal(port_of(r, "mlx5_3", &t)->lldp_chassis, "");
	assert_string_equal(port_of(r, "mlx5_3", &t)->lldp_port, "");
	assert_string_equal(port_of(r, "mlx5_0", &t)->lldp_chassis, "");
	pf_lldp_neighbors_release(&lldp);
}

static void test_role_names(void **state)
{
	enum pf_port_role role;

	(void)state;
	for (int i = 0; i < PF_ROLE_COUNT; i++) {
		assert_int_equal(pf_port_role_from_name(pf_port_role_name(i), &role), 0);
		assert_int_equal(role, i);
	}
	assert_int_equal(pf_port_role_from_name("backend", &role), -EINVAL);
	assert_int_equal(pf_port_role_from_name(NULL, &role), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rails_follow_gpus),
		cmocka_unit_test(test_fastest_without_gpus),
		cmocka_unit_test(test_declared),
		cmocka_unit_test(test_nccl_ib_hca),
		cmocka_unit_test(test_nccl_ib_hca_selects_nothing),
		cmocka_unit_test(test_lldp_identity),
		cmocka_unit_test(test_role_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
