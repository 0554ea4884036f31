// SPDX-License-Identifier: MIT
/*
 * test_snapshot.c - `preflight snapshot` on a hand-made source root: sysfs
 * links are recreated with their targets, files land at their canonical
 * place, only the table's paths are copied, unused GID slots are skipped
 * quietly while unreadable paths are logged, and the provider facts are
 * written in the text the recorded providers read back to the same values
 * ("not supported" included).  A non-empty destination is refused.
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/net_facts.h"
#include "snapshot.h"
#include "testutil.h"

#define BR "sys/devices/pci0000:00/0000:00:01.0"
#define NIC BR "/0000:17:00.0"

static void make_source(const char *root)
{
	pf_test_write(root, BR "/vendor", "0x8086\n");
	pf_test_write(root, BR "/class", "0x060400\n");
	pf_test_write(root, BR "/config", "bridge-config");
	pf_test_write(root, BR "/numa_node", "0\n");
	pf_test_write(root, BR "/uevent", "not in the table\n");
	pf_test_write(root, NIC "/vendor", "0x15b3\n");
	pf_test_write(root, NIC "/class", "0x020000\n");
	pf_test_write(root, NIC "/config", "nic-config");
	pf_test_write(root, NIC "/numa_node", "1\n");
	pf_test_write(root, NIC "/local_cpulist", "8-15\n");
	pf_test_write(root, NIC "/current_link_speed", "32.0 GT/s PCIe\n");
	pf_test_write(root, NIC "/net/eth0/type", "1\n");
	pf_test_write(root, NIC "/net/eth0/mtu", "4200\n");
	pf_test_write(root, NIC "/net/eth0/operstate", "up\n");
	pf_test_symlink(root, NIC "/net/eth0/device", "../../../0000:17:00.0");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/link_layer", "Ethernet\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/gids/0", "fe80::1\n");
	/* an unused slot: reading it fails (here EISDIR), its GID is not copied */
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/1/x", "");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/gids/1", "::\n");
	pf_test_write(root, NIC "/infiniband/mlx5_0/ports/1/hw_counters/rx_prio3_pause", "7\n");
	pf_test_symlink(root, NIC "/infiniband/mlx5_0/device", "../../../0000:17:00.0");
	pf_test_symlink(root, "sys/bus/pci/devices/0000:00:01.0",
			"../../../devices/pci0000:00/0000:00:01.0");
	pf_test_symlink(root, "sys/bus/pci/devices/0000:17:00.0",
			"../../../devices/pci0000:00/0000:00:01.0/0000:17:00.0");
	pf_test_symlink(root, "sys/class/net/eth0",
			"../../devices/pci0000:00/0000:00:01.0/0000:17:00.0/net/eth0");
	pf_test_symlink(root, "sys/class/infiniband/mlx5_0",
			"../../devices/pci0000:00/0000:00:01.0/0000:17:00.0/infiniband/mlx5_0");
	pf_test_symlink(root, "sys/class/net/loop0", "loop0"); /* ELOOP: logged */
	pf_test_write(root, "proc/self/limits",
		      "Limit                     Soft Limit           Hard Limit           Units\n"
		      "Max locked memory         65536                65536                bytes\n");
	pf_test_write(root, "proc/sys/net/core/rmem_max", "4194304\n");
	pf_test_write(root, "proc/sys/net/ipv4/conf/eth0/rp_filter", "1\n");
	pf_test_write(root, "proc/sys/net/ipv4/conf/eth0/forwarding", "0\n");
	pf_test_write(root, "sys/kernel/junk", "not in the table\n");
}

#define GPU BR "/0000:18:00.0"
#define KMSG "NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.\n"

static void add_gpu(const char *root)
{
	pf_test_write(root, GPU "/vendor", "0x10de\n");
	pf_test_write(root, GPU "/device", "0x2330\n");
	pf_test_write(root, GPU "/class", "0x030200\n");
	pf_test_write(root, GPU "/numa_node", "0\n");
	pf_test_symlink(root, "sys/bus/pci/devices/0000:18:00.0",
			"../../../devices/pci0000:00/0000:00:01.0/0000:18:00.0");
}

static int fake_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	*ret_text = pf_xstrdup(KMSG);
	return 0;
}

static int fake_verbs_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	return 1;
}

static int fake_cuda_dmabuf(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	if (strcmp(bdf, "0000:18:00.0")) {
		*ret_err = pf_xasprintf("%s is not visible to CUDA", bdf);
		return -ENODEV;
	}
	return 0;
}

