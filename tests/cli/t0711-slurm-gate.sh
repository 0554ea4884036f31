#!/bin/sh
# SPDX-License-Identifier: MIT
# The Slurm gate against a fake scontrol (SCONTROL=) that records its argv:
# --drain drains with "preflight: <check>: ..." as one argv element and keeps
# an operator's drain; --undrain resumes only a node preflight drained; under
# Slurm's environment the reason line goes to stderr.  The drain policy: only
# a verdict that reaches drain_on (fail by default; --drain-on, the profile's
# "drain_on") drains, and under Slurm a verdict below it exits 0; a usage or
# profile error under --drain drains with "preflight: config error: ...";
# --check-config never runs a check nor scontrol.  The reason carries the
# finding's code; --reboot-on asks for `scontrol reboot ASAP nextstate=RESUME`
# only where every finding that drains is a listed reboot code, and drains
# when Slurm refuses the reboot.
. "$(dirname "$0")/lib.sh"

cat > "$T/scontrol" <<'EOF'
#!/bin/sh
# fake scontrol: one line per argument, a "--" line after each call
for a in "$@"; do printf '%s\n' "$a"; done >> "$FAKE_LOG"
echo -- >> "$FAKE_LOG"
if [ "$1" = show ]; then
	echo "NodeName=$3 Arch=x86_64 CoresPerSocket=1"
	echo "   State=$FAKE_STATE ThreadsPerCore=1 TmpDisk=0 Weight=1"
	[ -n "${FAKE_REASON:-}" ] && echo "   Reason=$FAKE_REASON [root@2026-11-23T08:00:00]"
fi
[ "$1" = reboot ] && exit "${FAKE_REBOOT_RC:-0}"
exit "${FAKE_RC:-0}"
EOF
chmod +x "$T/scontrol"
export SCONTROL="$T/scontrol" FAKE_LOG="$T/log" SLURMD_NODENAME=gpu-047
unset SLURM_JOB_ID

pass="$PF_FIXTURES/slurm-pass" bad="$PF_FIXTURES/slurm-fail"
# a root whose only problem is a check that cannot decide (sysctl: unparsable values)
undecided="$PF_FIXTURES/sysctl-garbage"
ereason="preflight: sysctl: net.core.rmem_max: cannot parse /proc/sys/net/core/rmem_max: unexpected contents"
reason="preflight: memlock: PF-MEMLOCK-001 process: hard limit 64 KiB, expected unlimited"

# run ROOT [args]: pf on ROOT with an empty scontrol log
run() {
	root=$1; shift
	: > "$T/log"
	pf --root "$root" --only memlock,sysctl --format json "$@"
}

# 1. failing root, --drain, node idle: show, then one update with the reason as one argument
FAKE_STATE=IDLE FAKE_REASON= run "$bad" --drain
expect_rc 1 "drain"
printf 'show\nnode\ngpu-047\n--\nupdate\nNodeName=gpu-047\nState=DRAIN\nReason=%s\n--\n' "$reason" > "$T/want"
cmp -s "$T/log" "$T/want" || not_ok "drain: unexpected scontrol calls"
grep -qxF "$reason" "$T/err" || not_ok "drain: reason line missing on stderr"
grep -q '"verdict":[[:space:]]*"fail"' "$T/out" || not_ok "drain: report missing on stdout"

# 2. already drained by an operator: reason kept, no update
FAKE_STATE=IDLE+DRAIN FAKE_REASON="bad DIMM, ticket 42" run "$bad" --drain
expect_rc 1 "operator drain"
grep -qx update "$T/log" && not_ok "operator drain: preflight replaced an operator's reason"
grep -q "left as it is" "$T/err" || not_ok "operator drain: no note on stderr"

# 3. drained earlier by preflight: the reason is refreshed
FAKE_STATE=IDLE+DRAIN FAKE_REASON="preflight: sysctl: old" run "$bad" --drain
grep -qxF "Reason=$reason" "$T/log" || not_ok "preflight drain: reason not refreshed"

# 4. passing root, --undrain, drained by preflight: resumed
FAKE_STATE=IDLE+DRAIN FAKE_REASON="preflight: memlock: old" run "$pass" --undrain
expect_rc 0 "undrain"
printf 'show\nnode\ngpu-047\n--\nupdate\nNodeName=gpu-047\nState=RESUME\n--\n' > "$T/want"
cmp -s "$T/log" "$T/want" || not_ok "undrain: unexpected scontrol calls"
[ -s "$T/err" ] && ! grep -q "resumed node gpu-047" "$T/err" && not_ok "undrain: stderr: $(cat "$T/err")"

