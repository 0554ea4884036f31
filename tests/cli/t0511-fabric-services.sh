#!/bin/sh
# SPDX-License-Identifier: MIT
# The services behind the NVLink fabric, judged by nvlink_fabric on generated
# roots (tests/gen_root.py --fm-* --imex-*): an HGX H100 with NVSwitches and
# Fabric Manager active at the driver's version passes, a failed service or
# another version fails (012, 013), and with no unit recorded it is a skip;
# a GB200 tray with IMEX active, READY and a node list passes, a node not
# READY (015), IMEX stopped (014) or an empty node list (017) fails; an HGX
# B200 and an HGX H100 are never judged on IMEX; a snapshot of a failing
# root gives the same findings, IMEX's node list copied from where its
# config.cfg says.
. "$(dirname "$0")/lib.sh"
need_python

HGX="--gpus 4 --nics 4 --nvswitch 4 --driver-version 550.54.15"
IMEX_OK="--imex-unit active --imex-node-status READY --imex-nodes-config 192.168.0.10,192.168.0.11"

# shellcheck disable=SC2086
gen_root "$T/hgx" $HGX --fm-unit active --fm-version 550.54.15 --imex-unit failed
pf --no-config --root "$T/hgx" --only nvlink_fabric --format json
expect_rc 0 "healthy HGX H100 (IMEX stopped, not in a domain)"
expect_finding nvidia-fabricmanager "pass -" "Fabric Manager active"
expect_finding "nvidia-fabricmanager version" "pass -" "Fabric Manager at the driver's version"
expect_finding nvidia-imex none "IMEX not judged outside a domain"

# shellcheck disable=SC2086
gen_root "$T/fmdown" $HGX --fm-unit failed --fm-version 535.161.08
pf --no-config --root "$T/fmdown" --only nvlink_fabric --format json
expect_rc 1 "Fabric Manager failed and of another version"
expect_finding nvidia-fabricmanager "fail PF-NVLINK-FABRIC-012" "failed unit: 012"
expect_finding "nvidia-fabricmanager version" "fail PF-NVLINK-FABRIC-013" "version mismatch: 013"
cp "$T/out" "$T/direct.json"

pf snapshot --root "$T/fmdown" --window 0 "$T/snap"
expect_rc 0 "snapshot of a recorded HGX root"
pf --no-config --root "$T/snap" --only nvlink_fabric --format json
expect_rc 1 "the snapshot fails too"
py_ok "snapshot -> --root gives the same findings" "$T/direct.json" "$T/out" <<'PY'
import json, sys
a, b = (json.load(open(p))["checks"][0]["findings"] for p in sys.argv[1:3])
key = lambda fs: sorted((f["subject"], f["status"], f.get("code")) for f in fs)
assert key(a) == key(b), (key(a), key(b))
PY

# shellcheck disable=SC2086
gen_root "$T/nounit" $HGX --fm-unit not-found
pf --no-config --root "$T/nounit" --only nvlink_fabric --format json
expect_rc 0 "no Fabric Manager unit: not a fault"
expect_finding nvidia-fabricmanager "skip -" "no unit: skip"
expect_finding "nvidia-fabricmanager version" "skip -" "no version recorded: skip"

gen_root "$T/b200" --gpu b200 --gpus 4 --nics 4 --nvswitch 2 --driver-version 550.54.15 \
	--fm-unit active --fm-version 550.54.15
pf --no-config --root "$T/b200" --only nvlink_fabric --format json
expect_rc 0 "HGX B200 without IMEX"
expect_finding nvidia-imex none "B200: IMEX not judged"

# shellcheck disable=SC2086
gen_root "$T/gb" --gpu gb200 --gpus 4 --nics 4 $IMEX_OK --fm-unit failed
pf --no-config --root "$T/gb" --only nvlink_fabric --format json
expect_rc 0 "healthy GB200 tray (its own Fabric Manager not judged)"
expect_finding nvidia-imex "pass -" "IMEX active"
expect_finding "nvidia-imex domain" "pass -" "this node READY"
expect_finding /etc/nvidia-imex/nodes_config.cfg "pass -" "node list"
expect_finding nvidia-fabricmanager none "GB200: Fabric Manager not judged"

gen_root "$T/waiting" --gpu gb200 --gpus 4 --nics 4 --imex-unit active \
	--imex-node-status WAITING_FOR_PEERS --imex-nodes-config 192.168.0.10,192.168.0.11
pf --no-config --root "$T/waiting" --only nvlink_fabric --format json
expect_rc 1 "this node's IMEX not READY"
expect_finding "nvidia-imex domain" "fail PF-NVLINK-FABRIC-015" "not READY: 015"

gen_root "$T/imexdown" --gpu gb200 --gpus 4 --nics 4 --imex-unit inactive --imex-nodes-config ""
pf --no-config --root "$T/imexdown" --only nvlink_fabric --format json
expect_rc 1 "IMEX stopped, empty node list"
expect_finding nvidia-imex "fail PF-NVLINK-FABRIC-014" "IMEX inactive: 014"
expect_finding /etc/nvidia-imex/nodes_config.cfg "fail PF-NVLINK-FABRIC-017" "empty list: 017"
expect_finding "nvidia-imex domain" "skip -" "no nvidia-imex-ctl output: skip"

# a GB200 root whose IMEX reads another node list (config.cfg names it): the
# snapshot copies that file too, and a failing IMEX instance gives the same findings
gen_root "$T/other" --gpu gb200 --gpus 4 --nics 4 --imex-unit active \
	--imex-node-status WAITING_FOR_PEERS \
	--file "/etc/nvidia-imex/config.cfg=IMEX_NODE_CONFIG_FILE=/shared/imex/nodes.cfg" \
	--file "/shared/imex/nodes.cfg=192.168.0.10"
pf --no-config --root "$T/other" --only nvlink_fabric --format json
expect_rc 1 "IMEX instance waiting, node list elsewhere"
expect_finding /shared/imex/nodes.cfg "pass -" "the node list config.cfg names is read"
cp "$T/out" "$T/direct.json"
pf snapshot --root "$T/other" --window 0 "$T/snap2"
expect_rc 0 "snapshot of a recorded GB200 root"
[ -f "$T/snap2/shared/imex/nodes.cfg" ] && ok "the named node list is copied" ||
	not_ok "no shared/imex/nodes.cfg in the snapshot"
pf --no-config --root "$T/snap2" --only nvlink_fabric --format json
expect_rc 1 "the snapshot fails too"
py_ok "snapshot -> --root gives the same IMEX findings" "$T/direct.json" "$T/out" <<'PY'
import json, sys
a, b = (json.load(open(p))["checks"][0]["findings"] for p in sys.argv[1:3])
key = lambda fs: sorted((f["subject"], f["status"], f.get("code")) for f in fs)
assert key(a) == key(b), (key(a), key(b))
PY

done_testing
