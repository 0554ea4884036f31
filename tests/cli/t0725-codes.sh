#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding codes (docs/codes.md): the doc lists exactly what `preflight
# --list-codes` prints, every fail and warn finding of every check over the
# recorded fixtures, generated roots with each fault and the traffic goldens
# carries a code of its check's table with that code's action
# (tests/cli/codes.py); --describe lists a check's codes.
. "$(dirname "$0")/lib.sh"
need_python
run_helper codes.py

pf --describe nic_link_speed
expect_rc 0 "--describe nic_link_speed"
grep -q '^  PF-NIC-LINK-SPEED-011 *reseat_or_replace ' "$T/out" ||
	not_ok "--describe nic_link_speed lists PF-NIC-LINK-SPEED-011 and its action"
pf --describe nccl_allreduce
grep -q '^finding codes' "$T/out" || not_ok "--describe nccl_allreduce lists its codes"
pf --no-config --list-codes
expect_rc 0 "--list-codes"

done_testing