# 5. --undrain leaves an operator's drain and an idle node alone
FAKE_STATE=DRAIN FAKE_REASON="maintenance" run "$pass" --undrain
grep -qx update "$T/log" && not_ok "undrain resumed a node drained by an operator"
FAKE_STATE=IDLE FAKE_REASON= run "$pass" --undrain
grep -qx update "$T/log" && not_ok "undrain touched an idle node"

# 6. --undrain on a failing root does not resume; --drain on a passing root does nothing
FAKE_STATE=DRAIN FAKE_REASON="preflight: memlock: x" run "$bad" --undrain
[ -s "$T/log" ] && not_ok "undrain called scontrol on a failing verdict"
FAKE_STATE=IDLE run "$pass" --drain
[ -s "$T/log" ] && not_ok "drain called scontrol on a passing verdict"
[ -s "$T/err" ] && not_ok "passing run wrote to stderr: $(cat "$T/err")"

# 7. scontrol failing does not change the exit code
FAKE_STATE=IDLE FAKE_RC=1 run "$bad" --drain
[ "$rc" -eq 1 ] || not_ok "scontrol failure changed the exit code to $rc"
grep -q "exited with status 1" "$T/err" || not_ok "scontrol failure not reported"

# 8. under Slurm (SLURM_JOB_ID), no flags: the reason line only, no scontrol
SLURM_JOB_ID=17 FAKE_STATE=IDLE run "$bad"
expect_rc 1 "prolog mode"
[ -s "$T/log" ] && not_ok "prolog mode without --drain called scontrol"
[ "$(cat "$T/err")" = "$reason" ] || not_ok "prolog mode stderr: $(cat "$T/err")"
unset SLURMD_NODENAME
run "$bad"
[ -s "$T/err" ] && not_ok "outside Slurm, stderr: $(cat "$T/err")"

# 9. node name falls back to the short hostname
FAKE_STATE=IDLE run "$bad" --drain
grep -qx "NodeName=$(uname -n | cut -d. -f1)" "$T/log" || not_ok "node name fallback"
export SLURMD_NODENAME=gpu-047

# 10. error alone: --drain does not drain on it, exit 0 under Slurm, the reason and why on stderr
FAKE_STATE=IDLE run "$undecided" --drain
[ "$rc" -eq 0 ] || not_ok "error under --drain: exit $rc, expected 0 (a Prolog would drain)"
[ -s "$T/log" ] && not_ok "error under --drain called scontrol: $(tr '\n' ' ' < "$T/log")"
grep -qxF "$ereason" "$T/err" || not_ok "error: reason line missing: $(cat "$T/err")"
grep -q "not draining on error: the node drains on fail only" "$T/err" || not_ok "error: no note"
grep -q '"verdict":[[:space:]]*"error"' "$T/out" || not_ok "error: the report's verdict"
SLURM_JOB_ID=17 run "$undecided"
expect_rc 0 "error in a Prolog without --drain"
grep -qxF "$ereason" "$T/err" || not_ok "error in a Prolog: reason line missing"
run "$undecided" --slurm
expect_rc 0 "error with --slurm"
# outside Slurm the exit codes are as documented
(unset SLURMD_NODENAME; run "$undecided"; [ "$rc" -eq 2 ]) || not_ok "error outside Slurm: not exit 2"

# 11. --drain-on error (or the profile's "drain_on") drains on it, with its reason, exit 2
FAKE_STATE=IDLE run "$undecided" --drain --drain-on error
expect_rc 2 "--drain-on error"
grep -qxF "Reason=$ereason" "$T/log" || not_ok "--drain-on error: not drained with the reason"
echo '{ "name": "site", "drain_on": "error" }' > "$T/site.json"
FAKE_STATE=IDLE run "$undecided" --drain --profile "$T/site.json"
expect_rc 2 "drain_on error in the profile"
grep -qxF "Reason=$ereason" "$T/log" || not_ok "drain_on in the profile: not drained"
# the command line wins over the profile
FAKE_STATE=IDLE run "$undecided" --drain --profile "$T/site.json" --drain-on fail
[ "$rc" -eq 0 ] && [ ! -s "$T/log" ] || not_ok "--drain-on fail did not win over the profile"
# a fail drains whatever drain_on says
FAKE_STATE=IDLE run "$bad" --drain --drain-on error
[ "$rc" -eq 1 ] && grep -qxF "Reason=$reason" "$T/log" || not_ok "fail with --drain-on error"

