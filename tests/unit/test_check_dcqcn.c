// SPDX-License-Identifier: MIT
/*
 * test_check_dcqcn.c - dcqcn on the live root with a node of one upstream
 * mlx5 RoCE port (no ecn/ switches, no counters on this machine) and a
 * test nv_query provider: the firmware's ROCE_CC_PRIO_MASK_P<n> decides;
 * without mstconfig/mlxconfig the port is a warn with required=true and a
 * skip with required=false; a tool that fails or hangs is named.
 */
#include <string.h>

#include "preflight/node.h"
#include "preflight/providers.h"
#include "registry.h"
#include "testutil.h"

static int nv_r;
static const char *nv_text;
static char nv_asked[96];

static int nv_calls;

/* One card per call here; what it was asked, as "bdf NAME NAME". */
static int fake_nv(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n)
{
	int off = 0;

	nv_calls++;
	assert_int_equal(n, 1);
	off = snprintf(nv_asked, sizeof(nv_asked), "%s", asks[0].bdf);
	for (size_t m = 0; m < asks[0].n_names; m++)
		off += snprintf(nv_asked + off, sizeof(nv_asked) - (size_t)off, " %s",
				asks[0].names[m]);
	if (nv_r == -ENOPKG)
		return -ENOPKG;
	asks[0].r = nv_r;
	asks[0].text = nv_text ? pf_xstrdup(nv_text) : NULL;
	for (size_t m = 0; m < asks[0].n_names; m++)
		asks[0].name_r[m] = nv_r;
	return 0;
}

static const struct pf_providers *fake_prov(void)
{
	static struct pf_providers p;

	p = pf_providers_none;
	p.name = "fake-nv";
	p.nv_query = fake_nv;
	pf_test_assert_providers_complete(&p);
	return &p;
}

static char **bond_slaves; /* the port's netdev is a bond of these (RoCE LAG) */

static void run(const char *set, struct pf_result *res)
{
	struct pf_pci_dev pci = { .bdf = "0000:17:00.1", .vendor = 0x15b3, .parent = -1 };
	struct pf_netdev nd = { .name = (char *)"pftestnv0", .rdma_dev = 0, .port = 1,
				.slaves = bond_slaves };
	struct pf_rdma_port port = { .num = 1, .link_layer = PF_LINK_ETH, .netdev = 0 };
	struct pf_rdma_dev dev = { .name = (char *)"pftest_mlx5_9", .pci = 0, .ports = &port,
				   .n_ports = 1 };
	struct pf_node node = { .source = "test", .pci = &pci, .n_pci = 1, .rdma = &dev,
				.n_rdma = 1, .netdevs = &nd, .n_netdevs = 1 };
	const struct pf_check *c = pf_registry_find("dcqcn");
	struct pf_profile prof;
	struct pf_run r = { 0 };
	struct pf_ctx ctx = { .prov = fake_prov(), .node = &node };
	struct pf_fs *fs = NULL;
	char *err = NULL;

	assert_non_null(c);
	pf_profile_init(&prof);
	if (set)
		pf_profile_add_set(&prof, set);
	assert_int_equal(pf_config_build(c, &prof, &r.cfg, &err), 0);
	assert_int_equal(pf_fs_open("/", &fs), 0);
	ctx.fs = fs;
	r.check = c;
	pf_run_inline(&ctx, &r);
	*res = r.res;
	pf_config_free(c, r.cfg);
	pf_fs_free(fs);
	pf_profile_release(&prof);
}

static const char on[] =
	"Configurations:                                     Default         Current         Next Boot\n"
	"         ROCE_CC_PRIO_MASK_P2                        255             255             255\n";
static const char off[] =
	"Configurations:                                     Default         Current         Next Boot\n"
	"*        ROCE_CC_PRIO_MASK_P2                        255             0               0\n";

static void test_firmware_decides(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	nv_r = 0, nv_text = on;
	run(NULL, &res);
	assert_string_equal(nv_asked, "0000:17:00.1 ROCE_CC_PRIO_MASK_P2"); /* function 1: P2 */
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_PASS);
	pf_test_assert_contains(f->message, "DCQCN on for priority 3");
	pf_result_release(&res);

	nv_text = off;
	run(NULL, &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "ROCE_CC_PRIO_MASK_P2 is 0x0 (bit 3 clear)");
	pf_test_assert_contains(f->remedy, "mstconfig -d 0000:17:00.1 set ROCE_CC_PRIO_MASK_P2=0x8");
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
}

