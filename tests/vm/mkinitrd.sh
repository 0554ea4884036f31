#!/bin/sh
# Build the rig's initramfs: busybox, the modules that reach the host's root
# over 9p (virtio_pci, 9pnet_virtio, 9p, overlay) and an /init that mounts
# that root read-only under a tmpfs overlay and switch_roots into it.
# Usage: mkinitrd.sh OUT.cpio.gz
set -eu
. "$(dirname "$0")/vm-lib.sh"
out=$1
kver=$(pf_vm_kver)
[ -n "$kver" ] || { echo "mkinitrd: no guest kernel in $PF_VM_CACHE" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/mods" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/lower" \
	"$tmp/upper" "$tmp/newroot"
cp /bin/busybox "$tmp/bin/busybox"
: > "$tmp/mods/order"
for m in $PF_VM_MODULES; do
	modprobe -d "$PF_VM_CACHE/root" -S "$kver" --show-depends "$m" |
	while read -r cmd path _; do
		[ "$cmd" = insmod ] || continue
		base=$(basename "$path")
		grep -qx "$base" "$tmp/mods/order" && continue
		cp "$path" "$tmp/mods/$base"
		echo "$base" >> "$tmp/mods/order"
	done
done
cat > "$tmp/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod "/mods/$m" || echo "init: insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 hostroot /lower ||
	{ echo "init: cannot mount the host root"; poweroff -f; }
mount -t tmpfs -o size=1g tmpfs /upper
mkdir -p /upper/u /upper/w
mount -t overlay overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w /newroot ||
	{ echo "init: overlay failed"; poweroff -f; }
mkdir -p /newroot/vmwork
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmwork /newroot/vmwork ||
	{ echo "init: cannot mount the work share"; poweroff -f; }
umount /proc /sys /dev 2>/dev/null
exec switch_root /newroot /bin/sh /vmwork/guest-init.sh
INIT
chmod +x "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
