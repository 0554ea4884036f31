#!/bin/sh
# SPDX-License-Identifier: MIT
# Fault injection over generated roots and into the checks' children
# (tests/cli/faults.py says what is broken and what every run must keep).
. "$(dirname "$0")/lib.sh"
need_python
run_helper faults.py
done_testing
