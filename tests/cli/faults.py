#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
faults.py - fault injection over generated roots (driver of t0830-faults.sh).

Every file a static check reads is replaced, one at a time, by an empty
file, random bytes, a 1 MB value, NUL bytes, a negative number, a file
nobody may read (preflight then runs as nobody), a symlink loop, a symlink
that points outside the root, or nothing; whole directories go missing.
Then the test-only binary preflight-faults makes a check hang, crash,
abort, exit without a result, send garbage, send too much, or print on
stdout.  Every run must: exit 0, 1 or 2; print one report that validates
against docs/report.schema.json; never show the marker text of the file
outside the root; and the check that reads the broken file must not pass
silently: its finding names the file (or its device) with a status other
than pass.  Environment: PREFLIGHT, PF_SOURCE_DIR (ctest sets both).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

PREFLIGHT = os.environ["PREFLIGHT"]
SRC = os.environ["PF_SOURCE_DIR"]
FAULTS = os.path.join(os.path.dirname(PREFLIGHT), "preflight-faults")
MARKER = "PF-FAULT-MARKER-OUTSIDE-THE-ROOT"
SANITIZER = ("AddressSanitizer", "runtime error:", "LeakSanitizer")

try:
    import jsonschema
    SCHEMA = json.load(open(os.path.join(SRC, "docs", "report.schema.json")))
except ImportError:
    jsonschema = None

failures = 0
runs = 0
bad_utf8 = False


def not_ok(msg):
    global failures
    failures += 1
    print("not ok: " + msg)


def am_root():
    return os.geteuid() == 0


def gen_root(path, *args):
    subprocess.run([sys.executable, os.path.join(SRC, "tests", "gen_root.py"), *args, path],
                   check=True, stdout=subprocess.DEVNULL)


def run(binary, root, *args, user=None, env=None, timeout=60):
    """Run preflight on @root; returns (rc, report or None, stderr)."""
    global runs, bad_utf8
    cmd = [binary, "--root", root, "--format", "json", *args]
    if user:
        cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *cmd]
    e = dict(os.environ)
    e.pop("PF_TEST_FAULT", None)
    e.update(env or {})
    runs += 1
    p = subprocess.run(cmd, capture_output=True, env=e, timeout=timeout)
    try:
        p.stdout.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        bad_utf8 = True  # RFC 8259: a JSON text is UTF-8
    out, err = p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    try:
        report = json.loads(out)
    except ValueError:
        report = None
    return p.returncode, report, out, err


def common(name, rc, report, out, err):
    """The promises every run keeps; returns False when the report is unusable."""
    if rc not in (0, 1, 2):
        not_ok(f"{name}: exit {rc}; stderr: {err[-400:]}")
    if any(s in err for s in SANITIZER):
        not_ok(f"{name}: sanitizer report: {err[-600:]}")
    if MARKER in out or MARKER in err:
        not_ok(f"{name}: the report shows a file outside the root")
    if bad_utf8:
        not_ok(f"{name}: the report is not valid UTF-8")
    if "\x1b" in out:
        not_ok(f"{name}: the report carries a raw escape character")
    if report is None:
        not_ok(f"{name}: stdout is not one JSON document: {out[:200]!r}")
        return False
    if jsonschema:
        try:
            jsonschema.validate(report, SCHEMA)
        except jsonschema.ValidationError as e:
            not_ok(f"{name}: report does not validate: {e.message}")
    return True


def check_of(report, check):
    for c in report["checks"]:
        if c["name"] == check:
            return c
    return None


def text_of(c):
    return json.dumps(c)


def judged(name, report, check, needles):
    """The check that reads the broken file says so: not pass, and names it."""
    c = check_of(report, check)
    if c is None:
        not_ok(f"{name}: no result for {check}")
        return
    bad = [f for f in c["findings"] if f["status"] != "pass"]
    if not bad:
        not_ok(f"{name}: {check} passes silently: {c.get('summary', '')}")
        return
    if not any(n in json.dumps(f) for f in bad for n in needles):
        not_ok(f"{name}: no {check} finding names any of {needles}: "
               + "; ".join(f["message"] for f in bad)[:300])


