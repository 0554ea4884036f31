// SPDX-License-Identifier: MIT
/*
 * test_check_nic_health.c - the devlink parsers and the nic_health check on
 * devlink dumps built here message by message after the kernel's uapi
 * (include/uapi/linux/devlink.h): no public capture of an mlx5 node's
 * DEVLINK_CMD_HEALTH_REPORTER_GET / DEVLINK_CMD_INFO_GET reply bytes was
 * found, so these are hand-built, with mlx5's reporter names (fw, fw_fatal,
 * tx, rx; drivers/net/ethernet/mellanox/mlx5/core/health.c) and its version
 * names (fw.psid fixed, fw.version running and stored), written as a
 * snapshot holds them (preflight/devlink/{health,info}.nl) and read through
 * the recorded provider and the same parsers as live.  And the real kernel
 * here: a devlink dump answers (or says ENOENT for the family), and the
 * check skips with that answer for a NIC with no devlink instance.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "preflight/devlink.h"
#include "preflight/providers.h"
#include "preflight/parse.h"
#include "testutil.h"

#define NIC0 "0000:14:00.0" /* mlx5_0 of gen_root --gpus 2 --nics 2 */
#define NIC1 "0000:1c:00.0" /* mlx5_1 */
#define FAMILY 0x14         /* a family id as the kernel assigns one */

struct dump {
	unsigned char buf[16384];
	size_t len;
};

static void append(struct dump *d, struct nl_msg *m)
{
	struct nlmsghdr *h = nlmsg_hdr(m);

	assert_true(d->len + NLMSG_ALIGN(h->nlmsg_len) <= sizeof(d->buf));
	memcpy(d->buf + d->len, h, h->nlmsg_len);
	d->len += NLMSG_ALIGN(h->nlmsg_len);
	nlmsg_free(m);
}

static struct nl_msg *dl_msg(uint8_t cmd, const char *bdf)
{
	struct nl_msg *m = nlmsg_alloc();

	assert_non_null(m);
	assert_non_null(genlmsg_put(m, 1234, 7, FAMILY, 0, NLM_F_MULTI, cmd, DEVLINK_GENL_VERSION));
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_BUS_NAME, "pci"), 0);
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_DEV_NAME, bdf), 0);
	return m;
}

static void reporter(struct dump *d, const char *bdf, const char *name, uint8_t state,
		     uint64_t errors, uint64_t recovers)
{
	struct nl_msg *m = dl_msg(DEVLINK_CMD_HEALTH_REPORTER_GET, bdf);
	struct nlattr *nest = nla_nest_start(m, DEVLINK_ATTR_HEALTH_REPORTER);

	assert_non_null(nest);
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_HEALTH_REPORTER_NAME, name), 0);
	assert_int_equal(nla_put_u8(m, DEVLINK_ATTR_HEALTH_REPORTER_STATE, state), 0);
	assert_int_equal(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, errors), 0);
	assert_int_equal(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, recovers), 0);
	nla_nest_end(m, nest);
	append(d, m);
}

static void version(struct nl_msg *m, int type, const char *name, const char *value)
{
	struct nlattr *nest = nla_nest_start(m, type);

	assert_non_null(nest);
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_INFO_VERSION_NAME, name), 0);
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_INFO_VERSION_VALUE, value), 0);
	nla_nest_end(m, nest);
}

static void info(struct dump *d, const char *bdf, const char *running, const char *stored)
{
	struct nl_msg *m = dl_msg(DEVLINK_CMD_INFO_GET, bdf);

	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_INFO_DRIVER_NAME, "mlx5_core"), 0);
	assert_int_equal(nla_put_string(m, DEVLINK_ATTR_INFO_SERIAL_NUMBER, "MT2301X00000"), 0);
	version(m, DEVLINK_ATTR_INFO_VERSION_FIXED, "fw.psid", "MT_0000000838");
	version(m, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.version", running);
	version(m, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw", running);
	version(m, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.version", stored);
	version(m, DEVLINK_ATTR_INFO_VERSION_STORED, "fw", stored);
	append(d, m);
}

static void done(struct dump *d)
{
	struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(sizeof(int)), .nlmsg_type = NLMSG_DONE,
			      .nlmsg_flags = NLM_F_MULTI };

	memcpy(d->buf + d->len, &h, sizeof(h));
	memset(d->buf + d->len + sizeof(h), 0, sizeof(int));
	d->len += NLMSG_ALIGN(h.nlmsg_len);
}

/* mlx5's four reporters of both NICs, healthy unless @bad0 names one of mlx5_0's. */
static void health_dump(struct dump *d, const char *bad0, uint8_t state, uint64_t errors)
{
	static const char *const names[] = { "fw", "fw_fatal", "tx", "rx" };

	d->len = 0;
	for (int n = 0; n < 2; n++)
		for (size_t i = 0; i < 4; i++) {
			bool bad = n == 0 && bad0 && !strcmp(bad0, names[i]);

			reporter(d, n ? NIC1 : NIC0, names[i], bad ? state : 0, bad ? errors : 0,
				 bad && !state ? errors : 0);
		}
	done(d);
}

static void write_bin(const char *root, const char *rel, const struct dump *d)
{
	char path[512];
	FILE *f;

	pf_test_write(root, rel, ""); /* its directories */
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(d->buf, 1, d->len, f), d->len);
	assert_int_equal(fclose(f), 0);
}

