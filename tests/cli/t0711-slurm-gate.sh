#!/bin/sh
# SPDX-License-Identifier: MIT
# The Slurm gate against a fake scontrol (SCONTROL=) that records its argv:
# --drain drains with "preflight: <check>: ..." as one argv element and keeps
# an operator's drain; --undrain resumes only a node preflight drained; under
# Slurm's environment the reason line goes to stderr; exit codes unchanged.
set -eu
: "${PREFLIGHT:?}" "${PF_FIXTURES:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/log" ] && sed 's/^/  scontrol log: /' "$tmp/log" >&2; exit 1; }

cat > "$tmp/scontrol" <<'EOF'
#!/bin/sh
# fake scontrol: one line per argument, a "--" line after each call
for a in "$@"; do printf '%s\n' "$a"; done >> "$FAKE_LOG"
echo -- >> "$FAKE_LOG"
if [ "$1" = show ]; then
	echo "NodeName=$3 Arch=x86_64 CoresPerSocket=1"
	echo "   State=$FAKE_STATE ThreadsPerCore=1 TmpDisk=0 Weight=1"
	[ -n "${FAKE_REASON:-}" ] && echo "   Reason=$FAKE_REASON [root@2026-11-23T08:00:00]"
fi
exit "${FAKE_RC:-0}"
EOF
chmod +x "$tmp/scontrol"
export SCONTROL="$tmp/scontrol" FAKE_LOG="$tmp/log" SLURMD_NODENAME=gpu-047
unset SLURM_JOB_ID

pass="$PF_FIXTURES/slurm-pass" bad="$PF_FIXTURES/slurm-fail"
reason="preflight: memlock: process: hard limit 64 KiB, expected unlimited"

# run ROOT [args]: sets rc, leaves stderr in $tmp/err
run() {
	root=$1; shift
	: > "$tmp/log"
	rc=0
	"$PREFLIGHT" --root "$root" --only memlock,sysctl --format json "$@" \
		> "$tmp/out" 2> "$tmp/err" || rc=$?
}

# 1. failing root, --drain, node idle: show, then one update with the reason as one argument
FAKE_STATE=IDLE FAKE_REASON= run "$bad" --drain
[ "$rc" -eq 1 ] || fail "drain: exit $rc, expected 1"
printf 'show\nnode\ngpu-047\n--\nupdate\nNodeName=gpu-047\nState=DRAIN\nReason=%s\n--\n' "$reason" > "$tmp/want"
cmp -s "$tmp/log" "$tmp/want" || fail "drain: unexpected scontrol calls"
grep -qxF "$reason" "$tmp/err" || fail "drain: reason line missing on stderr"
grep -q '"verdict":[[:space:]]*"fail"' "$tmp/out" || fail "drain: report missing on stdout"

# 2. already drained by an operator: reason kept, no update
FAKE_STATE=IDLE+DRAIN FAKE_REASON="bad DIMM, ticket 42" run "$bad" --drain
[ "$rc" -eq 1 ] || fail "operator drain: exit $rc"
grep -qx update "$tmp/log" && fail "operator drain: preflight replaced an operator's reason"
grep -q "left as it is" "$tmp/err" || fail "operator drain: no note on stderr"

# 3. drained earlier by preflight: the reason is refreshed
FAKE_STATE=IDLE+DRAIN FAKE_REASON="preflight: sysctl: old" run "$bad" --drain
grep -qxF "Reason=$reason" "$tmp/log" || fail "preflight drain: reason not refreshed"

# 4. passing root, --undrain, drained by preflight: resumed
FAKE_STATE=IDLE+DRAIN FAKE_REASON="preflight: memlock: old" run "$pass" --undrain
[ "$rc" -eq 0 ] || fail "undrain: exit $rc, expected 0"
printf 'show\nnode\ngpu-047\n--\nupdate\nNodeName=gpu-047\nState=RESUME\n--\n' > "$tmp/want"
cmp -s "$tmp/log" "$tmp/want" || fail "undrain: unexpected scontrol calls"
[ -s "$tmp/err" ] && ! grep -q "resumed node gpu-047" "$tmp/err" && fail "undrain: stderr: $(cat "$tmp/err")"

# 5. --undrain leaves an operator's drain and an idle node alone
FAKE_STATE=DRAIN FAKE_REASON="maintenance" run "$pass" --undrain
grep -qx update "$tmp/log" && fail "undrain resumed a node drained by an operator"
FAKE_STATE=IDLE FAKE_REASON= run "$pass" --undrain
grep -qx update "$tmp/log" && fail "undrain touched an idle node"

# 6. --undrain on a failing root does not resume; --drain on a passing root does nothing
FAKE_STATE=DRAIN FAKE_REASON="preflight: memlock: x" run "$bad" --undrain
[ -s "$tmp/log" ] && fail "undrain called scontrol on a failing verdict"
FAKE_STATE=IDLE run "$pass" --drain
[ -s "$tmp/log" ] && fail "drain called scontrol on a passing verdict"
[ -s "$tmp/err" ] && fail "passing run wrote to stderr: $(cat "$tmp/err")"

# 7. scontrol failing does not change the exit code
FAKE_STATE=IDLE FAKE_RC=1 run "$bad" --drain
[ "$rc" -eq 1 ] || fail "scontrol failure changed the exit code to $rc"
grep -q "exited with status 1" "$tmp/err" || fail "scontrol failure not reported"

# 8. under Slurm (SLURM_JOB_ID), no flags: the reason line only, no scontrol
SLURM_JOB_ID=17 FAKE_STATE=IDLE run "$bad"
[ "$rc" -eq 1 ] || fail "prolog mode: exit $rc"
[ -s "$tmp/log" ] && fail "prolog mode without --drain called scontrol"
[ "$(cat "$tmp/err")" = "$reason" ] || fail "prolog mode stderr: $(cat "$tmp/err")"
unset SLURMD_NODENAME
run "$bad"
[ -s "$tmp/err" ] && fail "outside Slurm, stderr: $(cat "$tmp/err")"

# 9. node name falls back to the short hostname
FAKE_STATE=IDLE run "$bad" --drain
grep -qx "NodeName=$(uname -n | cut -d. -f1)" "$tmp/log" || fail "node name fallback"
echo ok
