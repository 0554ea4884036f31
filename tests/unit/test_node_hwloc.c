// SPDX-License-Identifier: MIT
/*
 * test_node_hwloc.c - the inventory from an lstopo XML export
 * (src/node/node_hwloc.c): what a function, GPU, RDMA device, port and
 * netdev become, hwloc 3 exports translated, the export found in a snapshot
 * root and never followed out of it, the fuzz corpus's malformed exports
 * (an error naming the file, never a crash), and every real export in
 * ../shared loading into a consistent model.  The loader on a full 2.x export
 * and its version errors are also covered by test_check_gpu_nic_numa.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "preflight/node.h"
#include "testutil.h"

/*
 * One socket-per-NUMA-node machine (CPUs 0-1 on node 0, 2-3 on node 1); the
 * host bridge 0000:[00-01] under node 0 holds the root port 0000:00:01.0 and
 * @devices on bus 01.  %s: the <topology> version.
 */
static char *export_xml(const char *version, const char *devices)
{
	return pf_xasprintf(
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
		"<topology version=\"%s\">\n"
		" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" "
		"complete_cpuset=\"0x0000000f\" allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000003\" "
		"complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
		"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000003\" "
		"complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
		"gp_index=\"2\">\n"
		"   <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000003\" "
		"complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" "
		"gp_index=\"3\" local_memory=\"1000000\"/>\n"
		"   <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" "
		"nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\"/>\n"
		"   <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" "
		"nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
		"   <object type=\"Bridge\" gp_index=\"20\" bridge_type=\"0-1\" depth=\"0\" "
		"bridge_pci=\"0000:[00-01]\">\n"
		"    <object type=\"Bridge\" gp_index=\"21\" bridge_type=\"1-1\" depth=\"1\" "
		"bridge_pci=\"0000:[01-01]\" pci_busid=\"0000:00:01.0\" "
		"pci_type=\"0604 [8086:2030] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n"
		"%s"
		"    </object>\n"
		"   </object>\n"
		"  </object>\n"
		"  <object type=\"Package\" os_index=\"1\" cpuset=\"0x0000000c\" "
		"complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" "
		"gp_index=\"8\">\n"
		"   <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000c\" "
		"complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" "
		"gp_index=\"9\" local_memory=\"1000000\"/>\n"
		"   <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" "
		"nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"10\"/>\n"
		"   <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\" "
		"nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"11\"/>\n"
		"  </object>\n"
		" </object>\n"
		"</topology>\n",
		version, devices);
}

#define PCIDEV(gp, fn, cls, ven, dev, children)                                              \
	"     <object type=\"PCIDev\" gp_index=\"" #gp "\" pci_busid=\"0000:01:00." #fn "\" "     \
	"pci_type=\"" cls " [" ven ":" dev "] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n" \
	children "     </object>\n"
#define OSDEV(gp, name, type, infos)                                                          \
	"      <object type=\"OSDev\" gp_index=\"" #gp "\" name=\"" name "\" osdev_type=\"" type \
	"\">\n" infos "      </object>\n"
#define INFO(k, v) "       <info name=\"" k "\" value=\"" v "\"/>\n"

/* Write @xml to @dir/@name and load it; the return value of the loader. */
static int load(const char *dir, const char *name, const char *xml, struct pf_node **node,
		char **err)
{
	pf_autofree char *path = pf_xasprintf("%s/%s", dir, name);

	pf_test_write(dir, name, xml);
	*node = NULL;
	*err = NULL;
	return pf_node_load_hwloc(NULL, path, node, err);
}

