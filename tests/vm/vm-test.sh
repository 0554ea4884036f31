#!/bin/sh
# One VM job as a test: boot the rig, run tests/vm/jobs/NAME.sh in the
# guest, then tests/vm/jobs/NAME.host.sh (if any) on the host over the
# guest's work directory.  Exit 77 (skipped) naming what is missing when the
# rig cannot run here.
# Usage: vm-test.sh NAME   (PF_BUILD: the build directory; PF_SRC: the source)
set -u
here=$(cd "$(dirname "$0")" && pwd)
name=$1
: "${PF_SRC:=$(cd "$here/../.." && pwd)}"
: "${PF_BUILD:?PF_BUILD names the build directory}"
export PF_SRC PF_BUILD
work="$PF_BUILD/vm/$name"
rm -rf "$work"
mkdir -p "$work"
"$here/run-vm.sh" "$work" "$here/jobs/$name.sh" "${PF_VM_JOB_TIMEOUT:-420}"
rc=$?
echo "--- guest job log ($work/job.log)"
cat "$work/job.log" 2>/dev/null
[ "$rc" = 77 ] && exit 77
# the host side also after failed guest assertions (exit 1), so that one run
# shows every assertion that fails; not after a VM or job that did not finish
if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && [ -r "$here/jobs/$name.host.sh" ]; then
	echo "--- host side"
	sh "$here/jobs/$name.host.sh" "$work" || rc=1
fi
pgrep -f "qemu-system-x86_64.*$work" >/dev/null && { echo "FAIL: a qemu of this job is still running"; rc=1; }
exit "$rc"
