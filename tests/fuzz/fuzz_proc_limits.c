// SPDX-License-Identifier: MIT
/*
 * fuzz_proc_limits.c - pf_parse_proc_limits() on arbitrary /proc/<pid>/limits text.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

static const char *const rows[] = { "Max locked memory", "Max open files", "Max stack size", "" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct pf_rlimit lim = { 0, 0 };
		int r = pf_parse_proc_limits(text, rows[i], &lim);

		PF_FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
	}
	free(text);
	return 0;
}
