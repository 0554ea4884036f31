#!/bin/sh
# SPDX-License-Identifier: MIT
# Signals to preflight (Slurm's PrologTimeout, a CI cancel, Ctrl-C): no check
# is orphaned, the report is written with the unfinished checks as errors,
# the exit status is 128 + the signal (tests/cli/signals.py).
. "$(dirname "$0")/lib.sh"
need_python
run_helper signals.py
done_testing
