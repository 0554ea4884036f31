// SPDX-License-Identifier: MIT
/*
 * rails.c - each RDMA port's role, rail index and identity (rules in
 * include/preflight/rails.h, docs/rails.md).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_nic.h"
#include "preflight/nccl_conf.h"
#include "preflight/parse.h"
#include "preflight/rails.h"
#include "preflight/rdma_select.h"
#include "preflight/result.h"

static const char *const role_names[PF_ROLE_COUNT] = {
	[PF_ROLE_COMPUTE] = "compute",
	[PF_ROLE_STORAGE] = "storage",
	[PF_ROLE_FRONTEND] = "frontend",
	[PF_ROLE_UNUSED] = "unused",
};

const char *pf_port_role_name(enum pf_port_role role)
{
	return role < PF_ROLE_COUNT ? role_names[role] : "unknown";
}

int pf_port_role_from_name(const char *name, enum pf_port_role *ret)
{
	for (int i = 0; i < PF_ROLE_COUNT; i++)
		if (name && !strcmp(name, role_names[i])) {
			*ret = (enum pf_port_role)i;
			return 0;
		}
	return -EINVAL;
}

struct pf_rails *pf_rails_free(struct pf_rails *rails)
{
	if (rails) {
		free(rails->ports);
		free(rails);
	}
	return NULL;
}

const struct pf_rail_port *pf_rails_port(const struct pf_rails *rails, int rdma,
					 unsigned int port)
{
	for (size_t i = 0; rails && i < rails->n_ports; i++)
		if (rails->ports[i].rdma == rdma && rails->ports[i].port == port)
			return &rails->ports[i];
	return NULL;
}

enum pf_roce_rule pf_rails_roce_rule(const struct pf_rails *rails, int rdma, unsigned int port,
				     const struct pf_rail_port **ret_port)
{
	const struct pf_rail_port *rp = pf_rails_port(rails, rdma, port);

	if (ret_port)
		*ret_port = rp;
	if (!rp || rp->role == PF_ROLE_COMPUTE)
		return PF_ROCE_JUDGE;
	return rails->compute_link == PF_LINK_IB ? PF_ROCE_SKIP : PF_ROCE_SOFT;
}

void pf_rails_skip_port(struct pf_result *res, const char *dev, const struct pf_rail_port *rp,
			const char *what)
{
	struct pf_finding *f;
	char subject[64];

	snprintf(subject, sizeof(subject), "%s/%u", dev, rp->port);
	f = pf_add(res, PF_STATUS_SKIP, subject, "%s port (%s): %s judged on RoCE compute rails, "
		   "and this node's compute rails are InfiniBand", pf_port_role_name(rp->role),
		   rp->reason, what);
	pf_obs_str(f, "role", pf_port_role_name(rp->role));
}

void pf_rails_soften(struct pf_result *res, size_t first, const struct pf_rail_port *rp)
{
	for (size_t k = first; k < res->n_findings; k++) {
		struct pf_finding *f = &res->findings[k];
		char *msg;

		if (f->status != PF_STATUS_FAIL)
			continue;
		f->status = PF_STATUS_WARN;
		msg = pf_xasprintf("%s (a %s port, not a compute rail: warns at most)", f->message,
				   pf_port_role_name(rp->role));
		free(f->message);
		f->message = msg;
		pf_obs_str(f, "role", pf_port_role_name(rp->role));
	}
}

/* What the rules need to know of each device, beyond the inventory. */
struct dev_facts {
	int adjacent_gpu; /* the first GPU sharing a PCIe switch with it (PIX/PXB), -1 none */
	int paired_gpu;   /* the first GPU whose nearest NIC it is, -1 none */
	bool vf_of_pf;    /* an SR-IOV VF whose PF is an RDMA device here */
};

