#!/bin/sh
# SPDX-License-Identifier: MIT
# t0800-fleet.sh - `preflight fleet` over tests/fixtures/fleet: the failing node
# and its first bad finding, per-check counts, the slow node as an outlier,
# rejected files reported on stderr and skipped, text/json/csv, exit codes.
. "$(dirname "$0")/lib.sh"
need_python
fx=$PF_FIXTURES/fleet

# json over the directory: exit 1 (node-c fails), two files rejected
pf fleet --format json "$fx"
expect_rc 1 "json"
cp "$T/out" "$T/out.json"
grep -q "skipping '.*truncated.json': not valid JSON" "$T/err" || not_ok "truncated.json not reported"
grep -q "skipping '.*other-schema.json': not a preflight.report/v1 report" "$T/err" ||
	not_ok "other-schema.json not reported"
py_ok "json content" "$T/out.json" <<'PY'
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
pf fleet --format csv "$fx"/node-*.json
expect_rc 1 "csv"
cp "$T/out" "$T/out.csv"
[ -s "$T/err" ] && not_ok "csv: unexpected stderr: $(cat "$T/err")"
py_ok "csv content" "$T/out.csv" <<'PY'
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
pf fleet "$fx"
cp "$T/out" "$T/out.txt"
grep -q "^preflight fleet: 4 nodes from 4 reports (0 superseded, 2 rejected)" "$T/out.txt" ||
	not_ok "text header: $(head -1 "$T/out.txt")"
grep -q "^Failing nodes (1)" "$T/out.txt" || not_ok "text: no failing section"
grep -Eq "^node-c +fail +nic_link_speed +fail +mlx5_1/1 +active at 200" "$T/out.txt" ||
	not_ok "text: failing row"
grep -Eq "^node-d +gdr_loopback +gpu_bw_gbps +GPU0<->mlx5_0 +300 +388.5 +0.77$" "$T/out.txt" ||
	not_ok "text: outlier row"

# a lower fraction drops node-d (300/388.5 = 0.77) but keeps node-c (0.5)
pf fleet --format json --outlier-fraction 0.7 "$fx"/node-*.json
cp "$T/out" "$T/o.json"
"$PY" -c 'import json,sys; v=json.load(open(sys.argv[1])); assert [o["node"] for o in v["outliers"]] == ["node-c"], v["outliers"]' "$T/o.json" ||
	not_ok "--outlier-fraction 0.7"

# only passing nodes: exit 0
pf fleet --format json "$fx/node-a.json" "$fx/node-b.json"
expect_rc 0 "passing nodes"

# real reports: preflight itself on generated roots, one with a slow port
if [ -n "${PF_SOURCE_DIR:-}" ] && [ -f "$PF_SOURCE_DIR/tests/gen_root.py" ]; then
	mkdir "$T/reports"
	for i in 1 2 3 4; do
		extra=
		[ "$i" = 4 ] && extra="--slow-port mlx5_3"
		# shellcheck disable=SC2086
		"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --hostname "node-$i" $extra "$T/root$i" \
			>/dev/null || not_ok "gen_root.py node-$i"
		pf --root "$T/root$i" --only nic_link_speed,gpu_nic_numa --format json \
			--output "$T/reports/node-$i.json"
	done
	pf fleet --format json "$T/reports"
	expect_rc 1 "real reports"
	cp "$T/out" "$T/real.json"
	py_ok "real reports content" "$T/real.json" <<'PY'
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
	pf fleet $args
	expect_rc 64 "fleet $args"
done

done_testing