# 12. --drain-on warn: a warning drains (exit 1); by default a warning passes
warn="--set sysctl.rmem_max=999999999999 --set sysctl.warn_only=net.core.rmem_max"
# shellcheck disable=SC2086
FAKE_STATE=IDLE run "$pass" --drain --drain-on warn $warn
expect_rc 1 "--drain-on warn on a warning"
grep -q "^Reason=preflight: sysctl: PF-SYSCTL-[0-9]* net.core.rmem_max: " "$T/log" || not_ok "warn not drained"
# shellcheck disable=SC2086
FAKE_STATE=IDLE run "$pass" --drain $warn
[ "$rc" -eq 0 ] && [ ! -s "$T/log" ] && [ ! -s "$T/err" ] || not_ok "a warning drained by default"

# 13. --undrain never resumes on error (undecided is not healthy), nor on a warn that drains
FAKE_STATE=DRAIN FAKE_REASON="preflight: memlock: x" run "$undecided" --undrain
grep -qx update "$T/log" && not_ok "undrain resumed a node on an error verdict"
# shellcheck disable=SC2086
FAKE_STATE=DRAIN FAKE_REASON="preflight: sysctl: x" run "$pass" --undrain --drain-on warn $warn
grep -qx update "$T/log" && not_ok "undrain resumed on a warn with --drain-on warn"
# shellcheck disable=SC2086
FAKE_STATE=DRAIN FAKE_REASON="preflight: sysctl: x" run "$pass" --undrain $warn
grep -qx State=RESUME "$T/log" || not_ok "undrain did not resume on a warn below drain_on"

# 14. a usage or profile error under --drain drains with "config error"; exit 64
FAKE_STATE=IDLE run "$pass" --drain --only memlok
expect_rc 64 "typo"
grep -qxF "Reason=preflight: config error: --only: unknown check or tag 'memlok' (see --list)" \
	"$T/log" || not_ok "typo: not drained with the config error: $(cat "$T/log")"
FAKE_STATE=IDLE run "$pass" --set port_errors.mode=bogus --drain
grep -q "^Reason=preflight: config error: --set 'port_errors.mode=bogus'" "$T/log" ||
	not_ok "bad setting: not drained with the config error"
echo '{ "drain_on": "sometimes" }' > "$T/bad.json"
FAKE_STATE=IDLE run "$pass" --drain --profile "$T/bad.json"
[ "$rc" -eq 64 ] && grep -q "^Reason=preflight: config error: profile .*drain_on" "$T/log" ||
	not_ok "bad drain_on: exit $rc, $(cat "$T/log")"
FAKE_STATE=IDLE run "$pass" --drain --drain-on never
[ "$rc" -eq 64 ] && grep -q "^Reason=preflight: config error: --drain-on: 'never'" "$T/log" ||
	not_ok "bad --drain-on: exit $rc"
# an operator's drain is kept
FAKE_STATE=DRAIN FAKE_REASON="bad DIMM" run "$pass" --drain --only memlok
grep -qx update "$T/log" && not_ok "config error replaced an operator's drain"
# without --drain: exit 64, no scontrol
run "$pass" --only memlok
[ "$rc" -eq 64 ] && [ ! -s "$T/log" ] || not_ok "typo without --drain: exit $rc or scontrol called"

# 15. --check-config: the wrapper's arguments checked, nothing run, scontrol never called
FAKE_STATE=IDLE run "$pass" --drain --check-config --only memlok
[ "$rc" -eq 64 ] && [ ! -s "$T/log" ] || not_ok "--check-config typo: exit $rc, or scontrol called"
grep -q "unknown check or tag 'memlok'" "$T/err" || not_ok "--check-config: the typo is not named"
FAKE_STATE=IDLE run "$bad" --drain --check-config --set memlock.min_kib=65536 --output "$T/x/y.json"
[ "$rc" -eq 0 ] && [ ! -s "$T/log" ] || not_ok "--check-config: exit $rc, or scontrol called"
[ -e "$T/x" ] && not_ok "--check-config created the output's directory"
grep -qx "checks:    memlock, sysctl (2 of [0-9]*)" "$T/out" || not_ok "--check-config: selection"
grep -qx '  memlock.min_kib = 65536 (--set)' "$T/out" || not_ok "--check-config: settings"
grep -q "^slurm: .*drains on fail" "$T/out" || not_ok "--check-config: drain policy"
grep -q '"verdict"' "$T/out" && not_ok "--check-config ran the checks"

