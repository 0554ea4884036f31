// SPDX-License-Identifier: MIT
/*
 * record_net.c - the writer's side of recorded_net.c: the RoCE netdev
 * facts of ctx->prov in the standard tools' text (docs/snapshot.md),
 * which the recorded parsers read back.  Errors other than "not
 * supported" leave the file out and are logged; "not supported" is written
 * as the tool's own message, which the recorded parsers turn back into
 * -EOPNOTSUPP.
 */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "preflight/net_facts.h"
#include "record.h"

/* Write @text as preflight/<dir>/<ifname>/<file> (see fact_text()). */
static int fact_done(struct pf_record *rec, int r, const char *dir, const char *ifname,
		     const char *file, const char *unsupported, FILE *f, char **buf, size_t *len)
{
	pf_autofree char *rel = pf_xasprintf("preflight/%s/%s/%s", dir, ifname, file);

	fclose(f);
	if (r == -EOPNOTSUPP) {
		free(*buf);
		*buf = pf_xasprintf("%s\n", unsupported);
		*len = strlen(*buf);
	} else if (r < 0) {
		pf_autofree char *what = pf_xasprintf("%s of %s", file, ifname);

		if (r != -ENOENT && r != -ENOSYS) /* a recorded source, a table without it */
			pf_record_skip(rec, what, r);
		return 0;
	}
	return rec->put(rec, rel, *buf, *len);
}

/* `ethtool -S`: 1 when the provider gave statistics, 0 when not, or -errno. */
static int stats_text(struct pf_record *rec, const char *ifname, unsigned int sample)
{
	const struct pf_ctx *ctx = rec->ctx;
	pf_autofree char *buf = NULL;
	struct pf_stats st = { 0 };
	size_t len = 0;
	FILE *f = pf_record_text(&buf, &len);
	int r = ctx->prov->ethtool_stats(ctx, ifname, sample, &st);
	bool got;

	if (r >= 0) {
		fputs("NIC statistics:\n", f);
		for (size_t i = 0; i < st.n; i++)
			fprintf(f, "     %s: %llu\n", st.v[i].name,
				(unsigned long long)st.v[i].value);
		pf_stats_release(&st);
	}
	got = r >= 0;
	r = fact_done(rec, r < 0 ? r : 0, "ethtool", ifname, sample ? "stats.after" : "stats",
		      "no stats available", f, &buf, &len);
	return r < 0 ? r : got;
}

/* Writes one provider answer (@fact) as its tool prints it for @ifname. */
typedef void fact_printer(FILE *f, const void *fact, const char *ifname);

/* Record a provider's answer (@r its call's result) as text; see fact_done(). */
static int fact_text(struct pf_record *rec, int r, const char *dir, const char *ifname,
		     const char *file, const char *unsupported, fact_printer *print,
		     const void *fact)
{
	pf_autofree char *buf = NULL;
	size_t len = 0;
	FILE *f = pf_record_text(&buf, &len);

	if (r >= 0)
		print(f, fact, ifname);
	return fact_done(rec, r < 0 ? r : 0, dir, ifname, file, unsupported, f, &buf, &len);
}

/* `ethtool IF` (settings). */
static void print_linkmodes(FILE *f, const void *fact, const char *ifname)
{
	const struct pf_linkmodes *lm = fact;

	fprintf(f, "Settings for %s:\n", ifname);
	if (lm->speed_mbps == PF_SPEED_UNKNOWN)
		fputs("\tSpeed: Unknown!\n", f);
	else
		fprintf(f, "\tSpeed: %uMb/s\n", lm->speed_mbps);
	if (lm->lanes)
		fprintf(f, "\tLanes: %u\n", lm->lanes);
	fprintf(f, "\tDuplex: %s\n",
		lm->duplex == 1 ? "Full" : lm->duplex == 0 ? "Half" : "Unknown! (255)");
	if (lm->autoneg >= 0)
		fprintf(f, "\tAuto-negotiation: %s\n", lm->autoneg ? "on" : "off");
}

/* `ethtool -a IF` (pause) with its statistics. */
static void print_pause(FILE *f, const void *fact, const char *ifname)
{
	const struct pf_pause *pa = fact;

	fprintf(f, "Pause parameters for %s:\n", ifname);
	fprintf(f, "Autonegotiate:\t%s\nRX:\t\t%s\nTX:\t\t%s\n",
		pa->autoneg ? "on" : "off", pa->rx ? "on" : "off", pa->tx ? "on" : "off");
	if (pa->has_stats)
		fprintf(f, "Statistics:\n  tx_pause_frames: %llu\n"
			   "  rx_pause_frames: %llu\n",
			(unsigned long long)pa->tx_frames,
			(unsigned long long)pa->rx_frames);
}

/* A netdev's IPv4 addresses and its ifindex, as `ip addr show` needs them. */
struct addr_fact {
	struct pf_ipv4_addrs addrs;
	uint64_t ifindex;
};

