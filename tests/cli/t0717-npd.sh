#!/bin/sh
# SPDX-License-Identifier: MIT
# t0717-npd.sh - `--format line` and the node-problem-detector plugin contract
# (issue 35 items 1, 2): the shipped plugin configs (contrib/kubernetes), run as
# NPD runs them (npd.py) against generated roots, give each condition False on
# a healthy node and True with the failing check's line on a broken one; every
# line fits --line-max; the two static groups split the static checks.
. "$(dirname "$0")/lib.sh"
need_python
K="$PF_SOURCE_DIR/contrib/kubernetes"

gen_root "$T/ok"
gen_root "$T/gdeg" --gpu-degraded-link 2
gen_root "$T/slow" --slow-port mlx5_3 --slow-rate 100

npd() { "$PY" "$PF_SOURCE_DIR/tests/cli/npd.py" "$K/$1" "$PREFLIGHT" "$2" > "$T/npd"; }

npd preflight-static.json "$T/ok"
py_ok "healthy root: both static conditions False, message 'ok: ...'" "$T/npd" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["condition"] for r in rows] == ["PreflightGPUProblem", "PreflightFabricProblem"], rows
for r in rows:
    assert r["status"] == "False" and r["message"].startswith("ok: "), r
PY

npd preflight-static.json "$T/gdeg"
py_ok "a GPU trained at Gen3 x8: GPU condition True naming the check and GPU, fabric False" "$T/npd" <<'PY'
import json, sys
rows = {json.loads(l)["condition"]: json.loads(l) for l in open(sys.argv[1])}
g, f = rows["PreflightGPUProblem"], rows["PreflightFabricProblem"]
assert g["status"] == "True" and g["message"].startswith("pcie_link fail 0000:23:00.0: "), g
assert g["length"] <= 80, g
assert f["status"] == "False", f
PY

npd preflight-static.json "$T/slow"
py_ok "a 100G port: fabric condition True naming nic_link_speed and the port" "$T/npd" <<'PY'
import json, sys
rows = {json.loads(l)["condition"]: json.loads(l) for l in open(sys.argv[1])}
f = rows["PreflightFabricProblem"]
assert f["status"] == "True" and f["message"].startswith("nic_link_speed fail mlx5_3/1: "), f
PY

# every line of a failing run fits the limit, worst first, nothing else printed
pf --no-config --root "$T/slow" --format line --line-max 40
expect_rc 1 "--format line keeps the run's exit code (1: a check failed)"
py_ok "--line-max 40: every line at most 40 bytes, fail lines first, '...' when cut" "$T/out" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().decode().split("\n")
assert lines[-1] == "", lines
lines = lines[:-1]
assert lines and all(len(l.encode()) <= 40 for l in lines), lines
rank = {"fail": 0, "error": 1, "warn": 2}
st = [rank[l.split(" ")[1]] for l in lines]
assert st == sorted(st), lines
assert any(l.endswith("...") for l in lines), lines
PY

pf --no-config --root "$T/ok" --format line --line-max 15
expect_rc 64 "--line-max below 16 is a usage error"

# the two static groups together are the default selection, with no overlap
gpu=$("$PREFLIGHT" --no-config --root "$T/ok" --only gpu --format json | "$PY" -c \
	'import json,sys; print(",".join(c["name"] for c in json.load(sys.stdin)["checks"]))')
fab=$("$PREFLIGHT" --no-config --root "$T/ok" --skip gpu --format json | "$PY" -c \
	'import json,sys; print(",".join(c["name"] for c in json.load(sys.stdin)["checks"]))')
all=$("$PREFLIGHT" --no-config --root "$T/ok" --format json | "$PY" -c \
	'import json,sys; print(",".join(c["name"] for c in json.load(sys.stdin)["checks"]))')
py_ok "GPU and fabric groups split the static checks" "$gpu" "$fab" "$all" <<'PY'
import sys
g, f, a = (set(x.split(",")) - {""} for x in sys.argv[1:4])
assert g and f and not (g & f) and g | f == a, (g, f, a)
PY

# the traffic group is the traffic checks, and exits within its timeout on a root
npd preflight-traffic.json "$T/ok"
py_ok "traffic condition: one rule, answered (not Unknown from a timeout)" "$T/npd" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1 and rows[0]["condition"] == "PreflightTrafficProblem", rows
assert rows[0]["exit"] in (0, 1, 2), rows
PY

done_testing
