// SPDX-License-Identifier: MIT
/*
 * test_record_roundtrip.c - every provider fact with a recorded side, round
 * trip: a fake live table answers, the fact's pf_record_*() (src/facts/
 * record.h) writes it into a temporary snapshot directory, and the
 * recorded provider reads back the same value.  A writer and a reader that
 * drift apart fail here, one case per provider member.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "fake_gpu.h"
#include "record.h"
#include "testutil.h"

#define IF "enp20s0np0" /* a RoCE netdev of the generated root */

/* The sink: files under dir, skips in a log. */
struct sink {
	char *dir;
	char log[4096];
};

static int sink_mkdirs(struct pf_record *rec, const char *rel)
{
	struct sink *k = rec->userdata;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", k->dir, rel);
	for (char *p = path + strlen(k->dir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	(void)mkdir(path, 0755);
	return 0;
}

static int sink_put(struct pf_record *rec, const char *rel, const char *buf, size_t len)
{
	struct sink *k = rec->userdata;
	pf_autofree char *dir = pf_xstrdup(rel);
	char path[4096];
	FILE *f;

	if (strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		sink_mkdirs(rec, dir);
	}
	snprintf(path, sizeof(path), "%s/%s", k->dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
	return 0;
}

static int sink_copy(struct pf_record *rec, const char *path)
{
	pf_autofree char *text = NULL;
	size_t len;
	int r = pf_fs_read_full(rec->ctx->fs, path, 0, &text, &len);

	if (r < 0)
		return 0;
	return sink_put(rec, path + 1, text, len) < 0 ? -EIO : 1;
}

static bool sink_has(struct pf_record *rec, const char *rel)
{
	struct sink *k = rec->userdata;
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", k->dir, rel);
	return access(path, F_OK) == 0;
}

static void sink_skip(struct pf_record *rec, const char *what, const char *why)
{
	struct sink *k = rec->userdata;
	size_t n = strlen(k->log);

	snprintf(k->log + n, sizeof(k->log) - n, "%s: %s\n", what, why);
}

/* The fake live side: one value per fact, the same for every netdev. */
static const struct pf_linkmodes want_lm = { .speed_mbps = 200000, .lanes = 4, .duplex = 1,
					     .autoneg = 1 };
static const struct pf_pause want_pa = { .autoneg = false, .rx = true, .tx = true,
					 .has_stats = true, .tx_frames = 5, .rx_frames = 7 };

static int fake_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	*ret = want_lm;
	return 0;
}

static int fake_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	*ret = want_pa;
	return 0;
}

static int fake_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
		      struct pf_stats *ret)
{
	ret->v = pf_xcalloc(2, sizeof(*ret->v));
	ret->n = 2;
	snprintf(ret->v[0].name, sizeof(ret->v[0].name), "rx_prio3_pause");
	snprintf(ret->v[1].name, sizeof(ret->v[1].name), "tx_prio3_pause");
	ret->v[0].value = sample ? 21 : 11;
	ret->v[1].value = sample ? 22 : 12;
	return 0;
}

static void fill_pfc(struct pf_pfc *p)
{
	*p = (struct pf_pfc){ .pfc_cap = 8, .pfc_en = 1u << 3, .mbc = false, .delay = 4096,
			      .has_counters = true, .has_app = true };
	p->requests[3] = 40;
	p->indications[3] = 50;
	p->dscp_mapped = (1ull << 26) | (1ull << 48);
	p->dscp_prio[26] = 3;
	p->dscp_prio[48] = 6;
}

static int fake_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	fill_pfc(ret);
	return 0;
}

static int fake_addrs(const struct pf_ctx *ctx, const char *ifname, struct pf_ipv4_addrs *ret)
{
	*ret = (struct pf_ipv4_addrs){ .n = 2 };
	ret->v[0] = (struct pf_ipv4_addr){ .addr = 0x0a000001, .prefix = 24 };
	ret->v[1] = (struct pf_ipv4_addr){ .addr = 0xc0a80102, .prefix = 16 };
	return 0;
}

