#!/bin/sh
# SPDX-License-Identifier: MIT
# t0810-snapshot.sh - `preflight snapshot DIR` then `preflight --root DIR` gives
# the live verdicts: memlock and sysctl on this machine (status, and each
# finding's subject and status), with the snapshot run under a lowered memlock
# limit that must be the one recorded.  Also: links stay links, the log exists,
# the snapshot is small, usage errors; a generated 8-GPU RoCE node and (when
# ../shared is present) a real hwloc-gather-topology capture, re-snapshotted with
# --root, give the same verdicts for every check.
set -u
: "${PREFLIGHT:?}"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
tmp=$(mktemp -d /tmp/pf-t0810.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
not_ok() { echo "not ok: $*"; fails=$((fails + 1)); }

# same_verdicts A.json B.json: every check's status and findings (subject, status) agree
same_verdicts() {
	python3 - "$1" "$2" <<'PY'
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
run "$PREFLIGHT" --only memlock,sysctl $noslurmd --format json >"$tmp/live.json"
rc=$?
[ "$rc" -le 2 ] || not_ok "live run: exit $rc"
NCCL_IB_HCA='=mlx5_0:1' CUDA_VISIBLE_DEVICES=3 PF_T0810_SECRET=x \
	run "$PREFLIGHT" snapshot "$tmp/snap" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || not_ok "snapshot: exit $rc: $(cat "$tmp/err")"
grep -q "^preflight snapshot: wrote $tmp/snap: " "$tmp/err" || not_ok "no summary line"
"$PREFLIGHT" --root "$tmp/snap" --only memlock,sysctl $noslurmd --format json >"$tmp/rec.json"
rc=$?
[ "$rc" -le 2 ] || not_ok "recorded run: exit $rc"
same_verdicts "$tmp/live.json" "$tmp/rec.json" || not_ok "live and recorded verdicts differ"
if command -v prlimit >/dev/null; then
	grep -Eq '^Max locked memory +65536 +131072 +bytes' "$tmp/snap/proc/self/limits" ||
		not_ok "the snapshot's limits are not those of the preflight process"
fi

# the process facts: only NCCL_* and CUDA_VISIBLE_DEVICES of the environment, and the uid
grep -qx 'NCCL_IB_HCA==mlx5_0:1' "$tmp/snap/preflight/env" || not_ok "env: no NCCL_IB_HCA"
grep -qx 'CUDA_VISIBLE_DEVICES=3' "$tmp/snap/preflight/env" || not_ok "env: no CUDA_VISIBLE_DEVICES"
grep -q 'SECRET\|^PATH=' "$tmp/snap/preflight/env" && not_ok "env: records other variables"
[ "$(cat "$tmp/snap/preflight/euid")" = "$(id -u)" ] || not_ok "euid: not $(id -u)"
# a snapshot of a snapshot keeps them, not the second process's
run "$PREFLIGHT" snapshot --root "$tmp/snap" "$tmp/snap2" 2>/dev/null || not_ok "snapshot of a snapshot"
cmp -s "$tmp/snap/preflight/env" "$tmp/snap2/preflight/env" || not_ok "env not copied from the snapshot"
cmp -s "$tmp/snap/preflight/euid" "$tmp/snap2/preflight/euid" || not_ok "euid not copied"

# nccl_config live and from a snapshot taken in the same environment: the same verdicts;
# the job's user (the real uid outside Slurm) and the /dev/infiniband listing are recorded
nccl_env() { env -u SLURM_JOB_UID NCCL_SOCKET_IFNAME==lo NCCL_IB_GID_INDEX=3 "$@"; }
nccl_env "$PREFLIGHT" --only nccl_config --format json >"$tmp/live-nccl.json"
nccl_env "$PREFLIGHT" snapshot "$tmp/snapn" 2>/dev/null || not_ok "snapshot for nccl_config"
"$PREFLIGHT" --root "$tmp/snapn" --only nccl_config --format json >"$tmp/rec-nccl.json"
same_verdicts "$tmp/live-nccl.json" "$tmp/rec-nccl.json" || not_ok "nccl_config: verdicts differ"
grep -q '"NCCL_SOCKET_IFNAME"' "$tmp/rec-nccl.json" || not_ok "nccl_config: the recorded environment was not judged"
grep -qx "uid=$(id -u)" "$tmp/snapn/preflight/job_user" || not_ok "job_user: not uid $(id -u)"
grep -qx "HOME=$HOME" "$tmp/snapn/preflight/env" || not_ok "env: no HOME"
[ -f "$tmp/snapn/preflight/ls/dev/infiniband" ] || not_ok "no /dev/infiniband listing"

# shape: relative links kept, regular files copied, the log, small
[ -f "$tmp/snap/preflight/snapshot.log" ] || not_ok "no preflight/snapshot.log"
[ -f "$tmp/snap/proc/sys/kernel/osrelease" ] || not_ok "no osrelease"
if [ -e /sys/class/net/lo ]; then
	[ -L "$tmp/snap/sys/class/net/lo" ] || not_ok "sys/class/net/lo is not a link"
	[ "$(readlink "$tmp/snap/sys/class/net/lo")" = "$(readlink /sys/class/net/lo)" ] ||
		not_ok "sys/class/net/lo: another target"
	[ -f "$tmp/snap/sys/class/net/lo/mtu" ] && [ ! -L "$tmp/snap/sys/class/net/lo/mtu" ] ||
		not_ok "sys/class/net/lo/mtu not copied as a file"
fi
kib=$(du -sk "$tmp/snap" | cut -f1)
[ "$kib" -lt 65536 ] || not_ok "snapshot is $kib KiB"

# usage: DIR not empty, no DIR, bad option values
"$PREFLIGHT" snapshot "$tmp/snap" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 64 ] || not_ok "non-empty DIR: exit $rc, expected 64"
for args in "" "--window x $tmp/w" "--root /nonexistent $tmp/r" "$tmp/a $tmp/b"; do
	# shellcheck disable=SC2086
	"$PREFLIGHT" snapshot $args >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq 64 ] || not_ok "snapshot $args: exit $rc, expected 64"
