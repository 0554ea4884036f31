#!/bin/sh
# SPDX-License-Identifier: MIT
# The tests pass from any clone (ctest ci_clone, docs/testing.md "Tests from
# any clone"): the tree is cloned (git clone of this checkout's HEAD, or a
# copy of the source without its build directories when it is not a git
# checkout) into two places that once broke the suite, built there, and the
# tests those places broke are run there:
#
#   /tmp/pf-clone.XXXXXX/pf          the VM guest mounts a tmpfs over /tmp
#   /tmp/pf clone.XXXXXX/pf src      a 0700 directory (like /root) with a
#                                    space in its path: nobody cannot read it
#
# In each: preflight and preflight-faults alone are built (-j2; t0830 and
# t0833 run the second), then ctest runs the
# CLI tests t0830-t0836 (every test that runs preflight as another user)
# and vm_two_rails_faults (the cheapest VM job: one VM, about 90 s under
# TCG; it reads the source and the build tree in the guest).
#
# Usage: scripts/clone-test.sh [--ci-only]
#   --ci-only  what ctest runs: a skip (77) unless CI=true or PF_CI_EXTRA=1
# Exit 0 when both clones pass everything; 1 on a failure; 77 (skipped, with
# the reason) when git clone, the build or ctest cannot run here, or when
# the clone tests passed but part of them could not run (not root, the VM
# rig missing): never a pass for what did not run.
set -u
cd "$(dirname "$0")/.." || exit 1
src=$(pwd)
if [ "${1:-}" = "--ci-only" ] && [ "${CI:-}" != "true" ] && [ -z "${PF_CI_EXTRA:-}" ]; then
	echo "clone-test: runs only in CI (CI=true or PF_CI_EXTRA=1)"
	exit 77
fi
for tool in cmake ctest; do
	command -v "$tool" >/dev/null 2>&1 || { echo "clone-test: skip: no $tool"; exit 77; }
done
git_clone=false
if [ -e "$src/.git" ]; then
	command -v git >/dev/null 2>&1 || { echo "clone-test: skip: a git checkout but no git"; exit 77; }
	git_clone=true
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
		echo "clone-test: note: uncommitted changes are not in the clones (git clone of HEAD)"
fi
not_run=""
[ "$(id -u)" -eq 0 ] || not_run="$not_run; not root: the tests that run as nobody skip"
. "$src/tests/vm/vm-lib.sh"
miss=$(pf_vm_missing)
[ -z "$miss" ] || not_run="$not_run; the VM rig: missing $miss"

cur="" # the clone's top directory while it exists
cleanup() {
	[ -z "$cur" ] || rm -rf "$cur"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# clone DEST: the tree at DEST
clone() {
	if $git_clone; then
		git clone -q --no-hardlinks "$src" "$1"
	else
		mkdir -p "$1" &&
			tar -C "$src" --exclude='./build*' -cf - . | tar -C "$1" -xf -
	fi
}

failed=0
# one TOP DIR: clone into TOP/DIR, build, run the subset
one() {
	top=$1 dest="$1/$2"
	cur=$top
	echo "clone-test: $dest (mode $(stat -c %a "$top"))"
	t0=$(date +%s)
	clone "$dest" || { echo "clone-test: FAIL: cannot clone into $dest"; failed=1; return; }
	if ! { cmake -S "$dest" -B "$dest/build" >"$top/cmake.log" 2>&1 &&
		cmake --build "$dest/build" -j2 --target preflight preflight-faults \
			>>"$top/cmake.log" 2>&1; }; then
		tail -n 30 "$top/cmake.log"
		echo "clone-test: FAIL: the build in $dest"
		failed=1
		return
	fi
	t1=$(date +%s)
	ctest --test-dir "$dest/build" -R '^cli_t083[0-6]-|^vm_two_rails_faults$' \
		--output-on-failure -j2 >"$top/ctest.log" 2>&1
	rc=$?
	cat "$top/ctest.log"
	n=$(grep -c ' Test *#' "$top/ctest.log")
	[ "$n" -eq 8 ] || { echo "clone-test: FAIL: ctest ran $n tests, not 8"; failed=1; }
	[ "$rc" -eq 0 ] || { echo "clone-test: FAIL: ctest in $dest"; failed=1; }
	if grep -q '\*\*\*Skipped' "$top/ctest.log" && [ -z "$not_run" ]; then
		echo "clone-test: FAIL: a test skipped that should run here"
		failed=1
	fi
	echo "clone-test: $dest: build $((t1 - t0)) s, tests $(($(date +%s) - t1)) s"
}

base=${TMPDIR:-/tmp}
[ "$base" = /tmp ] || echo "clone-test: note: TMPDIR is $base; the first clone still goes to /tmp"
# in_new TEMPLATE MODE DIR: one clone in a new directory, removed after it
in_new() {
	t=$(mktemp -d "$1") || { echo "clone-test: skip: cannot make $1"; exit 77; }
	chmod "$2" "$t"
	one "$t" "$3"
	cleanup
	cur=""
}
in_new /tmp/pf-clone.XXXXXX 0755 pf
in_new "$base/pf clone.XXXXXX" 0700 "pf src"
if [ "$failed" -ne 0 ]; then
	echo "clone-test: FAILED"
	exit 1
fi
if [ -n "$not_run" ]; then
	echo "clone-test: skip: the clones passed what ran, but not all of it ran here${not_run}"
	exit 77
fi
echo "clone-test: both clones pass"
