#!/bin/sh
# SPDX-License-Identifier: MIT
# The extra CI passes of docs/hardening.md, run by ctest (tests ci_sanitize
# and ci_fuzz, labels "sanitize" and "fuzz") when CI=true, so that
# scripts/test.sh stays one ctest run:
#
#   scripts/ci-extra.sh sanitize   the whole suite again, built with ASan+UBSan
#                                  (-DPF_SANITIZE=ON, -fno-sanitize-recover=all)
#                                  in build-sanitize/ ($PF_SANITIZE_BUILD)
#   scripts/ci-extra.sh fuzz [S]   build the libFuzzer targets with clang
#                                  (-DPF_FUZZ=ON) in build-fuzz/ ($PF_FUZZ_BUILD)
#                                  and run each for S seconds (default 15) from
#                                  its seed corpus
#
# Exit 77 (ctest: skipped) when the pass cannot run here (no clang or no
# libFuzzer runtime: apt-get install clang libclang-rt-14-dev).
set -eu
cd "$(dirname "$0")/.."
# --ci-only: what ctest runs; a skip outside CI (set CI=true or PF_CI_EXTRA=1)
if [ "${1:-}" = "--ci-only" ]; then
	shift
	if [ "${CI:-}" != "true" ] && [ -z "${PF_CI_EXTRA:-}" ]; then
		echo "ci-extra: $1 runs only in CI (CI=true or PF_CI_EXTRA=1)"
		exit 77
	fi
fi
src=$(pwd)
jobs=$(nproc 2>/dev/null || echo 2)

case "${1:-}" in
sanitize)
	b=${PF_SANITIZE_BUILD:-build-sanitize}
	cmake -S . -B "$b" -DPF_SANITIZE=ON -DPF_WERROR="${PF_WERROR:-ON}" >/dev/null
	cmake --build "$b" -j "$jobs"
	# the nested suite must not run these passes again
	cd "$b"
	LSAN_OPTIONS="suppressions='$src/tests/fuzz/lsan.supp':print_suppressions=0" \
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}" \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}" \
		ctest --output-on-failure -j "$jobs" -LE ci-extra -E '^cli_t0713-package$'
	;;
fuzz)
	secs=${2:-15}
	command -v clang >/dev/null 2>&1 || { echo "ci-extra: no clang, fuzzers not run"; exit 77; }
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
		>/tmp/pf-fuzz-probe.$$.c
	if ! clang -fsanitize=fuzzer /tmp/pf-fuzz-probe.$$.c -o /tmp/pf-fuzz-probe.$$ 2>/dev/null; then
		rm -f /tmp/pf-fuzz-probe.$$*
		echo "ci-extra: clang has no libFuzzer runtime (libclang-rt-14-dev), fuzzers not run"
		exit 77
	fi
	rm -f /tmp/pf-fuzz-probe.$$*
	b=${PF_FUZZ_BUILD:-build-fuzz}
	CC=clang cmake -S . -B "$b" -DPF_FUZZ=ON -DPF_WERROR=OFF >/dev/null
	targets=$(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//')
	# shellcheck disable=SC2086
	cmake --build "$b" -j "$jobs" --target $targets
	# leaks inside libhwloc on malformed XML are the library's (tests/fuzz/lsan.supp);
	# its libxml2 plugin is unloaded before LeakSanitizer can name it, so
	# the fuzzers use hwloc's own XML reader
	export LSAN_OPTIONS="suppressions='$src/tests/fuzz/lsan.supp':print_suppressions=0"
	export HWLOC_LIBXML=0
	work=$(mktemp -d /tmp/pf-fuzz.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	failed=""
	for t in $targets; do
		name=${t#fuzz_}
		mkdir -p "$work/$name/corpus" "$work/$name/crash"
		printf '%-14s ' "$name"
		if "$b/tests/fuzz/$t" -max_total_time="$secs" -timeout=10 \
			-rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
			-artifact_prefix="$work/$name/crash/" \
			"$work/$name/corpus" "$src/tests/fuzz/corpus/$name" \
			>"$work/$name/log" 2>&1; then
			grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/$name/log" |
				sed 's/.*: */runs: /'
		else
			echo "FAILED"
			tail -40 "$work/$name/log"
			for a in "$work/$name/crash"/*; do
				[ -e "$a" ] && echo "reproducer ($a):" && od -c "$a" | head -20
			done
			failed="$failed $name"
		fi
	done
	[ -z "$failed" ] || { echo "ci-extra: fuzzers failed:$failed"; exit 1; }
	;;
*)
	echo "usage: scripts/ci-extra.sh sanitize | fuzz [SECONDS]" >&2
	exit 64
	;;
esac
