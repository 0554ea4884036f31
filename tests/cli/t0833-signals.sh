#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals to preflight (Slurm's PrologTimeout, a CI cancel, Ctrl-C): no check
# is orphaned, the report is written with the unfinished checks as errors,
# the exit status is 128 + the signal (tests/cli/signals.py).
. "$(dirname "$0")/lib.sh"
exec "$PY" "$(dirname "$0")/signals.py"
