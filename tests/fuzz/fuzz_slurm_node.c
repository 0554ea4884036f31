// SPDX-License-Identifier: MIT
/*
 * fuzz_slurm_node.c - pf_slurm_parse_node() on arbitrary `scontrol show node` output.
 */
#include <errno.h>

#include "fuzz.h"
#include "slurm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	char *state = NULL, *reason = NULL;
	int r = pf_slurm_parse_node(text, &state, &reason);

	PF_FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
	if (r < 0)
		PF_FUZZ_ASSERT(!state && !reason);
	free(state);
	free(reason);
	r = pf_slurm_parse_node(text, NULL, NULL);
	PF_FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
	free(text);
	return 0;
}
