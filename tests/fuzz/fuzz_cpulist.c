// SPDX-License-Identifier: MIT
/*
 * fuzz_cpulist.c - pf_parse_cpulist() and pf_parse_cpulist_first() (local_cpulist files).
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	uint64_t bits[PF_CPU_WORDS];
	int n, pop = 0, first;

	n = pf_parse_cpulist(text, bits);
	PF_FUZZ_ASSERT(n >= 0 || n == -EINVAL || n == -ERANGE);
	first = pf_parse_cpulist_first(text);
	if (n >= 0) {
		for (int w = 0; w < PF_CPU_WORDS; w++)
			pop += __builtin_popcountll(bits[w]);
		/* the count is of distinct CPUs, and the bitmap holds them */
		PF_FUZZ_ASSERT(pop == n);
		PF_FUZZ_ASSERT(n <= PF_CPUS_MAX);
		if (n == 0) {
			PF_FUZZ_ASSERT(first == -ENOENT);
		} else {
			PF_FUZZ_ASSERT(first >= 0 && first < PF_CPUS_MAX);
			PF_FUZZ_ASSERT(bits[first / 64] & (1ULL << (first % 64)));
		}
	} else {
		PF_FUZZ_ASSERT(first == n);
	}
	free(text);
	return 0;
}