/* The GPU facts this test fakes; the rest answer -ENOSYS (pf_gpu_none). */
static const struct pf_gpu_provider *fake_gpu(void)
{
	static struct pf_gpu_provider g;

	g = pf_gpu_none;
	g.kmsg = fake_kmsg;
	g.verbs_dmabuf = fake_verbs_dmabuf;
	g.cuda_dmabuf = fake_cuda_dmabuf;
	return &g;
}

static int fake_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	*ret = (struct pf_linkmodes){ .speed_mbps = 400000, .lanes = 4, .duplex = 1, .autoneg = 0 };
	return 0;
}

static int fake_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	*ret = (struct pf_pause){ .rx = true, .tx = true, .has_stats = true, .tx_frames = 11,
				  .rx_frames = 12 };
	return 0;
}

static int fake_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
		      struct pf_stats *ret)
{
	ret->n = 2;
	ret->v = pf_xcalloc(2, sizeof(*ret->v));
	snprintf(ret->v[0].name, sizeof(ret->v[0].name), "rx_prio3_pause");
	ret->v[0].value = sample ? 900 : 500;
	snprintf(ret->v[1].name, sizeof(ret->v[1].name), "tx_pause_storm_warning_events");
	ret->v[1].value = 0;
	return 2;
}

static int fake_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	*ret = (struct pf_pfc){ .pfc_cap = 8, .pfc_en = 0x08, .delay = 7, .has_counters = true };
	ret->requests[3] = 21;
	ret->indications[3] = 34;
	return 0;
}

static int fake_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	*ret_ms = 249.6;
	return 0;
}

static int unsupported_linkmodes(const struct pf_ctx *ctx, const char *ifname,
				 struct pf_linkmodes *ret)
{
	return -EOPNOTSUPP;
}

static int unsupported_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	return -EOPNOTSUPP;
}

static int unsupported_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	return -EOPNOTSUPP;
}

static int unsupported_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			     struct pf_stats *ret)
{
	return -EOPNOTSUPP;
}

static int fake_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	*ret = 65536; /* a Grace / arm64 kernel */
	return 0;
}

/* A table with the facts this test fakes; the rest answer -ENOSYS. */
static const struct pf_providers *fake_prov(void)
{
	static struct pf_providers p;

	p = pf_providers_none;
	p.name = "fake";
	p.page_size = fake_page_size;
	p.gpu = fake_gpu();
	p.linkmodes = fake_linkmodes;
	p.pause = fake_pause;
	p.ethtool_stats = fake_stats;
	p.pfc = fake_pfc;
	p.wait = fake_wait;
	return &p;
}

static char *slurp(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	FILE *f;
	char *buf = pf_xcalloc(1, 65536);

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r");
	if (!f) {
		free(buf);
		return NULL;
	}
	buf[fread(buf, 1, 65535, f)] = '\0';
	fclose(f);
	return buf;
}

