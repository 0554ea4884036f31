// SPDX-License-Identifier: MIT
/*
 * test_parse_lldp.c - LLDP neighbours from `lldpcli -f keyvalue show
 * neighbors` (src/parse/parse_lldp.c): lines as the key-value writer of
 * upstream lldpd prints them (src/client/kv_writer.c and display.c there).
 */
#include <string.h>

#include "preflight/net.h"
#include "preflight/strbuf.h"
#include "testutil.h"

static void test_neighbours(void **state)
{
	static const char text[] =
		"lldp.enp12s0np0.via=LLDP\n"
		"lldp.enp12s0np0.rid=1\n"
		"lldp.enp12s0np0.age=0 day, 02:11:45\n"
		"lldp.enp12s0np0.chassis.mac=b8:59:9f:a1:00:10\n"
		"lldp.enp12s0np0.chassis.name=leaf07\n"
		"lldp.enp12s0np0.chassis.descr=Cumulus Linux\n"
		"lldp.enp12s0np0.chassis.Bridge.enabled=on\n"
		"lldp.enp12s0np0.port.ifname=swp12\n"
		"lldp.enp12s0np0.port.descr=rail0\n"
		"lldp.enp12s0np0.port.vlanTX.id=100\n"
		/* no system name: the chassis id; an interface name with dots */
		"lldp.eth0.100.chassis.mac=b8:59:9f:a1:00:11\n"
		"lldp.eth0.100.port.mac=b8:59:9f:a1:00:31\n";
	struct pf_lldp_neighbors n;
	const struct pf_lldp_neighbor *v;

	(void)state;
	assert_int_equal(pf_parse_lldp_keyvalue(text, &n), 2);
	v = pf_lldp_find(&n, "enp12s0np0");
	assert_non_null(v);
	assert_string_equal(v->chassis, "leaf07");
	assert_string_equal(v->port, "swp12");
	v = pf_lldp_find(&n, "eth0.100");
	assert_non_null(v);
	assert_string_equal(v->chassis, "b8:59:9f:a1:00:11");
	assert_string_equal(v->port, "b8:59:9f:a1:00:31");
	assert_null(pf_lldp_find(&n, "eth0"));
	pf_lldp_neighbors_release(&n);
	assert_null(n.v);
}

static void test_second_neighbour(void **state)
{
	/* two neighbours on one port (a hub, LLDP and CDP): the first one, whole */
	static const char text[] =
		"lldp.eth0.via=LLDP\n"
		"lldp.eth0.chassis.local=chassis-a\n"
		"lldp.eth0.port.local=1/1\n"
		"lldp.eth0.via=CDPv2\n"
		"lldp.eth0.chassis.local=chassis-b\n"
		"lldp.eth0.chassis.name=second\n"
		"lldp.eth0.port.ifname=Gi0/2\n";
	struct pf_lldp_neighbors n;

	(void)state;
	assert_int_equal(pf_parse_lldp_keyvalue(text, &n), 1);
	assert_string_equal(n.v[0].chassis, "chassis-a");
	assert_string_equal(n.v[0].port, "1/1");
	pf_lldp_neighbors_release(&n);
}

static void test_hostile(void **state)
{
	char big[1200];
	struct pf_lldp_neighbors n;
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;

	(void)state;
	/* control characters, CRLF, lines that are not fields: skipped or made harmless */
	assert_int_equal(pf_parse_lldp_keyvalue("lldp.x.chassis.name=a\x01" "b\r\n"
						"lldp..port.ifname=noname\n"
						"lldp.y.port.ifname\n"
						"lldp.chassis.name=z\n"
						"lldp.x.port.descr=not an id\n"
						"garbage=1\n", &n), 1);
	assert_string_equal(n.v[0].ifname, "x");
	assert_string_equal(n.v[0].chassis, "a?b");
	assert_string_equal(n.v[0].port, "");
	pf_lldp_neighbors_release(&n);
	/* names that keep alike (a control character as '?') are one interface (fuzz_lldp_text) */
	assert_int_equal(pf_parse_lldp_keyvalue("lldp.e\x11" "1.chassis.name=a\n"
						"lldp.e\x11" "1.chassis.name=b\n"
						"lldp.e?1.port.ifname=swp1\n", &n), 1);
	assert_string_equal(n.v[0].ifname, "e?1");
	assert_ptr_equal(pf_lldp_find(&n, "e?1"), &n.v[0]);
	pf_lldp_neighbors_release(&n);
	assert_int_equal(pf_parse_lldp_keyvalue("", &n), 0);
	assert_int_equal(pf_parse_lldp_keyvalue(NULL, &n), 0);

	/* a value longer than any LLDP string is cut */
	memset(big, 'a', sizeof(big));
	memcpy(big, "lldp.e.port.local=", 18);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(pf_parse_lldp_keyvalue(big, &n), 1);
	assert_int_equal(strlen(n.v[0].port), PF_LLDP_VALUE_MAX - 1);
	pf_lldp_neighbors_release(&n);

	/* at most PF_LLDP_MAX_IFACES interfaces */
	for (int i = 0; i < PF_LLDP_MAX_IFACES + 10; i++)
		pf_strbuf_addf(&sb, "lldp.if%d.chassis.name=s%d\n", i, i);
	assert_int_equal(pf_parse_lldp_keyvalue(sb.buf, &n), PF_LLDP_MAX_IFACES);
	assert_null(pf_lldp_find(&n, "if300"));
	pf_lldp_neighbors_release(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_second_neighbour),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
