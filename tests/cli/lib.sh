# SPDX-License-Identifier: MIT
# lib.sh - helpers sourced by every CLI test (tests/cli/tNNNN-*.sh); how to
# write one and the t-number families: tests/cli/README.
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

# note WHAT: a part of the test that could not run here, and why (the rest
# runs and decides the result; skip_all when nothing the test is for can run)
note() { echo "note: $*"; }

# skip_all REASON: nothing this test exists for can run here (ctest: Skipped)
skip_all() {
	echo "skip: $*"
	exit 77
}

# bail_out REASON: a failure after which the rest of the test cannot run
bail_out() {
	not_ok "$* (bailing out)"
	done_testing
}

# need_python: skip unless python3 runs (tests/gen_root.py, the helpers)
need_python() {
	"$PY" -c '' 2>/dev/null || skip_all "python3 not found"
}

# gen_root DIR ARGS...: a generated node (tests/gen_root.py) in DIR
gen_root() {
	dir=$1
	shift
	"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" "$dir" "$@" >/dev/null ||
		not_ok "gen_root.py $*: exit $?"
}

# py_ok DESCRIPTION ARGS... <<'PY' ... PY: the Python on stdin (sys.argv[1:]
# = ARGS) must exit 0; its assertion and the start of $T/out are shown if not
py_ok() {
	desc=$1
	shift
	if "$PY" - "$@"; then
		ok "$desc"
	else
		not_ok "$desc; stdout of the last pf: $(head -c 600 "$T/out" 2>/dev/null)"
	fi
}

# run_helper SCRIPT ARGS...: a python helper of this directory that is the
# test's body (faults.py, nonroot.py, signals.py); its 77 is this test's skip
run_helper() {
	helper=$1
	shift
	"$PY" "$(dirname "$0")/$helper" "$@"
	hrc=$?
	case $hrc in
	0) ok "$helper" ;;
	77) exit 77 ;;
	*) not_ok "$helper: exit $hrc" ;;
	esac
}

# readable_copy FIXTURE: for a test that runs preflight as another user
# (nobody): that user must read the binary and the fixture root wherever the
# checkout is (a clone under /root is mode 0700), so both are copied into
# $T/readable (mode 0755, removed with $T), PREFLIGHT names the copy and
# $root the copied fixture root ($PF_FIXTURES/FIXTURE)
readable_copy() {
	chmod 0755 "$T" &&
		mkdir -m 0755 "$T/readable" &&
		cp "$PREFLIGHT" "$T/readable/preflight" &&
		cp -R "$PF_FIXTURES/$1" "$T/readable/$1" &&
		chmod -R a+rX "$T/readable" ||
		bail_out "cannot copy the binary and $1 where another user may read them"
	PREFLIGHT="$T/readable/preflight"
	root="$T/readable/$1"
}

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

# finding_status FILE SUBJECT: "STATUS CODE" of the first finding with SUBJECT in
# the report FILE ("-" for no code), or "none"
finding_status() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    for f in c["findings"]:
        if f["subject"] == sys.argv[2]:
            print(f["status"], f.get("code", "-"))
            sys.exit(0)
print("none")
PY
}

# expect_finding SUBJECT WANT DESC: the finding of SUBJECT in $T/out is WANT ("fail PF-X-001")
expect_finding() {
	got=$(finding_status "$T/out" "$1")
	[ "$got" = "$2" ] && ok "$3" || not_ok "$3: $1 is '$got', expected '$2'"
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
