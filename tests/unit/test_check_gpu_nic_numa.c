// SPDX-License-Identifier: MIT
/*
 * test_check_gpu_nic_numa.c - the GPU/NIC affinity check on hand-built
 * inventories (the judging logic), on roots written by tests/gen_root.py
 * (through the sysfs loader), and on real lstopo exports in the shared
 * fixtures (through the hwloc loader; skipped when they are absent).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "preflight/node.h"
#include "registry.h"
#include "testutil.h"

/* --- building inventories by hand ----------------------------------------- */

static int add_pci(struct pf_node *node, const char *path, uint16_t vendor, uint32_t class,
		   int numa)
{
	struct pf_pci_dev *d;

	node->pci = pf_xrealloc(node->pci, (node->n_pci + 1) * sizeof(*node->pci));
	d = &node->pci[node->n_pci];
	memset(d, 0, sizeof(*d));
	snprintf(d->bdf, sizeof(d->bdf), "%s", strrchr(path, '/') + 1);
	d->path = pf_xstrdup(path);
	d->vendor = vendor;
	d->class = class;
	d->numa_node = numa;
	d->parent = -1;
	return (int)node->n_pci++;
}

static void add_gpu(struct pf_node *node, const char *path, int numa)
{
	int i = add_pci(node, path, PF_PCI_VENDOR_NVIDIA, 0x030200, numa);

	node->gpus = pf_xrealloc(node->gpus, (node->n_gpus + 1) * sizeof(*node->gpus));
	node->gpus[node->n_gpus++].pci = i;
}

static void add_nic(struct pf_node *node, const char *name, const char *path, int numa)
{
	struct pf_rdma_dev *d;

	node->rdma = pf_xrealloc(node->rdma, (node->n_rdma + 1) * sizeof(*node->rdma));
	d = &node->rdma[node->n_rdma++];
	memset(d, 0, sizeof(*d));
	d->name = pf_xstrdup(name);
	d->pci = path ? add_pci(node, path, PF_PCI_VENDOR_MELLANOX, 0x020700, numa) : -1;
}

static void add_numa(struct pf_node *node, int n)
{
	node->numa = pf_xcalloc((size_t)n, sizeof(*node->numa));
	for (int i = 0; i < n; i++) {
		node->numa[i].id = i;
		node->numa[i].cpulist = pf_xasprintf("%d-%d", i * 8, i * 8 + 7);
	}
	node->n_numa = (size_t)n;
}

/*
 * An 8-rail node: two sockets, each with two host bridges; each host bridge
 * has two root ports, each with a switch holding one GPU and one NIC (rail
 * i: GPU i and mlx5_i).  @skip_nic drops one NIC (-1 none).
 */
static struct pf_node *rail_node(int skip_nic)
{
	struct pf_node *node = pf_node_new("test");

	add_numa(node, 2);
	for (int i = 0; i < 8; i++) {
		unsigned int hb = 0x10 + 0x20 * (unsigned int)(i / 2), rp = 1 + (unsigned int)(i % 2);
		unsigned int up = hb + 1 + 8 * (unsigned int)(i % 2);
		char sw[128], gpu[256], nic[256], name[16];

		snprintf(sw, sizeof(sw), "/sys/devices/pci0000:%02x/0000:%02x:%02x.0/0000:%02x:00.0",
			 hb, hb, rp, up);
		snprintf(gpu, sizeof(gpu), "%s/0000:%02x:00.0/0000:%02x:00.0", sw, up + 1, up + 2);
		snprintf(nic, sizeof(nic), "%s/0000:%02x:01.0/0000:%02x:00.0", sw, up + 1, up + 3);
		add_gpu(node, gpu, i / 4);
		snprintf(name, sizeof(name), "mlx5_%d", i);
		if (i != skip_nic)
			add_nic(node, name, nic, i / 4);
	}
	return node;
}

static void run_on(struct pf_node *node, const char *const *sets, struct pf_result *res)
{
	pf_test_run_check_node("gpu_nic_numa", NULL, NULL, node, sets, res);
}

