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
  forged_all, forged_set, forged_outsider
              slow_node, with n2's host in every table "ALL", "node[1-9]" or
              "victim7" (a name no report is of): nothing to drain
  disagree    slow_node, but n1's table names rank 1 "victim7": a warning
  nodelist    slow_node, each report with "job_id" 4242 and "nodelist" n[1-4]
  nodelist_wrong  the same, but the nodelist n[1,3,2,4] gives rank 1 to n3
  two_jobs    slow_node, n1's report of job 4241, the others of 4242
  conflict    healthy, but n4's copy of one measurement says 0.5 Gb/s
  mixed_rates n4's ports run at 200 Gb/s beside 400 (a second node type): its
              flows at half the others' Gb/s, at its line rate (no suspect)
  mixed_slow  mixed_rates, but n4 sends at a quarter: its rails are slow
The dead path's n4 -> n1 measurement has an "error" and no "gbps".
Shapes by rail identity (docs/mesh.md "Rail compatibility"): 8 InfiniBand
compute rails at 400 Gb/s (~390 measured), rail i in subnet 10.i.0.0/16:
n1 an HGX (mlx5_0..7), n2 and n3 DGX H100s (mlx5_0,3,4,5,6,9,10,11; their
storage ports mlx5_1,2 are no rail), n4 renumbered by an extra device
(mlx5_1..8).  Each report carries the "not_comparable" and "untested"
records its judge would write.
  mixed_shapes  healthy: no suspect, nothing not comparable or untested
  fabric_rail   rail 3 slow from n2, n3 and n4: one fabric suspect
  lossy_rail    n3's rail 5 loses everything both ways (errors): its rail
  incomparable  n4's rail 1 is Ethernet: its pairs on rail 1 not run, three
                records; n4 still ran one to n1 and says it failed (ignored)
  uneven        n4 has a ninth rail (mlx5_9): untested, one record
  bad_notes     mixed_shapes, but n2's not_comparable[0] has "rank": "x"
  routed_dead   n4's rail 2 on a subnet of its own (10.99.0.0/16) and every
                flow on it failed to connect: a rail that connected with
                nobody is dead, routed or not: its rail is named
  routed_halves n3's and n4's rail 2 on 10.99.0.0/16, the flows across the
                two subnets failed to connect, those inside ran: the
                routing's, not comparable, nobody named
"""
import json
import os
import random
import sys

N, RAILS = 4, 2
SHAPES = ("mixed_shapes", "fabric_rail", "lossy_rail", "incomparable", "uneven", "bad_notes",
          "routed_dead", "routed_halves")
HGX = ["mlx5_%d" % i for i in range(8)]
DGX = ["mlx5_%d" % i for i in (0, 3, 4, 5, 6, 9, 10, 11)]
RENUMBERED = ["mlx5_%d" % i for i in range(1, 9)]


def devices(scenario, rank):
    """Rank's rail devices in rail order."""
    if scenario not in SHAPES:
        return ["rxe%d" % i for i in range(RAILS)]
    if rank == 3:
        return RENUMBERED + (["mlx5_9"] if scenario == "uneven" else [])
    return HGX if rank == 0 else DGX


def shape_entry(scenario, rank, i, dev):
    e = {"device": dev, "port": 1, "link_layer": "InfiniBand", "rate": "400 Gb/sec (4X NDR)",
         "state": "ACTIVE", "role": "compute", "rail": i, "subnet": "10.%d.0.0/16" % i,
         "ib_subnet": "fe80:0000:0000:0000", "netdev": "ib%d" % i}
    if i == 2 and ((scenario == "routed_dead" and rank == 3) or
                   (scenario == "routed_halves" and rank >= 2)):
        e["subnet"] = "10.99.0.0/16"
    if scenario == "incomparable" and rank == 3 and i == 1:
        e.update(link_layer="Ethernet", netdev="eth1")
        del e["ib_subnet"]
    return e


def apart(scenario, a, b, rail):
    return scenario == "incomparable" and rail == 1 and 3 in (a, b)


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
    base = 390 if scenario in SHAPES else 10
    for rd, pairs in enumerate(schedule(n)):
        for a, b in pairs:
            for src, dst in ((a, b), (b, a)):
                sd, dd = devices(scenario, src), devices(scenario, dst)
                for rail in range(min(len(sd), len(dd))):
                    if apart(scenario, src, dst, rail):
                        continue
                    m = {"round": rd, "src": src, "dst": dst, "rail": rail,
                         "src_dev": sd[rail], "dst_dev": dd[rail],
                         "gbps": round(base * rnd.uniform(0.85, 1.15), 3),
                         "seconds": 2.0}
                    if scenario == "fabric_rail" and rail == 3 and src != 0:
                        m["gbps"] = round(m["gbps"] * 0.3, 3)
                    if rail == 2 and ((scenario == "routed_dead" and 3 in (src, dst)) or
                                      (scenario == "routed_halves" and (src >= 2) != (dst >= 2))):
                        m.update(gbps=0, error="connect: rdma_connect: no RDMA-CM event within "
                                 "11000 ms (Connection timed out)", stage="connect")
                    if scenario == "lossy_rail" and rail == 5 and 2 in (src, dst):
                        m.update(gbps=0, error="transfer: no completion for 5005 ms", stage="transfer")
                    if scenario == "slow_rail" and src == 2 and rail == 1:
                        m["gbps"] = round(2 * rnd.uniform(0.9, 1.1), 3)
                    if (scenario in ("slow_node", "hostile") or scenario in SLOW_NODE_LIKE) and src == 1:
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


