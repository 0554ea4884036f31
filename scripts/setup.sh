#!/bin/sh
# Install what preflight needs to build and test, if missing (Debian/Ubuntu).
# With --test also what the test suite needs, including the soft-RoCE VM rig
# (tests/vm: qemu, busybox, the rxe verbs provider, perftest) and its guest
# kernel, fetched once into ${PF_VM_CACHE:-~/.cache/preflight-vm}.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
test=""
[ "${1:-}" = "--test" ] && test=1
pkgs="build-essential cmake pkg-config libcjson-dev libnl-3-dev libnl-genl-3-dev
libhwloc-dev libnuma-dev libibverbs-dev libcmocka-dev iproute2
python3"
[ -n "$test" ] && pkgs="$pkgs slurm-wlm libxml2-utils valgrind clang libclang-rt-14-dev python3-jsonschema python3-yaml bzip2 lintian
strace procps mstflint git
qemu-system-x86 busybox-static cpio kmod rdma-core ibverbs-providers librdmacm1 perftest"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
updated=""
if [ -n "$missing" ]; then
  echo "setup: installing$missing" >&2
  $sudo apt-get update -q >&2
  updated=1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >&2
fi
[ -n "$test" ] || exit 0
# The VM rig's guest kernel (idempotent: nothing to do once cached).
if ! apt-cache show linux-image-amd64 >/dev/null 2>&1 && [ -z "$updated" ]; then
  $sudo apt-get update -q >&2
fi
"$here/../tests/vm/fetch-kernel.sh" ||
  echo "setup: no guest kernel for the VM rig: the vm tests will skip, naming it" >&2
