// SPDX-License-Identifier: MIT
/*
 * node_sysfs.c - the node inventory from sysfs under the root.
 *
 * Reads, once: /sys/bus/pci/devices/<bdf>/{vendor,device,class,numa_node,
 * local_cpulist,{current,max}_link_{speed,width}}, a bridge's
 * subsystem_{vendor,device}, and each device's
 * canonical path (its bridge chain); /sys/class/infiniband/<dev>/{hca_type,
 * board_id,ports/<n>/{state,phys_state,rate,link_layer,active_mtu}};
 * /sys/class/net/<if>/{speed,mtu,operstate} and which RDMA port each netdev
 * belongs to (the port's default GID entry, else the netdevs of the same PCI
 * function and their dev_port); /sys/devices/system/node/node<N>/cpulist.
 * A missing directory means "none of these"; an unreadable one fails the
 * load.  Files that a driver does not provide leave the field unknown.
 */
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>

#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/strbuf.h"

#define SYS_PCI "/sys/bus/pci/devices"
#define SYS_IB "/sys/class/infiniband"
#define SYS_NET "/sys/class/net"
#define SYS_NODE "/sys/devices/system/node"

static int netdev_index(const struct pf_node *node, const char *name)
{
	const struct pf_netdev *n = pf_node_netdev(node, name);

	return n ? (int)(n - node->netdevs) : -1;
}

/*
 * I/O.  The inventory reads a few thousand small files on a big node, so it
 * avoids what it does not need: an attribute is read with one read(2) into
 * a stack buffer (sysfs hands out an attribute whole, at most a page), and
 * the symlinks of /sys/bus/pci/devices and /sys/class/infiniband are read with
 * readlinkat() on the listed directory and resolved lexically (they point
 * at real directories below /sys/devices) instead of a realpath walk.  Every
 * open still goes through the root (pf_fs_open_file / pf_fs_opendir).
 */

#define ATTR_MAX 4096

/*
 * One read(2) of an attribute on @fd, which it closes: the first line with
 * trailing blanks dropped, into @buf; its length, -EFBIG when it fills
 * @buf, -EINVAL for a NUL inside it, or -errno.
 */
static int read_value(int fd, char *buf, size_t len)
{
	ssize_t n;
	int r;

	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	if ((size_t)n == len - 1)
		return -EFBIG;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		n--;
	buf[n] = '\0';
	/* a NUL would cut the value short ("4\0" "96" read as 4) */
	if (strlen(buf) != (size_t)n)
		return -EINVAL;
	return (int)n;
}

static int vattr(const struct pf_fs *fs, char *buf, size_t len, const char *fmt, va_list ap)
	PF_PRINTF(4, 0);
static int vattr(const struct pf_fs *fs, char *buf, size_t len, const char *fmt, va_list ap)
{
	char path[PATH_MAX];
	int fd, k;

	k = vsnprintf(path, sizeof(path), fmt, ap);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	fd = pf_fs_open_file(fs, path, 0);
	if (fd < 0)
		return fd;
	return read_value(fd, buf, len);
}

/* Read an attribute (first line, trailing blanks dropped) into @buf; its length or -errno. */
static int attr(const struct pf_fs *fs, char *buf, size_t len, const char *fmt, ...) PF_PRINTF(4, 5);
static int attr(const struct pf_fs *fs, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vattr(fs, buf, len, fmt, ap);
	va_end(ap);
	if (r >= 0)
		buf[strcspn(buf, "\n")] = '\0';
	return r;
}

/* An optional attribute as a string, or NULL. */
static char *attr_dup(const struct pf_fs *fs, const char *fmt, ...) PF_PRINTF(2, 3);
static char *attr_dup(const struct pf_fs *fs, const char *fmt, ...)
{
	char buf[ATTR_MAX + 1];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vattr(fs, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r < 0)
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return pf_xstrdup(buf);
}

