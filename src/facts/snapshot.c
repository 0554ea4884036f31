// SPDX-License-Identifier: MIT
/*
 * snapshot.c - write a recorded root: the files the checks read, and the
 * provider facts that are not files (docs/snapshot.md, "Writing a snapshot"),
 * which the pf_record_*() functions beside their recorded readers write
 * through this file's sink (src/facts/record.h, record_facts() below).
 *
 * The paths are one table, snap_rules[] below: a pattern per line whose
 * components may hold fnmatch(3) wildcards with extended patterns
 * ("@(a|b)"), and what to do with each match (copy the file, recreate the
 * link and its target directory, or copy a small tree).  Add a line there
 * when a check starts reading a new file.
 *
 * Every source path is mirrored component by component: a symlink in the
 * source (sysfs's relative links: /sys/class/net/eth0 ->
 * ../../devices/pci0000:00/.../net/eth0) is recreated with the same target
 * in the snapshot and the walk continues at its target, so each file lands
 * at its canonical place once and every link a check follows resolves the
 * same way under --root.  Links under /proc (self, thread-self) are magic
 * and become plain directories.  Regular files are copied by reading them
 * to EOF (sysfs reports 4096 bytes for every attribute).  A cache of the
 * mirrored prefixes keeps the walk at one readlink per directory.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preflight/nccl_conf.h"
#include "output.h"
#include "preflight/strbuf.h"
#include "record.h"
#include "snapshot.h"
#include "strmap.h"

#define SNAP_MAX_FILE (4u << 20)

/* Values of struct snap.seen: what a canonical relative path already is in the snapshot. */
enum { SEEN_DIR, SEEN_FILE, SEEN_LINK /* + index into targets */ };

struct snap {
	const struct pf_fs *src;
	int dfd;
	struct pf_strmap seen;
	char **targets;
	size_t n_targets, cap_targets;
	char *log;
	size_t log_len;
	FILE *logf;
	struct pf_snapshot_stats st;
};

enum snap_kind {
	SNAP_FILE, /* copy each matching regular file (directories are ignored) */
	SNAP_LINK, /* recreate each matching symlink chain; create its target directory */
	SNAP_TREE, /* copy each matching directory, SNAP_TREE_DEPTH levels deep */
};

#define SNAP_TREE_DEPTH 3

enum snap_flags {
	SNAP_QUIET = 1 << 0, /* read errors are normal here (unused GID slots): not logged */
};

struct snap_rule {
	const char *pattern;
	enum snap_kind kind;
	unsigned int flags;
	/* optional: copy only the matches it accepts */
	bool (*want)(struct snap *s, const char *path);
	/* optional: called after a match was copied */
	void (*after)(struct snap *s, const char *path);
};

static bool want_pci_config(struct snap *s, const char *path);
static void after_gid(struct snap *s, const char *path);

#define PCI "/sys/bus/pci/devices/*/"
#define IB "/sys/class/infiniband/*/"
#define IBPORT IB "ports/*/"

/* What a snapshot holds.  Keep it to what checks and inventory read. */
#define R_FILE(p) { .pattern = (p), .kind = SNAP_FILE }
#define R_LINK(p) { .pattern = (p), .kind = SNAP_LINK }
#define R_TREE(p) { .pattern = (p), .kind = SNAP_TREE }

