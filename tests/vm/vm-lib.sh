# Shared settings of the soft-RoCE VM rig (sourced by the host-side scripts).
# The guest kernel lives outside the source tree, fetched once by
# fetch-kernel.sh (scripts/setup.sh --test runs it).
PF_VM_CACHE=${PF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preflight-vm}
PF_VM_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# The kernel release the cache holds, or nothing (status 0 either way: the
# callers run under set -e).
pf_vm_kver() {
	if [ -r "$PF_VM_CACHE/kver" ]; then cat "$PF_VM_CACHE/kver"; fi
}

# Why this machine cannot run the rig, or nothing when it can.
pf_vm_missing() {
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 (apt-get install qemu-system-x86)"; return; }
	[ -x /bin/busybox ] || { echo "busybox-static"; return; }
	command -v cpio >/dev/null || { echo "cpio"; return; }
	command -v ib_write_bw >/dev/null || { echo "perftest"; return; }
	[ -e /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so ] ||
		ls /usr/lib/*/libibverbs/librxe-rdmav*.so >/dev/null 2>&1 ||
		{ echo "the rxe verbs provider (apt-get install ibverbs-providers)"; return; }
	k=$(pf_vm_kver)
	[ -n "$k" ] && [ -r "$PF_VM_CACHE/root/boot/vmlinuz-$k" ] ||
		{ echo "the guest kernel in $PF_VM_CACHE (run tests/vm/fetch-kernel.sh)"; return; }
}

# kvm or tcg.  PF_VM_ACCEL=kvm|tcg forces one.  Otherwise kvm when /dev/kvm
# opens read-write AND a probe boot under KVM prints the kernel's banner
# within 20 s: a /dev/kvm that opens is no proof that nested KVM works (on
# some CI machines qemu aborts on an MSR with -cpu host, or hangs without a
# console line), and a job that hangs costs its whole timeout.  The probe's
# verdict is cached per host kernel and qemu in $PF_VM_CACHE.
pf_vm_accel() {
	if [ -n "${PF_VM_ACCEL:-}" ]; then echo "$PF_VM_ACCEL"; return; fi
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo tcg; return; }
	k=$(pf_vm_kver)
	q=$(qemu-system-x86_64 --version 2>/dev/null | awk 'NR == 1 { print $4 }')
	stamp="$PF_VM_CACHE/kvm-probe-$(uname -r)-$q"
	if [ ! -r "$stamp" ]; then
		if timeout -k 2 20 qemu-system-x86_64 -machine q35,accel=kvm \
			-cpu "${PF_VM_CPU:-host,-arch-capabilities}" -m 256 -display none \
			-monitor none -serial stdio -nic none -no-reboot \
			-kernel "$PF_VM_CACHE/root/boot/vmlinuz-$k" \
			-append "console=ttyS0 panic=-1 root=/dev/pf-none" </dev/null 2>/dev/null |
			grep -q -m 1 "Linux version"; then
			echo kvm > "$stamp"
		else
			echo tcg > "$stamp"
		fi
	fi
	cat "$stamp"
}