static int attr_u64(const struct pf_fs *fs, uint64_t *ret, const char *fmt, ...) PF_PRINTF(3, 4);
static int attr_u64(const struct pf_fs *fs, uint64_t *ret, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vattr(fs, buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return r < 0 ? r : pf_parse_u64(buf, ret);
}

/*
 * Attributes of one directory: the directory is opened once through the
 * root and each attribute is a single-component openat() below it with
 * O_NOFOLLOW, which cannot leave the directory, so the kernel does not walk
 * the whole path again for every file.
 */
static int dir_open(const struct pf_fs *fs, const char *path)
{
	return pf_fs_open_file(fs, path, O_PATH | O_DIRECTORY);
}

/* The whole file, trailing blanks dropped; its length or -errno. */
static int at_all(int dfd, const char *name, char *buf, size_t len)
{
	struct stat st;
	int fd;

	/* a FIFO in a snapshot must not block the parent: regular files only */
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return read_value(fd, buf, len);
}

/* The first line of a file; its length or -errno. */
static int at(int dfd, const char *name, char *buf, size_t len)
{
	int r = at_all(dfd, name, buf, len);

	if (r < 0)
		return r;
	buf[strcspn(buf, "\n")] = '\0';
	return (int)strlen(buf);
}

static char *at_dup(int dfd, const char *name)
{
	char buf[ATTR_MAX + 1];

	return at(dfd, name, buf, sizeof(buf)) < 0 ? NULL : pf_xstrdup(buf);
}

static int at_u64(int dfd, const char *name, uint64_t *ret)
{
	char buf[64];
	int r = at(dfd, name, buf, sizeof(buf));

	return r < 0 ? r : pf_parse_u64(buf, ret);
}

static int at_i64(int dfd, const char *name, int64_t *ret)
{
	char buf[64];
	int r = at(dfd, name, buf, sizeof(buf));

	return r < 0 ? r : pf_parse_i64(buf, ret);
}

/* "@dir/@target" with "." and ".." applied lexically (".." stops at "/"). */
static char *join_norm(const char *dir, const char *target)
{
	pf_autofree char *joined = pf_xasprintf("%s/%s", dir, target);
	char *out = pf_xmalloc(strlen(joined) + 2), *o = out;

	for (const char *p = joined; *p;) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (o > out && *--o != '/')
				;
		} else if (!(len == 1 && p[0] == '.')) {
			*o++ = '/';
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	if (o == out)
		*o++ = '/';
	*o = '\0';
	return out;
}

/*
 * The canonical path of the symlink @name in directory @dirfd (which is
 * @dir under the root): its relative target resolved against @dir.  A
 * non-link or an absolute target falls back to pf_fs_realpath().
 */
static int link_at(const struct pf_fs *fs, int dirfd, const char *dir, const char *name,
		   char **ret)
{
	char target[PATH_MAX], path[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);

	if (n > 0 && target[0] != '/') {
		target[n] = '\0';
		*ret = join_norm(dir, target);
		return 0;
	}
	if (n < 0 && errno != EINVAL)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return pf_fs_realpath(fs, path, ret);
}

struct entry {
	char *name;
	char *path; /* canonical path, or NULL when the link could not be read */
	int err;
};

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void entries_free(struct entry *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(e[i].name);
		free(e[i].path);
	}
	free(e);
}

/*
 * List a directory of symlinks (/sys/bus/pci/devices, /sys/class/...) with
 * each link's canonical path, sorted by name.  A missing directory is an
 * empty list; another error fills *ret_err.
 */
static int list_links(const struct pf_fs *fs, const char *dir, struct entry **ret,
		      char **ret_err)
{
	pf_autoclosedir DIR *d = NULL;
	struct entry *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int r;

	*ret = NULL;
	r = pf_fs_opendir(fs, dir, &d);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r < 0) {
		*ret_err = pf_xasprintf("cannot list %s: %s", dir, strerror(-r));
		return r;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		PF_GROW(v, n, cap);
		v[n].name = pf_xstrdup(de->d_name);
		v[n].path = NULL;
		v[n].err = link_at(fs, dirfd(d), dir, de->d_name, &v[n].path);
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_entry);
	*ret = v;
	return (int)n;
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

/*
 * Functions whose links and CPU locality matter: bridges (the path between
 * GPUs and NICs), network and InfiniBand controllers, display controllers,
 * NVSwitch-class bridges and accelerators.  The dozens of chipset functions
 * of a server (system peripherals, USB, SATA, ...) get vendor, device,
 * class and numa_node only.
 */
static bool pci_interesting(uint32_t class)
{
	uint32_t base = class >> 16, sub = (class >> 8) & 0xff;

	return base == 0x02 || base == 0x03 || base == 0x12 || base == 0x0b ||
	       (base == 0x06 && (sub == 0x04 || sub == 0x80)) || (base == 0x0c && sub == 0x06);
}