# 17. no flapping (issue 20 item 2): --undrain resumes only a drain for a check that ran
# in this run and passes now; never a config error (a bad wrapper would fail the next job
# again), nor a check this run did not run; stderr says why and how to resume by hand
FAKE_STATE=IDLE+DRAIN FAKE_REASON="preflight: config error: --only: unknown check or tag 'memlok' (see --list)" \
	run "$pass" --undrain
[ "$rc" -eq 0 ] || not_ok "undrain over a config-error drain: exit $rc"
grep -qx update "$T/log" && not_ok "undrain resumed a config-error drain (the node would flap)"
grep -q "left IDLE+DRAIN: a config error" "$T/err" &&
	grep -q "scontrol update NodeName=gpu-047 State=RESUME" "$T/err" &&
	ok "a config-error drain stays, stderr says how to resume it" ||
	not_ok "config-error drain: stderr: $(cat "$T/err")"
FAKE_STATE=DRAIN FAKE_REASON="preflight: pfc_pause: mlx5_0/1: PFC off" run "$pass" --undrain
grep -qx update "$T/log" && not_ok "undrain resumed a drain for pfc_pause, which did not run"
grep -q "pfc_pause.* did not run\|did not run.*pfc_pause" "$T/err" ||
	not_ok "no word on the check that did not run: $(cat "$T/err")"
FAKE_STATE=DRAIN FAKE_REASON="bad DIMM, ticket 42" run "$pass" --undrain
grep -q "drained by someone else (reason 'bad DIMM, ticket 42" "$T/err" ||
	not_ok "an admin's drain kept silently: $(cat "$T/err")"
# the check that drained it ran and passes now: resumed (as in 4, named in the reason)
FAKE_STATE=DRAIN FAKE_REASON="preflight: memlock: process: hard limit 64 KiB" run "$pass" --undrain
grep -qx State=RESUME "$T/log" || not_ok "undrain did not resume a memlock drain on a passing run"

# 18. one Prolog (issue 20 item 3): docs/slurm.md and the README show the shipped file
# contrib/slurm/preflight-prolog byte for byte, docs/slurm.md the health wrapper too
block() { # block FILE NAME: the lines between <!-- NAME:begin and <!-- NAME:end, no fences
	sed -n "/^<!-- $2:begin/,/^<!-- $2:end/p" "$1" | sed -e '/^<!--/d' -e '/^```/d'
}
for doc in README.md docs/slurm.md; do
	block "$PF_SOURCE_DIR/$doc" prolog > "$T/doc-prolog"
	cmp -s "$T/doc-prolog" "$PF_SOURCE_DIR/contrib/slurm/preflight-prolog" &&
		ok "$doc shows contrib/slurm/preflight-prolog" ||
		not_ok "$doc's Prolog differs from contrib/slurm/preflight-prolog"
done
block "$PF_SOURCE_DIR/docs/slurm.md" health > "$T/doc-health"
cmp -s "$T/doc-health" "$PF_SOURCE_DIR/contrib/slurm/preflight-health" ||
	not_ok "docs/slurm.md's HealthCheckProgram differs from contrib/slurm/preflight-health"
# the profile is a marked choice, empty as shipped, with the DGX warning; "$@" is passed
for w in preflight-prolog preflight-health; do
	f=$PF_SOURCE_DIR/contrib/slurm/$w
	grep -qx 'PROFILE=' "$f" && grep -q 'CHOOSE the profile' "$f" ||
		not_ok "$w: no marked, empty PROFILE= choice"
	grep -q 'dgx-h100' "$f" && grep -qi 'fails it' "$f" || not_ok "$w: no word that dgx-h100 fails other nodes"
	grep -q '^exec "$pf" .*\\$' "$f" && grep -q ' "\$@"$' "$f" || not_ok "$w: \"\$@\" not passed"
