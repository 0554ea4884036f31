// SPDX-License-Identifier: MIT
/*
 * fuzz_fabric_svc.c - the parsers of the NVLink fabric's services
 * (src/parse/parse_fabric_svc.c) on one input: nvidia-imex-ctl's JSON
 * (every kept string bounded and NUL-terminated, connected never more than
 * listed), a systemctl show, Fabric Manager's version line (a dotted number
 * when found), IMEX's node list and config.cfg (an absolute path).
 */
#include <string.h>

#include "fuzz.h"
#include "preflight/fabric_svc.h"
#include "preflight/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_imex_status *st = pf_xcalloc(1, sizeof(*st));
	struct pf_imex_nodes *nl = pf_xcalloc(1, sizeof(*nl));
	struct pf_unit_state u;
	char ver[32], path[256];

	if (pf_parse_imex_status((const char *)data, size, st) == 0) {
		PF_FUZZ_ASSERT(st->n_nodes <= PF_IMEX_MAX_NODES);
		PF_FUZZ_ASSERT(strlen(st->domain) < sizeof(st->domain));
		for (size_t i = 0; i < st->n_nodes; i++) {
			const struct pf_imex_node *n = &st->nodes[i];

			PF_FUZZ_ASSERT(n->n_connected <= n->n_conn);
			PF_FUZZ_ASSERT(strlen(n->host) < sizeof(n->host));
			PF_FUZZ_ASSERT(strlen(n->status) < sizeof(n->status));
			PF_FUZZ_ASSERT(strlen(n->not_connected) < sizeof(n->not_connected));
		}
	}
	if (pf_parse_unit_state(text, &u) == 0)
		PF_FUZZ_ASSERT(u.load[0] || u.active[0]);
	if (pf_parse_fm_version(text, ver, sizeof(ver)) == 0)
		PF_FUZZ_ASSERT(strchr(ver, '.') && ver[0] >= '0' && ver[0] <= '9');
	PF_FUZZ_ASSERT(pf_parse_imex_nodes(text, nl) == 0);
	PF_FUZZ_ASSERT(nl->n <= PF_IMEX_MAX_ADDRS);
	for (size_t i = 0; i < nl->n; i++)
		PF_FUZZ_ASSERT(nl->addr[i][0] && strlen(nl->addr[i]) < PF_IMEX_WORD);
	pf_imex_nodes_path(text, path, sizeof(path));
	PF_FUZZ_ASSERT(path[0] == '/');
	free(nl);
	free(st);
	free(text);
	return 0;
}