static void fill_rules(struct pf_ip_rules *r)
{
	memset(r, 0, sizeof(*r));
	r->n = 3;
	r->v[0] = (struct pf_ip_rule){ .pref = 0, .table = 255, .action = PF_RULE_LOOKUP };
	r->v[1] = (struct pf_ip_rule){ .pref = 100, .table = 101, .action = PF_RULE_LOOKUP,
				       .src = { .addr = 0x0a000001, .prefix = 32 } };
	r->v[2] = (struct pf_ip_rule){ .pref = 32766, .table = 254, .action = PF_RULE_LOOKUP };
}

static int fake_rules(const struct pf_ctx *ctx, struct pf_ip_rules *ret)
{
	fill_rules(ret);
	return 0;
}

static char *fake_nv_text(const char *bdf, const char *name)
{
	return pf_xasprintf("Device #1:\n----------\n\nDevice type:    ConnectX7\n"
			    "PCI device:     %s\n\nConfigurations:      Next Boot\n"
			    "        %-22s8\n", bdf, name);
}

static int fake_nv(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		asks[i].r = 0;
		asks[i].text = fake_nv_text(asks[i].bdf, asks[i].names[0]);
		for (size_t m = 0; m < asks[i].n_names; m++)
			asks[i].name_r[m] = 0;
	}
	return 0;
}

#define FAKE_LLDP "lldp.enp19s0np0.via=LLDP\nlldp.enp19s0np0.chassis.mac=b8:59:9f:00:00:01\n" \
		  "lldp.enp19s0np0.chassis.name=leaf07\nlldp.enp19s0np0.port.ifname=swp12\n"

static int fake_lldp(const struct pf_ctx *ctx, char **ret_text)
{
	*ret_text = pf_xstrdup(FAKE_LLDP);
	return 0;
}

/* lldpcli not installed: nothing to record, and nothing to say */
static int fake_no_lldpcli(const struct pf_ctx *ctx, char **ret_text)
{
	*ret_text = NULL;
	return -ENOPKG;
}

static int fake_page_size(const struct pf_ctx *ctx, uint64_t *ret)
{
	*ret = 65536;
	return 0;
}

static int fake_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	*ret_ms = 250.2;
	return 0;
}

static int fake_euid(const struct pf_ctx *ctx, unsigned int *ret)
{
	*ret = 4242;
	return 0;
}

static int fake_job_user(const struct pf_ctx *ctx, struct pf_job_user *ret)
{
	*ret = (struct pf_job_user){ .uid = 1234, .gids = { 1234, 27 }, .n_gids = 2 };
	snprintf(ret->user, sizeof(ret->user), "alice");
	snprintf(ret->home, sizeof(ret->home), "/home/alice");
	snprintf(ret->source, sizeof(ret->source), "SLURM_JOB_UID");
	return 0;
}

static int fake_devnodes(const struct pf_ctx *ctx, const char *dir, struct pf_devnodes *ret)
{
	ret->v = pf_xcalloc(2, sizeof(*ret->v));
	ret->n = 2;
	ret->v[0] = (struct pf_devnode){ .name = "uverbs0", .type = 'c', .mode = 0666,
					 .major = 231, .minor = 192 };
	ret->v[1] = (struct pf_devnode){ .name = "rdma_cm", .type = 'c', .mode = 0660,
					 .gid = 27, .major = 10, .minor = 58, .acl = true };
	return 0;
}

static int fake_kmsg(const struct pf_ctx *ctx, char **ret_text, char **ret_err)
{
	*ret_text = pf_xstrdup("[  12.5] NVRM: Xid (PCI:0000:17:00): 79, GPU has fallen off\n");
	return 0;
}

static int fake_dmabuf(const struct pf_ctx *ctx, char **ret_err)
{
	return 1;
}

static int fake_cuda_dmabuf(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return 1;
}

static int fake_cuda_gdr(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	return 0;
}

static int fake_nccl_version(const struct pf_ctx *ctx, char **ret_err)
{
	return 22703; /* 2.27.3 */
}

