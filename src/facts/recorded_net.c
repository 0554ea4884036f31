// SPDX-License-Identifier: MIT
/*
 * recorded_net.c - the recorded backend of the RoCE netdev providers: the
 * standard tools' text under <root>/preflight/ (docs/snapshot.md).
 *
 *   preflight/ethtool/<if>/stats        `ethtool -S <if>`
 *   preflight/ethtool/<if>/stats.after  a second `ethtool -S`, window_ms later
 *   preflight/window_ms                 the interval between the two, ms
 *   preflight/ethtool/<if>/pause        `ethtool -I -a <if>`
 *   preflight/ethtool/<if>/settings     `ethtool <if>`
 *   preflight/dcb/<if>/pfc              `dcb -s pfc show dev <if>`
 *   preflight/dcb/<if>/app              `dcb -N app show dev <if>`
 *   preflight/ip/<if>/addr              `ip -o -4 addr show dev <if>`
 */
#include <string.h>

#include "preflight/net_facts.h"

/* An interface name must stay one path component under preflight/. */
static int read_capture(const struct pf_ctx *ctx, const char *ifname, const char *fmt_dir,
			const char *file, char **ret)
{
	pf_autofree char *path = NULL;

	if (!*ifname || strchr(ifname, '/') || !strcmp(ifname, ".") || !strcmp(ifname, ".."))
		return -EINVAL;
	path = pf_xasprintf("/preflight/%s/%s/%s", fmt_dir, ifname, file);
	return pf_fs_read_full(ctx->fs, path, 0, ret, NULL);
}

int pf_recorded_linkmodes(const struct pf_ctx *ctx, const char *ifname, struct pf_linkmodes *ret)
{
	pf_autofree char *text = NULL;
	int r = read_capture(ctx, ifname, "ethtool", "settings", &text);

	return r < 0 ? r : pf_parse_ethtool_settings(text, ret);
}

int pf_recorded_pause(const struct pf_ctx *ctx, const char *ifname, struct pf_pause *ret)
{
	pf_autofree char *text = NULL;
	int r = read_capture(ctx, ifname, "ethtool", "pause", &text);

	return r < 0 ? r : pf_parse_ethtool_pause(text, ret);
}

int pf_recorded_ethtool_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			      struct pf_stats *ret)
{
	pf_autofree char *text = NULL;
	int r;

	if (sample > 1)
		return -EINVAL;
	r = read_capture(ctx, ifname, "ethtool", sample ? "stats.after" : "stats", &text);
	if (r < 0)
		return r;
	r = pf_parse_ethtool_stats(text, ret);
	return r < 0 ? r : 0;
}

int pf_recorded_pfc(const struct pf_ctx *ctx, const char *ifname, struct pf_pfc *ret)
{
	pf_autofree char *text = NULL, *app = NULL;
	int r = read_capture(ctx, ifname, "dcb", "pfc", &text);

	if (r < 0)
		return r;
	r = pf_parse_dcb_pfc(text, ret);
	/* the APP table is a file of its own; a snapshot without it leaves it unknown */
	if (r == 0 && read_capture(ctx, ifname, "dcb", "app", &app) == 0 &&
	    pf_parse_dcb_app(app, ret) < 0)
		ret->has_app = false;
	return r;
}

int pf_recorded_ipv4_addrs(const struct pf_ctx *ctx, const char *ifname,
			   struct pf_ipv4_addrs *ret)
{
	pf_autofree char *text = NULL;
	int r = read_capture(ctx, ifname, "ip", "addr", &text);

	return r < 0 ? r : pf_parse_ip_addr(text, ret);
}

int pf_recorded_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	uint64_t v;
	int r;

	r = pf_fs_read_u64(ctx->fs, "/preflight/window_ms", &v);
	if (r < 0)
		return r;
	if (v == 0)
		return -EINVAL;
	*ret_ms = (double)v;
	return 0;
}
