#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Report equivalence of two preflight binaries (a refactoring must change no
verdict, message or value):

  bench/equiv.py OLD NEW

Runs both over the same matrix -- roots written by tests/gen_root.py (healthy
and faulted 8-GPU nodes, RoCE, LAG, EFA, rxe, Grace, a CPU-only node), the
recorded roots of tests/fixtures, the hwloc exports of ../shared/fixtures
(when present) with --topology, in JSON and text, and the printers (--list,
--describe, --check-config, --version) -- and compares the outputs with the
timings and the temporary paths blanked.  Prints one line per differing run
and a summary "N runs, M differ"; exits 1 when any differs.
"""
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = [
    "", "--link-layer eth", "--link-layer eth --roce-lag 2", "--gpus 0 --nics 0 --efa 4",
    "--gpus 0 --nics 0 --rxe 2", "--gpus 4 --nics 4 --grace --gpu-degraded-link 1",
    "--gpus 0 --nics 0", "--gpu-degraded-link 2 --slow-port mlx5_3 --down-port mlx5_5",
    "--link-layer eth --ecn --ecn-off mlx5_1:rp --mtu-port mlx5_2",
    "--nic-wrong-socket 3 --gpu-without-nic 5", "--link-layer eth --rail-subnets distinct",
    "--iommu DMA-FQ", "--nvswitch 4 --storage-nic",
    "--link-layer eth --ns-card 1 --down-port mlx5_9",
    "--nccl-env NCCL_IB_HCA=mlx5_0,mlx5_1 --nccl-conf NCCL_SOCKET_IFNAME=eth9",
]
TIMING = re.compile(r'("(duration_ms|started_at|finished_at|elapsed_ms|time_ms)": )[0-9.e+-]+')
STAMP = re.compile(r'("(started_at|finished_at|generated_at)": )"[^"]*"')
# a text report's timing column is right-aligned: its padding goes with it
TEXT_MS = re.compile(r" *\b[0-9]+(\.[0-9]+)? ms\b")


def run(binary, args):
    p = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def normal(s, tmp):
    s = s.replace(tmp, "TMP")
    s = TIMING.sub(r"\1 0", s)
    s = STAMP.sub(r'\1"T"', s)
    return TEXT_MS.sub(" N ms", s)


def matrix(tmp):
    runs = []
    for i, flags in enumerate(GEN):
        root = os.path.join(tmp, f"gen{i}")
        subprocess.run([sys.executable, os.path.join(HERE, "tests/gen_root.py")] + flags.split()
                       + [root], check=True, capture_output=True)
        runs.append(["--root", root, "--format", "json"])
        runs.append(["--root", root, "--format", "text"])
    for name in sorted(os.listdir(os.path.join(HERE, "tests/fixtures"))):
        d = os.path.join(HERE, "tests/fixtures", name)
        if os.path.isdir(os.path.join(d, "proc")) or os.path.isdir(os.path.join(d, "sys")):
            runs.append(["--root", d, "--format", "json"])
    xml = os.path.join(HERE, "..", "shared", "fixtures", "hwloc-xml")
    if os.path.isdir(xml):
        for name in sorted(os.listdir(xml)):
            runs.append(["--topology", os.path.join(xml, name), "--format", "json"])
    runs += [["--list"], ["--describe", "all"], ["--check-config"], ["--version"],
             ["--list-profiles"], ["--help"]]
    return runs


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    old, new = sys.argv[1:]
    tmp = tempfile.mkdtemp(prefix="pf-equiv-")
    os.chmod(tmp, 0o700)
    try:
        runs = matrix(tmp)
        bad = 0
        for args in runs:
            a, b = run(old, args), run(new, args)
            na = [a[0], normal(a[1], tmp), normal(a[2], tmp)]
            nb = [b[0], normal(b[1], tmp), normal(b[2], tmp)]
            if na != nb:
                bad += 1
                what = [k for k, x, y in zip(("exit", "stdout", "stderr"), na, nb) if x != y]
                print(f"differs ({', '.join(what)}): preflight {' '.join(args)}".replace(tmp, "TMP"))
                for k in (1, 2):
                    d = list(difflib.unified_diff(na[k].splitlines(), nb[k].splitlines(),
                                                  lineterm="", n=0))[2:8]
                    print("".join(f"    {line}\n" for line in d), end="")
        print(f"{len(runs)} runs, {bad} differ")
        return 1 if bad else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
