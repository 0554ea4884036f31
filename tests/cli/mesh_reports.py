#!/usr/bin/env python3
"""Synthetic `preflight mesh` reports for the fleet's mesh view (t0921).

Usage: mesh_reports.py DIR SCENARIO
Writes DIR/nK.json, one preflight.report/v1 per rank that reported, in the
format of docs/mesh.md: the one check "mesh" whose finding observes the
rendezvous "table", the gathered "measurements" (the same matrix on every
rank) and that rank's own "suspects" (deliberately wrong on rank 0, so a
fleet that trusted them would name n2).  4 ranks (n1..n4), 2 rails
(rxe0, rxe1), every ordered pair on every rail in a round-robin schedule,
healthy values 10 Gb/s +-15% (seeded).  Scenarios:
  healthy     nothing wrong
  slow_rail   n3 sends slowly on rail 1 (2 Gb/s)
  slow_node   n2 sends slowly on both rails
  dead_path   n1 <-> n4 on rail 0: nothing goes through (error, 0 Gb/s)
  missing     n4 never arrived (no report, "arrived": false in every table)
  silent      n3 arrived but its sends are absent (it never reported)
  malformed   healthy, but n2's measurements[1] has "src": "x"
  two_runs    healthy, plus a report of a 3-rank run
  hostile     slow_node, with n2's host name "n2;$(reboot)" in the tables
  conflict    healthy, but n4's copy of one measurement says 0.5 Gb/s
  mixed_rates n4's ports run at 200 Gb/s beside 400 (a second node type): its
              flows at half the others' Gb/s, at its line rate (no suspect)
  mixed_slow  mixed_rates, but n4 sends at a quarter: its rails are slow
The dead path's n4 -> n1 measurement has an "error" and no "gbps".
"""
import json
import os
import random
import sys

N, RAILS = 4, 2


def schedule(n):
    """Round-robin (circle method): rounds of disjoint pairs."""
    ranks = list(range(n))
    rounds = []
    for _ in range(n - 1):
        rounds.append([(ranks[i], ranks[n - 1 - i]) for i in range(n // 2)])
        ranks = [ranks[0]] + [ranks[-1]] + ranks[1:-1]
    return rounds


def matrix(scenario, n):
    rnd = random.Random(7)
    out = []
    for rd, pairs in enumerate(schedule(n)):
        for a, b in pairs:
            for src, dst in ((a, b), (b, a)):
                for rail in range(RAILS):
                    m = {"round": rd, "src": src, "dst": dst, "rail": rail,
                         "src_dev": "rxe%d" % rail, "dst_dev": "rxe%d" % rail,
                         "gbps": round(10 * rnd.uniform(0.85, 1.15), 3),
                         "seconds": 2.0}
                    if scenario == "slow_rail" and src == 2 and rail == 1:
                        m["gbps"] = round(2 * rnd.uniform(0.9, 1.1), 3)
                    if scenario in ("slow_node", "hostile") and src == 1:
                        m["gbps"] = round(1.5 * rnd.uniform(0.9, 1.1), 3)
                    if scenario == "dead_path" and rail == 0 and {src, dst} == {0, 3}:
                        m["gbps"] = 0
                        m["error"] = "rdma_connect: RDMA_CM_EVENT_UNREACHABLE"
                        if src == 3:
                            del m["gbps"]
                    if scenario in ("mixed_rates", "mixed_slow") and 3 in (src, dst):
                        m["gbps"] = round(m["gbps"] / 2, 3)
                    if scenario == "mixed_slow" and src == 3:
                        m["gbps"] = round(m["gbps"] / 2, 3)
                    if scenario == "missing" and 3 in (src, dst):
                        continue
                    if scenario == "silent" and src == 2:
                        continue
                    m["bytes"] = int(m.get("gbps", 0) * 2e9 / 8)
                    out.append(m)
    return out


def table(scenario, n):
    ranks = []
    for r in range(n):
        e = {"rank": r, "host": "n%d" % (r + 1), "arrived": True,
             "rails": [{"device": "rxe%d" % i, "port": 1, "link_layer": "Ethernet",
                        "netdev": "eth%d" % (i + 1)} for i in range(RAILS)]}
        if scenario in ("mixed_rates", "mixed_slow"):
            for rail in e["rails"]:
                rail["rate"] = "200 Gb/sec (4X HDR)" if r == 3 else "400 Gb/sec (4X NDR)"
        if scenario == "missing" and r == 3:
            e = {"rank": r, "host": "n4", "arrived": False,
                 "why": "did not arrive by the deadline", "rails": []}
        if scenario == "hostile" and r == 1:
            e["host"] = "n2;$(reboot)"
        ranks.append(e)
    return {"ranks": ranks}


def report(host, rank, n, tab, meas, suspects):
    finding = {"subject": None, "status": "pass", "message": "mesh run",
               "observed": {"rank": rank, "size": n, "table": tab,
                            "measurements": meas, "suspects": suspects}}
    return {"schema": "preflight.report/v1", "node": {"hostname": host},
            "started_at": "2026-11-27T01:00:0%dZ" % rank, "verdict": "pass",
            "checks": [{"name": "mesh", "status": "pass", "summary": "mesh run",
                        "findings": [finding]}]}


def main():
    d, scenario = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    tab, meas = table(scenario, N), matrix(scenario, N)
    lie = [{"kind": "node", "dir": "both", "rank": 1, "host": "n2", "device": "",
            "ratio": 0.1, "n_slow": 12, "n_seen": 12}]
    for r in range(N):
        if scenario == "missing" and r == 3 or scenario == "silent" and r == 2:
            continue
        mine = json.loads(json.dumps(meas))  # each report its own copy
        rep = report(tab["ranks"][r]["host"] if scenario != "hostile" else "n%d" % (r + 1),
                     r, N, tab, mine, lie if r == 0 else [])
        if scenario == "conflict" and r == 3:
            rep["checks"][0]["findings"][0]["observed"]["measurements"][0]["gbps"] = 0.5
        if scenario == "malformed" and r == 1:
            rep["checks"][0]["findings"][0]["observed"]["measurements"][1]["src"] = "x"
        with open(os.path.join(d, "n%d.json" % (r + 1)), "w") as f:
            json.dump(rep, f, indent=1)
    if scenario == "two_runs":
        t3 = table("healthy", 3)
        with open(os.path.join(d, "z9.json"), "w") as f:
            json.dump(report("z9", 0, 3, t3, matrix("healthy", 3), []), f)


if __name__ == "__main__":
    main()
