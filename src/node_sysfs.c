// SPDX-License-Identifier: MIT
/*
 * node_sysfs.c - the node inventory from sysfs under the root, and the
 * model's common helpers (free, notes, lookups, the hwloc/sysfs choice).
 *
 * Reads, once: /sys/bus/pci/devices/<bdf>/{vendor,device,class,numa_node,
 * local_cpulist,{current,max}_link_{speed,width}} and each device's
 * canonical path (its bridge chain); /sys/class/infiniband/<dev>/{hca_type,
 * board_id,ports/<n>/{state,phys_state,rate,link_layer,active_mtu}};
 * /sys/class/net/<if>/{speed,mtu,operstate} and which RDMA port each netdev
 * belongs to (the port's default GID entry, else the netdevs of the same PCI
 * function and their dev_port); /sys/devices/system/node/node<N>/cpulist.
 * A missing directory means "none of these"; an unreadable one fails the
 * load.  Files that a driver does not provide leave the field unknown.
 */
#include <stdarg.h>
#include <string.h>

#include "preflight/node.h"
#include "preflight/parse.h"

#define SYS_PCI "/sys/bus/pci/devices"
#define SYS_IB "/sys/class/infiniband"
#define SYS_NET "/sys/class/net"
#define SYS_NODE "/sys/devices/system/node"

struct pf_node *pf_node_new(const char *source)
{
	struct pf_node *node = pf_xcalloc(1, sizeof(*node));

	node->source = source;
	return node;
}

void pf_node_note(struct pf_node *node, const char *fmt, ...)
{
	size_t n = 0;
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		line = NULL;
	va_end(ap);
	if (!line)
		line = pf_xstrdup("(out of memory formatting a note)");
	while (node->notes && node->notes[n])
		n++;
	node->notes = pf_xrealloc(node->notes, (n + 2) * sizeof(*node->notes));
	node->notes[n] = line;
	node->notes[n + 1] = NULL;
}

struct pf_node *pf_node_free(struct pf_node *node)
{
	if (!node)
		return NULL;
	for (size_t i = 0; i < node->n_pci; i++) {
		free(node->pci[i].path);
		free(node->pci[i].local_cpulist);
	}
	free(node->pci);
	free(node->gpus);
	for (size_t i = 0; i < node->n_rdma; i++) {
		struct pf_rdma_dev *d = &node->rdma[i];

		for (size_t p = 0; p < d->n_ports; p++) {
			free(d->ports[p].state_name);
			free(d->ports[p].phys_state_name);
			free(d->ports[p].rate);
			free(d->ports[p].speed_name);
		}
		free(d->ports);
		free(d->name);
		free(d->hca_type);
		free(d->board_id);
	}
	free(node->rdma);
	for (size_t i = 0; i < node->n_netdevs; i++) {
		free(node->netdevs[i].name);
		free(node->netdevs[i].operstate);
	}
	free(node->netdevs);
	for (size_t i = 0; i < node->n_numa; i++)
		free(node->numa[i].cpulist);
	free(node->numa);
	pf_strv_free(node->notes);
	free(node);
	return NULL;
}

int pf_node_pci_index(const struct pf_node *node, const char *bdf)
{
	char norm[16];

	if (!node || !bdf)
		return -1;
	if (!pf_is_bdf(bdf)) {
		if (pf_bdf_normalize(bdf, norm) < 0)
			return -1;
		bdf = norm;
	}
	for (size_t i = 0; i < node->n_pci; i++)
		if (!strcmp(node->pci[i].bdf, bdf))
			return (int)i;
	return -1;
}

const struct pf_pci_dev *pf_node_pci(const struct pf_node *node, const char *bdf)
{
	int i = pf_node_pci_index(node, bdf);

	return i < 0 ? NULL : &node->pci[i];
}

const struct pf_rdma_dev *pf_node_rdma(const struct pf_node *node, const char *name)
{
	for (size_t i = 0; node && name && i < node->n_rdma; i++)
		if (!strcmp(node->rdma[i].name, name))
			return &node->rdma[i];
	return NULL;
}

const struct pf_netdev *pf_node_netdev(const struct pf_node *node, const char *name)
{
	for (size_t i = 0; node && name && i < node->n_netdevs; i++)
		if (!strcmp(node->netdevs[i].name, name))
			return &node->netdevs[i];
	return NULL;
}

static int netdev_index(const struct pf_node *node, const char *name)
{
	const struct pf_netdev *n = pf_node_netdev(node, name);

	return n ? (int)(n - node->netdevs) : -1;
}

