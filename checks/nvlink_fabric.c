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
 */
#include <stdio.h>
#include <string.h>

#include "preflight/check.h"
#include "preflight/gpu_provider.h"
#include "preflight/job.h"
#include "preflight/node.h"
#include "preflight/providers.h"

#define IMEX_DIR "/dev/nvidia-caps-imex-channels"

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

static int nvlink_fabric_run(const struct pf_ctx *ctx, const void *config, struct pf_result *res)
{
	const struct nvlink_fabric_cfg *cfg = config;
	const struct pf_node *node = ctx->node;
	struct tally t = { 0 };
	bool domain = cfg->require_domain;

	if (!node->n_gpus)
		return pf_skip(res, "no NVIDIA GPU on the PCI bus");
	for (size_t i = 0; i < node->n_gpus; i++)
		domain |= in_nvl_rack(&node->pci[node->gpus[i].pci]);
	for (size_t i = 0; i < node->n_gpus; i++)
		gpu_fabric(ctx, node->pci[node->gpus[i].pci].bdf, domain, res, &t);
	if (domain)
		judge_imex_channels(ctx, res);
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
	{ 0 },
};

const struct pf_check pf_check_nvlink_fabric = {
	.name = "nvlink_fabric",
	.summary = "NVLink fabric ready: registration, health, clique and cluster, IMEX channels",
	.tags = "gpu,nvlink,static",
	.reads = "node inventory (PCI), nvmlDeviceGetGpuFabricInfoV "
		 "(<root>/preflight/nvml/gpu_fabric), in a domain libcuda.so.1's fabric-handle "
		 "probe (<root>/preflight/cuda/fabric_handle), " IMEX_DIR " (<root>/preflight/ls" IMEX_DIR
		 "), the job's user (<root>/preflight/job_user)",
	.params = nvlink_fabric_params,
	.codes = nvlink_fabric_codes,
	.cfg_size = sizeof(struct nvlink_fabric_cfg),
	.timeout_s = 30,
	.flags = PF_CHECK_NEEDS_NODE | PF_CHECK_LOADS_LIBRARIES,
	.run = nvlink_fabric_run,
};
