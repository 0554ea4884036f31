// SPDX-License-Identifier: MIT
/*
 * fuzz_job_text.c - the recorded text of nccl_config's facts on arbitrary
 * input: preflight/job_user, `ls -ln`, an nccl.conf and
 * NCCL's interface lists.  What parses formats and parses back the same.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"
#include "preflight/job.h"
#include "preflight/nccl_conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = pf_fuzz_str(data, size);
	struct pf_job_user u;
	struct pf_devnodes d;
	struct pf_nccl_conf c = { 0 };
	struct pf_nccl_iflist l;
	int r;

	r = pf_parse_job_user(text, &u);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -E2BIG);
	r = pf_parse_ls_ln(text, &d);
	PF_FUZZ_ASSERT(r == 0 || r == -EINVAL);
	if (r == 0)
		pf_devnodes_release(&d);
	pf_nccl_conf_apply_text(&c, text, "/etc/nccl.conf");
	pf_nccl_conf_release(&c);
	pf_nccl_iflist_parse(text, &l);
	PF_FUZZ_ASSERT(l.n <= PF_NCCL_IFLIST_MAX);
	(void)pf_nccl_iflist_selects(&l, "mlx5_0", 1);
	free(text);
	return 0;
}
