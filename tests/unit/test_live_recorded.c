// SPDX-License-Identifier: MIT
/*
 * test_live_recorded.c - live and recorded give the same verdict for the
 * same facts, per check.  A generated node (tests/gen_root.py) is judged by
 * every static check with a live table; `preflight snapshot`'s writer
 * (pf_snapshot_write) records a root from that same table; the check judges
 * the recorded root with pf_providers_recorded; the two results must agree,
 * check status and every finding's subject and status.
 *
 * The live table is pf_providers_live, caps included (the node itself,
 * elapsing time, the process, tools): its clock, page size and routing
 * rules are this machine's.  The facts this machine cannot give for the
 * generated node (its netdevs, NV configuration, GPUs, /dev/infiniband, and
 * the process it describes: limits, environment, uid, job user) are the
 * generated node's own, read from its files as its kernel, tools and
 * process would give them, so both runs judge the same facts and only what
 * the tables declare differs.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/gpu.h"
#include "preflight/net.h"
#include "preflight/result.h"
#include "registry.h"
#include "snapshot.h"
#include "testutil.h"

/* pf_providers_live over a generated node (see the file's comment). */
static const struct pf_providers *live_over_generated(void)
{
	static struct pf_providers p;
	const struct pf_providers *rec = &pf_providers_recorded;

	p = pf_providers_live;
	p.name = "live-over-generated";
	p.gpu = rec->gpu;
	p.ethtool = rec->ethtool;
	p.linkmodes = rec->linkmodes;
	p.pause = rec->pause;
	p.ethtool_stats = rec->ethtool_stats;
	p.pfc = rec->pfc;
	p.ipv4_addrs = rec->ipv4_addrs;
	p.nv_query = rec->nv_query;
	p.devnodes = rec->devnodes;
	p.memlock = rec->memlock;
	p.env = rec->env;
	p.euid = rec->euid;
	p.job_user = rec->job_user;
	/* no traffic either way: the traffic checks are not compared */
	p.verbs = rec->verbs;
	p.rdmacm = rec->rdmacm;
	return &p;
}

/*
 * What a running node has and gen_root.py leaves out: a driver bound to
 * each GPU and NIC (sysfs's driver links) and the NVIDIA driver's version
 * file.  Without them a live run would judge a GPU with no driver.
 */
static void bind_drivers(const char *root)
{
	pf_autofree char *devs = pf_xasprintf("%s/sys/bus/pci/devices", root);
	DIR *d = opendir(devs);
	struct dirent *e;
	size_t bound = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		char rel[512], vendor[16] = "";
		const char *drv = NULL;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/vendor", devs, e->d_name);
		f = fopen(rel, "r");
		if (!f)
			continue;
		if (!fgets(vendor, sizeof(vendor), f))
			vendor[0] = '\0';
		fclose(f);
		if (!strncmp(vendor, "0x10de", 6))
			drv = "nvidia";
		else if (!strncmp(vendor, "0x15b3", 6))
			drv = "mlx5_core";
		if (!drv)
			continue;
		snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s/driver", e->d_name);
		pf_test_symlink(root, rel, drv[0] == 'n' ? "../../../bus/pci/drivers/nvidia"
							 : "../../../bus/pci/drivers/mlx5_core");
		bound++;
	}
	closedir(d);
	assert_true(bound > 0);
	pf_test_write(root, "proc/driver/nvidia/version",
		      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  "
		      "Tue Mar  5 22:23:56 UTC 2024\n");
}

/* Short sampling windows, so that the live run does not wait a second per check. */
static const char *const *sets_for(const char *check)
{
	static const char *const pfc[] = { "pfc_pause.window_ms=20", NULL };
	static const char *const port[] = { "port_errors.window_ms=20", NULL };

	if (!strcmp(check, "pfc_pause"))
		return pfc;
	if (!strcmp(check, "port_errors"))
		return port;
	return NULL;
}

static const char *finding_status(const struct pf_result *res, size_t i)
{
	return pf_status_name(res->findings[i].status);
}

