#!/bin/sh
# Boot Debian's kernel in qemu over this machine's root and run one guest job.
# Usage: run-vm.sh WORKDIR JOB [GUEST_TIMEOUT_S]
#   WORKDIR  a fresh directory shared read-write with the guest as /vmwork
#            (job.log, rc, console.log and whatever the job writes land there)
#   JOB      a shell script on this machine, run inside the guest as root
# Environment: PF_VM_ACCEL=kvm|tcg (default: kvm when /dev/kvm is usable),
# PF_VM_CACHE (the guest kernel), PF_SRC/PF_BUILD (passed to the job),
# PF_VM_SHELL=1: after the job, a root shell on this terminal (Ctrl-A X quits).
# Exit status: the job's, 124 when the guest ran out of time, 125 when the VM
# itself failed (no rc written), 77 when the rig cannot run here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/vm-lib.sh"
[ $# -ge 2 ] || { echo "usage: run-vm.sh WORKDIR JOB [GUEST_TIMEOUT_S]" >&2; exit 64; }
work=$1 job=$(readlink -f "$2") gt=${3:-240}
miss=$(pf_vm_missing)
if [ -n "$miss" ]; then echo "run-vm: cannot run the VM rig: missing $miss" >&2; exit 77; fi
kver=$(pf_vm_kver)
mkdir -p "$work"
work=$(cd "$work" && pwd)
pf_vm_stage "$work" "$job" "$gt"
accel=$(pf_vm_accel)
serial="file:$work/console.log" in=/dev/null
exec 3>"$work/qemu.log"
if [ -n "${PF_VM_SHELL:-}" ]; then # the console on this terminal
	serial=mon:stdio in=/dev/stdin PF_VM_FG=--foreground
	exec 3>&1
fi
t0=$(date +%s.%N)
rc=0
pf_vm_qemu "$work" "$gt" "${PF_VM_MEM:-2048}" 2 "$serial" <"$in" || rc=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
if [ ! -r "$work/rc" ]; then
	echo "run-vm: the VM wrote no exit status (qemu exit $rc, ${wall} s, accel $accel); console:" >&2
	tail -n 30 "$work/console.log" >&2 || true
	tail -n 5 "$work/qemu.log" >&2 || true
	[ "$rc" = 124 ] && exit 124
	exit 125
fi
jrc=$(cat "$work/rc")
echo "run-vm: $(basename "$job") exit $jrc; $(pf_vm_times "$work"), qemu ${wall} s (accel $accel, kernel $kver)" >&2
exit "$jrc"
