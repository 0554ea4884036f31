#!/usr/bin/env python3
"""Synthetic reports for the fleet's wiring view (t0922, docs/rails.md "Wiring").

Usage: wiring_reports.py DIR SCENARIO
Writes DIR/<host>.json, one preflight.report/v1 per node whose node.rails
table holds 8 compute rails (rail 0..7), or for the mesh scenarios one
report of `preflight mesh` per rank whose rendezvous table carries every
rank's rails.  4 nodes n1..n4 unless said.  Scenarios:
  flat_ib      InfiniBand, one default GID prefix fe80::, no IPv4: not judged
  subnets      RoCE, rail i in 10.0.i.0/24 on every node: nothing miswired
  routed       RoCE, a /31 per port (each node its own subnet): not judged
  swapped      subnets, but n3's rails 0 and 1 sit in each other's subnets
  two_nodes    swapped with only n1 and n3: not judged (3 nodes needed)
  mixed        subnets; n1, n2 are DGX H100s (rails mlx5_0,3,4,5,6,9,10,11,
               storage mlx5_1,2 in 10.9.0.0/24 and a storage subnet),
               n3, n4 HGXs (mlx5_0..7): nothing miswired
  lldp         flat_ib, but an LLDP chassis per rail (leaf-i): nothing
  lldp_swapped lldp, n2's rails 2 and 5 plugged into each other's leaves
  mesh_swapped swapped, from mesh reports (only rank 0's report: its table
               is enough)
  malformed    subnets, but n2's node.rails[1] has "rail": 99
  hostile      swapped, n3's hostname "n3;$(reboot)"
"""
import json
import os
import sys

RAILS = 8
DGX = [0, 3, 4, 5, 6, 9, 10, 11]


def rail_entry(dev, rail, subnet, ib_subnet, lldp, role="compute", rate=400):
    return {"device": dev, "port": 1, "role": role, "reason": "synthetic",
            "declared": False, "rail": rail, "gpu": None,
            "link_layer": "InfiniBand" if ib_subnet else "Ethernet",
            "rate_gbps": rate, "up": True, "netdev": None, "subnet": subnet,
            "ib_subnet": ib_subnet, "sm_lid": 1 if ib_subnet else None,
            "lldp": {"chassis": lldp, "port": "Eth1/%d" % (rail + 1)} if lldp else None}


def node_rails(scenario, host, k):
    """The rail table of node number k (0-based)."""
    out = []
    names = ["mlx5_%d" % i for i in range(RAILS)]
    if scenario == "mixed" and k < 2:
        names = ["mlx5_%d" % i for i in DGX]
    for i in range(RAILS):
        slot = i
        if scenario in ("swapped", "two_nodes", "mesh_swapped", "hostile") and k == 2 and i < 2:
            slot = 1 - i
        if scenario == "lldp_swapped" and k == 1 and i in (2, 5):
            slot = 7 - i
        subnet = ib = lldp = None
        if scenario in ("flat_ib", "lldp", "lldp_swapped"):
            ib = "fe80:0000:0000:0000"
            if scenario != "flat_ib":
                lldp = "leaf-%d" % slot
        elif scenario == "routed":
            subnet = "10.%d.%d.%d/31" % (k, slot, 2 * k)
        else:
            subnet = "10.0.%d.0/24" % slot
        out.append(rail_entry(names[i], i, subnet, ib, lldp))
    if scenario == "mixed" and k < 2:
        for dev in ("mlx5_1", "mlx5_2"):
            e = rail_entry(dev, None, "10.9.0.0/24", None, None, role="storage", rate=200)
            out.append(e)
    if scenario == "malformed" and k == 1:
        out[1]["rail"] = 99
    return out


def host_of(scenario, k):
    if scenario == "hostile" and k == 2:
        return "n3;$(reboot)"
    return "n%d" % (k + 1)


def run_report(host, rails):
    return {"schema": "preflight.report/v1",
            "tool": {"name": "preflight", "version": "0.1.0"},
            "node": {"hostname": host, "kernel": "6.1.0", "root": "/", "rails": rails},
            "profile": "generic", "started_at": "2026-11-28T12:00:00Z",
            "duration_ms": 10.0, "verdict": "pass",
            "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0},
            "checks": [{"name": "memlock", "status": "pass", "duration_ms": 0.1,
                        "summary": "ok", "findings": []}]}


def mesh_report(rank, hosts, tables):
    ranks = [{"rank": r, "host": h, "arrived": True,
              "rails": [{k: v for k, v in e.items()
                         if k in ("device", "port", "link_layer", "role", "rail", "subnet",
                                  "ib_subnet", "lldp") and v is not None}
                        for e in tables[r]]}
             for r, h in enumerate(hosts)]
    obs = {"rank": rank, "table": {"size": len(hosts), "ranks": ranks}, "measurements": []}
    return {"schema": "preflight.report/v1",
            "tool": {"name": "preflight", "version": "0.1.0"},
            "node": {"hostname": hosts[rank], "kernel": "6.1.0", "root": "/"},
            "profile": "generic", "started_at": "2026-11-28T12:00:00Z",
            "duration_ms": 10.0, "verdict": "pass",
            "counts": {"pass": 1, "warn": 0, "fail": 0, "skip": 0, "error": 0},
            "checks": [{"name": "mesh", "status": "pass", "duration_ms": 0.1,
                        "summary": "ok", "findings": [
                            {"subject": "mesh", "status": "pass", "message": "ok",
                             "observed": obs}]}]}


def main():
    out, scenario = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    nodes = [0, 2] if scenario == "two_nodes" else [0, 1, 2, 3]
    hosts = [host_of(scenario, k) for k in nodes]
    tables = [node_rails(scenario, h, k) for h, k in zip(hosts, nodes)]
    if scenario == "mesh_swapped":
        with open(os.path.join(out, "rank0.json"), "w") as f:
            json.dump(mesh_report(0, hosts, tables), f)
        return
    for i, (h, t) in enumerate(zip(hosts, tables)):
        with open(os.path.join(out, "node%d.json" % i), "w") as f:
            json.dump(run_report(h, t), f)


if __name__ == "__main__":
    main()
