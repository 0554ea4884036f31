#!/bin/sh
# Install what preflight needs to build and test, if missing (Debian/Ubuntu).
set -eu
pkgs="build-essential cmake pkg-config libcjson-dev libnl-3-dev libnl-genl-3-dev
libhwloc-dev libnuma-dev libibverbs-dev libcmocka-dev iproute2
python3"
[ "${1:-}" = "--test" ] && pkgs="$pkgs slurm-wlm libxml2-utils valgrind clang libclang-rt-14-dev python3-jsonschema bzip2 lintian"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing$missing" >&2
$sudo apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >&2