/* GPUs by class, the driver's OS devices, ports and their netdevs, NICs without ports. */
static void test_devices(void **state)
{
	static const char devices[] =
		/* an H100 with the OS devices that NVIDIA's libraries create */
		PCIDEV(30, 0, "0302", "10de", "2330",
		       OSDEV(31, "cuda0", "5", "") OSDEV(32, "nvml0", "1", ""))
		/* a display-class NVIDIA GPU without them */
		PCIDEV(33, 1, "0300", "10de", "2236", "")
		/* an NVSwitch: NVIDIA, but not a GPU */
		PCIDEV(34, 2, "0680", "10de", "22a3", "")
		/* RoCE: Ethernet class; port 3 only listed (1 and 2 unknown); junk infos */
		PCIDEV(35, 3, "0200", "15b3", "1021",
		       OSDEV(36, "mlx5_1", "3",
			     INFO("Port3State", "4") INFO("Port999State", "4")
				     INFO("Port2Statex", "4") INFO("PortState", "4"))
			       OSDEV(37, "enp1s0f3np0", "2", INFO("Port", "3"))
				       OSDEV(38, "enp1s0f3np1", "2", INFO("Port", "7")))
		/* InfiniBand class; a state hwloc never writes */
		PCIDEV(39, 4, "0207", "15b3", "1021",
		       OSDEV(40, "mlx5_0", "3", INFO("Port1State", "9"))
			       OSDEV(41, "ib0", "2", ""))
		/* Amazon EFA exported with an Ethernet class: not RoCE */
		PCIDEV(42, 5, "0200", "1d0f", "efa1",
		       OSDEV(43, "rdmap1s0f5", "3", INFO("Port1State", "4")));
	pf_autofree char *xml = export_xml("2.0", devices);
	const struct pf_rdma_dev *roce, *ib, *efa;
	struct pf_node *node;
	char *err;

	if (load(*state, "t.xml", xml, &node, &err) < 0)
		fail_msg("%s", err);
	assert_string_equal(node->source, "hwloc");
	/* the root port and six functions, in BDF order */
	assert_int_equal(node->n_pci, 7);
	assert_string_equal(node->pci[0].bdf, "0000:00:01.0");
	assert_string_equal(node->pci[6].bdf, "0000:01:00.5");
	assert_string_equal(node->pci[3].path,
			    "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.2");
	assert_int_equal(node->pci[3].parent, 0);
	assert_int_equal(node->pci[3].class, 0x068000);
	assert_int_equal(node->pci[3].device, 0x22a3);
	assert_int_equal(node->pci[3].numa_node, 0);
	assert_string_equal(node->pci[3].local_cpulist, "0-1");

	assert_int_equal(node->n_gpus, 2);
	assert_string_equal(node->pci[node->gpus[0].pci].bdf, "0000:01:00.0");
	assert_string_equal(node->gpus[0].driver_osdev, "cuda0");
	assert_string_equal(node->pci[node->gpus[1].pci].bdf, "0000:01:00.1");
	assert_string_equal(node->gpus[1].driver_osdev, "");

	assert_int_equal(node->n_rdma, 3);
	roce = pf_node_rdma(node, "mlx5_1");
	assert_non_null(roce);
	assert_string_equal(node->pci[roce->pci].bdf, "0000:01:00.3");
	assert_int_equal(roce->n_ports, 3);
	assert_int_equal(roce->ports[0].num, 1);
	assert_int_equal(roce->ports[0].state, 0);
	assert_null(roce->ports[0].state_name);
	assert_int_equal(roce->ports[2].state, 4);
	assert_string_equal(roce->ports[2].state_name, "ACTIVE");
	assert_int_equal(roce->ports[2].link_layer, PF_LINK_ETH);
	assert_true(roce->ports[2].rate_gbps == 0); /* never in an export */
	/* the netdev on port 3; one naming a port the device lacks has none */
	assert_int_equal(pf_node_netdev(node, "enp1s0f3np0")->port, 3);
	assert_int_equal(roce->ports[2].netdev,
			 pf_node_netdev(node, "enp1s0f3np0") - node->netdevs);
	assert_int_equal(pf_node_netdev(node, "enp1s0f3np1")->rdma_dev, roce - node->rdma);
	assert_int_equal(pf_node_netdev(node, "enp1s0f3np1")->port, 0);
	assert_true(pf_node_netdev(node, "enp1s0f3np1")->speed_mbps == -1);

	ib = pf_node_rdma(node, "mlx5_0");
	assert_int_equal(ib->n_ports, 1);
	assert_int_equal(ib->ports[0].state, 0);
	assert_int_equal(ib->ports[0].link_layer, PF_LINK_IB);
	/* no Port info: port 1 */
	assert_int_equal(pf_node_netdev(node, "ib0")->port, 1);
	assert_int_equal(ib->ports[0].netdev, pf_node_netdev(node, "ib0") - node->netdevs);

	efa = pf_node_rdma(node, "rdmap1s0f5");
	assert_int_equal(efa->ports[0].state, 4);
	assert_int_equal(efa->ports[0].link_layer, PF_LINK_UNKNOWN);

	assert_int_equal(node->n_numa, 2);
	assert_string_equal(node->numa[1].cpulist, "2-3");
	assert_true(pf_test_notes_have(node->notes, "no PCIe link speeds"));
	pf_node_free(node);
}

