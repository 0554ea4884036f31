// SPDX-License-Identifier: MIT
/*
 * node_hwloc.c - the node inventory from an lstopo XML export, through
 * hwloc, into the same model the sysfs loader fills.
 *
 * Each PCI function gets a synthesised canonical path built from its bridge
 * chain, "/sys/devices/pci<domain>:<bus>/<bridge>/.../<bdf>", so that the
 * PCI path classifier treats sysfs and hwloc inventories alike.  A
 * function's NUMA node is the single NUMA node of its non-I/O ancestor (-1
 * when there is none or several) and its local CPUs are that ancestor's
 * cpuset.  OpenFabrics OS devices are the RDMA devices (ports from the
 * Port<i>State / Port<i>LID infos the Linux backend records), network OS
 * devices the netdevs.  An export carries no PCIe link speed or width, no
 * port rate, width or MTU: those stay unknown (0), and a note says so.
 *
 * Only the XML is read: the CUDA, NVML, OpenCL, RSMI, Level Zero and GL
 * components are blacklisted so that nothing of the host this runs on leaks
 * into the model.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <hwloc.h>

#include "preflight/node.h"
#include "clock.h"

PF_DEFINE_AUTO(topology_destroy, hwloc_topology_t, hwloc_topology_destroy)
#define pf_autotopo PF_CLEANUP(pf_topology_destroyp)

/* Largest export read into memory (a 16-GPU node's is under 1 MiB). */
#define XML_MAX (64u << 20)

/* Longest bridge chain we follow above a function. */
#define CHAIN_MAX 32

static const char *const blacklist[] = {
	"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl",
};

static bool osdev_is(hwloc_obj_t o, bool openfabrics)
{
#if HWLOC_API_VERSION >= 0x00030000
	return o->attr->osdev.types & (openfabrics ? HWLOC_OBJ_OSDEV_OPENFABRICS
						   : HWLOC_OBJ_OSDEV_NETWORK);
#else
	return o->attr->osdev.type == (openfabrics ? HWLOC_OBJ_OSDEV_OPENFABRICS
						   : HWLOC_OBJ_OSDEV_NETWORK);
#endif
}

static bool is_pci_function(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_PCI_DEVICE ||
	       (o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI);
}

static void format_bdf(hwloc_obj_t o, char out[16])
{
	snprintf(out, 16, "%04x:%02x:%02x.%x", o->attr->pcidev.domain, o->attr->pcidev.bus,
		 o->attr->pcidev.dev, o->attr->pcidev.func);
}

/* Read all of @fd, NUL-terminated; -EFBIG past XML_MAX. */
static int read_all(int fd, char **ret, size_t *ret_len)
{
	return pf_fs_read_fd(fd, XML_MAX, ret, ret_len);
}

/*
 * The version attribute of the <topology> element ("2.0", "3.0") into @out,
 * "" when there is none (hwloc 1.x wrote none).  Returns a pointer to the
 * value in @xml, or NULL.
 */
static char *xml_version(char *xml, char *out, size_t len)
{
	char *p = strstr(xml, "<topology"), *end;
	size_t k = 0;

	out[0] = '\0';
	if (!p)
		return NULL;
	end = strchr(p, '>');
	p = strstr(p, " version=\"");
	if (!p || (end && p > end))
		return NULL;
	p += strlen(" version=\"");
	while (p[k] && p[k] != '"' && k + 1 < len) {
		out[k] = p[k];
		k++;
	}
	out[k] = '\0';
	return p;
}

/* hwloc 3 OS device type bits, and the hwloc 2 type each maps to (first match wins). */
static const struct {
	unsigned long bit;
	int v2;
} osdev_v3[] = {
	{ 1UL << 5, 3 }, /* OPENFABRICS (mlx5_0 is NETWORK|OPENFABRICS) */
	{ 1UL << 4, 2 }, /* NETWORK */
	{ 1UL << 3, 5 }, /* COPROC (nvml0 is GPU|COPROC) */
	{ 1UL << 2, 1 }, /* GPU */
	{ 1UL << 6, 4 }, /* DMA */
	{ 1UL << 1, 0 }, /* MEMORY: hwloc 2 calls dax devices BLOCK */
	{ 1UL << 0, 0 }, /* STORAGE */
};

