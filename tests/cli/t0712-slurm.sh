#!/bin/sh
# SPDX-License-Identifier: MIT
# preflight as a Slurm Prolog against a real slurmctld and slurmd that this
# test starts itself (auth/none, this host as the only node, everything under
# a temporary directory, its own ports).  The Prolog is the shipped wrapper
# (contrib/slurm/preflight-prolog, which README.md and docs/slurm.md show:
# t0711 checks they match), installed from this build and run unmodified;
# the test's arguments (the root, a copy of dgx-h100.json whose NIC lists fit
# the generated nodes, the report under this test's directory) come last.
#
#  1. a healthy generated node: a batch job runs to completion, the node stays
#     up, the report's directory was created.
#  2. a node with a port down: a job does not run, the node ends DRAINED with
#     Reason "preflight: nic_link_speed: PF-NIC-LINK-SPEED-NNN mlx5_3/1: ...".
#  3. preflight --undrain keeps it drained on the failing node and resumes it
#     (scontrol update State=RESUME) on the healthy one.
#  4. a node whose only problem is a check that cannot decide (an unparsable
#     sysctl: error): the job runs and the node is not drained.
#  5. the wrapper with a typo (--only memlok): `wrapper --check-config` exits
#     64 without touching the node; as the Prolog it drains the node with
#     Reason "preflight: config error: ...".
#  6. the installed HealthCheckProgram wrapper with --undrain on the healthy
#     node leaves that config-error drain alone and says why on stderr; resumed
#     by hand, a job runs.
#  7. --confirm 2 and a fail that clears on its re-run: the job runs, the node
#     stays up, the report shows the warn (PF-...-900) and 2 attempts.
#  8. --confirm 2 on the node with a port down: the fail holds, the node drains.
#  9. --drain --reboot-on PF-GPU-INVENTORY-020 on a node whose kernel log holds an
#     Xid 79: Slurm takes `scontrol reboot ASAP nextstate=RESUME` with the coded
#     reason and runs the RebootProgram (a script that only leaves a mark).
#
# Installs nothing (scripts/setup.sh --test installs slurm-wlm); skips (77)
# without the Slurm binaries, python3 or root.  The daemons are always killed.
. "$(dirname "$0")/lib.sh"

for b in slurmctld slurmd scontrol srun sbatch sinfo; do
	command -v "$b" >/dev/null 2>&1 ||
		PATH="$PATH:/usr/sbin:/sbin" command -v "$b" >/dev/null 2>&1 ||
		skip_all "$b not found (scripts/setup.sh --test installs slurm-wlm)"
done
PATH="$PATH:/usr/sbin:/sbin"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (slurmd runs jobs as SlurmdUser=root)"
need_python

