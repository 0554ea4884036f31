#!/bin/sh
# SPDX-License-Identifier: MIT
# A partial capture: a snapshot root that holds only /sys/class/infiniband
# and the PCI tree (no /proc, no /sys/class/net, no preflight/ facts), as
# support bundles and public captures often are.  Every static check (and
# pfc_pause) must say what is missing with a skip, never `error` (issue 20
# item 6, issue 22 item 13; docs/snapshot.md).  Live, absent stays an error.
. "$(dirname "$0")/lib.sh"
need_python

gen_root "$T/full" --gpus 2 --nics 2 --link-layer eth
mkdir "$T/part"
(cd "$T/full" && cp -a sys "$T/part/") || not_ok "copy the sysfs tree"
rm -rf "$T/part/sys/class/net"
find "$T/part/sys/devices" -type d -name net -prune -exec rm -rf {} +
[ -e "$T/part/proc" ] && not_ok "the partial root still has /proc"
[ -d "$T/part/sys/class/infiniband" ] || not_ok "the partial root lost /sys/class/infiniband"

pf --root "$T/part" --only static,pfc_pause --format json
json_ok "$T/out" && ok "partial capture: one valid JSON report" ||
	not_ok "partial capture: no valid report; stderr: $(head -c 400 "$T/err")"
py_ok "partial capture: skips name what is missing, no check errors" "$T/out" <<'PY'
import json, sys
checks = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
for name in ("memlock", "pfc_pause", "nic_link_speed", "port_errors", "dcqcn",
             "pcie_link", "gpu_inventory", "gpu_nic_numa", "nccl_config"):
    assert name in checks, (name, sorted(checks))
m = checks["memlock"]
assert m["status"] == "skip" and "/proc/self/limits" in m["summary"], m
p = checks["pfc_pause"]
assert p["status"] == "skip", p
assert all("not in the snapshot" in f["message"] for f in p["findings"]), p["findings"]
s = checks["sysctl"]
assert s["status"] == "skip" and "/proc/sys" in s["summary"], s
# nvidia_peermem judges the GPUDirect facts the capture holds (here the
# module list gen_root records); a capture without them may still say error.
bad = {n: c["summary"] for n, c in checks.items()
       if c["status"] == "error" and n != "nvidia_peermem"}
assert not bad, bad
PY

# Live, absence stays an error: test_port_without_netdev (pfc_pause) and
# test_unreadable (memlock: a limits file without the row) hold that.

# issue 31 item 11: a port whose state file was not captured is a skip naming
# the file, never "state unknown ... not ACTIVE" (a fail); the same node with
# the file passes
gen_root "$T/st" --gpus 2 --nics 2 --link-layer eth
pf --root "$T/st" --only nic_link_speed --format json
py_ok "state captured: nic_link_speed passes" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["status"] == "pass", c
PY
rm "$(readlink -f "$T/st/sys/class/infiniband/mlx5_1")/ports/1/state"
pf --root "$T/st" --only nic_link_speed --format json
py_ok "state not captured: a skip naming the file" "$T/out" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
f = [f for f in c["findings"] if f["subject"].startswith("mlx5_1/")]
assert c["status"] == "skip" or c["status"] == "pass", c
assert len(f) == 1 and f[0]["status"] == "skip", f
assert "/sys/class/infiniband/mlx5_1/ports/1/state is absent" in f[0]["message"], f
PY

done_testing
