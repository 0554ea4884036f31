#!/bin/sh
# SPDX-License-Identifier: MIT
# Text output: no escape codes off a terminal, colour on a terminal unless
# NO_COLOR is set; JSON is the default format off a terminal.
. "$(dirname "$0")/lib.sh"

fail_root="$PF_FIXTURES/sysctl-fail"

pf --root "$fail_root" --only memlock,sysctl --format text
expect_rc 1 "--format text"
has_esc "$T/out" && not_ok "escape codes on a pipe" || ok "no escape codes on a pipe"
grep -Eq '^STATUS +CHECK +TIME +SUMMARY$' "$T/out" || not_ok "no table header"
grep -Eq '^FAIL +memlock +[0-9.]+ ms +process: hard limit 8192 KiB' "$T/out" ||
	not_ok "no memlock row: $(cat "$T/out")"
grep -Eq '^ +fix: sysctl -w net.core.rmem_max=16777216' "$T/out" || not_ok "no remedy line"
grep -q '^verdict: FAIL (0 pass, 0 warn, 2 fail, 0 skip, 0 error)' "$T/out" ||
	not_ok "no verdict line"

# without --format, a pipe gets JSON
pf --root "$fail_root" --only memlock,sysctl
json_ok "$T/out" && ok "default off a terminal is JSON" || not_ok "default off a terminal"

# on a terminal (script(1) provides one): text, coloured unless NO_COLOR
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1; then
	# stderr off the terminal: its status lines (t0870) are cursor control, not the report
	cmd="'$PREFLIGHT' --root '$fail_root' --only memlock,sysctl 2>/dev/null"
	script -qec "$cmd" /dev/null >"$T/tty" 2>&1 </dev/null
	has_esc "$T/tty" && ok "colour on a terminal" || not_ok "no colour on a terminal"
	grep -q 'verdict: ' "$T/tty" && ok "text on a terminal" || not_ok "not text on a terminal"
	NO_COLOR=1 script -qec "$cmd" /dev/null >"$T/tty" 2>&1 </dev/null
	has_esc "$T/tty" && not_ok "NO_COLOR ignored" || ok "NO_COLOR honoured"
	grep -q 'verdict: ' "$T/tty" || not_ok "NO_COLOR: not text"
	script -qec "'$PREFLIGHT' --root '$fail_root' --only memlock,sysctl --format json 2>/dev/null" /dev/null >"$T/tty" 2>&1 </dev/null
	has_esc "$T/tty" && not_ok "escape codes in JSON on a terminal"
else
	note "script(1) unavailable, terminal cases not run"
fi

done_testing
