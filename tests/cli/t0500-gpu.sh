#!/bin/sh
# SPDX-License-Identifier: MIT
# gpu_inventory, nvidia_peermem and nccl_allreduce end to end on generated
# 8-GPU roots (tests/gen_root.py) with the recorded GPU facts of
# docs/snapshot.md: a clean node passes, an Xid 79 and a missing GPU fail
# with their meaning, GPUDirect RDMA passes through peermem or DMA-BUF and
# fails without either, and the traffic check skips under --root.
. "$(dirname "$0")/lib.sh"

ROOT=$T/node
"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 8 --nics 8 --no-peermem "$ROOT" >/dev/null ||
	{ echo "gen_root.py failed"; exit 1; }

# the NVIDIA functions gen_root wrote
GPUS=$(cd "$ROOT/sys/bus/pci/devices" && for d in *; do
	[ "$(cat "$d/vendor")" = 0x10de ] && case $(cat "$d/class") in 0x03*) echo "$d" ;; esac
done)
set -- $GPUS
[ $# -eq 8 ] && ok "gen_root wrote 8 GPUs" || not_ok "gen_root wrote $# GPUs"
THIRD=$3

mkdir -p "$ROOT/proc/driver/nvidia" "$ROOT/preflight"
echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024" \
	>"$ROOT/proc/driver/nvidia/version"
for g in $GPUS; do
	mkdir -p "$ROOT/proc/driver/nvidia/gpus/$g"
	printf 'Model: \t\t NVIDIA H100 80GB HBM3\n' >"$ROOT/proc/driver/nvidia/gpus/$g/information"
done
: >"$ROOT/preflight/kmsg"

# status CHECK: the check's status in $T/out
status() {
	jq_py "$T/out" "[c['status'] for c in r['checks'] if c['name'] == '$1'][0]"
}
finding() { # CHECK SUBJECT FIELD
	jq_py "$T/out" "[f.get('$3') for c in r['checks'] if c['name'] == '$1' for f in c['findings'] if f['subject'] == '$2'][0]"
}

pf --root "$ROOT" --only gpu_inventory --set gpu_inventory.expected_gpus=8 --format json
expect_rc 0 "clean 8-GPU root"
[ "$(status gpu_inventory)" = pass ] && ok "gpu_inventory pass" ||
	not_ok "gpu_inventory $(status gpu_inventory): $(head -c 600 "$T/out")"
[ "$(finding gpu_inventory cuda status)" = skip ] && ok "CUDA not queried under --root" ||
	not_ok "cuda finding $(finding gpu_inventory cuda status)"

# min_cuda: the driver's CUDA version is never known offline: a skip, not a failure
pf --root "$ROOT" --only gpu_inventory --set gpu_inventory.min_cuda=12.4 --format json
expect_rc 0 "min_cuda under --root"
[ "$(finding gpu_inventory cuda_version status)" = skip ] && ok "min_cuda skipped offline" ||
	not_ok "cuda_version finding $(finding gpu_inventory cuda_version status)"
expect_usage gpu_inventory.min_cuda --root "$ROOT" --only gpu_inventory --set gpu_inventory.min_cuda=12

pf --root "$ROOT" --only gpu_inventory --set gpu_inventory.expected_gpus=9 --format json
expect_rc 1 "expected 9 GPUs"
[ "$(finding gpu_inventory pci status)" = fail ] && ok "pci count fails" || not_ok "pci count"

# an Xid 79 on the third GPU, 10 minutes ago (gen_root's uptime is the reference)
UP=$(cut -d' ' -f1 "$ROOT/proc/uptime" | cut -d. -f1)
PCI=${THIRD%.*}
echo "[$((UP - 600)).000000] NVRM: Xid (PCI:$PCI): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
	>"$ROOT/preflight/kmsg"
pf --root "$ROOT" --only gpu_inventory --format json
expect_rc 1 "Xid 79"
msg=$(finding gpu_inventory "$THIRD/xid" message)
case $msg in
*"Xid 79 (GPU has fallen off the bus)"*) ok "Xid 79 named on $THIRD" ;;
*) not_ok "Xid finding: $msg" ;;
esac
: >"$ROOT/preflight/kmsg"

# GPUDirect RDMA: neither path, then peermem, then DMA-BUF only
echo 6.8.0-45-generic >"$ROOT/proc/sys/kernel/osrelease" 2>/dev/null ||
	{ mkdir -p "$ROOT/proc/sys/kernel" && echo 6.8.0-45-generic >"$ROOT/proc/sys/kernel/osrelease"; }
