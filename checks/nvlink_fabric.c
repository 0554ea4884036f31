// SPDX-License-Identifier: MIT
/*
 * nvlink_fabric - is the NVLink fabric ready: every GPU that has one
 * registered in it, healthy, and (in a multi-node NVLink domain, GB200 and
 * GB300 NVL72) in a clique of a cluster, with the IMEX channels the job
 * needs to share memory across the domain.
 *
 * Per GPU, nvmlDeviceGetGpuFabricInfoV through ctx->prov->gpu->gpu_fabric
 * (live: NVML; recorded: <root>/preflight/nvml/gpu_fabric):
 *   state completed and status success (Fabric Manager or the NVLink
 *   domain's control plane registered the GPU), no health-mask field saying
 *   something is wrong (each named), summary not unhealthy;
 *   in a domain: clique ID and cluster UUID non-zero (Azure/azhpc-images
 *   PR #506: a GB200 node passed with "Insufficient Resources" and clique 0).
 * A GPU whose NVML answers NVML_ERROR_NOT_SUPPORTED has no NVLink fabric:
 * a skip naming the query, never a fail.
 * In a domain, on each registered GPU, the fabric-handle probe
 * (ctx->prov->gpu->cuda_fabric_handle: cuMemCreate with
 * CU_MEM_HANDLE_TYPE_FABRIC, export, import back; recorded:
 * <root>/preflight/cuda/fabric_handle), and
 * /dev/nvidia-caps-imex-channels/channel* present and
 * openable by the job's user (ctx->prov->devnodes, as nccl_config judges
 * /dev/infiniband): without one NCCL fails with CUDA error 800 "operation
 * not permitted" when it imports a fabric handle.
 *
 * The services behind the fabric (ctx->prov->fabric_svc: their own tools,
 * found in the system directories and run at a deadline, or
 * <root>/preflight/fabric/; src/facts/fabric_svc.c):
 *   on HGX/DGX with NVSwitches (not GB200/GB300 compute trays, where the
 *   rack's switch trays run the fabric and each GPU's state is the
 *   authority): nvidia-fabricmanager active, and its version the kernel
 *   driver's (/proc/driver/nvidia/version): Fabric Manager refuses to run
 *   on another driver;
 *   in a domain: nvidia-imex active, this node's instance READY in
 *   `nvidia-imex-ctl -N -j` and connected to its peers, and the node list
 *   IMEX reads (IMEX_NODE_CONFIG_FILE of /etc/nvidia-imex/config.cfg, by
 *   default /etc/nvidia-imex/nodes_config.cfg) listing addresses, this
 *   node's among them where its addresses are known.
 * A service whose state cannot be known (no tool, no unit, not recorded)
 * is a skip that names what is missing.
 */
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/fabric_svc.h"
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/net_facts.h"
#include "preflight/node.h"
#include "preflight/parse.h"
#include "preflight/providers.h"

#define IMEX_DIR "/dev/nvidia-caps-imex-channels"
#define IMEX_CONFIG "/etc/nvidia-imex/config.cfg"
#define FM "nvidia-fabricmanager"
#define IMEX "nvidia-imex"
/* IMEX's config and node list: a few KiB (72 addresses a rack), with room for comments */
#define IMEX_FILE_MAX (256 * 1024)

struct nvlink_fabric_cfg {
	bool require_domain;
};

static const struct pf_param nvlink_fabric_params[] = {
	PF_PARAM_BOOL(struct nvlink_fabric_cfg, require_domain, "false",
		      "the node belongs to a multi-node NVLink domain (GB200/GB300 NVL72): a "
		      "clique, a cluster UUID and IMEX channels are required; GB200 and GB300 "
		      "GPUs imply it"),
	PF_PARAM_END,
};

/*
 * GPUs that sit in a multi-node NVLink domain (NVL72 racks) by PCI device
 * ID: GB200 2941, GB300 31c2 and 31c3 (NVIDIA/open-gpu-kernel-modules
 * README.md "Compatible GPUs", as src/node/superchip.c).  GH200 ships
 * single-node too, so it is not among them.
 */
static bool in_nvl_rack(const struct pf_pci_dev *d)
{
	static const uint16_t ids[] = { 0x2941, 0x31c2, 0x31c3 };

	if (d->vendor != PF_PCI_VENDOR_NVIDIA)
		return false;
	for (size_t i = 0; i < PF_ARRAY_SIZE(ids); i++)
		if (d->device == ids[i])
			return true;
	return false;
}

