// SPDX-License-Identifier: MIT
/*
 * ethtool_ioctl.c - driver statistics through SIOCETHTOOL, the counters
 * `ethtool -S` prints (mlx5's rx_prio<p>_pause, *_pause_duration,
 * tx_pause_storm_*_events, ...), and the live wait between two samples.
 *
 * The sequence is ETHTOOL_GSSET_INFO (how many ETH_SS_STATS strings),
 * ETHTOOL_GSTRINGS, ETHTOOL_GSTATS.  The kernel copies the driver's
 * *current* count of names and values whatever the caller allocated, and
 * mlx5's set changes with the PFC configuration, so buffers get headroom
 * and a count that moved between the calls is retried.
 */
#include <string.h>
#include <time.h>

#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "preflight/net_facts.h"
#include "clock.h"

#define STATS_MAX 65536 /* more names than any driver has */
#define ATTEMPTS 3

int pf_ethtool_stats_from_raw(const char *strings, size_t n_strings, const uint64_t *values,
			      size_t n_values, struct pf_stats *ret)
{
	struct pf_stats s = { 0 };

	if (n_strings != n_values)
		return -EAGAIN;
	s.v = pf_xcalloc(n_strings ? n_strings : 1, sizeof(*s.v));
	for (size_t i = 0; i < n_strings; i++) {
		const char *name = strings + i * ETH_GSTRING_LEN;
		size_t len = strnlen(name, ETH_GSTRING_LEN);

		/* ethtool prints at most ETH_GSTRING_LEN characters of a name. */
		memcpy(s.v[s.n].name, name, len);
		s.v[s.n].name[len] = '\0';
		s.v[s.n++].value = values[i];
	}
	*ret = s;
	return (int)s.n;
}

