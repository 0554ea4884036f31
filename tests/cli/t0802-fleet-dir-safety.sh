#!/bin/sh
# SPDX-License-Identifier: MIT
# t0802-fleet-dir-safety.sh - `preflight fleet DIR` on a directory other
# users write (issue 30 item 10, docs/fleet.md "Reading a directory as
# root"): a symlink in DIR to a root-only file is skipped with a reason and
# its content never reaches the output; a report whose schema is hostile is
# rejected as "unknown schema" without echoing it; as root, a file owned by
# neither root nor the directory's owner, or with a second hard link, is
# refused.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"
fx=$PF_FIXTURES/fleet

d=$T/spool
mkdir "$d" "$T/private"
cp "$fx/node-a.json" "$d/node-a.json"
# a root-only file a user cannot read: a report, so a reader that followed the link would show it
sed 's/"hostname": *"[^"]*"/"hostname": "SECRET-HOST-7731"/' "$fx/node-b.json" >"$T/private/secret.json"
chmod 0600 "$T/private/secret.json"
ln -s ../private/secret.json "$d/secret.json"
grep -q SECRET-HOST-7731 "$T/private/secret.json" || bail_out "fixture has no hostname to replace"

for fmt in text json csv; do
	pf fleet --format "$fmt" "$d"
	expect_rc 0 "fleet --format $fmt beside a symlink"
	expect_err "skipping '$d/secret.json': a symbolic link: not followed"
	cat "$T/out" "$T/err" | grep -q SECRET-HOST-7731 &&
		not_ok "$fmt: the link's target reached the output" || ok "$fmt: the link's target never shown"
done
# --recursive does not follow it either, at any depth
mkdir "$d/sub"
ln -s ../../private/secret.json "$d/sub/deep.json"
pf fleet --recursive "$d"
expect_err "skipping '$d/sub/deep.json': a symbolic link: not followed"
cat "$T/out" "$T/err" | grep -q SECRET-HOST-7731 && not_ok "deep link followed" ||
	ok "deep link not followed"
rm -r "$d/sub" "$d/secret.json"

# a hostile schema: rejected by name, its value (an OSC 52 clipboard write) never echoed
printf '{"schema": "\\u001b]52;c;SE9TVElMRQ==\\u0007HOSTILE-SCHEMA-42", "checks": []}\n' >"$d/bad.json"
for fmt in text json; do
	pf fleet --format "$fmt" "$d"
	expect_rc 0 "fleet --format $fmt beside a hostile schema"
	expect_err "skipping '$d/bad.json': not a preflight.report/v1 report (unknown schema)"
	cat "$T/out" "$T/err" | grep -q -e HOSTILE-SCHEMA -e SE9TVElMRQ &&
		not_ok "$fmt: the schema value was echoed" || ok "$fmt: the schema value never echoed"
	has_esc "$T/err" && not_ok "$fmt: an escape reached stderr"
done
rm "$d/bad.json"

# the ownership rule, as root only
if [ "$(id -u)" -ne 0 ]; then
	note "not root: the ownership rule is root's only, not tested"
	done_testing
fi
cp "$fx/node-b.json" "$d/node-b.json"
chown 65534 "$d/node-b.json"
pf fleet "$d"
expect_rc 0 "fleet as root beside another user's file"
expect_err "skipping '$d/node-b.json': owned by uid 65534, neither root nor the directory's owner (uid 0): not read as root"
# the directory's owner's own files are read
chown 65534 "$d"
pf fleet "$d"
expect_rc 0 "fleet as root in a directory of uid 65534"
grep -q 'skipping' "$T/err" && not_ok "the directory owner's file refused: $(cat "$T/err")" ||
	ok "the directory owner's file read"
chown 0 "$d" "$d/node-b.json"
# a second name of a file: a hard link may be to a file its planter cannot read
ln "$d/node-b.json" "$T/private/b-link.json"
pf fleet "$d"
expect_err "skipping '$d/node-b.json': has 2 hard links: not read as root"
done_testing
