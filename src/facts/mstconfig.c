// SPDX-License-Identifier: MIT
/*
 * mstconfig.c - firmware NV configuration parameters of NICs, as
 * `mstconfig -d <bdf> -e q <NAME>...` prints them (Debian's mstflint;
 * NVIDIA's `mlxconfig` from MFT takes the same arguments and prints the same
 * table): one query per card asking every name of its ports, the cards in
 * parallel under one deadline scaled by their number, mlxconfig after a
 * failed mstconfig.
 *
 * Live: the tools are found and run as toolrun.c runs system tools (fixed
 * root-owned directories, a minimal environment, killed with their process
 * groups at the deadline).  Recorded: preflight/mstconfig/<bdf>/<NAME>, the
 * same text (docs/snapshot.md).
 */
#include <string.h>

#include "clock.h"
#include "preflight/net.h"
#include "preflight/providers.h"
#include "preflight/node.h"
#include "preflight/strbuf.h"
#include "record.h"

#define NV_QUERY_DEADLINE_MS 4000
#define NV_QUERY_MAX_DEADLINE_MS 24000

static const char *const tool_names[] = { "mstconfig", "mlxconfig" };

int pf_nv_tool_path(char *buf, size_t len)
{
	for (size_t t = 0; t < PF_ARRAY_SIZE(tool_names); t++)
		if (pf_tool_path(tool_names[t], buf, len) == 0)
			return 0;
	return -ENOENT;
}

/* A parameter name as mlxconfig spells them: upper case, digits, '_'. */
static bool valid_name(const char *name)
{
	if (!*name || strlen(name) > 64)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return true;
}

/* "0000:17:00.0": hex digits, ':' and '.' only (never an option or a path). */
static bool valid_bdf(const char *bdf)
{
	return *bdf && *bdf != '-' && strlen(bdf) < 16 &&
	       strspn(bdf, "0123456789abcdefABCDEF:.") == strlen(bdf);
}

/* The trusted tools present, mstconfig before mlxconfig; their count. */
static size_t nv_tools(char paths[][64])
{
	size_t n = 0;

	for (size_t t = 0; t < PF_ARRAY_SIZE(tool_names); t++)
		if (pf_tool_path(tool_names[t], paths[n], 64) == 0)
			n++;
	return n;
}

unsigned int pf_nv_deadline_ms(size_t n)
{
	size_t ms = NV_QUERY_DEADLINE_MS + (n ? n - 1 : 0) * 1000;

	return ms > NV_QUERY_MAX_DEADLINE_MS ? NV_QUERY_MAX_DEADLINE_MS : (unsigned int)ms;
}

void pf_nv_asks_fail(struct pf_nv_ask *asks, size_t n, int r)
{
	pf_nv_asks_release(asks, n);
	for (size_t i = 0; i < n; i++) {
		asks[i].r = r;
		for (size_t m = 0; m < asks[i].n_names; m++)
			asks[i].name_r[m] = r;
	}
}

void pf_nv_asks_release(struct pf_nv_ask *asks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(asks[i].text);
		asks[i].text = NULL;
	}
}

/* argv of one card's query: tool -d <bdf> -e q NAME... */
struct query_argv {
	char *argv[5 + PF_NV_MAX_NAMES + 1];
};

static int build_argv(const char *tool, struct pf_nv_ask *ask, struct query_argv *qa)
{
	size_t k = 0;

	if (!valid_bdf(ask->bdf) || !ask->n_names || ask->n_names > PF_NV_MAX_NAMES)
		return -EINVAL;
	qa->argv[k++] = (char *)tool;
	qa->argv[k++] = (char *)"-d";
	qa->argv[k++] = ask->bdf;
	qa->argv[k++] = (char *)"-e";
	qa->argv[k++] = (char *)"q";
	for (size_t i = 0; i < ask->n_names; i++) {
		if (!valid_name(ask->names[i]))
			return -EINVAL;
		qa->argv[k++] = ask->names[i];
	}
	qa->argv[k] = NULL;
	return 0;
}

