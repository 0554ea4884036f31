# Shared settings of the soft-RoCE VM rig (sourced by the host-side scripts).
# The guest kernel lives outside the source tree, fetched once by
# fetch-kernel.sh (scripts/setup.sh --test runs it).
PF_VM_CACHE=${PF_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/preflight-vm}
PF_VM_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# pf_vm_quote VALUE: VALUE as one single-quoted shell word (job.env)
pf_vm_quote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

# pf_vm_optval VALUE: VALUE for a qemu option list (a comma doubled)
pf_vm_optval() {
	printf '%s' "$1" | sed 's/,/,,/g'
}

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

# pf_vm_stage WORK JOB GUEST_TIMEOUT_S [VAR=VALUE...]: WORK (absolute, made)
# gets the guest's init, the job and job.env (the extra variables exported
# to the job too); the initramfs is rebuilt when mkinitrd.sh is newer.
pf_vm_stage() {
	_w=$1 _j=$2 _gt=$3
	shift 3
	_here=$(cd "$(dirname "$0")" && pwd)
	[ -r "$_here/mkinitrd.sh" ] || _here=${PF_SRC:?}/tests/vm
	if [ ! -s "$PF_VM_CACHE/initrd.cpio.gz" ] ||
		[ "$_here/mkinitrd.sh" -nt "$PF_VM_CACHE/initrd.cpio.gz" ]; then
		"$_here/mkinitrd.sh" "$PF_VM_CACHE/initrd.cpio.gz"
	fi
	# the trees the guest mounts at their own paths (pf_vm_qemu shares them)
	PF_SRC=$(cd "${PF_SRC:-$_here/../..}" && pwd) || return 1
	[ -z "${PF_BUILD:-}" ] || PF_BUILD=$(cd "$PF_BUILD" && pwd) || return 1
	PF_BUILD=${PF_BUILD:-}
	mkdir -p "$_w"
	cp "$_here/guest-init.sh" "$_w/guest-init.sh"
	cp "$_j" "$_w/job.sh"
	{
		echo "PF_VM_JOB=/vmwork/job.sh"
		echo "PF_VM_JOB_TIMEOUT=$_gt"
		echo "PF_VM_MODDIR=$(pf_vm_quote "$PF_VM_CACHE/root/lib/modules")"
		echo "PF_SRC=$(pf_vm_quote "$PF_SRC")"
		echo "PF_BUILD=$(pf_vm_quote "$PF_BUILD")"
		echo "PF_VM_ACCEL='$(pf_vm_accel)'"
		echo "PF_VM_SHELL='${PF_VM_SHELL:-}'"
		_vars="PF_SRC PF_BUILD PF_VM_ACCEL"
		for _kv in "$@"; do
			echo "${_kv%%=*}=$(pf_vm_quote "${_kv#*=}")"
			_vars="$_vars ${_kv%%=*}"
		done
		echo "export $_vars"
	} > "$_w/job.env"
	rm -f "$_w/rc"
}

# pf_vm_qemu WORK GUEST_TIMEOUT_S MEM_MB CPUS SERIAL [QEMU ARGS...]: boot
# the staged WORK (the host's root read-only as /, WORK as /vmwork) with
# the NICs and shares the extra arguments add; qemu's status.  qemu's own
# output goes to fd 3; stdin is fd 0 (the caller redirects it).  PF_SRC and
# PF_BUILD (set by pf_vm_stage) are shares of their own, read-only, that
# guest-init.sh mounts at the same paths: the guest's tmpfs on /tmp, /run
# and /dev/shm would hide a clone or build tree below them.
pf_vm_qemu() {
	_w=$1 _gt=$2 _mem=$3 _smp=$4 _serial=$5
	shift 5
	set -- -virtfs "local,path=$(pf_vm_optval "$PF_SRC"),mount_tag=pfsrc,security_model=none,readonly=on,multidevs=remap" "$@"
	if [ -n "$PF_BUILD" ]; then
		set -- -virtfs "local,path=$(pf_vm_optval "$PF_BUILD"),mount_tag=pfbuild,security_model=none,readonly=on,multidevs=remap" "$@"
	fi
	_accel=$(pf_vm_accel)
	_cpu=max
	[ "$_accel" = kvm ] && _cpu=${PF_VM_CPU:-host,-arch-capabilities}
	_k=$(pf_vm_kver)
	timeout ${PF_VM_FG:-} -k 10 $((_gt + 120)) qemu-system-x86_64 \
		-machine q35,accel="$_accel" -cpu "$_cpu" -m "$_mem" -smp "$_smp" \
		-display none -monitor none -serial "$_serial" -nic none -no-reboot \
		-kernel "$PF_VM_CACHE/root/boot/vmlinuz-$_k" -initrd "$PF_VM_CACHE/initrd.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs local,path="$(pf_vm_optval "$_w")",mount_tag=vmwork,security_model=none,multidevs=remap \
		"$@" >&3 2>&1
}

# pf_vm_times WORK: "boot B s, job J s" from the guest's console.
pf_vm_times() {
	_b=$(sed -n 's/^guest: up \([0-9.]*\) s.*/\1/p' "$1/console.log" 2>/dev/null | head -n 1)
	_t=$(sed -n 's/^guest: job exit [0-9]*, \([0-9.]*\)\.\.\([0-9.]*\) s.*/\1 \2/p' \
		"$1/console.log" 2>/dev/null | awk '{ printf "%.1f", $2 - $1 }')
	echo "boot ${_b:-?} s, job ${_t:-?} s"
}
