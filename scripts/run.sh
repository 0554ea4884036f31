#!/bin/sh
# Set up, build, and run preflight on this node (arguments go to preflight).
# The build's progress goes to stderr (the first build takes about half a
# minute), so that stdout holds only preflight's report.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "run.sh: configuring and building in build/ ..." >&2
cmake -S . -B build >/dev/null
cmake --build build -j "$(nproc)" --target preflight >&2
exec build/preflight "$@"
