#!/bin/sh
# Fetch Debian's own kernel for the soft-RoCE VM rig into $PF_VM_CACHE
# (default ~/.cache/preflight-vm): the linux-image package that
# linux-image-amd64 depends on, unpacked, with depmod run over it.
# Idempotent: does nothing when that release is already there.
set -eu
. "$(dirname "$0")/vm-lib.sh"
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
if [ -z "$pkg" ]; then
	echo "fetch-kernel: apt-cache knows no linux-image-amd64 (run apt-get update)" >&2
	exit 1
fi
kver=${pkg#linux-image-}
if [ "$(pf_vm_kver)" = "$kver" ] && [ -r "$PF_VM_CACHE/root/boot/vmlinuz-$kver" ]; then
	exit 0
fi
mkdir -p "$PF_VM_CACHE"
tmp=$(mktemp -d "$PF_VM_CACHE/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "fetch-kernel: downloading $pkg" >&2
(cd "$tmp" && apt-get download -q "$pkg" 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true)
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { echo "fetch-kernel: apt-get download $pkg failed" >&2; exit 1; }
mkdir "$tmp/root"
dpkg-deb -x "$deb" "$tmp/root"
depmod -b "$tmp/root" "$kver"
rm -rf "$PF_VM_CACHE/root" "$PF_VM_CACHE/initrd.cpio.gz"
mv "$tmp/root" "$PF_VM_CACHE/root"
echo "$kver" > "$PF_VM_CACHE/kver"
echo "fetch-kernel: $kver in $PF_VM_CACHE" >&2
