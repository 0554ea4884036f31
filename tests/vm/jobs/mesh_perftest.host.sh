# On the host, after mesh_perftest.sh: every direction ran healthy; with
# vm2's rail shaped its two sends are the slow ones (below half of the
# slowest other direction of that run); with vm1 <-> vm3 dropped exactly
# those two directions fail.
python3 - "$1" <<'PY'
import glob, sys
res = {}
for path in glob.glob(sys.argv[1] + "/vm*/perf.txt"):
    for line in open(path):
        ph, src, dst, v = line.split()
        res[(ph, src, dst)] = None if v == "fail" else float(v)
fails = 0
def check(ok, what):
    global fails
    print(("ok " if ok else "FAIL ") + what)
    fails += not ok
dirs = [(a, b) for a in ("vm1", "vm2", "vm3") for b in ("vm1", "vm2", "vm3") if a != b]
for ph in ("healthy", "slow_rail", "dead_path"):
    print(ph + ": " + ", ".join("%s->%s %s" % (a, b, res.get((ph, a, b))) for a, b in dirs))
h = [res.get(("healthy", a, b)) for a, b in dirs]
check(all(v for v in h), "healthy: all six directions ran")
slow = [res.get(("slow_rail", a, b)) for a, b in dirs if a == "vm2"]
rest = [res.get(("slow_rail", a, b)) for a, b in dirs if a != "vm2"]
check(all(slow) and all(rest) and max(slow) < 0.5 * min(rest),
      "slow_rail: vm2's sends %s below half of the others' %s" % (slow, rest))
dead = {(a, b): res.get(("dead_path", a, b)) for a, b in dirs}
check(all(v is None for (a, b), v in dead.items() if {a, b} == {"vm1", "vm3"}) and
      all(v for (a, b), v in dead.items() if {a, b} != {"vm1", "vm3"}),
      "dead_path: exactly vm1 <-> vm3 fail")
print("mesh_perftest: %d failure(s)" % fails)
sys.exit(1 if fails else 0)
PY
