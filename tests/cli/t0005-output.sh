#!/bin/sh
# SPDX-License-Identifier: MIT
# --output FILE: written atomically (temp file + rename), stdout left empty,
# no temporary files left behind, and no file at all when it cannot be written.
. "$(dirname "$0")/lib.sh"

fail_root="$PF_FIXTURES/sysctl-fail"
mkdir "$T/out.d"

pf --root "$fail_root" --only memlock,sysctl --output "$T/out.d/report.json"
expect_rc 1 "--output keeps the verdict's exit status"
[ -s "$T/out" ] && not_ok "--output: stdout not empty"
json_ok "$T/out.d/report.json" && ok "--output: valid JSON (json is the default for files)" ||
	not_ok "--output: invalid JSON"
[ "$(ls -A "$T/out.d")" = report.json ] && ok "no temporary files left" ||
	not_ok "left behind: $(ls -A "$T/out.d")"
[ "$(tail -c 2 "$T/out.d/report.json" | od -An -c | tr -d ' ')" = '}\n' ] ||
	not_ok "--output: report does not end with }\\n"

# replacing an existing report: the old content is gone, mode 0644
echo "old report" >"$T/out.d/report.json"
pf --root "$PF_FIXTURES/sysctl-pass" --only memlock,sysctl --output "$T/out.d/report.json"
expect_rc 0 "--output over an existing file"
json_ok "$T/out.d/report.json" && ok "replaced" || not_ok "old content survived"
[ "$(stat -c %a "$T/out.d/report.json")" = 644 ] || not_ok "mode $(stat -c %a "$T/out.d/report.json")"
[ "$(ls -A "$T/out.d")" = report.json ] || not_ok "left behind: $(ls -A "$T/out.d")"

# text into a file: no colour
pf --root "$fail_root" --only memlock,sysctl --format text --output "$T/out.d/report.txt"
expect_rc 1 "--format text --output"
has_esc "$T/out.d/report.txt" && not_ok "escape codes in a text file"
grep -q '^verdict: FAIL' "$T/out.d/report.txt" || not_ok "text file has no verdict"

# directories that do not exist are created 0755 whatever the umask (a fresh node has no
# /var/lib/preflight: the documented Prolog would exit 74 and drain it)
(umask 077; "$PREFLIGHT" --root "$fail_root" --only memlock,sysctl \
	--output "$T/nodir/a/report.json" > "$T/out" 2> "$T/err") && rc=0 || rc=$?
expect_rc 1 "missing directories"
[ "$(stat -c %a "$T/nodir") $(stat -c %a "$T/nodir/a")" = "755 755" ] &&
	ok "created 0755 under umask 077" || not_ok "modes: $(stat -c %a "$T/nodir" "$T/nodir/a")"
json_ok "$T/nodir/a/report.json" || not_ok "no report in the created directory"
# another user's symlink in a sticky world-writable directory is not followed (root only:
# the link must belong to someone else), one owned by the caller is
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 1777 "$T/sticky" "$T/target"
	ln -s "$T/target" "$T/sticky/planted"
	chown -h nobody "$T/sticky/planted"
	pf --root "$fail_root" --only memlock,sysctl --output "$T/sticky/planted/d/report.json"
	expect_rc 74 "another user's symlink on the way"
	expect_err "symlink owned by uid"
	[ -e "$T/target/d" ] && not_ok "created a directory through another user's symlink"
	chown -h root "$T/sticky/planted"
	pf --root "$fail_root" --only memlock,sysctl --output "$T/sticky/planted/d/report.json"
	expect_rc 1 "the caller's own symlink on the way"
	[ -f "$T/target/d/report.json" ] || not_ok "no report through the caller's own symlink"

	# the report file itself: /tmp/r.json -> /etc/shadow planted by another user
	# is refused (preflight resolves the last link itself, so the kernel's
	# protected_symlinks never judged it); the caller's own link is followed
	echo "secret" >"$T/victim"
	ln -s "$T/victim" "$T/sticky/r.json"
	chown -h nobody "$T/sticky/r.json"
	pf --root "$fail_root" --only memlock,sysctl --output "$T/sticky/r.json"
	expect_rc 74 "another user's symlink as --output"
	expect_err "symlink owned by uid"
	[ "$(cat "$T/victim")" = secret ] && ok "the link's target is untouched" ||
		not_ok "the link's target was replaced"
	[ -L "$T/sticky/r.json" ] || not_ok "the planted link was replaced"
	[ -z "$(ls -A "$T/sticky" | grep '^\.r\.json')" ] || not_ok "a temporary file left behind"
	# fleet and diff write through the same rule
	pf fleet --output "$T/sticky/r.json" "$PF_FIXTURES/fleet"
	[ "$rc" -ne 0 ] && [ "$(cat "$T/victim")" = secret ] && ok "fleet --output refuses it" ||
		not_ok "fleet --output: exit $rc, victim $(cat "$T/victim")"
	# snapshot DIR: another user's link to a directory is refused too
	mkdir -m 0777 "$T/victimdir"
	ln -s "$T/victimdir" "$T/sticky/snap"
	chown -h nobody "$T/sticky/snap"
	pf snapshot --root "$fail_root" "$T/sticky/snap"
	[ "$rc" -ne 0 ] && ok "snapshot into another user's link refused: exit $rc" ||
		not_ok "snapshot followed another user's link"
	[ -z "$(ls -A "$T/victimdir")" ] || not_ok "snapshot wrote through the link"
	# the caller's own link: followed, target replaced, link kept
	chown -h root "$T/sticky/r.json"
	pf --root "$fail_root" --only memlock,sysctl --output "$T/sticky/r.json"
	expect_rc 1 "the caller's own symlink as --output"
	[ -L "$T/sticky/r.json" ] && json_ok "$T/victim" && ok "own link kept, target replaced" ||
		not_ok "own link: $(ls -l "$T/sticky/r.json")"
fi
pf --root "$fail_root" --only memlock,sysctl --output "$T/out.d/report.txt/x.json"
[ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && ok "below a file: exit $rc" || not_ok "below a file: exit $rc"
[ "$(ls -A "$T/out.d" | sort | tr '\n' ' ')" = "report.json report.txt " ] ||
	not_ok "left behind: $(ls -A "$T/out.d")"

# /dev/full as stdout: the write error is reported, not a silent success
if [ -w /dev/full ]; then
	"$PREFLIGHT" --root "$PF_FIXTURES/sysctl-pass" --only memlock,sysctl >/dev/full 2>"$T/err"
	rc=$?
	[ "$rc" -ne 0 ] && ok "stdout full: exit $rc" || not_ok "stdout full: exit 0"
fi

done_testing
