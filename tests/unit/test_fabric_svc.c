// SPDX-License-Identifier: MIT
/*
 * test_fabric_svc.c - the NVLink fabric's services: the parsers of
 * src/parse/parse_fabric_svc.c on the tools' real shapes and on hostile
 * text, the live provider's runner over fake tools (output, failure,
 * deadline), and the recorded provider reading preflight/fabric/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preflight/fabric_svc.h"
#include "preflight/fs.h"
#include "preflight/providers.h"
#include "testutil.h"

/* As nvidia-imex-ctl -N -j prints a two-node domain (IMEX guide, "The nvidia-imex-ctl Tool"). */
static const char IMEX_UP[] =
	"{\"nodes\": {\"0\": {\"status\": \"READY\", \"host\": \"10.0.0.1\", \"connections\": "
	"{\"0\": {\"host\": \"10.0.0.1\", \"status\": \"CONNECTED\", \"changed\": true}, "
	"\"1\": {\"host\": \"10.0.0.2\", \"status\": \"CONNECTED\", \"changed\": true}}, "
	"\"changed\": true, \"version\": \"580.95.05\"}, \"1\": {\"status\": \"UNAVAILABLE\", "
	"\"host\": \"10.0.0.2\", \"connections\": {\"0\": {\"host\": \"10.0.0.1\", \"status\": "
	"\"INVALID\"}, \"1\": {\"host\": \"10.0.0.2\", \"status\": \"INVALID\"}}}}, "
	"\"timestamp\": \"9/4/2026 00:37:39.905\", \"status\": \"DEGRADED\"}";

static void test_imex_status(void **state)
{
	struct pf_imex_status *st = calloc(1, sizeof(*st));

	(void)state;
	assert_int_equal(pf_parse_imex_status(IMEX_UP, strlen(IMEX_UP), st), 0);
	assert_string_equal(st->domain, "DEGRADED");
	assert_int_equal(st->n_nodes, 2);
	assert_string_equal(st->nodes[0].host, "10.0.0.1");
	assert_string_equal(st->nodes[0].status, "READY");
	assert_string_equal(st->nodes[0].version, "580.95.05");
	assert_int_equal(st->nodes[0].n_conn, 2);
	assert_int_equal(st->nodes[0].n_connected, 2);
	assert_string_equal(st->nodes[1].status, "UNAVAILABLE");
	assert_int_equal(st->nodes[1].n_connected, 0);
	assert_string_equal(st->nodes[1].not_connected, "10.0.0.1 INVALID, 10.0.0.2 INVALID");
	/* wrong types are skipped, not trusted; a control byte never reaches a message */
	const char odd[] = "{\"status\": 3, \"nodes\": {\"0\": [1], \"1\": {\"host\": 7, "
			   "\"status\": \"RE\\u0001ADY\", \"connections\": [\"x\", {\"status\": "
			   "\"CONNECTED\"}]}}}";
	assert_int_equal(pf_parse_imex_status(odd, strlen(odd), st), 0);
	assert_string_equal(st->domain, "");
	assert_int_equal(st->n_nodes, 1);
	assert_string_equal(st->nodes[0].host, "");
	assert_string_equal(st->nodes[0].status, "READY");
	assert_int_equal(st->nodes[0].n_conn, 1);
	/* not a status at all */
	assert_int_equal(pf_parse_imex_status("[]", 2, st), -EINVAL);
	assert_int_equal(pf_parse_imex_status("{\"x\": 1}", 8, st), -EINVAL);
	assert_int_equal(pf_parse_imex_status("Connection refused", 18, st), -EINVAL);
	assert_int_equal(pf_parse_imex_status("{\"nodes\": {", 11, st), -EINVAL);
	free(st);
}

static void test_unit_state(void **state)
{
	struct pf_unit_state u;

	(void)state;
	assert_int_equal(pf_parse_unit_state("LoadState=loaded\nActiveState=active\n"
					     "SubState=running\n", &u), 0);
	assert_string_equal(u.load, "loaded");
	assert_string_equal(u.active, "active");
	assert_string_equal(u.sub, "running");
	assert_int_equal(pf_parse_unit_state("ActiveState=inactive\nSubState=dead\n"
					     "LoadState=not-found", &u), 0);
	assert_string_equal(u.load, "not-found");
	assert_string_equal(u.active, "inactive");
	assert_int_equal(pf_parse_unit_state("System has not been booted with systemd as init "
					     "system (PID 1). Can't operate.\n", &u), -EINVAL);
	assert_int_equal(pf_parse_unit_state("", &u), -EINVAL);
}

static void test_fm_version(void **state)
{
	char v[32];

	(void)state;
	assert_int_equal(pf_parse_fm_version("Fabric Manager version is : 550.54.15\n", v,
					     sizeof(v)), 0);
	assert_string_equal(v, "550.54.15");
	assert_int_equal(pf_parse_fm_version("NVIDIA Fabric Manager\nversion 580.95.05.\n", v,
					     sizeof(v)), 0);
	assert_string_equal(v, "580.95.05");
	assert_int_equal(pf_parse_fm_version("version is : unknown\n", v, sizeof(v)), -EINVAL);
	assert_int_equal(pf_parse_fm_version("550.54.15\n", v, sizeof(v)), -EINVAL);
	assert_int_equal(pf_parse_fm_version("version 1.2.3.4.5.6.7.8.9.10.11.12.13.14.15", v, 8),
			 -EINVAL);
}