static void find_gpus(const struct pf_fs *fs, const struct pf_node *node, struct dev_facts *df)
{
	pf_autofree struct pf_gpu_nic_pair *pairs = NULL;
	size_t n = pf_gpu_nic_pairs(node, NULL, NULL, &pairs);

	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *d = &node->rdma[i];
		const struct pf_pci_dev *np = d->pci >= 0 ? &node->pci[d->pci] : NULL;

		df[i] = (struct dev_facts){ .adjacent_gpu = -1, .paired_gpu = -1 };
		df[i].vf_of_pf = pf_rdma_vf_of_present_pf(fs, node, d);
		for (size_t g = 0; np && np->path && g < node->n_gpus; g++) {
			const struct pf_pci_dev *gp = &node->pci[node->gpus[g].pci];
			enum pf_path_class c;

			if (gp->path && pf_node_path_classify(node, gp, gp->numa_node, np,
							      np->numa_node, &c) == 0 &&
			    (c == PF_PATH_PIX || c == PF_PATH_PXB)) {
				df[i].adjacent_gpu = (int)g;
				break;
			}
		}
	}
	/* pairs are in GPU order: the first GPU that takes a NIC is its lowest */
	for (size_t k = 0; k < n; k++)
		if (pairs[k].nic >= 0 && df[pairs[k].nic].paired_gpu < 0)
			df[pairs[k].nic].paired_gpu = (int)k;
}

/* Does entry "dev" or "dev:port" of a declared list name this port? */
static bool names_port(const char *entry, size_t len, const char *dev, unsigned int port)
{
	const char *colon = memchr(entry, ':', len);
	size_t dlen = colon ? (size_t)(colon - entry) : len;
	char num[12];
	uint64_t p;

	if (dlen != strlen(dev) || memcmp(entry, dev, dlen))
		return false;
	if (!colon)
		return true;
	if (len - dlen - 1 == 0 || len - dlen - 1 >= sizeof(num))
		return false;
	memcpy(num, colon + 1, len - dlen - 1);
	num[len - dlen - 1] = '\0';
	return pf_parse_u64(num, &p) == 0 && p == port;
}

/* Is the port named in the comma-separated @list (blanks around entries ignored)? */
static bool declared_in(const char *list, const char *dev, unsigned int port)
{
	const char *s = list;

	while (s && *s) {
		const char *end = strchr(s, ',');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		const char *a = s, *b = s + len;

		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > a && names_port(a, (size_t)(b - a), dev, port))
			return true;
		s = end ? end + 1 : NULL;
	}
	return false;
}

static int apply_declared(const struct pf_node *node, const struct pf_rails_spec *spec,
			  struct pf_rails *rails, char **ret_err)
{
	for (size_t i = 0; i < rails->n_ports; i++) {
		struct pf_rail_port *e = &rails->ports[i];
		const char *dev = node->rdma[e->rdma].name;

		for (int r = 0; spec && r < PF_ROLE_COUNT; r++) {
			if (!spec->declared[r] || !declared_in(spec->declared[r], dev, e->port))
				continue;
			if (e->declared && e->role != (enum pf_port_role)r) {
				*ret_err = pf_xasprintf("rails: %s/%u is declared both %s and %s",
							dev, e->port, pf_port_role_name(e->role),
							role_names[r]);
				return -EINVAL;
			}
			e->declared = true;
			e->role = (enum pf_port_role)r;
			snprintf(e->reason, sizeof(e->reason), "declared by the site (rails.%s)",
				 role_names[r]);
		}
	}
	return 0;
}

static bool port_up(const struct pf_rdma_port *p)
{
	return p->state == 0 || p->state == 4;
}

/*
 * No NIC shares a switch with a GPU: the compute rails are the ports of the
 * link layer most up ports have, at the highest rate among those (all of
 * that link layer when none is up, so that down rails are still judged).
 */
static void fastest_rule(const struct dev_facts *df,
			 struct pf_rails *rails, bool *compute)
{
	size_t count[3] = { 0 };
	enum pf_link_layer ll = PF_LINK_UNKNOWN;
	double best = 0;
	bool any_up = false;

	for (size_t i = 0; i < rails->n_ports; i++)
		any_up |= !df[rails->ports[i].rdma].vf_of_pf && rails->ports[i].up;
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *e = &rails->ports[i];

