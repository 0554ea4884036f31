// SPDX-License-Identifier: MIT
/*
 * fuzz_pci_path.c - pf_pci_path_classify() on arbitrary pairs of sysfs
 * device paths (the input up to its first newline, and the rest) and NUMA
 * nodes: a class or -errno, and the same class both ways round (when both
 * paths are bad, which error comes first may differ).
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/node.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	char *b = strchr(text, '\n');
	enum pf_path_class ab, ba;
	int numa_a = size > 0 ? (int)(data[0] % 4) - 1 : -1;
	int numa_b = size > 1 ? (int)(data[size - 1] % 4) - 1 : -1;
	int r1, r2;

	if (b)
		*b++ = '\0';
	else
		b = text;
	r1 = pf_pci_path_classify(text, numa_a, b, numa_b, &ab);
	r2 = pf_pci_path_classify(b, numa_b, text, numa_a, &ba);
	PF_FUZZ_ASSERT(r1 == 0 || r1 == -EINVAL || r1 == -E2BIG);
	PF_FUZZ_ASSERT((r1 == 0) == (r2 == 0));
	if (r1 == 0) {
		PF_FUZZ_ASSERT(ab == ba);
		PF_FUZZ_ASSERT(pf_path_class_name(ab) != NULL);
	}
	free(text);
	return 0;
}