/* PCI_ID=10DE:2330 and PCI_CLASS=30200 from the function's uevent; false if incomplete. */
static bool uevent_ids(int dfd, struct pf_pci_dev *d)
{
	char buf[1024];
	unsigned int vendor, device, class, sv, sd;
	bool have_id = false, have_class = false;
	char *line, *save = NULL;

	if (at_all(dfd, "uevent", buf, sizeof(buf)) < 0)
		return false;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n = -1;

		if (sscanf(line, "PCI_ID=%4x:%4x%n", &vendor, &device, &n) == 2 && n > 0 &&
		    !line[n])
			have_id = true;
		else if (sscanf(line, "PCI_CLASS=%6x%n", &class, &n) == 1 && n > 0 && !line[n])
			have_class = true;
		else if (sscanf(line, "PCI_SUBSYS_ID=%4x:%4x%n", &sv, &sd, &n) == 2 && n > 0 &&
			 !line[n]) {
			d->subsys_vendor = (uint16_t)sv;
			d->subsys_device = (uint16_t)sd;
		}
	}
	if (!have_id || !have_class)
		return false;
	d->vendor = (uint16_t)vendor;
	d->device = (uint16_t)device;
	d->class = class;
	return true;
}

static void load_pci_one(const struct pf_fs *fs, struct pf_pci_dev *d)
{
	pf_autoclose int dfd = dir_open(fs, d->path);
	char buf[64];
	uint64_t v;
	int64_t i;

	d->numa_node = -1;
	if (dfd < 0)
		return;
	/* uevent has vendor, device and class in one file; the single files otherwise */
	if (!uevent_ids(dfd, d)) {
		if (at_u64(dfd, "vendor", &v) == 0 && v <= 0xffff)
			d->vendor = (uint16_t)v;
		if (at_u64(dfd, "device", &v) == 0 && v <= 0xffff)
			d->device = (uint16_t)v;
		if (at_u64(dfd, "class", &v) == 0 && v <= 0xffffff)
			d->class = (uint32_t)v;
	}
	if (at_i64(dfd, "numa_node", &i) == 0 && i >= 0 && i < 4096)
		d->numa_node = (int)i;
	/* a bridge's subsystem IDs tell a Broadcom switch's level (pf_pci_bcm_gen()) */
	if ((d->class >> 8) == 0x0604 && !d->subsys_vendor) {
		if (at_u64(dfd, "subsystem_vendor", &v) == 0 && v <= 0xffff)
			d->subsys_vendor = (uint16_t)v;
		if (at_u64(dfd, "subsystem_device", &v) == 0 && v <= 0xffff)
			d->subsys_device = (uint16_t)v;
	}
	if (!pci_interesting(d->class) && d->numa_node >= 0)
		return;
	d->local_cpulist = at_dup(dfd, "local_cpulist");
	if (!pci_interesting(d->class))
		return;
	if (at(dfd, "current_link_speed", buf, sizeof(buf)) >= 0)
		pf_parse_pci_speed(buf, &d->cur_speed_gts);
	if (at(dfd, "max_link_speed", buf, sizeof(buf)) >= 0)
		pf_parse_pci_speed(buf, &d->max_speed_gts);
	if (at(dfd, "current_link_width", buf, sizeof(buf)) >= 0)
		pf_parse_pci_width(buf, &d->cur_width);
	if (at(dfd, "max_link_width", buf, sizeof(buf)) >= 0)
		pf_parse_pci_width(buf, &d->max_width);
}