# Each step needs the state the one before left: a failure bails out (fail).
tmp=$T
chmod 755 "$tmp"
ctld_pid="" d_pid=""
stop_daemons() {
	for p in $d_pid $ctld_pid; do
		kill "$p" 2>/dev/null
	done
	for p in $d_pid $ctld_pid; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap stop_daemons EXIT
trap 'exit 1' INT TERM HUP
# fail REASON: the node's state and the daemons' logs, then bail out
fail() {
	scontrol show node "$node" 2>&1 || true
	for f in "$tmp"/log/*; do echo "== $f"; tail -n 25 "$f"; done
	bail_out "$*"
}

node=$(hostname -s)
# ports from the pid, so that two runs on one machine do not collide
port=$((20000 + ($$ % 5000) * 2))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log"
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=pftest
SlurmctldHost=$node
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerParameters=nohold_on_prolog_fail
Prolog=$tmp/prolog.sh
RebootProgram=$tmp/reboot.sh
NodeName=$node CPUs=$(nproc) RealMemory=100 State=UNKNOWN
PartitionName=pf Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# The RebootProgram of step 9 leaves a mark and reboots nothing.
printf '#!/bin/sh\necho rebooted > %s/rebooted\n' "$tmp" > "$tmp/reboot.sh"
chmod 755 "$tmp/reboot.sh"

# The generated nodes, and a copy of dgx-h100.json whose NIC lists fit them
# (gen_root names the 8 compute NICs mlx5_0..7; DGX OS numbers them apart).
gen="$PF_SOURCE_DIR/tests/gen_root.py"
"$PY" "$gen" "$tmp/node-ok" > /dev/null || fail "gen_root.py node-ok"
"$PY" "$gen" "$tmp/node-down" --down-port mlx5_3 > /dev/null || fail "gen_root.py node-down"
"$PY" "$gen" "$tmp/node-undecided" --file "proc/sys/net/core/rmem_max=garbage" > /dev/null ||
	fail "gen_root.py node-undecided"
sed -e 's/"ignore": "mlx5_1,mlx5_2,mlx5_7,mlx5_8"/"ignore": ""/' -e 's/"nics": "[^"]*"/"nics": ""/' \
	"$PF_SOURCE_DIR/profiles/dgx-h100.json" > "$tmp/dgx-h100.json"

# The Prolog: the shipped wrapper, installed from this build (cmake --install of the
# package's component into $tmp/inst: <prefix>/share/preflight/slurm/preflight-prolog,
# <prefix>/bin/preflight), run unmodified; slurm.conf's Prolog= is a two-line shim that
# keeps its stderr and passes the test's arguments, which come last and win: the root
# (read from a file so that the test can switch it without a reconfigure), the profile,
# the report under this test's directory (missing: it must be created), --no-config.
build=$(dirname "$PREFLIGHT")
inst=$tmp/inst
cmake --install "$build" --prefix "$inst" --component Unspecified > "$tmp/log/install.out" 2>&1 ||
	fail "cmake --install: $(tail -n 5 "$tmp/log/install.out")"
wrapper=$inst/share/preflight/slurm/preflight-prolog
health=$inst/share/preflight/slurm/preflight-health
[ -x "$wrapper" ] && [ -x "$health" ] && [ -x "$inst/bin/preflight" ] ||
	fail "the install has no executable wrappers or binary"
mkdir -p "$tmp/var/lib"
make_prolog() { # make_prolog [ARG...]: the shim, with extra arguments for the wrapper
	{
		echo '#!/bin/sh'
		echo "exec 2>> $tmp/log/prolog.err"
		[ -z "${prolog_env:-}" ] || echo "export $prolog_env"
		printf 'exec %s --no-config --root "$(cat %s)" --profile %s --output %s' "$wrapper" \
			"$tmp/prolog-root" "$tmp/dgx-h100.json" "$tmp/var/lib/preflight/prolog.json"
		for a in "$@"; do printf " '%s'" "$a"; done
		echo ' "$@"'
	} > "$tmp/prolog.new"
	chmod 755 "$tmp/prolog.new"
	mv "$tmp/prolog.new" "$tmp/prolog.sh"
}
make_prolog
echo "$tmp/node-down" > "$tmp/prolog-root"

start=$(date +%s)
left() { echo $((start + 200 - $(date +%s))); }

slurmctld -D -f "$SLURM_CONF" > "$tmp/log/slurmctld.out" 2>&1 &
ctld_pid=$!
i=0
until scontrol ping 2>/dev/null | grep -q UP; do
	kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited"
	[ "$(left)" -gt 0 ] || fail "slurmctld did not answer"
	sleep 0.5
done
slurmd -D -f "$SLURM_CONF" > "$tmp/log/slurmd.out" 2>&1 &
d_pid=$!

# wait_state PATTERN: poll until the node's State= matches (grep -E)
wait_state() {
	while :; do
		st=$(scontrol show node "$node" 2>/dev/null | sed -n 's/^ *State=\([^ ]*\).*/\1/p')
		echo "$st" | grep -Eq "$1" && return 0
		kill -0 "$d_pid" 2>/dev/null || fail "slurmd exited"
		[ "$(left)" -gt 0 ] || fail "node state '$st' never matched '$1'"
		sleep 0.5
	done
}
wait_state '^IDLE$'

report="$tmp/var/lib/preflight/prolog.json"
# node_state: the State= of the node
node_state() { scontrol show node "$node" | sed -n 's/^ *State=\([^ ]*\).*/\1/p'; }
# job_runs NAME: an sbatch --wait job runs to completion
job_runs() {
	rc=0
	timeout "$(left)" sbatch --wait -N1 -w "$node" -t 1 -o "$tmp/$1.out" \
		--wrap 'echo "job $SLURM_JOB_ID ran"' > "$tmp/log/sbatch-$1.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: sbatch --wait exited $rc"
	grep -q '^job [0-9]* ran$' "$tmp/$1.out" || fail "$1: the job's output is missing"
	case "$(node_state)" in *DRAIN*) fail "$1: node drained: $(node_state)" ;; esac
}

# 0. the wrapper tests itself as docs/slurm.md says: --check-config, nothing run
rc=0
"$tmp/prolog.sh" --check-config > "$tmp/log/check-config.out" || rc=$?
[ "$rc" -eq 0 ] || fail "prolog.sh --check-config exited $rc"
for c in memlock sysctl nic_link_speed pcie_link gpu_nic_numa port_errors; do
	grep -q "^checks: .* $c[,( ]" "$tmp/log/check-config.out" || fail "--check-config: no $c"
done
grep -q "^checks: .* (6 of " "$tmp/log/check-config.out" || fail "--check-config: the selection"
[ -e "$tmp/var/lib/preflight" ] && fail "--check-config created the report's directory"
ok "0. the Prolog's --check-config runs nothing"

