#!/bin/sh
# Set up, build and run the whole test suite.  -Werror when CI=true.
# In CI (CI=true, or PF_CLANG=1 by hand) the tree is also built with clang and
# -Werror in build-clang/ ($PF_CLANG_BUILD): a build only, the suite runs once.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh --test
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
cmake -S . -B build -DPF_WERROR="$werror" >/dev/null
cmake --build build -j "$(nproc)"
if [ "${CI:-}" = "true" ] || [ -n "${PF_CLANG:-}" ]; then
	command -v clang >/dev/null 2>&1 ||
		{ echo "test.sh: no clang (scripts/setup.sh --test installs it)" >&2; exit 1; }
	cb=${PF_CLANG_BUILD:-build-clang}
	echo "test.sh: clang -Werror build in $cb"
	CC=clang cmake -S . -B "$cb" -DPF_WERROR=ON >/dev/null
	cmake --build "$cb" -j "$(nproc)" >"$cb/build.log" 2>&1 ||
		{ grep -E 'error|warning' "$cb/build.log" >&2 || tail -n 40 "$cb/build.log" >&2; exit 1; }
fi
cd build && ctest --output-on-failure -j "$(nproc)"
