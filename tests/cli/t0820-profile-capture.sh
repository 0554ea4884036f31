#!/bin/sh
# SPDX-License-Identifier: MIT
# t0820-profile-capture.sh - `preflight profile capture --root GOLD > golden.json`
# on a generated RoCE node: the profile holds the observed port count, rate,
# width, MTU and GPU-NIC class; it loads back (--profile) and the golden node
# passes it; a peer with one NIC missing fails nic_link_speed with it (and passes
# without it); a failing check contributes no key and says so on stderr.
. "$(dirname "$0")/lib.sh"
need_python

gen_root "$T/gold" --link-layer eth --mtu 9000
gen_root "$T/peer" --link-layer eth --mtu 9000 --nics 7
gen_root "$T/bad" --link-layer eth --mtu 9000 --slow-port mlx5_3

pf profile capture --root "$T/gold"
expect_rc 0 "capture"
cp "$T/out" "$T/golden.json"
py_ok "captured profile content" "$T/golden.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert p["name"] == "captured-gen-node", p["name"]
c = p["checks"]
assert c["nic_link_speed"] == {"expected_ports": 8, "min_rate_gbps": 400, "min_width": 4,
                               "roce_netdev_mtu": 9000}, c["nic_link_speed"]
assert c["gpu_nic_numa"] == {"worst_class": "PIX"}, c["gpu_nic_numa"]
assert "nccl_allreduce" not in c  # traffic checks are not run by a capture
PY

# the profile loads (a bad key would exit 64) and the golden node passes it
pf --root "$T/gold" --profile "$T/golden.json" --only nic_link_speed,gpu_nic_numa --format json
expect_rc 0 "golden node with its own profile"

# a peer with a NIC missing: fails with the profile, passes without
pf --root "$T/peer" --only nic_link_speed --format json
expect_rc 0 "peer without profile"
pf --root "$T/peer" --profile "$T/golden.json" --only nic_link_speed --format json
expect_rc 1 "peer with the golden profile"
grep -q '7 RDMA ports, expected 8' "$T/out" || not_ok "peer: no port-count finding"

# a node whose nic_link_speed fails is no reference for it
pf profile capture --root "$T/bad"
expect_rc 0 "capture on a failing node"
expect_err "nic_link_speed.min_rate_gbps not captured: nic_link_speed is fail"
py_ok "a failing check's keys are not captured" "$T/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert "nic_link_speed" not in p["checks"], p
PY

# the keys the capture ran with are kept: an ignored port stays ignored
pf profile capture --root "$T/gold" --set nic_link_speed.ignore=mlx5_7
cp "$T/out" "$T/ign.json"
py_ok "--set carried into the profile" "$T/ign.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"]["nic_link_speed"]
assert c["ignore"] == "mlx5_7" and c["expected_ports"] == 7, c
PY
pf --root "$T/gold" --profile "$T/ign.json" --only nic_link_speed
expect_rc 0 "golden node with the --set profile"

# usage
pf profile capture --bogus
expect_rc 64 "capture --bogus"

done_testing
