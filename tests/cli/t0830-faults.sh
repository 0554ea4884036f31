#!/bin/sh
# SPDX-License-Identifier: MIT
# Fault injection over generated roots and into the checks' children
# (tests/cli/faults.py says what is broken and what every run must keep).
. "$(dirname "$0")/lib.sh"
exec "$PY" "$(dirname "$0")/faults.py"