/* NVML's name of a return code a fabric status carries, or NULL. */
static const char *nvml_return_name(unsigned int r)
{
	switch (r) {
	case 0: return "NVML_SUCCESS";
	case 2: return "NVML_ERROR_INVALID_ARGUMENT";
	case 3: return "NVML_ERROR_NOT_SUPPORTED";
	case 12: return "NVML_ERROR_TIMEOUT";
	case 15: return "NVML_ERROR_GPU_IS_LOST";
	case 20: return "NVML_ERROR_MEMORY";
	case 23: return "NVML_ERROR_INSUFFICIENT_RESOURCES";
	case 27: return "NVML_ERROR_NOT_READY";
	case 999: return "NVML_ERROR_UNKNOWN";
	default: return NULL;
	}
}

static void observe(struct pf_finding *f, const struct pf_gpu_fabric *fab)
{
	char uuid[40], mask[16];

	pf_obs_str(f, "state", pf_gpu_fabric_state_name(fab->state));
	pf_obs_num(f, "status", fab->status);
	pf_obs_num(f, "clique_id", fab->clique_id);
	pf_obs_str(f, "cluster_uuid", pf_gpu_fabric_uuid_string(fab, uuid, sizeof(uuid)));
	snprintf(mask, sizeof(mask), "0x%08x", fab->health_mask);
	pf_obs_str(f, "health_mask", mask);
	if (fab->version >= 3)
		pf_obs_str(f, "health_summary", pf_gpu_fabric_summary_name(fab->health_summary));
	pf_obs_num(f, "struct_version", fab->version);
}

struct tally {
	size_t fabric;     /* GPUs with a fabric */
	size_t unsupported;
	size_t unknown;    /* not queried or not recorded */
	/* the first GPU's domain, to tell a node split across two */
	bool have_domain;
	unsigned int clique;
	unsigned char uuid[16];
};

/* Domain membership: clique and cluster UUID non-zero, and the same on every GPU. */
static bool judge_domain(struct pf_result *res, const char *bdf, const struct pf_gpu_fabric *fab,
			 struct tally *t)
{
	struct pf_finding *f;

	if (fab->clique_id == 0 || pf_gpu_fabric_uuid_zero(fab)) {
		f = pf_add(res, PF_STATUS_FAIL, bdf, "NVLink fabric registered but %s%s%s: the GPU "
			   "is in no NVLink domain, so multi-node NVLink (MNNVL) cannot use it",
			   fab->clique_id == 0 ? "clique ID 0" : "",
			   fab->clique_id == 0 && pf_gpu_fabric_uuid_zero(fab) ? " and " : "",
			   pf_gpu_fabric_uuid_zero(fab) ? "cluster UUID all zero" : "");
		pf_remedy(f, "check the rack's NVLink switch trays and NMX/fabric manager "
			  "partition for this compute tray; nvidia-smi -q | grep -A6 Fabric");
		pf_code(f, 3);
		observe(f, fab);
		return false;
	}
	if (!t->have_domain) {
		t->have_domain = true;
		t->clique = fab->clique_id;
		memcpy(t->uuid, fab->cluster_uuid, sizeof(t->uuid));
	} else if (t->clique != fab->clique_id || memcmp(t->uuid, fab->cluster_uuid, 16)) {
		f = pf_add(res, PF_STATUS_FAIL, bdf, "clique %u of another cluster than the node's "
			   "first GPU (clique %u): the node's GPUs are split across NVLink domains",
			   fab->clique_id, t->clique);
		pf_remedy(f, "check the NVLink partition this tray's GPUs are assigned to");
		pf_code(f, 4);
		observe(f, fab);
		return false;
	}
	return true;
}

