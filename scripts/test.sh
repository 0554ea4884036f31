#!/bin/sh
# Set up, build and run the whole test suite.  -Werror when CI=true.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh --test
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B build -DPF_WERROR="$werror" >/dev/null
cmake --build build -j "$(nproc)"
cd build && ctest --output-on-failure -j "$(nproc)"
