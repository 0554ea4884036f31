#!/bin/sh
# Set up, build and run the whole test suite.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh --test
cmake -S . -B build -DPF_WERROR="${PF_WERROR:-OFF}" >/dev/null
cmake --build build -j "$(nproc)"
cd build && ctest --output-on-failure -j "$(nproc)"