/* One GPU's fabric state. */
static void judge_gpu(struct pf_result *res, const char *bdf, const struct pf_gpu_fabric *fab,
		      bool domain, struct tally *t)
{
	const char *problems[8];
	size_t n = pf_gpu_fabric_health_problems(fab->health_mask, problems, PF_ARRAY_SIZE(problems));
	const char *st = nvml_return_name(fab->status);
	struct pf_finding *f;
	char list[256] = "";

	if (fab->state != PF_NVML_GPU_FABRIC_STATE_COMPLETED) {
		f = pf_add(res, PF_STATUS_FAIL, bdf, "NVLink fabric registration %s, expected "
			   "completed: NVLink peer access is not set up", pf_gpu_fabric_state_name(fab->state));
		pf_remedy(f, "on HGX/DGX: systemctl status nvidia-fabricmanager (active, same version "
			  "as the driver); on GB200/GB300: the rack's NVLink switch trays (NMX); "
			  "registration can take minutes after boot, then rerun");
		pf_code(f, 1);
		observe(f, fab);
		return;
	}
	if (fab->status != 0) {
		f = pf_add(res, PF_STATUS_FAIL, bdf, "NVLink fabric registration completed with "
			   "status %u (%s)", fab->status, st ? st : "an NVML error");
		pf_remedy(f, "the fabric refused this GPU: check the fabric manager's log "
			  "(/var/log/fabricmanager.log) or the NVLink switch trays, then reset the GPU");
		pf_code(f, 2);
		observe(f, fab);
		return;
	}
	if (domain && !judge_domain(res, bdf, fab, t))
		return;
	for (size_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 problems[i]);
	if (n || fab->health_summary == PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY) {
		f = pf_add(res, PF_STATUS_FAIL, bdf, "NVLink fabric unhealthy: %s (health mask "
			   "0x%08x)", n ? list : "summary unhealthy", fab->health_mask);
		pf_remedy(f, "the GPU's NVLinks or the switch trays it reaches are degraded: "
			  "nvidia-smi nvlink -s; drain and have the rack's fabric checked");
		pf_code(f, 5);
	} else if (fab->health_summary == PF_NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY) {
		f = pf_add(res, PF_STATUS_WARN, bdf, "NVLink fabric at limited capacity (health "
			   "summary), health mask 0x%08x names no fault", fab->health_mask);
		pf_remedy(f, "nvidia-smi -q | grep -A10 Fabric; have the rack's fabric checked");
		pf_code(f, 6);
	} else {
		f = pf_add(res, PF_STATUS_PASS, bdf, "NVLink fabric completed, status success%s",
			   domain ? ", in a clique of a cluster" : "");
	}
	observe(f, fab);
}

/*
 * In a domain, the fabric-handle probe on a GPU registered in the fabric:
 * CUDA's attribute can say supported while the export or import fails
 * (no IMEX channel, the IMEX daemon down), which is what NCCL then hits.
 */
static void judge_fabric_handle(const struct pf_ctx *ctx, const char *bdf, struct pf_result *res)
{
	pf_autofree char *why = NULL;
	struct pf_finding *f;
	char subject[48];
	int r = ctx->prov->gpu->cuda_fabric_handle(ctx, bdf, &why);

	snprintf(subject, sizeof(subject), "%s fabric handle", bdf);
	if (r == 1) {
		pf_add(res, PF_STATUS_PASS, subject, "cuMemCreate with CU_MEM_HANDLE_TYPE_FABRIC, "
		       "exported and imported back");
	} else if (r == 0) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_"
			   "SUPPORTED is 0: NCCL cannot use multi-node NVLink from this GPU");
		pf_remedy(f, "a driver with fabric handles (CUDA 12.4+ on GB200), and the IMEX "
			  "service (nvidia-imex) running");
		pf_code(f, 10);
	} else if (r == -EIO) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "the fabric-handle probe failed: %s", why);
		pf_remedy(f, "CUDA_ERROR_NOT_PERMITTED: no IMEX channel the process can open, or "
			  "the nvidia-imex service is not running (systemctl status nvidia-imex; "
			  "nvidia-imex-ctl -N)");
		pf_code(f, 11);
	} else {
		pf_add(res, PF_STATUS_SKIP, subject, "fabric-handle probe not run: %s",
		       why ? why : strerror(-r));
	}
}

static void gpu_fabric(const struct pf_ctx *ctx, const char *bdf, bool domain,
		       struct pf_result *res, struct tally *t)
{
	struct pf_gpu_fabric fab;
	pf_autofree char *why = NULL;
	struct pf_finding *f;
	int r = ctx->prov->gpu->gpu_fabric(ctx, bdf, &fab, &why);

	if (r == -ENOSYS || r == -ENOENT || r == -ENOMEDIUM || r == -ENODEV) {
		pf_add(res, PF_STATUS_SKIP, bdf, "nvmlDeviceGetGpuFabricInfoV not queried: %s",
		       why ? why : strerror(-r));
		t->unknown++;
		return;
	}
	if (r < 0) {
		pf_add(res, PF_STATUS_ERROR, bdf, "%s", why ? why : strerror(-r));
		t->unknown++;
		return;
	}
	if (!fab.supported) {
		t->unsupported++;
		if (!domain) {
			pf_add(res, PF_STATUS_SKIP, bdf, "nvmlDeviceGetGpuFabricInfoV: "
			       "NVML_ERROR_NOT_SUPPORTED: the GPU has no NVLink fabric");
			return;
		}
		f = pf_add(res, PF_STATUS_FAIL, bdf, "nvmlDeviceGetGpuFabricInfoV: "
			   "NVML_ERROR_NOT_SUPPORTED on a GPU expected in an NVLink domain");
		pf_remedy(f, "a GB200/GB300 GPU (or a profile requiring an NVLink domain) without "
			  "fabric support: check the driver and the GPU's NVLinks (nvidia-smi -q)");
		pf_code(f, 7);
		return;
	}
	t->fabric++;
	judge_gpu(res, bdf, &fab, domain, t);
	if (domain && fab.state == PF_NVML_GPU_FABRIC_STATE_COMPLETED)
		judge_fabric_handle(ctx, bdf, res);
}