/* NVLink fabric: the first GPU (bus below 0x18) in clique 7, the others without a fabric. */
static int fake_gpu_fabric(const struct pf_ctx *ctx, const char *bdf, struct pf_gpu_fabric *ret,
			   char **ret_err)
{
	*ret = (struct pf_gpu_fabric){ 0 };
	if (strtoul(bdf + 5, NULL, 16) >= 0x18)
		return 0;
	*ret = (struct pf_gpu_fabric){ .supported = true, .version = 3, .state = 3, .clique_id = 7,
				       .health_mask = 0x1aa, .health_summary = 1 };
	ret->cluster_uuid[0] = 0xab;
	return 0;
}

/* The fabric-handle probe: the first GPU's import refused, the others fine. */
static int fake_fabric_handle(const struct pf_ctx *ctx, const char *bdf, char **ret_err)
{
	if (strtoul(bdf + 5, NULL, 16) >= 0x18)
		return 1;
	*ret_err = pf_xstrdup("cuMemImportFromShareableHandle(CU_MEM_HANDLE_TYPE_FABRIC): "
			      "CUDA_ERROR_NOT_PERMITTED (operation not permitted)");
	return -EIO;
}

static const struct pf_providers *fake_live(void)
{
	static struct pf_gpu_provider g;
	static struct pf_providers p;

	g = pf_gpu_none;
	g.kmsg = fake_kmsg;
	g.verbs_dmabuf = fake_dmabuf;
	g.cuda_dmabuf = fake_cuda_dmabuf;
	g.cuda_gdr = fake_cuda_gdr;
	g.nccl_version = fake_nccl_version;
	g.gpu_fabric = fake_gpu_fabric;
	g.cuda_fabric_handle = fake_fabric_handle;
	p = pf_providers_none;
	p.name = "fake-live";
	p.gpu = &g;
	p.linkmodes = fake_linkmodes;
	p.pause = fake_pause;
	p.ethtool_stats = fake_stats;
	p.pfc = fake_pfc;
	p.ipv4_addrs = fake_addrs;
	p.ip_rules = fake_rules;
	p.nv_query = fake_nv;
	p.page_size = fake_page_size;
	p.wait = fake_wait;
	p.euid = fake_euid;
	p.job_user = fake_job_user;
	p.devnodes = fake_devnodes;
	p.lldp_neighbors = fake_lldp;
	pf_test_assert_providers_complete(&p);
	return &p;
}

/* A recording of @src (a generated root) by the fake live table, and its read-back side. */
struct trip {
	char *src, *top;
	struct pf_fs *src_fs, *back_fs;
	struct pf_ctx live, back;
	struct sink sink;
	struct pf_record rec;
};

static void trip_open(struct trip *t, const char *gen_args)
{
	memset(t, 0, sizeof(*t));
	t->src = pf_test_gen_root(gen_args);
	t->top = pf_test_mkdtemp();
	assert_int_equal(pf_fs_open(t->src, &t->src_fs), 0);
	t->live = (struct pf_ctx){ .fs = t->src_fs, .prov = fake_live() };
	t->sink.dir = t->top;
	t->rec = (struct pf_record){ .ctx = &t->live, .put = sink_put, .mkdirs = sink_mkdirs,
				     .copy = sink_copy, .has = sink_has, .skip = sink_skip,
				     .userdata = &t->sink };
}

/* After the records: the recorded providers over the written directory. */
static void trip_back(struct trip *t)
{
	assert_string_equal(t->sink.log, "");
	assert_int_equal(pf_fs_open(t->top, &t->back_fs), 0);
	t->back = (struct pf_ctx){ .fs = t->back_fs, .prov = &pf_providers_recorded };
}

static void trip_close(struct trip *t)
{
	pf_fs_free(t->back_fs);
	pf_fs_free(t->src_fs);
	pf_test_rmtree(t->top);
	pf_test_rmtree(t->src);
	free(t->top);
	free(t->src);
}

