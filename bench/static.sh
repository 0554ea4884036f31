#!/bin/sh
# SPDX-License-Identifier: MIT
# Time the static checks on a recorded root, as a Slurm prolog would run them:
#
#   bench/static.sh [BINARY [ROOT [RUNS]]]
#
# BINARY defaults to build/preflight, ROOT to tests/fixtures/sysctl-pass (a
# healthy two-rail node), RUNS to 50.  Runs
#   BINARY --root ROOT --only memlock,sysctl --format json
# RUNS times after one warm-up run and prints min, median and p90 of the wall
# time per run in milliseconds (process start to exit, output discarded), the
# median CPU time of the process and its children, and the load average: on a
# busy machine the wall figures wander, the CPU figure much less.
# Builds nothing.  The goal for the median is under 10 ms.
#
# Then, with python3 and tests/gen_root.py, the cost of isolation: the default
# static run (no --only) on a generated 8-GPU/8-NIC root, forked (the static
# checks share a child; src/runner/runner.c) and with --no-fork, RUNS times
# each in turn, and the ratio of the medians.  The goal is under 1.5.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/preflight}
root=${2:-$here/tests/fixtures/sysctl-pass}
runs=${3:-50}

[ -x "$bin" ] || { echo "static.sh: no executable '$bin' (build first)" >&2; exit 64; }
[ -d "$root" ] || { echo "static.sh: no root directory '$root'" >&2; exit 64; }
case $runs in ''|*[!0-9]*|0) echo "static.sh: RUNS must be a positive integer" >&2; exit 64 ;; esac

# the verdict is irrelevant here, but the run must produce a report
"$bin" --root "$root" --only memlock,sysctl --format json >/dev/null 2>&1 || [ $? -le 2 ] ||
	{ echo "static.sh: '$bin' failed on '$root'" >&2; exit 1; }

py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
if command -v "$py" >/dev/null 2>&1; then
	gen=
	if [ -f "$here/tests/gen_root.py" ]; then
		base=/tmp
		[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
		tmp=$(mktemp -d "${TMPDIR:-$base}/pf-static-bench.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		"$py" "$here/tests/gen_root.py" "$tmp/8x8" --gpus 8 --nics 8 >/dev/null && gen=$tmp/8x8
	fi
	"$py" - "$bin" "$root" "$runs" "$gen" <<'PY'
import os, resource, statistics, subprocess, sys, time
binary, root, runs, gen = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime

def once(cmd, ms, cpu):
    c0 = children_cpu()
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ms.append((time.perf_counter() - t0) * 1e3)
    cpu.append((children_cpu() - c0) * 1e3)

def line(ms, cpu):
    ms = sorted(ms)
    p90 = ms[min(len(ms) - 1, int(round(0.9 * (len(ms) - 1))))]
    return ("runs %d  min %.2f ms  median %.2f ms  p90 %.2f ms  (cpu median %.2f ms; load %.1f)"
            % (len(ms), ms[0], statistics.median(ms), p90, statistics.median(cpu),
               os.getloadavg()[0]))

cmd = [binary, "--root", root, "--only", "memlock,sysctl", "--format", "json"]
ms, cpu = [], []
for _ in range(runs):
    once(cmd, ms, cpu)
print("preflight --root %s --only memlock,sysctl --format json" % root)
print(line(ms, cpu))

if gen:
    forked = [binary, "--root", gen, "--format", "json"]
    inproc = forked + ["--no-fork"]
    f_ms, f_cpu, n_ms, n_cpu = [], [], [], []
    subprocess.run(forked, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(runs):  # in turn, so that a drift of the machine hits both
        once(forked, f_ms, f_cpu)
        once(inproc, n_ms, n_cpu)
    print("preflight --root <generated 8 GPUs / 8 NICs> --format json  (the default static run)")
    print("  forked     " + line(f_ms, f_cpu))
    print("  --no-fork  " + line(n_ms, n_cpu))
    print("  forked / --no-fork: %.2f (wall medians), %.2f (cpu medians)"
          % (statistics.median(f_ms) / statistics.median(n_ms),
             statistics.median(f_cpu) / max(statistics.median(n_cpu), 1e-9)))
PY
	exit 0
fi

# without Python: date(1) around each run (adds date's own start-up)
i=0
: >"${TMPDIR:-/tmp}/pfbench.$$"
while [ "$i" -lt "$runs" ]; do
	t0=$(date +%s%N)
	"$bin" --root "$root" --only memlock,sysctl --format json >/dev/null 2>&1 || true
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000)) >>"${TMPDIR:-/tmp}/pfbench.$$"
	i=$((i + 1))
done
sort -n "${TMPDIR:-/tmp}/pfbench.$$" | awk -v root="$root" '
	{ v[NR] = $1 }
	END {
		med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		p = int(0.9 * (NR - 1) + 0.5) + 1
		printf "preflight --root %s --only memlock,sysctl --format json\n", root
		printf "runs %d  min %.2f ms  median %.2f ms  p90 %.2f ms\n", NR, v[1] / 1000, med / 1000, v[p] / 1000
	}'
rm -f "${TMPDIR:-/tmp}/pfbench.$$"
