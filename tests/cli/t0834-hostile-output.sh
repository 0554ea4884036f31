#!/bin/sh
# SPDX-License-Identifier: MIT
# Root writes only where no other user can steer it (src/core/output.h,
# docs/hardening.md "Writing as root"): an unprivileged user (nobody) plants
# directories, links and FIFOs in a sticky world-writable directory like /tmp
# and tries to make root's --output, fleet --output, diff --output and
# snapshot DIR write elsewhere or hang; a swapping helper races the final
# name with renameat2(RENAME_EXCHANGE).  Ordinary use keeps working.
. "$(dirname "$0")/lib.sh"
need_python
[ "$(id -u)" -eq 0 ] || skip_all "needs root (the attacker is uid 65534)"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv not found"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

readable_copy sysctl-pass # nobody runs it too
run() { pf --root "$root" --only memlock,sysctl "$@"; }
chmod 755 "$T"
mkdir -m 1777 "$T/tmp"
echo secret >"$T/victim"
chmod 600 "$T/victim"
victim_ok() { [ "$(cat "$T/victim")" = secret ] && [ ! -L "$T/victim" ]; }

# 1. a directory of hers (not sticky) below /tmp with a link at the report's name
nobody mkdir "$T/tmp/pfdir"
nobody ln -s "$T/victim" "$T/tmp/pfdir/node.json"
run --output "$T/tmp/pfdir/node.json"
expect_rc 74 "--output into another user's directory"
expect_err "'$T/tmp/pfdir' is owned by uid 65534"
victim_ok && ok "the link's target is untouched" || not_ok "victim written: $(cat "$T/victim")"
run --output "$T/tmp/pfdir/sub/r.json"
expect_rc 74 "--output below another user's directory"
[ -e "$T/tmp/pfdir/sub" ] && not_ok "created a directory in another user's directory"
# the same through fleet and diff
run --output "$T/a.json"
pf fleet --output "$T/tmp/pfdir/node.json" "$T/a.json"
expect_rc 74 "fleet --output into another user's directory"
expect_err "owned by uid 65534"
pf diff --output "$T/tmp/pfdir/node.json" "$T/a.json" "$T/a.json"
expect_rc 74 "diff --output into another user's directory"
expect_err "owned by uid 65534"
victim_ok || not_ok "victim written by fleet or diff"

# 2. a directory anyone may write (not sticky), even root's own
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
run --output "$T/open/r.json"
expect_rc 74 "--output into a world-writable, non-sticky directory"
expect_err "mode 0777) is writable by other users and not sticky"
chmod 0775 "$T/open"
run --output "$T/open/r.json"
expect_rc 74 "root: --output into a group-writable directory"
expect_err "mode 0775) is writable by other users and not sticky"

# 3. her FIFO at the report's name: refused at once, no hang, not replaced
nobody mkfifo "$T/tmp/r.json"
timeout 20 "$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/tmp/r.json" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 74 "--output onto another user's FIFO"
expect_err "is a FIFO owned by uid 65534"
[ -p "$T/tmp/r.json" ] || not_ok "the FIFO was replaced"
rm -f "$T/tmp/r.json"

# 4. snapshot DIR: an empty directory of hers is refused; nothing is written in it
nobody mkdir "$T/tmp/snap"
pf snapshot --root "$root" "$T/tmp/snap"
[ "$rc" -ne 0 ] && ok "snapshot into another user's directory refused: exit $rc" ||
	not_ok "snapshot wrote into another user's directory"
expect_err "'$T/tmp/snap' is owned by uid 65534"
[ -z "$(ls -A "$T/tmp/snap")" ] || not_ok "snapshot wrote: $(ls -A "$T/tmp/snap")"

# 5. the race: she swaps a regular file and a link to the victim at the final name
rm -f "$T/victim"
echo secret >"$T/victim"
# in a directory of hers (in /tmp itself root's first rename makes the name root's, which
# the sticky bit then keeps from her)
nobody mkdir "$T/tmp/race"
nobody touch "$T/tmp/race/r.json"
nobody ln -s "$T/victim" "$T/tmp/race/r.lnk"
nobody "$PY" - "$T/tmp/race/r.json" "$T/tmp/race/r.lnk" "$T/tmp/stop" "$T/victim" <<'PY' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop, victim = sys.argv[1:5]
for n in range(20_000_000):
    libc.renameat2(-100, a.encode(), -100, b.encode(), 2)  # AT_FDCWD, RENAME_EXCHANGE
    if n % 64 == 0:
        if os.path.exists(stop):
            break
        if not os.path.islink(a) and not os.path.islink(b):
            os.unlink(b)  # root's rename replaced the link: plant it again
            os.symlink(victim, b)