/* A directory listing where ENOENT means empty; other errors fill *ret_err. */
static int list_optional(const struct pf_fs *fs, const char *path, char ***ret, char **ret_err)
{
	int n = pf_fs_list(fs, path, ret);

	if (n == -ENOENT || n == -ENOTDIR) {
		*ret = pf_xcalloc(1, sizeof(**ret));
		return 0;
	}
	if (n < 0)
		*ret_err = pf_xasprintf("cannot list %s: %s", path, strerror(-n));
	return n;
}

/* The first line of an optional file, or NULL. */
static char *read_opt(const struct pf_fs *fs, const char *path)
{
	char *line = NULL;

	return pf_fs_read_line(fs, path, &line) < 0 ? NULL : line;
}

/* --- PCI ----------------------------------------------------------------- */

static int cmp_pci(const void *a, const void *b)
{
	return strcmp(((const struct pf_pci_dev *)a)->bdf, ((const struct pf_pci_dev *)b)->bdf);
}

static int find_pci_sorted(const struct pf_node *node, const char *bdf)
{
	struct pf_pci_dev key;
	const struct pf_pci_dev *hit;

	snprintf(key.bdf, sizeof(key.bdf), "%s", bdf);
	hit = bsearch(&key, node->pci, node->n_pci, sizeof(*node->pci), cmp_pci);
	return hit ? (int)(hit - node->pci) : -1;
}

static void load_pci_one(const struct pf_fs *fs, struct pf_node *node, struct pf_pci_dev *d)
{
	char path[96], *line;
	uint64_t v;
	int64_t i;
	int r;

	snprintf(path, sizeof(path), SYS_PCI "/%s", d->bdf);
	r = pf_fs_realpath(fs, path, &d->path);
	if (r < 0) {
		pf_node_note(node, "%s: cannot resolve %s: %s", d->bdf, path, strerror(-r));
		d->path = pf_xstrdup(path);
	}
	if (pf_fs_readf_u64(fs, &v, "%s/vendor", path) == 0 && v <= 0xffff)
		d->vendor = (uint16_t)v;
	if (pf_fs_readf_u64(fs, &v, "%s/device", path) == 0 && v <= 0xffff)
		d->device = (uint16_t)v;
	if (pf_fs_readf_u64(fs, &v, "%s/class", path) == 0 && v <= 0xffffff)
		d->class = (uint32_t)v;
	d->numa_node = -1;
	if (pf_fs_readf_i64(fs, &i, "%s/numa_node", path) == 0 && i >= 0 && i < 4096)
		d->numa_node = (int)i;
	if (pf_fs_readf_line(fs, &line, "%s/local_cpulist", path) == 0)
		d->local_cpulist = line;
	if (pf_fs_readf_line(fs, &line, "%s/current_link_speed", path) == 0) {
		pf_parse_pci_speed(line, &d->cur_speed_gts);
		free(line);
	}
	if (pf_fs_readf_line(fs, &line, "%s/max_link_speed", path) == 0) {
		pf_parse_pci_speed(line, &d->max_speed_gts);
		free(line);
	}
	if (pf_fs_readf_line(fs, &line, "%s/current_link_width", path) == 0) {
		pf_parse_pci_width(line, &d->cur_width);
		free(line);
	}
	if (pf_fs_readf_line(fs, &line, "%s/max_link_width", path) == 0) {
		pf_parse_pci_width(line, &d->max_width);
		free(line);
	}
}

static int load_pci(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	pf_autostrv char **names = NULL;
	size_t n_gpus = 0;
	int n;

	n = list_optional(fs, SYS_PCI, &names, ret_err);
	if (n < 0)
		return n;
	node->pci = pf_xcalloc((size_t)n + 1, sizeof(*node->pci));
	for (int k = 0; k < n; k++) {
		struct pf_pci_dev *d = &node->pci[node->n_pci];

		if (!pf_is_bdf(names[k])) {
			pf_node_note(node, "%s/%s: not a PCI address, skipped", SYS_PCI, names[k]);
			continue;
		}
		snprintf(d->bdf, sizeof(d->bdf), "%s", names[k]);
		d->parent = -1;
		load_pci_one(fs, node, d);
		node->n_pci++;
	}
	/* pf_fs_list() sorts, so the table is in BDF order already; keep it so. */
	qsort(node->pci, node->n_pci, sizeof(*node->pci), cmp_pci);

	node->gpus = pf_xcalloc(node->n_pci + 1, sizeof(*node->gpus));
	for (size_t k = 0; k < node->n_pci; k++) {
		struct pf_pci_dev *d = &node->pci[k];
		char bdfs[32][16];
		int nb = pf_pci_path_bdfs(d->path, bdfs, PF_ARRAY_SIZE(bdfs), NULL);

		if (nb >= 2 && nb <= (int)PF_ARRAY_SIZE(bdfs))
			d->parent = find_pci_sorted(node, bdfs[nb - 2]);
		if (d->vendor == PF_PCI_VENDOR_NVIDIA &&
		    ((d->class >> 8) == 0x0300 || (d->class >> 8) == 0x0302))
			node->gpus[n_gpus++].pci = (int)k;
	}
	node->n_gpus = n_gpus;
	return 0;
}