# (relative path, check that reads it, words one of its findings must hold,
#  mutations after which a pass is legitimate, files written first)
# A counter file that is absent is a counter the driver does not have: not
# judged, and a link out of the root must read as absent.
def targets(root):
    ib = "sys/class/infiniband/mlx5_0/ports/1"
    gpu = os.path.realpath(os.path.join(root, "sys/bus/pci/devices/0000:13:00.0"))
    gpu = os.path.relpath(gpu, root)
    return [
        ("proc/self/limits", "memlock", ["limits"], set(), {}),
        ("proc/sys/net/core/rmem_max", "sysctl", ["rmem_max"], set(), {}),
        ("proc/sys/net/ipv4/tcp_rmem", "sysctl", ["tcp_rmem"], set(), {}),
        ("proc/sys/net/ipv4/conf/all/arp_ignore", "sysctl", ["arp_ignore"], set(), {}),
        (ib + "/rate", "nic_link_speed", ["mlx5_0"], set(), {}),
        (ib + "/state", "nic_link_speed", ["mlx5_0"], set(), {}),
        (ib + "/counters/symbol_error", "port_errors", ["mlx5_0", "symbol_error"],
         {"missing", "outside-abs", "outside-rel"}, {}),
        ("proc/uptime", "port_errors", ["uptime"], set(),
         {ib + "/counters/symbol_error": "100\n"}),
        (gpu + "/current_link_speed", "pcie_link", ["0000:13:00.0"], set(), {}),
        (gpu + "/max_link_width", "pcie_link", ["0000:13:00.0"], set(), {}),
        ("preflight/dcb/enp20s0np0/pfc", "pfc_pause", ["enp20s0np0"], set(), {}),
        ("preflight/ethtool/enp20s0np0/pause", "pfc_pause", ["enp20s0np0"], set(), {}),
    ]


PFC = ("pfc-cap 8 macsec-bypass off delay 4096\n"
       "prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off\n")
PAUSE = "Pause parameters for enp20s0np0:\nAutonegotiate:\toff\nRX:\t\toff\nTX:\t\toff\n"
STATS = "NIC statistics:\n     rx_prio3_pause: 0\n     tx_prio3_pause: 0\n"


def save(path):
    """What restore() needs to put @path back."""
    if os.path.islink(path):
        return ("link", os.readlink(path))
    with open(path, "rb") as f:
        return ("file", f.read(), os.stat(path).st_mode & 0o7777)


def restore(path, saved):
    if os.path.lexists(path):
        os.unlink(path)
    if saved[0] == "link":
        os.symlink(saved[1], path)
    else:
        with open(path, "wb") as f:
            f.write(saved[1])
        os.chmod(path, saved[2])


def mutate(root, rel, kind, outside):
    path = os.path.join(root, rel)
    if os.path.lexists(path):
        os.unlink(path)
    if kind == "missing":
        return
    if kind == "loop":
        os.symlink(os.path.basename(path), path)
        return
    if kind == "outside-abs":
        os.symlink(outside, path)
        return
    if kind == "fifo":
        os.mkfifo(path)
        return
    if kind == "outside-rel":
        depth = rel.count("/")
        os.symlink("../" * (depth + 3) + os.path.relpath(outside, "/"), path)
        return
    data = {
        "empty": b"",
        "random": bytes(random.Random(rel).randrange(256) for _ in range(256)),
        "huge": b"9" * (1 << 20),
        "nul": b"\0\0\0\0",
        "nul-inside": b"4\x0096\n",
        "negative": b"-1\n",
        "perm": b"1\n",
    }[kind]
    with open(path, "wb") as f:
        f.write(data)
    if kind == "perm":
        os.chmod(path, 0)