static void test_imex_nodes(void **state)
{
	struct pf_imex_nodes *nl = calloc(1, sizeof(*nl));
	char path[256];

	(void)state;
	pf_parse_imex_nodes("# the rack\n10.0.0.1\n  10.0.0.2   # tray 2\n\nfe80::1\n", nl);
	assert_int_equal(nl->n, 3);
	assert_string_equal(nl->addr[1], "10.0.0.2");
	assert_string_equal(nl->addr[2], "fe80::1");
	assert_int_equal(nl->n_bad, 0);
	pf_parse_imex_nodes("10.0.0.1\nnode-2\n10.0.0.300\n", nl);
	assert_int_equal(nl->n, 1);
	assert_int_equal(nl->n_bad, 2);
	assert_int_equal(nl->first_bad, 2);
	pf_parse_imex_nodes("# nothing yet\n\n", nl);
	assert_int_equal(nl->n, 0);
	assert_int_equal(nl->n_bad, 0);
	pf_imex_nodes_path(NULL, path, sizeof(path));
	assert_string_equal(path, "/etc/nvidia-imex/nodes_config.cfg");
	pf_imex_nodes_path("SERVER_PORT=50000\nIMEX_NODE_CONFIG_FILE=/shared/imex/nodes.cfg \n",
			   path, sizeof(path));
	assert_string_equal(path, "/shared/imex/nodes.cfg");
	pf_imex_nodes_path("IMEX_NODE_CONFIG_FILE=relative.cfg\n", path, sizeof(path));
	assert_string_equal(path, "/etc/nvidia-imex/nodes_config.cfg");
	free(nl);
}

/* A fake tool under @dir that prints its arguments' count and @body's output. */
static char *fake_tool(const char *dir, const char *name, const char *body)
{
	char *path = pf_xasprintf("%s/%s", dir, name);

	pf_test_write(dir, name, body);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* The live side over fake tools: the arguments each service is asked with, failure, deadline. */
static void test_live_run(void **state)
{
	char *dir = pf_test_mkdtemp();
	pf_autofree char *ok = fake_tool(dir, "show", "#!/bin/sh\necho \"$*\"\n");
	pf_autofree char *bad = fake_tool(dir, "imexctl", "#!/bin/sh\necho 'Connection refused'\n"
					  "exit 255\n");
	pf_autofree char *hang = fake_tool(dir, "hang", "#!/bin/sh\nsleep 30\n");
	char *text = NULL;

	(void)state;
	if (geteuid() != 0) { /* pf_nv_run runs only root-owned tools */
		pf_test_rmtree(dir);
		free(dir);
		skip();
	}
	assert_int_equal(pf_fabric_svc_run(ok, PF_SVC_FM_UNIT, &text), 0);
	assert_string_equal(text, "show -p LoadState -p ActiveState -p SubState "
			    "nvidia-fabricmanager.service\n");
	free(text);
	assert_int_equal(pf_fabric_svc_run(ok, PF_SVC_IMEX_UNIT, &text), 0);
	assert_non_null(strstr(text, "nvidia-imex.service"));
	free(text);
	assert_int_equal(pf_fabric_svc_run(ok, PF_SVC_FM_VERSION, &text), 0);
	assert_string_equal(text, "--version\n");
	free(text);
	assert_int_equal(pf_fabric_svc_run(ok, PF_SVC_IMEX_STATUS, &text), 0);
	assert_string_equal(text, "-N -j\n");
	free(text);
	assert_int_equal(pf_fabric_svc_run(bad, PF_SVC_IMEX_STATUS, &text), -EIO);
	assert_string_equal(text, "Connection refused\n");
	free(text);
	text = NULL;
	assert_int_equal(pf_fabric_svc_run(hang, PF_SVC_FM_VERSION, &text), -ETIMEDOUT);
	assert_null(text);
	assert_int_equal(pf_fabric_svc_run(ok, PF_SVC_N, &text), -EINVAL);
	pf_test_rmtree(dir);
	free(dir);
}

/* The recorded side: preflight/fabric/<file>, -ENOENT when not captured. */
static void test_recorded(void **state)
{
	char *dir = pf_test_mkdtemp();
	struct pf_fs *fs = NULL;
	struct pf_ctx ctx = { 0 };
	char *text = NULL;

	(void)state;
	pf_test_write(dir, "preflight/fabric/imex.status.json", IMEX_UP);
	assert_int_equal(pf_fs_open(dir, &fs), 0);
	ctx.fs = fs;
	assert_int_equal(pf_recorded_fabric_svc(&ctx, PF_SVC_IMEX_STATUS, &text), 0);
	assert_string_equal(text, IMEX_UP);
	free(text);
	assert_int_equal(pf_recorded_fabric_svc(&ctx, PF_SVC_FM_UNIT, &text), -ENOENT);
	assert_string_equal(pf_fabric_svc_file(PF_SVC_FM_VERSION), "fabricmanager.version");
	assert_string_equal(pf_fabric_svc_tool(PF_SVC_IMEX_STATUS), "nvidia-imex-ctl");
	pf_fs_free(fs);
	pf_test_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_imex_status),
		cmocka_unit_test(test_unit_state),
		cmocka_unit_test(test_fm_version),
		cmocka_unit_test(test_imex_nodes),
		cmocka_unit_test(test_live_run),
		cmocka_unit_test(test_recorded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