/* /dev/nvidia-caps-imex-channels/channel*: present, openable by the job's user. */
static void judge_imex_channels(const struct pf_ctx *ctx, struct pf_result *res)
{
	struct pf_devnodes dn = { 0 };
	struct pf_job_user user;
	bool live = pf_prov_can(ctx, PF_PROV_NODE);
	bool known = ctx->prov->job_user(ctx, &user) >= 0;
	size_t n = 0, ok = 0;
	struct pf_finding *f;
	int r = ctx->prov->devnodes(ctx, IMEX_DIR, &dn);

	if (r < 0 && (r != -ENOENT || !live)) {
		pf_add(res, PF_STATUS_SKIP, IMEX_DIR, "device nodes not %s (%s): IMEX channels not "
		       "judged", live ? "listed" : "recorded", strerror(-r));
		return;
	}
	for (size_t i = 0; i < dn.n; i++) {
		const struct pf_devnode *d = &dn.v[i];

		if (strncmp(d->name, "channel", 7) || d->type != 'c')
			continue;
		n++;
		if (known ? pf_job_user_can_rw(&user, d->uid, d->gid, d->mode)
			  : (d->mode & 0006) == 0006)
			ok++;
	}
	if (!n) {
		f = pf_add(res, PF_STATUS_FAIL, IMEX_DIR, "no IMEX channel device: NCCL's "
			   "multi-node NVLink fails with CUDA error 800 'operation not permitted'");
		pf_remedy(f, "create channel 0: 'options nvidia NVreg_CreateImexChannel0=1' in "
			  "/etc/modprobe.d (channels do not survive a reboot), or mknod "
			  IMEX_DIR "/channel0 c <major of nvidia-caps-imex-channels in "
			  "/proc/devices> 0");
		pf_code(f, 8);
	} else if (!ok && known) {
		f = pf_add(res, PF_STATUS_FAIL, IMEX_DIR, "%zu IMEX channel%s, none openable for "
			   "reading and writing by uid %u", n, n == 1 ? "" : "s", user.uid);
		pf_remedy(f, "give the job's user access to a channel (its group, or the container "
			  "runtime's --device " IMEX_DIR "/channel0)");
		pf_code(f, 9);
	} else if (!ok) {
		f = pf_add(res, PF_STATUS_SKIP, IMEX_DIR, "%zu IMEX channel%s, none world-"
			   "writable: whether the job's user may open one depends on who that is "
			   "(not recorded)", n, n == 1 ? "" : "s");
	} else {
		f = pf_add(res, PF_STATUS_PASS, IMEX_DIR, "%zu IMEX channel%s, %zu openable by %s",
			   n, n == 1 ? "" : "s", ok, known ? "the job's user" : "everyone");
	}
	pf_obs_num(f, "channels", (double)n);
	pf_obs_num(f, "openable", (double)ok);
	pf_devnodes_release(&dn);
}

/* NVSwitch functions on the PCI bus (vendor 10de, class 0x0680): an HGX/DGX baseboard. */
static size_t count_nvswitches(const struct pf_node *node)
{
	size_t n = 0;

	for (size_t i = 0; i < node->n_pci; i++)
		n += node->pci[i].vendor == PF_PCI_VENDOR_NVIDIA && (node->pci[i].class >> 8) == 0x0680;
	return n;
}

/* Why a service's tool said nothing, in words (@text: what a failed tool printed). */
static void svc_why(enum pf_fabric_svc which, int r, const char *text, char *buf, size_t len)
{
	const char *tool = pf_fabric_svc_tool(which);
	size_t cut = text ? strcspn(text, "\n") : 0;

	if (r == -ENOPKG)
		snprintf(buf, len, "%s is not installed in a system directory", tool);
	else if (r == -ENOENT)
		snprintf(buf, len, "not recorded (preflight/fabric/%s)", pf_fabric_svc_file(which));
	else if (r == -EIO && cut)
		snprintf(buf, len, "%s failed: %.*s", tool, (int)(cut > 160 ? 160 : cut), text);
	else
		snprintf(buf, len, "%s: %s", tool, strerror(-r));
}

/*
 * systemd's state of a service's unit into @u: 1 known, 0 with a skip
 * added (no systemctl, not recorded, no such unit: @absent says why that
 * is not a fault), and *@installed whether the unit exists.
 */
