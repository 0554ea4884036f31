#!/bin/sh
# Install what preflight needs to build and test, if missing (Debian/Ubuntu).
set -eu
pkgs="build-essential cmake pkg-config libcjson-dev libnl-3-dev libnl-genl-3-dev
libhwloc-dev libnuma-dev libibverbs-dev libcmocka-dev iproute2
python3"
# --test: the suite's tools, and the soft-RoCE VM rig's (tests/vm: qemu,
# busybox, the rxe verbs provider, perftest; the guest kernel is fetched below)
[ "${1:-}" = "--test" ] && pkgs="$pkgs slurm-wlm libxml2-utils valgrind clang libclang-rt-14-dev python3-jsonschema bzip2 lintian
strace procps mstflint
qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-providers librdmacm1 perftest"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  $sudo apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >&2
fi
# The VM rig's guest kernel (Debian's linux-image, cached outside the tree);
# without it the vm tests skip, naming it.
if [ "${1:-}" = "--test" ]; then
  vm="$(dirname "$0")/../tests/vm"
  "$vm/fetch-kernel.sh" || {
    $sudo apt-get update -q >&2 && "$vm/fetch-kernel.sh"
  } || echo "setup: no guest kernel for the VM rig: the vm tests will skip" >&2
fi