# 1. a healthy node: the job runs; the Prolog created /var/lib/preflight
echo "$tmp/node-ok" > "$tmp/prolog-root"
job_runs healthy
[ "$(stat -c %a "$tmp/var/lib/preflight")" = 755 ] || fail "the report's directory: not 0755"
grep -q '"verdict":[[:space:]]*"pass"' "$report" || fail "prolog report (healthy)"
ok "1. a healthy node runs the job"

# 2. a port down: the job's Prolog fails and drains the node with preflight's reason
echo "$tmp/node-down" > "$tmp/prolog-root"
rc=0
timeout "$(left)" srun -N1 -w "$node" -t 1 true > "$tmp/log/srun1.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a job ran although the Prolog checks a failing node"
wait_state 'DRAIN'
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
case "$reason" in
"preflight: nic_link_speed: PF-NIC-LINK-SPEED-"[0-9][0-9][0-9]" mlx5_3/1: DOWN"*) ;;
*) fail "drain reason is '$reason', expected 'preflight: nic_link_speed: PF-NIC-LINK-SPEED-NNN mlx5_3/1: DOWN ...'" ;;
esac
grep -q '"verdict":[[:space:]]*"fail"' "$report" || fail "prolog report (fail)"
grep -q '^preflight: nic_link_speed: ' "$tmp/log/prolog.err" || fail "no reason line in the Prolog's stderr"
ok "2. a port down drains the node with preflight's reason"

# 3. --undrain: kept drained on the failing node; resumed (State=RESUME) on the healthy one
export SLURMD_NODENAME="$node" SCONTROL="$(command -v scontrol)"
pf --root "$tmp/node-down" --only nic_link_speed --undrain --format json
[ "$rc" -eq 1 ] || fail "undrain on the failing node exited $rc"
node_state | grep -q 'DRAIN' || fail "undrain resumed a failing node"
pf --root "$tmp/node-ok" --only nic_link_speed --undrain --format json
[ "$rc" -eq 0 ] || fail "undrain on the healthy node: exit $rc"
grep -q "resumed node $node" "$T/err" || fail "undrain did not resume: $(cat "$T/err")"
unset SLURMD_NODENAME SCONTROL
wait_state '^IDLE$'
ok "3. --undrain keeps a failing node drained and resumes a healthy one"

# 4. a check that cannot decide (error) and nothing failed: the job runs, no drain
echo "$tmp/node-undecided" > "$tmp/prolog-root"
job_runs undecided
grep -q '"verdict":[[:space:]]*"error"' "$report" || fail "prolog report (error)"
grep -q "not draining on error" "$tmp/log/prolog.err" || fail "no note on the error in stderr"
ok "4. an undecided check lets the job run"

# 5. a typo in the wrapper: --check-config says so and leaves the node alone; as the
#    Prolog it drains the node with "config error"
echo "$tmp/node-ok" > "$tmp/prolog-root"
make_prolog --only memlok,sysctl
grep -q -- "--only' 'memlok," "$tmp/prolog.sh" || fail "the typo was not made"
rc=0
: > "$tmp/log/prolog.err" # the wrapper's stderr goes there
"$tmp/prolog.sh" --check-config > /dev/null || rc=$?
[ "$rc" -eq 64 ] || fail "--check-config on the typo exited $rc, expected 64"
grep -q "unknown check or tag 'memlok'" "$tmp/log/prolog.err" || fail "--check-config: no message"
[ "$(node_state)" = IDLE ] || fail "--check-config changed the node: $(node_state)"
rc=0
timeout "$(left)" srun -N1 -w "$node" -t 1 true > "$tmp/log/srun2.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a job ran although the Prolog has a typo"
wait_state 'DRAIN'
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
case "$reason" in
"preflight: config error: --only: unknown check or tag 'memlok'"*) ;;
*) fail "drain reason is '$reason', expected 'preflight: config error: ...'" ;;
esac
ok "5. a typo in the Prolog drains with a config error"

# 6. no flapping (issue 20 item 2): the wrapper is fixed, the installed HealthCheckProgram
#    wrapper runs on the now healthy node with --undrain: the config-error drain stays (the
#    admin resumes it after checking the wrapper), stderr says why and how
make_prolog
export SLURMD_NODENAME="$node" SCONTROL="$(command -v scontrol)"
rc=0
"$health" --no-config --root "$tmp/node-ok" --profile "$tmp/dgx-h100.json" \
	--output "$tmp/prom/preflight.prom" > "$tmp/log/health.out" 2> "$tmp/log/health.err" || rc=$?
