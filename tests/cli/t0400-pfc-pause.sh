#!/bin/sh
# SPDX-License-Identifier: MIT
# pfc_pause through the binary on recorded roots (tests/gen_root.py plus
# preflight/ captures, docs/snapshot.md): a healthy two-sample window passes
# with exit 0; a storm on one port fails with exit 1 naming the netdev and
# priority in the JSON report; an IB-only node skips.
set -eu
: "${PREFLIGHT:?}" "${PF_SOURCE_DIR:?}"
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not found (tests/gen_root.py)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/out.json" ] && sed 's/^/  report: /' "$tmp/out.json" >&2; exit 1; }

python3 "$PF_SOURCE_DIR/tests/gen_root.py" "$tmp/roce" --gpus 2 --nics 2 --link-layer eth >/dev/null
python3 "$PF_SOURCE_DIR/tests/gen_root.py" "$tmp/ib" --gpus 2 --nics 2 --link-layer ib >/dev/null

stats() { # rx3 tx3_us storm_err
	printf 'NIC statistics:\n     rx_prio3_pause: %s\n     rx_prio3_pause_duration: 0\n' "$1"
	printf '     tx_prio3_pause: 0\n     tx_prio3_pause_duration: %s\n' "$2"
	printf '     tx_pause_storm_warning_events: 0\n     tx_pause_storm_error_events: %s\n' "$3"
}
ifs=$(ls "$tmp/roce/sys/class/net" | grep '^enp')
[ "$(echo "$ifs" | wc -l)" -eq 2 ] || fail "expected two RoCE netdevs, got: $ifs"
for i in $ifs; do
	e="$tmp/roce/preflight/ethtool/$i" d="$tmp/roce/preflight/dcb/$i"
	mkdir -p "$e" "$d"
	printf 'pfc-cap 8 macsec-bypass off delay 0\nprio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n' > "$d/pfc"
	printf 'Pause parameters for %s:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n' "$i" > "$e/pause"
	stats 5 100 0 > "$e/stats"
	stats 5 100 0 > "$e/stats.after"
done
echo 1000 > "$tmp/roce/preflight/window_ms"

rc=0
"$PREFLIGHT" --root "$tmp/roce" --only pfc_pause --format json > "$tmp/out.json" || rc=$?
[ "$rc" -eq 0 ] || fail "healthy root: exit $rc, expected 0"
python3 - "$tmp/out.json" <<'PY' || fail "healthy report"
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "pfc_pause" and c["status"] == "pass", c["status"]
subj = {f["subject"]: f for f in c["findings"]}
assert all(subj[s]["status"] == "pass" for s in subj), subj
assert any(s.endswith("/prio3") for s in subj) and any(s.endswith("/storm") for s in subj)
PY

bad=$(echo "$ifs" | tail -n 1)
stats 5 300100 2 > "$tmp/roce/preflight/ethtool/$bad/stats.after"
rc=0
"$PREFLIGHT" --root "$tmp/roce" --only pfc_pause --format json > "$tmp/out.json" || rc=$?
[ "$rc" -eq 1 ] || fail "storm root: exit $rc, expected 1"
BAD=$bad python3 - "$tmp/out.json" <<'PY' || fail "storm report"
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

rc=0
"$PREFLIGHT" --root "$tmp/ib" --only pfc_pause --format json > "$tmp/out.json" || rc=$?
[ "$rc" -eq 0 ] || fail "IB root: exit $rc, expected 0"
python3 - "$tmp/out.json" <<'PY' || fail "IB root: expected skip saying InfiniBand"
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "skip" and "InfiniBand" in c["summary"], c
PY
echo ok