/* --- NUMA ---------------------------------------------------------------- */

static int cmp_numa(const void *a, const void *b)
{
	return ((const struct pf_numa *)a)->id - ((const struct pf_numa *)b)->id;
}

static int load_numa(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	pf_autostrv char **names = NULL;
	int n;

	n = list_optional(fs, SYS_NODE, &names, ret_err);
	if (n < 0)
		return n;
	node->numa = pf_xcalloc((size_t)n + 1, sizeof(*node->numa));
	for (int k = 0; k < n; k++) {
		const char *s = names[k];
		struct pf_numa *m = &node->numa[node->n_numa];
		char path[64];

		if (strncmp(s, "node", 4) || !s[4] || strspn(s + 4, "0123456789") != strlen(s + 4) ||
		    strlen(s + 4) > 4)
			continue;
		m->id = atoi(s + 4);
		snprintf(path, sizeof(path), SYS_NODE "/%s/cpulist", s);
		m->cpulist = read_opt(fs, path);
		node->n_numa++;
	}
	qsort(node->numa, node->n_numa, sizeof(*node->numa), cmp_numa);
	return 0;
}

/*
 * numa_node -1 means the firmware gave no proximity: take the NUMA node
 * whose CPUs contain all of the device's local CPUs, if exactly one does.
 */
static void numa_fallback(struct pf_node *node)
{
	pf_autofree uint64_t *numa_bits = NULL;
	uint64_t local[PF_CPU_WORDS];

	for (size_t k = 0; k < node->n_pci; k++) {
		struct pf_pci_dev *d = &node->pci[k];
		int found = -1, hits = 0;

		if (d->numa_node >= 0 || !d->local_cpulist || node->n_numa == 0)
			continue;
		if (pf_parse_cpulist(d->local_cpulist, local) <= 0)
			continue;
		if (!numa_bits) {
			numa_bits = pf_xcalloc(node->n_numa * PF_CPU_WORDS, sizeof(uint64_t));
			for (size_t m = 0; m < node->n_numa; m++)
				if (!node->numa[m].cpulist ||
				    pf_parse_cpulist(node->numa[m].cpulist,
						     numa_bits + m * PF_CPU_WORDS) < 0)
					memset(numa_bits + m * PF_CPU_WORDS, 0,
					       PF_CPU_WORDS * sizeof(uint64_t));
		}
		for (size_t m = 0; m < node->n_numa; m++) {
			const uint64_t *nb = numa_bits + m * PF_CPU_WORDS;
			bool subset = true, any = false;

			for (int w = 0; w < PF_CPU_WORDS; w++) {
				if (local[w] & ~nb[w])
					subset = false;
				if (nb[w])
					any = true;
			}
			if (subset && any) {
				found = node->numa[m].id;
				hits++;
			}
		}
		if (hits == 1)
			d->numa_node = found;
	}
}

/* --- RDMA ---------------------------------------------------------------- */

static char *state_name(const char *line, int *ret_num)
{
	char name[48];

	if (!line || pf_parse_state_line(line, ret_num, name, sizeof(name)) < 0) {
		*ret_num = 0;
		return line ? pf_xstrdup(line) : NULL;
	}
	return pf_xstrdup(name);
}

/* active_mtu in a snapshot: bytes ("4096") or the verbs enum ("5"). */
static int parse_mtu(const char *line)
{
	uint64_t v;

	if (!line || pf_parse_u64(line, &v) < 0)
		return 0;
	if (v >= 1 && v <= 5)
		return 128 << v;
	if (v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096)
		return (int)v;
	return 0;
}