static int unit_state(const struct pf_ctx *ctx, enum pf_fabric_svc which, const char *unit,
		      const char *absent, struct pf_result *res, struct pf_unit_state *u,
		      bool *installed)
{
	pf_autofree char *text = NULL;
	int r = ctx->prov->fabric_svc(ctx, which, &text);
	char why[256];

	*installed = false;
	if (r < 0 || pf_parse_unit_state(text, u) < 0) {
		if (r < 0)
			svc_why(which, r, text, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "systemctl show printed no LoadState");
		pf_add(res, PF_STATUS_SKIP, unit, "service state not known: %s", why);
		return 0;
	}
	if (!strcmp(u->load, "not-found")) {
		pf_add(res, PF_STATUS_SKIP, unit, "no %s.service unit: %s", unit, absent);
		return 0;
	}
	*installed = true;
	return 1;
}

/* An installed unit judged by its ActiveState: active passes, starting warns, else fails. */
static void judge_unit(struct pf_result *res, const char *unit, const struct pf_unit_state *u,
		       int code_down, const char *remedy, const char *why_down)
{
	struct pf_finding *f;

	if (!strcmp(u->active, "active")) {
		f = pf_add(res, PF_STATUS_PASS, unit, "%s.service active (%s)", unit,
			   u->sub[0] ? u->sub : "running");
	} else if (!strcmp(u->active, "activating") || !strcmp(u->active, "reloading")) {
		f = pf_add(res, PF_STATUS_WARN, unit, "%s.service %s: not ready yet", unit, u->active);
		pf_remedy(f, "rerun once it has started; if it stays there: journalctl -u %s", unit);
		pf_code(f, 19);
	} else {
		f = pf_add(res, PF_STATUS_FAIL, unit, "%s.service %s (%s): %s", unit,
			   u->active[0] ? u->active : "in no state", u->sub[0] ? u->sub : "?", why_down);
		pf_remedy(f, "%s", remedy);
		pf_code(f, code_down);
	}
	pf_obs_str(f, "load_state", u->load);
	pf_obs_str(f, "active_state", u->active);
	pf_obs_str(f, "sub_state", u->sub);
}

/* Fabric Manager's version against the kernel driver's: it refuses to run on another. */
static void judge_fm_version(const struct pf_ctx *ctx, struct pf_result *res)
{
	static const char subject[] = FM " version";
	pf_autofree char *text = NULL, *line = NULL;
	char fm[32], drv[32], why[256];
	bool open = false;
	struct pf_finding *f;
	int r = ctx->prov->fabric_svc(ctx, PF_SVC_FM_VERSION, &text);

	if (r < 0) {
		svc_why(PF_SVC_FM_VERSION, r, text, why, sizeof(why));
		pf_add(res, PF_STATUS_SKIP, subject, "Fabric Manager's version not known: %s", why);
		return;
	}
	if (pf_parse_fm_version(text, fm, sizeof(fm)) < 0) {
		pf_add(res, PF_STATUS_SKIP, subject, "nv-fabricmanager --version printed no version");
		return;
	}
	r = pf_fs_read_line(ctx->fs, "/proc/driver/nvidia/version", &line);
	if (r < 0 || pf_parse_nvidia_version(line, drv, sizeof(drv), &open) < 0) {
		f = pf_add(res, PF_STATUS_SKIP, subject, "Fabric Manager %s; the driver's version "
			   "is not known (/proc/driver/nvidia/version: %s)", fm,
			   r < 0 ? strerror(-r) : "no version in it");
		pf_obs_str(f, "fabricmanager_version", fm);
		return;
	}
	if (strcmp(fm, drv)) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "Fabric Manager %s on driver %s: Fabric "
			   "Manager runs only on the driver of its own version, so the GPUs are not "
			   "registered in the NVLink fabric", fm, drv);
		pf_remedy(f, "install the nvidia-fabricmanager package of the driver's version "
			  "(and libnvidia-nscq of the same), then systemctl restart " FM);
		pf_code(f, 13);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "Fabric Manager %s, the driver's version", fm);
	}
	pf_obs_str(f, "fabricmanager_version", fm);
	pf_obs_str(f, "driver_version", drv);
}

/* HGX/DGX with NVSwitches: nvidia-fabricmanager active, its version the driver's. */
static void judge_fabric_manager(const struct pf_ctx *ctx, struct pf_result *res)
{
	struct pf_unit_state u;
	bool installed;

	if (unit_state(ctx, PF_SVC_FM_UNIT, FM, "Fabric Manager may run outside systemd (the GPU "
		       "Operator's driver container); each GPU's registration is judged", res, &u,
		       &installed) > 0)
		judge_unit(res, FM, &u, 12, "systemctl start " FM "; if it stops again, "
			   "/var/log/fabricmanager.log (most often a version other than the "
			   "driver's after an upgrade)", "the NVSwitches are not configured, so GPUs "
			   "get no NVLink peers");
	judge_fm_version(ctx, res);
}