		if (!df[e->rdma].vf_of_pf && (e->up || !any_up))
			count[e->link_layer]++;
	}
	for (int l = 0; l < 3; l++)
		if (count[l] > count[ll])
			ll = (enum pf_link_layer)l;
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *e = &rails->ports[i];

		if (!df[e->rdma].vf_of_pf && e->link_layer == ll && (e->up || !any_up) &&
		    e->rate_gbps > best)
			best = e->rate_gbps;
	}
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *e = &rails->ports[i];

		/* a port that is down says nothing of its rate: a rail unless never linked */
		compute[i] = !df[e->rdma].vf_of_pf && e->link_layer == ll &&
			     (e->up ? e->rate_gbps >= best || e->rate_gbps == 0 : !e->never_linked);
	}
}

static const char *link_word(enum pf_link_layer ll)
{
	return ll == PF_LINK_IB ? "InfiniBand" : ll == PF_LINK_ETH ? "Ethernet" : "unknown link layer";
}

/* A non-compute port's role by the rules, with the reason. */
static void other_role(const struct dev_facts *df, const struct pf_rails *rails,
		       struct pf_rail_port *e)
{
	if (df[e->rdma].vf_of_pf) {
		e->role = PF_ROLE_UNUSED;
		snprintf(e->reason, sizeof(e->reason),
			 "an SR-IOV virtual function: its physical function is tested");
	} else if (e->never_linked) {
		e->role = PF_ROLE_UNUSED;
		snprintf(e->reason, sizeof(e->reason),
			 "down and never linked since boot (link_downed 0), no GPU's rail");
	} else if (rails->compute_link != PF_LINK_UNKNOWN && e->link_layer != rails->compute_link) {
		e->role = PF_ROLE_FRONTEND;
		snprintf(e->reason, sizeof(e->reason), "%s beside %s compute rails, no GPU's rail",
			 link_word(e->link_layer), link_word(rails->compute_link));
	} else {
		e->role = PF_ROLE_STORAGE;
		snprintf(e->reason, sizeof(e->reason), "%s",
			 !strcmp(rails->rule, "gpu") ? "shares no PCIe switch with a GPU"
						     : "slower than the compute rails");
	}
}

/* Append to a port's reason (cut at the buffer's end). */
static void add_reason(struct pf_rail_port *e, const char *fmt, ...) PF_PRINTF(2, 3);
static void add_reason(struct pf_rail_port *e, const char *fmt, ...)
{
	size_t len = strlen(e->reason);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->reason + len, sizeof(e->reason) - len, fmt, ap);
	va_end(ap);
}

/*
 * The ports NCCL_IB_HCA selects into @selected, and how many; -1 when the
 * spec sets no list that restricts anything (unset, or "" and the like,
 * which select every port as an unset one does).  NCCL's IB transport
 * (ncclIbInit, src/transport/net_ib) matches each port of each device
 * against the list with matchIfList (src/misc/utils.cc): '^' excludes, '='
 * matches whole names, else each entry is a prefix, "dev:port" one port.
 * It opens only ACTIVE ports, but a selected port that is down stays a
 * rail here, as a GPU's rail that is down does: the checks fail it.
 */
static int nccl_select(const struct pf_node *node, const struct pf_rails_spec *spec,
		       const struct pf_rails *rails, bool *selected)
{
	struct pf_nccl_iflist l;
	int n = 0;

	if (!spec || !spec->nccl_ib_hca)
		return -1;
	pf_nccl_iflist_parse(spec->nccl_ib_hca, &l);
	if (!l.n && !l.exclude)
		return -1;
	for (size_t i = 0; i < rails->n_ports; i++) {
		const struct pf_rail_port *e = &rails->ports[i];

		selected[i] = pf_nccl_iflist_selects(&l, node->rdma[e->rdma].name, (int)e->port);
		n += selected[i];
	}
	return n;
}