/*
 * hwloc 3 exports (XML 3.0) differ from 2.x ones in what this loader needs
 * only by osdev_type, a bitmask there.  Rewrite the version to 2.0 and each
 * osdev_type to its hwloc 2 value; the rest (extra attributes, a topology
 * <info>) hwloc 2 ignores.  Returns a new buffer.
 */
static char *downgrade_v3(const char *xml, size_t len)
{
	static const char attr[] = "osdev_type=\"";
	char *out = pf_xmalloc(len + 1), *o = out, ver[8];
	const char *p = xml, *hit;
	char *v;

	while ((hit = strstr(p, attr))) {
		unsigned long bits;
		char *end;
		int v2 = 0;

		hit += strlen(attr);
		memcpy(o, p, (size_t)(hit - p));
		o += hit - p;
		bits = strtoul(hit, &end, 10);
		if (end == hit) {
			/* no number: left as it is (a '0' here would outgrow the buffer) */
			p = hit;
			continue;
		}
		for (size_t i = 0; i < PF_ARRAY_SIZE(osdev_v3); i++)
			if (bits & osdev_v3[i].bit) {
				v2 = osdev_v3[i].v2;
				break;
			}
		*o++ = (char)('0' + v2); /* never longer than the bitmask it replaces */
		p = end;
	}
	strcpy(o, p);
	v = xml_version(out, ver, sizeof(ver));
	if (v && v[0] == '3')
		v[0] = '2';
	return out;
}

static char *load_error(const char *path, const char *ver, int err)
{
	if (ver[0] && strtoul(ver, NULL, 10) > HWLOC_API_VERSION >> 16)
		return pf_xasprintf("%s: lstopo XML version %s comes from a newer hwloc than the "
				    "one this build uses, which reads XML versions up to %u.x (and "
				    "3.0); export the topology with hwloc %u (lstopo --of xml FILE)",
				    path, ver, HWLOC_API_VERSION >> 16, HWLOC_API_VERSION >> 16);
	return pf_xasprintf("%s: hwloc cannot read this file as an lstopo XML export%s%s",
			    path, err ? ": " : "", err ? strerror(err) : "");
}

/* The NUMA node and local CPUs of an I/O object, from its non-I/O ancestor. */
static void locality(hwloc_topology_t topo, hwloc_obj_t o, struct pf_pci_dev *d)
{
	hwloc_obj_t a = hwloc_get_non_io_ancestor_obj(topo, o);
	char *list = NULL;

	d->numa_node = -1;
	if (!a)
		return;
	if (a->nodeset && hwloc_bitmap_weight(a->nodeset) == 1)
		d->numa_node = hwloc_bitmap_first(a->nodeset);
	if (a->cpuset && !hwloc_bitmap_iszero(a->cpuset) &&
	    hwloc_bitmap_list_asprintf(&list, a->cpuset) >= 0) {
		d->local_cpulist = pf_xstrdup(list);
		free(list);
	}
}

/*
 * "/sys/devices/pci<dom>:<bus>/<bdf>/.../<bdf>" from the bridges above @o.
 * The root is the host bridge's secondary bus, as Linux names it; without a
 * host bridge object, the bus of the topmost function.
 */