static int load_pci(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	struct entry *e = NULL;
	size_t n_gpus = 0;
	int n;

	n = list_links(fs, SYS_PCI, &e, ret_err);
	if (n < 0)
		return n;
	node->pci = pf_xcalloc((size_t)n + 1, sizeof(*node->pci));
	for (int k = 0; k < n; k++) {
		struct pf_pci_dev *d = &node->pci[node->n_pci];

		if (!pf_is_bdf(e[k].name)) {
			pf_node_note(node, "%s/%s: not a PCI address, skipped", SYS_PCI, e[k].name);
			continue;
		}
		snprintf(d->bdf, sizeof(d->bdf), "%s", e[k].name);
		d->parent = -1;
		if (e[k].err < 0) {
			pf_node_note(node, "%s: cannot resolve %s/%s: %s", d->bdf, SYS_PCI, d->bdf,
				     strerror(-e[k].err));
			d->path = pf_xasprintf("%s/%s", SYS_PCI, d->bdf);
		} else {
			d->path = PF_TAKE_PTR(e[k].path);
		}
		load_pci_one(fs, d);
		node->n_pci++;
	}
	entries_free(e, (size_t)n);

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

	n = pf_fs_list(fs, SYS_NODE, &names);
	if (n == -ENOENT || n == -ENOTDIR)
		return 0;
	if (n < 0) {
		*ret_err = pf_xasprintf("cannot list %s: %s", SYS_NODE, strerror(-n));
		return n;
	}
	node->numa = pf_xcalloc((size_t)n + 1, sizeof(*node->numa));
	for (int k = 0; k < n; k++) {
		const char *s = names[k];
		struct pf_numa *m = &node->numa[node->n_numa];

		if (strncmp(s, "node", 4) || !s[4] || strspn(s + 4, "0123456789") != strlen(s + 4) ||
		    strlen(s + 4) > 4)
			continue;
		m->id = atoi(s + 4);
		m->cpulist = attr_dup(fs, SYS_NODE "/%s/cpulist", s);
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

	if (pf_parse_state_line(line, ret_num, name, sizeof(name)) < 0) {
		*ret_num = 0;
		return pf_xstrdup(line);
	}
	return pf_xstrdup(name);
}

/* active_mtu in a snapshot: bytes ("4096") or the verbs enum ("5"). */
static int parse_mtu(const char *line)
{
	uint64_t v;

	if (pf_parse_u64(line, &v) < 0)
		return 0;
	if (v >= 1 && v <= 5)
		return 128 << v;
	if (v == 256 || v == 512 || v == 1024 || v == 2048 || v == 4096)
		return (int)v;
	return 0;
}

/* @dir: the device's canonical directory (.../infiniband/<dev>). */
static void load_port(const struct pf_fs *fs, const char *dir, struct pf_rdma_port *p)
{
	char buf[128], rbuf[ATTR_MAX + 1], path[PATH_MAX];
	struct pf_ib_rate rate;
	pf_autoclose int dfd = -1;

	p->netdev = -1;
	snprintf(path, sizeof(path), "%s/ports/%u", dir, p->num);
	dfd = dir_open(fs, path);
	if (dfd < 0) {
		p->rate_err = dfd;
		return;
	}
	if (at(dfd, "state", buf, sizeof(buf)) >= 0)
		p->state_name = state_name(buf, &p->state);
	if (at(dfd, "phys_state", buf, sizeof(buf)) >= 0)
		p->phys_state_name = state_name(buf, &p->phys_state);
	p->rate_err = at(dfd, "rate", rbuf, sizeof(rbuf));
	if (p->rate_err >= 0) {
		p->rate = pf_xstrdup(rbuf);
		p->rate_err = 0;
	}
	if (p->rate && pf_parse_ib_rate(p->rate, &rate) == 0) {
		p->rate_gbps = rate.gbps;
		p->width = rate.width;
		p->speed_name = pf_xstrdup(rate.speed);
	}
	if (at(dfd, "link_layer", buf, sizeof(buf)) >= 0) {
		if (!strcmp(buf, "InfiniBand"))
			p->link_layer = PF_LINK_IB;
		else if (!strcmp(buf, "Ethernet"))
			p->link_layer = PF_LINK_ETH;
	}
	if (at(dfd, "active_mtu", buf, sizeof(buf)) >= 0)
		p->active_mtu = parse_mtu(buf);
}

static int cmp_port(const void *a, const void *b)
{
	const struct pf_rdma_port *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

/* The PCI function behind an RDMA device: its directory's "device" link. */
static int rdma_parent(const struct pf_fs *fs, const char *dir, char **ret)
{
	int fd = pf_fs_open_file(fs, dir, O_PATH | O_DIRECTORY);
	int r;

	if (fd < 0)
		return fd;
	r = link_at(fs, fd, dir, "device", ret);
	close(fd);
	return r;
}

static int load_rdma_one(const struct pf_fs *fs, struct pf_node *node, const struct entry *e,
			 struct pf_rdma_dev *d, char **ret_err)
{
	pf_autostrv char **ports = NULL;
	pf_autofree char *dpath = NULL, *dir = NULL;
	const char *name = e->name;
	char bdfs[32][16], path[PATH_MAX];
	int n, r, nb = 0;

	d->name = pf_xstrdup(name);
	d->pci = -1;
	dir = e->err < 0 ? pf_xasprintf(SYS_IB "/%s", name) : pf_xstrdup(e->path);
	r = e->err < 0 ? e->err : rdma_parent(fs, dir, &dpath);
	if (r == 0)
		nb = pf_pci_path_bdfs(dpath, bdfs, PF_ARRAY_SIZE(bdfs), NULL);
	if (nb > 0 && nb <= (int)PF_ARRAY_SIZE(bdfs) && pf_is_bdf(strrchr(dpath, '/') + 1)) {
		d->pci = find_pci_sorted(node, bdfs[nb - 1]);
		if (d->pci < 0)
			pf_node_note(node, "%s: PCI function %s is not in %s", name, bdfs[nb - 1],
				     SYS_PCI);
	} else {
		pf_node_note(node, "%s: no PCI parent (%s), not a PCI RDMA device", name,
			     r < 0 ? strerror(-r) : dpath);
	}
	d->hca_type = attr_dup(fs, "%s/hca_type", dir);
	d->board_id = attr_dup(fs, "%s/board_id", dir);

	snprintf(path, sizeof(path), "%s/ports", dir);
	n = pf_fs_list(fs, path, &ports);
	if (n < 0) {
		if (d->pci < 0)
			return 0; /* the note above says why */
		if (n != -ENOENT) {
			*ret_err = pf_xasprintf("cannot list %s/ports: %s", dir, strerror(-n));
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
		load_port(fs, dir, &d->ports[d->n_ports]);
		d->n_ports++;
	}
	qsort(d->ports, d->n_ports, sizeof(*d->ports), cmp_port);
	return 0;
}

static int load_rdma(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	struct entry *e = NULL;
	int n, r = 0;

	n = list_links(fs, SYS_IB, &e, ret_err);
	if (n < 0)
		return n;
	node->rdma = pf_xcalloc((size_t)n + 1, sizeof(*node->rdma));
	for (int k = 0; k < n && r == 0; k++)
		r = load_rdma_one(fs, node, &e[k], &node->rdma[node->n_rdma++], ret_err);
	entries_free(e, (size_t)n);
	return r;
}

/* --- netdevs ------------------------------------------------------------- */

static int load_netdevs(const struct pf_fs *fs, struct pf_node *node, char **ret_err)
{
	pf_autostrv char **names = NULL;
	int n;

	n = pf_fs_list(fs, SYS_NET, &names);
	if (n == -ENOENT || n == -ENOTDIR)
		return 0;
	if (n < 0) {
		*ret_err = pf_xasprintf("cannot list %s: %s", SYS_NET, strerror(-n));
		return n;
	}
	node->netdevs = pf_xcalloc((size_t)n + 1, sizeof(*node->netdevs));
	for (int k = 0; k < n; k++) {
		struct pf_netdev *nd = &node->netdevs[node->n_netdevs++];
		char path[PATH_MAX];
		pf_autoclose int dfd = -1;
		int64_t v;

		nd->name = pf_xstrdup(names[k]);
		nd->rdma_dev = -1;
		nd->speed_mbps = -1;
		nd->mtu = -1;
		snprintf(path, sizeof(path), SYS_NET "/%s", names[k]);
		dfd = dir_open(fs, path);
		if (dfd < 0)
			continue;
		/* a down link fails the read with EINVAL; an up one without carrier says -1 */
		if (at_i64(dfd, "speed", &v) == 0 && v >= 0 && v != 0xffffffffLL)
			nd->speed_mbps = v;
		if (at_i64(dfd, "mtu", &v) == 0 && v >= 0)
			nd->mtu = v;
		nd->operstate = at_dup(dfd, "operstate");
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
			char ndev[IF_NAMESIZE + 32];
			int nd = -1;

			/* IB GIDs have no netdev (IPoIB is found below); skip the failing read */
			if (p->link_layer != PF_LINK_IB &&
			    attr(fs, ndev, sizeof(ndev), SYS_IB "/%s/ports/%u/gid_attrs/ndevs/0",
				 d->name, p->num) > 0)
				nd = netdev_index(node, ndev);
			if (nd >= 0) {
				link_port(node, k, p, nd);
				continue;
			}
			if (d->pci < 0)
				continue;
			if (n_fn < 0) {
				char path[PATH_MAX];

				snprintf(path, sizeof(path), "%s/net", node->pci[d->pci].path);
				n_fn = pf_fs_list(fs, path, &fn_nets);
				n_fn = n_fn < 0 ? 0 : n_fn;
			}
			for (int j = 0; j < n_fn && nd < 0; j++) {
				uint64_t dp;

				if (attr_u64(fs, &dp, SYS_NET "/%s/dev_port", fn_nets[j]) < 0 &&
				    attr_u64(fs, &dp, SYS_NET "/%s/dev_id", fn_nets[j]) < 0)
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
	pf_node_netdev_links(fs, node);
	pf_node_classify_links(node);
	*ret = PF_TAKE_PTR(node);
	return 0;
}
