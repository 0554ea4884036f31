#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
nonroot.py - the static suite as an ordinary user (driver of t0831-nonroot.sh).

1. A generated root that anybody may read gives nobody the same verdict
   per check as root.
2. With files only root may read (a sysctl, /proc/self/limits, a port rate,
   a counter, a PCIe link file, bridge config space, a recorded PFC file),
   every finding that nobody gets and root does not says why: it holds
   "ermission denied", "root" or "CAP_", and each such file is named.
3. The live root (this host): nobody's run is a valid report, and every
   check that comes out worse than root's says so in the same words.
Needs root (to switch to uid 65534 with setpriv); exit 77 otherwise.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

PREFLIGHT = os.environ["PREFLIGHT"]
SRC = os.environ["PF_SOURCE_DIR"]
WHY = ("ermission denied", "root", "CAP_")
RANK = {"pass": 0, "skip": 0, "warn": 1, "fail": 2, "error": 2}
failures = 0

try:
    import jsonschema
    SCHEMA = json.load(open(os.path.join(SRC, "docs", "report.schema.json")))
except ImportError:
    jsonschema = None


def not_ok(msg):
    global failures
    failures += 1
    print("not ok: " + msg)


def static_skips():
    out = subprocess.run([PREFLIGHT, "--list"], capture_output=True, text=True).stdout
    return ",".join(l.split()[0] for l in out.splitlines() if "traffic" in l)


def run(root, nobody, name):
    cmd = [PREFLIGHT, "--root", root, "--format", "json", "--all", "--skip", static_skips()]
    if nobody:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, cwd="/", timeout=300)
    if p.returncode not in (0, 1, 2):
        not_ok(f"{name}: exit {p.returncode}: {p.stderr[-300:]}")
        return None
    try:
        r = json.loads(p.stdout)
    except ValueError:
        not_ok(f"{name}: not JSON: {p.stdout[:200]!r}")
        return None
    if jsonschema:
        try:
            jsonschema.validate(r, SCHEMA)
        except jsonschema.ValidationError as e:
            not_ok(f"{name}: report does not validate: {e.message}")
    return r


def findings(r):
    """check -> set of (status, subject, message)."""
    return {c["name"]: {(f["status"], f.get("subject", ""), f["message"]) for f in c["findings"]}
            for c in r["checks"]}


def compare(name, as_root, as_nobody):
    """Every check nobody sees worse says why, in a finding root does not get."""
    fr, fn = findings(as_root), findings(as_nobody)
    st_r = {c["name"]: c["status"] for c in as_root["checks"]}
    for c in as_nobody["checks"]:
        n = c["name"]
        if RANK[c["status"]] <= RANK[st_r.get(n, "pass")]:
            continue
        new = [f for f in fn[n] - fr.get(n, set()) if f[0] != "pass"]
        if not new:
            not_ok(f"{name}: {n} is {c['status']} as nobody, {st_r.get(n)} as root, with the same findings")
        for st, subj, msg in new:
            if not any(w in msg for w in WHY):
                not_ok(f"{name}: {n} as nobody does not say it needs root: {subj}: {msg}")
    return fn


def write_config(root):
    """ACS capability images for the bridges (as a root-run snapshot has)."""
    n = 0
    for dirpath, dirs, files in os.walk(os.path.join(root, "sys", "devices")):
        if "vendor" in files and "config" not in files:
            img = bytearray(4096)
            struct.pack_into("<I", img, 0x100, 0x000d | (1 << 16))
            struct.pack_into("<HH", img, 0x104, 0x5f, 0x00)
            with open(os.path.join(dirpath, "config"), "wb") as f:
                f.write(img)
            n += 1
    return n


def generated(tmp):
    root = os.path.join(tmp, "root")
    subprocess.run([sys.executable, os.path.join(SRC, "tests", "gen_root.py"),
                    "--gpus", "2", "--nics", "2", "--link-layer", "eth",
                    "--file", "preflight/dcb/enp20s0np0/pfc=prio-pfc 3:on",
                    "--file", "preflight/ethtool/enp20s0np0/pause=RX: off\nTX: off\n",
                    root], check=True, stdout=subprocess.DEVNULL)
    write_config(root)
    for d, _, fs in os.walk(tmp):
        os.chmod(d, 0o755)
        for f in fs:
            if not os.path.islink(os.path.join(d, f)):
                os.chmod(os.path.join(d, f), 0o644)
    as_root = run(root, False, "generated, root")
    as_nobody = run(root, True, "generated, nobody")
    if not as_root or not as_nobody:
        return
    sr = {c["name"]: c["status"] for c in as_root["checks"]}
    for c in as_nobody["checks"]:
        if c["status"] != sr.get(c["name"]):
            not_ok(f"readable root: {c['name']} is {c['status']} as nobody, {sr.get(c['name'])} as root")
    print(f"ok: a readable root gives nobody root's verdicts ({len(sr)} checks)")

    gpu = os.path.relpath(os.path.realpath(os.path.join(root, "sys/bus/pci/devices/0000:13:00.0")), root)
    bridge = os.path.dirname(gpu)
    private = {
        "proc/sys/net/core/rmem_max": "rmem_max",
        "proc/self/limits": "limits",
        "sys/class/infiniband/mlx5_0/ports/1/rate": "rate",
        "sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error": "symbol_error",
        gpu + "/current_link_speed": "current_link_speed",
        bridge + "/config": "config",
        "preflight/dcb/enp20s0np0/pfc": "pfc",
    }
    for rel in private:
        os.chmod(os.path.join(root, rel), 0o600)
    as_root = run(root, False, "root-only files, root")
    as_nobody = run(root, True, "root-only files, nobody")
    if not as_root or not as_nobody:
        return
    fn = compare("root-only files", as_root, as_nobody)
    text = json.dumps(as_nobody)
    for rel, word in private.items():
        named = any(word.lower() in m.lower() and any(w in m for w in WHY)
                    for fs in fn.values() for _, _, m in fs)
        if not named:
            not_ok(f"root-only {rel}: no finding as nobody names '{word}' and says why")
        else:
            print(f"ok: root-only {rel} is named")


def live():
    as_root = run("/", False, "live, root")
    as_nobody = run("/", True, "live, nobody")
    if as_root and as_nobody:
        compare("live", as_root, as_nobody)
        print("ok: live root as nobody: " + ", ".join(
            f"{c['name']}={c['status']}" for c in as_nobody["checks"]))


def main():
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        print("skip: needs root and setpriv to run as nobody")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="pfnonroot.", dir="/tmp")
    try:
        os.chmod(tmp, 0o755)
        generated(tmp)
        live()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{failures} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