/* Print what differs between the two results of @check; returns whether anything did. */
static bool differ(const char *check, const struct pf_result *live, const struct pf_result *rec)
{
	bool d = live->status != rec->status || live->n_findings != rec->n_findings;

	for (size_t i = 0; !d && i < live->n_findings; i++)
		d = live->findings[i].status != rec->findings[i].status ||
		    strcmp(live->findings[i].subject ? live->findings[i].subject : "",
			   rec->findings[i].subject ? rec->findings[i].subject : "");
	if (!d)
		return false;
	fprintf(stderr, "%s: live %s (%zu findings), recorded %s (%zu findings)\n", check,
		pf_status_name(live->status), live->n_findings, pf_status_name(rec->status),
		rec->n_findings);
	for (size_t i = 0; i < live->n_findings; i++)
		fprintf(stderr, "  live     %-5s %s: %s\n", finding_status(live, i),
			live->findings[i].subject ? live->findings[i].subject : "-",
			live->findings[i].message ? live->findings[i].message : "");
	for (size_t i = 0; i < rec->n_findings; i++)
		fprintf(stderr, "  recorded %-5s %s: %s\n", finding_status(rec, i),
			rec->findings[i].subject ? rec->findings[i].subject : "-",
			rec->findings[i].message ? rec->findings[i].message : "");
	return true;
}

/* Judge the node generated with @args live and recorded; every static check agrees. */
static void round_trip(const char *args)
{
	const struct pf_providers *live = live_over_generated();
	struct pf_snapshot_opts opts = { .prov = live, .window_ms = 0 };
	char *root = pf_test_gen_root(args), *snap = pf_xasprintf("%s.snap", root);
	const struct pf_check *const *checks;
	struct pf_fs *src = NULL;
	char *err = NULL;
	size_t n, compared = 0, judged = 0, bad = 0;

	bind_drivers(root);
	assert_int_equal(pf_fs_open(root, &src), 0);
	if (pf_snapshot_write(src, snap, &opts, NULL, &err) < 0)
		fail_msg("snapshot of %s: %s", root, err);
	pf_fs_free(src);
	checks = pf_registry(&n);
	for (size_t i = 0; i < n; i++) {
		const char *name = checks[i]->name;
		struct pf_result a, b;

		if (checks[i]->flags & PF_CHECK_TRAFFIC)
			continue;
		pf_test_run_check(name, root, live, sets_for(name), &a);
		pf_test_run_check(name, snap, &pf_providers_recorded, sets_for(name), &b);
		bad += differ(name, &a, &b);
		compared++;
		judged += a.status != PF_STATUS_SKIP && a.status != PF_STATUS_ERROR;
		pf_result_release(&a);
		pf_result_release(&b);
	}
	fprintf(stderr, "%s: %zu static checks compared (%zu judged the node), %zu differ\n",
		args, compared, judged, bad);
	assert_true(compared >= 10);
	assert_true(judged >= 6); /* a comparison of skips would prove nothing */
	assert_int_equal(bad, 0);
	pf_test_rmtree(snap);
	pf_test_rmtree(root);
	free(snap);
	free(root);
}

static void healthy_infiniband(void **state)
{
	(void)state;
	round_trip("--gpus 2 --nics 2 --iommu DMA");
}

static void healthy_roce(void **state)
{
	(void)state;
	round_trip("--gpus 2 --nics 2 --link-layer eth --iommu identity");
}

static void faulty_roce(void **state)
{
	(void)state;
	round_trip("--gpus 4 --nics 4 --link-layer eth --roce-lag 1 --slow-port mlx5_2 "
		   "--mtu-port mlx5_3 --gpu-degraded-link 1 --uverbs-missing mlx5_2 "
		   "--nic-wrong-socket 3 --iommu DMA-FQ");
}

static void faulty_infiniband(void **state)
{
	(void)state;
	round_trip("--gpus 2 --nics 2 --down-port mlx5_1 --width-port mlx5_0 --no-job-facts --iommu no-type "
		   "--numa-minus-one");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(healthy_infiniband),
		cmocka_unit_test(healthy_roce),
		cmocka_unit_test(faulty_roce),
		cmocka_unit_test(faulty_infiniband),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