PY
swapper=$!
i=0
while [ $i -lt 1000 ] && victim_ok; do
	"$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/tmp/race/r.json" \
		>/dev/null 2>&1
	i=$((i + 1))
done
nobody touch "$T/tmp/stop"
wait "$swapper"
victim_ok && ok "$i runs against the swapping helper: the victim is untouched" ||
	not_ok "the race won after $i runs: the victim was replaced"
[ -z "$(ls -A "$T/tmp/race" | grep '^\.r')" ] || not_ok "temporary files left in the race"

# 6. her renames elsewhere (in her own directory) do not change what root reads under
# --root: openat2(RESOLVE_IN_ROOT) answers EAGAIN to a ".." raced by any rename on the
# system, which made every file reached through a recorded root's "../" links an error
gen_root "$T/gen" --gpus 2 --nics 2
chmod -R go+rX "$T/gen"
"$PREFLIGHT" --root "$T/gen" --format json >"$T/quiet.json" 2>/dev/null
nobody "$PY" - "$T/tmp/race/r.json" "$T/tmp/race/r.lnk" "$T/tmp/stop2" <<'PY' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop = (s.encode() for s in sys.argv[1:4])
for n in range(50_000_000):
    libc.renameat2(-100, a, -100, b, 2)  # AT_FDCWD, RENAME_EXCHANGE
    if n % 1000 == 0 and os.path.exists(stop):
        break
PY
swapper=$!
same=0
for i in 1 2 3 4 5; do
	"$PREFLIGHT" --root "$T/gen" --format json >"$T/busy.json" 2>/dev/null
	"$PY" - "$T/quiet.json" "$T/busy.json" <<'PY' && same=$((same + 1))
import json, sys
q, b = (json.load(open(p)) for p in sys.argv[1:3])
st = lambda r: {c["name"]: c["status"] for c in r["checks"]}
sys.exit(0 if st(q) == st(b) else print("differs:", {k: (v, st(b).get(k)) for k, v in st(q).items() if st(b).get(k) != v}) or 1)
PY
done
nobody touch "$T/tmp/stop2"
wait "$swapper"
[ "$same" -eq 5 ] && ok "renames elsewhere leave --root verdicts as they are" ||
	not_ok "renames elsewhere changed --root verdicts in $((5 - same)) of 5 runs"

# root's own FIFO that nobody reads: a clear error after the deadline, never a hang
mkfifo "$T/unread"
timeout 30 "$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/unread" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 74 "--output onto a FIFO nobody reads"
expect_err "nothing read the FIFO within 10 s"

# ordinary use: a report in /tmp itself, its own link, stdout, a user on her own files
run --output "$T/tmp/report.json"
expect_rc 0 "--output into a sticky world-writable directory"
json_ok "$T/tmp/report.json" || not_ok "no report in the sticky directory"
ln -s "$T/own.json" "$T/tmp/own.json"
run --output "$T/tmp/own.json"
expect_rc 0 "--output through root's own link in /tmp"
json_ok "$T/own.json" && [ -L "$T/tmp/own.json" ] || not_ok "root's own link not followed"
run --output /dev/stdout
expect_rc 0 "--output /dev/stdout"
json_ok "$T/out" || not_ok "no report on /dev/stdout"
run --output -
expect_rc 0 "--output -"
json_ok "$T/out" || not_ok "no report with --output -"
nobody mkdir "$T/tmp/mine"
nobody "$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/tmp/mine/d/r.json" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a user writing into her own directory"
json_ok "$T/tmp/mine/d/r.json" || not_ok "no report in her own directory"
nobody mkdir -m 0775 "$T/tmp/mine/grp"
nobody "$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/tmp/mine/grp/r.json" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a user writing into her own directory that her own group may write"
mkdir -p "$T/var/lib"
run --output "$T/var/lib/preflight/prolog.json"
expect_rc 0 "a root-owned /var/lib/preflight, created"
[ "$(stat -c '%U %a' "$T/var/lib/preflight")" = "root 755" ] ||
	not_ok "created directory: $(stat -c '%U %a' "$T/var/lib/preflight")"

done_testing