# the host the tables give rank 1 (n2, the slow node) in the forged scenarios
FORGED = {"forged_all": "ALL", "forged_set": "node[1-9]", "forged_outsider": "victim7"}
# slow_node with something about the run's reports changed
SLOW_NODE_LIKE = ("forged_all", "forged_set", "forged_outsider", "disagree", "nodelist",
                  "nodelist_wrong", "two_jobs")


def table(scenario, n):
    ranks = []
    for r in range(n):
        e = {"rank": r, "host": "n%d" % (r + 1), "arrived": True,
             "rails": [{"device": "rxe%d" % i, "port": 1, "link_layer": "Ethernet",
                        "netdev": "eth%d" % (i + 1)} for i in range(RAILS)]}
        if scenario in SHAPES:
            e["rails"] = [shape_entry(scenario, r, i, d)
                          for i, d in enumerate(devices(scenario, r))]
        if scenario in ("mixed_rates", "mixed_slow"):
            for rail in e["rails"]:
                rail["rate"] = "200 Gb/sec (4X HDR)" if r == 3 else "400 Gb/sec (4X NDR)"
        if scenario == "missing" and r == 3:
            e = {"rank": r, "host": "n4", "arrived": False,
                 "why": "did not arrive by the deadline", "rails": []}
        if scenario == "hostile" and r == 1:
            e["host"] = "n2;$(reboot)"
        if scenario in FORGED and r == 1:
            e["host"] = FORGED[scenario]
        ranks.append(e)
    return {"ranks": ranks}


def notes(scenario, n):
    """The run-wide not_comparable and untested records, as mesh's judge writes them."""
    nc, ut = [], []
    for rd, pairs in enumerate(schedule(n)):
        for a, b in pairs:
            if apart(scenario, a, b, 1):
                nc.append({"round": rd, "rank": a, "peer": b, "rail": 1,
                           "device": devices(scenario, a)[1], "peer_device": devices(scenario, b)[1],
                           "why": "rail 1: %s at rank %d, %s at rank %d (%s vs %s)" % (
                               "Ethernet" if a == 3 else "InfiniBand", a,
                               "Ethernet" if b == 3 else "InfiniBand", b,
                               devices(scenario, a)[1], devices(scenario, b)[1])})
    if scenario == "uneven":
        ut.append({"rank": 3, "rail": 8, "device": "mlx5_9", "partners": 3, "of": 3,
                   "why": "untested: rank 0 has 8 rails"})
    return nc, ut


def report(host, rank, n, tab, meas, suspects, scenario="healthy"):
    finding = {"subject": None, "status": "pass", "message": "mesh run",
               "observed": {"rank": rank, "size": n, "table": tab,
                            "measurements": meas, "suspects": suspects}}
    if scenario in SHAPES:
        nc, ut = notes(scenario, n)
        finding["observed"].update(not_comparable=nc, untested=ut)
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
        own_tab = json.loads(json.dumps(tab))
        if scenario == "disagree" and r == 0:
            own_tab["ranks"][1]["host"] = "victim7"
        rep = report("n%d" % (r + 1), r, N, own_tab, mine, lie if r == 0 else [], scenario)
        obs = rep["checks"][0]["findings"][0]["observed"]
        if scenario in ("nodelist", "nodelist_wrong", "two_jobs"):
            obs["job_id"] = "4241" if scenario == "two_jobs" and r == 0 else "4242"
            obs["nodelist"] = "n[1,3,2,4]" if scenario == "nodelist_wrong" else "n[1-4]"
        if scenario == "incomparable" and r == 3:
            # ran anyway and failed: the tables say not comparable, so nobody is blamed
            obs["measurements"].append({"round": 0, "src": 3, "dst": 0, "rail": 1,
                                        "src_dev": "mlx5_2", "dst_dev": "mlx5_1", "gbps": 0,
                                        "seconds": 0, "bytes": 0, "stage": "connect",
                                        "error": "connect: rejected"})
        if scenario == "bad_notes" and r == 1:
            obs["not_comparable"] = [{"round": 0, "rank": "x", "peer": 1, "rail": 1,
                                      "why": "forged"}]
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
