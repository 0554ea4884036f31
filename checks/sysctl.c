// SPDX-License-Identifier: MIT
/*
 * sysctl - kernel settings that GPU/RDMA nodes depend on.
 *
 * A table of expectations over /proc/sys: socket buffer sizes (NCCL's
 * bootstrap and socket transport, IPoIB, storage), multi-rail RoCE ARP and
 * reverse-path settings (judged per RoCE netdev as max(all, <if>), only on
 * rails that share an IPv4 subnet; the RoCE netdevs are those the RDMA
 * ports' GID tables name; with the rail model (rails.h), a netdev of no
 * compute rail is judged only where it shares a subnet with a rail (it
 * can answer ARP for the rail's address), a skip naming its role where it
 * shares one only with other such netdevs; strict rp_filter passes with
 * per-rail source policy rules), NUMA balancing and zone reclaim.  Every threshold is a
 * parameter; `ignore` drops rules, `warn_only` demotes failures.  Live, a
 * sysctl that cannot be read is an error for that key only; under --root an
 * absent one is a skip naming the file.
 */
#include <string.h>

#include "preflight/check.h"
#include "preflight/fs.h"
#include "preflight/net_facts.h"
#include "preflight/parse.h"
#include "preflight/rails.h"
#include "preflight/providers.h"

struct sysctl_cfg {
	uint64_t rmem_max, wmem_max, rmem_default, wmem_default, netdev_max_backlog;
	uint64_t tcp_rmem_max, tcp_wmem_max;
	char *arp_ignore;
	uint64_t arp_announce;
	char *rp_filter;
	uint64_t numa_balancing, zone_reclaim_mode;
	char *ignore, *warn_only;
};

#define U64_MAX_D 1.8446744073709552e19

