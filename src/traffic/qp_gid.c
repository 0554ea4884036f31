// SPDX-License-Identifier: MIT
/*
 * qp_gid.c - the GID index a RoCE port sends from on the verbs path
 * (include/preflight/loopback.h): the port's GID table read from sysfs
 * (gids/<i>, gid_attrs/types/<i>) and chosen as NCCL does (qp_verbs.c,
 * pf_qpv_pick_gid).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "preflight/fs.h"
#include "preflight/loopback.h"
#include "qp_verbs.h"

#define GID_TABLE_MAX 256

/* "fe80:0000:...:0001" into @g: 0 or -EINVAL. */
static int parse_gid(const char *s, union ibv_gid *g)
{
	unsigned int w[8];
	char tail;

	if (sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x%c", &w[0], &w[1], &w[2], &w[3], &w[4],
		   &w[5], &w[6], &w[7], &tail) != 8)
		return -EINVAL;
	for (int i = 0; i < 8; i++) {
		g->raw[2 * i] = (uint8_t)(w[i] >> 8);
		g->raw[2 * i + 1] = (uint8_t)w[i];
	}
	return 0;
}

int pf_verbs_gid_index(const struct pf_fs *fs, const char *dev, unsigned int port,
		       const char *env_gid_index, int *ret_index)
{
	struct pf_qpv_gid tbl[GID_TABLE_MAX];
	int n = 0;

	memset(tbl, 0, sizeof(tbl));
	for (; n < GID_TABLE_MAX; n++) {
		pf_autofree char *gid = NULL, *type = NULL;
		int r;

		r = pf_fs_readf_line(fs, &gid, "/sys/class/infiniband/%s/ports/%u/gids/%d", dev,
				     port, n);
		if (r == -ENOENT)
			break;
		/* an unreadable or odd entry stays empty, as an unset one */
		if (r < 0 || parse_gid(gid, &tbl[n].gid) < 0)
			continue;
		/* the kernel answers EINVAL for the type of an empty entry */
		if (pf_fs_readf_line(fs, &type, "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
				     "types/%d", dev, port, n) < 0)
			continue;
		tbl[n].roce_version = !strcmp(type, "RoCE v2") ? 2 :
				      (!strcmp(type, "IB/RoCE v1") || !strcmp(type, "RoCE v1")) ? 1 : 0;
	}
	if (!n)
		return -ENOENT;
	return pf_qpv_pick_gid(tbl, n, env_gid_index, ret_index);
}
