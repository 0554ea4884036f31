#!/bin/sh
# SPDX-License-Identifier: MIT
# fleet.sh - time `preflight fleet` over N generated reports (default 5,000).
#
# usage: bench/fleet.sh [PREFLIGHT] [N]
#   PREFLIGHT defaults to $PREFLIGHT, then build/preflight.
# Prints the seconds of each of three runs and the best; the reports are written
# to a temporary directory that is removed at the end.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${PREFLIGHT:-$here/../build/preflight}}
n=${2:-5000}
tmp=$(mktemp -d /tmp/pf-fleet-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

python3 "$here/gen_reports.py" "$tmp" "$n"
echo "reports: $n files, $(du -sh "$tmp" | cut -f1) in $tmp"
best=
for run in 1 2 3; do
	t0=$(date +%s.%N)
	rc=0
	"$bin" fleet "$tmp" --format json >/dev/null || rc=$?
	t1=$(date +%s.%N)
	[ "$rc" -le 1 ] || { echo "preflight fleet exited $rc" >&2; exit 1; }
	s=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
	echo "run $run: $s s"
	if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
done
echo "fleet: $n reports in $best s (best of 3)"
