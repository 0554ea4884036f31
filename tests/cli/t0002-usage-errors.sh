#!/bin/sh
# SPDX-License-Identifier: MIT
# Usage and profile errors: exit 64, a message naming the offending word,
# nothing on stdout.
. "$(dirname "$0")/lib.sh"

pass="$PF_FIXTURES/sysctl-pass"

expect_usage "'--bogus'" --bogus
expect_usage "'--list=x'" --list=x
expect_usage "'stray'" --root "$pass" stray
expect_usage "'--root'" --root
expect_usage "'nosuch'" --root "$pass" --only memlock,nosuch
expect_usage "'nosuch'" --root "$pass" --skip nosuch
expect_usage "'nosuch'" --describe nosuch
expect_usage "'yaml'" --root "$pass" --format yaml
# an empty selection would pass every node
expect_usage "no check selected" --root "$pass" --only ''
expect_usage "no check selected" --root "$pass" --only memlock --skip memlock,sysctl

# --set: unknown check, unknown key, bad value type, out of range, bad syntax
expect_usage "'nocheck'" --root "$pass" --set nocheck.min_kib=1
expect_usage "'nokey'" --root "$pass" --set memlock.nokey=1
expect_usage "'lots'" --root "$pass" --set memlock.min_kib=lots
expect_usage "'maybe'" --root "$pass" --set memlock.check_slurmd=maybe
expect_usage "'9'" --root "$pass" --set sysctl.arp_ignore=9
expect_usage "'memlock'" --root "$pass" --set memlock

# --timeout: whole seconds, 1..86400
for t in 0 -1 1.5 abc 86401 ""; do
	expect_usage "--timeout: '$t'" --root "$pass" --timeout "$t"
done

# --root that cannot be read
expect_usage "$T/nope" --root "$T/nope"
echo x >"$T/file"
expect_usage "$T/file" --root "$T/file"

# profiles: unreadable, broken JSON, unknown top-level key, unknown check,
# unknown key, wrong type, out of bounds
expect_usage "$T/missing.json" --root "$pass" --profile "$T/missing.json"
expect_usage "$T" --root "$pass" --profile "$T"
printf '{ "checks": { "memlock": { "min_kib": } } }' >"$T/broken.json"
expect_usage "$T/broken.json" --root "$pass" --profile "$T/broken.json"
printf '{ "chekcs": {} }' >"$T/topkey.json"
expect_usage "'chekcs'" --root "$pass" --profile "$T/topkey.json"
printf '{ "checks": { "memlok": {} } }' >"$T/check.json"
expect_usage "'memlok'" --root "$pass" --profile "$T/check.json"
grep -qF "$T/check.json" "$T/err" || not_ok "unknown check: file not named"
printf '{ "checks": { "memlock": { "min_kb": 1 } } }' >"$T/key.json"
expect_usage "'min_kb'" --root "$pass" --profile "$T/key.json"
printf '{ "checks": { "memlock": { "min_kib": "lots" } } }' >"$T/type.json"
expect_usage "checks.memlock.min_kib" --root "$pass" --profile "$T/type.json"
expect_err "must be an unsigned integer"
printf '{ "checks": { "sysctl": { "arp_announce": 3 } } }' >"$T/bounds.json"
expect_usage "checks.sysctl.arp_announce" --root "$pass" --profile "$T/bounds.json"
expect_err "out of range"

done_testing
