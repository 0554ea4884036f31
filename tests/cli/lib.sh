# SPDX-License-Identifier: MIT
# lib.sh - helpers sourced by the CLI tests (tests/cli/t00*.sh).
#
# Environment (set by ctest): PREFLIGHT (the binary), PF_FIXTURES,
# PF_SOURCE_DIR.  Each test counts its failures and ends with done_testing.

: "${PREFLIGHT:?PREFLIGHT must name the preflight binary}"
: "${PF_FIXTURES:?}" "${PF_SOURCE_DIR:?}"
# not under Slurm, whatever the caller's environment says
unset SLURM_JOB_ID SLURMD_NODENAME NO_COLOR
export LC_ALL=C

# Debian's interpreter when present: it starts faster than a shim on PATH
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

T=$(mktemp -d /tmp/pfcli.XXXXXX)
trap 'rm -rf "$T"' EXIT INT TERM
failures=0

ok() { echo "ok: $*"; }
not_ok() { echo "not ok: $*"; failures=$((failures + 1)); }

# pf ARGS...: run preflight; $rc, $T/out (stdout) and $T/err (stderr)
pf() {
	"$PREFLIGHT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect_rc N DESCRIPTION
expect_rc() {
	if [ "$rc" -eq "$1" ]; then
		ok "$2: exit $rc"
	else
		not_ok "$2: exit $rc, expected $1; stderr: $(head -c 400 "$T/err")"
	fi
}

# expect_err WORD: stderr names WORD
expect_err() {
	if grep -qF -- "$1" "$T/err"; then
		ok "stderr names '$1'"
	else
		not_ok "stderr does not name '$1': $(head -c 400 "$T/err")"
	fi
}

# expect_usage WORD ARGS...: exit 64, WORD on stderr, nothing on stdout
expect_usage() {
	word=$1
	shift
	pf "$@"
	expect_rc 64 "$*"
	expect_err "$word"
	[ -s "$T/out" ] && not_ok "$*: usage error wrote to stdout"
	return 0
}

# json_ok FILE: FILE is one valid JSON document
json_ok() {
	"$PY" -m json.tool "$1" >/dev/null 2>&1
}

# jq_py FILE EXPR: print a Python expression over the parsed report `r`
# ("invalid" when FILE is not JSON)
jq_py() {
	"$PY" -c 'import json, sys
try:
    r = json.load(open(sys.argv[1]))
except ValueError:
    print("invalid")
    sys.exit(0)
print(eval(sys.argv[2]))' "$1" "$2"
}

# A python3 that has jsonschema (Debian's python3-jsonschema), or empty.
schema_python() {
	for py in /usr/bin/python3 python3; do
		if "$py" -c 'import jsonschema' 2>/dev/null; then
			echo "$py"
			return
		fi
	done
}

has_esc() {
	grep -q "$(printf '\033')" "$1"
}

done_testing() {
	if [ "$failures" -eq 0 ]; then
		echo "all passed"
		exit 0
	fi
	echo "$failures failure(s)"
	exit 1
}