static void read_identity(const struct pf_fs *fs, const struct pf_node *node,
			  const struct pf_rails_spec *spec, struct pf_rail_port *e)
{
	const struct pf_rdma_dev *d = &node->rdma[e->rdma];
	const struct pf_rdma_port *p = &d->ports[e->port - 1];
	pf_autofree char *gid = NULL, *sm = NULL;
	const struct pf_lldp_neighbor *nb;
	uint64_t lid, downed = 0;

	e->link_layer = p->link_layer;
	e->rate_gbps = p->rate_gbps;
	e->up = port_up(p);
	/* no partner (Polling) or disabled, and no link lost since boot */
	e->never_linked = !e->up && (p->phys_state == 2 || p->phys_state == 3) &&
			  pf_port_counter(fs, d->name, p->num, "link_downed", &downed, NULL,
					  NULL) == 0 && downed == 0;
	if (p->netdev >= 0 && (size_t)p->netdev < node->n_netdevs) {
		snprintf(e->netdev, sizeof(e->netdev), "%s", node->netdevs[p->netdev].name);
		if (spec && spec->subnet &&
		    spec->subnet(spec->data, e->netdev, e->subnet, sizeof(e->subnet)) < 0)
			e->subnet[0] = '\0';
		nb = pf_lldp_find(spec ? spec->lldp : NULL, e->netdev);
		if (nb) {
			snprintf(e->lldp_chassis, sizeof(e->lldp_chassis), "%s", nb->chassis);
			snprintf(e->lldp_port, sizeof(e->lldp_port), "%s", nb->port);
		}
	}
	if (p->link_layer != PF_LINK_IB)
		return;
	/* GID 0 is the port GID: the subnet prefix, then the port GUID */
	if (pf_fs_readf_line(fs, &gid, "/sys/class/infiniband/%s/ports/%u/gids/0", d->name,
			     p->num) == 0 && strlen(gid) >= 19 && gid[4] == ':')
		snprintf(e->ib_subnet, sizeof(e->ib_subnet), "%.19s", gid);
	if (pf_fs_readf_line(fs, &sm, "/sys/class/infiniband/%s/ports/%u/sm_lid", d->name,
			     p->num) == 0 && pf_parse_u64(sm, &lid) == 0 && lid <= 0xffff)
		e->sm_lid = (unsigned int)lid;
}

/* Compute ports by the GPU each serves (PCI order), then by name and port. */
static int rail_order(const void *a, const void *b, void *arg)
{
	const struct pf_rail_port *x = *(const struct pf_rail_port *const *)a;
	const struct pf_rail_port *y = *(const struct pf_rail_port *const *)b;
	const struct pf_node *node = arg;
	int gx = x->gpu < 0 ? INT_MAX : x->gpu, gy = y->gpu < 0 ? INT_MAX : y->gpu;
	int c;

	if (gx != gy)
		return gx < gy ? -1 : 1;
	c = strverscmp(node->rdma[x->rdma].name, node->rdma[y->rdma].name);
	if (c)
		return c;
	return x->port < y->port ? -1 : x->port > y->port;
}

static void number_rails(const struct pf_node *node, struct pf_rails *rails)
{
	pf_autofree struct pf_rail_port **order = pf_xcalloc(rails->n_ports + 1, sizeof(*order));
	size_t n = 0;

	for (size_t i = 0; i < rails->n_ports; i++)
		if (rails->ports[i].role == PF_ROLE_COMPUTE)
			order[n++] = &rails->ports[i];
	qsort_r(order, n, sizeof(*order), rail_order, (void *)node);
	for (size_t i = 0; i < n; i++)
		order[i]->rail = (int)i;
	rails->n_compute = n;
}

/* The compute rails' link layer: UNKNOWN when there are none or they differ. */
static enum pf_link_layer compute_link(const struct pf_rails *rails, const bool *compute)
{
	enum pf_link_layer ll = PF_LINK_UNKNOWN;
	bool seen = false;

	for (size_t i = 0; i < rails->n_ports; i++) {
		if (!compute[i])
			continue;
		if (seen && rails->ports[i].link_layer != ll)
			return PF_LINK_UNKNOWN;
		ll = rails->ports[i].link_layer;
		seen = true;
	}
	return ll;
}

/* A compute port's reason by the node's rules. */
static void compute_reason(const struct pf_node *node, const struct dev_facts *df,
			   struct pf_rail_port *e)
{
	if (df[e->rdma].adjacent_gpu >= 0)
		snprintf(e->reason, sizeof(e->reason), "shares a PCIe switch with GPU %s",
			 node->pci[node->gpus[df[e->rdma].adjacent_gpu].pci].bdf);
	else
		snprintf(e->reason, sizeof(e->reason), "%s",
			 node->n_gpus ? "no NIC shares a PCIe switch with a GPU: the "
					"fastest ports of the common link layer"
				      : "no GPU here: the fastest ports of the common "
					"link layer");
}

