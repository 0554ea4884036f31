// SPDX-License-Identifier: MIT
/*
 * test_mesh_rails.c - this node's rail table for `preflight mesh`
 * (src/mesh/mesh_rails.c) from generated roots: every RDMA port with its
 * device, netdev and the netdev's IPv4 address ("ip", what RDMA-CM connects
 * to), --nics keeping only the devices named, an uncaptured address left
 * out (never guessed).
 */
#include <stdlib.h>
#include <string.h>

#include "mesh.h"
#include "preflight/fs.h"
#include "preflight/node.h"
#include "preflight/providers.h"
#include "preflight/rail_facts.h"
#include "preflight/rails.h"
#include "testutil.h"

/*
 * The table of a generated node; with @model, the rail model built as
 * `preflight mesh` builds it (without, every port: the table before it).
 */
static cJSON *table_of(const char *args, const char *nics, bool model)
{
	char *root = pf_test_gen_root(args);
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	struct pf_rails *rails_model = NULL;
	char *why = NULL;
	cJSON *rails;

	assert_int_equal(pf_fs_open(root, &fs), 0);
	assert_int_equal(pf_node_load(fs, NULL, &node, &why), 0);
	if (model) {
		const struct pf_ctx ctx = { .fs = fs, .prov = pf_providers_for(fs), .node = node };

		assert_int_equal(pf_rails_for_ctx(&ctx, NULL, &rails_model, &why), 0);
	}
	rails = pf_mesh_rails(fs, node, rails_model, nics, NULL);
	pf_rails_free(rails_model);
	pf_node_free(node);
	pf_fs_free(fs);
	pf_test_rmtree(root);
	free(root);
	return rails;
}

static cJSON *rails_of(const char *args, const char *nics)
{
	return table_of(args, nics, false);
}

static cJSON *model_rails_of(const char *args, const char *nics)
{
	return table_of(args, nics, true);
}

static const char *str(const cJSON *rails, int i, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(rails, i), key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The LLDP neighbour of each rail, from the rail model: an object, or null. */
static void test_lldp(void **state)
{
	cJSON *rails = model_rails_of("--gpus 2 --nics 2 --link-layer eth --lldp", NULL);
	const cJSON *l;

	(void)state;
	assert_int_equal(cJSON_GetArraySize(rails), 2);
	l = cJSON_GetObjectItem(cJSON_GetArrayItem(rails, 1), "lldp");
	assert_true(cJSON_IsObject(l));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(l, "chassis")), "leaf1");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(l, "port")), "swp2");
	cJSON_Delete(rails);
	rails = model_rails_of("--gpus 2 --nics 2 --link-layer eth", NULL);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(rails, 0), "lldp")));
	cJSON_Delete(rails);
}

static void test_ip_and_nics(void **state)
{
	cJSON *rails = rails_of("--nics 4 --link-layer eth", NULL);

	assert_int_equal(cJSON_GetArraySize(rails), 4);
	assert_string_equal(str(rails, 0, "device"), "mlx5_0");
	assert_string_equal(str(rails, 0, "ip"), "10.10.0.1");
	assert_string_equal(str(rails, 3, "ip"), "10.10.0.4");
	cJSON_Delete(rails);

	rails = rails_of("--nics 4 --link-layer eth", "mlx5_3,mlx5_1");
	assert_int_equal(cJSON_GetArraySize(rails), 2);
	assert_string_equal(str(rails, 0, "device"), "mlx5_1");
	assert_string_equal(str(rails, 1, "device"), "mlx5_3");
	assert_string_equal(str(rails, 1, "ip"), "10.10.0.4");
	cJSON_Delete(rails);

	/* an empty list takes no rail; a prefix of a name is not the name */
	rails = rails_of("--nics 2 --link-layer eth", "");
	assert_int_equal(cJSON_GetArraySize(rails), 0);
	cJSON_Delete(rails);
	assert_false(pf_mesh_nic_listed("mlx5_1", "mlx5_10"));
	assert_true(pf_mesh_nic_listed("a,mlx5_10", "mlx5_10"));
	assert_true(pf_mesh_nic_listed(NULL, "x"));

	/* no captured address: no "ip" (the flows of that rail are skipped) */
	rails = rails_of("--nics 2 --link-layer eth --rail-subnets none", NULL);
	assert_int_equal(cJSON_GetArraySize(rails), 2);
	assert_null(str(rails, 0, "ip"));
	assert_non_null(str(rails, 0, "netdev"));
	cJSON_Delete(rails);
}

/*
 * By default the compute rails alone, in rail order: a storage port and a
 * front-end port are left out (four such nodes gave 16 suspects when every
 * port was a rail); --nics still takes what it names, with its role, marked
 * "selected": "nics".
 */
static void test_compute_rails_by_default(void **state)
{
	cJSON *rails = model_rails_of("--storage-nic --frontend-eth", NULL);
	const cJSON *rail;

	(void)state;
	assert_int_equal(cJSON_GetArraySize(rails), 8);
	for (int i = 0; i < 8; i++) {
		char dev[16];

		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		assert_string_equal(str(rails, i, "device"), dev);
		assert_string_equal(str(rails, i, "role"), "compute");
		assert_null(str(rails, i, "selected"));
		rail = cJSON_GetObjectItem(cJSON_GetArrayItem(rails, i), "rail");
		assert_true(cJSON_IsNumber(rail) && rail->valueint == i);
	}
	cJSON_Delete(rails);

	rails = model_rails_of("--storage-nic --frontend-eth", "mlx5_8,mlx5_9");
	assert_int_equal(cJSON_GetArraySize(rails), 2);
	assert_string_equal(str(rails, 0, "role"), "storage");
	assert_string_equal(str(rails, 1, "role"), "frontend");
	/* named: compared with what the partner named, whatever its role (pf_rail_compat) */
	assert_string_equal(str(rails, 0, "selected"), "nics");
	assert_string_equal(str(rails, 1, "selected"), "nics");
	assert_string_equal(str(rails, 1, "subnet"), "10.10.0.0/16");
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(rails, 1), "rail"));
	cJSON_Delete(rails);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ip_and_nics),
		cmocka_unit_test(test_compute_rails_by_default),
		cmocka_unit_test(test_lldp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