static char *root_with(const char *bad0, uint8_t state, uint64_t errors, const char *stored0)
{
	char *root = pf_test_gen_root("--gpus 2 --nics 2");
	struct dump d;

	health_dump(&d, bad0, state, errors);
	write_bin(root, "preflight/devlink/health.nl", &d);
	d.len = 0;
	info(&d, NIC0, "28.39.1002", stored0 ? stored0 : "28.39.1002");
	info(&d, NIC1, "28.39.1002", "28.39.1002");
	done(&d);
	write_bin(root, "preflight/devlink/info.nl", &d);
	pf_test_write(root, "preflight/kmsg", ""); /* a clean kernel log */
	return root;
}

static void drop(char *root)
{
	pf_test_rmtree(root);
	free(root);
}

static void test_parse(void **state)
{
	struct pf_devlink_reporter *rep = NULL;
	struct pf_devlink_info *in = NULL;
	struct dump d;
	size_t n = 0;

	(void)state;
	health_dump(&d, "fw_fatal", 1, 3);
	assert_int_equal(pf_devlink_parse_health(d.buf, d.len, &rep, &n), 0);
	assert_int_equal(n, 8);
	assert_string_equal(rep[1].dev, NIC0);
	assert_string_equal(rep[1].name, "fw_fatal");
	assert_int_equal(rep[1].state, PF_DEVLINK_STATE_ERROR);
	assert_int_equal(rep[1].errors, 3);
	free(rep);
	d.len = 0;
	info(&d, NIC0, "28.39.1002", "28.41.1000");
	done(&d);
	assert_int_equal(pf_devlink_parse_info(d.buf, d.len, &in, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(in[0].driver, "mlx5_core");
	assert_string_equal(in[0].psid, "MT_0000000838");
	assert_string_equal(in[0].fw_running, "28.39.1002");
	assert_string_equal(in[0].fw_stored, "28.41.1000");
	free(in);
	/* the info bytes are not a health reply; garbage is not netlink; an error is its errno */
	assert_int_equal(pf_devlink_parse_health(d.buf, d.len, &rep, &n), -EBADMSG);
	assert_int_equal(pf_devlink_parse_health("garbage!", 8, &rep, &n), -EBADMSG);
	{
		struct {
			struct nlmsghdr h;
			struct nlmsgerr e;
		} err = { .h = { .nlmsg_len = sizeof(err), .nlmsg_type = NLMSG_ERROR },
			  .e = { .error = -EOPNOTSUPP } };

		assert_int_equal(pf_devlink_parse_info(&err, sizeof(err), &in, &n), -EOPNOTSUPP);
	}
	/* an empty dump (no devlink device): nothing, no error */
	d.len = 0;
	done(&d);
	assert_int_equal(pf_devlink_parse_health(d.buf, d.len, &rep, &n), 0);
	assert_int_equal(n, 0);
	free(rep);
}

static void test_healthy(void **state)
{
	char *root = root_with(NULL, 0, 0, NULL);
	struct pf_result res;
	const struct pf_finding *f;

	(void)state;
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	assert_int_equal(res.n_findings, 2);
	f = pf_test_must_find(&res, "mlx5_0");
	pf_test_assert_contains(f->message, "4 devlink health reporters healthy (fw, fw_fatal, tx, "
				"rx), firmware 28.39.1002");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "psid")->valuestring, "MT_0000000838");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "fw_running")->valuestring,
			    "28.39.1002");
	pf_result_release(&res);
	drop(root);
}

