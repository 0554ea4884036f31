// SPDX-License-Identifier: MIT
/*
 * fuzz_hwloc_xml.c - the hwloc topology loader (src/node/node_hwloc.c) on
 * arbitrary XML: a snapshot's preflight/topology.xml is read from whatever
 * the root holds.  The model it returns, if any, is walked in full.
 */
#include <errno.h>
#include <unistd.h>

#include "fuzz.h"
#include "preflight/fs.h"
#include "preflight/node.h"

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_fs *fs = NULL;
	struct pf_node *node = NULL;
	char *err = NULL;
	FILE *f;
	int r;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof(path), "/tmp/pf-fuzz-hwloc-XXXXXX");
		fd = mkstemp(path);
		PF_FUZZ_ASSERT(fd >= 0);
		close(fd);
		atexit(remove_file);
	}
	f = fopen(path, "wb");
	PF_FUZZ_ASSERT(f);
	fwrite(data, 1, size, f);
	fclose(f);
	PF_FUZZ_ASSERT(pf_fs_open("/tmp", &fs) == 0);
	r = pf_node_load_hwloc(fs, path, &node, &err);
	PF_FUZZ_ASSERT(r == 0 || r < 0);
	if (r == 0) {
		PF_FUZZ_ASSERT(node);
		for (size_t i = 0; i < node->n_pci; i++)
			PF_FUZZ_ASSERT(pf_node_pci(node, node->pci[i].bdf) != NULL);
		pf_node_free(node);
	}
	free(err);
	pf_fs_free(fs);
	return 0;
}