static void test_net_facts(void **state)
{
	const struct pf_providers *rp = &pf_providers_recorded;
	struct pf_linkmodes lm;
	struct pf_pause pa;
	struct pf_pfc pfc, want;
	struct pf_ipv4_addrs a, wa;
	struct pf_stats s[2] = { { 0 } };
	struct trip t;
	double ms;

	trip_open(&t, "--gpus 2 --nics 2 --link-layer eth");
	assert_int_equal(pf_record_net(&t.rec, 1000), 0);
	trip_back(&t);
	assert_int_equal(rp->linkmodes(&t.back, IF, &lm), 0);
	assert_memory_equal(&lm, &want_lm, sizeof(lm));
	assert_int_equal(rp->pause(&t.back, IF, &pa), 0);
	assert_true(pa.autoneg == want_pa.autoneg && pa.rx && pa.tx && pa.has_stats);
	assert_true(pa.tx_frames == 5 && pa.rx_frames == 7);
	for (unsigned int i = 0; i < 2; i++) {
		assert_int_equal(rp->ethtool_stats(&t.back, IF, i, &s[i]), 0);
		assert_int_equal(s[i].n, 2);
		assert_string_equal(s[i].v[1].name, "tx_prio3_pause");
		assert_true(s[i].v[0].value == (i ? 21 : 11) && s[i].v[1].value == (i ? 22 : 12));
		pf_stats_release(&s[i]);
	}
	assert_int_equal(rp->wait(&t.back, 1000, &ms), 0);
	assert_true(ms == 251); /* whole ms, rounded up */
	assert_int_equal(rp->pfc(&t.back, IF, &pfc), 0);
	fill_pfc(&want);
	assert_true(pfc.pfc_cap == want.pfc_cap && pfc.pfc_en == want.pfc_en &&
		    pfc.mbc == want.mbc && pfc.delay == want.delay);
	assert_true(pfc.has_counters && pfc.requests[3] == 40 && pfc.indications[3] == 50);
	assert_true(pfc.has_app && pfc.dscp_mapped == want.dscp_mapped);
	assert_true(pfc.dscp_prio[26] == 3 && pfc.dscp_prio[48] == 6);
	assert_int_equal(rp->ipv4_addrs(&t.back, IF, &a), 0);
	fake_addrs(NULL, IF, &wa);
	assert_int_equal(a.n, wa.n);
	assert_memory_equal(a.v, wa.v, wa.n * sizeof(wa.v[0]));
	trip_close(&t);
}

static void test_ip_rules(void **state)
{
	pf_autofree struct pf_ip_rules *back = pf_xcalloc(1, sizeof(*back));
	pf_autofree struct pf_ip_rules *want = pf_xcalloc(1, sizeof(*want));
	struct trip t;

	trip_open(&t, "--gpus 0 --nics 1");
	assert_int_equal(pf_record_ip_rules(&t.rec), 0);
	trip_back(&t);
	assert_int_equal(t.back.prov->ip_rules(&t.back, back), 0);
	fill_rules(want);
	assert_int_equal(back->n, want->n);
	for (size_t i = 0; i < want->n; i++) {
		assert_int_equal(back->v[i].pref, want->v[i].pref);
		assert_int_equal(back->v[i].table, want->v[i].table);
		assert_int_equal(back->v[i].action, want->v[i].action);
		assert_memory_equal(&back->v[i].src, &want->v[i].src, sizeof(want->v[i].src));
	}
	trip_close(&t);
}

static void test_nv_query(void **state)
{
	pf_autofree char *want = NULL;
	struct trip t;

	trip_open(&t, "--gpus 0 --nics 1 --link-layer eth");
	assert_int_equal(pf_record_nv(&t.rec), 0);
	trip_back(&t);
	struct pf_nv_ask a = { .bdf = "0000:13:00.0", .n_names = 1,
			       .names = { "ROCE_CC_PRIO_MASK_P1" }, .name_bdf = { "0000:13:00.0" } };

	assert_int_equal(t.back.prov->nv_query(&t.back, &a, 1), 0);
	assert_int_equal(a.r, 0);
	want = fake_nv_text("0000:13:00.0", "ROCE_CC_PRIO_MASK_P1");
	assert_string_equal(a.text, want);
	pf_nv_asks_release(&a, 1);
	trip_close(&t);
}