static char *synth_path(hwloc_obj_t o)
{
	hwloc_obj_t chain[CHAIN_MAX];
	size_t n = 0, len;
	char root[24] = "", buf[CHAIN_MAX * 16 + 64];

	for (hwloc_obj_t p = o; p && n < CHAIN_MAX; p = p->parent) {
		if (p->type != HWLOC_OBJ_BRIDGE && p->type != HWLOC_OBJ_PCI_DEVICE)
			break;
		if (!is_pci_function(p)) {
			snprintf(root, sizeof(root), "pci%04x:%02x",
				 p->attr->bridge.downstream.pci.domain,
				 p->attr->bridge.downstream.pci.secondary_bus);
			break;
		}
		chain[n++] = p;
	}
	if (!root[0])
		snprintf(root, sizeof(root), "pci%04x:%02x", chain[n - 1]->attr->pcidev.domain,
			 chain[n - 1]->attr->pcidev.bus);
	len = (size_t)snprintf(buf, sizeof(buf), "/sys/devices/%s", root);
	while (n > 0) {
		char bdf[16];

		format_bdf(chain[--n], bdf);
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "/%s", bdf);
	}
	return pf_xstrdup(buf);
}

/* PCI functions in BDF order; equal BDFs (only synthetic exports have them) by hwloc index. */
static int cmp_obj(const void *a, const void *b)
{
	hwloc_obj_t x = *(hwloc_obj_t const *)a, y = *(hwloc_obj_t const *)b;
	const struct hwloc_pcidev_attr_s *p = &x->attr->pcidev, *q = &y->attr->pcidev;

	if (p->domain != q->domain)
		return p->domain < q->domain ? -1 : 1;
	if (p->bus != q->bus)
		return p->bus < q->bus ? -1 : 1;
	if (p->dev != q->dev)
		return p->dev < q->dev ? -1 : 1;
	if (p->func != q->func)
		return p->func < q->func ? -1 : 1;
	return x->gp_index < y->gp_index ? -1 : x->gp_index > y->gp_index;
}

/* Index in node->pci of a PCI function object (set in its userdata by load_pci), or -1. */
static int pci_index(hwloc_obj_t o)
{
	if (!o || !is_pci_function(o) || !o->userdata)
		return -1;
	return (int)((uintptr_t)o->userdata - 1);
}

static void load_pci(hwloc_topology_t topo, struct pf_node *node)
{
	pf_autofree hwloc_obj_t *objs = NULL;
	size_t n = 0, n_gpus = 0;

	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));)
		n++;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_bridge(topo, o));)
		n++;
	objs = pf_xcalloc(n + 1, sizeof(*objs));
	n = 0;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_pcidev(topo, o));)
		objs[n++] = o;
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_bridge(topo, o));)
		if (is_pci_function(o))
			objs[n++] = o;
	qsort(objs, n, sizeof(*objs), cmp_obj);

	node->pci = pf_xcalloc(n + 1, sizeof(*node->pci));
	for (size_t k = 0; k < n; k++) {
		struct pf_pci_dev *d = &node->pci[k];
		hwloc_obj_t o = objs[k];

		format_bdf(o, d->bdf);
		d->path = synth_path(o);
		d->vendor = o->attr->pcidev.vendor_id;
		d->device = o->attr->pcidev.device_id;
		if (o->type == HWLOC_OBJ_BRIDGE) {
			d->subsys_vendor = o->attr->bridge.upstream.pci.subvendor_id;
			d->subsys_device = o->attr->bridge.upstream.pci.subdevice_id;
		}
		d->class = (uint32_t)o->attr->pcidev.class_id << 8;
		locality(topo, o, d);
		o->userdata = (void *)(uintptr_t)(k + 1);
	}
	node->n_pci = n;

	node->gpus = pf_xcalloc(n + 1, sizeof(*node->gpus));
	for (size_t k = 0; k < n; k++) {
		struct pf_pci_dev *d = &node->pci[k];

		d->parent = pci_index(objs[k]->parent);
		if (d->vendor == PF_PCI_VENDOR_NVIDIA &&
		    ((d->class >> 8) == 0x0300 || (d->class >> 8) == 0x0302))
			node->gpus[n_gpus++].pci = (int)k;
	}
	node->n_gpus = n_gpus;
}

