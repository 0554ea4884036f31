#!/bin/sh
# SPDX-License-Identifier: MIT
# Lifecycle and identity (docs/hardening.md "Signals, children and Slurm
# identity"): a second signal while the report is renamed leaves no
# .NAME.XXXXXX; a SIGTERM during --drain stops the drain from going out;
# SLURMD_NODENAME must be one plain host name (n[1-100] would drain 100
# nodes); SLURM_JOB_USER with a newline cannot add a uid= line to the
# snapshot's job_user; the hwloc probe child dies with preflight.
. "$(dirname "$0")/lib.sh"
need_python

fail_root="$PF_FIXTURES/slurm-fail"
# wait_for CMD...: poll CMD every 20 ms, at most 10 s; 0 once it succeeds
wait_for() {
	n=0
	while [ $n -lt 500 ]; do
		"$@" && return 0
		sleep 0.02
		n=$((n + 1))
	done
	return 1
}

# 1. a second signal during the report's write and rename: fsync is slowed with strace so
# both signals land while the temporary exists; no temporary may be left behind
if command -v strace >/dev/null 2>&1 && command -v pgrep >/dev/null 2>&1; then
	mkdir "$T/sig"
	strace -o /dev/null -e trace=fsync -e inject=fsync:delay_exit=2000000 -- \
		"$PREFLIGHT" --root "$PF_FIXTURES/sysctl-pass" --only memlock,sysctl \
		--output "$T/sig/r.json" 2>"$T/err" &
	tracer=$!
	has_temp() { ls -A "$T/sig" | grep -q '^\.r\.json\.'; }
	if wait_for has_temp && pid=$(pgrep -P "$tracer"); then
		kill -TERM "$pid"
		sleep 0.1
		kill -INT "$pid"
		wait "$tracer"
		rc=$?
		[ "$rc" -gt 128 ] && ok "two signals during the write: exit $rc" ||
			not_ok "two signals during the write: exit $rc"
		[ -z "$(ls -A "$T/sig" | grep '^\.r\.json\.')" ] && ok "no temporary file left" ||
			not_ok "left behind: $(ls -A "$T/sig")"
	else
		wait "$tracer"
		not_ok "the temporary file never appeared (strace: $(head -c 200 "$T/err"))"
	fi
else
	note "strace or pgrep not installed: the second signal during the rename is not checked"
fi

# 2. SIGTERM while --drain asks scontrol: nothing more goes out, exit 143
cat >"$T/scontrol" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$FAKE_LOG"
if [ "$1" = show ]; then
	sleep 3
	echo "NodeName=$3 State=IDLE"
fi
exit 0
EOF
chmod +x "$T/scontrol"
: >"$T/log"
SCONTROL="$T/scontrol" FAKE_LOG="$T/log" SLURMD_NODENAME=gpu-047 \
	"$PREFLIGHT" --root "$fail_root" --only memlock --drain >"$T/out" 2>"$T/err" &
pf_pid=$!
asked() { grep -q '^show node' "$T/log"; }
if wait_for asked; then
	kill -TERM "$pf_pid"
	wait "$pf_pid"
	rc=$?
	expect_rc 143 "SIGTERM during --drain"
	grep -q '^update' "$T/log" && not_ok "the drain went out: $(cat "$T/log")" ||
		ok "no scontrol update after SIGTERM"
	expect_err "interrupted by SIGTERM"
else
	kill "$pf_pid" 2>/dev/null
	wait "$pf_pid"
	not_ok "scontrol show was never run: $(cat "$T/err")"
fi

# 3. SLURMD_NODENAME that is a hostlist (or --node): refused, scontrol never updates
cat >"$T/scontrol" <<'EOF'
#!/bin/sh
printf '%s\n' "$*" >>"$FAKE_LOG"
[ "$1" = show ] && echo "NodeName=$3 State=IDLE"
exit 0
EOF
for name in 'n[1-100]' 'a,b' 'n1 n2'; do
	: >"$T/log"
	SCONTROL="$T/scontrol" FAKE_LOG="$T/log" SLURMD_NODENAME="$name" \
		"$PREFLIGHT" --root "$fail_root" --only memlock --drain >"$T/out" 2>"$T/err"
	rc=$?
	[ -s "$T/log" ] && not_ok "SLURMD_NODENAME='$name' reached scontrol: $(cat "$T/log")" ||
		ok "SLURMD_NODENAME='$name' never reaches scontrol"
	expect_err "SLURMD_NODENAME is not one plain host name"