/* `ip addr show IF`. */
static void print_addrs(FILE *f, const void *fact, const char *ifname)
{
	const struct addr_fact *a = fact;
	pf_autofree char *text = pf_format_ip_addr(ifname, (unsigned int)a->ifindex, &a->addrs);

	fputs(text, f);
}

/* `dcb pfc show dev IF` with its counters. */
static void print_pfc(FILE *f, const void *fact, const char *ifname)
{
	const struct pf_pfc *pfc = fact;

	(void)ifname;
	fprintf(f, "pfc-cap %u macsec-bypass %s delay %u\nprio-pfc", pfc->pfc_cap,
		pfc->mbc ? "on" : "off", pfc->delay);
	for (int i = 0; i < PF_PRIOS; i++)
		fprintf(f, " %d:%s", i, pfc->pfc_en & (1u << i) ? "on" : "off");
	fputc('\n', f);
	if (pfc->has_counters) {
		fputs("requests", f);
		for (int i = 0; i < PF_PRIOS; i++)
			fprintf(f, " %d:%llu", i, (unsigned long long)pfc->requests[i]);
		fputs("\nindications", f);
		for (int i = 0; i < PF_PRIOS; i++)
			fprintf(f, " %d:%llu", i, (unsigned long long)pfc->indications[i]);
		fputc('\n', f);
	}
}

/* `dcb app show dev IF`: the DSCP to priority map. */
static void print_app(FILE *f, const void *fact, const char *ifname)
{
	const struct pf_pfc *pfc = fact;

	(void)ifname;
	fputs("dscp-prio", f);
	for (int d = 0; d < 64; d++)
		if (pfc->dscp_mapped & (1ull << d))
			fprintf(f, " %d:%u", d, pfc->dscp_prio[d]);
	fputc('\n', f);
}

/* The settings and pause facts of @ifname. */
static int link_facts(struct pf_record *rec, const char *ifname)
{
	const struct pf_ctx *ctx = rec->ctx;
	struct pf_linkmodes lm;
	struct pf_pause pa;
	int r;

	r = fact_text(rec, ctx->prov->linkmodes(ctx, ifname, &lm), "ethtool", ifname, "settings",
		      "netlink error: Operation not supported", print_linkmodes, &lm);
	if (r < 0)
		return r;
	return fact_text(rec, ctx->prov->pause(ctx, ifname, &pa), "ethtool", ifname, "pause",
			 "netlink error: Operation not supported", print_pause, &pa);
}

/* The address fact of @ifname (its ifindex read only when the provider answered). */
static int addr_fact(struct pf_record *rec, const char *ifname)
{
	const struct pf_ctx *ctx = rec->ctx;
	struct addr_fact a = { .ifindex = 0 };
	int r = ctx->prov->ipv4_addrs(ctx, ifname, &a.addrs);

	if (r >= 0)
		(void)pf_fs_readf_u64(ctx->fs, &a.ifindex, "/sys/class/net/%s/ifindex", ifname);
	return fact_text(rec, r, "ip", ifname, "addr", "", print_addrs, &a);
}

/* The PFC fact of @ifname, then its app table when the answer has one. */
static int pfc_fact(struct pf_record *rec, const char *ifname)
{
	struct pf_pfc pfc;
	bool app;
	int r;

	r = rec->ctx->prov->pfc(rec->ctx, ifname, &pfc);
	app = r >= 0 && pfc.has_app;
	r = fact_text(rec, r, "dcb", ifname, "pfc", "Attribute read: Operation not supported",
		      print_pfc, &pfc);
	if (r < 0 || !app)
		return r;
	return fact_text(rec, 0, "dcb", ifname, "app", "", print_app, &pfc);
}

/* A netdev's provider facts as the tools print them; *ret_stats: ethtool -S recorded. */
static int netdev_facts(struct pf_record *rec, const char *ifname, bool *ret_stats)
{
	int r;

	*ret_stats = false;
	r = link_facts(rec, ifname);
	if (r < 0)
		return r;
	r = stats_text(rec, ifname, 0);
	if (r < 0)
		return r;
	*ret_stats = r > 0;
	r = addr_fact(rec, ifname);
	if (r < 0)
		return r;
	r = pfc_fact(rec, ifname);
	if (r < 0)
		return r;
	r = pf_record_link(rec, ifname);
	return r < 0 ? r : 0;
}

/*
 * The address fact of a RoCE netdev without a PCI function (soft-RoCE's
 * veth, a RoCE LAG bond, a VLAN), named by an RDMA port's GID table: the
 * sysctl check needs its addresses as much as a PF's.  Netdevs already
 * recorded are left alone.
 */
