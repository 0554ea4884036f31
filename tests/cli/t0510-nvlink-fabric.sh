#!/bin/sh
# SPDX-License-Identifier: MIT
# nvlink_fabric end to end on generated roots (tests/gen_root.py --gpu):
# a healthy GB200 NVL72 tray passes; clique 0 (Azure/azhpc-images PR #506),
# an error status, a named health fault and a missing IMEX channel each
# fail with their code; an H100 root without the fact skips naming the
# query; an HGX B200 passes without a domain and fails under the
# gb200-nvl72 profile; a snapshot of a failing root gives the same verdict;
# nccl_config judges NCCL_MNNVL_ENABLE against the same fabric facts.
. "$(dirname "$0")/lib.sh"
need_python

# status SUBJECT: that finding's status in $T/out; code SUBJECT likewise
status() {
	jq_py "$T/out" "[f['status'] for c in r['checks'] for f in c['findings'] if f['subject'] == '$1'][0]"
}
code() {
	jq_py "$T/out" "[f.get('code') for c in r['checks'] for f in c['findings'] if f['subject'] == '$1'][0]"
}
GPU0=0000:13:00.0
GPU1=0000:1b:00.0

gen_root "$T/ok" --gpu gb200 --gpus 4 --nics 4
pf --no-config --root "$T/ok" --only nvlink_fabric --format json
expect_rc 0 "healthy GB200 tray"
[ "$(jq_py "$T/out" "r['checks'][0]['status']")" = pass ] && ok "healthy: pass" ||
	not_ok "healthy: $(head -c 800 "$T/out")"
[ "$(status /dev/nvidia-caps-imex-channels)" = pass ] && ok "IMEX channel judged" ||
	not_ok "IMEX channel: $(status /dev/nvidia-caps-imex-channels)"

gen_root "$T/clique0" --gpu gb200 --gpus 4 --nics 4 --fabric-fault 0:clique=0 \
	--fabric-fault 1:status=23
pf --no-config --root "$T/clique0" --only nvlink_fabric --format json
expect_rc 1 "clique 0 fails"
[ "$(code $GPU0)" = PF-NVLINK-FABRIC-003 ] && ok "clique 0: code 003" || not_ok "clique 0: $(code $GPU0)"
[ "$(code $GPU1)" = PF-NVLINK-FABRIC-002 ] && ok "status 23: code 002" || not_ok "status: $(code $GPU1)"
grep -q INSUFFICIENT_RESOURCES "$T/out" && ok "status named" || not_ok "status not named"
cp "$T/out" "$T/direct.json"

# snapshot of the failing root, then --root on the snapshot: the same findings
pf snapshot --root "$T/clique0" --window 0 "$T/snap"
expect_rc 0 "snapshot of a recorded GB200 root"
pf --no-config --root "$T/snap" --only nvlink_fabric --format json
expect_rc 1 "the snapshot fails too"
py_ok "snapshot -> --root gives the same findings" "$T/direct.json" "$T/out" <<'PY'
import json, sys
a, b = (json.load(open(p))["checks"][0]["findings"] for p in sys.argv[1:3])
key = lambda fs: sorted((f["subject"], f["status"], f.get("code")) for f in fs)
assert key(a) == key(b), (key(a), key(b))
PY

gen_root "$T/health" --gpu gb200 --gpus 4 --nics 4 --fabric-fault 2:health=0x000015aa
pf --no-config --root "$T/health" --only nvlink_fabric --format json
expect_rc 1 "insufficient NVLinks fails"
grep -q "insufficient NVLinks" "$T/out" && ok "health field named" || not_ok "health field not named"

gen_root "$T/noimex" --gpu gb200 --gpus 4 --nics 4 --no-imex-channel
pf --no-config --root "$T/noimex" --only nvlink_fabric --format json
expect_rc 1 "no IMEX channel fails"
[ "$(code /dev/nvidia-caps-imex-channels)" = PF-NVLINK-FABRIC-008 ] && ok "no channel: 008" ||
	not_ok "no channel: $(code /dev/nvidia-caps-imex-channels)"