/* An hwloc 3 export: osdev_type is a bitmask there, translated for hwloc 2. */
static void test_v3_translated(void **state)
{
	static const char devices[] = PCIDEV(30, 0, "0207", "15b3", "101b",
					     OSDEV(31, "ib0", "16", INFO("Port", "1"))
						     OSDEV(32, "mlx5_7", "48",
							   INFO("Port1State", "4")))
		PCIDEV(33, 1, "0302", "10de", "20b0", OSDEV(34, "nvml0", "12", ""));
	pf_autofree char *v3 = export_xml("3.0", devices);
	struct pf_node *node;
	char *err;
	int r;

	r = load(*state, "v3.xml", v3, &node, &err);
	if (r < 0)
		fail_msg("%s", err);
	/* NETWORK|OPENFABRICS is the RDMA device, NETWORK alone the netdev */
	assert_int_equal(node->n_rdma, 1);
	assert_string_equal(node->rdma[0].name, "mlx5_7");
	assert_int_equal(node->rdma[0].ports[0].state, 4);
	assert_int_equal(node->n_netdevs, 1);
	assert_string_equal(node->netdevs[0].name, "ib0");
	assert_int_equal(node->netdevs[0].rdma_dev, 0);
	assert_string_equal(node->gpus[0].driver_osdev, "nvml0");
	assert_true(pf_test_notes_have(node->notes, "an hwloc 3 export (XML 3.0)"));
	pf_node_free(node);

	/* the same export as 2.0 is read as it is: hwloc 2 knows no osdev_type 16 or 48 */
	pf_autofree char *v2 = export_xml("2.0", devices);

	r = load(*state, "v2.xml", v2, &node, &err);
	if (r == 0) {
		assert_int_equal(node->n_rdma, 0);
		assert_false(pf_test_notes_have(node->notes, "hwloc 3 export"));
		pf_node_free(node);
	} else {
		assert_non_null(strstr(err, "v2.xml"));
		free(err);
	}
}

/* An RDMA OS device hanging off no PCI function is skipped with a note. */
static void test_rdma_without_pci(void **state)
{
	pf_autofree char *xml = NULL;
	static const char devices[] = PCIDEV(30, 0, "0207", "15b3", "101b", "");
	char *fixed, *at;
	struct pf_node *node;
	char *err;

	xml = export_xml("2.0", devices);
	/* an OpenFabrics device under the Machine itself, as hwloc puts scif0 */
	at = strstr(xml, "  <object type=\"Package\" os_index=\"1\"");
	assert_non_null(at);
	fixed = pf_xasprintf("%.*s  <object type=\"OSDev\" gp_index=\"50\" name=\"scif0\" "
			     "osdev_type=\"3\"/>\n%s",
			     (int)(at - xml), xml, at);
	if (load(*state, "t.xml", fixed, &node, &err) < 0)
		fail_msg("%s", err);
	assert_int_equal(node->n_rdma, 0);
	assert_true(pf_test_notes_have(node->notes,
				       "scif0: RDMA device without a PCI parent, skipped"));
	pf_node_free(node);
	free(fixed);
}

/*
 * In a snapshot, <root>/preflight/topology.xml is read through the root: a
 * link in it that points out of the snapshot is resolved inside the root.
 */
static void test_snapshot_root(void **state)
{
	const char *dir = *state;
	pf_autofree char *xml = export_xml("2.0", PCIDEV(30, 0, "0302", "10de", "2330", ""));
	pf_autofree char *root = pf_xasprintf("%s/root", dir);
	pf_autofree char *outside = pf_xasprintf("%s/outside.xml", dir);
	pf_autofree char *path = NULL;
	struct pf_node *node = NULL;
	struct pf_fs *fs = NULL;
	char *err = NULL;
	int r;

	pf_test_write(root, "preflight/topology.xml", xml);
	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	assert_string_equal(node->source, "hwloc");
	assert_int_equal(node->n_gpus, 1);
	node = pf_node_free(node);
	pf_fs_free(fs);

	/* the export outside the root, linked by its absolute host path */
	pf_test_write(dir, "outside.xml", xml);
	pf_test_symlink(root, "preflight/topology.xml", outside);
	assert_int_equal(pf_fs_open(root, &fs), 0);
	/* the loader opens it through the root, where the link leads nowhere */
	path = pf_xasprintf("%s/preflight/topology.xml", root);
	r = pf_node_load_hwloc(fs, path, &node, &err);
	assert_int_equal(r, -ENOENT);
	assert_null(node);
	assert_non_null(strstr(err, "preflight/topology.xml"));
	free(err);
	err = NULL;
	/* so the inventory is the root's sysfs (none here), not the file outside */
	assert_int_equal(pf_node_load(fs, NULL, &node, &err), 0);
	assert_string_equal(node->source, "sysfs");
	assert_int_equal(node->n_gpus, 0);
	pf_node_free(node);
	pf_fs_free(fs);
}

/*
 * The fuzz corpus (tests/fuzz/corpus/hwloc_xml): the well-formed exports
 * load, every malformed one is an error that names the file (crashes of
 * hwloc's own parser are caught in a child), none takes the process down.
 */
