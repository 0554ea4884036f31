#!/bin/sh
# SPDX-License-Identifier: MIT
# Every shipped profile in profiles/ loads: each check and key exists in the
# checks' parameter tables and each value has the right type and range (a
# bad one is exit 64), and the profile's name is its file name.
. "$(dirname "$0")/lib.sh"

n=0
for f in "$PF_SOURCE_DIR"/profiles/*.json; do
	name=$(basename "$f" .json)
	pf --profile "$f" --root "$PF_FIXTURES/slurm-pass" --only memlock --format json
	expect_rc 0 "profile $name"
	grep -q "\"profile\":[[:space:]]*\"$name\"" "$T/out" || not_ok "$name: report names another profile"
	n=$((n + 1))
done
[ "$n" -ge 4 ] && ok "$n profiles" || not_ok "only $n profiles in profiles/"

# the same loading rejects a key that does not exist
sed 's/"min_kib": 0/"min_kib": 0, "no_such_key": 1/' "$PF_SOURCE_DIR/profiles/dgx-h100.json" > "$T/bad.json"
pf --profile "$T/bad.json" --root "$PF_FIXTURES/slurm-pass" --only memlock
expect_rc 64 "a profile with an unknown key"
expect_err no_such_key

done_testing