# no /proc/modules nor /sys/module: whether peermem is loaded is unknown
pf --root "$ROOT" --only nvidia_peermem --format json
expect_rc 0 "module list not captured: a skip, not an error"
[ "$(status nvidia_peermem)" = skip ] && ok "undecided in a snapshot is a skip" ||
	not_ok "nvidia_peermem $(status nvidia_peermem)"
printf 'nvidia_uvm 4956160 0 - Live 0x0000000000000000 (POE)\nnvidia 54312960 1 nvidia_uvm, Live 0x0000000000000000 (POE)\n' \
	>"$ROOT/proc/modules"
pf --root "$ROOT" --only nvidia_peermem --format json
expect_rc 1 "no peermem, proprietary module"
case $(finding nvidia_peermem gpudirect_rdma remedy) in
*"modprobe nvidia_peermem"*"/etc/modules-load.d/"*) ok "remedy names modprobe and modules-load.d" ;;
*) not_ok "remedy: $(finding nvidia_peermem gpudirect_rdma remedy)" ;;
esac

mkdir -p "$ROOT/sys/module/nvidia_peermem"
echo 550.54.15 >"$ROOT/sys/module/nvidia_peermem/version"
pf --root "$ROOT" --only nvidia_peermem --format json
expect_rc 0 "nvidia_peermem loaded"
[ "$(jq_py "$T/out" "r['checks'][0]['findings'][0]['observed']['mode']")" = peermem ] &&
	ok "mode peermem" || not_ok "mode $(jq_py "$T/out" "r['checks'][0]['findings'][0]['observed']")"
rm -r "$ROOT/sys/module/nvidia_peermem"

echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Thu Sep 25 2025" \
	>"$ROOT/proc/driver/nvidia/version"
mkdir -p "$ROOT/preflight/cuda" "$ROOT/preflight/ibverbs"
echo 1 >"$ROOT/preflight/cuda/dmabuf_supported"
echo 1 >"$ROOT/preflight/ibverbs/reg_dmabuf_mr"
pf --root "$ROOT" --only nvidia_peermem --format json
expect_rc 0 "DMA-BUF only"
[ "$(jq_py "$T/out" "r['checks'][0]['findings'][0]['observed']['mode']")" = dmabuf ] &&
	ok "mode dmabuf" || not_ok "mode $(jq_py "$T/out" "r['checks'][0]['findings'][0]['observed']")"
rm "$ROOT/preflight/ibverbs/reg_dmabuf_mr"
pf --root "$ROOT" --only nvidia_peermem --format json
expect_rc 0 "DMA-BUF fact not recorded: a skip"
case $(finding nvidia_peermem gpudirect_rdma message) in
*"preflight/ibverbs/reg_dmabuf_mr"*) ok "the skip names the missing file" ;;
*) not_ok "skip message: $(finding nvidia_peermem gpudirect_rdma message)" ;;
esac

pf --root "$ROOT" --only nccl_allreduce --format json
expect_rc 0 "nccl_allreduce under --root"
[ "$(status nccl_allreduce)" = skip ] && ok "nccl_allreduce skips under --root" ||
	not_ok "nccl_allreduce $(status nccl_allreduce)"

# a GPU that fell off the bus: no NVIDIA function left, five Xid 119 in the log
NOGPU=$T/nogpu
"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 0 --nics 2 "$NOGPU" >/dev/null || not_ok "gen_root --gpus 0"
mkdir -p "$NOGPU/preflight"
: >"$NOGPU/preflight/kmsg"
pf --root "$NOGPU" --only gpu_inventory --format json
[ "$(status gpu_inventory)" = skip ] && ok "no GPU, clean log: skip" || not_ok "no GPU, clean log: $(status gpu_inventory)"
NUP=$(cut -d' ' -f1 "$NOGPU/proc/uptime" | cut -d. -f1)
for i in 1 2 3 4 5; do
	echo "[$((NUP - 600 + i)).000000] NVRM: Xid (PCI:0000:9b:00): 119, pid='<unknown>', name=<unknown>, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."
done >"$NOGPU/preflight/kmsg"
pf --root "$NOGPU" --only gpu_inventory --format json
expect_rc 1 "no GPU on the bus, five Xid 119"
[ "$(status gpu_inventory)" = fail ] && ok "Xid 119 with no GPU visible fails" ||
	not_ok "Xid 119 with no GPU visible: $(status gpu_inventory)"
jq_py "$T/out" "[f['message'] for f in r['checks'][0]['findings'] if f['subject'] == 'PCI:0000:9b:00/xid'][0]" |
	grep -q "Xid 119" && ok "the Xid is reported for 0000:9b:00" || not_ok "no Xid finding for 0000:9b:00"

done_testing
