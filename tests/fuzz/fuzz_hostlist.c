// SPDX-License-Identifier: MIT
/*
 * fuzz_hostlist.c - pf_hostlist_expand() (SLURM_JOB_NODELIST, --peers).
 */
#include <errno.h>

#include "fuzz.h"
#include "hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_hostlist hl;
	struct pf_strbuf why = PF_STRBUF_INIT;
	int n = pf_hostlist_expand(text, 4096, &hl, &why);

	PF_FUZZ_ASSERT(n >= 0 || n == -EINVAL || n == -E2BIG);
	if (n >= 0) {
		PF_FUZZ_ASSERT((size_t)n == hl.n && hl.n <= 4096);
		for (size_t i = 0; i < hl.n; i++) {
			size_t len = strlen(hl.hosts[i]);

			/* a name, never empty, never a separator or a bracket in it */
			PF_FUZZ_ASSERT(len > 0 && len <= PF_HOSTNAME_MAX);
			PF_FUZZ_ASSERT(!strpbrk(hl.hosts[i], "[], \t"));
		}
	} else {
		PF_FUZZ_ASSERT(hl.n == 0 && !hl.hosts && why.len > 0);
	}
	pf_hostlist_release(&hl);
	pf_strbuf_release(&why);
	free(text);
	return 0;
}
