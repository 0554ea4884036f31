// SPDX-License-Identifier: MIT
/*
 * fuzz_lldp_text.c - the LLDP neighbour parser (`lldpcli -f keyvalue show
 * neighbors`, src/parse/parse_lldp.c): bounded, every field terminated and
 * free of control characters, each interface once.
 */
#include "fuzz.h"
#include "preflight/net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_lldp_neighbors n;
	int r = pf_parse_lldp_keyvalue(text, &n);

	PF_FUZZ_ASSERT(r >= 0 && (size_t)r == n.n && n.n <= PF_LLDP_MAX_IFACES);
	for (size_t i = 0; i < n.n; i++) {
		const struct pf_lldp_neighbor *v = &n.v[i];

		PF_FUZZ_ASSERT(pf_fuzz_terminated(v->ifname, sizeof(v->ifname)) && v->ifname[0]);
		PF_FUZZ_ASSERT(pf_fuzz_terminated(v->chassis, sizeof(v->chassis)));
		PF_FUZZ_ASSERT(pf_fuzz_terminated(v->port, sizeof(v->port)));
		for (const char *c = v->chassis; *c; c++)
			PF_FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
		for (const char *c = v->port; *c; c++)
			PF_FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
		PF_FUZZ_ASSERT(pf_lldp_find(&n, v->ifname) == v);
	}
	pf_lldp_neighbors_release(&n);
	PF_FUZZ_ASSERT(n.v == NULL && n.n == 0);
	free(text);
	return 0;
}