static void test_lldp(void **state)
{
	static struct pf_providers no_tool;
	pf_autofree char *text = NULL;
	struct trip t;

	trip_open(&t, "--gpus 0 --nics 1 --link-layer eth");
	assert_int_equal(pf_record_lldp(&t.rec), 0);
	trip_back(&t);
	assert_int_equal(t.back.prov->lldp_neighbors(&t.back, &text), 0);
	assert_string_equal(text, FAKE_LLDP);
	trip_close(&t);

	/* no lldpcli, or no lldpd: no file, no log line; read back: nothing recorded */
	trip_open(&t, "--gpus 0 --nics 1 --link-layer eth");
	no_tool = *t.live.prov;
	no_tool.lldp_neighbors = fake_no_lldpcli;
	t.live.prov = &no_tool;
	assert_int_equal(pf_record_lldp(&t.rec), 0);
	trip_back(&t);
	assert_false(sink_has(&t.rec, "preflight/lldp/neighbors"));
	free(PF_TAKE_PTR(text));
	assert_int_equal(t.back.prov->lldp_neighbors(&t.back, &text), -ENOENT);
	trip_close(&t);
}

static void test_page_size_job_devnodes(void **state)
{
	struct pf_job_user u, wu;
	struct pf_devnodes d = { 0 }, wd = { 0 };
	uint64_t ps;
	bool known;
	struct trip t;

	trip_open(&t, "--gpus 0 --nics 1");
	assert_int_equal(pf_record_page_size(&t.rec), 0);
	assert_int_equal(pf_record_job(&t.rec, &u, &known), 0);
	assert_true(known);
	trip_back(&t);
	assert_int_equal(t.back.prov->page_size(&t.back, &ps), 0);
	assert_true(ps == 65536);
	assert_int_equal(t.back.prov->job_user(&t.back, &u), 0);
	fake_job_user(NULL, &wu);
	assert_int_equal(u.uid, wu.uid);
	assert_string_equal(u.user, wu.user);
	assert_string_equal(u.home, wu.home);
	assert_int_equal(u.n_gids, wu.n_gids);
	assert_memory_equal(u.gids, wu.gids, wu.n_gids * sizeof(wu.gids[0]));
	assert_int_equal(t.back.prov->devnodes(&t.back, "/dev/infiniband", &d), 0);
	fake_devnodes(NULL, "/dev/infiniband", &wd);
	assert_int_equal(d.n, wd.n);
	for (size_t i = 0; i < wd.n; i++)
		assert_memory_equal(&d.v[i], &wd.v[i], sizeof(wd.v[i]));
	pf_devnodes_release(&d);
	pf_devnodes_release(&wd);
	trip_close(&t);
}

static void test_gpu_facts(void **state)
{
	pf_autofree char *kmsg = NULL, *want = NULL;
	const struct pf_gpu_provider *g = pf_providers_recorded.gpu;
	char *err = NULL;
	struct trip t;

	trip_open(&t, "--gpus 2 --nics 0");
	assert_int_equal(pf_record_gpu(&t.rec), 0);
	trip_back(&t);
	assert_int_equal(g->kmsg(&t.back, &kmsg, &err), 0);
	fake_kmsg(NULL, &want, NULL);
	assert_string_equal(kmsg, want);
	assert_int_equal(g->verbs_dmabuf(&t.back, &err), 1);
	for (size_t i = 0; i < 2; i++) {
		char bdf[16];
		struct pf_node *node = NULL;
		pf_autofree char *why = NULL;

		assert_int_equal(pf_node_load(t.src_fs, NULL, &node, &why), 0);
		snprintf(bdf, sizeof(bdf), "%s", node->pci[node->gpus[i].pci].bdf);
		pf_node_free(node);
		assert_int_equal(g->cuda_dmabuf(&t.back, bdf, &err), 1);
		assert_int_equal(g->cuda_gdr(&t.back, bdf, &err), 0);
		{
			struct pf_gpu_fabric live, back;

			fake_gpu_fabric(NULL, bdf, &live, NULL);
			assert_int_equal(g->gpu_fabric(&t.back, bdf, &back, &err), 0);
			assert_memory_equal(&live, &back, sizeof(live));
		}
		{
			pf_autofree char *expect = NULL, *got = NULL;
			int r = fake_fabric_handle(NULL, bdf, &expect);

			assert_int_equal(g->cuda_fabric_handle(&t.back, bdf, &got), r);
			if (expect)
				assert_string_equal(got, expect);
		}
	}
	assert_int_equal(g->nccl_version(&t.back, &err), 22703);
	{
		struct pf_devnodes d = { 0 };

		/* the IMEX channel listing, as `ls -ln` */
		assert_int_equal(pf_providers_recorded.devnodes(&t.back, "/dev/nvidia-caps-imex-channels",
								&d), 0);
		assert_int_equal(d.n, 2);
		assert_string_equal(d.v[0].name, "uverbs0");
		pf_devnodes_release(&d);
	}
	trip_close(&t);
}