/* This node's IPv4 addresses as text; *ret_all: every netdev's were known. */
static size_t own_addresses(const struct pf_ctx *ctx, char (*addr)[16], size_t max, bool *ret_all)
{
	const struct pf_node *node = ctx->node;
	size_t n = 0;

	*ret_all = node->n_netdevs > 0;
	for (size_t i = 0; i < node->n_netdevs; i++) {
		struct pf_ipv4_addrs a = { 0 };

		/* a virtual netdev's addresses are not recorded: unknown either way */
		if (node->netdevs[i].is_virtual ||
		    ctx->prov->ipv4_addrs(ctx, node->netdevs[i].name, &a) < 0) {
			*ret_all = false;
			continue;
		}
		for (size_t k = 0; k < a.n && n < max; k++) {
			uint32_t v = a.v[k].addr;

			snprintf(addr[n++], 16, "%u.%u.%u.%u", v >> 24, (v >> 16) & 0xff,
				 (v >> 8) & 0xff, v & 0xff);
		}
	}
	return n;
}

static bool is_own(const char *host, char (*own)[16], size_t n_own)
{
	for (size_t i = 0; i < n_own; i++)
		if (!strcmp(host, own[i]))
			return true;
	return false;
}

/* `nvidia-imex-ctl -N -j`: this node's instance READY and connected to its peers. */
static void judge_imex_status(const struct pf_ctx *ctx, char (*own)[16], size_t n_own,
			      struct pf_result *res)
{
	static const char subject[] = IMEX " domain";
	pf_autofree char *text = NULL;
	pf_autofree struct pf_imex_status *st = pf_xcalloc(1, sizeof(*st));
	const struct pf_imex_node *me = NULL;
	struct pf_finding *f;
	char why[256];
	int r = ctx->prov->fabric_svc(ctx, PF_SVC_IMEX_STATUS, &text);

	if (r < 0) {
		svc_why(PF_SVC_IMEX_STATUS, r, text, why, sizeof(why));
		pf_add(res, PF_STATUS_SKIP, subject, "IMEX domain status not known: %s%s", why,
		       r == -EIO ? " (the tool needs IMEX's command service: IMEX_CMD_ENABLED=1 in "
		       IMEX_CONFIG ")" : "");
		return;
	}
	if (pf_parse_imex_status(text, strlen(text), st) < 0) {
		pf_add(res, PF_STATUS_SKIP, subject, "nvidia-imex-ctl -N -j printed no domain "
		       "status (not the JSON object expected)");
		return;
	}
	for (size_t i = 0; i < st->n_nodes && !me; i++)
		if (st->n_nodes == 1 || is_own(st->nodes[i].host, own, n_own))
			me = &st->nodes[i];
	if (me && strcmp(me->status, "READY")) {
		f = pf_add(res, PF_STATUS_FAIL, subject, "this node's IMEX instance (%s) is %s, not "
			   "READY: memory cannot be shared over NVLink with the other nodes",
			   me->host[0] ? me->host : "?", me->status[0] ? me->status : "in no state");
		pf_remedy(f, "journalctl -u " IMEX "; every node of the domain must list the same "
			  "addresses in its node list and run the same IMEX version");
		pf_code(f, 15);
	} else if (me && me->n_connected < me->n_conn) {
		f = pf_add(res, PF_STATUS_WARN, subject, "IMEX READY, %zu of %zu connections not "
			   "connected: %s", me->n_conn - me->n_connected, me->n_conn,
			   me->not_connected);
		pf_remedy(f, "the peers named may be down (their own preflight says); else check "
			  "the route and firewall to them (IMEX's SERVER_PORT, 50000 by default)");
		pf_code(f, 16);
	} else if (me) {
		f = pf_add(res, PF_STATUS_PASS, subject, "this node's IMEX instance (%s) READY, "
			   "connected to %zu of %zu", me->host, me->n_connected, me->n_conn);
	} else if (strcmp(st->domain, "UP")) {
		f = pf_add(res, PF_STATUS_WARN, subject, "IMEX domain %s, and this node's entry "
			   "is not among the %zu listed by an address known here",
			   st->domain[0] ? st->domain : "in no state", st->n_nodes);
		pf_remedy(f, "nvidia-imex-ctl -N: see which instance is not READY");
		pf_code(f, 16);
	} else {
		f = pf_add(res, PF_STATUS_PASS, subject, "IMEX domain UP (%zu nodes)", st->n_nodes);
	}
	pf_obs_str(f, "domain_status", st->domain);
	pf_obs_num(f, "nodes", (double)st->n_nodes);
	if (me) {
		pf_obs_str(f, "node_status", me->status);
		pf_obs_num(f, "connections", (double)me->n_conn);
		pf_obs_num(f, "connected", (double)me->n_connected);
		if (me->version[0])
			pf_obs_str(f, "imex_version", me->version);
	}
}