done

# a generated 8-GPU RoCE node (tests/gen_root.py), re-snapshotted: every check agrees
# (with NCCL settings in all three places and a missing uverbs device)
if [ -n "${PF_SOURCE_DIR:-}" ] && python3 "$PF_SOURCE_DIR/tests/gen_root.py" --link-layer eth \
	--storage-nic --nvswitch 2 --slow-port mlx5_2 --nccl-env 'NCCL_IB_HCA=^mlx5_8' \
	--nccl-conf NCCL_IB_GID_INDEX=3 --user-nccl-conf NCCL_SOCKET_IFNAME=eno1 \
	--uverbs-missing mlx5_3 "$tmp/gen" >/dev/null 2>&1; then
	"$PREFLIGHT" snapshot --root "$tmp/gen" "$tmp/gensnap" 2>"$tmp/err" ||
		not_ok "generated root snapshot: $(cat "$tmp/err")"
	"$PREFLIGHT" --root "$tmp/gen" --all --format json >"$tmp/gen-a.json"
	"$PREFLIGHT" --root "$tmp/gensnap" --all --format json >"$tmp/gen-b.json"
	same_verdicts "$tmp/gen-a.json" "$tmp/gen-b.json" || not_ok "generated root: verdicts differ"
	grep -q '"mlx5_2/1"' "$tmp/gen-b.json" || not_ok "generated root: mlx5_2/1 not judged"
	grep -q '"/dev/infiniband/uverbs3"' "$tmp/gen-b.json" ||
		not_ok "generated root: the missing uverbs3 not judged"
else
	echo "# generated-root part skipped: tests/gen_root.py did not run"
fi

# a real capture (hwloc-gather-topology), re-snapshotted: every check agrees
cap=${PF_SHARED_DIR:-}/fixtures/hwloc-linux/40intel64-2g2n4c+pcilocality.tar.bz2
if [ -f "$cap" ] && command -v tar >/dev/null && command -v bzip2 >/dev/null; then
	# cpu, memory-block and cpuset entries are thousands of files no check reads
	mkdir "$tmp/hw" && tar -xjf "$cap" -C "$tmp/hw" --exclude='*/sys/devices/system/cpu' \
		--exclude='*/dev' --exclude='*/sys/devices/system/node/node*/memory*' ||
		not_ok "cannot unpack $cap"
	src="$tmp/hw/40intel64-2g2n4c+pci"
	"$PREFLIGHT" snapshot --root "$src" "$tmp/hwsnap" 2>"$tmp/err" || not_ok "hwloc snapshot: $(cat "$tmp/err")"
	"$PREFLIGHT" --root "$src" --all --format json >"$tmp/hw-a.json"
	"$PREFLIGHT" --root "$tmp/hwsnap" --all --format json >"$tmp/hw-b.json"
	same_verdicts "$tmp/hw-a.json" "$tmp/hw-b.json" || not_ok "hwloc capture: verdicts differ"
	grep -Eq '"rate_gbps": *40[,}]?$' "$tmp/hw-b.json" || not_ok "hwloc snapshot lost qib0's rate"
	[ -L "$tmp/hwsnap/sys/class/infiniband/qib0" ] || not_ok "qib0 is not a link"
	a=$(du -sk "$src" | cut -f1)
	b=$(du -sk "$tmp/hwsnap" | cut -f1)
	[ "$b" -lt "$a" ] || not_ok "snapshot ($b KiB) not smaller than the capture ($a KiB)"
else
	echo "# hwloc capture part skipped: $cap not available"
fi

[ "$fails" -eq 0 ] || exit 1
echo "ok"
