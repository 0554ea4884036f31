#!/usr/bin/env python3
"""Assertions over preflight JSON reports, for the VM rig's jobs.

  report.py check FILE CHECK STATUS[,STATUS...]      the check's status is one of these
  report.py finding FILE CHECK SUBJECT_RE STATUS [TEXT_RE]
                                                     some finding whose subject matches
                                                     has STATUS (and TEXT_RE in its message)
  report.py no-finding FILE CHECK SUBJECT_RE STATUS  no finding of that subject has STATUS
  report.py contains FILE CHECK TEXT_RE              TEXT_RE occurs in the check's JSON
  report.py gbps FILE CHECK                          print each finding's gbps
  report.py figures FILE CHECK                       some finding has a figure (observed gbps),
                                                     and every figure is above zero
  report.py obs FILE CHECK SUBJECT_RE KEY VALUE_RE   some finding of that subject has
                                                     observed KEY matching VALUE_RE
  report.py slower FILE CHECK SLOW_RE FAST_RE        every flow matching SLOW_RE moved less
                                                     than every flow matching FAST_RE
  report.py statuses FILE                            print "check status" per check
  report.py same ONE TWO CHECK[,CHECK...]            the checks have the same status in both
Every assertion prints what it saw; exit 1 when it does not hold.
"""
import json
import re
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit(f"FAIL: cannot read the report {path}: {e}")


def check_of(rep, name):
    for c in rep.get("checks", []):
        if c["name"] == name:
            return c
    raise SystemExit(f"FAIL: no check {name} in the report")


def show(c):
    lines = [f"  {c['name']}: {c['status']}: {c.get('summary', '')}"]
    for f in c.get("findings", []):
        lines.append(f"    {f['status']:5} {f.get('subject', '')}: {f.get('message', '')}")
    return "\n".join(lines)


def main(argv):
    cmd = argv[1]
    if cmd == "statuses":
        for c in load(argv[2])["checks"]:
            print(c["name"], c["status"])
        return 0
    if cmd == "same":
        a, b = load(argv[2]), load(argv[3])
        bad = 0
        for name in argv[4].split(","):
            ca, cb = check_of(a, name), check_of(b, name)
            ok = ca["status"] == cb["status"]
            print(f"{'ok' if ok else 'FAIL'}: {name}: {ca['status']} / {cb['status']}")
            if not ok:
                print(show(ca))
                print(show(cb))
                bad = 1
        return bad
    c = check_of(load(argv[2]), argv[3])
    if cmd == "check":
        ok = c["status"] in argv[4].split(",")
        print(f"{'ok' if ok else 'FAIL'}: {c['name']} is {c['status']} (want {argv[4]})")
        if not ok:
            print(show(c))
        return 0 if ok else 1
    if cmd in ("finding", "no-finding"):
        subj, st = re.compile(argv[4]), argv[5]
        text = re.compile(argv[6]) if len(argv) > 6 else None
        hits = [f for f in c.get("findings", [])
                if subj.search(f.get("subject", "")) and f["status"] == st
                and (text is None or text.search(f.get("message", "")))]
        ok = bool(hits) == (cmd == "finding")
        what = " ".join(argv[4:])
        print(f"{'ok' if ok else 'FAIL'}: {cmd} {c['name']} {what}")
        if not ok:
            print(show(c))
        return 0 if ok else 1
    if cmd == "contains":
        ok = re.search(argv[4], json.dumps(c)) is not None
        print(f"{'ok' if ok else 'FAIL'}: {c['name']} mentions /{argv[4]}/")
        if not ok:
            print(show(c))
        return 0 if ok else 1
    if cmd == "slower":
        def rates(rx):
            return [(f["subject"], f["observed"]["gbps"]) for f in c.get("findings", [])
                    if re.search(rx, f.get("subject", ""))
                    and "gbps" in (f.get("observed") or {})]
        slow, fast = rates(argv[4]), rates(argv[5])
        ok = bool(slow) and bool(fast) and max(g for _, g in slow) < min(g for _, g in fast)
        print(f"{'ok' if ok else 'FAIL'}: {c['name']}: {slow} all below {fast}")
        return 0 if ok else 1
    if cmd == "figures":
        g = [(f["subject"], f["observed"]["gbps"]) for f in c.get("findings", [])
             if isinstance((f.get("observed") or {}).get("gbps"), (int, float))]
        ok = bool(g) and all(v > 0 for _, v in g)
        print(f"{'ok' if ok else 'FAIL'}: {c['name']} figures {g}")
        if not ok:
            print(show(c))
        return 0 if ok else 1
    if cmd == "obs":
        subj, key, val = re.compile(argv[4]), argv[5], re.compile(argv[6])
        hits = [f for f in c.get("findings", []) if subj.search(f.get("subject", ""))
                and val.search(str((f.get("observed") or {}).get(key, "")))]
        ok = bool(hits)
        print(f"{'ok' if ok else 'FAIL'}: {c['name']}: {argv[4]} has {key} ~ /{argv[6]}/")
        if not ok:
            print(show(c))
        return 0 if ok else 1
    if cmd == "gbps":
        for f in c.get("findings", []):
            g = (f.get("observed") or {}).get("gbps")
            if g is not None:
                print(f"  {f['subject']}: {g:.3f} Gb/s")
        return 0
    raise SystemExit(f"report.py: unknown command {cmd}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