static void load_port(const struct pf_fs *fs, const char *dev, struct pf_rdma_port *p)
{
	char base[160], path[192];
	pf_autofree char *state = NULL, *phys = NULL, *ll = NULL, *mtu = NULL;
	struct pf_ib_rate rate;

	snprintf(base, sizeof(base), SYS_IB "/%s/ports/%u", dev, p->num);
	snprintf(path, sizeof(path), "%s/state", base);
	state = read_opt(fs, path);
	p->state_name = state_name(state, &p->state);
	snprintf(path, sizeof(path), "%s/phys_state", base);
	phys = read_opt(fs, path);
	p->phys_state_name = state_name(phys, &p->phys_state);
	snprintf(path, sizeof(path), "%s/rate", base);
	p->rate = read_opt(fs, path);
	if (p->rate && pf_parse_ib_rate(p->rate, &rate) == 0) {
		p->rate_gbps = rate.gbps;
		p->width = rate.width;
		p->speed_name = pf_xstrdup(rate.speed);
	}
	snprintf(path, sizeof(path), "%s/link_layer", base);
	ll = read_opt(fs, path);
	if (ll && !strcmp(ll, "InfiniBand"))
		p->link_layer = PF_LINK_IB;
	else if (ll && !strcmp(ll, "Ethernet"))
		p->link_layer = PF_LINK_ETH;
	snprintf(path, sizeof(path), "%s/active_mtu", base);
	mtu = read_opt(fs, path);
	p->active_mtu = parse_mtu(mtu);
	p->netdev = -1;
}

