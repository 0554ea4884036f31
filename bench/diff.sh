#!/bin/sh
# SPDX-License-Identifier: MIT
# diff.sh - time `preflight diff` of two reports with N findings in one check.
#
# usage: bench/diff.sh [PREFLIGHT] [N...]   (default N: 10000 40000)
#   PREFLIGHT defaults to $PREFLIGHT, then build/preflight.
# Each report has one check (port_errors) whose N findings have distinct
# subjects ("mlx5_<i>/1"); in NEW every tenth finding changed status and every
# finding's counter moved, so every finding is matched and compared.  Prints
# the seconds of the best of three runs for each N; a run over 300 s is cut.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${PREFLIGHT:-$here/../build/preflight}}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 10000 40000
tmp=$(mktemp -d /tmp/pf-diff-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for n in "$@"; do
	python3 - "$tmp" "$n" <<'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
def report(new):
    fs = [{"subject": f"mlx5_{i}/1",
           "status": "warn" if new and i % 10 == 0 else "pass",
           "message": "symbol errors", "observed": {"symbol_error": i + (7 if new else 0)}}
          for i in range(n)]
    return {"schema": "preflight.report/v1", "host": {"hostname": "n1"}, "verdict": "pass",
            "checks": [{"name": "port_errors", "status": "warn" if new else "pass",
                        "findings": fs}]}
for name, new in (("old", False), ("new", True)):
    with open(f"{d}/{name}.json", "w") as f:
        json.dump(report(new), f)
PY
	best=
	for run in 1 2 3; do
		t0=$(date +%s.%N)
		rc=0
		timeout 300 "$bin" diff "$tmp/old.json" "$tmp/new.json" --format json >/dev/null || rc=$?
		t1=$(date +%s.%N)
		[ "$rc" -le 1 ] || { echo "N=$n: preflight diff exited $rc" >&2; break; }
		s=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
		if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
	done
	echo "diff: $n findings ($(du -h "$tmp/new.json" | cut -f1) each) in ${best:-over 300} s (best of 3)"
done
