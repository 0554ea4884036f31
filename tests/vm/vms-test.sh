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

attempt() { # boot the VMs, print their job logs, judge on the host; the status
	rm -rf "$work"
	mkdir -p "$work"
	"$here/run-vms.sh" "$work" "$n" "$here/jobs/$name.sh" "${PF_VM_JOB_TIMEOUT:-200}"
	_rc=$?
	_i=1
	while [ "$_i" -le "$n" ]; do
		echo "--- vm$_i job log ($work/vm$_i/job.log)"
		cat "$work/vm$_i/job.log" 2>/dev/null
		_i=$((_i + 1))
	done
	[ "$_rc" = 77 ] && return 77
	if { [ "$_rc" = 0 ] || [ "$_rc" = 1 ]; } && [ -r "$here/jobs/$name.host.sh" ]; then
		echo "--- host side"
		sh "$here/jobs/$name.host.sh" "$work" || _rc=1
	fi
	return "$_rc"
}

attempt
rc=$?
# Under TCG, qemu 7.2's virtio-net with its event index on stopped taking a
# guest's sends for good now and then; run-vms.sh turns the index off, and
# in case it comes back the guest says so: its kernel logs "NETDEV WATCHDOG
# ... transmit queue 0 timed out" when the ring filled, and guest-init.sh,
# probing every NIC after the job, "DEV (MAC) stopped sending" when it had
# not.  That is the rig's cable dying, not the code under test: on that
# evidence only, and only once, the job runs again from fresh boots, saying
# so; the first try's directory stays as WORK.stalled.
stall='NETDEV WATCHDOG\|stopped sending: 3 frames queued'
stalled=$(grep -l "$stall" "$work"/vm*/console.log 2>/dev/null |
	sed 's|.*/\(vm[0-9]*\)/console.log$|\1|' | tr '\n' ' ')
if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "$stalled" ]; then
	echo "vms-test: an emulated NIC of ${stalled}stopped sending;" \
		"the rig failed, not the job: running it once more ($work.stalled keeps this try)"
	grep -h -m 1 "$stall" "$work"/vm*/console.log
	rm -rf "$work.stalled"
	mv "$work" "$work.stalled"
	attempt
	rc=$?
fi
pgrep -f "qemu-system-x86_64.*$work/" >/dev/null && { echo "FAIL: a qemu of this job is still running"; rc=1; }
exit "$rc"
