#!/bin/sh
# SPDX-License-Identifier: MIT
# The static suite as nobody, on generated roots and on the live root: what
# needs root says so (tests/cli/nonroot.py).
. "$(dirname "$0")/lib.sh"
need_python
run_helper nonroot.py
done_testing