done
: >"$T/log"
SCONTROL="$T/scontrol" FAKE_LOG="$T/log" SLURMD_NODENAME=gpu-047.cluster \
	"$PREFLIGHT" --root "$fail_root" --only memlock --drain >"$T/out" 2>"$T/err"
grep -q '^update NodeName=gpu-047.cluster State=DRAIN' "$T/log" &&
	ok "a plain node name still drains" || not_ok "plain name not drained: $(cat "$T/log")"

# 4. SLURM_JOB_USER with a newline: the snapshot records one uid, the job's
SLURM_JOB_UID=65534 SLURM_JOB_USER="$(printf 'evil\nuid=0')" \
	"$PREFLIGHT" snapshot "$T/snap" >"$T/out" 2>"$T/err" || not_ok "live snapshot: $(cat "$T/err")"
if [ -f "$T/snap/preflight/job_user" ]; then
	[ "$(grep -c '^uid=' "$T/snap/preflight/job_user")" = 1 ] &&
		grep -qx 'uid=65534' "$T/snap/preflight/job_user" &&
		! grep -q evil "$T/snap/preflight/job_user" &&
		ok "job_user cannot be injected" ||
		not_ok "job_user: $(tr '\n' ' ' <"$T/snap/preflight/job_user")"
else
	not_ok "the snapshot has no preflight/job_user"
fi

# 5. the hwloc probe child (an import of --topology in a forked child) dies with preflight
"$PY" - "$T/big.xml" 60000 <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
cs = 'cpuset="0x1" complete_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1"'
with open(path, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'
            '<topology version="2.0">\n'
            f'<object type="Machine" os_index="0" {cs} allowed_cpuset="0x1" '
            'allowed_nodeset="0x1" gp_index="1">\n'
            f'<object type="NUMANode" os_index="0" {cs} gp_index="2" local_memory="1000000"/>\n'
            f'<object type="PU" os_index="0" {cs} gp_index="3"/>\n'
            '<object type="Bridge" gp_index="4" bridge_type="0-1" depth="0" '
            'bridge_pci="0000:[00-ff]">\n')
    for i in range(n):
        f.write(f'<object type="PCIDev" gp_index="{10 + i}" pci_busid="{i >> 16:04x}:'
                f'{(i >> 8) & 0xff:02x}:{(i >> 3) & 0x1f:02x}.{i & 7}" '
                'pci_type="0200 [15b3:101b] [15b3:0007] 00" pci_link_speed="0.000000"/>\n')
    f.write('</object>\n</object>\n</topology>\n')
PY
"$PREFLIGHT" --root "$PF_FIXTURES/sysctl-pass" --topology "$T/big.xml" --only memlock \
	>/dev/null 2>&1 &
pf_pid=$!
child_of() { awk -v p="$1" '$4 == p { print $1 }' /proc/[0-9]*/stat 2>/dev/null | head -1; }
has_child() { probe=$(child_of "$pf_pid"); [ -n "$probe" ]; }
if wait_for has_child; then
	kill -KILL "$pf_pid"
	wait "$pf_pid" 2>/dev/null
	gone() { [ ! -d "/proc/$probe" ] || grep -q '^State:.*Z' "/proc/$probe/status" 2>/dev/null; }
	n=0
	while [ $n -lt 25 ] && ! gone; do
		sleep 0.02
		n=$((n + 1))
	done
	gone && ok "the hwloc probe child died with preflight" ||
		{ not_ok "the hwloc probe child $probe outlived SIGKILL of preflight"; kill -KILL "$probe"; }
else
	wait "$pf_pid"
	note "the hwloc probe ended before it could be seen: not checked"
fi

done_testing
