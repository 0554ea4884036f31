#!/bin/sh
# SPDX-License-Identifier: MIT
# t0820-profile-capture.sh - `preflight profile capture --root GOLD > golden.json`
# on a generated RoCE node: the profile holds the observed port count, rate,
# width, MTU and GPU-NIC class; it loads back (--profile) and the golden node
# passes it; a peer with one NIC missing fails nic_link_speed with it (and passes
# without it); a failing check contributes no key and says so on stderr.
set -u
: "${PREFLIGHT:?}" "${PF_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
gen=$PF_SOURCE_DIR/tests/gen_root.py
tmp=$(mktemp -d /tmp/pf-t0820.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
not_ok() { echo "not ok: $*"; fails=$((fails + 1)); }

python3 "$gen" --link-layer eth --mtu 9000 "$tmp/gold" >/dev/null || { echo "skip: gen_root.py failed"; exit 77; }
python3 "$gen" --link-layer eth --mtu 9000 --nics 7 "$tmp/peer" >/dev/null
python3 "$gen" --link-layer eth --mtu 9000 --slow-port mlx5_3 "$tmp/bad" >/dev/null

"$PREFLIGHT" profile capture --root "$tmp/gold" >"$tmp/golden.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || not_ok "capture: exit $rc: $(cat "$tmp/err")"
python3 - "$tmp/golden.json" <<'PY' || not_ok "captured profile content"
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
"$PREFLIGHT" --root "$tmp/gold" --profile "$tmp/golden.json" --only nic_link_speed,gpu_nic_numa \
	--format json >"$tmp/gold.json"
rc=$?
[ "$rc" -eq 0 ] || not_ok "golden node with its own profile: exit $rc"

# a peer with a NIC missing: fails with the profile, passes without
"$PREFLIGHT" --root "$tmp/peer" --only nic_link_speed --format json >/dev/null
rc=$?
[ "$rc" -eq 0 ] || not_ok "peer without profile: exit $rc, expected 0"
"$PREFLIGHT" --root "$tmp/peer" --profile "$tmp/golden.json" --only nic_link_speed \
	--format json >"$tmp/peer.json"
rc=$?
[ "$rc" -eq 1 ] || not_ok "peer with the golden profile: exit $rc, expected 1"
grep -q '7 RDMA ports, expected 8' "$tmp/peer.json" || not_ok "peer: no port-count finding"

# a node whose nic_link_speed fails is no reference for it
"$PREFLIGHT" profile capture --root "$tmp/bad" >"$tmp/bad-profile.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || not_ok "capture on a failing node: exit $rc"
grep -q "nic_link_speed.min_rate_gbps not captured: nic_link_speed is fail" "$tmp/err" ||
	not_ok "no note for the failing check: $(cat "$tmp/err")"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert "nic_link_speed" not in p["checks"], p' \
	"$tmp/bad-profile.json" || not_ok "a failing check's keys were captured"

# the keys the capture ran with are kept: an ignored port stays ignored
"$PREFLIGHT" profile capture --root "$tmp/gold" --set nic_link_speed.ignore=mlx5_7 \
	>"$tmp/ign.json" 2>/dev/null
python3 - "$tmp/ign.json" <<'PY' || not_ok "--set carried into the profile"
import json, sys
c = json.load(open(sys.argv[1]))["checks"]["nic_link_speed"]
assert c["ignore"] == "mlx5_7" and c["expected_ports"] == 7, c
PY
"$PREFLIGHT" --root "$tmp/gold" --profile "$tmp/ign.json" --only nic_link_speed >/dev/null
rc=$?
[ "$rc" -eq 0 ] || not_ok "golden node with the --set profile: exit $rc"

# usage
"$PREFLIGHT" profile capture --bogus >/dev/null 2>&1
rc=$?
[ "$rc" -eq 64 ] || not_ok "capture --bogus: exit $rc, expected 64"

[ "$fails" -eq 0 ] || exit 1
echo "ok"
