#!/usr/bin/env python3
"""Judge the mesh job's report directories (tests/vm/jobs/mesh.sh) with
`preflight fleet`, as an operator would: every case's fleet view (printed)
must name what was injected, and nothing in the healthy case.
Usage: mesh_check.py SHARE PREFLIGHT."""
import json
import os
import subprocess
import sys

EXPECT = {  # case: the suspects named (kind, host, rail index or None, dir or None)
    "healthy": [],
    "slow_rail": [("rail", "vm2", 1, "tx")],
    "slow_node": [("node", "vm3", None, "tx")],
    "dead_path": [("path", "vm1", 0, "both")],
    "missing": [("missing", "vm3", None, None)],
}
failed = []  # what failed, repeated at the end: ctest shows only the log's tail


def check(ok, what):
    print(("ok " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)


# Three TCG guests on two shared cores: healthy directions of one run swing
# 2.5x (3.45-8.73 MB/s measured by vm_mesh_perftest beside a test suite;
# a mesh round run just after a shaped one fell to 0.18 of the healthy
# median once), while a 4 Mbit-shaped sender runs at 0.04-0.05 of it:
# judged at 0.25 of the run's healthy median instead of a real fabric's 0.7.
SLOW = "0.25"


def fleet(pf, d, *opts):
    p = subprocess.run([pf, "fleet", "--mesh-slow-fraction", SLOW, *opts, d],
                       capture_output=True, text=True, timeout=60)
    return p.stdout, p.stderr


def wiring(share, pf):
    """vm2's rails swapped between the rail segments: fleet over the run
    reports names vm2, rails 0<->1, and nobody else."""
    d = os.path.join(share, "wiring")
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    check(names == ["vm1.json", "vm2.json", "vm3.json"], "wiring: reports %s" % names)
    if not names:
        return
    text, err = fleet(pf, d)
    print("--- preflight fleet wiring (%s)\n%s%s" % (d, text[text.find("Wiring"):], err))
    w = json.loads(fleet(pf, d, "--format", "json")[0])["wiring"]
    got = [(m["host"], m["device"], m["rail"], m["sits_with_rail"], m["swapped"])
           for m in w["miswired"]]
    want = [("vm2", "rxe0", 0, 1, True), ("vm2", "rxe1", 1, 0, True)]
    check(got == want, "wiring: miswired %s, expected %s" % (got, want))
    check([r["judged"] for r in w["rails"]] == [True, True], "wiring: rails %s" % w["rails"])
    drain, _ = fleet(pf, d, "--drain-suspects")
    print(drain, end="")
    lines = [ln for ln in drain.splitlines() if ln.startswith("scontrol")]
    check(len(lines) == 1 and "NodeName=vm2 " in lines[0], "wiring: --drain-suspects vm2 only")


def main(share, pf):
    for case, want in EXPECT.items():
        d = os.path.join(share, case)
        names = sorted(os.listdir(d)) if os.path.isdir(d) else []
        hosts = ["vm1", "vm2"] if case == "missing" else ["vm1", "vm2", "vm3"]
        check(names == [h + ".json" for h in hosts], "%s: reports %s" % (case, names))
        if not names:
            continue
        reps = [json.load(open(os.path.join(d, n))) for n in names]
        text, err = fleet(pf, d)
        print("--- preflight fleet %s (%s)\n%s%s" % (case, d, text[text.find("Mesh"):], err))
        view = json.loads(fleet(pf, d, "--format", "json")[0])["mesh"]
        arrived = [r["host"] for r in view["ranks"] if r["arrived"]]
        check(arrived == hosts, "%s: arrived %s" % (case, arrived))
        got = [(s["kind"], s["host"], s.get("rail"), s.get("dir")) for s in view["suspects"]]
        if case == "missing":
            for n, r in zip(names, reps):
                s = json.dumps(r)
                check("vm3" in s and "did not arrive" in s, "%s: %s names vm3" % (case, n))
            got = [g for g in got if g[0] in ("missing", "silent")]
        else:
            check(view["measurements"] > 0, "%s: measurements %d" % (case, view["measurements"]))
        # what was injected is named, and nothing else: a node shaped on
        # egress may also show one of its rails slow in rx (its READ answers
        # queue behind its own data), a second suspect of the same node
        hosts_named = {g[1] for g in got}
        check(all(w in got for w in want) and hosts_named == {w[1] for w in want},
              "%s: suspects %s, expected %s%s" % (case, got, want,
                                                 " and no other host" if want else ""))
        # the storage NIC (rxe2, declared storage, shaped slower) is left
        # alone: in no rank's rail table, no flow, no suspect
        for n, r in zip(names, reps):
            mesh = [c for c in r.get("checks", []) if c.get("name") == "mesh"]
            check(mesh and "rxe2" not in json.dumps(mesh),
                  "%s: %s's mesh check leaves the storage NIC rxe2 alone" % (case, n))
        # the rendezvous tables' rails are wired right: nobody named
        mis = json.loads(fleet(pf, d, "--format", "json")[0])["wiring"]["miswired"]
        check(mis == [], "%s: wiring: miswired %s" % (case, mis))
        if case != "healthy" and want:
            drain, _ = fleet(pf, d, "--drain-suspects")
            print(drain, end="")
            named = "NodeName=%s " % want[0][1] in drain
            # only a host with a report of its own is drained (a rank that never
            # started wrote none: a "not a reporting node" comment; docs/fleet.md)
            own = any(r.get("node", {}).get("hostname") == want[0][1] for r in reps)
            check(named == (want[0][0] != "path" and own), "%s: --drain-suspects" % case)
            if want[0][0] != "path" and not own:
                check("'%s' is not a reporting node" % want[0][1] in drain,
                      "%s: --drain-suspects says %s is not a reporting node" % (case, want[0][1]))
    wiring(share, pf)
    for what in failed:
        print("FAIL " + what)
    print("mesh_check: %d failure(s)" % len(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