/* A later tool's answer after an earlier one failed: its table, or both failures. */
static void merge(struct pf_nv_ask *ask, struct pf_nv_job *job)
{
	if (job->r == 0 || !ask->text) {
		free(ask->text);
		ask->text = job->text, ask->r = job->r;
		job->text = NULL;
		return;
	}
	if (job->text) {
		char *both = pf_xasprintf("%s%s%s", ask->text,
					  *ask->text && ask->text[strlen(ask->text) - 1] != '\n'
						  ? "\n" : "", job->text);

		free(ask->text);
		ask->text = both;
	}
}

int pf_nv_query_tools(const char *const *tools, size_t n_tools, struct pf_nv_ask *asks,
		      size_t n, unsigned int deadline_ms)
{
	pf_autofree struct pf_nv_job *jobs = pf_xcalloc(n ? n : 1, sizeof(*jobs));
	pf_autofree struct query_argv *qa = pf_xcalloc(n ? n : 1, sizeof(*qa));
	pf_autofree size_t *which = pf_xcalloc(n ? n : 1, sizeof(*which));
	double deadline = pf_now_ms() + deadline_ms;

	for (size_t i = 0; i < n; i++)
		asks[i].text = NULL, asks[i].r = -ENOPKG;
	if (!n_tools)
		return -ENOPKG;
	for (size_t i = 0; i < n; i++)
		asks[i].r = -EIO; /* not yet asked: the first tool asks every card */
	for (size_t t = 0; t < n_tools; t++) {
		size_t k = 0;
		double left = deadline - pf_now_ms();

		for (size_t i = 0; i < n; i++) {
			/* a later tool asks only the cards the earlier failed on */
			if (asks[i].r != -EIO && asks[i].r != -ENOEXEC)
				continue;
			if (build_argv(tools[t], &asks[i], &qa[k]) < 0) {
				free(asks[i].text);
				asks[i].text = NULL;
				asks[i].r = -EINVAL;
				continue;
			}
			jobs[k] = (struct pf_nv_job){ .path = tools[t], .argv = qa[k].argv };
			which[k++] = i;
		}
		if (!k)
			break;
		if (left <= 0) {
			for (size_t j = 0; j < k; j++)
				if (t == 0)
					asks[which[j]].r = -ETIMEDOUT;
			break;
		}
		pf_nv_run_many(jobs, k, (unsigned int)left);
		for (size_t j = 0; j < k; j++) {
			merge(&asks[which[j]], &jobs[j]);
			free(jobs[j].text);
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t m = 0; m < asks[i].n_names; m++)
			asks[i].name_r[m] = asks[i].r;
	return 0;
}

int pf_live_nv_query(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n)
{
	char paths[PF_ARRAY_SIZE(tool_names)][64];
	const char *tools[PF_ARRAY_SIZE(tool_names)];
	size_t n_tools = nv_tools(paths);

	(void)ctx;
	for (size_t t = 0; t < n_tools; t++)
		tools[t] = paths[t];
	return pf_nv_query_tools(tools, n_tools, asks, n, pf_nv_deadline_ms(n));
}

/*
 * One recorded parameter, as the live side answers it: 0 and the tool's
 * output; -EIO with it when the tool failed (recorded beside as
 * <name>.failed); -ENOENT when nothing was recorded.  Whether the output
 * holds the parameter is the check's to judge, live or recorded alike.
 */
static int recorded_one(const struct pf_ctx *ctx, const char *bdf, const char *name,
			char **ret_text)
{
	pf_autofree char *path = pf_xasprintf("/preflight/mstconfig/%s/%s", bdf, name);
	pf_autofree char *failed = NULL;
	int r;

	*ret_text = NULL;
	r = pf_fs_read_full(ctx->fs, path, 0, ret_text, NULL);
	if (r >= 0 || r != -ENOENT)
		return r < 0 ? r : 0;
	failed = pf_xasprintf("%s.failed", path);
	r = pf_fs_read_full(ctx->fs, failed, 0, ret_text, NULL);
	return r >= 0 ? -EIO : r;
}

/*
 * A card's names read back: the texts of those recorded, each once (a
 * snapshot writes the one query's output under every name it asked); the
 * first failure when none holds a table.
 */
static void recorded_ask(const struct pf_ctx *ctx, struct pf_nv_ask *ask)
{
	pf_autostrbuf struct pf_strbuf sb = PF_STRBUF_INIT;
	pf_autofree char *failure = NULL;
	int fail_r = -ENOENT;
	bool any = false;

	ask->text = NULL;
	if (!valid_bdf(ask->bdf) || !ask->n_names) {
		ask->r = -EINVAL;
		return;
	}
	for (size_t i = 0; i < ask->n_names; i++) {
		pf_autofree char *text = NULL;
		const char *bdf = *ask->name_bdf[i] ? ask->name_bdf[i] : ask->bdf;
		int r = valid_name(ask->names[i]) && valid_bdf(bdf)
				? recorded_one(ctx, bdf, ask->names[i], &text) : -EINVAL;

		ask->name_r[i] = r;
		if (r == 0) {
			if (!strstr(sb.buf, text))
				pf_strbuf_adds(pf_strbuf_sep(&sb, "\n"), text);
			any = true;
		} else if (fail_r == -ENOENT && r != -ENOENT) {
			fail_r = r;
			failure = text, text = NULL;
		}
	}
	if (any) {
		ask->r = 0;
		ask->text = pf_strbuf_detach(&sb);
	} else {
		ask->r = fail_r;
		ask->text = failure, failure = NULL;
	}
}

int pf_recorded_nv_query(const struct pf_ctx *ctx, struct pf_nv_ask *asks, size_t n)
{
	bool no_tool = pf_fs_exists(ctx->fs, "/preflight/mstconfig/no-tool") == 1;

	for (size_t i = 0; i < n; i++) {
		recorded_ask(ctx, &asks[i]);
		if (asks[i].r == -ENOENT && no_tool)
			asks[i].r = -ENOPKG;
	}
	for (size_t i = 0; i < n; i++)
		if (asks[i].r != -ENOPKG)
			return 0;
	return n && no_tool ? -ENOPKG : 0;
}

void pf_roce_cc_param(const char *bdf, size_t n_ports, unsigned int port, char *buf, size_t len)
{
	const char *dot = strrchr(bdf, '.');
	unsigned int fn = dot && dot[1] >= '0' && dot[1] <= '7' ? (unsigned int)(dot[1] - '0') : 0;

	snprintf(buf, len, "ROCE_CC_PRIO_MASK_P%u", n_ports > 1 ? port : fn + 1);
}

size_t pf_roce_cc_params(const struct pf_node *node, size_t dev, size_t port_idx,
			 char names[][32], size_t max)
{
	const struct pf_rdma_dev *d = &node->rdma[dev];
	const struct pf_rdma_port *p = &d->ports[port_idx];
	const struct pf_pci_dev *pci = d->pci >= 0 ? &node->pci[d->pci] : NULL;
	const struct pf_netdev *nd = p->netdev >= 0 && (size_t)p->netdev < node->n_netdevs
					     ? &node->netdevs[p->netdev] : NULL;
	size_t k = 0;

	if (!pci || !max)
		return 0;
	for (char **s = nd ? nd->slaves : NULL; s && *s; s++)
		k++;
	if (k < 2) {
		pf_roce_cc_param(pci->bdf, d->n_ports, p->num, names[0], 32);
		return 1;
	}
	/* RoCE LAG: port TLVs are visible from either PF, one per bonded port */
	for (size_t i = 0; i < k && i < max; i++)
		snprintf(names[i], 32, "ROCE_CC_PRIO_MASK_P%u", (unsigned int)(i + 1) & 0xff);
	return k < max ? k : max;
}

/* "0000:17:00.1" and "0000:17:00.0" are one card: equal up to the function. */
static bool same_card(const char *a, const char *b)
{
	const char *da = strrchr(a, '.'), *db = strrchr(b, '.');

	return da && db && da - a == db - b && !strncmp(a, b, (size_t)(da - a));
}

int pf_nv_ask_add(struct pf_nv_ask **asks, size_t *n, size_t *alloc, const char *bdf,
		  const char *name)
{
	struct pf_nv_ask *a = NULL;

	for (size_t i = 0; i < *n && !a; i++)
		if (same_card((*asks)[i].bdf, bdf))
			a = &(*asks)[i];
	if (!a) {
		PF_GROW(*asks, *n, *alloc);
		a = &(*asks)[(*n)++];
		memset(a, 0, sizeof(*a));
		snprintf(a->bdf, sizeof(a->bdf), "%s", bdf);
	}
	for (size_t i = 0; i < a->n_names; i++)
		if (!strcmp(a->names[i], name) && !strcmp(a->name_bdf[i], bdf))
			return 0;
	if (a->n_names >= PF_NV_MAX_NAMES)
		return -E2BIG;
	snprintf(a->names[a->n_names], sizeof(a->names[0]), "%s", name);
	snprintf(a->name_bdf[a->n_names], sizeof(a->name_bdf[0]), "%s", bdf);
	a->n_names++;
	return 0;
}

/*
 * One card's answer under preflight/mstconfig/<function>/<name> for each
 * name it was asked (the same text under each: the one query holds them
 * all), <name>.failed when the tool failed.
 */
static int record_ask(struct pf_record *rec, const struct pf_nv_ask *a)
{
	int r = 0;

	for (size_t i = 0; i < a->n_names && r >= 0; i++) {
		pf_autofree char *f = pf_xasprintf("preflight/mstconfig/%s/%s", a->name_bdf[i],
						   a->names[i]);
		/* a name the source did not hold (an older snapshot's P2) is not made up */
		int ri = a->name_r[i] < 0 ? a->name_r[i] : a->r;

		if (ri == -EIO && a->text) {
			pf_autofree char *failed = pf_xasprintf("%s.failed", f);

			pf_record_skip(rec, f, ri);
			r = pf_record_put_text(rec, failed, a->text);
		} else if (pf_record_answer(rec, f, ri)) {
			r = pf_record_put_text(rec, f, a->text);
		}
	}
	return r;
}

/*
 * preflight/mstconfig/<bdf>/ROCE_CC_PRIO_MASK_P<n>: the firmware's DCQCN
 * enable of each NVIDIA/Mellanox RoCE port (a LAG's: every bonded port's),
 * one query per card as dcqcn asks it, read back by pf_recorded_nv_query().
 */
int pf_record_nv(struct pf_record *rec)
{
	struct pf_node *node = NULL;
	pf_autofree char *err = NULL;
	pf_autofree struct pf_nv_ask *asks = NULL;
	size_t n = 0, alloc = 0;
	int r = 0;

	if (pf_node_load(rec->ctx->fs, NULL, &node, &err) < 0)
		return 0;
	for (size_t i = 0; i < node->n_rdma; i++) {
		const struct pf_rdma_dev *dev = &node->rdma[i];
		const struct pf_pci_dev *pci = dev->pci >= 0 ? &node->pci[dev->pci] : NULL;

		for (size_t j = 0; j < dev->n_ports; j++) {
			char names[PF_NV_MAX_NAMES][32];
			size_t k;

			if (dev->ports[j].link_layer != PF_LINK_ETH || !pci || pci->vendor != 0x15b3)
				continue;
			k = pf_roce_cc_params(node, i, j, names, PF_NV_MAX_NAMES);
			for (size_t m = 0; m < k; m++)
				(void)pf_nv_ask_add(&asks, &n, &alloc, pci->bdf, names[m]);
		}
	}
	pf_node_free(node);
	if (!n)
		return 0;
	r = rec->ctx->prov->nv_query(rec->ctx, asks, n);
	if (r == -ENOPKG) {
		pf_nv_asks_release(asks, n);
		return pf_record_put_text(rec, "preflight/mstconfig/no-tool",
					  "neither mstconfig nor mlxconfig is installed\n");
	}
	if (r < 0)
		pf_nv_asks_fail(asks, n, r);
	r = 0;
	for (size_t i = 0; i < n && r >= 0; i++)
		r = record_ask(rec, &asks[i]);
	pf_nv_asks_release(asks, n);
	return r;
}