unset SLURMD_NODENAME SCONTROL
[ "$rc" -eq 0 ] || fail "preflight-health on the healthy node exited $rc: $(cat "$tmp/log/health.err")"
grep -q '^preflight_check_status' "$tmp/prom/preflight.prom" || fail "preflight-health wrote no prom file"
node_state | grep -q DRAIN || fail "--undrain resumed a config-error drain (the node would flap)"
grep -q "left .*a config error" "$tmp/log/health.err" &&
	grep -q "scontrol update NodeName=$node State=RESUME" "$tmp/log/health.err" ||
	fail "no reason on stderr for keeping the drain: $(cat "$tmp/log/health.err")"
scontrol update NodeName="$node" State=RESUME || fail "resume by hand"
wait_state '^IDLE$'
job_runs fixed
ok "6. --undrain leaves a config-error drain; resumed by hand, jobs run"

# 7. --confirm (issue 35 item 4): a fail that clears on a re-run does not drain.  The
#    installed binary is the test-only preflight-faults for this step, whose failonce
#    fault fails nic_link_speed the first time it runs (tests/faults/fault_hook.c).
cp "$inst/bin/preflight" "$tmp/preflight.real"
cp "$build/preflight-faults" "$inst/bin/preflight" || fail "no preflight-faults in $build"
prolog_env="PF_TEST_FAULT=failonce:nic_link_speed PF_TEST_FAULT_ONCE=$tmp/once"
make_prolog --confirm 2 --state-dir "$tmp/var/lib/preflight"
echo "$tmp/node-ok" > "$tmp/prolog-root"
job_runs transient
[ -e "$tmp/once" ] || fail "7: the fault was not injected"
"$PY" - "$report" <<'PY' || fail "7: the report does not show the re-run"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "nic_link_speed"][0]
assert c["status"] == "warn" and c["attempts"] == 2, c
assert any(f.get("code") == "PF-NIC-LINK-SPEED-900" for f in c["findings"]), c
PY
ok "7. a fail that clears on a re-run under --confirm 2: the job runs, no drain"

# 8. the same Prolog on a node whose port is down: the fail holds, the node drains
rm -f "$tmp/once"
prolog_env=
cp "$tmp/preflight.real" "$inst/bin/preflight"
make_prolog --confirm 2 --state-dir "$tmp/var/lib/preflight"
echo "$tmp/node-down" > "$tmp/prolog-root"
rc=0
timeout "$(left)" srun -N1 -w "$node" -t 1 true > "$tmp/log/srun3.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "8: a job ran although the fail holds"
wait_state 'DRAIN'
"$PY" - "$report" <<'PY' || fail "8: the report does not show 3 attempts"
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["checks"] if c["name"] == "nic_link_speed"][0]
assert c["status"] == "fail" and c["attempts"] == 3, c
PY
ok "8. a fail that holds over --confirm 2 drains"

# 9. --reboot-on (issue 35 item 3): a node whose kernel log holds an Xid 79 (fail
#    PF-GPU-INVENTORY-020, action reboot) is handed to Slurm's reboot, not drained
scontrol update NodeName="$node" State=RESUME || fail "9: resume"
wait_state '^IDLE$'
cp -r "$tmp/node-ok" "$tmp/node-xid"
mkdir -p "$tmp/node-xid/proc/driver/nvidia" "$tmp/node-xid/preflight"
echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024" \
	> "$tmp/node-xid/proc/driver/nvidia/version"
up=$(cut -d' ' -f1 "$tmp/node-xid/proc/uptime" | cut -d. -f1)
echo "[$((up - 600)).000000] NVRM: Xid (PCI:0000:13:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." \
	> "$tmp/node-xid/preflight/kmsg"
export SLURMD_NODENAME="$node" SCONTROL="$(command -v scontrol)"
pf --root "$tmp/node-xid" --only gpu_inventory --drain --reboot-on PF-GPU-INVENTORY-020 --format json
unset SLURMD_NODENAME SCONTROL
[ "$rc" -eq 1 ] || fail "9: exit $rc: $(cat "$T/err")"
grep -q "asked Slurm to reboot node $node" "$T/err" || fail "9: no reboot request: $(cat "$T/err")"
wait_state 'REBOOT'
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
case "$reason" in
"preflight: gpu_inventory: PF-GPU-INVENTORY-020 0000:13:00.0/xid: Xid 79"*) ;;
*) fail "9: reason is '$reason'" ;;
esac
while [ ! -e "$tmp/rebooted" ]; do
	[ "$(left)" -gt 0 ] || fail "9: slurmd never ran the RebootProgram (state $(node_state))"
	sleep 0.5
done
ok "9. --reboot-on hands an Xid 79 to Slurm's reboot: $(node_state) ($((200 - $(left))) s in all)"
done_testing
