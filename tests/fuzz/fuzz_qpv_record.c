// SPDX-License-Identifier: MIT
/*
 * fuzz_qpv_record.c - the verbs way's exchange record as a peer sends it
 * (src/traffic/qp_verbs.c, pf_qpv_decode): bytes from another node.  A
 * record it accepts has every field in range and encodes back to the same
 * bytes; one it refuses names the field.
 */
#include <errno.h>

#include "fuzz.h"
#include "qp_verbs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_qpv_rec rec;
	uint8_t again[PF_QPV_REC_LEN];
	char *err = NULL;
	int r = pf_qpv_decode(data, size, &rec, &err);

	PF_FUZZ_ASSERT(r == 0 || r == -EBADMSG);
	PF_FUZZ_ASSERT((r == 0) == (err == NULL));
	if (r == 0) {
		PF_FUZZ_ASSERT(size == PF_QPV_REC_LEN);
		PF_FUZZ_ASSERT(rec.qpn <= PF_QPV_24BITS && rec.qpn > 1 && rec.psn <= PF_QPV_24BITS);
		PF_FUZZ_ASSERT(rec.slots >= 1 && rec.slots <= PF_QPV_MAX_SLOTS && rec.slot_stride);
		pf_qpv_encode(&rec, again);
		PF_FUZZ_ASSERT(memcmp(again, data, PF_QPV_REC_LEN) == 0);
	}
	free(err);
	return 0;
}