int pf_rails_build(const struct pf_fs *fs, const struct pf_node *node,
		   const struct pf_rails_spec *spec, struct pf_rails **ret, char **ret_err)
{
	pf_autorails struct pf_rails *rails = pf_xcalloc(1, sizeof(*rails));
	pf_autofree struct dev_facts *df = pf_xcalloc(node->n_rdma + 1, sizeof(*df));
	pf_autofree bool *compute = NULL, *selected = NULL;
	bool any_adjacent = false;
	char hca[160] = "";
	size_t n = 0;
	int r, n_sel;

	*ret_err = NULL;
	for (size_t i = 0; i < node->n_rdma; i++)
		n += node->rdma[i].n_ports;
	rails->ports = pf_xcalloc(n + 1, sizeof(*rails->ports));
	compute = pf_xcalloc(n + 1, sizeof(*compute));
	selected = pf_xcalloc(n + 1, sizeof(*selected));
	find_gpus(fs, node, df);
	for (size_t i = 0; i < node->n_rdma; i++) {
		for (size_t j = 0; j < node->rdma[i].n_ports; j++) {
			struct pf_rail_port *e = &rails->ports[rails->n_ports++];

			e->rdma = (int)i;
			e->port = node->rdma[i].ports[j].num;
			e->rail = -1;
			e->gpu = df[i].paired_gpu >= 0 ? df[i].paired_gpu : df[i].adjacent_gpu;
			read_identity(fs, node, spec, e);
		}
		any_adjacent |= df[i].adjacent_gpu >= 0 && !df[i].vf_of_pf;
	}
	r = apply_declared(node, spec, rails, ret_err);
	if (r < 0)
		return r;
	rails->rule = any_adjacent ? "gpu" : "fastest";
	if (any_adjacent)
		for (size_t i = 0; i < rails->n_ports; i++)
			compute[i] = df[rails->ports[i].rdma].adjacent_gpu >= 0 &&
				     !df[rails->ports[i].rdma].vf_of_pf;
	else
		fastest_rule(df, rails, compute);
	for (size_t i = 0; i < rails->n_ports; i++) {
		if (rails->ports[i].declared)
			compute[i] = rails->ports[i].role == PF_ROLE_COMPUTE;
		rails->ports[i].rules_compute = compute[i];
	}
	/* NCCL_IB_HCA, when it selects a port here, says which the rails are */
	n_sel = nccl_select(node, spec, rails, selected);
	if (n_sel >= 0)
		snprintf(hca, sizeof(hca), "NCCL_IB_HCA=%.80s%s (%s)", spec->nccl_ib_hca,
			 strlen(spec->nccl_ib_hca) > 80 ? "..." : "",
			 spec->nccl_ib_hca_origin ? spec->nccl_ib_hca_origin : "NCCL's settings");
	if (n_sel > 0) {
		rails->rule = "nccl";
		for (size_t i = 0; i < rails->n_ports; i++)
			if (!rails->ports[i].declared)
				compute[i] = selected[i];
	}
	rails->compute_link = compute_link(rails, compute);
	for (size_t i = 0; i < rails->n_ports; i++) {
		struct pf_rail_port *e = &rails->ports[i];

		if (e->declared)
			continue;
		if (compute[i]) {
			e->role = PF_ROLE_COMPUTE;
			if (n_sel > 0)
				snprintf(e->reason, sizeof(e->reason), "selected by %s", hca);
			else
				compute_reason(node, df, e);
		} else {
			other_role(df, rails, e);
			if (n_sel > 0 && e->role == PF_ROLE_STORAGE)
				snprintf(e->reason, sizeof(e->reason), "not selected by %s", hca);
			else if (n_sel > 0)
				add_reason(e, "; not selected by %s", hca);
		}
		/* a list that selects nothing here: the rules decided, and the reason says so */
		if (n_sel == 0)
			add_reason(e, " (%s selects no port of this node)", hca);
	}
	for (size_t i = 0; i < rails->n_ports; i++)
		if (rails->ports[i].declared && rails->ports[i].role == PF_ROLE_COMPUTE)
			rails->rule = "site";
	number_rails(node, rails);
	*ret = PF_TAKE_PTR(rails);
	return 0;
}
