#!/bin/sh
# One multi-VM job as a test: boot N VMs (run-vms.sh) running
# tests/vm/jobs/NAME.sh each, then tests/vm/jobs/NAME.host.sh (if any) on
# the host over the work directory.  Exit 77 naming what is missing when
# the rig cannot run here.
# Usage: vms-test.sh NAME N   (PF_BUILD: the build directory; PF_SRC: the source)
set -u
here=$(cd "$(dirname "$0")" && pwd)
name=$1 n=$2
: "${PF_SRC:=$(cd "$here/../.." && pwd)}"
: "${PF_BUILD:?PF_BUILD names the build directory}"
export PF_SRC PF_BUILD
work="$PF_BUILD/vm/$name"
rm -rf "$work"
mkdir -p "$work"
"$here/run-vms.sh" "$work" "$n" "$here/jobs/$name.sh" "${PF_VM_JOB_TIMEOUT:-200}"
rc=$?
i=1
while [ "$i" -le "$n" ]; do
	echo "--- vm$i job log ($work/vm$i/job.log)"
	cat "$work/vm$i/job.log" 2>/dev/null
	i=$((i + 1))
done
[ "$rc" = 77 ] && exit 77
if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && [ -r "$here/jobs/$name.host.sh" ]; then
	echo "--- host side"
	sh "$here/jobs/$name.host.sh" "$work" || rc=1
fi
pgrep -f "qemu-system-x86_64.*$work/" >/dev/null && { echo "FAIL: a qemu of this job is still running"; rc=1; }
exit "$rc"