/* The number of ETH_SS_STATS strings of @ifname. */
static int stats_count(int fd, const char *ifname, size_t *ret)
{
	/* the header and room for its flexible data[] (one count), as one union:
	 * a flexible struct inside another is a GNU extension clang rejects */
	union {
		struct ethtool_sset_info hdr;
		uint8_t room[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
	} sset;
	int r;

	memset(&sset, 0, sizeof(sset));
	sset.hdr.cmd = ETHTOOL_GSSET_INFO;
	sset.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	r = pf_ethtool_ioctl_fd(fd, ifname, &sset);
	if (r < 0)
		return r;
	*ret = sset.hdr.sset_mask & (1ULL << ETH_SS_STATS) ? sset.hdr.data[0] : 0;
	return 0;
}

/* One GSTRINGS + GSTATS round for @n names; -EAGAIN when the set changed. */
static int stats_round(int fd, const char *ifname, size_t n, struct pf_stats *ret)
{
	size_t room = n + n / 2 + 64;
	pf_autofree struct ethtool_gstrings *names = NULL;
	pf_autofree struct ethtool_stats *vals = NULL;
	int r;

	names = pf_xcalloc(1, sizeof(*names) + room * ETH_GSTRING_LEN);
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = (uint32_t)n;
	r = pf_ethtool_ioctl_fd(fd, ifname, names);
	if (r < 0)
		return r;
	if (names->len != n)
		return -EAGAIN;
	vals = pf_xcalloc(1, sizeof(*vals) + room * sizeof(uint64_t));
	vals->cmd = ETHTOOL_GSTATS;
	vals->n_stats = (uint32_t)n;
	r = pf_ethtool_ioctl_fd(fd, ifname, vals);
	if (r < 0)
		return r;
	if (vals->n_stats > room)
		return -EOVERFLOW;
	return pf_ethtool_stats_from_raw((const char *)names->data, names->len,
					 (const uint64_t *)vals->data,
					 vals->n_stats, ret);
}

int pf_ethtool_stats_get(const char *ifname, struct pf_stats *ret)
{
	pf_autoclose int fd = -1;
	size_t n;
	int r = -EAGAIN;

	if (!*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) /* a kernel without IPv4: ethtool falls back to netlink too */
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	for (int i = 0; i < ATTEMPTS && r == -EAGAIN; i++) {
		r = stats_count(fd, ifname, &n);
		if (r < 0)
			return r;
		if (n == 0) /* ethtool: "no stats available" */
			return -EOPNOTSUPP;
		if (n > STATS_MAX)
			return -E2BIG;
		r = stats_round(fd, ifname, n, ret);
	}
	return r < 0 ? r : 0;
}

int pf_ethtool_ioctl_pause(const struct pf_ethtool_ops *ops, const char *ifname,
			   struct pf_pause *ret)
{
	struct ethtool_pauseparam pp = { .cmd = ETHTOOL_GPAUSEPARAM };
	int r = ops->ioctl(ifname, &pp);

	if (r < 0)
		return r;
	/* the ioctl has no pause frame counters: those came with ethtool netlink (5.10) */
	*ret = (struct pf_pause){ .autoneg = pp.autoneg != 0, .rx = pp.rx_pause != 0,
				  .tx = pp.tx_pause != 0 };
	return 0;
}

static void settings(uint32_t speed, uint8_t duplex, uint8_t autoneg, struct pf_linkmodes *ret)
{
	*ret = (struct pf_linkmodes){
		.speed_mbps = speed == (uint32_t)SPEED_UNKNOWN || speed == 0 ? PF_SPEED_UNKNOWN : speed,
		.duplex = duplex == DUPLEX_FULL ? 1 : duplex == DUPLEX_HALF ? 0 : -1,
		.autoneg = autoneg == AUTONEG_ENABLE ? 1 : autoneg == AUTONEG_DISABLE ? 0 : -1,
	};
}

int pf_ethtool_ioctl_linkmodes(const struct pf_ethtool_ops *ops, const char *ifname,
			       struct pf_linkmodes *ret)
{
	/* ETHTOOL_GLINKSETTINGS (4.6+): a first call with no masks returns their size, negated */
	union { /* the request and room for its three masks of up to 127 words */
		struct ethtool_link_settings req;
		uint8_t room[sizeof(struct ethtool_link_settings) + 3 * 127 * sizeof(uint32_t)];
	} ls;
	struct ethtool_cmd legacy = { .cmd = ETHTOOL_GSET };
	int r;

	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	r = ops->ioctl(ifname, &ls);
	if (r == 0 && ls.req.link_mode_masks_nwords < 0 && ls.req.link_mode_masks_nwords >= -127) {
		int8_t nwords = (int8_t)-ls.req.link_mode_masks_nwords;

		memset(&ls, 0, sizeof(ls));
		ls.req.cmd = ETHTOOL_GLINKSETTINGS;
		ls.req.link_mode_masks_nwords = nwords;
		r = ops->ioctl(ifname, &ls);
		if (r == 0 && ls.req.link_mode_masks_nwords == nwords) {
			settings(ls.req.speed, ls.req.duplex, ls.req.autoneg, ret);
			return 0;
		}
	}
	if (r < 0 && r != -EOPNOTSUPP)
		return r;
	/* the legacy ETHTOOL_GSET, for drivers with only get_settings */
	r = ops->ioctl(ifname, &legacy);
	if (r < 0)
		return r;
	settings(ethtool_cmd_speed(&legacy), legacy.duplex, legacy.autoneg, ret);
	return 0;
}

int pf_live_ethtool_stats(const struct pf_ctx *ctx, const char *ifname, unsigned int sample,
			  struct pf_stats *ret)
{
	return pf_ethtool_stats_get(ifname, ret);
}

int pf_live_wait(const struct pf_ctx *ctx, unsigned int ms, double *ret_ms)
{
	double start = pf_now_ms(), end = start + ms, t;

	while ((t = pf_now_ms()) < end) {
		double left = end - t;
		struct timespec ts = { .tv_sec = (time_t)(left / 1e3),
				       .tv_nsec = (long)((left - (double)(time_t)(left / 1e3) * 1e3) * 1e6) };

		nanosleep(&ts, NULL); /* EINTR: sleep the rest */
	}
	*ret_ms = pf_now_ms() - start;
	return 0;
}