/* The node list IMEX reads: present, every line an address, one of them this node's. */
static void judge_imex_nodes(const struct pf_ctx *ctx, bool installed, char (*own)[16],
			     size_t n_own, bool all_known, struct pf_result *res)
{
	pf_autofree char *config = NULL, *text = NULL;
	pf_autofree struct pf_imex_nodes *nl = pf_xcalloc(1, sizeof(*nl));
	const char *mine = NULL;
	struct pf_finding *f;
	char path[256];
	int r = pf_fs_read_full(ctx->fs, IMEX_CONFIG, IMEX_FILE_MAX, &config, NULL);

	installed |= r >= 0;
	pf_imex_nodes_path(r >= 0 ? config : NULL, path, sizeof(path));
	r = pf_fs_read_full(ctx->fs, path, IMEX_FILE_MAX, &text, NULL);
	if (r == -ENOENT && !installed) {
		pf_add(res, PF_STATUS_SKIP, path, "IMEX is not installed here (no %s.service, no "
		       IMEX_CONFIG ", no %s)", IMEX, path);
		return;
	}
	if (r < 0 && r != -ENOENT) {
		pf_add(res, PF_STATUS_ERROR, path, "cannot read %s: %s", path, strerror(-r));
		return;
	}
	if (r >= 0)
		pf_parse_imex_nodes(text, nl);
	if (r < 0 || !nl->n) {
		f = pf_add(res, PF_STATUS_FAIL, path, "%s: IMEX has no node list, so it cannot "
			   "form the NVLink domain", r < 0 ? "absent" : "lists no IP address");
		pf_remedy(f, "write the IP address of every node of the NVLink domain into %s, one "
			  "a line (the same file on each node), then systemctl restart " IMEX, path);
		pf_code(f, 17);
		pf_obs_num(f, "addresses", 0);
		return;
	}
	for (size_t i = 0; i < nl->n && !mine; i++)
		if (is_own(nl->addr[i], own, n_own))
			mine = nl->addr[i];
	if (nl->n_bad) {
		f = pf_add(res, PF_STATUS_WARN, path, "line %u is no IP address (%zu such line%s): "
			   "IMEX reads one address a line", nl->first_bad, nl->n_bad,
			   nl->n_bad == 1 ? "" : "s");
		pf_remedy(f, "one IPv4 or IPv6 address a line, '#' for comments");
		pf_code(f, 18);
	} else if (!mine && all_known && n_own) {
		f = pf_add(res, PF_STATUS_WARN, path, "lists %zu address%s, none of this node's "
			   "%zu: IMEX finds its own address in this list", nl->n,
			   nl->n == 1 ? "" : "es", n_own);
		pf_remedy(f, "add this node's address on the IMEX network (or set "
			  "BIND_INTERFACE_IP in " IMEX_CONFIG ")");
		pf_code(f, 18);
	} else {
		f = pf_add(res, PF_STATUS_PASS, path, "lists %zu address%s%s%s", nl->n,
			   nl->n == 1 ? "" : "es", mine ? ", this node's " : "",
			   mine ? mine : "; this node's own are not all known here");
	}
	pf_obs_num(f, "addresses", (double)(nl->n + nl->n_more));
	if (mine)
		pf_obs_str(f, "own_address", mine);
}

/* In a domain: the IMEX service, its domain status, its node list. */
static void judge_imex(const struct pf_ctx *ctx, struct pf_result *res)
{
	char own[64][16];
	bool all_known, installed;
	struct pf_unit_state u;
	size_t n_own = own_addresses(ctx, own, PF_ARRAY_SIZE(own), &all_known);

	if (unit_state(ctx, PF_SVC_IMEX_UNIT, IMEX, "IMEX may run outside systemd (the DRA "
		       "driver's compute domain); the fabric-handle probe judges its work", res, &u,
		       &installed) > 0)
		judge_unit(res, IMEX, &u, 14, "systemctl start " IMEX "; its log: journalctl -u "
			   IMEX, "GPU memory cannot be shared over NVLink with other nodes");
	judge_imex_status(ctx, own, n_own, res);
	judge_imex_nodes(ctx, installed, own, n_own, all_known, res);
}

