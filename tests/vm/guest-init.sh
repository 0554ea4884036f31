#!/bin/sh
# PID 1 of the rig's guest, after the initramfs switch_roots into the host's
# root (read-only 9p under a tmpfs overlay).  Mounts what a system has and
# the source and build trees (shares of their own, at their host paths), puts
# the guest kernel's modules on /lib/modules, runs the job named in
# /vmwork/job.env under its own timeout, records its exit status in
# /vmwork/rc and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
. /vmwork/job.env
# the source and build trees, shared by pf_vm_qemu, at the host's paths:
# the tmpfs above hides them when they sit below /tmp, /run or /dev/shm
share() { # TAG DIR
	mkdir -p "$2" && mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 "$1" "$2" ||
		echo "guest: cannot mount the $1 share on $2" > /dev/console
}
share pfsrc "$PF_SRC"
[ -z "$PF_BUILD" ] || share pfbuild "$PF_BUILD"
mkdir -p /lib/modules
mount --bind "$PF_VM_MODDIR" /lib/modules
hostname "${PF_VM_HOSTNAME:-pf-vm}"
if [ -n "${PF_VM_SHARE:-}" ]; then # run-vms.sh: one directory every VM writes
	mkdir -p /vmshare
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmshare /vmshare ||
		echo "guest: cannot mount the share" > /dev/console
fi
ip link set lo up
ulimit -l unlimited
echo "guest: up $(cut -d' ' -f1 /proc/uptime) s, running $PF_VM_JOB" > /dev/console
cd /vmwork
start=$(cut -d' ' -f1 /proc/uptime)
timeout -k 5 "$PF_VM_JOB_TIMEOUT" sh "$PF_VM_JOB" > /vmwork/job.log 2>&1
rc=$?
end=$(cut -d' ' -f1 /proc/uptime)
echo "$rc" > /vmwork/rc
echo "guest: job exit $rc, $start..$end s" > /dev/console
# Did qemu stop taking this guest's sends on a NIC (the rig's cable, not the
# job)?  virtio-net counts tx_packets as the device hands a frame back, so
# three ARP requests a second apart that leave none counted mean the device
# took none.  Faults the job left on the NIC go first; the NICs are probed
# side by side.  vms-test.sh reads the line.
tx_probe() { # /sys/class/net/DEV
	_dev=$(basename "$1")
	tc qdisc del dev "$_dev" root 2>/dev/null
	_a=$(cat "$1/statistics/tx_packets")
	busybox arping -c 3 -w 3 -I "$_dev" 192.0.2.1 >/dev/null 2>&1
	[ "$(cat "$1/statistics/tx_packets")" -gt "$_a" ] || echo "guest: $_dev ($(cat "$1/address"))" \
		"stopped sending: 3 frames queued, none taken by the device" > /dev/console
}
for d in /sys/class/net/*; do
	[ "$(basename "$(readlink "$d/device/driver" 2>/dev/null)")" = virtio_net ] &&
		[ "$(cat "$d/operstate")" = up ] && tx_probe "$d" &
done
wait
if [ -n "${PF_VM_SHELL:-}" ]; then
	echo "guest: a shell (exit or Ctrl-A X to power off)" > /dev/console
	setsid -c sh -l < /dev/console > /dev/console 2>&1
fi
sync
echo o > /proc/sysrq-trigger
sleep 10
