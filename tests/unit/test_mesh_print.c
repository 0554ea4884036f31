// SPDX-License-Identifier: MIT
/*
 * test_mesh_print.c - the listing of `preflight mesh` (src/cmd/mesh_print.c):
 * host names, reasons and rail strings came from the network, so a peer that
 * names itself ESC ] 52 ; c ; ... BEL (OSC 52: write the terminal's
 * clipboard) or carries CSI sequences prints them escaped (issue 30).
 */
#include <stdlib.h>
#include <string.h>

#include "mesh_print.h"
#include "testutil.h"

static char *print_table(const char *json)
{
	struct pf_mesh_schedule s = { 0 };
	cJSON *table = cJSON_Parse(json);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(table);
	assert_non_null(f);
	pf_mesh_schedule_build(2, PF_MESH_EXHAUSTIVE_MAX, 1, &s);
	pf_mesh_print(f, table, &s);
	fclose(f);
	pf_mesh_schedule_release(&s);
	cJSON_Delete(table);
	return text;
}

static void hostile_strings(void **state)
{
	pf_autofree char *text = print_table(
		"{ \"ranks\": ["
		" { \"rank\": 0, \"host\": \"n1\", \"arrived\": true,"
		"   \"rails\": [ { \"device\": \"mlx5_0\\u009b2J\" } ] },"
		" { \"rank\": 1, \"host\": \"x\\u001b]52;c;SGVsbG8=\\u0007\\u001b[2J\\u009b31my\","
		"   \"arrived\": false, \"why\": \"gone\\u001b[1A\" } ] }");

	(void)state;
	assert_null(strchr(text, '\033'));
	assert_null(strchr(text, '\a'));
	assert_null(strstr(text, "\xc2\x9b")); /* C1 CSI, U+009B */
	pf_test_assert_contains(text, "  rank 0 n1: arrived\n");
	pf_test_assert_contains(text, "  rank 1 x\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\x9b31my: "
				      "gone\\x1b[1A\n");
	pf_test_assert_contains(text, "    rail {\"device\":\"mlx5_0\\x9b2J\"}\n");
	pf_test_assert_contains(text, "schedule: 1 round (every pair once)\n  round 1: 0-1\n");
}

/* A table lacking what rank 0 should have sent prints '?', never a crash. */
static void missing_members(void **state)
{
	pf_autofree char *text = print_table("{ \"ranks\": [ { \"arrived\": false } ] }");

	(void)state;
	pf_test_assert_contains(text, "  rank -1 ?: ?\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hostile_strings),
		cmocka_unit_test(missing_members),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
