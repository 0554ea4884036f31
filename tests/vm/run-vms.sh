#!/bin/sh
# Boot N VMs of the rig at once, joined by learning switches (vswitch.py),
# and run one guest job in each.  Usage: run-vms.sh WORKDIR N JOB [GUEST_TIMEOUT_S]
#   WORKDIR/vmI  VM I's work directory (/vmwork in the guest: job.log, rc,
#                console.log), I = 1..N; the VM's host name is vmI
#   WORKDIR/share  one directory every VM mounts read-write as /vmshare
#   JOB          run in every VM; it reads PF_VM_INDEX (I), PF_VM_COUNT (N),
#                PF_VM_RAILS, PF_VM_STORAGE and PF_VM_HOSTNAME, and
#                PREFLIGHT_MESH_SECRET: one per boot, the same in every VM
#                (as srun gives every task of a job its environment)
# The segments: "mgmt" (eth0 of every VM, 10.0.0.I) and one per rail,
# "railR" for R = 1..PF_VM_RAILS (default 2), so that rail R of every VM
# meets rail R of the others (a rail-optimised fabric).  A NIC's MAC is
# 52:54:00:00:SS:II (SS the segment, 0 for mgmt; II the VM): guest-mesh.sh
# finds its netdevs by it.  1 GiB and one vCPU per VM (PF_VM_MEM,
# PF_VM_SMP).  Exit status: 0 when every VM's job exited 0, else the first
# non-zero one (124 when a guest ran out of time, 125 when a VM failed),
# 77 when the rig cannot run here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/vm-lib.sh"
[ $# -ge 3 ] || { echo "usage: run-vms.sh WORKDIR N JOB [GUEST_TIMEOUT_S]" >&2; exit 64; }
work=$1 n=$2 job=$(readlink -f "$3") gt=${4:-240} rails=${PF_VM_RAILS:-2}
miss=$(pf_vm_missing)
[ -z "$miss" ] && ! command -v python3 >/dev/null && miss=python3
if [ -n "$miss" ]; then echo "run-vms: cannot run the VM rig: missing $miss" >&2; exit 77; fi
mkdir -p "$work/share"
work=$(cd "$work" && pwd)
segs=mgmt
r=1
while [ "$r" -le "$rails" ]; do segs="$segs rail$r"; r=$((r + 1)); done
# PF_VM_STORAGE=1: one more segment after the rails, "storage" (a port that is
# no rail: guest-mesh.sh gives it a slower rate and the site declares its role)
[ "${PF_VM_STORAGE:-0}" = 1 ] && segs="$segs storage"
# unix socket paths are at most 107 bytes: the sockets live in a short dir
sw=$(mktemp -d /tmp/pf-vsw.XXXXXX)
rm -f "$sw/vswitch.ready"
# shellcheck disable=SC2086
python3 "$here/vswitch.py" "$sw" $segs --lifetime $((gt + 300)) 2>"$work/vswitch.log" &
swpid=$!
trap 'kill "$swpid" 2>/dev/null || true; rm -rf "$sw"' EXIT
k=0
while [ ! -s "$sw/vswitch.ready" ]; do
	k=$((k + 1))
	[ "$k" -le 100 ] && kill -0 "$swpid" 2>/dev/null ||
		{ echo "run-vms: the switch did not start" >&2; cat "$work/vswitch.log" >&2; exit 125; }
	sleep 0.1
done
# the run's mesh secret (docs/mesh.md "Authentication")
secret=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
t0=$(date +%s.%N)
pids=""
i=1
while [ "$i" -le "$n" ]; do
	w="$work/vm$i"
	pf_vm_stage "$w" "$job" "$gt" PF_VM_INDEX="$i" PF_VM_COUNT="$n" PF_VM_RAILS="$rails" \
		PF_VM_HOSTNAME="vm$i" PF_VM_SHARE=1 PF_VM_STORAGE="${PF_VM_STORAGE:-0}" \
		PREFLIGHT_MESH_SECRET="$secret"
	# event_idx=off: with it on, a guest flooding a NIC under TCG stalled
	# that NIC's sends for good in 4 of 11 runs (docs/testing.md), in none
	# of 14 with it off; the stall's evidence is what vms-test.sh reads
	nics="" s=0
	for seg in $segs; do
		nics="$nics -netdev stream,id=n$s,server=off,addr.type=unix,addr.path=$sw/$seg.sock"
		nics="$nics -device virtio-net-pci,netdev=n$s,event_idx=off,mac=52:54:00:00:$(printf %02x $s):$(printf %02x "$i")"
		s=$((s + 1))
	done
	# shellcheck disable=SC2086
	(exec 3>"$w/qemu.log"
	 pf_vm_qemu "$w" "$gt" "${PF_VM_MEM:-1024}" "${PF_VM_SMP:-1}" "file:$w/console.log" \
		-virtfs local,path="$(pf_vm_optval "$work/share")",mount_tag=vmshare,security_model=none,multidevs=remap \
		$nics </dev/null) &
	pids="$pids $!"
	i=$((i + 1))
done
rc=0
for p in $pids; do wait "$p" || true; done
kill "$swpid" 2>/dev/null && { wait "$swpid" || echo "run-vms: the switch exited $?" >&2; }
cat "$work/vswitch.log" >&2
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
i=1
while [ "$i" -le "$n" ]; do
	w="$work/vm$i"
	if [ -r "$w/rc" ]; then
		jrc=$(cat "$w/rc")
		echo "run-vms: vm$i exit $jrc; $(pf_vm_times "$w")" >&2
	else
		jrc=125
		grep -q "job exit" "$w/console.log" 2>/dev/null || true
		echo "run-vms: vm$i wrote no exit status; console:" >&2
		tail -n 15 "$w/console.log" >&2 || true
		tail -n 5 "$w/qemu.log" >&2 || true
	fi
	[ "$rc" = 0 ] && rc=$jrc
	i=$((i + 1))
done
echo "run-vms: $n VMs, $(basename "$job"), wall ${wall} s (accel $(pf_vm_accel), $(nproc) host cores)" >&2
exit "$rc"