static int nvlink_fabric_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nvlink_fabric_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct tally t = { 0 };
	bool domain = cfg->require_domain, rack = false;

	if (!node->n_gpus)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus");
	for (size_t i = 0; i < node->n_gpus; i++)
		rack |= in_nvl_rack(&node->pci[node->gpus[i].pci]);
	domain |= rack;
	for (size_t i = 0; i < node->n_gpus; i++)
		gpu_fabric(ctx, node->pci[node->gpus[i].pci].bdf, domain, res, &t);
	if (domain)
		judge_imex_channels(ctx, res);
	/* Fabric Manager: NVSwitches on the bus, or GPUs registered outside a domain (HGX) */
	if (!rack && (count_nvswitches(node) || (t.fabric && !domain)))
		judge_fabric_manager(ctx, res);
	if (domain)
		judge_imex(ctx, res);
	for (size_t i = 0; i < res->n_findings; i++)
		if (res->findings[i].status != PF_STATUS_PASS &&
		    res->findings[i].status != PF_STATUS_SKIP)
			return 0;
	if (!t.fabric && t.unsupported)
		pf_summary(res, "no NVLink fabric: NVML answers NOT_SUPPORTED on %zu GPU%s",
			   t.unsupported, t.unsupported == 1 ? "" : "s");
	else if (t.fabric)
		pf_summary(res, "%zu GPU%s registered in the NVLink fabric%s", t.fabric,
			   t.fabric == 1 ? "" : "s", domain ? ", one clique of one cluster" : "");
	return 0;
}

static const struct pf_code nvlink_fabric_codes[] = {
	{ 1, PF_ACTION_RELOAD_DRIVER, "the GPU's NVLink fabric registration has not completed" },
	{ 2, PF_ACTION_RESET_GPU, "fabric registration completed with an error status" },
	{ 3, PF_ACTION_CONTACT_VENDOR, "in an NVLink domain but clique ID 0 or cluster UUID zero" },
	{ 4, PF_ACTION_CONTACT_VENDOR, "the node's GPUs report different cliques or clusters" },
	{ 5, PF_ACTION_RESEAT_OR_REPLACE, "the fabric health mask names a fault, or summary unhealthy" },
	{ 6, PF_ACTION_NONE, "the fabric health summary says limited capacity" },
	{ 7, PF_ACTION_RELOAD_DRIVER, "a GPU expected in an NVLink domain reports no fabric support" },
	{ 8, PF_ACTION_RECONFIGURE, "no IMEX channel device node" },
	{ 9, PF_ACTION_RECONFIGURE, "no IMEX channel the job's user can open" },
	{ 10, PF_ACTION_RELOAD_DRIVER, "in an NVLink domain, CUDA reports no fabric-handle support" },
	{ 11, PF_ACTION_RECONFIGURE, "the fabric-handle probe (create, export, import) failed" },
	{ 12, PF_ACTION_RECONFIGURE, "NVSwitches present, nvidia-fabricmanager.service not active" },
	{ 13, PF_ACTION_RECONFIGURE, "Fabric Manager's version is not the driver's" },
	{ 14, PF_ACTION_RECONFIGURE, "in an NVLink domain, nvidia-imex.service not active" },
	{ 15, PF_ACTION_RECONFIGURE, "this node's IMEX instance is not READY" },
	{ 16, PF_ACTION_NONE, "IMEX connections to peers not connected, or the domain not UP" },
	{ 17, PF_ACTION_RECONFIGURE, "IMEX's node list is absent or lists no address" },
	{ 18, PF_ACTION_RECONFIGURE, "IMEX's node list holds a line that is no address, or not this node's" },
	{ 19, PF_ACTION_NONE, "a fabric service is still starting" },
	{ 0 },
};

const struct pf_check pf_check_nvlink_fabric = {
	.name = "nvlink_fabric",
	.summary = "NVLink fabric ready: registration, health, clique and cluster, IMEX channels, "
		   "Fabric Manager and IMEX services",
	.tags = "gpu,nvlink,static",
	.reads = "node inventory (PCI), nvmlDeviceGetGpuFabricInfoV "
		 "(<root>/preflight/nvml/gpu_fabric), in a domain libcuda.so.1's fabric-handle "
		 "probe (<root>/preflight/cuda/fabric_handle), " IMEX_DIR " (<root>/preflight/ls" IMEX_DIR
		 "), the job's user (<root>/preflight/job_user), on NVSwitch systems "
		 "nvidia-fabricmanager's unit state and version (<root>/preflight/fabric/"
		 "fabricmanager.*) and /proc/driver/nvidia/version, in a domain nvidia-imex's "
		 "unit state, nvidia-imex-ctl -N -j (<root>/preflight/fabric/imex.*), "
		 IMEX_CONFIG " and its node list, the netdevs' IPv4 addresses",
	.params = nvlink_fabric_params,
	.codes = nvlink_fabric_codes,
	.cfg_size = sizeof(struct nvlink_fabric_cfg),
	.timeout_s = 30,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nvlink_fabric_run,
};
