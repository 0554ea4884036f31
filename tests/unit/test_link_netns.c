// SPDX-License-Identifier: MIT
/*
 * test_link_netns.c - the link-health requests against a real kernel: a
 * veth pair in a network namespace made here.  veth has neither FEC
 * operations nor a module EEPROM, so the kernel answers both
 * ETHTOOL_MSG_FEC_GET and ETHTOOL_MSG_MODULE_EEPROM_GET with EOPNOTSUPP
 * ("not supported"), and the parsers the recorded replies go through
 * return that answer.  Without root or iproute2 the namespace cannot be
 * made: the binary says why and exits 77 (ctest: Skipped).
 */
#include <stdio.h>
#include <string.h>

#include "preflight/link_facts.h"
#include "preflight/net_facts.h"
#include "netns.h"
#include "testutil.h"

static void test_fec_veth_not_supported(void **state)
{
	pf_autofree void *buf = NULL;
	struct pf_fec f;
	size_t len = 0;
	int self = pf_test_netns_enter(), r;

	r = pf_ethtool_fec_request(&pf_ethtool_sys, "vt0", &buf, &len);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0); /* the kernel answered ... */
	assert_int_equal(pf_ethtool_parse_fec(buf, len, &f), -EOPNOTSUPP); /* ... "not supported" */
}

static void test_eeprom_veth_not_supported(void **state)
{
	const struct pf_eeprom_ask ask = { .page = 0, .bank = 0, .i2c_address = 0x50,
					   .offset = 0, .length = 128 };
	pf_autofree void *buf = NULL;
	uint8_t data[128];
	size_t len = 0, n;
	int self = pf_test_netns_enter(), r;

	r = pf_ethtool_eeprom_request("vt0", &ask, &buf, &len);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_int_equal(pf_ethtool_parse_module_eeprom(buf, len, data, sizeof(data), &n),
			 -EOPNOTSUPP);
}

static void test_no_such_device(void **state)
{
	pf_autofree void *buf = NULL;
	struct pf_fec f;
	size_t len = 0;
	int self = pf_test_netns_enter(), r;

	r = pf_ethtool_fec_request(&pf_ethtool_sys, "pfnosuch0", &buf, &len);
	pf_test_netns_leave(self);
	assert_int_equal(r, 0);
	assert_int_equal(pf_ethtool_parse_fec(buf, len, &f), -ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fec_veth_not_supported),
		cmocka_unit_test(test_eeprom_veth_not_supported),
		cmocka_unit_test(test_no_such_device),
	};
	int r;

	pf_test_netns_create("pftest_link",
			     "ip -n %1$s link add vt0 type veth peer name vt1 2>/dev/null && "
			     "ip -n %1$s link set vt0 up && ip -n %1$s link set vt1 up",
			     "cannot create a veth pair (no veth module?)");
	if (!*pf_test_netns_name()) {
		printf("SKIP: no network namespace could be made (needs root and iproute2)\n");
		return 77;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	pf_test_netns_remove();
	return r;
}