gen_root "$T/probe" --gpu gb200 --gpus 4 --nics 4 --fabric-handle-fail 1
pf --no-config --root "$T/probe" --only nvlink_fabric --format json
expect_rc 1 "a failed fabric-handle probe fails"
[ "$(code "$GPU1 fabric handle")" = PF-NVLINK-FABRIC-011 ] && ok "probe failure: 011" ||
	not_ok "probe: $(code "$GPU1 fabric handle")"
[ "$(status "$GPU0 fabric handle")" = pass ] && ok "the other GPU's probe passes" ||
	not_ok "probe gpu0: $(status "$GPU0 fabric handle")"

gen_root "$T/rootonly" --gpu gb200 --gpus 4 --nics 4 --imex-channel-mode 0600
pf --no-config --root "$T/rootonly" --only nvlink_fabric --format json
expect_rc 1 "a channel only root opens fails"
[ "$(code /dev/nvidia-caps-imex-channels)" = PF-NVLINK-FABRIC-009 ] && ok "root-only channel: 009" ||
	not_ok "root-only channel: $(code /dev/nvidia-caps-imex-channels)"

gen_root "$T/h100" --gpus 2 --nics 2
pf --no-config --root "$T/h100" --only nvlink_fabric --format json
expect_rc 0 "H100 root without the fact"
[ "$(jq_py "$T/out" "r['checks'][0]['status']")" = skip ] && ok "not recorded: skip" ||
	not_ok "h100: $(head -c 600 "$T/out")"
grep -q nvmlDeviceGetGpuFabricInfoV "$T/out" && ok "the skip names the query" || not_ok "query not named"

gen_root "$T/b200" --gpu b200 --gpus 8 --nics 8
pf --no-config --root "$T/b200" --only nvlink_fabric --format json
expect_rc 0 "HGX B200: registered, no domain required"
pf --no-config --root "$T/b200" --profile gb200-nvl72 --only nvlink_fabric --format json
expect_rc 1 "the gb200-nvl72 profile requires a domain"

# NCCL_MNNVL_ENABLE in nccl_config, against the same fabric facts
gen_root "$T/mnnvl-bad" --gpu gb200 --gpus 4 --nics 4 --fabric-fault 1:state=2 \
	--nccl-env NCCL_MNNVL_ENABLE=1
pf --no-config --root "$T/mnnvl-bad" --only nccl_config --format json
[ "$(code NCCL_MNNVL_ENABLE)" = PF-NCCL-CONFIG-101 ] && ok "MNNVL forced on a fabric in progress: 101" ||
	not_ok "MNNVL=1, not ready: $(status NCCL_MNNVL_ENABLE) $(code NCCL_MNNVL_ENABLE)"
gen_root "$T/mnnvl-off" --gpu gb200 --gpus 4 --nics 4 --nccl-env NCCL_MNNVL_ENABLE=0
pf --no-config --root "$T/mnnvl-off" --only nccl_config --format json
[ "$(status NCCL_MNNVL_ENABLE)" = warn ] && [ "$(code NCCL_MNNVL_ENABLE)" = PF-NCCL-CONFIG-102 ] &&
	ok "MNNVL off on a ready domain: warn 102" || not_ok "MNNVL=0: $(status NCCL_MNNVL_ENABLE)"
gen_root "$T/mnnvl-on" --gpu gb200 --gpus 4 --nics 4 --nccl-env NCCL_MNNVL_ENABLE=1
pf --no-config --root "$T/mnnvl-on" --only nccl_config --format json
[ "$(status NCCL_MNNVL_ENABLE)" = pass ] && ok "MNNVL on a ready domain: pass" ||
	not_ok "MNNVL=1 ready: $(status NCCL_MNNVL_ENABLE)"
gen_root "$T/mnnvl-h100" --gpus 2 --nics 2 --nccl-env NCCL_MNNVL_ENABLE=1
pf --no-config --root "$T/mnnvl-h100" --only nccl_config --format json
[ "$(status NCCL_MNNVL_ENABLE)" = skip ] && ok "MNNVL, fabric not recorded: skip" ||
	not_ok "MNNVL h100: $(status NCCL_MNNVL_ENABLE)"

done_testing
