# Shared settings of the soft-RoCE VM rig (sourced by the host-side scripts).
# The guest kernel lives outside the source tree, fetched once by
# fetch-kernel.sh (scripts/setup.sh --test runs it).
PF_VM_CACHE=${PF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preflight-vm}
PF_VM_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# The kernel release the cache holds, or nothing.
pf_vm_kver() {
	[ -r "$PF_VM_CACHE/kver" ] && cat "$PF_VM_CACHE/kver"
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

# tcg unless PF_VM_ACCEL=kvm: a /dev/kvm that opens is no proof that nested
# KVM works (on our CI machines qemu aborts on an MSR with -cpu host and
# hangs without a console line with -cpu max), and a job that hangs costs
# its whole timeout.  Set PF_VM_ACCEL=kvm where KVM is known to work.
pf_vm_accel() {
	echo "${PF_VM_ACCEL:-tcg}"
}
