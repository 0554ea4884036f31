# SPDX-License-Identifier: MIT
"""signals.py - preflight under SIGTERM, SIGINT, SIGHUP and SIGKILL (t0833).

preflight-faults (the CLI with a fault hook) makes `sysctl` hang in its
check child. The tests wait for that child to exist (bounded polling, no
fixed sleeps), signal the parent, and check that:
- no process of the run is left (each check has its own process group, so a
  signal to preflight alone used to orphan it, holding its pipe);
- the report is written, valid JSON, the hung check "interrupted by SIGTERM",
  the later ones "interrupted by SIGTERM before it ran";
- the exit status is 128 + the signal number, and no drain is attempted;
- SIGKILL of preflight takes the check with it (PR_SET_PDEATHSIG);
- a second signal exits at once (--no-fork: the hung check runs in-process).
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PREFLIGHT = os.environ["PREFLIGHT"]
FAULTS = os.path.join(os.path.dirname(PREFLIGHT), "preflight-faults")
failures = 0


def ok(msg):
    print("ok:", msg)


def not_ok(msg):
    global failures
    failures += 1
    print("not ok:", msg)


def procs_with(marker):
    """PIDs whose command line holds marker (the run's unique --output)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(d))
        except OSError:
            pass
    return pids


def wait_for(cond, limit=10.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def start(tmp, name, extra=()):
    out = os.path.join(tmp, name + ".json")
    env = dict(os.environ, PF_TEST_FAULT="hang:sysctl")
    env.pop("SLURM_JOB_ID", None)
    env.pop("SLURMD_NODENAME", None)
    p = subprocess.Popen([FAULTS, "--no-config", "--only", "memlock,sysctl,nic_link_speed",
                          "--output", out, "--timeout", "60", *extra],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p, out


def asleep(pid):
    """The process is blocked (state S) now and 50 ms later: inside the hung check."""
    def state():
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return "?"
    if state() != "S":
        return False
    time.sleep(0.05)
    return state() == "S"


def child_running(p, out):
    """The hung check's child: blocked now and 50 ms later (memlock's child is long gone)."""
    return any(pid != p.pid and asleep(pid) for pid in procs_with(out))


def interrupted(sig, name):
    with tempfile.TemporaryDirectory() as tmp:
        p, out = start(tmp, name)
        if not wait_for(lambda: child_running(p, out)):
            not_ok(f"{name}: the sysctl child never started")
            p.kill()
            return
        p.send_signal(sig)
        try:
            _, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            not_ok(f"{name}: preflight did not exit within 20 s of the signal")
            return
        want = 128 + sig
        (ok if p.returncode == want else not_ok)(f"{name}: exit {p.returncode}, want {want}")
        left = wait_for(lambda: not procs_with(out), 5.0)
        (ok if left else not_ok)(f"{name}: no process of the run left")
        signame = signal.Signals(sig).name
        try:
            with open(out, encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            not_ok(f"{name}: no valid report: {e}")
            return
        st = {c["name"]: (c["status"], c["summary"]) for c in r["checks"]}
        (ok if st["memlock"][1] != f"interrupted by {signame}" else not_ok)(
            f"{name}: memlock finished before the signal")
        (ok if st["sysctl"] == ("error", f"interrupted by {signame}") else not_ok)(
            f"{name}: the hung check is {st['sysctl']}")
        (ok if st["nic_link_speed"] == ("error", f"interrupted by {signame} before it ran")
         else not_ok)(f"{name}: the check after it is {st['nic_link_speed']}")
        (ok if f"interrupted by {signame}" in err.decode() else not_ok)(
            f"{name}: stderr says so: {err.decode().strip()[:200]}")
        tmpfiles = [f for f in os.listdir(tmp) if f != os.path.basename(out)]
        (ok if not tmpfiles else not_ok)(f"{name}: no temporary file left ({tmpfiles})")


def killed_parent():
    with tempfile.TemporaryDirectory() as tmp:
        p, out = start(tmp, "sigkill")
        if not wait_for(lambda: child_running(p, out)):
            not_ok("SIGKILL: the sysctl child never started")
            p.kill()
            return
        p.kill()
        p.wait()
        gone = wait_for(lambda: not procs_with(out), 5.0)
        (ok if gone else not_ok)("SIGKILL of preflight takes its check child too")


def second_signal():
    with tempfile.TemporaryDirectory() as tmp:
        p, _ = start(tmp, "twice", ["--no-fork"])
        # in-process, the hang is preflight itself: wait until it blocks in it
        if not wait_for(lambda: asleep(p.pid), 10.0):
            not_ok("twice: preflight never blocked in the hung check")
            p.kill()
            return
        # the first signal is remembered (an in-process check cannot be killed)...
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=1.0)
            not_ok("twice: a first signal ended an in-process hang (expected to wait)")
            return
        except subprocess.TimeoutExpired:
            ok("twice: the first signal is remembered, the in-process check still runs")
        # ...the second exits at once
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            p.kill()
            not_ok("twice: the second signal did not end preflight")
            return
        (ok if p.returncode == 128 + signal.SIGTERM else not_ok)(
            f"twice: exit {p.returncode} at once on the second signal")


def main():
    if not os.access(FAULTS, os.X_OK):
        print(f"skip: {FAULTS} not built")
        sys.exit(77)
    interrupted(signal.SIGTERM, "SIGTERM")
    interrupted(signal.SIGINT, "SIGINT")
    interrupted(signal.SIGHUP, "SIGHUP")
    killed_parent()
    second_signal()
    print(f"{failures} failed" if failures else "all passed")
    sys.exit(1 if failures else 0)


main()