static const char *const port_states[] = {
	[1] = "DOWN", [2] = "INIT", [3] = "ARMED", [4] = "ACTIVE", [5] = "ACTIVE_DEFER",
};

static void load_ports(hwloc_obj_t o, const struct pf_pci_dev *pci, struct pf_rdma_dev *d)
{
	unsigned int max = 0;

	for (unsigned int i = 0; i < o->infos_count; i++) {
		unsigned int p;
		int end = 0;

		if (sscanf(o->infos[i].name, "Port%uState%n", &p, &end) == 1 &&
		    o->infos[i].name[end] == '\0' && p > max && p < 256)
			max = p;
	}
	if (max == 0)
		return;
	d->ports = pf_xcalloc(max, sizeof(*d->ports));
	d->n_ports = max;
	for (unsigned int p = 1; p <= max; p++) {
		struct pf_rdma_port *port = &d->ports[p - 1];
		char key[32];
		const char *v;

		port->num = p;
		port->netdev = -1;
		snprintf(key, sizeof(key), "Port%uState", p);
		v = hwloc_obj_get_info_by_name(o, key);
		if (v) {
			long s = strtol(v, NULL, 10);

			if (s > 0 && s < (long)PF_ARRAY_SIZE(port_states)) {
				port->state = (int)s;
				port->state_name = pf_xstrdup(port_states[s]);
			}
		}
		/*
		 * The export has no link layer: the PCI class says how the port is
		 * configured (0x0207 InfiniBand controller, 0x0c06 InfiniBand
		 * serial bus, 0x0200 Ethernet).
		 */
		if (pci && (pci->class >> 8 == 0x0207 || pci->class >> 8 == 0x0c06))
			port->link_layer = PF_LINK_IB;
		else if (pci && pci->class >> 8 == 0x0200)
			port->link_layer = PF_LINK_ETH;
	}
}

static void load_osdevs(hwloc_topology_t topo, struct pf_node *node)
{
	size_t n_rdma = 0, n_net = 0;

	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
		if (osdev_is(o, true))
			n_rdma++;
		else if (osdev_is(o, false))
			n_net++;
	}
	node->rdma = pf_xcalloc(n_rdma + 1, sizeof(*node->rdma));
	node->netdevs = pf_xcalloc(n_net + 1, sizeof(*node->netdevs));
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
		struct pf_rdma_dev *d;
		int pci;

		if (!osdev_is(o, true) || !o->name)
			continue;
		pci = pci_index(o->parent);
		if (pci < 0) {
			pf_node_note(node, "%s: RDMA device without a PCI parent, skipped", o->name);
			continue;
		}
		d = &node->rdma[node->n_rdma++];
		d->name = pf_xstrdup(o->name);
		d->pci = pci;
		load_ports(o, &node->pci[pci], d);
	}
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
		struct pf_netdev *nd;
		const char *port;
		int pci;

		if (!osdev_is(o, false) || osdev_is(o, true) || !o->name)
			continue;
		nd = &node->netdevs[node->n_netdevs];
		nd->name = pf_xstrdup(o->name);
		nd->rdma_dev = -1;
		nd->speed_mbps = -1;
		nd->mtu = -1;
		pci = pci_index(o->parent);
		port = hwloc_obj_get_info_by_name(o, "Port");
		for (size_t r = 0; pci >= 0 && r < node->n_rdma; r++) {
			struct pf_rdma_dev *d = &node->rdma[r];
			unsigned long p = port ? strtoul(port, NULL, 10) : 1;

			if (d->pci != pci)
				continue;
			nd->rdma_dev = (int)r;
			if (p >= 1 && p <= d->n_ports) {
				nd->port = (unsigned int)p;
				d->ports[p - 1].netdev = (int)node->n_netdevs;
			}
			break;
		}
		node->n_netdevs++;
	}
}

/*
 * OS devices that the NVIDIA driver's libraries create under a GPU (hwloc's
 * cuda and nvml components): their presence in an export proves the driver
 * was loaded when it was taken.
 */