static const struct pf_param sysctl_params[] = {
	PF_PARAM_U64(struct sysctl_cfg, rmem_max, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum net.core.rmem_max"),
	PF_PARAM_U64(struct sysctl_cfg, wmem_max, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum net.core.wmem_max"),
	PF_PARAM_U64(struct sysctl_cfg, rmem_default, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum net.core.rmem_default"),
	PF_PARAM_U64(struct sysctl_cfg, wmem_default, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum net.core.wmem_default"),
	PF_PARAM_U64(struct sysctl_cfg, netdev_max_backlog, "250000", 0, U64_MAX_D, "packets",
		     "minimum net.core.netdev_max_backlog"),
	PF_PARAM_U64(struct sysctl_cfg, tcp_rmem_max, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum of the max (third) field of net.ipv4.tcp_rmem"),
	PF_PARAM_U64(struct sysctl_cfg, tcp_wmem_max, "16777216", 0, U64_MAX_D, "bytes",
		     "minimum of the max (third) field of net.ipv4.tcp_wmem"),
	PF_PARAM_U64_LIST(struct sysctl_cfg, arp_ignore, "1,2", 0, 8,
			  "allowed arp_ignore values on each RoCE netdev that shares an IPv4 "
			  "subnet with another rail (1 and 2 both answer only for the "
			  "receiving rail's own address)"),
	PF_PARAM_U64(struct sysctl_cfg, arp_announce, "2", 0, 2, NULL,
		     "required arp_announce on each RoCE netdev that shares an IPv4 subnet "
		     "with another rail"),
	PF_PARAM_U64_LIST(struct sysctl_cfg, rp_filter, "0,2", 0, 2,
			  "allowed rp_filter values on each RoCE netdev that shares an IPv4 subnet "
			  "with another rail (strict 1 drops ARP arriving on the other rail)"),
	PF_PARAM_U64(struct sysctl_cfg, numa_balancing, "0", 0, 3, NULL,
		     "required kernel.numa_balancing"),
	PF_PARAM_U64(struct sysctl_cfg, zone_reclaim_mode, "0", 0, 255, NULL,
		     "required vm.zone_reclaim_mode"),
	PF_PARAM_STRING(struct sysctl_cfg, ignore, "",
			"sysctls not to judge, e.g. \"kernel.numa_balancing\""),
	PF_PARAM_STRING(struct sysctl_cfg, warn_only, "",
			"sysctls whose failures are reported as warnings"),
	PF_PARAM_END,
};

enum cmp { CMP_GE, CMP_EQ, CMP_ONE_OF };

struct rule {
	const char *name;   /* dotted sysctl name; per-rail rules name the leaf */
	enum cmp cmp;
	int field;          /* 0: the whole value; N: the Nth whitespace field */
	size_t offset;      /* threshold in struct sysctl_cfg (uint64_t, or char * for one-of) */
	enum pf_status severity;
	bool per_rail;      /* net.ipv4.conf.{all,<if>}.<name>, effective max */
	const char *why;
	const char *kconfig; /* the kernel option without which the file does not exist */
	const char *runbook; /* the key whose default is the provisioning runbook's value */
};

#define OFF(f) offsetof(struct sysctl_cfg, f)

/* PF-SYSCTL-<N> is rule N of this table (from 1): a new rule goes at its end. */
static const struct rule rules[] = {
	{ "net.core.rmem_max", CMP_GE, 0, OFF(rmem_max), PF_STATUS_FAIL, false,
	  "caps socket receive buffers of NCCL's socket transport, IPoIB and storage", NULL,
	  "rmem_max" },
	{ "net.core.wmem_max", CMP_GE, 0, OFF(wmem_max), PF_STATUS_FAIL, false,
	  "caps socket send buffers of NCCL's socket transport, IPoIB and storage", NULL,
	  "wmem_max" },
	{ "net.core.rmem_default", CMP_GE, 0, OFF(rmem_default), PF_STATUS_WARN, false,
	  "default receive buffer of sockets that do not size their own", NULL, NULL },
	{ "net.core.wmem_default", CMP_GE, 0, OFF(wmem_default), PF_STATUS_WARN, false,
	  "default send buffer of sockets that do not size their own", NULL, NULL },
	{ "net.core.netdev_max_backlog", CMP_GE, 0, OFF(netdev_max_backlog), PF_STATUS_WARN, false,
	  "a short input queue drops packets at 100-400 Gb/s", NULL, NULL },
	{ "net.ipv4.tcp_rmem", CMP_GE, 3, OFF(tcp_rmem_max), PF_STATUS_WARN, false,
	  "TCP receive autotuning cannot grow past this", NULL, NULL },
	{ "net.ipv4.tcp_wmem", CMP_GE, 3, OFF(tcp_wmem_max), PF_STATUS_WARN, false,
	  "TCP send autotuning cannot grow past this", NULL, NULL },
	{ "arp_ignore", CMP_ONE_OF, 0, OFF(arp_ignore), PF_STATUS_FAIL, true,
	  "with several rails on one subnet each NIC must answer ARP only for its own address", NULL, NULL },
	{ "arp_announce", CMP_EQ, 0, OFF(arp_announce), PF_STATUS_FAIL, true,
	  "with several rails on one subnet ARP must use the outgoing rail's address", NULL, NULL },
	{ "rp_filter", CMP_ONE_OF, 0, OFF(rp_filter), PF_STATUS_FAIL, true,
	  "strict reverse-path filtering drops ARP arriving on a rail that is not the route back "
	  "to its sender: neighbour and RDMA-CM address resolution (rdma_resolve_addr) time out "
	  "(RoCEv2 data itself bypasses the IP stack)", NULL, NULL },
	{ "kernel.numa_balancing", CMP_EQ, 0, OFF(numa_balancing), PF_STATUS_WARN, false,
	  "automatic NUMA page migration moves pinned-adjacent memory and adds jitter",
	  "CONFIG_NUMA_BALANCING", NULL },
	{ "vm.zone_reclaim_mode", CMP_EQ, 0, OFF(zone_reclaim_mode), PF_STATUS_WARN, false,
	  "zone reclaim stalls allocations instead of using the other socket's memory",
	  "CONFIG_NUMA", NULL },
};

static uint64_t cfg_u64(const struct sysctl_cfg *cfg, size_t off)
{
	return *(const uint64_t *)((const char *)cfg + off);
}

static const char *cfg_str(const struct sysctl_cfg *cfg, size_t off)
{
	return *(char *const *)((const char *)cfg + off);
}

static void to_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/proc/sys/%s", name);
	for (char *p = buf + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
}

/* Read the value of a sysctl (field N if asked); -errno or -EINVAL. */
static int read_value(const struct pf_fs *fs, const char *path, int field, uint64_t *ret)
{
	pf_autofree char *text = NULL;
	uint64_t fields[8];
	int r, n;

	r = pf_fs_read_line(fs, path, &text);
	if (r < 0)
		return r;
	n = pf_parse_u64_fields(text, fields, PF_ARRAY_SIZE(fields));
	if (n < 0)
		return n;
	if (field == 0) {
		if (n != 1)
			return -EINVAL;
		*ret = fields[0];
	} else {
		if (n < field)
			return -EINVAL;
		*ret = fields[field - 1];
	}
	return 0;
}

static bool one_of(const char *list, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return pf_list_has(list, buf);
}

static void judge(struct pf_result *res, const struct sysctl_cfg *cfg, const struct rule *rule,
		  const char *subject, const char *persist_name, uint64_t v)
{
	enum pf_status sev = pf_list_has(cfg->warn_only, rule->name) ? PF_STATUS_WARN
								     : rule->severity;
	char want[64], fix[64];
	struct pf_finding *f;
	bool ok;

	switch (rule->cmp) {
	case CMP_GE:
		ok = v >= cfg_u64(cfg, rule->offset);
		snprintf(want, sizeof(want), ">= %llu", (unsigned long long)cfg_u64(cfg, rule->offset));
		snprintf(fix, sizeof(fix), "%llu", (unsigned long long)cfg_u64(cfg, rule->offset));
		break;
	case CMP_EQ:
		ok = v == cfg_u64(cfg, rule->offset);
		snprintf(want, sizeof(want), "%llu", (unsigned long long)cfg_u64(cfg, rule->offset));
		snprintf(fix, sizeof(fix), "%s", want);
		break;
	default:
		ok = one_of(cfg_str(cfg, rule->offset), v);
		snprintf(want, sizeof(want), "one of %s", cfg_str(cfg, rule->offset));
		snprintf(fix, sizeof(fix), "%.*s", (int)strcspn(cfg_str(cfg, rule->offset), ","),
			 cfg_str(cfg, rule->offset));
		break;
	}
	if (ok) {
		f = pf_add(res, PF_STATUS_PASS, subject, "%llu (%s)", (unsigned long long)v, want);
	} else {
		f = pf_add(res, sev, subject, "%llu, expected %s: %s", (unsigned long long)v, want,
			   rule->why);
		pf_code(f, (unsigned int)(rule - rules) + 1); /* sysctl_codes[] */
		if (rule->field)
			pf_remedy(f, "raise the last field: sysctl -w %s=\"<min> <default> %s\" and "
				  "persist it in /etc/sysctl.d/", persist_name, fix);
		else if (rule->runbook)
			pf_remedy(f, "sysctl -w %s=%s and persist it in /etc/sysctl.d/; the minimum "
				  "is sysctl.%s, by default 16777216 (16 MiB), the value the "
				  "provisioning runbook sets (NVIDIA/Mellanox's host tuning), so a "
				  "reimage that lost it fails; a site that runs with less lowers it "
				  "in its profile ({\"checks\": {\"sysctl\": {\"%s\": <bytes>}}} or "
				  "--set sysctl.%s=<bytes>) or reports it as a warning "
				  "(sysctl.warn_only=%s)", persist_name, fix, rule->runbook,
				  rule->runbook, rule->runbook, rule->name);
		else
			pf_remedy(f, "sysctl -w %s=%s and persist it in /etc/sysctl.d/",
				  persist_name, fix);
	}
	pf_obs_num(f, "value", (double)v);
	if (rule->cmp == CMP_GE)
		pf_exp_num(f, "min", (double)cfg_u64(cfg, rule->offset));
	else if (rule->cmp == CMP_EQ)
		pf_exp_num(f, "value", (double)cfg_u64(cfg, rule->offset));
	else
		pf_exp_str(f, "one_of", cfg_str(cfg, rule->offset));
}

static void read_error(struct pf_result *res, const char *subject, const char *path, int r)
{
	if (r == -EINVAL || r == -ERANGE || r == -E2BIG)
		pf_add(res, PF_STATUS_ERROR, subject, "cannot parse %s: unexpected contents", path);
	else
		pf_add(res, PF_STATUS_ERROR, subject, "cannot read %s: %s", path, strerror(-r));
}

/*
 * A sysctl that only exists with a kernel option: its directory present and
 * the file absent means the kernel was built without that option (nothing
 * to judge); the directory absent means the root did not capture it.
 */
static void absent(const struct pf_fs *fs, struct pf_result *res, const struct rule *rule,
		   const char *path)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
	if (pf_fs_exists(fs, dir) == 1)
		pf_add(res, PF_STATUS_SKIP, rule->name,
		       "absent: this kernel was built without %s, so there is nothing to judge",
		       rule->kconfig);
	else
		pf_add(res, PF_STATUS_SKIP, rule->name,
		       "not captured: %s is absent under the root", dir);
}

/* Under a recorded root a file the capture left out is a skip naming it. */
static void not_captured(struct pf_result *res, const char *subject, const char *path)
{
	pf_add(res, PF_STATUS_SKIP, subject, "not captured: %s is absent under the root", path);
}

static void check_global(const struct pf_ctx *ctx, const struct sysctl_cfg *cfg,
			 const struct rule *rule, struct pf_result *res)
{
	char path[256];
	uint64_t v;
	int r;

	to_path(path, sizeof(path), rule->name);
	r = read_value(ctx->fs, path, rule->field, &v);
	if (r == -ENOENT && rule->kconfig)
		absent(ctx->fs, res, rule, path);
	else if (r == -ENOENT && !pf_prov_can(ctx, PF_PROV_NODE))
		not_captured(res, rule->name, path);
	else if (r < 0)
		read_error(res, rule->name, path, r);
	else
		judge(res, cfg, rule, rule->name, rule->name, v);
}

static void add_name(char **out, int *k, const char *name)
{
	for (int i = 0; i < *k; i++)
		if (!strcmp(out[i], name))
			return;
	out[(*k)++] = pf_xstrdup(name);
}

/*
 * The netdevs of one RDMA port as the kernel's GID table names them
 * (drivers/infiniband/core/sysfs.c: ports/<p>/gid_attrs/ndevs/<i>, one per
 * GID in use; unused entries cannot be read): the PF's netdev, a RoCE LAG
 * bond, VLANs, a VF's netdev, soft-RoCE's veth or Ethernet netdev.
 */
static void port_ndevs(const struct pf_fs *fs, const char *dir, char ***out, int *k, int *alloc)
{
	pf_autostrv char **gids = NULL;
	pf_autofree char *ll = NULL, *ndevs = pf_xasprintf("%s/gid_attrs/ndevs", dir);
	pf_autofree char *llp = pf_xasprintf("%s/link_layer", dir);
	int n;

	if (pf_fs_read_line(fs, llp, &ll) < 0 || strcmp(ll, "Ethernet"))
		return;
	n = pf_fs_list(fs, ndevs, &gids);
	for (int i = 0; i < n; i++) {
		pf_autofree char *path = pf_xasprintf("%s/%s", ndevs, gids[i]), *name = NULL;

		if (pf_fs_read_line(fs, path, &name) < 0 || !*name || strchr(name, '/'))
			continue;
		if (*k + 1 >= *alloc) {
			*alloc *= 2;
			*out = pf_xrealloc(*out, (size_t)*alloc * sizeof(**out));
		}
		add_name(*out, k, name);
	}
}

static void gid_netdevs(const struct pf_fs *fs, char ***out, int *k, int *alloc)
{
	pf_autostrv char **devs = NULL;
	int n = pf_fs_list(fs, "/sys/class/infiniband", &devs);

	for (int i = 0; i < n; i++) {
		pf_autostrv char **ports = NULL;
		pf_autofree char *pdir = pf_xasprintf("/sys/class/infiniband/%s/ports", devs[i]);
		int m = pf_fs_list(fs, pdir, &ports);

		for (int j = 0; j < m; j++) {
			pf_autofree char *dir = pf_xasprintf("%s/%s", pdir, ports[j]);

			port_ndevs(fs, dir, out, k, alloc);
		}
	}
}

/*
 * Netdevs that carry RoCE, Ethernet link type (1): those the RDMA ports'
 * GID tables name, and (for captures without gid_attrs) those with an RDMA
 * device below their PCI function.
 */
static int roce_netdevs(const struct pf_fs *fs, char ***ret)
{
	pf_autostrv char **names = NULL;
	char **cand, **out;
	int n, k = 0, nc = 0, alloc;

	n = pf_fs_list(fs, "/sys/class/net", &names);
	if (n < 0)
		return n;
	alloc = n + 8;
	cand = pf_xcalloc((size_t)alloc, sizeof(*cand));
	gid_netdevs(fs, &cand, &nc, &alloc);
	for (int i = 0; i < n; i++) {
		pf_autofree char *path = pf_xasprintf("/sys/class/net/%s/device/infiniband",
						      names[i]);

		if (pf_fs_exists(fs, path) == 1) {
			if (nc + 1 >= alloc) {
				alloc *= 2;
				cand = pf_xrealloc(cand, (size_t)alloc * sizeof(*cand));
			}
			add_name(cand, &nc, names[i]);
		}
	}
	out = pf_xcalloc((size_t)nc + 1, sizeof(*out));
	for (int i = 0; i < nc; i++) {
		uint64_t type;

		if (pf_fs_readf_u64(fs, &type, "/sys/class/net/%s/type", cand[i]) == 0 && type == 1)
			out[k++] = cand[i];
		else
			free(cand[i]);
	}
	free(cand);
	*ret = out;
	return k;
}

/*
 * The model's port whose netdev is @ifname and that is no compute rail,
 * when no compute rail uses that netdev; NULL otherwise (a rail's netdev,
 * one the model does not know, or no model: judged).
 */
static const struct pf_rail_port *not_a_rail(const struct pf_ctx *ctx, const char *ifname)
{
	const struct pf_rails *rails = ctx->rails;
	const struct pf_rail_port *other = NULL;

	if (!rails || !ctx->node || !rails->n_compute)
		return NULL;
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *rp = &rails->ports[i];

		if (strcmp(rp->netdev, ifname))
			continue;
		if (rp->role == PF_ROLE_COMPUTE)
			return NULL;
		other = other ? other : rp;
	}
	return other;
}

/* A skip: @ifname shares a subnet only with netdevs of no compute rail. */
static void not_rail_skip(const struct pf_ctx *ctx, const char *ifname,
			  const struct pf_rail_port *rp, struct pf_result *res)
{
	struct pf_finding *f;
	char subject[64];

	snprintf(subject, sizeof(subject), "net.ipv4.conf.%s", ifname);
	f = pf_add(res, PF_STATUS_SKIP, subject, "%s of %s/%u, %s %s port (%s), shares its "
		   "subnet with no compute rail: multi-rail ARP and rp_filter rules apply where "
		   "NCCL's rails meet", ifname, ctx->node->rdma[rp->rdma].name, rp->port,
		   rp->role == PF_ROLE_UNUSED ? "an" : "a", pf_port_role_name(rp->role),
		   rp->reason);
	pf_obs_str(f, "role", pf_port_role_name(rp->role));
}

/*
 * Which rails share an IPv4 subnet with another rail: only there does the
 * kernel see two interfaces as routes to one neighbour, and only there do
 * arp_ignore, arp_announce and rp_filter decide which rail answers and which
 * packets are dropped.  Rails whose addresses could not be read are neither
 * (a skip or error finding says why); returns how many rails share.
 */
static int sharing_rails(const struct pf_ctx *ctx, char **rails, int n, bool *shared,
			 struct pf_ipv4_addrs *addrs, struct pf_result *res)
{
	pf_autofree bool *known = pf_xcalloc((size_t)n, sizeof(*known));
	pf_autofree bool *other = pf_xcalloc((size_t)n, sizeof(*other));
	pf_autofree char *missing = pf_xstrdup(""), *subnets = pf_xstrdup("");
	int n_shared = 0, n_missing = 0;

	for (int i = 0; i < n; i++) {
		int r = ctx->prov->ipv4_addrs(ctx, rails[i], &addrs[i]);
		char *next;

		if (r == -ENOENT || r == -ENODEV) {
			next = pf_xasprintf("%s%s%s", missing, *missing ? ", " : "", rails[i]);
			free(missing);
			missing = next;
			n_missing++;
			continue;
		}
		if (r < 0) {
			pf_add(res, PF_STATUS_ERROR, rails[i], "cannot read the IPv4 addresses of %s: %s",
			       rails[i], strerror(-r));
			continue;
		}
		known[i] = true;
		for (size_t a = 0; a < addrs[i].n; a++) {
			char cidr[24];

			pf_format_ipv4(&addrs[i].v[a], cidr, sizeof(cidr));
			next = pf_xasprintf("%s%s%s %s", subnets, *subnets ? ", " : "", rails[i], cidr);
			free(subnets);
			subnets = next;
		}
	}
	for (int i = 0; i < n; i++) {
		const struct pf_rail_port *rp = not_a_rail(ctx, rails[i]);

		for (int j = 0; j < n && known[i] && !shared[i]; j++) {
			bool same = false;

			if (j == i || !known[j])
				continue;
			for (size_t a = 0; a < addrs[i].n && !same; a++)
				for (size_t b = 0; b < addrs[j].n && !same; b++)
					same = pf_ipv4_same_subnet(&addrs[i].v[a], &addrs[j].v[b]);
			/* a netdev of no compute rail matters only where it meets a rail */
			if (same && rp && not_a_rail(ctx, rails[j]))
				other[i] = true;
			else
				shared[i] = same;
		}
		if (rp && other[i] && !shared[i])
			not_rail_skip(ctx, rails[i], rp, res);
	}
	for (int i = 0; i < n; i++)
		n_shared += shared[i];
	if (n_missing) {
		struct pf_finding *f = pf_add(res, PF_STATUS_SKIP, "net.ipv4.conf",
			"IPv4 addresses of %s not captured: cannot tell whether %s shares a subnet "
			"with another rail, so its ARP and rp_filter settings are not judged",
			missing, n_missing == 1 ? "it" : "each");
		pf_remedy(f, "take the snapshot with this version of preflight (it records "
			  "preflight/ip/<if>/addr), or run on the node");
	}
	if (n_shared == 0 && n_missing < n)
		pf_add(res, PF_STATUS_SKIP, "net.ipv4.conf",
		       "no two RoCE rails share an IPv4 subnet (%s): multi-rail ARP and rp_filter "
		       "rules do not apply", *subnets ? subnets : "no IPv4 addresses");
	return n_shared;
}

/* True when the rule's selector @sel (prefix 0: all) holds @a's address. */
static bool covers(const struct pf_ipv4_addr *sel, uint32_t a)
{
	uint32_t mask = sel->prefix ? ~(uint32_t)0 << (32 - sel->prefix) : 0;

	return (sel->addr & mask) == (a & mask);
}

/* True when @sel also holds an address of another sharing rail than @k. */
static bool covers_other(const struct pf_ipv4_addr *sel, const struct pf_ipv4_addrs *addrs,
			 const bool *shared, int n, int k)
{
	for (int j = 0; j < n; j++)
		for (size_t b = 0; j != k && shared[j] && b < addrs[j].n; b++)
			if (covers(sel, addrs[j].v[b].addr))
				return true;
	return false;
}

/*
 * The policy rule that answers rp_filter's reverse lookup for rail @k
 * (net/ipv4/fib_frontend.c, __fib_validate_source: saddr = the rail's own
 * address the packet was sent to, daddr = its sender in the rail's subnet,
 * iif = lo, oif unset): the first rule in priority order that matches such
 * a lookup, if it is a per-rail source rule ("from <rail-ip> lookup N",
 * N not local/main/default, covering no other rail's address); NULL when
 * a catch-all (main) or anything not modelled answers first.
 */
static const struct pf_ip_rule *source_rule(const struct pf_ip_rules *ipr,
					    const struct pf_ipv4_addrs *addrs, const bool *shared,
					    int n, int k, const char *ifname)
{
	for (size_t i = 0; i < ipr->n; i++) {
		const struct pf_ip_rule *r = &ipr->v[i];
		bool match = false;

		if (r->action == PF_RULE_NOP || r->invert || r->other)
			continue;
		if ((r->iif[0] && strcmp(r->iif, "lo")) || (r->oif[0] && strcmp(r->oif, ifname)))
			continue;
		/* the sender is any neighbour in the rail's subnet: `to` must hold all of it */
		for (size_t a = 0; a < addrs[k].n && !match; a++)
			match = covers(&r->src, addrs[k].v[a].addr) &&
				(!r->dst.prefix || (r->dst.prefix <= addrs[k].v[a].prefix &&
						    covers(&r->dst, addrs[k].v[a].addr)));
		if (!match)
			continue;
		if (r->action == PF_RULE_LOOKUP && r->table == 255)
			continue; /* the sender's address is not local: the lookup falls through */
		if (r->action != PF_RULE_LOOKUP || !r->src.prefix || r->table == 255 ||
		    r->table == 254 || r->table == 253)
			return NULL;
		return covers_other(&r->src, addrs, shared, n, k) ? NULL : r;
	}
	return NULL;
}

/* The rails that share a subnet, their addresses and the policy rules. */
struct rails {
	char **names;
	int n;
	bool *shared;
	struct pf_ipv4_addrs *addrs;
	struct pf_ip_rules *rules;
	int rules_r; /* 0, or why the rules are unknown */
	bool live;
};

/*
 * rp_filter 1 on a sharing rail: strict filtering drops ARP from the other
 * rail's neighbours only when the reverse route leaves by another rail.
 * With a per-rail source rule it leaves by this one: pass, naming the rule.
 */
static void judge_rp_strict(struct pf_result *res, const struct rails *rl, int k,
			    const char *subject, uint64_t v)
{
	const struct pf_ip_rule *r;
	struct pf_finding *f;

	if (rl->rules_r < 0 && rl->live && rl->rules_r != -ENOSYS) {
		pf_add(res, PF_STATUS_ERROR, subject, "%llu (strict) with another rail in the subnet, "
		       "and the policy routing rules cannot be read (RTM_GETRULE): %s",
		       (unsigned long long)v, strerror(-rl->rules_r));
		return;
	}
	if (rl->rules_r < 0) {
		f = pf_add(res, PF_STATUS_SKIP, subject,
			   "%llu (strict) with another rail in the subnet, and the policy routing "
			   "rules are not %s (%s): per-rail source routing would make it correct",
			   (unsigned long long)v,
			   rl->rules_r == -ENOENT ? "captured" : "readable", strerror(-rl->rules_r));
		pf_remedy(f, "take the snapshot with this version of preflight (it records "
			  "preflight/ip/rule), or run on the node");
		return;
	}
	r = source_rule(rl->rules, rl->addrs, rl->shared, rl->n, k, rl->names[k]);
	if (!r)
		return;
	f = pf_add(res, PF_STATUS_PASS, subject, "%llu (strict) with per-rail source routing: rule "
		   "%u sends the reverse-path lookup for %s's address to table %u, so replies "
		   "and ARP leave by this rail", (unsigned long long)v, r->pref, rl->names[k],
		   r->table);
	pf_obs_num(f, "value", (double)v);
	pf_obs_num(f, "rule_pref", r->pref);
	pf_obs_num(f, "rule_table", r->table);
}

static void judge_rails_rule(const struct pf_ctx *ctx, const struct sysctl_cfg *cfg,
			     const struct rule *rule, const struct rails *rl,
			     struct pf_result *res)
{
	char path[256], subject[160];
	uint64_t all, dev, v;
	int r;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/all/%s", rule->name);
	r = read_value(ctx->fs, path, 0, &all);
	snprintf(subject, sizeof(subject), "net.ipv4.conf.all.%s", rule->name);
	if (r == -ENOENT && !pf_prov_can(ctx, PF_PROV_NODE)) {
		not_captured(res, subject, path);
		return;
	}
	if (r < 0) {
		read_error(res, subject, path, r);
		return;
	}
	for (int k = 0; k < rl->n; k++) {
		size_t before = res->n_findings;

		if (!rl->shared[k])
			continue;
		snprintf(subject, sizeof(subject), "net.ipv4.conf.%s.%s", rl->names[k], rule->name);
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", rl->names[k],
			 rule->name);
		r = read_value(ctx->fs, path, 0, &dev);
		if (r == -ENOENT && !pf_prov_can(ctx, PF_PROV_NODE)) {
			not_captured(res, subject, path);
			continue;
		}
		if (r < 0) {
			read_error(res, subject, path, r);
			continue;
		}
		/* the kernel applies the larger of "all" and the interface's value */
		v = all > dev ? all : dev;
		if (!strcmp(rule->name, "rp_filter") && v == 1 && !one_of(cfg->rp_filter, v))
			judge_rp_strict(res, rl, k, subject, v);
		if (res->n_findings == before)
			judge(res, cfg, rule, subject, subject, v);
	}
}

static void check_rails(const struct pf_ctx *ctx, const struct sysctl_cfg *cfg,
			struct pf_result *res)
{
	pf_autostrv char **names = NULL;
	pf_autofree bool *shared = NULL;
	pf_autofree struct pf_ipv4_addrs *addrs = NULL;
	pf_autofree struct pf_ip_rules *iprules = NULL;
	struct rails rl;
	int n = roce_netdevs(ctx->fs, &names);

	if (n == -ENOENT)
		n = 0; /* no /sys/class/net under the root: no RoCE netdevs, say so below */
	if (n < 0) {
		pf_add(res, PF_STATUS_ERROR, "net.ipv4.conf", "cannot list /sys/class/net: %s",
		       strerror(-n));
		return;
	}
	if (n < 2) {
		pf_add(res, PF_STATUS_SKIP, "net.ipv4.conf",
		       "%d RoCE netdev%s: multi-rail ARP and rp_filter rules do not apply", n,
		       n == 1 ? "" : "s");
		return;
	}
	shared = pf_xcalloc((size_t)n, sizeof(*shared));
	addrs = pf_xcalloc((size_t)n, sizeof(*addrs));
	if (sharing_rails(ctx, names, n, shared, addrs, res) == 0)
		return;
	iprules = pf_xcalloc(1, sizeof(*iprules));
	rl = (struct rails){ .names = names, .n = n, .shared = shared, .addrs = addrs,
			     .rules = iprules, .rules_r = -ENOSYS, .live = pf_prov_can(ctx, PF_PROV_NODE) };
	if (ctx->prov) {
		int r = ctx->prov->ip_rules(ctx, iprules);

		rl.rules_r = r < 0 ? r : 0;
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(rules); i++)
		if (rules[i].per_rail && !pf_list_has(cfg->ignore, rules[i].name))
			judge_rails_rule(ctx, cfg, &rules[i], &rl, res);
}

static int sysctl_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct sysctl_cfg *cfg = config;

	if (!pf_prov_can(ctx, PF_PROV_NODE) && pf_fs_exists(ctx->fs, "/proc/sys") != 1)
		return pf_skip(res, "not captured: /proc/sys is absent under the root (a partial "
			       "capture), so no sysctl can be judged");
	for (size_t i = 0; i < PF_ARRAY_SIZE(rules); i++)
		if (!rules[i].per_rail && !pf_list_has(cfg->ignore, rules[i].name))
			check_global(ctx, cfg, &rules[i], res);
	check_rails(ctx, cfg, res);
	return 0;
}

static const struct pf_code sysctl_codes[] = {
	{ 1, PF_ACTION_RECONFIGURE, "net.core.rmem_max is below the minimum" },
	{ 2, PF_ACTION_RECONFIGURE, "net.core.wmem_max is below the minimum" },
	{ 3, PF_ACTION_RECONFIGURE, "net.core.rmem_default is below the minimum" },
	{ 4, PF_ACTION_RECONFIGURE, "net.core.wmem_default is below the minimum" },
	{ 5, PF_ACTION_RECONFIGURE, "net.core.netdev_max_backlog is below the minimum" },
	{ 6, PF_ACTION_RECONFIGURE, "the last field of net.ipv4.tcp_rmem is below the minimum" },
	{ 7, PF_ACTION_RECONFIGURE, "the last field of net.ipv4.tcp_wmem is below the minimum" },
	{ 8, PF_ACTION_RECONFIGURE, "a rail's arp_ignore lets it answer ARP for another rail's address" },
	{ 9, PF_ACTION_RECONFIGURE, "a rail's arp_announce does not use the outgoing rail's address" },
	{ 10, PF_ACTION_RECONFIGURE, "a rail's rp_filter is strict and drops ARP arriving on a rail that is not the route back" },
	{ 11, PF_ACTION_RECONFIGURE, "kernel.numa_balancing is on" },
	{ 12, PF_ACTION_RECONFIGURE, "vm.zone_reclaim_mode is on" },
	{ 0 },
};
_Static_assert(PF_ARRAY_SIZE(sysctl_codes) == PF_ARRAY_SIZE(rules) + 1,
	       "one code a rule, in the rules' order");

const struct pf_check pf_check_sysctl = {
	.name = "sysctl",
	.summary = "network buffer, multi-rail ARP and NUMA sysctls",
	.tags = "net,static",
	.reads = "/proc/sys/net/core/{r,w}mem_{max,default}, netdev_max_backlog, "
		 "/proc/sys/net/ipv4/tcp_{r,w}mem, /proc/sys/net/ipv4/conf/{all,<roce-if>}/"
		 "{arp_ignore,arp_announce,rp_filter}, /proc/sys/kernel/numa_balancing, "
		 "/proc/sys/vm/zone_reclaim_mode, /sys/class/infiniband/*/ports/*/{link_layer,"
		 "gid_attrs/ndevs/*}, /sys/class/net/*/{type,device/infiniband}, "
		 "the IPv4 addresses of RoCE netdevs (RTM_GETADDR; recorded: "
		 "preflight/ip/<if>/addr), the policy routing rules (RTM_GETRULE; recorded: "
		 "preflight/ip/rule)",
	.params = sysctl_params,
	.codes = sysctl_codes,
	.cfg_size = sizeof(struct sysctl_cfg),
	.timeout_s = 5,
	.flags = PF_CHECK_USES_NODE, /* the rail model, to judge where the rails meet */
	.run = sysctl_run,
};