static void test_fw_fatal(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;
	char *root;

	(void)state;
	/* in error state */
	root = root_with("fw_fatal", PF_DEVLINK_STATE_ERROR, 1, NULL);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	assert_int_equal(f->code_num, 1);
	pf_test_assert_contains(f->message, "fw_fatal in error state (1 errors, 0 recovered)");
	pf_test_assert_contains(f->remedy, "devlink health show pci/" NIC0);
	assert_int_equal(pf_test_must_find(&res, "mlx5_1")->status, PF_STATUS_PASS);
	pf_result_release(&res);
	drop(root);
	/* recovered, healthy again: a fatal firmware error since the driver loaded still fails */
	root = root_with("fw_fatal", PF_DEVLINK_STATE_HEALTHY, 2, NULL);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "fw_fatal 2 errors since the driver loaded");
	pf_result_release(&res);
	drop(root);
}

static void test_other_reporters_and_firmware(void **state)
{
	struct pf_result res;
	const struct pf_finding *f;
	char *root;

	(void)state;
	root = root_with("tx", PF_DEVLINK_STATE_HEALTHY, 5, NULL);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_int_equal(f->code_num, 3);
	pf_test_assert_contains(f->message, "tx 5 errors (5 recovered)");
	pf_result_release(&res);
	pf_test_run_check("nic_health", root, NULL,
			  (const char *const[]){ "nic_health.ignore_reporters=tx", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	drop(root);
	/* rx in error state: the reporter's own failure */
	root = root_with("rx", PF_DEVLINK_STATE_ERROR, 1, NULL);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(pf_test_must_find(&res, "mlx5_0")->code_num, 2);
	pf_result_release(&res);
	drop(root);
	/* a flashed firmware not yet activated */
	root = root_with(NULL, 0, 0, "28.41.1000");
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	f = pf_test_must_find(&res, "mlx5_0");
	assert_int_equal(f->status, PF_STATUS_WARN);
	assert_int_equal(f->code_num, 4);
	pf_test_assert_contains(f->message, "firmware 28.39.1002 runs, 28.41.1000 is stored");
	assert_string_equal(cJSON_GetObjectItem(f->observed, "fw_stored")->valuestring,
			    "28.41.1000");
	pf_result_release(&res);
	pf_test_run_check("nic_health", root, NULL,
			  (const char *const[]){ "nic_health.warn_fw_pending=false", NULL }, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_result_release(&res);
	drop(root);
}

static void test_not_recorded_and_garbage(void **state)
{
	char *root = pf_test_gen_root("--gpus 2 --nics 2");
	struct pf_result res;

	(void)state;
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	pf_test_assert_contains(res.summary, "the snapshot holds no devlink dump");
	pf_result_release(&res);
	pf_test_write(root, "preflight/devlink/health.nl", "not netlink at all\n");
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_ERROR);
	pf_test_assert_contains(res.summary, "the reply is not devlink messages");
	pf_result_release(&res);
	drop(root);
}

/* The real kernel: its answer, and the check's skip for a NIC it has no devlink instance of. */
static void test_live_kernel(void **state)
{
	void *buf = NULL;
	size_t len = 0, n = 0;
	struct pf_devlink_reporter *rep = NULL;
	char *root = pf_test_gen_root("--gpus 2 --nics 2");
	struct pf_result res;
	int r;

	(void)state;
	r = pf_live_devlink_dump(NULL, PF_DEVLINK_HEALTH, &buf, &len);
	if (r == 0) {
		assert_int_equal(pf_devlink_parse_health(buf, len, &rep, &n), 0);
		for (size_t i = 0; i < n; i++)
			assert_true(strcmp(rep[i].dev, NIC0) || strcmp(rep[i].bus, "pci"));
		free(rep);
		free(buf);
	} else {
		/* no devlink family in this kernel, or no permission to ask */
		assert_true(r == -ENOENT || r == -EPERM || r == -EACCES);
	}
	pf_test_run_check("nic_health", root, &pf_providers_live, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_SKIP);
	if (r == -ENOENT)
		pf_test_assert_contains(res.summary, "the kernel has no devlink generic netlink "
				       "family (ENOENT)");
	else if (r == 0)
		pf_test_assert_contains(pf_test_must_find(&res, "mlx5_0")->message,
					"no devlink health reporters for pci/" NIC0);
	pf_result_release(&res);
	drop(root);
}

/*
 * mlx5's health messages in the kernel log (health.c's texts, with
 * mlx5_core_err's prefix), as /dev/kmsg records and dmesg lines.
 */
static const char fatal_log[] =
	"3,1201,5123456789,-;mlx5_core " NIC0 ": poll_health:737:(pid 0): Fatal error 1 detected\n"
	" SUBSYSTEM=pci\n"
	"3,1202,5123456790,-;mlx5_core " NIC0 ": print_health_info:420:(pid 0): synd 0x1: "
	"firmware internal error\n";
static const char recovered_log[] =
	"[ 5123.456789] mlx5_core " NIC0 ": poll_health:737:(pid 0): device's health "
	"compromised - reached miss count\n"
	"[ 5124.000001] mlx5_core " NIC0 ": mlx5_health_try_recover:323:(pid 77): starting health "
	"recovery flow\n";
static const char failed_log[] =
	"[ 5123.456789] mlx5_core " NIC0 ": poll_health:737:(pid 0): Fatal error 3 detected\n"
	"[ 5124.000001] mlx5_core " NIC0 ": mlx5_health_try_recover:323:(pid 77): starting health "
	"recovery flow\n"
	"[ 5125.000001] mlx5_core " NIC0 ": mlx5_health_try_recover:330:(pid 77): health "
	"recovery failed\n";

static void test_kernel_log(void **state)
{
	struct pf_mlx5_health *ev = NULL;
	struct pf_result res;
	const struct pf_finding *f;
	size_t n = 0;
	char *root;

	(void)state;
	/* the parser: the function, the event, the syndrome, the recovery's outcome */
	assert_int_equal(pf_parse_kmsg_mlx5(fatal_log, &ev, &n), 1);
	assert_string_equal(ev[0].bdf, NIC0);
	assert_int_equal(ev[0].fatal, 1);
	assert_false(ev[0].recovered);
	pf_test_assert_contains(ev[0].what, "Fatal error 1 detected (synd 0x1: firmware internal "
				"error)");
	free(ev);
	assert_int_equal(pf_parse_kmsg_mlx5(recovered_log, &ev, &n), 1);
	assert_true(ev[0].recovered);
	assert_int_equal(ev[0].compromised, 1);
	free(ev);
	assert_int_equal(pf_parse_kmsg_mlx5("mlx5_core 0000:14:00.0: synd 0x1: x\nmlx5_core "
					    "0000:14:00.0: Link up\nNVRM: Xid (PCI:0000:1b:00): "
					    "79\nmlx5_core garbage: Fatal error 1 detected\n",
					    &ev, &n), 0);
	assert_null(ev);

	/* not recovered: fail, code 5, naming the NIC */
	root = root_with(NULL, 0, 0, NULL);
	pf_test_write(root, "preflight/kmsg", fatal_log);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_FAIL);
	f = pf_test_need(&res, "mlx5_0/kernel_log", PF_STATUS_FAIL);
	pf_test_assert_contains(f->message, "no recovery followed");
	assert_int_equal(f->code_num, 5);
	assert_null(pf_test_finding(&res, "mlx5_1/kernel_log"));
	pf_result_release(&res);

	/* its recovery failed: fail; recovered by the driver: warn, code 6 */
	pf_test_write(root, "preflight/kmsg", failed_log);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	pf_test_assert_contains(pf_test_need(&res, "mlx5_0/kernel_log", PF_STATUS_FAIL)->message,
				"its recovery failed");
	pf_result_release(&res);
	pf_test_write(root, "preflight/kmsg", recovered_log);
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_WARN);
	assert_int_equal(pf_test_need(&res, "mlx5_0/kernel_log", PF_STATUS_WARN)->code_num, 6);
	pf_result_release(&res);

	/* no kernel log in the snapshot: a skip naming it, the devlink verdict unchanged */
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/preflight/kmsg", root);
		assert_int_equal(unlink(path), 0);
	}
	pf_test_run_check("nic_health", root, NULL, NULL, &res);
	assert_int_equal(res.status, PF_STATUS_PASS);
	pf_test_need(&res, "kernel_log", PF_STATUS_SKIP);
	pf_result_release(&res);
	drop(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_fw_fatal),
		cmocka_unit_test(test_other_reporters_and_firmware),
		cmocka_unit_test(test_not_recorded_and_garbage),
		cmocka_unit_test(test_live_kernel),
		cmocka_unit_test(test_kernel_log),
	};

	return pf_test_run_group(tests, NULL, NULL);
}