/* Live, no tool: a warn (required) or a skip, never a fail; the remedy names mstflint. */
static void test_no_tool(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	nv_r = -ENOPKG, nv_text = NULL;
	run(NULL, &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "neither mstconfig (mstflint) nor mlxconfig is installed");
	pf_test_assert_contains(f->remedy, "mstflint");
	assert_null(strstr(f->remedy, "cc_params"));
	pf_result_release(&res);
	run("dcqcn.required=false", &res);
	pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_SKIP);
	pf_result_release(&res);
}

/*
 * Issue 31 item 5: the tool is there and fails (Secure Boot lockdown,
 * mstflint#416; an mstflint older than the card): required=true warns naming
 * the tool's first "-E-" line, never a skip; the same text whether the tool
 * exited non-zero or printed it with status 0 (a hand capture, a snapshot).
 */
static void test_tool_fails_required_warns(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;
	static const char lockdown[] = "\nDevice #1:\n----------\n-E- Failed to open the device\n";

	nv_r = -EIO, nv_text = lockdown;
	run(NULL, &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "failed: -E- Failed to open the device");
	pf_test_assert_contains(f->remedy, "Secure Boot");
	pf_result_release(&res);
	nv_r = 0, nv_text = lockdown; /* the same text recorded as the tool's output */
	run(NULL, &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "(-E- Failed to open the device)");
	pf_result_release(&res);
	nv_r = -ETIMEDOUT, nv_text = NULL;
	run(NULL, &res);
	pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_WARN);
	pf_result_release(&res);
}

/*
 * Issue 31 item 6: a RoCE LAG (the port's netdev a bond of two) is judged by
 * ROCE_CC_PRIO_MASK_P1 and _P2, asked in one tool call; P2 off fails like P1.
 */
static void test_lag_reads_both_ports(void **state)
{
	static char *slaves[] = { (char *)"ens1f0np0", (char *)"ens1f1np1", NULL };
	static const char p2_off[] =
		"Configurations:                                     Default         Current         Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1                        255             255             255\n"
		"*        ROCE_CC_PRIO_MASK_P2                        255             0               0\n";
	static const char both_on[] =
		"Configurations:                                     Default         Current         Next Boot\n"
		"         ROCE_CC_PRIO_MASK_P1                        255             255             255\n"
		"         ROCE_CC_PRIO_MASK_P2                        255             255             255\n";
	struct pf_result res;
	const struct pf_finding *f;

	bond_slaves = slaves;
	nv_calls = 0, nv_r = 0, nv_text = p2_off;
	run(NULL, &res);
	assert_int_equal(nv_calls, 1);
	assert_string_equal(nv_asked, "0000:17:00.1 ROCE_CC_PRIO_MASK_P1 ROCE_CC_PRIO_MASK_P2");
	pf_test_need(&res, "pftest_mlx5_9/1/ROCE_CC_PRIO_MASK_P1", PF_STATUS_PASS);
	f = pf_test_need(&res, "pftest_mlx5_9/1/ROCE_CC_PRIO_MASK_P2", PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "ROCE_CC_PRIO_MASK_P2 is 0x0 (bit 3 clear)");
	assert_int_equal(res.status, PF_STATUS_FAIL);
	pf_result_release(&res);
	nv_text = both_on; /* the healthy bond */
	run(NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	bond_slaves = NULL;
}

static void test_tool_fails(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;

	nv_r = -EIO, nv_text = "-E- Failed to open the device\n";
	run("dcqcn.required=false", &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "failed: -E- Failed to open the device");
	pf_result_release(&res);
	nv_r = -ETIMEDOUT, nv_text = NULL;
	run("dcqcn.required=false", &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_SKIP);
	pf_test_assert_contains(f->message, "did not answer");
	pf_result_release(&res);
	/* output without the parameter's row: the tool's failure, a warn naming it */
	nv_r = 0, nv_text = "Configurations:    Next Boot\n";
	run(NULL, &res);
	f = pf_test_need(&res, "pftest_mlx5_9/1", PF_STATUS_WARN);
	pf_test_assert_contains(f->message, "printed no value of ROCE_CC_PRIO_MASK_P2");
	pf_result_release(&res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_firmware_decides),
		cmocka_unit_test(test_no_tool),
		cmocka_unit_test(test_tool_fails),
		cmocka_unit_test(test_tool_fails_required_warns),
		cmocka_unit_test(test_lag_reads_both_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