MUTATIONS = ["empty", "random", "huge", "nul", "nul-inside", "negative", "loop",
             "outside-abs", "outside-rel", "missing", "fifo", "perm"]


def file_faults(tmp):
    outside_dir = os.path.join(tmp, "outside")
    os.makedirs(outside_dir)
    outside = os.path.join(outside_dir, "secret")
    with open(outside, "w") as f:
        f.write(MARKER + "\n")
    base = os.path.join(tmp, "base")
    gen_root(base, "--gpus", "2", "--nics", "2", "--link-layer", "eth",
             "--file", "preflight/dcb/enp20s0np0/pfc=" + PFC,
             "--file", "preflight/ethtool/enp20s0np0/pause=" + PAUSE,
             "--file", "preflight/ethtool/enp20s0np0/stats=" + STATS)
    for d, _, files in os.walk(tmp):
        os.chmod(d, 0o755)
    # the clean root: every check that reads a target has a verdict there
    rc, report, out, err = run(PREFLIGHT, base)
    if not common("clean root", rc, report, out, err):
        return
    for rel, check, needles, ok_kinds, prep in targets(base):
        if not os.path.lexists(os.path.join(base, rel)):
            not_ok(f"generated root lacks {rel}")
            continue
        prep_saved = {p: save(os.path.join(base, p)) for p in prep}
        for p, text in prep.items():
            with open(os.path.join(base, p), "w") as f:
                f.write(text)
        saved = save(os.path.join(base, rel))
        for kind in MUTATIONS:
            if kind == "perm" and not am_root():
                continue
            mutate(base, rel, kind, outside)
            name = f"{rel} {kind}"
            rc, report, out, err = run(PREFLIGHT, base, "--only", check,
                                       user=kind == "perm")
            restore(os.path.join(base, rel), saved)
            if not common(name, rc, report, out, err):
                continue
            if kind not in ok_kinds:
                judged(name, report, check, needles + [os.path.basename(rel)])
            if kind in ("random", "nul-inside"):
                mutate(base, rel, kind, outside)
                rc, _, out, err = run(PREFLIGHT, base, "--only", check, "--format", "text")
                restore(os.path.join(base, rel), saved)
                if bad_utf8 or any(ch in out for ch in "\x1b\x00\x07\x08\r"):
                    not_ok(f"{name} --format text: invalid UTF-8 or control characters "
                           "would reach the terminal")
        for p, sv in prep_saved.items():
            restore(os.path.join(base, p), sv)


def dir_faults(tmp):
    base = os.path.join(tmp, "base")
    for rel in ["sys/class/infiniband", "sys/class/net", "sys/bus/pci", "proc/sys/net",
                "proc/self", "sys", "proc", "preflight"]:
        root = os.path.join(tmp, "d")
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(base, root, symlinks=True)
        shutil.rmtree(os.path.join(root, rel))
        rc, report, out, err = run(PREFLIGHT, root)
        if common(f"missing {rel}/", rc, report, out, err):
            for c in report["checks"]:
                if not c["findings"]:
                    not_ok(f"missing {rel}/: {c['name']} has no finding")
    # a root full of loops: every directory the checks list is a link to itself
    root = os.path.join(tmp, "loops")
    for rel in ["sys/class/infiniband", "sys/class/net", "sys/bus/pci/devices", "proc/sys/net"]:
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        os.symlink(os.path.basename(rel), os.path.join(root, rel))
    rc, report, out, err = run(PREFLIGHT, root)
    common("directory loops", rc, report, out, err)
    topology_faults(tmp)


