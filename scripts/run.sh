#!/bin/sh
# Set up, build, and run preflight on this node (arguments go to preflight).
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" >/dev/null
exec build/preflight "$@"
