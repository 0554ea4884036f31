#!/bin/sh
# SPDX-License-Identifier: MIT
# t0800-fleet.sh - `preflight fleet` over tests/fixtures/fleet: the failing node
# and its first bad finding, per-check counts, the slow node as an outlier,
# rejected files reported on stderr and skipped, text/json/csv, exit codes.
set -u
: "${PREFLIGHT:?}" "${PF_FIXTURES:?}"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
fx=$PF_FIXTURES/fleet
tmp=$(mktemp -d /tmp/pf-t0800.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
not_ok() { echo "not ok: $*"; fails=$((fails + 1)); }

# json over the directory: exit 1 (node-c fails), two files rejected
"$PREFLIGHT" fleet --format json "$fx" >"$tmp/out.json" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || not_ok "json: exit $rc, expected 1"
grep -q "skipping '.*truncated.json': not valid JSON" "$tmp/err" || not_ok "truncated.json not reported"
grep -q "skipping '.*other-schema.json': not a preflight.report/v1 report" "$tmp/err" ||
	not_ok "other-schema.json not reported"
python3 - "$tmp/out.json" <<'PY' || not_ok "json content"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["schema"] == "preflight.fleet/v1", v["schema"]
assert v["nodes"] == 4 and v["inputs"]["rejected"] == 2, (v["nodes"], v["inputs"])
assert v["verdicts"]["fail"] == 1 and v["verdicts"]["pass"] == 3, v["verdicts"]
(f,) = v["failing"]
assert f["node"] == "node-c" and f["verdict"] == "fail", f
(c,) = f["checks"]
assert (c["name"], c["status"], c["subject"]) == ("nic_link_speed", "fail", "mlx5_1/1"), c
counts = {c["name"]: c for c in v["checks"]}
assert counts["nic_link_speed"]["fail"] == 1 and counts["nic_link_speed"]["pass"] == 3
assert counts["pfc_pause"]["skip"] == 4 and counts["memlock"]["pass"] == 4
out = {(o["node"], o["check"], o["key"]) for o in v["outliers"]}
assert out == {("node-c", "nic_link_speed", "rate_gbps"),
               ("node-d", "gdr_loopback", "gpu_bw_gbps")}, out
d = [o for o in v["outliers"] if o["node"] == "node-d"][0]
assert d["subject"] == "GPU0<->mlx5_0" and d["value"] == 300 and d["median"] == 388.5, d
assert all(o["key"] != "msg_size" for o in v["outliers"])
PY

# csv: RFC 4180, the message with a comma and quotes survives
"$PREFLIGHT" fleet --format csv "$fx"/node-*.json >"$tmp/out.csv" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 1 ] || not_ok "csv: exit $rc, expected 1"
[ -s "$tmp/err" ] && not_ok "csv: unexpected stderr: $(cat "$tmp/err")"
python3 - "$tmp/out.csv" <<'PY' || not_ok "csv content"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
failing = [r for r in rows if r["kind"] == "failing"]
assert len(failing) == 1, failing
assert failing[0]["message"] == 'active at 200 Gb/s (4X HDR), expected "400", check cable', failing[0]
counts = {(r["check"], r["status"]): int(r["value"]) for r in rows if r["kind"] == "count"}
assert counts[("nic_link_speed", "fail")] == 1 and counts[("memlock", "pass")] == 4, counts
outl = [r for r in rows if r["kind"] == "outlier"]
assert {r["node"] for r in outl} == {"node-c", "node-d"}, outl
PY

# text: aligned tables
"$PREFLIGHT" fleet "$fx" >"$tmp/out.txt" 2>/dev/null
grep -q "^preflight fleet: 4 nodes from 4 reports (0 superseded, 2 rejected)" "$tmp/out.txt" ||
	not_ok "text header: $(head -1 "$tmp/out.txt")"
grep -q "^Failing nodes (1)" "$tmp/out.txt" || not_ok "text: no failing section"
grep -Eq "^node-c +fail +nic_link_speed +fail +mlx5_1/1 +active at 200" "$tmp/out.txt" ||
	not_ok "text: failing row"
grep -Eq "^node-d +gdr_loopback +gpu_bw_gbps +GPU0<->mlx5_0 +300 +388.5 +0.77$" "$tmp/out.txt" ||
	not_ok "text: outlier row"

# a lower fraction drops node-d (300/388.5 = 0.77) but keeps node-c (0.5)
"$PREFLIGHT" fleet --format json --outlier-fraction 0.7 "$fx"/node-*.json >"$tmp/o.json"
python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); assert [o["node"] for o in v["outliers"]] == ["node-c"], v["outliers"]' "$tmp/o.json" ||
	not_ok "--outlier-fraction 0.7"

# only passing nodes: exit 0
"$PREFLIGHT" fleet --format json "$fx/node-a.json" "$fx/node-b.json" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] || not_ok "passing nodes: exit $rc, expected 0"

# real reports: preflight itself on generated roots, one with a slow port
if [ -n "${PF_SOURCE_DIR:-}" ] && [ -f "$PF_SOURCE_DIR/tests/gen_root.py" ]; then
	mkdir "$tmp/reports"
	for i in 1 2 3 4; do
		extra=
		[ "$i" = 4 ] && extra="--slow-port mlx5_3"
		# shellcheck disable=SC2086
		python3 "$PF_SOURCE_DIR/tests/gen_root.py" --hostname "node-$i" $extra "$tmp/root$i" \
			>/dev/null || not_ok "gen_root.py node-$i"
		"$PREFLIGHT" --root "$tmp/root$i" --only nic_link_speed,gpu_nic_numa --format json \
			--output "$tmp/reports/node-$i.json"
	done
	"$PREFLIGHT" fleet --format json "$tmp/reports" >"$tmp/real.json"
	rc=$?
	[ "$rc" -eq 1 ] || not_ok "real reports: exit $rc, expected 1"
	python3 - "$tmp/real.json" <<'PY' || not_ok "real reports content"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["nodes"] == 4 and v["inputs"]["rejected"] == 0, v["inputs"]
assert [f["node"] for f in v["failing"]] == ["node-4"], v["failing"]
assert v["failing"][0]["checks"][0]["subject"] == "mlx5_3/1", v["failing"][0]
o = [(o["node"], o["key"], o["subject"]) for o in v["outliers"] if o["key"] == "rate_gbps"]
assert o == [("node-4", "rate_gbps", "mlx5_3/1")], v["outliers"]
PY
fi

# usage errors: 64
for args in "" "--format xml $fx" "--outlier-fraction 1.5 $fx" "--bogus $fx" \
	"$fx/no-such.json" "$fx/truncated.json $fx/other-schema.json"; do
	# shellcheck disable=SC2086
	"$PREFLIGHT" fleet $args >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq 64 ] || not_ok "fleet $args: exit $rc, expected 64"
done

[ "$fails" -eq 0 ] || exit 1
echo "ok"