static void load_gpu_osdevs(hwloc_topology_t topo, struct pf_node *node)
{
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_osdev(topo, o));) {
		int pci;

		if (!o->name || (strncmp(o->name, "cuda", 4) && strncmp(o->name, "nvml", 4)))
			continue;
		pci = pci_index(o->parent);
		for (size_t i = 0; pci >= 0 && i < node->n_gpus; i++)
			if (node->gpus[i].pci == pci && !node->gpus[i].driver_osdev[0])
				snprintf(node->gpus[i].driver_osdev,
					 sizeof(node->gpus[i].driver_osdev), "%s", o->name);
	}
}

static void load_numa(hwloc_topology_t topo, struct pf_node *node)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

	if (n <= 0)
		return;
	node->numa = pf_xcalloc((size_t)n, sizeof(*node->numa));
	for (hwloc_obj_t o = NULL; (o = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, o));) {
		struct pf_numa *m = &node->numa[node->n_numa++];
		char *list = NULL;

		m->id = (int)o->os_index;
		if (o->cpuset && hwloc_bitmap_list_asprintf(&list, o->cpuset) >= 0) {
			m->cpulist = pf_xstrdup(list);
			free(list);
		} else {
			m->cpulist = pf_xstrdup("");
		}
	}
}

static int fail(char **ret_err, char *err, int r)
{
	if (ret_err)
		*ret_err = err;
	else
		free(err);
	return r;
}

/* How long hwloc may take to import one export in the probe child. */
#define PROBE_TIMEOUT_MS 20000

/*
 * hwloc parses the XML in the process that asks, and this runs in the
 * parent, before any check and outside the runner's isolation.  libhwloc
 * 2.9 dereferences NULL on some malformed exports (found by
 * tests/fuzz/fuzz_hwloc_xml; hwloc's own reader, used when the libxml2
 * plugin is not installed), which would take preflight down with no
 * report.  So hwloc first imports the buffer in a forked child: a crash or
 * a hang there is an error naming the file, and only an import that
 * completed is repeated here.  0, or -EIO / -ETIME with *ret_err.
 */
static int probe_import(const char *buf, size_t len, const char *path, char **ret_err)
{
	static const int dfl_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS,
					   SIGABRT, SIGFPE, SIGILL };
	struct timespec nap = { 0, 1000000 };
	pid_t pid, w, parent = getpid();
	double t0;
	int status = 0;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 0; /* cannot isolate it: import it here as before */
	if (pid == 0) {
		hwloc_topology_t t;
		sigset_t none;

		/* the check children's lifecycle (src/runner/runner.c): own group, default
		 * handlers, and never outliving preflight, even one killed with SIGKILL */
		setpgid(0, 0);
		for (size_t i = 0; i < PF_ARRAY_SIZE(dfl_signals); i++)
			signal(dfl_signals[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(0); /* the parent died before the request took effect */
		if (hwloc_topology_init(&t) < 0)
			_exit(0); /* the real import will say so */
		for (size_t i = 0; i < PF_ARRAY_SIZE(blacklist); i++)
			hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
						      blacklist[i]);
		hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
		if (hwloc_topology_set_xmlbuffer(t, buf, (int)len + 1) == 0)
			hwloc_topology_load(t);
		_exit(0);
	}
	t0 = pf_now_ms();
	while ((w = waitpid(pid, &status, WNOHANG)) == 0) {
		if (pf_now_ms() - t0 > PROBE_TIMEOUT_MS) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return fail(ret_err, pf_xasprintf("%s: hwloc did not finish reading it in %d s",
							  path, PROBE_TIMEOUT_MS / 1000), -ETIME);
		}
		nanosleep(&nap, NULL);
	}
	if (w == pid && WIFSIGNALED(status))
		return fail(ret_err, pf_xasprintf("%s: hwloc crashed reading it (signal %d): not a "
						  "usable lstopo XML export", path, WTERMSIG(status)),
			    -EIO);
	return 0;
}