static const struct snap_rule snap_rules[] = {
	/* PCI functions, bridges included (each is in /sys/bus/pci/devices too) */
	R_FILE(PCI "@(vendor|device|class|subsystem_vendor|subsystem_device|revision)"),
	R_FILE(PCI "@(numa_node|local_cpulist|local_cpus)"),
	R_FILE(PCI "@(current_link_speed|max_link_speed|current_link_width|max_link_width)"),
	/* PCIe AER statistics (pcie_aer; absent where AER is not enabled) */
	R_FILE(PCI "@(aer_dev_correctable|aer_dev_nonfatal|aer_dev_fatal)"),
	{ .pattern = PCI "config", .kind = SNAP_FILE, .want = want_pci_config },
	R_LINK(PCI "driver"),
	R_LINK(PCI "iommu_group"),
	/* RDMA devices and ports */
	R_LINK(IB "device"),
	R_FILE(IB "@(node_type|node_guid|sys_image_guid|fw_ver|hca_type|board_id|node_desc)"),
	R_FILE(IBPORT "@(state|phys_state|rate|link_layer|lid|sm_lid|cap_mask|active_mtu)"),
	R_FILE(IBPORT "counters/*"),
	R_FILE(IBPORT "hw_counters/*"),
	R_FILE(IBPORT "gids/0"),
	{ .pattern = IBPORT "gid_attrs/ndevs/*", .kind = SNAP_FILE, .flags = SNAP_QUIET,
	  .after = after_gid },
	/* netdevs */
	R_LINK("/sys/class/net/*/device"),
	R_FILE("/sys/class/net/*/@(type|ifindex|address|mtu|operstate|carrier|speed|duplex)"),
	R_FILE("/sys/class/net/*/@(dev_port|dev_id)"),
	R_FILE("/sys/class/net/*/bonding/@(slaves|mode)"),
	R_FILE("/sys/class/net/*/ecn/@(roce_np|roce_rp)/enable/*"),
	R_FILE("/sys/class/net/*/ecn/roce_np/@(cnp_dscp|cnp_802p_prio)"),
	R_LINK("/sys/class/net/*/lower_*"),
	/* NUMA */
	R_FILE("/sys/devices/system/node/@(online|possible|has_cpu)"),
	R_FILE("/sys/devices/system/node/node*/@(cpulist|cpumap|distance)"),
	/* GPUDirect RDMA and IOMMU */
	R_TREE("/sys/module/@(nvidia_peermem|nv_peer_mem)"),
	R_TREE("/sys/kernel/mm/memory_peers"),
	R_FILE("/sys/kernel/iommu_groups/*/type"),
	R_FILE("/proc/modules"),
	R_FILE("/proc/cmdline"),
	R_FILE("/proc/driver/nvidia/version"),
	/* IMEX's configuration and node list (nvlink_fabric) */
	R_FILE("/etc/nvidia-imex/@(config.cfg|nodes_config.cfg)"),
	R_FILE("/proc/driver/nvidia/gpus/*/information"),
	/* the process and the kernel */
	R_FILE("/proc/self/limits"),
	R_FILE("/proc/uptime"),
	R_FILE("/proc/sys/kernel/@(hostname|osrelease|numa_balancing)"),
	R_FILE("/proc/sys/net/core/*"),
	R_FILE("/proc/sys/net/ipv4/@(tcp_rmem|tcp_wmem)"),
	R_FILE("/proc/sys/net/ipv4/conf/*/@(arp_ignore|arp_announce|rp_filter)"),
	R_FILE("/sys/kernel/config/rdma_cm/*/ports/*/@(default_roce_tos|default_roce_mode)"),
	R_FILE("/proc/sys/vm/zone_reclaim_mode"),
	R_FILE("/etc/hostname"),
	R_FILE("/run/slurmd.pid"),
	/* NCCL's configuration and the verbs device nodes (nccl_config) */
	R_FILE("/etc/nccl.conf"),
	R_LINK("/sys/class/infiniband_verbs/uverbs*"),
	R_FILE("/sys/class/infiniband_verbs/*/@(ibdev|dev|abi_version)"),
};

/* Subdirectories of a module's sysfs directory that a tree copy leaves out. */
static bool tree_skip(const char *name)
{
	static const char *const skip[] = { "sections", "notes", "holders", "drivers", "uevent" };

	for (size_t i = 0; i < PF_ARRAY_SIZE(skip); i++)
		if (!strcmp(name, skip[i]))
			return true;
	return false;
}

static void log_skip(struct snap *s, const char *path, int err)
{
	fprintf(s->logf, "%s: %s\n", path, strerror(-err));
	s->st.skipped++;
}

static bool is_proc(const char *rel)
{
	return !strncmp(rel, "proc/", 5);
}

/*
 * The directory holding @rel in the snapshot, opened beneath s->dfd with no
 * symlink followed (every write lands beneath DIR, whatever links the
 * mirrored tree holds); *ret_name is @rel's last component.
 */
