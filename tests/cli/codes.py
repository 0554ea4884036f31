#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
codes.py - finding codes (driver of t0725-codes.sh; docs/codes.md).

1. `preflight --list-codes` is docs/codes.md from its first check section on,
   every code is PF-<CHECK>-<NNN> of its own section, unique, its action one
   of the fixed set.
2. Every fail and warn finding of every check over the recorded fixtures,
   generated roots with each fault gen_root.py can make, and the traffic
   goldens (tests/golden/*.json) carries a code of its check's table and
   that code's action; no pass, skip or error finding carries one.
Environment: PREFLIGHT, PF_SOURCE_DIR, PF_FIXTURES (ctest sets them).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

PREFLIGHT = os.environ["PREFLIGHT"]
SRC = os.environ["PF_SOURCE_DIR"]
FIXTURES = os.environ.get("PF_FIXTURES", os.path.join(SRC, "tests", "fixtures"))
ACTIONS = {"none", "reconfigure", "reload_driver", "reset_gpu", "reboot",
           "reseat_or_replace", "contact_vendor"}
STATIC = ("memlock,sysctl,gpu_inventory,nvidia_peermem,nic_link_speed,pcie_link,"
          "port_errors,gpu_nic_numa,pfc_pause,dcqcn,nccl_config")
failures = 0


def not_ok(msg):
    global failures
    failures += 1
    print("not ok: " + msg)


def table():
    """{check: {code: action}} from --list-codes; checks the text against the doc."""
    out = subprocess.run([PREFLIGHT, "--list-codes"], capture_output=True, text=True,
                         check=True).stdout
    doc = open(os.path.join(SRC, "docs", "codes.md")).read()
    at = doc.find("\n## ")
    if at < 0 or doc[at:] != out:
        not_ok("docs/codes.md differs from `preflight --list-codes` from its first check "
               "section on (regenerate the sections with the --list-codes output)")
    codes, check = {}, None
    for line in out.splitlines():
        m = re.match(r"^## (\S+)$", line)
        if m:
            check = m.group(1)
            codes[check] = {}
            continue
        m = re.match(r"^\| (PF-[A-Z0-9-]+-(\d{3})) \| (\w+) \| (.+) \|$", line)
        if not m:
            continue
        code, num, action = m.group(1), int(m.group(2)), m.group(3)
        want = "PF-%s-" % check.upper().replace("_", "-")
        if not code.startswith(want) or not 1 <= num <= 999:
            not_ok("%s in the section of %s" % (code, check))
        if code in codes[check]:
            not_ok("%s twice" % code)
        if action not in ACTIONS:
            not_ok("%s: action %s is not one of the fixed set" % (code, action))
        codes[check][code] = action
    if len(codes) < 2 or any(not c for c in codes.values()):
        not_ok("--list-codes lists %d checks, some without codes" % len(codes))
    return codes


def judge(report, codes, where, seen):
    for c in report.get("checks", []):
        for f in c.get("findings", []):
            code, action = f.get("code"), f.get("action")
            if f["status"] not in ("fail", "warn"):
                if code or action:
                    not_ok("%s: %s %s finding %r carries %s" % (where, c["name"], f["status"],
                                                                 f.get("subject"), code))
                continue
            if not code or not action:
                not_ok("%s: %s %s finding %r has no code: %s" % (
                    where, c["name"], f["status"], f.get("subject"), f["message"][:120]))
                continue
            want = codes.get(c["name"], {}).get(code)
            if want is None:
                not_ok("%s: %s gave %s, not in its table" % (where, c["name"], code))
            elif want != action:
                not_ok("%s: %s with action %s, its table says %s" % (where, code, action, want))
            seen.add(code)


def run(root, where, codes, seen, *extra):
    p = subprocess.run([PREFLIGHT, "--no-config", "--root", root, "--only", STATIC,
                        "--format", "json", *extra], capture_output=True, text=True,
                       timeout=120)
    if p.returncode not in (0, 1, 2):
        not_ok("%s: exit %d: %s" % (where, p.returncode, p.stderr[:300]))
        return
    judge(json.loads(p.stdout), codes, where, seen)


def gen(path, *args):
    subprocess.run([sys.executable, os.path.join(SRC, "tests", "gen_root.py"), path, *args],
                   check=True, stdout=subprocess.DEVNULL)


# each fault gen_root.py makes, and the shapes that bring other findings out
ROOTS = [
    [], ["--link-layer", "eth"], ["--link-layer", "eth", "--lldp"],
    ["--slow-port", "mlx5_1"], ["--width-port", "mlx5_2"], ["--down-port", "mlx5_3"],
    ["--link-layer", "eth", "--down-port", "mlx5_3"],
    ["--link-layer", "eth", "--mtu-port", "mlx5_1"],
    ["--link-layer", "eth", "--netdev-speed-port", "mlx5_1"],
    ["--gpu-without-nic", "1"], ["--nic-wrong-socket", "2"], ["--gpu-degraded-link", "3"],
    ["--numa-minus-one"], ["--no-pci-parent-dev", "scif0"], ["--missing-nic", "mlx5_4"],
    ["--link-layer", "eth", "--roce-lag", "2", "--lag-member-down", "mlx5_bond_0:1",
     "--lag-member-slow", "mlx5_bond_1:0"],
    ["--link-layer", "eth", "--gid-shift", "mlx5_1"],
    ["--uverbs-missing", "mlx5_1", "--uverbs-unregistered", "mlx5_2", "--no-rdma-cm"],
    ["--uverbs-mode", "0600"], ["--iommu", "DMA"], ["--iommu", "blocked"],
    ["--nics-apart"], ["--gpus", "8", "--nics", "4"], ["--nvswitch", "4"],
    ["--nccl-env", "NCCL_IB_HCA=mlx9", "--nccl-env", "NCCL_SOCKET_IFNAME=lo",
     "--nccl-env", "NCCL_P2P_DISABLE=1", "--nccl-env", "NCCL_NET_GDR_LEVEL=LOC",
     "--nccl-env", "NCCL_TOPO_FILE=relative.xml", "--nccl-env", "NCCL_IB_DISABLE=1"],
    ["--link-layer", "eth", "--nccl-env", "NCCL_IB_GID_INDEX=0",
     "--nccl-env", "NCCL_NET_GDR_READ=0", "--nccl-env", "NCCL_DMABUF_ENABLE=0"],
    ["--nccl-conf", "NCCL_DEBUG = INFO"],
    ["--file", "sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error=7"],
    ["--file", "sys/class/infiniband/mlx5_0/ports/1/counters/link_downed=3"],
    ["--file", "proc/sys/net/core/rmem_max=4096", "--file", "proc/sys/kernel/numa_balancing=1"],
]
SETS = [[], ["--set", "gpu_inventory.expected_gpus=16", "--set", "nic_link_speed.expected_ports=4",
             "--set", "memlock.min_kib=1", "--set", "gpu_nic_numa.nics=mlx5_0,mlx5_77"]]

codes = table()
seen = set()
n_runs = 0
for name in sorted(os.listdir(FIXTURES)):
    root = os.path.join(FIXTURES, name)
    if os.path.isdir(os.path.join(root, "proc")) or os.path.isdir(os.path.join(root, "sys")):
        run(root, "fixture " + name, codes, seen)
        n_runs += 1
with tempfile.TemporaryDirectory() as tmp:
    for i, args in enumerate(ROOTS):
        root = os.path.join(tmp, "r%d" % i)
        try:
            gen(root, *args)
        except subprocess.CalledProcessError as e:
            not_ok("gen_root.py %s: %s" % (" ".join(args), e))
            continue
        for s in SETS if not args else SETS[:1]:  # the settings on the healthy root
            run(root, "gen_root.py " + " ".join(args + s), codes, seen, *s)
            n_runs += 1
for name in sorted(os.listdir(os.path.join(SRC, "tests", "golden"))):
    if name.endswith(".json") and name.startswith("fabric_loopback"):
        judge(json.load(open(os.path.join(SRC, "tests", "golden", name))), codes,
              "golden " + name, seen)
        n_runs += 1
n_codes = sum(len(c) for c in codes.values())
print("note: %d reports, %d of %d codes seen: %s" % (n_runs, len(seen), n_codes,
                                                  " ".join(sorted(seen))))
if failures:
    print("%d failures" % failures)
    sys.exit(1)
