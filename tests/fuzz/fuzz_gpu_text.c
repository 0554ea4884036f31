// SPDX-License-Identifier: MIT
/*
 * fuzz_gpu_text.c - the kernel log and GPU text parsers: Xid lines, mlx5 health
 * messages, kernel release, NVIDIA driver version, version comparison.
 */
#include <errno.h>

#include "fuzz.h"
#include "preflight/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_xid *xids = NULL;
	size_t n = 0;
	char version[24];
	bool open_mod = false;
	int major = 0, minor = 0, r;
	const char *half;

	r = pf_parse_kmsg_xids(text, &xids, &n);
	PF_FUZZ_ASSERT(r >= 0 && (size_t)r == n && n <= 4096);
	for (size_t i = 0; i < n; i++) {
		PF_FUZZ_ASSERT(pf_fuzz_terminated(xids[i].pci, sizeof(xids[i].pci)));
		PF_FUZZ_ASSERT(pf_fuzz_terminated(xids[i].text, sizeof(xids[i].text)));
		(void)pf_xid_meaning(xids[i].xid);
		(void)pf_xid_matches_bdf(xids[i].pci, "0000:1b:00.0");
		(void)pf_xid_matches_bdf(xids[i].pci, text);
	}
	free(xids);
	{
		struct pf_mlx5_health *ev = NULL;

		r = pf_parse_kmsg_mlx5(text, &ev, &n);
		PF_FUZZ_ASSERT(r >= 0 && (size_t)r == n && n <= 256 && (n > 0) == (ev != NULL));
		for (size_t i = 0; i < n; i++) {
			PF_FUZZ_ASSERT(pf_fuzz_terminated(ev[i].bdf, sizeof(ev[i].bdf)));
			PF_FUZZ_ASSERT(pf_fuzz_terminated(ev[i].what, sizeof(ev[i].what)));
			PF_FUZZ_ASSERT(pf_is_bdf(ev[i].bdf));
		}
		free(ev);
	}

	r = pf_parse_kernel_release(text, &major, &minor);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
	for (size_t len = 1; len <= sizeof(version); len += 11) {
		r = pf_parse_nvidia_version(text, version, len, &open_mod);
		PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ERANGE);
		if (r == 0)
			PF_FUZZ_ASSERT(pf_fuzz_terminated(version, len));
	}
	/* compare the two halves of the input, both ways round */
	half = text + strlen(text) / 2;
	r = pf_version_cmp(text, half);
	PF_FUZZ_ASSERT((r > 0) == (pf_version_cmp(half, text) < 0));
	PF_FUZZ_ASSERT(pf_version_cmp(text, text) == 0);
	free(text);
	return 0;
}