def topology_faults(tmp):
    """<root>/preflight/topology.xml is read through the root like any file."""
    base = os.path.join(tmp, "base")
    outside = os.path.join(tmp, "outside", "topology.xml")
    subprocess.run([sys.executable, "-c", "import sys; sys.stdout.write(open(sys.argv[1]).read())",
                    os.path.join(SRC, "tests", "fuzz", "corpus", "hwloc_xml", "model-2.0")],
                   stdout=open(outside, "w"), check=True)
    xml = os.path.join(base, "preflight", "topology.xml")
    crasher = os.path.join(SRC, "tests", "fuzz", "corpus", "hwloc_xml", "hwloc-crashes-nolibxml")
    for kind in ["outside-abs", "fifo", "hwloc-crash"]:
        if kind == "fifo":
            os.mkfifo(xml)
        elif kind == "hwloc-crash":
            # libhwloc's own XML reader dereferences NULL on this export
            shutil.copy(crasher, xml)
        else:
            os.symlink(outside, xml)
        name = f"preflight/topology.xml {kind}"
        rc, report, out, err = run(PREFLIGHT, base, "--only", "pcie_link,gpu_nic_numa",
                                   env={"HWLOC_LIBXML": "0"} if kind == "hwloc-crash" else None)
        os.unlink(xml)
        if not common(name, rc, report, out, err):
            continue
        if kind == "outside-abs":
            # a link out of the root reads as absent: the sysfs inventory is
            # used, and nothing of the outside model (domain 0001) shows
            if "0001:1b:00.0" in out:
                not_ok(f"{name}: the report shows the topology outside the root")
            continue
        for c in report["checks"]:
            if c["status"] != "error" or "topology" not in text_of(c):
                not_ok(f"{name}: {c['name']} is not an error naming the topology: {text_of(c)[:300]}")


def check_faults(tmp):
    """A check that hangs, crashes, ... (preflight-faults only)."""
    if not os.access(FAULTS, os.X_OK):
        print(f"skip: {FAULTS} not built: hang and crash cases not run")
        return
    base = os.path.join(tmp, "base")
    cases = [
        ("hang", "timed out after 1 s"),
        ("crash", "crashed: SIGSEGV"),
        ("abort", "crashed: SIGABRT"),
        ("exit", "exited with status 5"),
        ("garbage", "unreadable result"),
        ("huge", "sent a result over 64 MiB"),
    ]
    for kind, words in cases:
        name = f"{kind}:sysctl"
        rc, report, out, err = run(FAULTS, base, "--only", "memlock,sysctl",
                                   "--timeout", "1" if kind == "hang" else "20",
                                   env={"PF_TEST_FAULT": name})
        if not common(name, rc, report, out, err):
            continue
        c = check_of(report, "sysctl")
        if not c or c["status"] != "error" or words not in text_of(c):
            not_ok(f"{name}: sysctl is not an error saying '{words}': {text_of(c)[:300]}")
        if rc != 2:
            not_ok(f"{name}: exit {rc}, expected 2")
        m = check_of(report, "memlock")
        if not m or m["status"] != "pass":
            not_ok(f"{name}: the other check was disturbed: {text_of(m)[:200]}")
    # noise on stdout from a check never reaches the report
    rc, report, out, err = run(FAULTS, base, "--only", "memlock,sysctl",
                               env={"PF_TEST_FAULT": "stdout:sysctl"})
    if common("stdout:sysctl", rc, report, out, err) and "PF-FAULT-STDOUT-NOISE" in out:
        not_ok("stdout:sysctl: a check's stdout reached the report")
    # the shipped binary has no hook: the variable does nothing
    rc, report, out, err = run(PREFLIGHT, base, "--only", "memlock,sysctl", "--timeout", "1",
                               env={"PF_TEST_FAULT": "crash:sysctl,hang:memlock"})
    if common("hook in the shipped binary", rc, report, out, err):
        if any(c["status"] == "error" for c in report["checks"]):
            not_ok("PF_TEST_FAULT is honoured by the shipped binary")


def main():
    tmp = tempfile.mkdtemp(prefix="pffaults.", dir="/tmp")
    try:
        os.chmod(tmp, 0o755)
        file_faults(tmp)
        dir_faults(tmp)
        check_faults(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{runs} runs, {failures} failure(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
