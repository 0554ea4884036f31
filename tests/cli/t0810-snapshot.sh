#!/bin/sh
# SPDX-License-Identifier: MIT
# t0810-snapshot.sh - `preflight snapshot DIR` then `preflight --root DIR` gives
# the live verdicts: memlock and sysctl on this machine (status, and each
# finding's subject and status), with the snapshot run under a lowered memlock
# limit that must be the one recorded.  Also: links stay links, the log exists,
# the snapshot is small, usage errors; a generated 8-GPU RoCE node and (when
# ../shared is present) a real hwloc-gather-topology capture, re-snapshotted with
# --root, give the same verdicts for every check.
. "$(dirname "$0")/lib.sh"
need_python

# same_verdicts A.json B.json: every check's status and findings (subject, status) agree
same_verdicts() {
	"$PY" - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def key(r):
    return [(c["name"], c["status"], [(f.get("subject"), f["status"]) for f in c["findings"]])
            for c in r["checks"]]
ka, kb = key(a), key(b)
if ka != kb:
    for x, y in zip(ka, kb):
        if x != y:
            print("live:    ", x, "\nrecorded:", y)
    sys.exit(1)
assert a["checks"], "no checks ran"
PY
}

# a lower memlock limit than the test's own, so the snapshot must record its own process
run() { "$@"; }
if command -v prlimit >/dev/null; then
	run() { prlimit --memlock=65536:131072 "$@"; }
fi

