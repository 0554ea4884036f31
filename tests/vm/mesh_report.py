#!/usr/bin/env python3
"""Assertions over `preflight mesh` reports (docs/mesh.md), for the VM rig.

  mesh_report.py flows FILE N_RANKS          every ordered pair of the N ranks has a
                                             measurement on every rail of the run,
                                             each with bytes and gbps above zero and
                                             no error (the data was verified)
  mesh_report.py status FILE STATUS[,...]    the mesh check's status is one of these
  mesh_report.py suspects FILE KIND[,...]    the suspects' kinds, in order, are these
                                             ("-" for none)
  mesh_report.py none-of FILE KIND[,...]     no suspect is of these kinds
  mesh_report.py path FILE A B DIR           the first suspect is the path of ranks A and B
                                             in direction DIR (tx: what A sends to B)
  mesh_report.py ratio-below FILE X          the worst suspect is below X of the healthy
  mesh_report.py slower FILE SRC DST         SRC -> DST moved less than every other flow
  mesh_report.py same FILE FILE              both reports hold the same measurements
  mesh_report.py show FILE                   print the matrix and the suspects
Every assertion prints what it saw; exit 1 when it does not hold.
"""
import json
import sys


def mesh(path):
    try:
        rep = json.load(open(path))
    except (OSError, ValueError) as e:
        raise SystemExit(f"FAIL: cannot read the report {path}: {e}")
    [c] = [c for c in rep["checks"] if c["name"] == "mesh"]
    [f] = [f for f in c["findings"] if f.get("subject") == "mesh"]
    return c, f["observed"]


def show(path):
    c, o = mesh(path)
    lines = [f"  {path}: mesh {c['status']}: {c.get('summary', '')}"]
    for f in c["findings"]:
        if f.get("subject") != "mesh":
            lines.append(f"    {f['status']:5} {f.get('subject', '')}: {f.get('message', '')}")
    for m in o.get("measurements", []):
        lines.append("    round %s rank %s %s -> rank %s %s: %.4f Gb/s, %.0f bytes in %.2f s%s" % (
            m["round"], m["src"], m["src_dev"], m["dst"], m["dst_dev"], m["gbps"], m["bytes"],
            m["seconds"], " ERROR " + m["error"] if "error" in m else ""))
    for s in o.get("suspects", []):
        lines.append(f"    suspect {json.dumps(s)}")
    return "\n".join(lines)


def verdict(ok, what, path):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        print(show(path))
    return 0 if ok else 1


def main(argv):
    cmd, path = argv[1], argv[2]
    c, o = mesh(path)
    ms = o.get("measurements", [])
    if cmd == "show":
        print(show(path))
        return 0
    if cmd == "flows":
        n = int(argv[3])
        rails = {m["rail"] for m in ms} or {0}
        want = {(a, b, r) for a in range(n) for b in range(n) if a != b for r in rails}
        have = {(m["src"], m["dst"], m["rail"]) for m in ms
                if "error" not in m and m["bytes"] > 0 and m["gbps"] > 0}
        return verdict(want <= have, f"{path}: {len(have)} verified flows cover all "
                       f"{len(want)} directions of {n} ranks", path)
    if cmd == "status":
        return verdict(c["status"] in argv[3].split(","),
                       f"{path}: mesh is {c['status']} (want {argv[3]})", path)
    if cmd == "suspects":
        kinds = [s["kind"] for s in o.get("suspects", [])] or ["-"]
        return verdict(kinds == argv[3].split(","), f"{path}: suspects {kinds} "
                       f"(want {argv[3]})", path)
    if cmd == "none-of":
        kinds = [s["kind"] for s in o.get("suspects", [])]
        bad = [k for k in kinds if k in argv[3].split(",")]
        return verdict(not bad, f"{path}: suspects {kinds}, none of {argv[3]}", path)
    if cmd == "path":
        s = (o.get("suspects") or [{}])[0]
        got = (s.get("kind"), s.get("rank"), s.get("peer_rank"), s.get("dir"))
        want = ("path", int(argv[3]), int(argv[4]), argv[5])
        return verdict(got == want, f"{path}: first suspect {got} (want {want})", path)
    if cmd == "ratio-below":
        r = [s["ratio"] for s in o.get("suspects", [])]
        return verdict(bool(r) and min(r) < float(argv[3]),
                       f"{path}: worst suspect ratio {min(r) if r else None} < {argv[3]}", path)
    if cmd == "slower":
        a, b = int(argv[3]), int(argv[4])
        slow = [m["gbps"] for m in ms if (m["src"], m["dst"]) == (a, b)]
        rest = [m["gbps"] for m in ms if (m["src"], m["dst"]) != (a, b)]
        return verdict(bool(slow and rest) and max(slow) < min(rest),
                       f"{path}: {a} -> {b} {slow} below every other flow {rest}", path)
    if cmd == "same":
        key = lambda m: (m["round"], m["src"], m["dst"], m["rail"])
        other = mesh(argv[3])[1].get("measurements", [])
        return verdict(sorted(ms, key=key) == sorted(other, key=key),
                       f"{path} and {argv[3]} hold the same {len(ms)} measurements", path)
    raise SystemExit(f"unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
