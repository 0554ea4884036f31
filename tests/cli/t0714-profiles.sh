#!/bin/sh
# SPDX-License-Identifier: MIT
# Every shipped profile in profiles/ loads: each check and key exists in the
# checks' parameter tables and each value has the right type and range (a
# bad one is exit 64), and the profile's name is its file name.
set -eu
: "${PREFLIGHT:?}" "${PF_FIXTURES:?}" "${PF_SOURCE_DIR:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

n=0
for f in "$PF_SOURCE_DIR"/profiles/*.json; do
	name=$(basename "$f" .json)
	rc=0
	"$PREFLIGHT" --profile "$f" --root "$PF_FIXTURES/slurm-pass" --only memlock --format json \
		> "$tmp/out" 2> "$tmp/err" || rc=$?
	[ "$rc" -eq 0 ] || fail "$name: exit $rc: $(cat "$tmp/err")"
	grep -q "\"profile\":[[:space:]]*\"$name\"" "$tmp/out" || fail "$name: report names another profile"
	n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "only $n profiles in profiles/"

# the same loading rejects a key that does not exist
sed 's/"min_kib": 0/"min_kib": 0, "no_such_key": 1/' "$PF_SOURCE_DIR/profiles/dgx-h100.json" > "$tmp/bad.json"
rc=0
"$PREFLIGHT" --profile "$tmp/bad.json" --root "$PF_FIXTURES/slurm-pass" --only memlock \
	> /dev/null 2> "$tmp/err" || rc=$?
[ "$rc" -eq 64 ] || fail "a profile with an unknown key gave exit $rc, expected 64"
grep -q no_such_key "$tmp/err" || fail "the error does not name the key: $(cat "$tmp/err")"
echo "ok: $n profiles"