# slurmd's limits are not compared: t0712 starts and stops a real slurmd on this machine
# while this test may run, and a slurmd that appears between the two runs is no drift
noslurmd="--set memlock.check_slurmd=false"
# pf under run's limit
pf_run() {
	run "$PREFLIGHT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
pf_run --only memlock,sysctl $noslurmd --format json
[ "$rc" -le 2 ] || not_ok "live run: exit $rc"
cp "$T/out" "$T/live.json"
export NCCL_IB_HCA='=mlx5_0:1' CUDA_VISIBLE_DEVICES=3 PF_T0810_SECRET=x
pf_run snapshot "$T/snap"
unset NCCL_IB_HCA CUDA_VISIBLE_DEVICES PF_T0810_SECRET
expect_rc 0 "snapshot"
grep -q "^preflight snapshot: wrote $T/snap: " "$T/err" || not_ok "no summary line"
pf --root "$T/snap" --only memlock,sysctl $noslurmd --format json
[ "$rc" -le 2 ] || not_ok "recorded run: exit $rc"
cp "$T/out" "$T/rec.json"
same_verdicts "$T/live.json" "$T/rec.json" || not_ok "live and recorded verdicts differ"
if command -v prlimit >/dev/null; then
	grep -Eq '^Max locked memory +65536 +131072 +bytes' "$T/snap/proc/self/limits" ||
		not_ok "the snapshot's limits are not those of the preflight process"
fi

# the process facts: only NCCL_* and CUDA_VISIBLE_DEVICES of the environment, and the uid
grep -qx 'NCCL_IB_HCA==mlx5_0:1' "$T/snap/preflight/env" || not_ok "env: no NCCL_IB_HCA"
grep -qx 'CUDA_VISIBLE_DEVICES=3' "$T/snap/preflight/env" || not_ok "env: no CUDA_VISIBLE_DEVICES"
grep -q 'SECRET\|^PATH=' "$T/snap/preflight/env" && not_ok "env: records other variables"
[ "$(cat "$T/snap/preflight/euid")" = "$(id -u)" ] || not_ok "euid: not $(id -u)"
# a snapshot of a snapshot keeps them, not the second process's
pf_run snapshot --root "$T/snap" "$T/snap2"
expect_rc 0 "snapshot of a snapshot"
cmp -s "$T/snap/preflight/env" "$T/snap2/preflight/env" || not_ok "env not copied from the snapshot"
cmp -s "$T/snap/preflight/euid" "$T/snap2/preflight/euid" || not_ok "euid not copied"

# nccl_config live and from a snapshot taken in the same environment: the same verdicts;
# the job's user (the real uid outside Slurm) and the /dev/infiniband listing are recorded
nccl_env() { env -u SLURM_JOB_UID NCCL_SOCKET_IFNAME==lo NCCL_IB_GID_INDEX=3 "$@"; }
nccl_env "$PREFLIGHT" --only nccl_config --format json >"$T/live-nccl.json"
nccl_env "$PREFLIGHT" snapshot "$T/snapn" 2>"$T/err" ||
	not_ok "snapshot for nccl_config: $(head -c 400 "$T/err")"
pf --root "$T/snapn" --only nccl_config --format json
cp "$T/out" "$T/rec-nccl.json"
same_verdicts "$T/live-nccl.json" "$T/rec-nccl.json" || not_ok "nccl_config: verdicts differ"
# (on a machine without GPUs both runs skip; t0430 judges a snapshot of a GPU node)
grep -qx 'NCCL_SOCKET_IFNAME==lo' "$T/snapn/preflight/env" || not_ok "env: no NCCL_SOCKET_IFNAME"
if [ -z "$(ls /sys/bus/pci/drivers/nvidia 2>/dev/null)" ] &&
	! grep -q '"no NVIDIA GPU' "$T/rec-nccl.json"; then
	not_ok "nccl_config: no GPU here, but not skipped"
fi
grep -qx "uid=$(id -u)" "$T/snapn/preflight/job_user" || not_ok "job_user: not uid $(id -u)"
grep -qx "HOME=$HOME" "$T/snapn/preflight/env" || not_ok "env: no HOME"
[ -f "$T/snapn/preflight/ls/dev/infiniband" ] || not_ok "no /dev/infiniband listing"

# shape: relative links kept, regular files copied, the log, small
[ -f "$T/snap/preflight/snapshot.log" ] || not_ok "no preflight/snapshot.log"
[ -f "$T/snap/proc/sys/kernel/osrelease" ] || not_ok "no osrelease"
if [ -e /sys/class/net/lo ]; then
	[ -L "$T/snap/sys/class/net/lo" ] || not_ok "sys/class/net/lo is not a link"
	[ "$(readlink "$T/snap/sys/class/net/lo")" = "$(readlink /sys/class/net/lo)" ] ||
		not_ok "sys/class/net/lo: another target"
	[ -f "$T/snap/sys/class/net/lo/mtu" ] && [ ! -L "$T/snap/sys/class/net/lo/mtu" ] ||
		not_ok "sys/class/net/lo/mtu not copied as a file"
fi
kib=$(du -sk "$T/snap" | cut -f1)
[ "$kib" -lt 65536 ] || not_ok "snapshot is $kib KiB"

# usage: DIR not empty, no DIR, bad option values
pf snapshot "$T/snap"
expect_rc 64 "non-empty DIR"
for args in "" "--window x $T/w" "--root /nonexistent $T/r" "$T/a $T/b"; do
	# shellcheck disable=SC2086
	pf snapshot $args
	expect_rc 64 "snapshot $args"
done

# a generated 8-GPU RoCE node (tests/gen_root.py), re-snapshotted: every check agrees
# (with NCCL settings in all three places and a missing uverbs device)
if [ -n "${PF_SOURCE_DIR:-}" ] && "$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --link-layer eth \
	--storage-nic --nvswitch 2 --slow-port mlx5_2 --nccl-env 'NCCL_IB_HCA=^mlx5_8' \
	--nccl-conf NCCL_IB_GID_INDEX=3 --user-nccl-conf NCCL_SOCKET_IFNAME=eno1 \
	--uverbs-missing mlx5_3 "$T/gen" >/dev/null 2>&1; then
	pf snapshot --root "$T/gen" "$T/gensnap"
	expect_rc 0 "generated root snapshot"
	pf --root "$T/gen" --all --format json
	cp "$T/out" "$T/gen-a.json"
	pf --root "$T/gensnap" --all --format json
	cp "$T/out" "$T/gen-b.json"
	same_verdicts "$T/gen-a.json" "$T/gen-b.json" || not_ok "generated root: verdicts differ"
	grep -q '"mlx5_2/1"' "$T/gen-b.json" || not_ok "generated root: mlx5_2/1 not judged"
	grep -q '"/dev/infiniband/uverbs3"' "$T/gen-b.json" ||
		not_ok "generated root: the missing uverbs3 not judged"
else
	note "generated-root part not run: tests/gen_root.py did not run"
fi

# a job user's ~/.nccl.conf linked to a setuid-root program (issue 30): copied as a plain
# file of its owner, never with the set-id bits (gpasswd's copy would be a setuid-root file)
if [ -n "${PF_SOURCE_DIR:-}" ] && "$PY" "$PF_SOURCE_DIR/tests/gen_root.py" \
	--user-nccl-conf NCCL_SOCKET_IFNAME=eno1 "$T/suid" >/dev/null 2>&1; then
	mkdir -p "$T/suid/usr/bin" && printf 'NCCL_DEBUG=INFO\n' >"$T/suid/usr/bin/gpasswd" &&
		chmod 06755 "$T/suid/usr/bin/gpasswd" && rm -f "$T/suid/home/u1000/.nccl.conf" &&
		ln -s ../../usr/bin/gpasswd "$T/suid/home/u1000/.nccl.conf" ||
		not_ok "cannot make the set-id link"
	pf snapshot --root "$T/suid" "$T/suidsnap"
	expect_rc 0 "snapshot of a set-id link"
	copy="$T/suidsnap/home/u1000/.nccl.conf"
	[ -f "$copy" ] && [ ! -L "$copy" ] || not_ok "the linked ~/.nccl.conf was not copied as a file"
	[ "$(stat -c %a "$copy" 2>/dev/null)" = 755 ] || not_ok "copy mode $(stat -c %a "$copy")"
	setid=$(find "$T/suidsnap" -type f -perm /7000)
	[ -z "$setid" ] || not_ok "the snapshot holds set-id or sticky files: $setid"
else
	note "set-id part not run: tests/gen_root.py did not run"
fi

# a real capture (hwloc-gather-topology), re-snapshotted: every check agrees
cap=${PF_SHARED_DIR:-}/fixtures/hwloc-linux/40intel64-2g2n4c+pcilocality.tar.bz2
if [ -f "$cap" ] && command -v tar >/dev/null && command -v bzip2 >/dev/null; then
	# cpu, memory-block and cpuset entries are thousands of files no check reads
	mkdir "$T/hw" && tar -xjf "$cap" -C "$T/hw" --exclude='*/sys/devices/system/cpu' \
		--exclude='*/dev' --exclude='*/sys/devices/system/node/node*/memory*' ||
		not_ok "cannot unpack $cap"
	src="$T/hw/40intel64-2g2n4c+pci"
	pf snapshot --root "$src" "$T/hwsnap"
	expect_rc 0 "hwloc snapshot"
	pf --root "$src" --all --format json
	cp "$T/out" "$T/hw-a.json"
	pf --root "$T/hwsnap" --all --format json
	cp "$T/out" "$T/hw-b.json"
	same_verdicts "$T/hw-a.json" "$T/hw-b.json" || not_ok "hwloc capture: verdicts differ"
	grep -Eq '"rate_gbps": *40[,}]?$' "$T/hw-b.json" || not_ok "hwloc snapshot lost qib0's rate"
	[ -L "$T/hwsnap/sys/class/infiniband/qib0" ] || not_ok "qib0 is not a link"
	a=$(du -sk "$src" | cut -f1)
	b=$(du -sk "$T/hwsnap" | cut -f1)
	[ "$b" -lt "$a" ] || not_ok "snapshot ($b KiB) not smaller than the capture ($a KiB)"
else
	note "hwloc capture part not run: $cap not available"
fi

done_testing
