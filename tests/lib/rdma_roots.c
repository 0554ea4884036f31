// SPDX-License-Identifier: MIT
/*
 * rdma_roots.c - generated-root mutations for the traffic checks' device rule.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdma_roots.h"
#include "testutil.h"

void pf_test_make_soft(const char *root, const char *dev)
{
	char cls[PATH_MAX], real[PATH_MAX], virt[PATH_MAX], link[PATH_MAX + 16];

	snprintf(cls, sizeof(cls), "%s/sys/class/infiniband/%s", root, dev);
	assert_non_null(realpath(cls, real));
	snprintf(virt, sizeof(virt), "%s/sys/devices/virtual", root);
	mkdir(virt, 0755);
	snprintf(virt, sizeof(virt), "%s/sys/devices/virtual/infiniband", root);
	mkdir(virt, 0755); /* under /sys/devices/virtual, which gen_root.py may have made */
	snprintf(virt, sizeof(virt), "%s/sys/devices/virtual/infiniband/%s", root, dev);
	assert_int_equal(rename(real, virt), 0);
	snprintf(link, sizeof(link), "%s/device", virt);
	unlink(link);
	assert_int_equal(unlink(cls), 0);
	snprintf(link, sizeof(link), "../../devices/virtual/infiniband/%s", dev);
	assert_int_equal(symlink(link, cls), 0);
}

void pf_test_make_vf(const char *root, const char *dev, const char *pf_dev)
{
	char path[PATH_MAX + 16], fn[PATH_MAX], target[PATH_MAX], rel[PATH_MAX * 2], top[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device", root, dev);
	assert_non_null(realpath(path, fn));
	if (pf_dev) {
		snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device", root, pf_dev);
		assert_non_null(realpath(path, target));
	} else {
		snprintf(target, sizeof(target), "%s", fn);
		*strrchr(target, '/') = '\0';
	}
	/* a relative link, as sysfs has: up from fn to the root, down to the target */
	assert_non_null(realpath(root, top));
	root = top;
	rel[0] = '\0';
	for (const char *c = fn + strlen(root); *c; c++)
		if (*c == '/')
			strcat(rel, "../");
	strcat(rel, target + strlen(root) + 1);
	snprintf(path, sizeof(path), "%s/physfn", fn);
	unlink(path);
	assert_int_equal(symlink(rel, path), 0);
}

void pf_test_make_rxe_counters(const char *root, const char *dev)
{
	static const char *const names[] = {
		"sent_pkts", "rcvd_pkts", "duplicate_request", "out_of_seq_request",
		"rcvd_rnr_err", "send_rnr_err", "rcvd_seq_err", "ack_deferred",
		"retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err",
		"send_err", "link_downed", "rdma_sends", "rdma_recvs",
	};
	char path[PATH_MAX], rel[256];

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/1/counters", root, dev);
	pf_test_rmtree(path);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/ports/1/hw_counters", root, dev);
	pf_test_rmtree(path);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(rel, sizeof(rel), "sys/class/infiniband/%s/ports/1/hw_counters/%s", dev,
			 names[i]);
		pf_test_write(root, rel, "0\n");
	}
}
