#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_reports.py - write N realistic preflight.report/v1 files for the fleet benchmark.

Each report has 8 checks with findings shaped like the real checks' (8 IB ports,
8 GPUs, 8 GPU/NIC loopback pairs, a dozen sysctls, NCCL all-reduce), printed the way
preflight prints them (tab-indented).  About 3% of the nodes fail (a port at
200 Gb/s, or memlock), about 1% are slow (loopback or all-reduce bandwidth at
70-85% of the rest) and pass their own thresholds: the fleet view's outliers.

With --mesh, DIR gets instead one `preflight mesh` report (rank 0's, the
format of docs/mesh.md) of a run of N ranks with RAILS rails (default 8) and
ROUNDS rounds of a round-robin schedule (default 8): every pair of a round both ways on every
rail, ~390 Gb/s.  On each rail a quarter of the pairs are slow only to each
other (~100 Gb/s, or dead: 0 with an error, for half the pairs): the path suspects (each rank is slow with some partners,
not all), the shape that made the fleet view quadratic (issue 30).

usage: gen_reports.py DIR [N] [SEED]
       gen_reports.py --mesh DIR N [ROUNDS] [RAILS]
"""
import json
import os
import random
import sys

SYSCTLS = [
    ("net.core.rmem_max", 16777216), ("net.core.wmem_max", 16777216),
    ("net.core.rmem_default", 16777216), ("net.core.wmem_default", 16777216),
    ("net.core.netdev_max_backlog", 250000), ("net.ipv4.tcp_rmem", 16777216),
    ("net.ipv4.tcp_wmem", 16777216), ("kernel.numa_balancing", 0),
    ("vm.zone_reclaim_mode", 0), ("net.ipv4.conf.all.arp_ignore", 1),
    ("net.ipv4.conf.all.arp_announce", 2), ("net.ipv4.conf.all.rp_filter", 0),
]


def finding(subject, status, message, observed, expected, remedy=None):
    f = {"subject": subject, "status": status, "message": message,
         "observed": observed, "expected": expected}
    if remedy:
        f["remedy"] = remedy
    return f


def check(name, findings, summary=None):
    order = {"skip": 0, "pass": 1, "warn": 2, "error": 3, "fail": 4}
    status = max((f["status"] for f in findings), key=lambda s: order[s])
    bad = sum(f["status"] != "pass" for f in findings)
    return {"name": name, "status": status,
            "summary": summary or ("%d of %d findings %s" % (bad, len(findings), status)
                                   if bad else "%d findings pass" % len(findings)),
            "duration_ms": round(random.uniform(0.2, 3.0), 1), "findings": findings}


def node_report(i, rng):
    host = "gpu-%04d" % i
    failing = rng.random() < 0.03
    slow = not failing and rng.random() < 0.01
    checks = []

    mem_bad = failing and rng.random() < 0.3
    checks.append(check("memlock", [finding(
        "process", "fail" if mem_bad else "pass",
        "hard limit 8192 KiB, expected unlimited" if mem_bad else "unlimited",
        {"soft_kib": 8192 if mem_bad else -1, "hard_kib": 8192 if mem_bad else -1},
        {"min_kib": 0}, "set memlock unlimited in limits.conf" if mem_bad else None)]))

    checks.append(check("sysctl", [finding(k, "pass", "%s = %d" % (k, v), {"value": v},
                                           {"min": v}) for k, v in SYSCTLS]))

    checks.append(check("nvidia_peermem", [finding(
        "nvidia_peermem", "pass", "loaded, version 550.54.15",
        {"loaded": True, "version": "550.54.15"}, {"loaded": True})]))

    bad_port = rng.randrange(8) if failing and not mem_bad else -1
    ports = []
    for p in range(8):
        rate = 200 if p == bad_port else 400
        ports.append(finding(
            "mlx5_%d/1" % p, "fail" if p == bad_port else "pass",
            "active at %d Gb/s (4X %s)%s" % (rate, "HDR" if rate == 200 else "NDR",
                                               ", expected at least 400 Gb/s" if rate < 400 else ""),
            {"rate_gbps": rate, "width": "4X", "state": "ACTIVE", "phys_state": "LinkUp"},
            {"min_rate_gbps": 400},
            "reseat or replace the cable or transceiver; check the switch port speed"
            if rate < 400 else None))
    checks.append(check("nic_link_speed", ports))

    checks.append(check("gpu_nic_numa", [finding(
        "0000:%02x:00.0" % (0x18 + 0x10 * g), "pass", "GPU %d: mlx5_%d is PIX" % (g, g),
        {"class": "PIX", "nic": "mlx5_%d" % g, "numa_node": g // 4},
        {"worst_class": "PXB"}) for g in range(8)]))

    checks.append(check("pfc_pause", [finding(
        "eth%d" % p, "pass", "PFC on priority 3; no pause storm",
        {"pfc_enabled": "3", "rx_pause": rng.randrange(0, 50), "tx_pause": rng.randrange(0, 50)},
        {"priority": 3}) for p in range(8)]))

    slow_factor = rng.uniform(0.70, 0.85) if slow else 1.0
    pairs = []
    for g in range(8):
        bw = rng.gauss(390, 3) * (slow_factor if g == 0 else 1.0)
        hbw = rng.gauss(392, 2)
        pairs.append(finding(
            "GPU%d<->mlx5_%d" % (g, g), "pass",
            "RDMA WRITE %.1f Gb/s GPU memory, %.1f Gb/s host memory" % (bw, hbw),
            {"gpu_bw_gbps": round(bw, 2), "host_bw_gbps": round(hbw, 2), "msg_size": 1048576},
            {"min_fraction_of_rate": 0.6}))
    checks.append(check("gdr_loopback", pairs))

    busbw = rng.gauss(360, 4) * slow_factor
    checks.append(check("nccl_allreduce", [finding(
        "allreduce 8 GPUs", "pass", "busbw %.1f GB/s at 8 GiB" % busbw,
        {"busbw_gbps": round(busbw, 2), "algbw_gbps": round(busbw * 8 / 14, 2), "bytes": 8 << 30},
        {"min_busbw_gbps": 200})]))

    counts = {s: 0 for s in ("pass", "warn", "fail", "skip", "error")}
    for c in checks:
        counts[c["status"]] += 1
    verdict = "fail" if counts["fail"] else "error" if counts["error"] else \
        "warn" if counts["warn"] else "pass"
    return {
        "schema": "preflight.report/v1",
        "tool": {"name": "preflight", "version": "0.1.0"},
        "node": {"hostname": host, "kernel": "6.8.0-45-generic", "root": "/"},
        "profile": "dgx-h100",
        "started_at": "2026-11-22T05:%02d:%02dZ" % (i // 60 % 60, i % 60),
        "duration_ms": round(rng.uniform(30, 60), 1),
        "verdict": verdict, "counts": counts, "checks": checks,
    }


def mesh_report(n, rounds, rng, rails=8):
    """Rank 0's report of an n-rank mesh run (see the docstring)."""
    ranks = [{"rank": r, "host": "gpu-%05d" % r, "arrived": True,
              "rails": [{"device": "mlx5_%d" % i, "port": 1, "link_layer": "InfiniBand",
                         "rate": "400 Gb/sec (4X NDR)", "state": "ACTIVE", "role": "compute",
                         "rail": i, "subnet": "10.%d.0.0/16" % i, "netdev": "ib%d" % i}
                        for i in range(rails)]} for r in range(n)]
    order = list(range(n))
    meas = []
    for rd in range(min(rounds, n - 1)):
        for i in range(n // 2):
            a, b = order[i], order[n - 1 - i]
            slow = [rng.random() < 0.25 for _ in range(rails)]
            for src, dst in ((a, b), (b, a)):
                for rail in range(rails):
                    g = rng.gauss(390, 3)
                    if slow[rail]:
                        g = rng.gauss(100, 5) if rng.random() < 0.5 else 0
                    m = {"round": rd, "src": src, "dst": dst, "rail": rail,
                         "src_dev": "mlx5_%d" % rail, "dst_dev": "mlx5_%d" % rail,
                         "gbps": round(g, 3), "seconds": 2.0, "bytes": int(g * 2e9 / 8)}
                    if not g:
                        m.update(error="transfer: no completion for 5005 ms", stage="transfer")
                    meas.append(m)
        order = [order[0], order[-1]] + order[1:-1]
    finding = {"subject": None, "status": "pass", "message": "mesh run",
               "observed": {"rank": 0, "size": n, "table": {"ranks": ranks},
                            "measurements": meas, "suspects": []}}
    return {"schema": "preflight.report/v1", "node": {"hostname": "gpu-00000"},
            "started_at": "2026-11-27T01:00:00Z", "verdict": "pass",
            "checks": [{"name": "mesh", "status": "pass", "summary": "mesh run",
                        "findings": [finding]}]}


def main():
    if len(sys.argv) > 3 and sys.argv[1] == "--mesh":
        out, n = sys.argv[2], int(sys.argv[3])
        rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 8
        rails = int(sys.argv[5]) if len(sys.argv) > 5 else 8
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "mesh-%d.json" % n), "w") as f:
            json.dump(mesh_report(n, rounds, random.Random(7), rails), f, indent="\t")
            f.write("\n")
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    random.seed(1)
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        with open(os.path.join(out, "gpu-%04d.json" % i), "w") as f:
            json.dump(node_report(i, rng), f, indent="\t")
            f.write("\n")


if __name__ == "__main__":
    main()