/*
 * gpu_health and nvlink_links: NVML's answers (the fake NVML of fake_gpu.c
 * under the live implementations), recorded, read back the same, and the
 * checks give the recorded root the live verdict, finding by finding.
 */
static void same_verdict(const char *check, const char *src, const struct pf_providers *live,
			 const char *snap, struct pf_node *node)
{
	struct pf_result a = { 0 }, b = { 0 };

	/* the sink holds only the facts: both sides judge the source's inventory */
	pf_test_run_check_node(check, src, live, node, NULL, &a);
	pf_test_run_check_node(check, snap, &pf_providers_recorded, node, NULL, &b);
	assert_int_not_equal(a.status, PF_STATUS_PASS); /* the faults are seen */
	assert_int_equal(a.status, b.status);
	assert_int_equal(a.n_findings, b.n_findings);
	for (size_t i = 0; i < a.n_findings; i++) {
		assert_string_equal(a.findings[i].subject, b.findings[i].subject);
		assert_int_equal(a.findings[i].status, b.findings[i].status);
		assert_string_equal(a.findings[i].message, b.findings[i].message);
	}
	pf_result_release(&a);
	pf_result_release(&b);
}

static void test_nvml_health_facts(void **state)
{
	static struct pf_gpu_provider g;
	static struct pf_providers p;
	const struct pf_gpu_provider *rg = pf_providers_recorded.gpu;
	const char *bdfs[2];
	struct pf_node *node = NULL;
	pf_autofree char *why = NULL;
	struct trip t;

	trip_open(&t, "--gpus 2 --nics 0");
	assert_int_equal(pf_node_load(t.src_fs, NULL, &node, &why), 0);
	assert_int_equal(node->n_gpus, 2);
	for (int i = 0; i < 2; i++)
		bdfs[i] = node->pci[node->gpus[i].pci].bdf;
	pf_fake_gpu_reset(2, bdfs);
	/* one of each fault, and a query the GPU does not support */
	pf_fake.clock_events[0] = PF_NVML_CLOCKS_EVENT_HW_POWER_BRAKE;
	pf_fake.ecc_volatile[1] = 4;
	pf_fake.pcie_replay_ret = PF_NVML_ERROR_NOT_SUPPORTED;
	pf_fake.link_down[1][7] = 1;
	pf_fake.link_err[0][2][PF_NVML_NVLINK_ERROR_DL_RECOVERY] = 500;
	pf_fake.nvlink_speed[1] = 20000; /* the speed line, a GPU slower than its peer */
	g = *t.live.prov->gpu;
	g.nvml = pf_fake_gpu_provider.nvml;
	g.nvml_health = pf_gpu_live_nvml_health;
	g.nvml_nvlink = pf_gpu_live_nvml_nvlink;
	p = *t.live.prov;
	p.gpu = &g;
	t.live.prov = &p;

	assert_int_equal(pf_record_gpu(&t.rec), 0);
	trip_back(&t);
	for (int i = 0; i < 2; i++) {
		struct pf_nvml_health hl, hr;
		struct pf_nvml_nvlink *ll = pf_xcalloc(1, sizeof(*ll)), *lr = pf_xcalloc(1, sizeof(*lr));
		char *err = NULL;

		assert_int_equal(g.nvml_health(&t.live, bdfs[i], &hl, &err), 0);
		assert_int_equal(rg->nvml_health(&t.back, bdfs[i], &hr, &err), 0);
		assert_memory_equal(&hl, &hr, sizeof(hl));
		assert_int_equal(g.nvml_nvlink(&t.live, bdfs[i], ll, &err), 0);
		assert_int_equal(rg->nvml_nvlink(&t.back, bdfs[i], lr, &err), 0);
		assert_memory_equal(ll, lr, sizeof(*ll));
		free(ll);
		free(lr);
	}
	/* the snapshot writer copies /proc/uptime with the files (snapshot.c) */
	{
		pf_autofree char *up = NULL;

		assert_int_equal(pf_fs_read_full(t.src_fs, "/proc/uptime", 0, &up, NULL) >= 0, 1);
		pf_test_write(t.top, "proc/uptime", up);
	}
	/* the live side as the snapshot sees it: a table whose time does not pass */
	p.caps &= ~(unsigned int)PF_PROV_ELAPSES;
	same_verdict("gpu_health", t.src, &p, t.top, node);
	same_verdict("nvlink_links", t.src, &p, t.top, node);
	pf_node_free(node);
	trip_close(&t);
}