static int cmp_port(const void *a, const void *b)
{
	const struct pf_rdma_port *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

static int load_rdma_one(const struct pf_fs *fs, struct pf_node *node, const char *name,
			 struct pf_rdma_dev *d, char **ret_err)
{
	pf_autostrv char **ports = NULL;
	pf_autofree char *dpath = NULL;
	char path[160], bdfs[32][16];
	int n, r, nb;

	d->name = pf_xstrdup(name);
	d->pci = -1;
	snprintf(path, sizeof(path), SYS_IB "/%s/device", name);
	r = pf_fs_realpath(fs, path, &dpath);
	nb = r < 0 ? 0 : pf_pci_path_bdfs(dpath, bdfs, PF_ARRAY_SIZE(bdfs), NULL);
	if (nb > 0 && nb <= (int)PF_ARRAY_SIZE(bdfs) && pf_is_bdf(strrchr(dpath, '/') + 1)) {
		d->pci = find_pci_sorted(node, bdfs[nb - 1]);
		if (d->pci < 0)
			pf_node_note(node, "%s: PCI function %s is not in %s", name, bdfs[nb - 1],
				     SYS_PCI);
	} else {
		pf_node_note(node, "%s: no PCI parent (%s), not a PCI RDMA device", name,
			     r < 0 ? strerror(-r) : dpath);
	}
	snprintf(path, sizeof(path), SYS_IB "/%s/hca_type", name);
	d->hca_type = read_opt(fs, path);
	snprintf(path, sizeof(path), SYS_IB "/%s/board_id", name);
	d->board_id = read_opt(fs, path);

	snprintf(path, sizeof(path), SYS_IB "/%s/ports", name);
	n = pf_fs_list(fs, path, &ports);
	if (n < 0) {
		if (d->pci < 0)
			return 0; /* the note above says why */
		if (n != -ENOENT) {
			*ret_err = pf_xasprintf("cannot list %s: %s", path, strerror(-n));
			return n;
		}
		pf_node_note(node, "%s: no ports directory", name);
		return 0;
	}
	d->ports = pf_xcalloc((size_t)n + 1, sizeof(*d->ports));
	for (int k = 0; k < n; k++) {
		uint64_t num;

		if (pf_parse_u64(ports[k], &num) < 0 || num == 0 || num > 255)
			continue;
		d->ports[d->n_ports].num = (unsigned int)num;
		load_port(fs, name, &d->ports[d->n_ports]);
		d->n_ports++;
	}
	qsort(d->ports, d->n_ports, sizeof(*d->ports), cmp_port);
	return 0;
}

static int load_rdma(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	pf_autostrv char **names = NULL;
	int n, r;

	n = list_optional(fs, SYS_IB, &names, ret_err);
	if (n < 0)
		return n;
	node->rdma = pf_xcalloc((size_t)n + 1, sizeof(*node->rdma));
	for (int k = 0; k < n; k++) {
		r = load_rdma_one(fs, node, names[k], &node->rdma[node->n_rdma++], ret_err);
		if (r < 0)
			return r;
	}
	return 0;
}

/* --- netdevs ------------------------------------------------------------- */

static int load_netdevs(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	pf_autostrv char **names = NULL;
	int n;

	n = list_optional(fs, SYS_NET, &names, ret_err);
	if (n < 0)
		return n;
	node->netdevs = pf_xcalloc((size_t)n + 1, sizeof(*node->netdevs));
	for (int k = 0; k < n; k++) {
		struct pf_netdev *nd = &node->netdevs[node->n_netdevs++];
		char path[128];
		int64_t v;

		nd->name = pf_xstrdup(names[k]);
		nd->rdma_dev = -1;
		nd->speed_mbps = -1;
		nd->mtu = -1;
		/* a down link fails the read with EINVAL; an up one without carrier says -1 */
		if (pf_fs_readf_i64(fs, &v, SYS_NET "/%s/speed", names[k]) == 0 && v >= 0 &&
		    v != 0xffffffffLL)
			nd->speed_mbps = v;
		if (pf_fs_readf_i64(fs, &v, SYS_NET "/%s/mtu", names[k]) == 0 && v >= 0)
			nd->mtu = v;
		snprintf(path, sizeof(path), SYS_NET "/%s/operstate", names[k]);
		nd->operstate = read_opt(fs, path);
	}
	return 0;
}

static void link_port(struct pf_node *node, size_t dev, struct pf_rdma_port *p, int nd)
{
	p->netdev = nd;
	if (node->netdevs[nd].rdma_dev < 0) {
		node->netdevs[nd].rdma_dev = (int)dev;
		node->netdevs[nd].port = p->num;
	}
}

/*
 * Which netdev each RDMA port uses: the netdev of its default GID (kernel
 * truth for RoCE), else a netdev of the same PCI function whose dev_port
 * (dev_id on old kernels) is the port number - 1 (IPoIB, old kernels).
 */
static void map_netdevs(const struct pf_fs *fs, struct pf_node *node)
{
	for (size_t k = 0; k < node->n_rdma; k++) {
		struct pf_rdma_dev *d = &node->rdma[k];
		pf_autostrv char **fn_nets = NULL;
		int n_fn = -1;

		for (size_t i = 0; i < d->n_ports; i++) {
			struct pf_rdma_port *p = &d->ports[i];
			pf_autofree char *ndev = NULL;
			int nd = -1;

			if (pf_fs_readf_line(fs, &ndev, SYS_IB "/%s/ports/%u/gid_attrs/ndevs/0",
					     d->name, p->num) == 0)
				nd = netdev_index(node, ndev);
			if (nd >= 0) {
				link_port(node, k, p, nd);
				continue;
			}
			if (d->pci < 0)
				continue;
			if (n_fn < 0) {
				char path[128];

				snprintf(path, sizeof(path), SYS_IB "/%s/device/net", d->name);
				n_fn = pf_fs_list(fs, path, &fn_nets);
				n_fn = n_fn < 0 ? 0 : n_fn;
			}
			for (int j = 0; j < n_fn && nd < 0; j++) {
				uint64_t dp;

				if (pf_fs_readf_u64(fs, &dp, SYS_NET "/%s/dev_port", fn_nets[j]) < 0 &&
				    pf_fs_readf_u64(fs, &dp, SYS_NET "/%s/dev_id", fn_nets[j]) < 0)
					dp = 0;
				if (dp + 1 == p->num)
					nd = netdev_index(node, fn_nets[j]);
			}
			if (nd >= 0)
				link_port(node, k, p, nd);
		}
	}
}

int pf_node_load_sysfs(const struct pf_fs *fs, struct pf_node **ret, char **ret_err)
{
	pf_autonode struct pf_node *node = pf_node_new("sysfs");
	char *err = NULL;
	int r;

	r = load_numa(fs, node, &err);
	if (r == 0)
		r = load_pci(fs, node, &err);
	if (r == 0)
		r = load_rdma(fs, node, &err);
	if (r == 0)
		r = load_netdevs(fs, node, &err);
	if (r < 0) {
		if (ret_err)
			*ret_err = err;
		else
			free(err);
		return r;
	}
	numa_fallback(node);
	map_netdevs(fs, node);
	*ret = PF_TAKE_PTR(node);
	return 0;
}

int pf_node_load(const struct pf_fs *fs, const char *topology_xml, struct pf_node **ret,
		 char **ret_err)
{
	pf_autofree char *xml = NULL;

	if (topology_xml)
		return pf_node_load_hwloc(fs, topology_xml, ret, ret_err);
	if (pf_fs_exists(fs, "/preflight/topology.xml") == 1) {
		xml = pf_xasprintf("%s/preflight/topology.xml",
				   pf_fs_is_live(fs) ? "" : pf_fs_root(fs));
		return pf_node_load_hwloc(fs, xml, ret, ret_err);
	}
	return pf_node_load_sysfs(fs, ret, ret_err);
}
