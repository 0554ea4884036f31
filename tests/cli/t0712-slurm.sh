#!/bin/sh
# SPDX-License-Identifier: MIT
# preflight as a Slurm Prolog against a real slurmctld and slurmd that this
# test starts itself (auth/none, this host as the only node, everything under
# a temporary directory, its own ports).
#
#  1. Prolog = preflight --drain on a failing recorded root: a job does not
#     run, and the node ends DRAINED with Reason "preflight: memlock: ...".
#  2. preflight --undrain resumes the node (scontrol update State=RESUME)
#     only once the root passes.
#  3. with the Prolog on a passing root, a job runs to completion.
#
# Installs nothing (scripts/setup.sh --test installs slurm-wlm); skips (77)
# without the Slurm binaries or without root.  The daemons are always killed.
set -eu
: "${PREFLIGHT:?}" "${PF_FIXTURES:?}"

for b in slurmctld slurmd scontrol srun sbatch sinfo; do
	command -v "$b" >/dev/null 2>&1 ||
		PATH="$PATH:/usr/sbin:/sbin" command -v "$b" >/dev/null 2>&1 ||
		{ echo "skip: $b not found (scripts/setup.sh --test installs slurm-wlm)"; exit 77; }
done
PATH="$PATH:/usr/sbin:/sbin"
[ "$(id -u)" -eq 0 ] || { echo "skip: needs root (slurmd runs jobs as SlurmdUser=root)"; exit 77; }

tmp=$(mktemp -d /tmp/pf-slurm.XXXXXX)
chmod 755 "$tmp"
ctld_pid="" d_pid=""
stop() {
	for p in $d_pid $ctld_pid; do
		kill "$p" 2>/dev/null || true
	done
	for p in $d_pid $ctld_pid; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap stop EXIT
trap 'exit 1' INT TERM HUP
fail() {
	echo "FAIL: $*" >&2
	scontrol show node "$node" >&2 2>&1 || true
	for f in "$tmp"/log/*; do echo "== $f" >&2; tail -n 25 "$f" >&2; done
	exit 1
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
NodeName=$node CPUs=$(nproc) RealMemory=100 State=UNKNOWN
PartitionName=pf Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF

# The Prolog: slurmd runs it as root with a small environment; the root to
# check is read from a file so that the test can switch it without a reconfigure.
cat > "$tmp/prolog.sh" <<EOF
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin SCONTROL=$(command -v scontrol)
exec "$PREFLIGHT" --root "\$(cat $tmp/prolog-root)" --only memlock,sysctl --drain \\
	--output $tmp/prolog-report.json 2>> $tmp/log/prolog.err
EOF
chmod 755 "$tmp/prolog.sh"
echo "$PF_FIXTURES/slurm-fail" > "$tmp/prolog-root"

start=$(date +%s)
left() { echo $((start + 90 - $(date +%s))); }

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

# 1. failing root: the job's Prolog fails and drains the node with preflight's reason
rc=0
timeout "$(left)" srun -N1 -w "$node" -t 1 true > "$tmp/log/srun1.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "a job ran although the Prolog checks a failing root"
wait_state 'DRAIN'
reason=$(scontrol show node "$node" | sed -n 's/^ *Reason=//p')
case "$reason" in
"preflight: memlock: process: hard limit 64 KiB"*) ;;
*) fail "drain reason is '$reason', expected 'preflight: memlock: ...'" ;;
esac
grep -q '"verdict":[[:space:]]*"fail"' "$tmp/prolog-report.json" || fail "prolog report"
grep -q '^preflight: memlock: ' "$tmp/log/prolog.err" || fail "no reason line in the Prolog's stderr"

# 2. --undrain: kept drained on the failing root; resumed (State=RESUME) on the passing one
export SLURMD_NODENAME="$node" SCONTROL="$(command -v scontrol)"
rc=0
"$PREFLIGHT" --root "$PF_FIXTURES/slurm-fail" --only memlock,sysctl --undrain --format json \
	> /dev/null 2> "$tmp/log/undrain1.err" || rc=$?
[ "$rc" -eq 1 ] || fail "undrain on the failing root exited $rc"
scontrol show node "$node" | grep -q '^ *State=[^ ]*DRAIN' || fail "undrain resumed a failing node"
"$PREFLIGHT" --root "$PF_FIXTURES/slurm-pass" --only memlock,sysctl --undrain --format json \
	> /dev/null 2> "$tmp/log/undrain2.err" || fail "undrain on the passing root: exit $?"
grep -q "resumed node $node" "$tmp/log/undrain2.err" || fail "undrain did not resume"
unset SLURMD_NODENAME SCONTROL

# 3. with the Prolog on the passing root, a batch job runs to completion
echo "$PF_FIXTURES/slurm-pass" > "$tmp/prolog-root"
wait_state '^IDLE$'
rc=0
timeout "$(left)" sbatch --wait -N1 -w "$node" -t 1 -o "$tmp/job.out" \
	--wrap 'echo "job $SLURM_JOB_ID ran"' > "$tmp/log/sbatch.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "sbatch --wait exited $rc with a passing Prolog"
grep -q '^job [0-9]* ran$' "$tmp/job.out" || fail "the job's output is missing"
grep -q '"verdict":[[:space:]]*"pass"' "$tmp/prolog-report.json" || fail "prolog report (pass)"
st=$(scontrol show node "$node" | sed -n 's/^ *State=\([^ ]*\).*/\1/p')
case "$st" in *DRAIN*) fail "node drained after a passing Prolog: $st" ;; esac
echo "ok in $((90 - $(left))) s"
