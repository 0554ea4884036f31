#!/bin/sh
# SPDX-License-Identifier: MIT
# Output robustness: a full device, an unwritable directory, a closed stdout
# or stderr, a FIFO, a full filesystem.  Each gives a clear message and exit
# 74 (or the verdict where the report did get written), and never a
# half-written report file or a replaced device node.
. "$(dirname "$0")/lib.sh"

readable_copy sysctl-pass # nobody runs it too
run() { "$PREFLIGHT" --root "$root" --only memlock,sysctl "$@"; }
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
is_root=false
[ "$(id -u)" -eq 0 ] && is_root=true

# stdout onto a full device
run >/dev/full 2>"$T/err"
rc=$?
expect_rc 74 "stdout on /dev/full"
expect_err "No space left on device"

# --output onto a full device: written in place, the node is not replaced
# (as root the rename of a temp file over it would succeed); a private node
# when we may make one, so that a regression cannot replace /dev/full
full=/dev/full
if $is_root && mknod "$T/full" c 1 7 2>/dev/null && ! echo x 2>/dev/null >"$T/full"; then
	full="$T/full"
fi
pf --root "$root" --only memlock,sysctl --output "$full"
expect_rc 74 "--output $full"
expect_err "cannot write '$full': No space left on device"
[ -c "$full" ] && ok "$full is still a device" || not_ok "$full was replaced: $(ls -l "$full")"
[ -z "$(ls -A "$(dirname "$full")" | grep '^\.full\.')" ] || not_ok "temp file left beside $full"

# --output into a directory nobody may write (as root: run as nobody)
mkdir "$T/ro"
echo "old report" >"$T/ro/report.json"
chmod 555 "$T/ro"
chmod 755 "$T"
if $is_root; then
	nobody "$PREFLIGHT" --root "$root" --only memlock,sysctl --output "$T/ro/report.json" \
		>"$T/out" 2>"$T/err"
	rc=$?
else
	pf --root "$root" --only memlock,sysctl --output "$T/ro/report.json"
fi
expect_rc 74 "--output into an unwritable directory"
expect_err "cannot write '$T/ro/report.json'"
[ "$(cat "$T/ro/report.json")" = "old report" ] && ok "the old report is untouched" ||
	not_ok "the old report changed"
[ "$(ls -A "$T/ro")" = report.json ] || not_ok "left behind: $(ls -A "$T/ro")"
chmod 755 "$T/ro"

# a closed stdout: nothing to write the report to
run >&- 2>"$T/err"
rc=$?
expect_rc 74 "closed stdout"
expect_err "stdout is closed"
# ... but with --output the report is written, and the checks are not
# disturbed by fd 1 being reused (the root fd or a check's pipe used to land there)
run --output "$T/closed.json" >&- 2>"$T/err"
rc=$?
expect_rc 0 "closed stdout with --output"
json_ok "$T/closed.json" && ok "report written" || not_ok "no report with a closed stdout"
run --list >&- 2>"$T/err"
rc=$?
expect_rc 74 "--list with a closed stdout"

# closed stderr and stdin: the report is still complete
run 2>&- <&- >"$T/out"
rc=$?
expect_rc 0 "closed stderr and stdin"
json_ok "$T/out" && ok "report with a closed stderr" || not_ok "bad report with a closed stderr"

# --output through a symlink to /proc/self/fd/1 (as /dev/stdout is): in place
ln -s /proc/self/fd/1 "$T/stdout"
pf --root "$root" --only memlock,sysctl --output "$T/stdout"
expect_rc 0 "--output onto a /dev/stdout-like link"
json_ok "$T/out" && ok "report on stdout" || not_ok "no report through the link"
[ -L "$T/stdout" ] && ok "the link is still a link" || not_ok "the link was replaced"

# --output into a FIFO
mkfifo "$T/fifo"
cat "$T/fifo" >"$T/fifo.out" &
reader=$!
pf --root "$root" --only memlock,sysctl --output "$T/fifo"
# a preflight that never opened the FIFO leaves the reader in open(): let it go
kill -0 "$reader" 2>/dev/null && timeout 5 sh -c ': > "$1"' _ "$T/fifo"
wait "$reader"
expect_rc 0 "--output into a FIFO"
json_ok "$T/fifo.out" && ok "report through the FIFO" || not_ok "no report through the FIFO"
[ -p "$T/fifo" ] || not_ok "the FIFO was replaced"

# a full filesystem: the old report stays whole, no temp file is left
if $is_root && command -v unshare >/dev/null 2>&1; then
	mkdir "$T/small"
	unshare -m sh -c '
		mount -t tmpfs -o size=12k tmpfs "$1/small" || exit 77
		echo "old report" >"$1/small/report.json"
		head -c 8192 /dev/zero >"$1/small/fill" 2>/dev/null
		"$2" --root "$3" --only memlock,sysctl --output "$1/small/report.json" 2>"$1/err"
		echo $? >"$1/rc"
		cat "$1/small/report.json" >"$1/kept"
		ls -A "$1/small" >"$1/ls"
	' sh "$T" "$PREFLIGHT" "$root"
	if [ -s "$T/rc" ]; then
		rc=$(cat "$T/rc")
		expect_rc 74 "--output on a full filesystem"
		expect_err "No space left on device"
		[ "$(cat "$T/kept")" = "old report" ] && ok "old report whole on a full filesystem" ||
			not_ok "report file half-written: $(head -c 80 "$T/kept")"
		[ "$(cat "$T/ls")" = "$(printf 'fill\nreport.json')" ] ||
			not_ok "left behind on the full filesystem: $(cat "$T/ls")"
	else
		note "cannot mount a small tmpfs here: full filesystem not checked"
	fi
fi

done_testing