static void assert_link(const char *dir, const char *rel, const char *target)
{
	char path[PATH_MAX], got[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	n = readlink(path, got, sizeof(got) - 1);
	if (n < 0)
		fail_msg("%s is not a symlink", rel);
	got[n] = '\0';
	assert_string_equal(got, target);
}

static void assert_file(const char *dir, const char *rel, const char *text)
{
	char *got = slurp(dir, rel);
	struct stat st;
	char path[PATH_MAX];

	if (!got)
		fail_msg("%s was not written", rel);
	assert_string_equal(got, text);
	free(got);
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

static void assert_absent(const char *dir, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (lstat(path, &st) == 0)
		fail_msg("%s should not be in the snapshot", rel);
}

static void snapshot(const char *src, const char *dst, const struct pf_providers *prov,
		     struct pf_snapshot_stats *st)
{
	struct pf_snapshot_opts opts = { .prov = prov, .window_ms = 100 };
	struct pf_fs *fs = NULL;
	char *err = NULL;

	pf_test_assert_providers_complete(prov);
	assert_int_equal(pf_fs_open(src, &fs), 0);
	if (pf_snapshot_write(fs, dst, &opts, st, &err) < 0)
		fail_msg("snapshot failed: %s", err);
	pf_fs_free(fs);
}

static void test_files_and_links(void **state)
{
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;
	char *log;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	snapshot(src, dst, fake_prov(), &st);

	assert_link(dst, "sys/class/net/eth0",
		    "../../devices/pci0000:00/0000:00:01.0/0000:17:00.0/net/eth0");
	assert_link(dst, NIC "/net/eth0/device", "../../../0000:17:00.0");
	assert_link(dst, "sys/bus/pci/devices/0000:17:00.0",
		    "../../../devices/pci0000:00/0000:00:01.0/0000:17:00.0");
	assert_link(dst, NIC "/infiniband/mlx5_0/device", "../../../0000:17:00.0");
	assert_file(dst, NIC "/net/eth0/mtu", "4200\n");
	assert_file(dst, NIC "/local_cpulist", "8-15\n");
	assert_file(dst, NIC "/config", "nic-config");
	assert_file(dst, BR "/config", "bridge-config");
	assert_file(dst, BR "/class", "0x060400\n");
	assert_file(dst, NIC "/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)\n");
	assert_file(dst, NIC "/infiniband/mlx5_0/ports/1/hw_counters/rx_prio3_pause", "7\n");
	assert_file(dst, NIC "/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "eth0\n");
	assert_file(dst, NIC "/infiniband/mlx5_0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	assert_file(dst, NIC "/infiniband/mlx5_0/ports/1/gids/0", "fe80::1\n");
	assert_absent(dst, NIC "/infiniband/mlx5_0/ports/1/gids/1");
	assert_file(dst, "proc/sys/net/core/rmem_max", "4194304\n");
	assert_file(dst, "proc/sys/net/ipv4/conf/eth0/rp_filter", "1\n");
	assert_absent(dst, "proc/sys/net/ipv4/conf/eth0/forwarding");
	assert_absent(dst, BR "/uevent");
	assert_absent(dst, "sys/kernel/junk");
	{
		char *limits = slurp(src, "proc/self/limits");

		assert_file(dst, "proc/self/limits", limits);
		free(limits);
	}

	log = slurp(dst, "preflight/snapshot.log");
	assert_non_null(log);
	assert_non_null(strstr(log, "/sys/class/net/loop0"));
	assert_null(strstr(log, "ndevs/1"));
	free(log);
	assert_true(st.links >= 6);
	assert_true(st.skipped >= 1);
	pf_test_rmtree(top);
	free(top);
}

static void test_facts_read_back(void **state)
{
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { .prov = &pf_providers_recorded };
	struct pf_linkmodes lm;
	struct pf_pause pa;
	struct pf_stats s0 = { 0 }, s1 = { 0 };
	struct pf_pfc pfc;
	uint64_t v;
	double ms;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	snapshot(src, dst, fake_prov(), &st);
	/* settings, pause, stats, pfc, stats.after, window_ms, page_size */
	assert_int_equal(st.facts, 7);

	assert_int_equal(pf_fs_open(dst, &fs), 0);
	ctx.fs = fs;
	assert_file(dst, "preflight/page_size", "65536\n");
	assert_int_equal(pf_providers_recorded.page_size(&ctx, &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(pf_recorded_linkmodes(&ctx, "eth0", &lm), 0);
	assert_int_equal(lm.speed_mbps, 400000);
	assert_int_equal(lm.lanes, 4);
	assert_int_equal(lm.duplex, 1);
	assert_int_equal(lm.autoneg, 0);
	assert_int_equal(pf_recorded_pause(&ctx, "eth0", &pa), 0);
	assert_true(pa.rx && pa.tx && !pa.autoneg && pa.has_stats);
	assert_int_equal(pa.tx_frames, 11);
	assert_int_equal(pa.rx_frames, 12);
	assert_int_equal(pf_recorded_ethtool_stats(&ctx, "eth0", 0, &s0), 0);
	assert_int_equal(pf_stats_get(&s0, "rx_prio3_pause", &v), 0);
	assert_int_equal(v, 500);
	assert_int_equal(pf_recorded_ethtool_stats(&ctx, "eth0", 1, &s1), 0);
	assert_int_equal(pf_stats_get(&s1, "rx_prio3_pause", &v), 0);
	assert_int_equal(v, 900);
	assert_int_equal(pf_stats_get(&s1, "tx_pause_storm_warning_events", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(pf_recorded_pfc(&ctx, "eth0", &pfc), 0);
	assert_int_equal(pfc.pfc_cap, 8);
	assert_int_equal(pfc.pfc_en, 0x08);
	assert_int_equal(pfc.delay, 7);
	assert_true(pfc.has_counters);
	assert_int_equal(pfc.requests[3], 21);
	assert_int_equal(pfc.indications[3], 34);
	assert_int_equal(pf_recorded_wait(&ctx, 1000, &ms), 0);
	assert_true(ms == 250);
	pf_stats_release(&s0);
	pf_stats_release(&s1);
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

static void test_unsupported_read_back(void **state)
{
	struct pf_providers unsupported = pf_providers_none;
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { .prov = &pf_providers_recorded };
	struct pf_linkmodes lm;
	struct pf_pause pa;
	struct pf_stats s0 = { 0 };
	struct pf_pfc pfc;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	unsupported.name = "unsupported";
	unsupported.linkmodes = unsupported_linkmodes;
	unsupported.pause = unsupported_pause;
	unsupported.ethtool_stats = unsupported_stats;
	unsupported.pfc = unsupported_pfc;
	unsupported.wait = fake_wait;
	snapshot(src, dst, &unsupported, &st);
	assert_int_equal(pf_fs_open(dst, &fs), 0);
	ctx.fs = fs;
	assert_int_equal(pf_recorded_linkmodes(&ctx, "eth0", &lm), -EOPNOTSUPP);
	assert_int_equal(pf_recorded_pause(&ctx, "eth0", &pa), -EOPNOTSUPP);
	assert_int_equal(pf_recorded_ethtool_stats(&ctx, "eth0", 0, &s0), -EOPNOTSUPP);
	assert_int_equal(pf_recorded_pfc(&ctx, "eth0", &pfc), -EOPNOTSUPP);
	/* no statistics: no second sample and no window */
	assert_absent(dst, "preflight/ethtool/eth0/stats.after");
	assert_absent(dst, "preflight/window_ms");
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

static void test_gpu_facts_read_back(void **state)
{
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { .prov = &pf_providers_recorded };
	char *err = NULL, *text = NULL;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	add_gpu(src);
	snapshot(src, dst, fake_prov(), &st);
	assert_file(dst, "preflight/cuda/dmabuf_supported", "0000:18:00.0 0\n");
	assert_file(dst, "preflight/ibverbs/reg_dmabuf_mr", "1\n");

	assert_int_equal(pf_fs_open(dst, &fs), 0);
	ctx.fs = fs;
	assert_int_equal(pf_gpu_recorded.kmsg(&ctx, &text, &err), 0);
	assert_string_equal(text, KMSG);
	assert_int_equal(pf_gpu_recorded.verbs_dmabuf(&ctx, &err), 1);
	assert_int_equal(pf_gpu_recorded.cuda_dmabuf(&ctx, "0000:18:00.0", &err), 0);
	free(text);
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

static void test_no_gpu_no_gpu_facts(void **state)
{
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	snapshot(src, dst, fake_prov(), &st);
	assert_absent(dst, "preflight/kmsg");
	assert_absent(dst, "preflight/ibverbs");
	pf_test_rmtree(top);
	free(top);
}

static int nccl_env(const struct pf_ctx *ctx, const char *name, char **ret)
{
	if (!strcmp(name, "HOME"))
		*ret = pf_xstrdup("/home/bob"); /* the environment's HOME: its .nccl.conf too */
	else if (!strcmp(name, "NCCL_TOPO_FILE"))
		*ret = pf_xstrdup("/opt/topo.xml");
	else
		return -ENOENT;
	return 0;
}

static int nccl_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	*ret = (struct pf_job_user){ .uid = 1234, .gids = { 1234, 995 }, .n_gids = 2,
				     .user = "alice", .home = "/home/alice",
				     .source = "SLURM_JOB_UID" };
	return 0;
}

static int nccl_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	assert_string_equal(dir, "/dev/infiniband");
	ret->n = 2;
	ret->v = pf_xcalloc(2, sizeof(*ret->v));
	ret->v[0] = (struct pf_devnode){ .name = "rdma_cm", .type = 'c', .mode = 0666,
					 .major = 10, .minor = 58 };
	ret->v[1] = (struct pf_devnode){ .name = "uverbs0", .type = 'c', .mode = 0660, .gid = 995,
					 .major = 231, .minor = 192, .acl = true };
	return 0;
}

/* nccl_config's facts: job user, /dev/infiniband, the files environment and user name */
static void test_nccl_facts_read_back(void **state)
{
	struct pf_providers prov = pf_providers_none;
	char *top = pf_test_mkdtemp();
	char src[PATH_MAX], dst[PATH_MAX];
	struct pf_snapshot_stats st;
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { .prov = &pf_providers_recorded };
	struct pf_job_user u;
	struct pf_devnodes d;
	const struct pf_devnode *n;

	snprintf(src, sizeof(src), "%s/src", top);
	snprintf(dst, sizeof(dst), "%s/dst", top);
	make_source(src);
	pf_test_write(src, "etc/nccl.conf", "NCCL_IB_GID_INDEX=3\n");
	pf_test_write(src, "home/alice/.nccl.conf", "NCCL_NET_GDR_LEVEL=PHB\n");
	pf_test_write(src, "home/bob/.nccl.conf", "NCCL_DEBUG=INFO\n");
	pf_test_write(src, "opt/topo.xml", "<system version=\"1\"/>\n");
	pf_test_write(src, "etc/other.conf", "not copied\n");
	pf_test_write(src, NIC "/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");
	pf_test_symlink(src, "sys/class/infiniband_verbs/uverbs0",
			"../../devices/pci0000:00/0000:00:01.0/0000:17:00.0/infiniband_verbs/uverbs0");
	prov.name = "nccl";
	prov.env = nccl_env;
	prov.job_user = nccl_user;
	prov.devnodes = nccl_devnodes;
	snapshot(src, dst, &prov, &st);
	assert_int_equal(st.facts, 2);
	assert_file(dst, "home/bob/.nccl.conf", "NCCL_DEBUG=INFO\n");
	assert_file(dst, "etc/nccl.conf", "NCCL_IB_GID_INDEX=3\n");
	assert_file(dst, "home/alice/.nccl.conf", "NCCL_NET_GDR_LEVEL=PHB\n");
	assert_file(dst, "opt/topo.xml", "<system version=\"1\"/>\n");
	assert_absent(dst, "etc/other.conf");
	assert_link(dst, "sys/class/infiniband_verbs/uverbs0",
		    "../../devices/pci0000:00/0000:00:01.0/0000:17:00.0/infiniband_verbs/uverbs0");
	assert_file(dst, NIC "/infiniband_verbs/uverbs0/ibdev", "mlx5_0\n");

	assert_int_equal(pf_fs_open(dst, &fs), 0);
	ctx.fs = fs;
	assert_int_equal(pf_providers_recorded.job_user(&ctx, &u), 0);
	assert_int_equal(u.uid, 1234);
	assert_int_equal(u.n_gids, 2);
	assert_int_equal(u.gids[1], 995);
	assert_string_equal(u.user, "alice");
	assert_string_equal(u.home, "/home/alice");
	assert_string_equal(u.source, "SLURM_JOB_UID");
	assert_int_equal(pf_providers_recorded.devnodes(&ctx, "/dev/infiniband", &d), 0);
	assert_int_equal(d.n, 2);
	n = pf_devnodes_find(&d, "uverbs0");
	assert_non_null(n);
	assert_int_equal(n->type, 'c');
	assert_int_equal(n->mode, 0660);
	assert_int_equal(n->gid, 995);
	assert_int_equal(n->minor, 192);
	assert_true(n->acl);
	pf_devnodes_release(&d);
	assert_int_equal(pf_providers_recorded.devnodes(&ctx, "/dev/other", &d), -ENOENT);
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

static void test_refuses_non_empty(void **state)
{
	char *top = pf_test_mkdtemp();
	struct pf_snapshot_opts opts = { .prov = fake_prov() };
	struct pf_fs *fs = NULL;
	char *err = NULL;

	pf_test_write(top, "src/proc/uptime", "1.0 2.0\n");
	pf_test_write(top, "dst/keep", "x");
	{
		char src[PATH_MAX], dst[PATH_MAX];

		snprintf(src, sizeof(src), "%s/src", top);
		snprintf(dst, sizeof(dst), "%s/dst", top);
		assert_int_equal(pf_fs_open(src, &fs), 0);
		assert_int_equal(pf_snapshot_write(fs, dst, &opts, NULL, &err), -ENOTEMPTY);
		assert_non_null(strstr(err, "not empty"));
	}
	free(err);
	pf_fs_free(fs);
	pf_test_rmtree(top);
	free(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_and_links),
		cmocka_unit_test(test_facts_read_back),
		cmocka_unit_test(test_unsupported_read_back),
		cmocka_unit_test(test_gpu_facts_read_back),
		cmocka_unit_test(test_no_gpu_no_gpu_facts),
		cmocka_unit_test(test_nccl_facts_read_back),
		cmocka_unit_test(test_refuses_non_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