static int snap_parent(struct snap *s, const char *rel, const char **ret_name)
{
	const char *slash = strrchr(rel, '/');
	pf_autofree char *dir = NULL;
	int fd;

	*ret_name = slash ? slash + 1 : rel;
	if (!slash) {
		fd = fcntl(s->dfd, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : fd;
	}
	dir = pf_xstrdup(rel);
	dir[slash - rel] = '\0';
	return pf_openat_beneath(s->dfd, dir, O_RDONLY | O_DIRECTORY);
}

static int make_dir(struct snap *s, const char *rel)
{
	pf_autoclose int pfd = -1;
	const char *name;

	pfd = snap_parent(s, rel, &name);
	if (pfd < 0)
		return pfd;
	if (mkdirat(pfd, name, 0755) < 0 && errno != EEXIST)
		return -errno;
	pf_strmap_put(&s->seen, rel, SEEN_DIR);
	s->st.dirs++;
	return 0;
}

/* Create the directories of a snapshot-only path ("preflight/ethtool/eth0"). */
static int make_dirs(struct snap *s, const char *rel)
{
	char buf[PATH_MAX];
	int r;

	snprintf(buf, sizeof(buf), "%s", rel);
	for (char *p = buf; (p = strchr(p, '/')); p++) {
		*p = '\0';
		r = make_dir(s, buf);
		*p = '/';
		if (r < 0)
			return r;
	}
	return make_dir(s, buf);
}

static int make_link(struct snap *s, const char *rel, const char *target, uint32_t *ret_id)
{
	pf_autoclose int pfd = -1;
	const char *name;

	pfd = snap_parent(s, rel, &name);
	if (pfd < 0)
		return pfd;
	if (symlinkat(target, pfd, name) < 0 && errno != EEXIST)
		return -errno;
	PF_GROW(s->targets, s->n_targets, s->cap_targets);
	*ret_id = (uint32_t)s->n_targets;
	s->targets[s->n_targets++] = pf_xstrdup(target);
	pf_strmap_put(&s->seen, rel, SEEN_LINK + *ret_id);
	s->st.links++;
	return 0;
}

/*
 * One step of mirror(): a link met for the first time is recreated in the
 * snapshot, a directory on the way is made; known prefixes come from
 * s->seen without asking the source again.
 */
static int mirror_step(void *userdata, const char *rel, bool last, char **ret_target)
{
	struct snap *s = userdata;
	pf_autofree char *abs = NULL, *t = NULL;
	uint32_t v;
	int r;

	if (pf_strmap_get(&s->seen, rel, &v)) {
		if (v < SEEN_LINK)
			return 0;
		*ret_target = pf_xstrdup(s->targets[v - SEEN_LINK]);
		return 1;
	}
	abs = pf_xasprintf("/%s", rel);
	r = pf_fs_readlink(s->src, abs, &t);
	if (r == -EINVAL || (r == 0 && is_proc(rel))) {
		/* not a link (or a magic /proc one): a directory on the way */
		return last ? 0 : make_dir(s, rel);
	}
	if (r < 0)
		return r;
	r = make_link(s, rel, t, &v);
	if (r < 0)
		return r;
	*ret_target = PF_TAKE_PTR(t);
	return 1;
}

/*
 * Mirror the chain of @path into the snapshot: every symlink on the way is
 * recreated (the last component's too when @follow_last) and every
 * directory made, except the last component itself.  *ret_canon is the
 * canonical path relative to the root ("sys/devices/...").
 */
static int mirror(struct snap *s, const char *path, bool follow_last, char **ret_canon)
{
	return pf_path_resolve(path, follow_last, mirror_step, s, ret_canon);
}

/*
 * mirror() of a source path that is copied: true when its chain is in the
 * snapshot (*ret_canon set), false when it is absent or unreadable (logged
 * unless @quiet).
 */
static bool mirror_source(struct snap *s, const char *path, bool quiet, char **ret_canon)
{
	int r = mirror(s, path, true, ret_canon);

	if (r < 0 && r != -ENOENT && !quiet)
		log_skip(s, path, r);
	return r >= 0;
}

static int put_file(struct snap *s, const char *rel, const char *buf, size_t len)
{
	pf_autoclose int fd = -1;

	fd = pf_openat_beneath(s->dfd, rel, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return fd;
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	s->st.files++;
	return 0;
}

/*
 * Copy one file.  Returns 1 copied (or already there), 0 not a file or
 * absent, -errno when the snapshot cannot be written; read errors are
 * logged unless @quiet.
 */
static int copy_file(struct snap *s, const char *path, bool quiet)
{
	pf_autofree char *canon = NULL, *abs = NULL, *buf = NULL;
	size_t len;
	uint32_t v;
	int r;

	if (!mirror_source(s, path, quiet, &canon))
		return 0;
	if (pf_strmap_get(&s->seen, canon, &v))
		return v == SEEN_FILE;
	abs = pf_xasprintf("/%s", canon);
	r = pf_fs_read_full(s->src, abs, SNAP_MAX_FILE, &buf, &len);
	if (r == -EISDIR || r == -ENOENT)
		return 0;
	if (r < 0) {
		if (!quiet)
			log_skip(s, path, r);
		return 0;
	}
	r = put_file(s, canon, buf, len);
	if (r < 0)
		return r;
	s->st.bytes += len;
	pf_strmap_put(&s->seen, canon, SEEN_FILE);
	return 1;
}

/* Recreate a link chain and make sure its final target exists as a directory. */
static int copy_link(struct snap *s, const char *path)
{
	pf_autofree char *canon = NULL;
	pf_autostrv char **names = NULL;
	uint32_t v;
	int r;

	if (!mirror_source(s, path, false, &canon))
		return 0;
	if (pf_strmap_get(&s->seen, canon, &v))
		return 1;
	{
		pf_autofree char *abs = pf_xasprintf("/%s", canon);

		if (pf_fs_list(s->src, abs, &names) < 0)
			return 0;
	}
	r = make_dir(s, canon);
	return r < 0 ? r : 1;
}

static int copy_tree(struct snap *s, const char *path, int depth)
{
	pf_autofree char *canon = NULL, *abs = NULL;
	pf_autostrv char **names = NULL;
	int n, r;

	if (!mirror_source(s, path, false, &canon))
		return 0;
	abs = pf_xasprintf("/%s", canon);
	n = pf_fs_list(s->src, abs, &names);
	if (n == -ENOTDIR)
		return copy_file(s, abs, false);
	if (n < 0) {
		if (n != -ENOENT)
			log_skip(s, abs, n);
		return 0;
	}
	r = make_dir(s, canon);
	if (r < 0)
		return r;
	for (int i = 0; i < n; i++) {
		pf_autofree char *child = pf_xasprintf("%s/%s", abs, names[i]), *t = NULL;

		if (tree_skip(names[i]))
			continue;
		if (pf_fs_readlink(s->src, child, &t) == 0) {
			uint32_t id;

			/* links inside a tree are kept, not followed */
			r = make_link(s, child + 1, t, &id);
		} else if (depth > 0) {
			r = copy_tree(s, child, depth - 1);
		} else {
			r = copy_file(s, child, false);
		}
		if (r < 0)
			return r;
	}
	return 1;
}

/* Config space of bridges, GPUs and network/InfiniBand functions only. */
static bool want_pci_config(struct snap *s, const char *path)
{
	pf_autofree char *dir = pf_xstrdup(path);
	uint64_t cls;
	unsigned int base;

	*strrchr(dir, '/') = '\0';
	if (pf_fs_readf_u64(s->src, &cls, "%s/class", dir) < 0)
		return false;
	base = (unsigned int)(cls >> 8);
	return base == 0x0604 || base == 0x0300 || base == 0x0302 || base == 0x0c06 ||
	       (cls >> 16) == 0x02;
}

/* A readable gid_attrs/ndevs/<i> marks a GID in use: keep its type and the GID. */
static void after_gid(struct snap *s, const char *path)
{
	pf_autofree char *port = pf_xstrdup(path), *types = NULL, *gids = NULL;
	char *idx = strrchr(port, '/');

	*idx++ = '\0';                          /* .../gid_attrs/ndevs */
	*strrchr(port, '/') = '\0';             /* .../gid_attrs */
	types = pf_xasprintf("%s/types/%s", port, idx);
	*strrchr(port, '/') = '\0';             /* the port */
	gids = pf_xasprintf("%s/gids/%s", port, idx);
	copy_file(s, types, true);
	copy_file(s, gids, true);
}

static bool has_magic(const char *comp)
{
	return comp[strcspn(comp, "*?[@")] != '\0';
}

static int apply(struct snap *s, const struct snap_rule *rule, const char *path)
{
	int r;

	if (rule->want && !rule->want(s, path))
		return 0;
	switch (rule->kind) {
	case SNAP_FILE:
		r = copy_file(s, path, rule->flags & SNAP_QUIET);
		break;
	case SNAP_LINK:
		r = copy_link(s, path);
		break;
	case SNAP_TREE:
		r = copy_tree(s, path, SNAP_TREE_DEPTH);
		break;
	default:
		r = 0;
	}
	if (r > 0 && rule->after)
		rule->after(s, path);
	return r < 0 ? r : 0;
}

/* Expand the pattern components comps[i..n) below @base and apply the rule. */
static int expand(struct snap *s, const struct snap_rule *rule, const char *base, char **comps,
		  size_t i, size_t n)
{
	pf_autostrv char **names = NULL;
	int k, r;

	if (i == n)
		return apply(s, rule, base);
	if (!has_magic(comps[i])) {
		pf_autofree char *next = pf_xasprintf("%s/%s", base, comps[i]);

		return expand(s, rule, next, comps, i + 1, n);
	}
	k = pf_fs_list(s->src, *base ? base : "/", &names);
	for (int j = 0; j < k; j++) {
		pf_autofree char *next = NULL;

		if (fnmatch(comps[i], names[j], FNM_EXTMATCH | FNM_PERIOD))
			continue;
		next = pf_xasprintf("%s/%s", base, names[j]);
		r = expand(s, rule, next, comps, i + 1, n);
		if (r < 0)
			return r;
	}
	return 0;
}

static int run_rule(struct snap *s, const struct snap_rule *rule)
{
	pf_autofree char *copy = pf_xstrdup(rule->pattern);
	char *comps[64], *save = NULL;
	size_t n = 0;

	for (char *t = strtok_r(copy, "/", &save); t && n < PF_ARRAY_SIZE(comps);
	     t = strtok_r(NULL, "/", &save))
		comps[n++] = t;
	return expand(s, rule, "", comps, 0, n);
}

/* The limits and comm of a running slurmd, which memlock also judges. */
static int copy_slurmd(struct snap *s)
{
	pf_autostrv char **names = NULL;
	int n = pf_fs_list(s->src, "/proc", &names), r;

	for (int i = 0; i < n; i++) {
		pf_autofree char *comm = NULL;

		if (strspn(names[i], "0123456789") != strlen(names[i]))
			continue;
		if (pf_fs_readf_line(s->src, &comm, "/proc/%s/comm", names[i]) < 0 ||
		    strcmp(comm, "slurmd"))
			continue;
		{
			pf_autofree char *c = pf_xasprintf("/proc/%s/comm", names[i]);
			pf_autofree char *l = pf_xasprintf("/proc/%s/limits", names[i]);

			r = copy_file(s, c, false);
			if (r >= 0)
				r = copy_file(s, l, false);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * The sink of the provider facts (src/facts/record.h): each pf_record_*()
 * beside its recorded reader asks the providers and writes through these.
 */
static int rec_put(struct pf_record *rec, const char *rel, const char *buf, size_t len)
{
	struct snap *s = rec->userdata;
	pf_autofree char *dir = pf_xstrdup(rel);
	char *slash = strrchr(dir, '/');
	int r = 0;

	if (slash) {
		*slash = '\0';
		r = make_dirs(s, dir);
	}
	if (r >= 0)
		r = put_file(s, rel, buf, len);
	if (r < 0)
		return r;
	s->st.facts++;
	return 0;
}

static int rec_mkdirs(struct pf_record *rec, const char *rel)
{
	return make_dirs(rec->userdata, rel);
}

static int rec_copy(struct pf_record *rec, const char *path)
{
	return copy_file(rec->userdata, path, true);
}

static bool rec_has(struct pf_record *rec, const char *rel)
{
	struct snap *s = rec->userdata;

	return faccessat(s->dfd, rel, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static void rec_skip(struct pf_record *rec, const char *what, const char *why)
{
	struct snap *s = rec->userdata;

	fprintf(s->logf, "%s: %s\n", what, why);
	s->st.skipped++;
}

/*
 * One of the job user's files (NCCL_CONF_FILE, ~/.nccl.conf, NCCL_TOPO_FILE),
 * read with that user's rights (pf_fs_read_as: a link to what only root may
 * read is refused, a FIFO is not waited on) and stored at the path the user
 * named, a plain file with the original owner and permission bits, so that
 * `--root` decides from them as the live check does.  Never a link mirrored
 * as root, and never a set-id or sticky bit: a ~/.nccl.conf -> gpasswd
 * would otherwise leave a setuid-root copy of gpasswd in the snapshot (issue
 * 30).  The owner is kept: without the set-id bits a root-owned copy grants
 * nothing, and the check judges whose file it is.
 */
static int copy_user_file(struct snap *s, const char *path, const struct pf_job_user *u)
{
	pf_autofree char *buf = NULL, *rel = NULL;
	pf_autoclose int fd = -1;
	struct stat st;
	size_t len;
	const char *slash;
	int r;

	r = pf_fs_read_as(s->src, path, u->uid, u->gids, u->n_gids, SNAP_MAX_FILE, &buf, &len, &st);
	if (r == -ENOENT)
		return 0;
	if (r < 0) {
		log_skip(s, path, r);
		return 0;
	}
	rel = pf_xstrdup(path + strspn(path, "/"));
	slash = strrchr(rel, '/');
	if (slash) {
		pf_autofree char *dir = pf_xasprintf("%.*s", (int)(slash - rel), rel);

		r = make_dirs(s, dir);
		if (r < 0)
			return r;
	}
	r = put_file(s, rel, buf, len);
	if (r < 0)
		return r;
	fd = pf_openat_beneath(s->dfd, rel, O_WRONLY);
	if (fd >= 0 && (fchown(fd, st.st_uid, st.st_gid) < 0 || fchmod(fd, st.st_mode & 0777) < 0))
		log_skip(s, path, -errno); /* kept, with root's owner or mode */
	s->st.bytes += len;
	return 1;
}

/*
 * The files nccl_config judges that the environment and the job's user
 * (@u, NULL when unknown) name: NCCL_CONF_FILE or ~/.nccl.conf (of the
 * environment's HOME and of the passwd home), NCCL_TOPO_FILE.
 */
static int copy_nccl_files(struct snap *s, const struct pf_ctx *ctx, const struct pf_job_user *u)
{
	pf_autofree char *conf_file = NULL, *home = NULL, *topo = NULL;
	int r = 0;

	(void)pf_env(ctx, "NCCL_CONF_FILE", &conf_file);
	(void)pf_env(ctx, "HOME", &home);
	for (int i = 0; r >= 0 && i < 2; i++) {
		char *paths[PF_NCCL_CONF_FILES];
		const char *why[PF_NCCL_CONF_FILES];
		size_t n = pf_nccl_conf_paths(conf_file, i == 0 ? home : u ? u->home : NULL,
					      paths, why);

		for (size_t k = 0; k < n; k++) {
			if (r >= 0 && paths[k][0] == '/')
				r = u && strcmp(paths[k], "/etc/nccl.conf")
					    ? copy_user_file(s, paths[k], u)
					    : copy_file(s, paths[k], false);
			free(paths[k]);
		}
	}
	if (r >= 0 && pf_env(ctx, "NCCL_TOPO_FILE", &topo) == 0 && topo[0] == '/')
		r = u ? copy_user_file(s, topo, u) : copy_file(s, topo, false);
	return r < 0 ? r : 0;
}

/* The facts that are not files, each recorded beside its reader, in this order. */
static int record_facts(struct snap *s, const struct pf_snapshot_opts *o)
{
	struct pf_ctx ctx = { .fs = s->src, .prov = o->prov };
	struct pf_record rec = { .ctx = &ctx, .put = rec_put, .mkdirs = rec_mkdirs,
				 .copy = rec_copy, .has = rec_has, .skip = rec_skip,
				 .userdata = s };
	struct pf_job_user user;
	bool known = false;
	int r = pf_record_net(&rec, o->window_ms);

	if (r >= 0)
		r = pf_record_page_size(&rec);
	if (r >= 0)
		r = pf_record_ip_rules(&rec);
	if (r >= 0)
		r = pf_record_nv(&rec);
	if (r >= 0)
		r = pf_record_lldp(&rec);
	if (r >= 0)
		r = pf_record_mlxlink(&rec);
	if (r >= 0)
		r = pf_record_fabric_svc(&rec);
	if (r >= 0)
		r = pf_record_devlink(&rec);
	if (r >= 0)
		r = pf_record_process(&rec);
	if (r >= 0)
		r = pf_record_gpu(&rec);
	if (r >= 0)
		r = pf_record_job(&rec, &user, &known);
	if (r >= 0)
		r = copy_nccl_files(s, &ctx, known ? &user : NULL);
	return r;
}

/*
 * DIR: opened by the output walk (src/core/output.h: no component another
 * user could swap, links followed only when root's or the caller's,
 * missing directories created 0755), then it must be the caller's own, not
 * writable by others, and empty: nobody else can then move what root
 * creates beneath it.
 */
static int open_dest(const char *dir, int *ret_fd, char **ret_err)
{
	pf_autoclosedir DIR *d = NULL;
	pf_autofree char *who = NULL;
	struct dirent *de;
	struct stat st;
	int fd;

	fd = pf_output_opendir(dir, true, NULL, ret_err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		who = pf_output_owner(st.st_uid);
		*ret_err = pf_xasprintf("'%s' (owner %s, mode %04o) is not the caller's own "
					"directory closed to other users: not written", dir, who,
					(unsigned int)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	d = fdopendir(openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)); /* fd is O_PATH */
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			close(fd);
			*ret_err = pf_xasprintf("'%s' is not empty", dir);
			return -ENOTEMPTY;
		}
	*ret_fd = fd;
	return 0;
}

int pf_snapshot_write(const struct pf_fs *src, const char *dir,
		      const struct pf_snapshot_opts *opts, struct pf_snapshot_stats *ret_stats,
		      char **ret_err)
{
	struct pf_snapshot_opts o = *opts;
	struct snap s = { .src = src, .dfd = -1 };
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int r;

	if (!o.prov)
		o.prov = pf_providers_for(src);
	r = open_dest(dir, &s.dfd, ret_err);
	if (r < 0)
		return r;
	s.logf = open_memstream(&s.log, &s.log_len);
	if (!s.logf)
		abort();
	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(s.logf, "# preflight snapshot of root %s at %s (providers: %s)\n"
			"# paths that could not be read, and why:\n",
		pf_fs_root(src), when, o.prov->name);

	for (size_t i = 0; i < PF_ARRAY_SIZE(snap_rules) && r >= 0; i++)
		r = run_rule(&s, &snap_rules[i]);
	if (r >= 0)
		r = copy_slurmd(&s);
	if (r >= 0)
		r = make_dirs(&s, "preflight");
	if (r >= 0)
		r = record_facts(&s, &o);
	fclose(s.logf);
	if (r >= 0)
		r = put_file(&s, "preflight/snapshot.log", s.log, s.log_len);
	if (r < 0)
		*ret_err = pf_xasprintf("cannot write the snapshot in '%s': %s", dir, strerror(-r));
	else if (ret_stats)
		*ret_stats = s.st;

	free(s.log);
	for (size_t i = 0; i < s.n_targets; i++)
		free(s.targets[i]);
	free(s.targets);
	pf_strmap_release(&s.seen);
	close(s.dfd);
	return r < 0 ? r : 0;
}