static void test_corpus(void **state)
{
	static const struct {
		const char *file;
		int want; /* 0, or 1: an error (which one depends on hwloc's XML backend) */
		size_t n_rdma;
	} corpus[] = {
		{ "model-2.0", 0, 1 },
		/* osdev_type 2 and 3 read as hwloc 3 bitmasks: no OpenFabrics bit */
		{ "v3", 0, 0 },
		{ "empty", 1, 0 },
		{ "corrupt", 1, 0 },
		{ "v9", 1, 0 },
	};
	static const char *const unsure[] = {
		"busid-junk", "hwloc-crashes-nolibxml", "hwloc-leaks-on-bad-xml",
		"osdev-type-not-a-number",
	};

	(void)state;
	for (size_t i = 0; i < PF_ARRAY_SIZE(corpus); i++) {
		pf_autofree char *path = pf_xasprintf("%s/tests/fuzz/corpus/hwloc_xml/%s",
						      PF_SOURCE_DIR, corpus[i].file);
		struct pf_node *node = NULL;
		char *err = NULL;
		int r = pf_node_load_hwloc(NULL, path, &node, &err);

		if (!corpus[i].want) {
			if (r < 0)
				fail_msg("%s: %s", corpus[i].file, err);
			assert_int_equal(node->n_rdma, corpus[i].n_rdma);
			assert_int_equal(node->n_gpus, 1);
			pf_node_free(node);
			continue;
		}
		if (r != -EINVAL && r != -EIO)
			fail_msg("%s: %d, expected -EINVAL or -EIO", corpus[i].file, r);
		assert_null(node);
		assert_non_null(strstr(err, path));
		free(err);
	}
	/* hwloc may accept these or not; either way an answer, and an error names the file */
	for (size_t i = 0; i < PF_ARRAY_SIZE(unsure); i++) {
		pf_autofree char *path = pf_xasprintf("%s/tests/fuzz/corpus/hwloc_xml/%s",
						      PF_SOURCE_DIR, unsure[i]);
		struct pf_node *node = NULL;
		char *err = NULL;
		int r = pf_node_load_hwloc(NULL, path, &node, &err);

		if (r == 0) {
			assert_non_null(node);
			pf_node_free(node);
			continue;
		}
		if (r != -EINVAL && r != -EIO)
			fail_msg("%s: %d (%s)", unsure[i], r, err ? err : "");
		assert_non_null(strstr(err, path));
		free(err);
	}
}

/*
 * Every real export in ../shared/fixtures/hwloc-xml loads into a consistent
 * model: parents precede nothing absurd, each function's path ends with its
 * BDF below its parent's path, GPUs and RDMA devices point at functions.
 */
static void shared_real_exports(void **state)
{
	pf_autofree char *dir = pf_test_shared_or_skip("fixtures/hwloc-xml");
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t files = 0, gpus = 0, rdma = 0;

	(void)state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		pf_autofree char *path = NULL;
		struct pf_node *node = NULL;
		char *err = NULL;
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".xml"))
			continue;
		path = pf_xasprintf("%s/%s", dir, e->d_name);
		if (pf_node_load_hwloc(NULL, path, &node, &err) < 0)
			fail_msg("%s", err);
		files++;
		for (size_t i = 0; i < node->n_pci; i++) {
			const struct pf_pci_dev *p = &node->pci[i];
			const char *base = strrchr(p->path, '/');

			assert_non_null(base);
			assert_string_equal(base + 1, p->bdf);
			assert_true(!strncmp(p->path, "/sys/devices/pci", 16));
			if (p->parent >= 0) {
				const char *pp = node->pci[p->parent].path;

				assert_true(p->parent < (int)node->n_pci);
				if (strncmp(p->path, pp, strlen(pp)) || p->path[strlen(pp)] != '/')
					fail_msg("%s: %s is not below its parent %s",
						 e->d_name, p->path, pp);
			}
			assert_true(p->numa_node >= -1 && p->numa_node < 64);
		}
		for (size_t i = 0; i < node->n_gpus; i++) {
			assert_true(node->gpus[i].pci >= 0 && node->gpus[i].pci < (int)node->n_pci);
			assert_int_equal(node->pci[node->gpus[i].pci].vendor, PF_PCI_VENDOR_NVIDIA);
		}
		for (size_t i = 0; i < node->n_rdma; i++)
			assert_true(node->rdma[i].pci >= 0 && node->rdma[i].pci < (int)node->n_pci);
		gpus += node->n_gpus;
		rdma += node->n_rdma;
		assert_true(pf_test_notes_have(node->notes, "no PCIe link speeds"));
		pf_node_free(node);
	}
	closedir(d);
	/* the seven exports of ../shared (JUWELS, JUSUF, JURECA, DGX-2, ...) */
	assert_true(files >= 7);
	assert_true(gpus >= 16 + 4);
	assert_true(rdma >= 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		pf_test_in_tmpdir(test_devices),
		pf_test_in_tmpdir(test_v3_translated),
		pf_test_in_tmpdir(test_rdma_without_pci),
		pf_test_in_tmpdir(test_snapshot_root),
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(shared_real_exports),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
