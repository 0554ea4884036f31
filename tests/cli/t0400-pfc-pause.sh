#!/bin/sh
# SPDX-License-Identifier: MIT
# pfc_pause through the binary on recorded roots (tests/gen_root.py plus
# preflight/ captures, docs/snapshot.md): a healthy two-sample window passes
# with exit 0; a storm on one port fails with exit 1 naming the netdev and
# priority in the JSON report; an IB-only node skips.
. "$(dirname "$0")/lib.sh"
need_python

gen_root "$T/roce" --gpus 2 --nics 2 --link-layer eth
gen_root "$T/ib" --gpus 2 --nics 2 --link-layer ib

stats() { # rx3 tx3_us storm_err
	printf 'NIC statistics:\n     rx_prio3_pause: %s\n     rx_prio3_pause_duration: 0\n' "$1"
	printf '     tx_prio3_pause: 0\n     tx_prio3_pause_duration: %s\n' "$2"
	printf '     tx_pause_storm_warning_events: 0\n     tx_pause_storm_error_events: %s\n' "$3"
}
ifs=$(ls "$T/roce/sys/class/net" | grep '^enp')
[ "$(echo "$ifs" | wc -l)" -eq 2 ] || not_ok "expected two RoCE netdevs, got: $ifs"
for i in $ifs; do
	e="$T/roce/preflight/ethtool/$i" d="$T/roce/preflight/dcb/$i"
	mkdir -p "$e" "$d"
	printf 'pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n' > "$d/pfc"
	printf 'Pause parameters for %s:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n' "$i" > "$e/pause"
	stats 5 100 0 > "$e/stats"
	stats 5 100 0 > "$e/stats.after"
done
echo 1000 > "$T/roce/preflight/window_ms"

pf --root "$T/roce" --only pfc_pause --format json
expect_rc 0 "healthy root"
py_ok "healthy report" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "pfc_pause" and c["status"] == "pass", c["status"]
subj = {f["subject"]: f for f in c["findings"]}
assert all(subj[s]["status"] == "pass" for s in subj), subj
assert any(s.endswith("/prio3") for s in subj) and any(s.endswith("/storm") for s in subj)
PY

bad=$(echo "$ifs" | tail -n 1)
stats 5 300100 2 > "$T/roce/preflight/ethtool/$bad/stats.after"
pf --root "$T/roce" --only pfc_pause --format json
expect_rc 1 "storm root"
export BAD="$bad"
py_ok "storm report" "$T/out" <<'PY'
import json, os, sys
bad = os.environ["BAD"]
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "fail"
subj = {f["subject"]: f for f in c["findings"]}
f = subj[bad + "/prio3"]
assert f["status"] == "fail" and abs(f["observed"]["paused_pct"] - 30.0) < 0.01, f
assert "priority 3" in f["message"] and f["remedy"]
assert subj[bad + "/storm"]["status"] == "fail"
assert subj[bad + "/storm"]["observed"]["storm_error_events"] == 2
good = [s for s in subj if s.endswith("/prio3") and not s.startswith(bad)]
assert good and subj[good[0]]["status"] == "pass"
PY

pf --root "$T/ib" --only pfc_pause --format json
expect_rc 0 "IB root"
py_ok "IB root: expected skip saying InfiniBand" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "skip" and "InfiniBand" in c["summary"], c
PY

# Netdevs without a device link (rxe's veth, a RoCE LAG's bond): a snapshot
# records the facts pfc_pause reads for them, so --root on the snapshot gives
# the verdicts --root on its source gives (issue 19: warn live, skip offline)
gen_root "$T/virt" --gpus 0 --nics 1 --link-layer eth --rxe 1 --roce-lag 1
mkdir -p "$T/virt/preflight/dcb/veth0" "$T/virt/preflight/ethtool/veth0" \
	"$T/virt/preflight/dcb/bond0" "$T/virt/preflight/ethtool/bond0"
echo 'Attribute read: Operation not supported' > "$T/virt/preflight/dcb/veth0/pfc"
echo 'netlink error: Operation not supported' > "$T/virt/preflight/ethtool/veth0/pause"
printf 'pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n' \
	> "$T/virt/preflight/dcb/bond0/pfc"
printf 'Pause parameters for bond0:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n' \
	> "$T/virt/preflight/ethtool/bond0/pause"
pf --root "$T/virt" --only pfc_pause --format json
cp "$T/out" "$T/virt.json"
pf snapshot --root "$T/virt" "$T/virt-snap"
expect_rc 0 "snapshot of a root with veth and bond RoCE netdevs"
pf --root "$T/virt-snap" --only pfc_pause --format json
py_ok "veth and bond: snapshot = source" "$T/virt.json" "$T/out" <<'PY'
import json, sys
def subj(path):
    c = json.load(open(path))["checks"][0]
    return {f["subject"]: (f["status"], f["message"].split(";")[0]) for f in c["findings"]}
src, snap = subj(sys.argv[1]), subj(sys.argv[2])
assert src["veth0"][0] == "warn" and "no PFC configuration" in src["veth0"][1], src
assert src["bond0"][0] == "pass", src
for k in ("veth0", "bond0"):
    assert snap.get(k) == src[k], (k, src[k], snap.get(k))
PY

done_testing