static const char *obs_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *exp_str(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->expected, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int obs_bool(const struct pf_finding *f, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(f->observed, key);

	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

static size_t count_status(const struct pf_result *res, enum pf_status st)
{
	size_t n = 0;

	for (size_t i = 0; i < res->n_findings; i++)
		n += res->findings[i].status == st;
	return n;
}

/* Finding of the GPU whose path ends in @bdf. */
static const struct pf_finding *gpu_finding(const struct pf_result *res, const char *bdf)
{
	const struct pf_finding *f = pf_test_finding(res, bdf);

	assert_non_null(f);
	return f;
}

/* --- hand-built inventories -------------------------------------------------- */

static void test_rails_pass(void **state)
{
	struct pf_node *node = rail_node(-1);
	struct pf_result res;

	(void)state;
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 8);
	for (int i = 0; i < 8; i++) {
		const struct pf_finding *f = &res.findings[i];
		char want[16];

		snprintf(want, sizeof(want), "mlx5_%d", i);
		assert_string_equal(obs_str(f, "nic"), want);
		assert_string_equal(obs_str(f, "class"), "PIX");
		assert_int_equal(obs_bool(f, "same_numa"), 1);
		assert_int_equal(obs_bool(f, "gdr_default"), 1);
		assert_string_equal(exp_str(f, "worst_class"), "PIX");
		assert_string_equal(exp_str(f, "worst_class_from"), "node");
		assert_non_null(strstr(f->message, f->subject));
		assert_non_null(strstr(f->message, want));
	}
	assert_non_null(strstr(res.summary,
			       "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"));
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_rail_without_nic(void **state)
{
	struct pf_node *node = rail_node(5);
	const struct pf_finding *f;
	struct pf_result res;

	(void)state;
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 1);
	assert_int_equal(count_status(&res, PF_STATUS_PASS), 7);
	/* GPU 5's best is its neighbour rail's NIC through the host bridge */
	f = gpu_finding(&res, node->pci[node->gpus[5].pci].bdf);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "nic"), "mlx5_4");
	assert_string_equal(obs_str(f, "class"), "PHB");
	assert_string_equal(exp_str(f, "worst_class"), "PIX");
	assert_non_null(strstr(f->message, f->subject));
	assert_non_null(strstr(f->message, "mlx5_4"));
	assert_non_null(f->remedy);
	assert_non_null(strstr(res.summary, "1 of 8"));
	pf_result_release(&res);
	pf_node_free(node);

	/* drop the other NIC of that host bridge too: GPUs 4 and 5 reach rails 6/7 on NUMA 1 */
	node = rail_node(5);
	for (size_t i = 0; i < node->n_rdma; i++)
		if (!strcmp(node->rdma[i].name, "mlx5_4"))
			node->rdma[i].pci = -1; /* a device without a PCI function is no NIC */
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 2);
	for (int g = 4; g <= 5; g++) {
		/* equally far: the first takes mlx5_6, the second the untaken mlx5_7 */
		const char *want = g == 4 ? "mlx5_6" : "mlx5_7";

		f = gpu_finding(&res, node->pci[node->gpus[g].pci].bdf);
		assert_int_equal(f->status, PF_STATUS_FAIL);
		assert_string_equal(obs_str(f, "class"), "NODE");
		assert_string_equal(obs_str(f, "nic"), want);
		assert_string_equal(exp_str(f, "worst_class"), "PIX");
		assert_non_null(strstr(f->message, f->subject));
		assert_non_null(strstr(f->message, want));
		assert_non_null(f->remedy);
	}
	assert_non_null(strstr(res.summary, "2 of 8"));
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_nic_wrong_socket(void **state)
{
	struct pf_node *node = pf_node_new("test");
	const struct pf_finding *f;
	struct pf_result res;

	(void)state;
	add_numa(node, 2);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0", 1);
	add_nic(node, "mlx5_1", "/sys/devices/pci0000:80/0000:80:02.0/0000:82:00.0", 1);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 2);
	f = gpu_finding(&res, "0000:01:00.0");
	assert_string_equal(obs_str(f, "class"), "SYS");
	assert_string_equal(obs_str(f, "nic"), "mlx5_0");
	assert_int_equal(obs_bool(f, "same_numa"), 0);
	assert_int_equal(obs_bool(f, "gdr_default"), 0);
	assert_non_null(strstr(f->message, "NUMA"));
	pf_result_release(&res);

	/* an operator who accepts it says so */
	run_on(node, (const char *const[]){ "gpu_nic_numa.require_numa=false", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	run_on(node, (const char *const[]){ "gpu_nic_numa.require_numa=false",
					    "gpu_nic_numa.worst_class=NODE", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_worst_class(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_result res;

	(void)state;
	add_numa(node, 1);
	/* GPU and NIC on different root ports of one host bridge: PHB */
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS); /* inferred: PHB is what this node has */
	assert_string_equal(obs_str(&res.findings[0], "class"), "PHB");
	assert_int_equal(obs_bool(&res.findings[0], "gdr_default"), 0);
	assert_non_null(strstr(res.findings[0].message, "no GPUDirect RDMA by default"));
	pf_result_release(&res);

	run_on(node, (const char *const[]){ "gpu_nic_numa.worst_class=PXB", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_string_equal(exp_str(&res.findings[0], "worst_class"), "PXB");
	assert_string_equal(exp_str(&res.findings[0], "worst_class_from"), "profile");
	pf_result_release(&res);

	run_on(node, (const char *const[]){ "gpu_nic_numa.worst_class=phb", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* not a class: refused when the profile is built (exit 64), never reaches run() */
	pf_test_config_rejected("gpu_nic_numa",
				(const char *const[]){ "gpu_nic_numa.worst_class=NVL", NULL }, "NVL");
	pf_test_config_rejected("gpu_nic_numa",
				(const char *const[]){ "gpu_nic_numa.worst_class=UNKNOWN", NULL },
				"worst_class");
	pf_node_free(node);
}

static void test_skips(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_result res;

	(void)state;
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "no NVIDIA GPU"));
	pf_result_release(&res);
	pf_node_free(node);

	node = pf_node_new("test");
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", 0);
	add_nic(node, "scif0", NULL, -1); /* no PCI parent: not a NIC */
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "no RDMA NIC"));
	pf_result_release(&res);

	/* a NIC list that names none of them */
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	run_on(node, (const char *const[]){ "gpu_nic_numa.nics=mlx5_9", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);
	run_on(node, (const char *const[]){ "gpu_nic_numa.ignore_gpus=0000:01:00.0", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);
	pf_node_free(node);

	/* no inventory at all is an error, not a pass */
	run_on(NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_result_release(&res);
}

static void test_ties_and_filters(void **state)
{
	struct pf_node *node = pf_node_new("test");
	const struct pf_finding *f;
	struct pf_result res;

	(void)state;
	add_numa(node, 2);
	/* a switch with a GPU and three NIC functions, one reporting another NUMA node */
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", 1);
	add_nic(node, "mlx5_3", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.1", 0);
	add_nic(node, "mlx5_2", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.0", 0);
	run_on(node, NULL, &res);
	f = gpu_finding(&res, "0000:03:00.0");
	/* NUMA first, then the name */
	assert_string_equal(obs_str(f, "nic"), "mlx5_2");
	assert_int_equal((int)cJSON_GetObjectItem(f->observed, "nics_at_class")->valuedouble, 3);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);

	/* only the NICs NCCL_IB_HCA would use */
	run_on(node, (const char *const[]){ "gpu_nic_numa.nics=mlx5_0", NULL }, &res);
	f = gpu_finding(&res, "0000:03:00.0");
	assert_string_equal(obs_str(f, "nic"), "mlx5_0");
	/* PIX, but the firmware puts the NIC on another NUMA node */
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_two_rails_one_switch(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_result res;

	(void)state;
	add_numa(node, 1);
	/* DGX A100 style: two GPUs and two NICs behind one switch are two rails */
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 0);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", 0);
	add_nic(node, "mlx5_1", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:03.0/0000:06:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.0", 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:03:00.0"), "nic"), "mlx5_0");
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:04:00.0"), "nic"), "mlx5_1");
	assert_non_null(strstr(res.summary, "mlx5_0,mlx5_1"));
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_unplaced(void **state)
{
	struct pf_node *node = pf_node_new("test");
	const struct pf_finding *f;
	struct pf_result res;

	(void)state;
	add_numa(node, 1);
	/* what the sysfs loader keeps when realpath fails: a path with no host bridge */
	add_gpu(node, "/sys/bus/pci/devices/0000:01:00.0", 0);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:02.0/0000:02:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/bus/pci/devices/0000:03:00.0", 0);
	add_nic(node, "mlx5_1", "/sys/devices/pci0000:00/0000:00:04.0/0000:04:00.0", 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	f = pf_test_finding(&res, "0000:01:00.0");
	assert_int_equal(f->status, PF_STATUS_ERROR);
	assert_non_null(strstr(f->message, "no host bridge"));
	f = pf_test_finding(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	f = pf_test_finding(&res, "0000:02:00.0");
	assert_int_equal(f->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(f, "nic"), "mlx5_1"); /* not the unplaced mlx5_0 */
	assert_non_null(strstr(res.summary, "1 not placed"));
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_numa_unknown(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_result res;

	(void)state;
	/* one NUMA node: numa_node -1 means "the only one" */
	add_numa(node, 1);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0", -1);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0", -1);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(&res.findings[0], "class"), "NODE");
	pf_result_release(&res);

	/* two NUMA nodes and no affinity from the firmware: cannot tell */
	free(node->numa[0].cpulist);
	free(node->numa);
	node->numa = NULL;
	node->n_numa = 0;
	add_numa(node, 2);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_string_equal(obs_str(&res.findings[0], "class"), "UNKNOWN");
	assert_non_null(res.findings[0].remedy);
	pf_result_release(&res);
	pf_node_free(node);
}

static void test_majority_tie(void **state)
{
	struct pf_node *node = pf_node_new("test");
	struct pf_result res;

	(void)state;
	add_numa(node, 2);
	/* socket 0: two GPUs with a NIC behind their switch; socket 1: two GPUs, no NIC */
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0", 0);
	add_gpu(node, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0", 0);
	add_nic(node, "mlx5_0", "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:02.0/0000:05:00.0", 0);
	add_gpu(node, "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:00.0/0000:83:00.0", 1);
	add_gpu(node, "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/0000:82:01.0/0000:84:00.0", 1);
	run_on(node, (const char *const[]){ "gpu_nic_numa.require_numa=false", NULL }, &res);
	/* two PIX and two SYS: the nearer class is the expectation */
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_finding(&res, "0000:03:00.0")->status, PF_STATUS_PASS);
	assert_int_equal(pf_test_finding(&res, "0000:83:00.0")->status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_finding(&res, "0000:84:00.0")->status, PF_STATUS_FAIL);
	assert_string_equal(exp_str(pf_test_finding(&res, "0000:84:00.0"), "worst_class"), "PIX");
	pf_result_release(&res);
	pf_node_free(node);
}

/* --- real lstopo exports -------------------------------------------------------- */

/* Load fixtures/@dir/@name from ../shared (the test is skipped when absent). */
static void load_xml(const char *dir, const char *name, struct pf_node **ret, int *ret_r,
		     char **ret_err)
{
	/* on the stack: a skip longjmps out of here, past every cleanup attribute */
	char rel[256];
	pf_autofree char *path = NULL;

	snprintf(rel, sizeof(rel), "fixtures/%s/%s", dir, name);
	path = pf_test_shared_or_skip(rel);

	*ret = NULL;
	*ret_r = pf_node_load_hwloc(NULL, path, ret, ret_err);
}

static void shared_xml_juwels_booster(void **state)
{
	struct pf_node *node;
	struct pf_result res;
	char *err = NULL;
	int r;
	static const char *const pairs[][2] = {
		{ "0000:03:00.0", "mlx5_1" }, { "0000:44:00.0", "mlx5_0" },
		{ "0000:84:00.0", "mlx5_3" }, { "0000:c4:00.0", "mlx5_2" },
	};

	(void)state;
	load_xml("hwloc-xml", "topo.jwb0001.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	assert_string_equal(node->source, "hwloc");
	assert_int_equal(node->n_gpus, 4);
	assert_int_equal(node->n_rdma, 4);
	assert_int_equal(node->n_numa, 8);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	for (size_t i = 0; i < PF_ARRAY_SIZE(pairs); i++) {
		const struct pf_finding *f = gpu_finding(&res, pairs[i][0]);

		assert_string_equal(obs_str(f, "nic"), pairs[i][1]);
		assert_string_equal(obs_str(f, "class"), "PIX");
		assert_int_equal(obs_bool(f, "same_numa"), 1);
	}
	pf_result_release(&res);
	pf_node_free(node);
}

static void shared_xml_jusuf(void **state)
{
	const struct pf_finding *f;
	struct pf_node *node;
	struct pf_result res;
	char *err = NULL;
	int r;

	(void)state;
	load_xml("hwloc-xml", "topo.jsfc005.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	assert_int_equal(node->n_gpus, 1);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = gpu_finding(&res, "0000:01:00.0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(f, "class"), "SYS");
	assert_int_equal((int)cJSON_GetObjectItem(f->observed, "gpu_numa")->valuedouble, 3);
	assert_int_equal((int)cJSON_GetObjectItem(f->observed, "nic_numa")->valuedouble, 2);
	assert_int_equal(obs_bool(f, "same_numa"), 0);
	/* both functions of the dual-port card are equally far: the name decides */
	assert_string_equal(obs_str(f, "nic"), "mlx5_0");
	assert_int_equal((int)cJSON_GetObjectItem(f->observed, "nics_at_class")->valuedouble, 2);
	pf_result_release(&res);
	pf_node_free(node);
}

static void shared_xml_others(void **state)
{
	struct pf_node *node;
	struct pf_result res;
	char *err = NULL;
	int r;

	(void)state;
	/* JURECA-DC: the JUWELS Booster layout (two ports down is nic_link_speed's business) */
	load_xml("hwloc-xml", "topo.jrc0386.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 4);
	assert_int_equal(node->rdma[0].n_ports, 1);
	pf_result_release(&res);
	pf_node_free(node);

	/* JUWELS Cluster: two GPUs and one HCA behind each switch */
	load_xml("hwloc-xml", "topo.jwc09n003.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:5d:00.0"), "nic"), "mlx5_0");
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:5e:00.0"), "nic"), "mlx5_0");
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:88:00.0"), "nic"), "mlx5_1");
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:89:00.0"), "class"), "PIX");
	pf_result_release(&res);
	pf_node_free(node);
}

/* hwloc 3 exports (XML 3.0): read through the osdev type translation. */
static void shared_xml_v3(void **state)
{
	const struct pf_rdma_dev *rdma;
	struct pf_node *node;
	struct pf_result res;
	char *err = NULL;
	int r;

	(void)state;
	/* DGX-2: 16 GPUs behind two levels of PLX switches, no NIC in the export */
	load_xml("hwloc-xml", "nvidiaDGX2.xml", &node, &r, &err);
	if (r < 0)
		fail_msg("%s", err);
	assert_int_equal(node->n_gpus, 16);
	assert_int_equal(node->n_rdma, 0);
	assert_non_null(strstr(node->notes[0], "hwloc 3 export"));
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	assert_non_null(strstr(res.summary, "16 GPUs but no RDMA NIC"));
	pf_result_release(&res);
	pf_node_free(node);

	/* X58, two sockets: mlx4_0 and one Tesla on the first, two Teslas alone on the second */
	load_xml("hwloc-xml", "24em64t-2n6c2t-pci.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	assert_int_equal(node->n_gpus, 3);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_finding(&res, "0000:06:00.0")->status, PF_STATUS_PASS);
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:06:00.0"), "class"), "PHB");
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:06:00.0"), "nic"), "mlx4_0");
	assert_int_equal(pf_test_finding(&res, "0000:11:00.0")->status, PF_STATUS_FAIL);
	assert_string_equal(obs_str(pf_test_finding(&res, "0000:11:00.0"), "class"), "SYS");
	assert_int_equal(pf_test_finding(&res, "0000:14:00.0")->status, PF_STATUS_FAIL);
	pf_result_release(&res);
	pf_node_free(node);

	/*
	 * A synthetic export in which 0000:04:00.0 names two functions, a SATA
	 * controller on socket 0 and the HCA on socket 1: each keeps its own.
	 */
	load_xml("hwloc-xml", "32em64t-2n8c2t-pci-normalio.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	rdma = pf_node_rdma(node, "mlx5_0");
	assert_non_null(rdma);
	assert_int_equal(node->pci[rdma->pci].numa_node, 1);
	assert_int_equal(node->pci[rdma->pci].vendor, PF_PCI_VENDOR_MELLANOX);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_finding(&res, "0000:03:00.0")->status, PF_STATUS_FAIL);
	assert_int_equal(pf_test_finding(&res, "0000:83:00.0")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);

	/* hwloc's Linux captures: no GPU; the HCAs with their NUMA node and port */
	load_xml("hwloc-linux", "40intel64-2g2n4c+pcilocality.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	rdma = pf_node_rdma(node, "qib0");
	assert_non_null(rdma);
	assert_string_equal(node->pci[rdma->pci].bdf, "0000:43:00.0");
	/* exported with HWLOC_PCI_LOCALITY forcing it near a group of NUMA nodes 1 and 3 */
	assert_int_equal(node->pci[rdma->pci].numa_node, -1);
	assert_non_null(node->pci[rdma->pci].local_cpulist);
	assert_int_equal(rdma->n_ports, 1);
	assert_int_equal(rdma->ports[0].state, 4);
	assert_int_equal(rdma->ports[0].link_layer, PF_LINK_IB); /* class 0x0c06 */
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_result_release(&res);
	pf_node_free(node);

	load_xml("hwloc-linux", "32em64t-2n8c+dax+nvme+mic+dimms.xml", &node, &r, &err);
	assert_int_equal(r, 0);
	rdma = pf_node_rdma(node, "mlx4_0");
	assert_non_null(rdma);
	assert_string_equal(node->pci[rdma->pci].bdf, "0000:82:00.0");
	assert_int_equal(node->pci[rdma->pci].numa_node, 1);
	assert_string_equal(node->pci[rdma->pci].local_cpulist, "8-15");
	assert_non_null(pf_node_netdev(node, "ib0"));
	assert_int_equal(pf_node_netdev(node, "ib0")->rdma_dev, rdma - node->rdma);
	pf_node_free(node);
}

static void test_xml_errors(void **state)
{
	char *dir = pf_test_mkdtemp(), path[PATH_MAX], *err = NULL;
	struct pf_node *node = NULL;

	(void)state;
	pf_test_write(dir, "corrupt.xml", "<?xml version=\"1.0\"?>\n<topology>\n<object type=");
	snprintf(path, sizeof(path), "%s/corrupt.xml", dir);
	assert_int_equal(pf_node_load_hwloc(NULL, path, &node, &err), -EINVAL);
	assert_null(node);
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;

	pf_test_write(dir, "empty.xml", "");
	snprintf(path, sizeof(path), "%s/empty.xml", dir);
	assert_int_equal(pf_node_load_hwloc(NULL, path, &node, &err), -EINVAL);
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;

	/* a version this hwloc does not know: said so, naming the file */
	pf_test_write(dir, "v9.xml", "<?xml version=\"1.0\"?>\n<topology version=\"9.0\">\n"
		      "<object type=\"Machine\"/>\n</topology>\n");
	snprintf(path, sizeof(path), "%s/v9.xml", dir);
	assert_int_equal(pf_node_load_hwloc(NULL, path, &node, &err), -EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "version 9.0"));
	free(err);
	err = NULL;

	snprintf(path, sizeof(path), "%s/absent.xml", dir);
	assert_int_equal(pf_node_load_hwloc(NULL, path, &node, &err), -ENOENT);
	assert_non_null(strstr(err, path));
	free(err);
	/* NULL ret_err is allowed */
	assert_int_equal(pf_node_load_hwloc(NULL, path, &node, NULL), -ENOENT);
	pf_test_rmtree(dir);
	free(dir);
}

/* A small hand-written 2.x export: paths, NUMA, ports, netdevs, no leaks from this host. */
static void test_xml_model(void **state)
{
	static const char xml[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
		"<topology version=\"2.0\">\n"
		" <object type=\"Machine\" os_index=\"0\" cpuset=\"0x0000000f\" complete_cpuset=\"0x0000000f\""
		"  allowed_cpuset=\"0x0000000f\" nodeset=\"0x00000003\" complete_nodeset=\"0x00000003\" allowed_nodeset=\"0x00000003\" gp_index=\"1\">\n"
		"  <object type=\"Package\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"2\">\n"
		"   <object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x00000003\" complete_cpuset=\"0x00000003\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"3\" local_memory=\"1000000\"/>\n"
		"   <object type=\"Core\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"4\">\n"
		"    <object type=\"PU\" os_index=\"0\" cpuset=\"0x00000001\" complete_cpuset=\"0x00000001\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"5\"/>\n"
		"   </object>\n"
		"   <object type=\"Core\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"6\">\n"
		"    <object type=\"PU\" os_index=\"1\" cpuset=\"0x00000002\" complete_cpuset=\"0x00000002\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"7\"/>\n"
		"   </object>\n"
		"   <object type=\"Bridge\" gp_index=\"20\" bridge_type=\"0-1\" depth=\"0\" bridge_pci=\"0001:[16-1c]\">\n"
		"    <object type=\"Bridge\" gp_index=\"21\" bridge_type=\"1-1\" depth=\"1\" bridge_pci=\"0001:[17-1c]\" pci_busid=\"0001:16:02.0\" pci_type=\"0604 [8086:2030] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n"
		"     <object type=\"Bridge\" gp_index=\"22\" bridge_type=\"1-1\" depth=\"2\" bridge_pci=\"0001:[18-1c]\" pci_busid=\"0001:17:00.0\" pci_type=\"0604 [10b5:9781] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n"
		"      <object type=\"Bridge\" gp_index=\"23\" bridge_type=\"1-1\" depth=\"3\" bridge_pci=\"0001:[1b-1b]\" pci_busid=\"0001:18:10.0\" pci_type=\"0604 [10b5:9781] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n"
		"       <object type=\"PCIDev\" gp_index=\"24\" pci_busid=\"0001:1b:00.0\" pci_type=\"0302 [10de:20b0] [10de:144e] a1\" pci_link_speed=\"0.000000\"/>\n"
		"      </object>\n"
		"      <object type=\"Bridge\" gp_index=\"25\" bridge_type=\"1-1\" depth=\"3\" bridge_pci=\"0001:[1c-1c]\" pci_busid=\"0001:18:14.0\" pci_type=\"0604 [10b5:9781] [0000:0000] 00\" pci_link_speed=\"0.000000\">\n"
		"       <object type=\"PCIDev\" gp_index=\"26\" pci_busid=\"0001:1c:00.0\" pci_type=\"0207 [15b3:101b] [15b3:0007] 00\" pci_link_speed=\"0.000000\">\n"
		"        <object type=\"OSDev\" gp_index=\"27\" name=\"ib0\" osdev_type=\"2\">\n"
		"         <info name=\"Port\" value=\"2\"/>\n"
		"        </object>\n"
		"        <object type=\"OSDev\" gp_index=\"28\" name=\"mlx5_7\" osdev_type=\"3\">\n"
		"         <info name=\"Port1State\" value=\"1\"/>\n"
		"         <info name=\"Port2State\" value=\"4\"/>\n"
		"         <info name=\"Port2LID\" value=\"0x12\"/>\n"
		"        </object>\n"
		"       </object>\n"
		"      </object>\n"
		"     </object>\n"
		"    </object>\n"
		"   </object>\n"
		"  </object>\n"
		"  <object type=\"Package\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"8\">\n"
		"   <object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"9\" local_memory=\"1000000\"/>\n"
		"   <object type=\"Core\" os_index=\"2\" cpuset=\"0x0000000c\" complete_cpuset=\"0x0000000c\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"10\">\n"
		"    <object type=\"PU\" os_index=\"2\" cpuset=\"0x00000004\" complete_cpuset=\"0x00000004\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"11\"/>\n"
		"    <object type=\"PU\" os_index=\"3\" cpuset=\"0x00000008\" complete_cpuset=\"0x00000008\" nodeset=\"0x00000002\" complete_nodeset=\"0x00000002\" gp_index=\"12\"/>\n"
		"   </object>\n"
		"  </object>\n"
		" </object>\n"
		"</topology>\n";
	char *dir = pf_test_mkdtemp(), path[PATH_MAX], *err = NULL;
	const struct pf_pci_dev *gpu, *nic;
	const struct pf_rdma_dev *rdma;
	struct pf_node *node = NULL;
	enum pf_path_class c;
	int r;

	(void)state;
	pf_test_write(dir, "t.xml", xml);
	snprintf(path, sizeof(path), "%s/t.xml", dir);
	r = pf_node_load_hwloc(NULL, path, &node, &err);
	if (r < 0)
		fail_msg("%s", err);
	assert_int_equal(node->n_numa, 2);
	assert_int_equal(node->numa[1].id, 1);
	assert_string_equal(node->numa[1].cpulist, "2-3");
	assert_int_equal(node->n_gpus, 1);
	gpu = &node->pci[node->gpus[0].pci];
	assert_string_equal(gpu->bdf, "0001:1b:00.0");
	assert_string_equal(gpu->path,
			    "/sys/devices/pci0001:16/0001:16:02.0/0001:17:00.0/0001:18:10.0/0001:1b:00.0");
	assert_int_equal(gpu->numa_node, 0);
	assert_string_equal(gpu->local_cpulist, "0-1");
	assert_int_equal(gpu->class, 0x030200);
	assert_int_equal(gpu->vendor, 0x10de);
	assert_int_equal(gpu->device, 0x20b0);
	assert_non_null(pf_node_pci(node, "0001:18:10.0"));
	assert_int_equal(gpu->parent, pf_node_pci_index(node, "0001:18:10.0"));
	assert_int_equal(pf_node_pci(node, "0001:16:02.0")->parent, -1);
	/* the host bridge is not a PCI function */
	assert_int_equal(node->n_pci, 6);

	assert_int_equal(node->n_rdma, 1);
	rdma = &node->rdma[0];
	assert_string_equal(rdma->name, "mlx5_7");
	nic = &node->pci[rdma->pci];
	assert_string_equal(nic->bdf, "0001:1c:00.0");
	assert_int_equal(rdma->n_ports, 2);
	assert_int_equal(rdma->ports[0].num, 1);
	assert_int_equal(rdma->ports[0].state, 1);
	assert_string_equal(rdma->ports[0].state_name, "DOWN");
	assert_int_equal(rdma->ports[1].state, 4);
	assert_string_equal(rdma->ports[1].state_name, "ACTIVE");
	assert_int_equal(rdma->ports[1].link_layer, PF_LINK_IB);
	assert_true(rdma->ports[1].rate_gbps == 0);
	assert_int_equal(node->n_netdevs, 1);
	assert_string_equal(node->netdevs[0].name, "ib0");
	assert_int_equal(node->netdevs[0].rdma_dev, 0);
	assert_int_equal(node->netdevs[0].port, 2);
	assert_int_equal(rdma->ports[1].netdev, 0);
	assert_int_equal(rdma->ports[0].netdev, -1);

	/* the synthesised paths classify like sysfs paths */
	assert_int_equal(pf_pci_path_classify(gpu->path, gpu->numa_node, nic->path, nic->numa_node,
					      &c), 0);
	assert_int_equal(c, PF_PATH_PIX);
	assert_non_null(node->notes);
	pf_node_free(node);
	pf_test_rmtree(dir);
	free(dir);
}

/* --- generated roots (tests/gen_root.py, through the sysfs loader) ----------------- */

static void test_gen_healthy(void **state)
{
	char *dir = pf_test_gen_root("--gpus 8 --nics 8");
	struct pf_result res;

	(void)state;
	pf_test_run_check("gpu_nic_numa", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 8);
	for (size_t i = 0; i < res.n_findings; i++)
		assert_string_equal(obs_str(&res.findings[i], "class"), "PIX");
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

static void test_gen_gpu_without_nic(void **state)
{
	char *dir = pf_test_gen_root("--gpus 8 --nics 8 --gpu-without-nic 3");
	struct pf_result res;

	(void)state;
	pf_test_run_check("gpu_nic_numa", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 1);
	assert_int_equal(count_status(&res, PF_STATUS_PASS), 7);
	/* findings come in GPU PCI order: the fourth GPU is the one without its NIC */
	assert_int_equal(res.findings[3].status, PF_STATUS_FAIL);
	assert_non_null(strstr(res.findings[3].message, res.findings[3].subject));
	assert_string_not_equal(obs_str(&res.findings[3], "class"), "PIX");
	assert_string_equal(exp_str(&res.findings[3], "worst_class"), "PIX");
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

static void test_gen_nic_wrong_socket(void **state)
{
	char *dir = pf_test_gen_root("--gpus 8 --nics 8 --nic-wrong-socket 2");
	struct pf_result res;

	(void)state;
	pf_test_run_check("gpu_nic_numa", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	/* GPU 2 lost its rail NIC to the other socket */
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 1);
	assert_int_equal(res.findings[2].status, PF_STATUS_FAIL);
	assert_string_not_equal(obs_str(&res.findings[2], "nic"), "mlx5_2");
	pf_result_release(&res);

	/* one GPU per socket, one NIC: the second GPU's only NIC is across the socket */
	pf_test_rmtree(dir);
	free(dir);
	dir = pf_test_gen_root("--gpus 2 --nics 1");
	pf_test_run_check("gpu_nic_numa", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	assert_int_equal(count_status(&res, PF_STATUS_FAIL), 1);
	assert_int_equal(res.findings[0].status, PF_STATUS_PASS);
	assert_string_equal(obs_str(&res.findings[1], "class"), "SYS");
	assert_int_equal(obs_bool(&res.findings[1], "same_numa"), 0);
	assert_non_null(strstr(res.findings[1].message, "NUMA"));
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* Domain 0001, a storage NIC on the chipset, NVSwitches (not GPUs), numa_node -1 everywhere. */
static void test_gen_variants(void **state)
{
	char *dir = pf_test_gen_root("--gpus 8 --nics 8 --domain 0001 --storage-nic --nvswitch 4 "
			     "--numa-minus-one");
	struct pf_result res;

	(void)state;
	pf_test_run_check("gpu_nic_numa", dir, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 8);
	for (size_t i = 0; i < res.n_findings; i++) {
		char want[32];

		snprintf(want, sizeof(want), "mlx5_%zu", i);
		assert_string_equal(obs_str(&res.findings[i], "class"), "PIX");
		assert_string_equal(obs_str(&res.findings[i], "nic"), want);
		assert_int_equal(strncmp(res.findings[i].subject, "0001:", 5), 0);
	}
	pf_result_release(&res);
	pf_test_rmtree(dir);
	free(dir);
}

/* gpu_nic_numa on a generated root: its status, and the fail findings' subjects in @fails. */
static enum pf_status gen_fails(const char *args, const char *const *sets, char *fails,
				size_t len, struct pf_result *res)
{
	char *dir = pf_test_gen_root(args);
	size_t o = 0;

	pf_test_run_check("gpu_nic_numa", dir, NULL, sets, res);
	fails[0] = '\0';
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status == PF_STATUS_FAIL && o < len)
			o += (size_t)snprintf(fails + o, len - o, "%s%s", o ? "," : "",
					      res->findings[i].subject);
	pf_test_rmtree(dir);
	free(dir);
	return res->status;
}

/*
 * Rail coverage on DGX A100-style switches (2 GPUs + 2 NICs each): a dead
 * NIC makes its GPU share the sibling's NIC at PIX, which the class rule
 * cannot see.  8 GPU + 4 NIC designs (2 GPUs per NIC on every switch) pass.
 */
static void test_gen_dead_rail_shared_switch(void **state)
{
	static const char *const all8[] = {
		"gpu_nic_numa.nics=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7", NULL
	};
	struct pf_result res;
	const struct pf_finding *f;
	char fails[512];

	(void)state;
	assert_int_equal(gen_fails("--gpus 8 --nics 8 --gpus-per-switch 2", NULL, fails,
				   sizeof(fails), &res), PF_STATUS_PASS);
	pf_result_release(&res);

	/* one NIC gone: the second GPU of its switch shares the first's NIC */
	assert_int_equal(gen_fails("--gpus 8 --nics 8 --gpus-per-switch 2 --missing-nic mlx5_3",
				   NULL, fails, sizeof(fails), &res), PF_STATUS_FAIL);
	assert_string_equal(fails, "0000:1c:00.0");
	f = gpu_finding(&res, "0000:1c:00.0");
	assert_non_null(strstr(f->message, "shares mlx5_2 with 0000:1b:00.0"));
	assert_non_null(strstr(f->message, "has 1 NIC for 2 GPUs where this node's switches "
				"have 2 for 2"));
	assert_string_equal(obs_str(f, "nic"), "mlx5_2");
	/* the profile names the missing one */
	pf_result_release(&res);
	assert_int_equal(gen_fails("--gpus 8 --nics 8 --gpus-per-switch 2 --missing-nic mlx5_3",
				   all8, fails, sizeof(fails), &res), PF_STATUS_FAIL);
	assert_non_null(strstr(gpu_finding(&res, "0000:1c:00.0")->message, "mlx5_3"));
	pf_result_release(&res);

	/* half the switches short: a tie goes to the richer layout */
	assert_int_equal(gen_fails("--gpus 8 --nics 8 --gpus-per-switch 2 "
				   "--missing-nic mlx5_1,mlx5_3", NULL, fails, sizeof(fails), &res),
			 PF_STATUS_FAIL);
	assert_string_equal(fails, "0000:14:00.0,0000:1c:00.0");
	pf_result_release(&res);

	/* every switch short: only the profile's nics can tell */
	assert_int_equal(gen_fails("--gpus 8 --nics 8 --gpus-per-switch 2 "
				   "--missing-nic mlx5_1,mlx5_3,mlx5_5,mlx5_7", all8, fails,
				   sizeof(fails), &res), PF_STATUS_FAIL);
	assert_non_null(strstr(fails, "nics"));
	assert_non_null(strstr(pf_test_finding(&res, "nics")->message,
			       "mlx5_1, mlx5_3, mlx5_5, mlx5_7"));
	pf_result_release(&res);

	/* 8 GPUs + 4 NICs by design: 2 GPUs share each NIC on every switch */
	assert_int_equal(gen_fails("--gpus 8 --nics 4 --gpus-per-switch 2", NULL, fails,
				   sizeof(fails), &res), PF_STATUS_PASS);
	assert_string_equal(obs_str(gpu_finding(&res, "0000:1c:00.0"), "nic"), "mlx5_1");
	pf_result_release(&res);
}

/*
 * DGX A100 as nvidia-smi topo -m shows it (GPU0 PXB to NIC0 and NIC1): per
 * top-level PCIe switch two GPUs, each behind its own second-level switch,
 * and two NICs.  Parents are set as the loaders set them.  @skip drops NICs
 * (a bit per NIC).
 */
static struct pf_node *a100_node(unsigned int skip)
{
	struct pf_node *node = pf_node_new("test");

	add_numa(node, 1);
	for (unsigned int t = 0; t < 2; t++) {
		unsigned int b = 0x10 + 0x40 * t;
		char rp[96], up[128], p[512];
		int i_rp, i_up;

		snprintf(rp, sizeof(rp), "/sys/devices/pci0000:%02x/0000:%02x:01.0", b, b);
		i_rp = add_pci(node, rp, 0x8086, 0x060400, 0);
		snprintf(up, sizeof(up), "%s/0000:%02x:00.0", rp, b + 1);
		i_up = add_pci(node, up, 0x1000, 0x060400, 0);
		node->pci[i_up].parent = i_rp;
		for (unsigned int k = 0; k < 4; k++) {
			char dn[160], name[16];
			int i_dn, i_ep;

			snprintf(dn, sizeof(dn), "%s/0000:%02x:%02x.0", up, b + 2, k);
			i_dn = add_pci(node, dn, 0x1000, 0x060400, 0);
			node->pci[i_dn].parent = i_up;
			if (k < 2) {
				char sup[224], sdn[288];
				int i_sup, i_sdn;

				snprintf(sup, sizeof(sup), "%s/0000:%02x:00.0", dn, b + 3 + 4 * k);
				i_sup = add_pci(node, sup, 0x1000, 0x060400, 0);
				node->pci[i_sup].parent = i_dn;
				snprintf(sdn, sizeof(sdn), "%s/0000:%02x:00.0", sup, b + 4 + 4 * k);
				i_sdn = add_pci(node, sdn, 0x1000, 0x060400, 0);
				node->pci[i_sdn].parent = i_sup;
				snprintf(p, sizeof(p), "%s/0000:%02x:00.0", sdn, b + 5 + 4 * k);
				add_gpu(node, p, 0);
				i_ep = node->gpus[node->n_gpus - 1].pci;
				node->pci[i_ep].parent = i_sdn;
			} else {
				unsigned int nic = 2 * t + k - 2;

				if (skip & (1u << nic))
					continue;
				snprintf(p, sizeof(p), "%s/0000:%02x:00.0", dn, b + 0x20 + k);
				snprintf(name, sizeof(name), "mlx5_%u", nic);
				add_nic(node, name, p, 0);
				i_ep = node->rdma[node->n_rdma - 1].pci;
				node->pci[i_ep].parent = i_dn;
			}
		}
	}
	return node;
}

static void test_a100_nested_switches(void **state)
{
	struct pf_node *node;
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	node = a100_node(0);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_string_equal(obs_str(gpu_finding(&res, node->pci[node->gpus[1].pci].bdf), "class"),
			    "PXB");
	pf_result_release(&res);
	pf_node_free(node);

	/* mlx5_1 gone: GPU 1 falls back to mlx5_0 at the same PXB */
	node = a100_node(1u << 1);
	run_on(node, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = gpu_finding(&res, node->pci[node->gpus[1].pci].bdf);
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_non_null(strstr(f->message, "shares mlx5_0 with"));
	assert_int_equal(gpu_finding(&res, node->pci[node->gpus[0].pci].bdf)->status,
			 PF_STATUS_PASS);
	pf_result_release(&res);
	pf_node_free(node);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rails_pass),
		cmocka_unit_test(test_rail_without_nic),
		cmocka_unit_test(test_nic_wrong_socket),
		cmocka_unit_test(test_worst_class),
		cmocka_unit_test(test_skips),
		cmocka_unit_test(test_ties_and_filters),
		cmocka_unit_test(test_two_rails_one_switch),
		cmocka_unit_test(test_unplaced),
		cmocka_unit_test(test_numa_unknown),
		cmocka_unit_test(test_majority_tie),
		cmocka_unit_test(test_xml_model),
		cmocka_unit_test(test_xml_errors),
		cmocka_unit_test(shared_xml_juwels_booster),
		cmocka_unit_test(shared_xml_jusuf),
		cmocka_unit_test(shared_xml_others),
		cmocka_unit_test(shared_xml_v3),
		cmocka_unit_test(test_gen_healthy),
		cmocka_unit_test(test_gen_gpu_without_nic),
		cmocka_unit_test(test_gen_nic_wrong_socket),
		cmocka_unit_test(test_gen_variants),
		cmocka_unit_test(test_gen_dead_rail_shared_switch),
		cmocka_unit_test(test_a100_nested_switches),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