done
# the health wrapper's --check-config runs nothing and calls no scontrol (it lacked "$@")
: > "$T/log"
# laid out as installed: <prefix>/share/preflight/slurm/ and <prefix>/bin/preflight
mkdir -p "$T/inst/bin" "$T/inst/share/preflight/slurm"
ln -sf "$PREFLIGHT" "$T/inst/bin/preflight"
cp "$PF_SOURCE_DIR/contrib/slurm/preflight-health" "$T/inst/share/preflight/slurm/"
"$T/inst/share/preflight/slurm/preflight-health" --no-config --check-config >"$T/hc.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ ! -s "$T/log" ] && grep -q "nothing was run" "$T/hc.out" &&
	ok "preflight-health --check-config runs nothing" ||
	not_ok "preflight-health --check-config: exit $rc, scontrol: $(cat "$T/log") $(cat "$T/hc.out")"
grep -q "^output: .*/var/lib/prometheus/node-exporter/preflight.prom" "$T/hc.out" ||
	not_ok "preflight-health: not Debian's textfile directory"

# 16. every script the docs show is valid as pasted: a block holding "#!" starts with it
# (a comment above "#!/bin/sh" made slurmd fail with "Exec format error")
for doc in "$PF_SOURCE_DIR/README.md" "$PF_SOURCE_DIR/docs/slurm.md"; do
	awk -v doc="$doc" '
		/^```/ { if (inb) { inb = 0 } else { inb = 1; first = 1 }; next }
		inb && first { first = 0; if ($0 !~ /^#!/) head = $0; else head = ""; next }
		inb && /^#!/ && head != "" { print doc ": \"#!\" below \"" head "\""; bad = 1 }
		END { exit bad }' "$doc" || not_ok "a script in $doc does not start with #!"
done

# 17. issue 30: no name can drain the cluster.  SLURMD_NODENAME=ALL (any case) or a
# hostlist never reaches scontrol (the fake logs every call) and is a config error (64)
for name in ALL all 'n[1-9]' 'gpu-0*'; do
	SLURMD_NODENAME="$name" FAKE_STATE=IDLE run "$bad" --drain
	expect_rc 64 "SLURMD_NODENAME='$name' is a config error"
	[ -s "$T/log" ] && not_ok "SLURMD_NODENAME='$name' reached scontrol: $(tr '\n' ' ' <"$T/log")" ||
		ok "SLURMD_NODENAME='$name' never reaches scontrol"
done
# a plain name that scontrol shows as a set (a NodeSet of slurm.conf) or as another node:
# shown, never updated, exit 64
cat > "$T/scontrol-set" <<'EOF2'
#!/bin/sh
for a in "$@"; do printf '%s\n' "$a"; done >> "$FAKE_LOG"
echo -- >> "$FAKE_LOG"
if [ "$1" = show ]; then
	case $FAKE_SHOW in
	set) printf 'NodeName=n1 Arch=x86_64\n   State=IDLE\n\nNodeName=n2 Arch=x86_64\n   State=IDLE\n' ;;
	other) printf 'NodeName=gpu-0470 Arch=x86_64\n   State=IDLE\n' ;;
	none) echo "Node $3 not found" ;;
	esac
fi
exit 0
EOF2
chmod 755 "$T/scontrol-set"
for shape in set other none; do
	SCONTROL="$T/scontrol-set" FAKE_SHOW=$shape run "$bad" --drain
	expect_rc 64 "scontrol shows '$shape' for the node: a config error"
	grep -qx update "$T/log" && not_ok "$shape: an update went out: $(tr '\n' ' ' <"$T/log")" ||
		ok "$shape: no update"
	expect_err "gpu-047 is neither drained nor resumed"
done
SCONTROL="$T/scontrol-set" FAKE_SHOW=set run "$pass" --undrain
grep -qx update "$T/log" && not_ok "undrain of a set: $(tr '\n' ' ' <"$T/log")" || ok "undrain of a set: no update"

# 18. as root, $SCONTROL must be root's program alone: a world-writable one (or one in a
# directory others may write) is never run
if [ "$(id -u)" = 0 ]; then
	mkdir -p "$T/ww" && cp "$T/scontrol" "$T/ww/scontrol" && chmod 757 "$T/ww/scontrol"
	SCONTROL="$T/ww/scontrol" FAKE_STATE=IDLE run "$bad" --drain
	expect_rc 64 "a world-writable scontrol"
	[ -s "$T/log" ] && not_ok "the world-writable scontrol ran" || ok "a world-writable scontrol never runs"
	expect_err "is writable by everyone"
	chmod 755 "$T/ww/scontrol" && chmod 777 "$T/ww"
	SCONTROL="$T/ww/scontrol" FAKE_STATE=IDLE run "$bad" --drain
	expect_rc 64 "scontrol in a world-writable directory"
	[ -s "$T/log" ] && not_ok "scontrol in a world-writable directory ran" ||
		ok "scontrol in a world-writable directory never runs"
	SCONTROL=scontrol-relative FAKE_STATE=IDLE run "$bad" --drain
	expect_rc 64 "a relative SCONTROL"
	expect_err "is not an absolute path"
	chmod 755 "$T/ww"
else
	note "not root: the rule for root's scontrol is not checked"
fi

# 19. --reboot-on (issue 35 item 3).  An Xid 79 with no GPU left on the bus: fail
# PF-GPU-INVENTORY-020, action reboot.  Listed: one reboot request, no drain.
xid="$T/xid" mixed="$T/xid-memlock"
cp -r "$pass" "$xid" && cp -r "$bad" "$mixed"
for d in "$xid" "$mixed"; do
	mkdir -p "$d/preflight"
	echo "[100.000000] NVRM: Xid (PCI:0000:9b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
		> "$d/preflight/kmsg"
done
xreason="preflight: gpu_inventory: PF-GPU-INVENTORY-020 PCI:0000:9b:00/xid: Xid 79 (GPU has fallen off the bus) x1"
FAKE_STATE=IDLE FAKE_REASON= run "$xid" --only memlock,gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-020
expect_rc 1 "reboot-on"
printf 'show\nnode\ngpu-047\n--\nreboot\nASAP\nnextstate=RESUME\nreason=%s\ngpu-047\n--\n' "$xreason" > "$T/want"
cmp -s "$T/log" "$T/want" && ok "--reboot-on: one reboot request with the coded reason, no drain" ||
	not_ok "--reboot-on: scontrol calls $(tr '\n' ' ' < "$T/log")"
expect_err "asked Slurm to reboot node gpu-047"
# any case, in a list
FAKE_STATE=IDLE run "$xid" --only gpu_inventory --drain --reboot-on pf-gpu-inventory-027,pf-gpu-inventory-020
grep -qx reboot "$T/log" && ok "--reboot-on: codes in any case, in a list" || not_ok "lower-case list"
# a drain not fixed by a reboot (memlock fails too): drained, never rebooted
FAKE_STATE=IDLE run "$mixed" --only memlock,gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-020
grep -qx reboot "$T/log" && not_ok "--reboot-on rebooted a node that also fails memlock" ||
	{ grep -qx State=DRAIN "$T/log" && ok "--reboot-on: another fail keeps the plain drain"; } ||
	not_ok "mixed: not drained"
# not listed: drained
FAKE_STATE=IDLE run "$xid" --only gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-002
grep -qx reboot "$T/log" && not_ok "--reboot-on rebooted on a code not listed" ||
	ok "--reboot-on: a code not listed drains"
# Slurm refuses the reboot (no RebootProgram): drained with the reason instead
FAKE_STATE=IDLE FAKE_REBOOT_RC=1 run "$xid" --only gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-020
expect_rc 1 "reboot refused"
grep -qx reboot "$T/log" && grep -qxF "Reason=$xreason" "$T/log" &&
	ok "a refused reboot falls back to the drain" || not_ok "refused reboot: $(tr '\n' ' ' < "$T/log")"
expect_err "draining node gpu-047 instead"
# an operator's drain is kept: no reboot either
FAKE_STATE=IDLE+DRAIN FAKE_REASON="bad DIMM" run "$xid" --only gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-020
grep -qE '^(reboot|update)$' "$T/log" && not_ok "--reboot-on acted on an operator's drain" ||
	ok "--reboot-on leaves an operator's drain alone"
# usage: a code that is not one, a code whose action a reboot does not carry out, no --drain
for bad_arg in PF-NOPE-001 PF-MEMLOCK-001 ""; do
	FAKE_STATE=IDLE pf --root "$pass" --only memlock --reboot-on "$bad_arg" --format json
	expect_rc 64 "--reboot-on '$bad_arg'"
done
: > "$T/log"
FAKE_STATE=IDLE pf --root "$xid" --only gpu_inventory --drain --reboot-on PF-MEMLOCK-001 --format json
expect_rc 64 "--reboot-on PF-MEMLOCK-001"
expect_err "PF-MEMLOCK-001's action is reconfigure"
pf --root "$xid" --only gpu_inventory --reboot-on PF-GPU-INVENTORY-020 --format json
expect_rc 64 "--reboot-on without --drain"
expect_err "--reboot-on needs --drain"

done_testing
