#!/bin/sh
# SPDX-License-Identifier: MIT
# Time the static suite, inventory included, on generated nodes:
#
#   bench/inventory.sh [BINARY [RUNS]]
#
# BINARY defaults to $PREFLIGHT, then build/preflight; RUNS to 30.  Writes an
# 8-GPU/8-NIC and a 16-GPU/32-NIC root with tests/gen_root.py (IB, 2 NUMA
# nodes, GPU and NIC pairs under PCIe switches) into a temporary directory
# and runs, after one warm-up run,
#   BINARY --root ROOT --only CHECKS --format json
# RUNS times for each, where CHECKS is memlock,sysctl,nic_link_speed plus
# gpu_nic_numa when `BINARY --list` has it.  Prints min, median and p90 wall
# time per run (process start to exit, output discarded), the median CPU time
# of the process and its children, the inventory size and the load average,
# and each check's median duration_ms as the report gives it (in its forked
# child, its share of the fork and the result pipe included).
# The goal for the 8/8 median is under 20 ms; 16/32 shows how cost grows.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-${PREFLIGHT:-$here/build/preflight}}
runs=${2:-30}

[ -x "$bin" ] || { echo "inventory.sh: no executable '$bin' (build first)" >&2; exit 64; }
case $runs in ''|*[!0-9]*|0) echo "inventory.sh: RUNS must be a positive integer" >&2; exit 64 ;; esac
command -v python3 >/dev/null 2>&1 || { echo "inventory.sh: needs python3" >&2; exit 64; }

checks=memlock,sysctl,nic_link_speed
"$bin" --list | grep -q '^gpu_nic_numa ' && checks=$checks,gpu_nic_numa
"$bin" --list | grep -q '^dcqcn ' && checks=$checks,dcqcn
"$bin" --list | grep -q '^nccl_config ' && checks=$checks,nccl_config

base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "${TMPDIR:-$base}/pf-inventory-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
python3 "$here/tests/gen_root.py" "$tmp/8x8" --gpus 8 --nics 8
python3 "$here/tests/gen_root.py" "$tmp/16x32" --gpus 16 --nics 32

python3 - "$bin" "$checks" "$runs" "$tmp/8x8" "$tmp/16x32" <<'PY'
import json, os, resource, statistics, subprocess, sys, time

binary, checks, runs, roots = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime

for root in roots:
    cmd = [binary, "--root", root, "--only", checks, "--format", "json"]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    if out.returncode > 2:
        sys.exit("inventory.sh: %s exited %d" % (" ".join(cmd), out.returncode))
    report = json.loads(out.stdout)
    ms, cpu, inner, per = [], [], [], {}
    for _ in range(runs):
        c0 = children_cpu()
        t0 = time.perf_counter()
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        ms.append((time.perf_counter() - t0) * 1e3)
        cpu.append((children_cpu() - c0) * 1e3)
        rep = json.loads(r.stdout)
        inner.append(rep["duration_ms"])
        for c in rep["checks"]:
            per.setdefault(c["name"], []).append(c["duration_ms"])
    ms.sort()
    p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
    sizes = {"pci": len(os.listdir(os.path.join(root, "sys/bus/pci/devices"))),
             "rdma": len(os.listdir(os.path.join(root, "sys/class/infiniband"))),
             "netdevs": len(os.listdir(os.path.join(root, "sys/class/net")))}
    print("preflight --root %s --only %s --format json" % (os.path.basename(root), checks))
    print("  node: %d PCI functions, %d RDMA devices, %d netdevs; verdict %s"
          % (sizes["pci"], sizes["rdma"], sizes["netdevs"], report["verdict"]))
    print("  runs %d  min %.2f ms  median %.2f ms  p90 %.2f ms  (report duration_ms median "
          "%.2f; cpu median %.2f ms; load %.1f)"
          % (runs, ms[0], statistics.median(ms), p90, statistics.median(inner),
             statistics.median(cpu), os.getloadavg()[0]))
    print("  per check, median duration_ms: " +
          ", ".join("%s %.2f" % (k, statistics.median(v)) for k, v in per.items()))
PY