/* env and euid are the process's own: recorded from the live root, environ itself. */
static void test_env_euid(void **state)
{
	struct pf_fs *live = NULL, *back = NULL;
	struct sink k = { .dir = pf_test_mkdtemp() };
	struct pf_ctx ctx, bctx;
	struct pf_record rec = { .ctx = &ctx, .put = sink_put, .mkdirs = sink_mkdirs,
				 .copy = sink_copy, .has = sink_has, .skip = sink_skip,
				 .userdata = &k };
	pf_autofree char *v = NULL, *other = NULL;
	unsigned int uid;

	setenv("NCCL_RT_TEST", "a=b c", 1);
	setenv("NOT_RECORDED_RT", "x", 1);
	assert_int_equal(pf_fs_open("/", &live), 0);
	ctx = (struct pf_ctx){ .fs = live, .prov = fake_live() };
	assert_int_equal(pf_record_process(&rec), 0);
	assert_int_equal(pf_fs_open(k.dir, &back), 0);
	bctx = (struct pf_ctx){ .fs = back, .prov = &pf_providers_recorded };
	assert_int_equal(pf_env(&bctx, "NCCL_RT_TEST", &v), 0);
	assert_string_equal(v, "a=b c");
	assert_int_equal(pf_env(&bctx, "NOT_RECORDED_RT", &other), -ENOENT);
	assert_int_equal(pf_euid(&bctx, &uid), 0);
	assert_int_equal(uid, 4242);
	pf_fs_free(back);
	pf_fs_free(live);
	pf_test_rmtree(k.dir);
	free(k.dir);
}

/* A table without a fact (-ENOSYS) records nothing and logs nothing. */
static void test_none_records_nothing(void **state)
{
	struct trip t;
	struct pf_job_user u;
	bool known = true;

	trip_open(&t, "--gpus 1 --nics 1 --link-layer eth");
	t.live.prov = &pf_providers_none;
	assert_int_equal(pf_record_net(&t.rec, 1000), 0);
	assert_int_equal(pf_record_ip_rules(&t.rec), 0);
	assert_int_equal(pf_record_nv(&t.rec), 0);
	assert_int_equal(pf_record_lldp(&t.rec), 0);
	assert_int_equal(pf_record_page_size(&t.rec), 0);
	assert_int_equal(pf_record_gpu(&t.rec), 0);
	assert_int_equal(pf_record_job(&t.rec, &u, &known), 0);
	assert_false(known);
	assert_string_equal(t.sink.log, "");
	assert_false(sink_has(&t.rec, "preflight"));
	trip_close(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_net_facts),
		cmocka_unit_test(test_ip_rules),
		cmocka_unit_test(test_nv_query),
		cmocka_unit_test(test_lldp),
		cmocka_unit_test(test_page_size_job_devnodes),
		cmocka_unit_test(test_gpu_facts),
		cmocka_unit_test(test_nvml_health_facts),
		cmocka_unit_test(test_env_euid),
		cmocka_unit_test(test_none_records_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
