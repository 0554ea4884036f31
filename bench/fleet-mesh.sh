#!/bin/sh
# SPDX-License-Identifier: MIT
# fleet-mesh.sh - time `preflight fleet` over one generated `preflight mesh`
# report with many path suspects (bench/gen_reports.py --mesh), the shape
# that was quadratic (issue 30 item 5).  Prints figures; no pass or fail.
#
# usage: bench/fleet-mesh.sh [PREFLIGHT] [N [ROUNDS [RAILS]]]...
#   PREFLIGHT defaults to $PREFLIGHT, then build/preflight.  Without sizes:
#   16,000 ranks (2 rounds, 4 rails) and 64,000 ranks (1 round, 1 rail),
#   the most of those shapes that fit the 64 MiB input bound.  Several
#   sizes are given as "N,ROUNDS,RAILS" words.
# Each size: the report's size, the suspects, and three runs' seconds
# (text view) with the best.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bin=${PREFLIGHT:-$here/../build/preflight}
if [ $# -gt 0 ] && [ -x "$1" ] && [ ! -d "$1" ]; then
	bin=$1
	shift
fi
[ $# -gt 0 ] || set -- 16000,2,4 64000,1,1
tmp=$(mktemp -d /tmp/pf-fleet-mesh.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for size in "$@"; do
	IFS=, read -r n rounds rails <<-END
	$size
	END
	rm -rf "$tmp/r"
	python3 "$here/gen_reports.py" --mesh "$tmp/r" "$n" "${rounds:-8}" "${rails:-8}"
	echo "mesh report: $n ranks, ${rounds:-8} rounds, ${rails:-8} rails," \
		"$(du -h "$tmp/r"/*.json | cut -f1)"
	best=
	for run in 1 2 3; do
		t0=$(date +%s.%N)
		rc=0
		"$bin" fleet "$tmp/r" >"$tmp/view.txt" 2>"$tmp/err" || rc=$?
		t1=$(date +%s.%N)
		[ "$rc" -le 1 ] || { echo "preflight fleet exited $rc: $(head -c 300 "$tmp/err")" >&2; exit 1; }
		s=$(awk "BEGIN { printf \"%.3f\", $t1 - $t0 }")
		echo "run $run: $s s"
		if [ -z "$best" ] || awk "BEGIN { exit !($s < $best) }"; then best=$s; fi
	done
	echo "fleet mesh: $n ranks, $(grep -m1 'suspects, worst first' "$tmp/view.txt" || echo 'no suspects'), $best s (best of 3)"
done