static int gid_addr_facts(struct pf_record *rec, const char *dir)
{
	const struct pf_fs *fs = rec->ctx->fs;
	pf_autofree char *ndevs = pf_xasprintf("%s/gid_attrs/ndevs", dir), *ll = NULL;
	pf_autostrv char **gids = NULL;
	int m, r = 0;

	if (pf_fs_readf_line(fs, &ll, "%s/link_layer", dir) < 0 || strcmp(ll, "Ethernet"))
		return 0;
	m = pf_fs_list(fs, ndevs, &gids);
	for (int j = 0; j < m && r >= 0; j++) {
		pf_autofree char *name = NULL, *rel = NULL, *dev = NULL;

		if (pf_fs_readf_line(fs, &name, "%s/%s", ndevs, gids[j]) < 0 || !*name ||
		    strchr(name, '/') || name[0] == '.')
			continue;
		dev = pf_xasprintf("/sys/class/net/%s/device", name);
		rel = pf_xasprintf("preflight/ip/%s/addr", name);
		if (pf_fs_exists(fs, dev) == 1 || rec->has(rec, rel))
			continue;
		r = addr_fact(rec, name);
	}
	return r;
}

static int gid_addrs(struct pf_record *rec)
{
	const struct pf_fs *fs = rec->ctx->fs;
	pf_autostrv char **devs = NULL;
	int n = pf_fs_list(fs, "/sys/class/infiniband", &devs), r = 0;

	for (int i = 0; i < n && r >= 0; i++) {
		pf_autofree char *pdir = pf_xasprintf("/sys/class/infiniband/%s/ports", devs[i]);
		pf_autostrv char **ports = NULL;
		int m = pf_fs_list(fs, pdir, &ports);

		for (int j = 0; j < m && r >= 0; j++) {
			pf_autofree char *dir = pf_xasprintf("%s/%s", pdir, ports[j]);

			r = gid_addr_facts(rec, dir);
		}
	}
	return r;
}

/*
 * Is @ifname the netdev of an RDMA port (its GID 0's ndev: rxe's veth, a
 * RoCE LAG's bond)?  pfc_pause reads those live, with or without a device.
 */
static bool rdma_port_netdev(const struct pf_fs *fs, const char *ifname)
{
	pf_autostrv char **devs = NULL;
	int n = pf_fs_list(fs, "/sys/class/infiniband", &devs);

	for (int i = 0; i < n; i++) {
		pf_autofree char *dir = pf_xasprintf("/sys/class/infiniband/%s/ports", devs[i]);
		pf_autostrv char **ports = NULL;
		int m = pf_fs_list(fs, dir, &ports);

		for (int k = 0; k < m; k++) {
			pf_autofree char *nd = NULL;

			if (pf_fs_readf_line(fs, &nd, "%s/%s/gid_attrs/ndevs/0", dir, ports[k]) == 0 &&
			    !strcmp(nd, ifname))
				return true;
		}
	}
	return false;
}

/* The second statistics sample of the netdevs @again marks, after one wait. */
static int second_sample(struct pf_record *rec, char **names, int n, const bool *again,
			 unsigned int window_ms)
{
	const struct pf_ctx *ctx = rec->ctx;
	double ms = 0;
	char text[32];
	int r;

	r = ctx->prov->wait(ctx, window_ms, &ms);
	if (r < 0) {
		if (r != -ENOSYS)
			pf_record_skip(rec, "preflight/window_ms", r);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		if (!again[i])
			continue;
		r = stats_text(rec, names[i], 1);
		if (r < 0)
			return r;
		r = pf_record_link_fec(rec, names[i], 1);
		if (r < 0)
			return r;
	}
	snprintf(text, sizeof(text), "%.0f\n", ms > 0 ? ceil(ms) : 1.0);
	return pf_record_put_text(rec, "preflight/window_ms", text);
}

/*
 * Netdevs with a device (physical functions, not bridges or veths), and
 * the netdevs of RDMA ports (veth, bond).  The second statistics sample is
 * taken only for netdevs of an RDMA device, after one shared wait.
 */
static int netdevs(struct pf_record *rec, unsigned int window_ms)
{
	const struct pf_fs *fs = rec->ctx->fs;
	pf_autostrv char **names = NULL;
	pf_autofree bool *again = NULL;
	size_t n_again = 0;
	int n, r;

	n = pf_fs_list(fs, "/sys/class/net", &names);
	if (n <= 0)
		return 0;
	again = pf_xcalloc((size_t)n, sizeof(*again));
	for (int i = 0; i < n; i++) {
		pf_autofree char *dev = pf_xasprintf("/sys/class/net/%s/device", names[i]);
		pf_autofree char *ib = pf_xasprintf("%s/infiniband", dev);
		bool stats, rdma = rdma_port_netdev(fs, names[i]);

		if (pf_fs_exists(fs, dev) != 1 && !rdma)
			continue;
		r = netdev_facts(rec, names[i], &stats);
		if (r < 0)
			return r;
		if (stats && (rdma || pf_fs_exists(fs, ib) == 1)) {
			again[i] = true;
			n_again++;
		}
	}
	if (!n_again || !window_ms)
		return 0;
	return second_sample(rec, names, n, again, window_ms);
}

int pf_record_net(struct pf_record *rec, unsigned int window_ms)
{
	int r = netdevs(rec, window_ms);

	return r < 0 ? r : gid_addrs(rec);
}