int pf_node_load_hwloc(const struct pf_fs *fs, const char *xml_path, struct pf_node **ret,
		       char **ret_err)
{
	pf_autotopo hwloc_topology_t topo = NULL;
	pf_autonode struct pf_node *node = NULL;
	pf_autofree char *xml = NULL, *v2 = NULL;
	pf_autoclose int fd = -1;
	unsigned long major;
	char ver[16];
	size_t len = 0, root_len;
	int r;

	/*
	 * The path is in the host filesystem (see node.h), except a snapshot's
	 * own <root>/preflight/topology.xml: that one is opened through the
	 * root like every file in it, so a link in it cannot point out of the
	 * snapshot and a FIFO cannot block.
	 */
	root_len = fs && !pf_fs_is_live(fs) ? strlen(pf_fs_root(fs)) : 0;
	if (root_len && !strncmp(xml_path, pf_fs_root(fs), root_len) && xml_path[root_len] == '/') {
		fd = pf_fs_open_file(fs, xml_path + root_len, 0);
	} else {
		/* a regular file, opened O_NONBLOCK: a FIFO is an error, never a hang */
		struct stat st = { 0 };

		fd = open(xml_path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		else if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			fd = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
			return fail(ret_err, pf_xasprintf("%s: cannot read the topology: not a "
							  "regular file", xml_path), fd);
		}
	}
	r = fd < 0 ? fd : read_all(fd, &xml, &len);
	if (r < 0)
		return fail(ret_err, pf_xasprintf("%s: cannot read the topology: %s", xml_path,
						  strerror(-r)), r);
	xml_version(xml, ver, sizeof(ver));
	major = strtoul(ver, NULL, 10);
	if (major == 3 && HWLOC_API_VERSION >> 16 == 2) {
		v2 = downgrade_v3(xml, len);
		len = strlen(v2);
	} else if (major > HWLOC_API_VERSION >> 16 || len > INT_MAX - 1) {
		return fail(ret_err, load_error(xml_path, ver, 0), -EINVAL);
	}

	r = probe_import(v2 ? v2 : xml, len, xml_path, ret_err);
	if (r < 0)
		return r;
	if (hwloc_topology_init(&topo) < 0) {
		topo = NULL;
		return fail(ret_err, pf_xasprintf("%s: cannot initialise hwloc", xml_path), -ENOMEM);
	}
	for (size_t i = 0; i < PF_ARRAY_SIZE(blacklist); i++)
		hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
					      blacklist[i]);
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	errno = 0;
	if (hwloc_topology_set_xmlbuffer(topo, v2 ? v2 : xml, (int)len + 1) < 0 ||
	    hwloc_topology_load(topo) < 0)
		return fail(ret_err, load_error(xml_path, ver, errno == EINVAL ? 0 : errno),
			    -EINVAL);

	node = pf_node_new("hwloc");
	node->lacks = PF_NODE_NO_PORT_RATES | PF_NODE_NO_PORT_LIST | PF_NODE_NO_PORT_COUNTERS |
		      PF_NODE_NO_LINK_ATTRS | PF_NODE_NO_IOMMU;
	load_numa(topo, node);
	load_pci(topo, node);
	load_osdevs(topo, node);
	pf_node_netdev_links(fs, node); /* the root's sysfs beside the export, when it has one */
	pf_node_classify_links(node);
	load_gpu_osdevs(topo, node);
	if (v2)
		pf_node_note(node, "%s: an hwloc 3 export (XML %s), read by hwloc %u as XML 2.0 "
			     "with its OS device types translated", xml_path, ver,
			     HWLOC_API_VERSION >> 16);
	pf_node_note(node, "%s: an lstopo export has no PCIe link speeds or widths and no port "
		     "rates, widths, physical states or MTUs; link layers come from the PCI class",
		     xml_path);
	*ret = PF_TAKE_PTR(node);
	return 0;
}
