#!/bin/sh
# SPDX-License-Identifier: MIT
# Soak: many consecutive runs must not leak memory or fds (docs/hardening.md).
#
#   bench/soak.sh [BUILD_DIR] [RUNS]
#
# 1. RUNS (default 1000) CLI runs of every static check on a generated
#    2-GPU RoCE root; in a -DPF_SANITIZE=ON build each run ends with
#    LeakSanitizer's check (detect_leaks=1), so one leak fails the soak.
# 2. The in-process soak (tests/unit/test_soak.c) with RUNS runs: fd count
#    and heap in use before and after.
# 3. valgrind --leak-check=full over a few CLI runs, forking and --no-fork.
# Prints one line per part; exit 1 if any part found growth or a leak.
set -eu
cd "$(dirname "$0")/.."
build=${1:-build}
runs=${2:-1000}
pf="$build/preflight"
[ -x "$pf" ] || { echo "soak: $pf not built" >&2; exit 2; }
tmp=$(mktemp -d /tmp/pfsoak.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
python3 tests/gen_root.py --gpus 2 --nics 2 --link-layer eth "$tmp/root" >/dev/null
fail=0
export ASAN_OPTIONS="detect_leaks=1:${ASAN_OPTIONS:-}"

# 1. consecutive CLI runs
bad=0
start=$(date +%s.%N)
i=0
while [ "$i" -lt "$runs" ]; do
	rc=0
	"$pf" --root "$tmp/root" --format json >"$tmp/out" 2>"$tmp/err" || rc=$?
	if [ "$rc" -gt 2 ] || grep -q "Sanitizer" "$tmp/err"; then
		bad=$((bad + 1))
		[ "$bad" -eq 1 ] && { echo "run $i: exit $rc"; head -40 "$tmp/err"; }
	fi
	i=$((i + 1))
done
end=$(date +%s.%N)
echo "cli: $runs runs in $(echo "$end - $start" | bc) s, $bad with an exit > 2 or a sanitizer report"
[ "$bad" -eq 0 ] || fail=1

# 2. in-process: fds and heap
if [ -x "$build/tests/test_soak" ]; then
	# at least 1000: the heap baseline is taken after a quarter of the runs
	n=$runs
	[ "$n" -ge 1000 ] || n=1000
	out=$(PF_SOAK_RUNS=$n "$build/tests/test_soak" 2>&1) || { fail=1; echo "$out"; }
	echo "$out" | grep '^soak'

fi

# 3. valgrind, forking and not.  No --error-exitcode: valgrind would apply
# it to the forked check children too (they _exit() without freeing, by
# design) and the runner would see every check exit 99; the parent's
# summary is read instead.
if command -v valgrind >/dev/null 2>&1 && ! grep -q 'PF_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
	for mode in "" --no-fork; do
		rc=0
		valgrind --leak-check=full --child-silent-after-fork=yes \
			"$pf" --root "$tmp/root" --format json $mode >/dev/null 2>"$tmp/vg" || rc=$?
		lost=$(grep -E 'definitely lost:|indirectly lost:|no leaks are possible|ERROR SUMMARY' "$tmp/vg" |
			sed 's/^==[0-9]*== *//' | tr '\n' ' ')
		echo "valgrind ${mode:-forking}: exit $rc; $lost"
		if grep -qE 'definitely lost: [1-9]|indirectly lost: [1-9]|ERROR SUMMARY: [1-9]' "$tmp/vg" ||
			[ "$rc" -gt 2 ]; then
			fail=1
			grep -A12 'definitely lost in\|Invalid' "$tmp/vg" | head -40
		fi
	done
fi
exit $fail
