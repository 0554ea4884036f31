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

# issue 20 item 1: from the build tree, the checkout's profiles/ are found by name
(cd / && env -u PREFLIGHT_PROFILE_PATH "$PREFLIGHT" --no-config --profile dgx-h100 \
	--check-config) >"$T/cc.out" 2>&1 && ok "build tree: --profile dgx-h100 --check-config" ||
	not_ok "build tree: --profile dgx-h100: $(cat "$T/cc.out")"
grep -q "$PF_SOURCE_DIR/profiles/dgx-h100.json" "$T/cc.out" || not_ok "not the checkout's profile"
# a bare name is never a file of the current directory (issue 21 item 3): a
# planted ./dgx-h100 or ./dgx-h100.json is not read, the shipped one is
mkdir -p "$T/cwd" && echo '{' > "$T/cwd/dgx-h100" && echo '{' > "$T/cwd/dgx-h100.json"
(cd "$T/cwd" && env -u PREFLIGHT_PROFILE_PATH "$PREFLIGHT" --no-config --profile dgx-h100 \
	--check-config) >"$T/cc.out" 2>&1 && ok "a planted ./dgx-h100 is not read" ||
	not_ok "current directory searched: $(cat "$T/cc.out")"
(cd "$T/cwd" && env -u PREFLIGHT_PROFILE_PATH "$PREFLIGHT" --no-config --profile ./dgx-h100.json \
	--check-config) >/dev/null 2>&1 && not_ok "./dgx-h100.json (broken) accepted" ||
	ok "a path with '/' is the file itself"
(cd "$T/cwd" && env -u PREFLIGHT_PROFILE_PATH "$PREFLIGHT" --no-config --profile no-such \
	--check-config) >"$T/cc.out" 2>&1
[ $? -eq 64 ] && grep -q "profiles/no-such.json" "$T/cc.out" && ok "unknown name: 64, names the dirs" ||
	not_ok "unknown name: $(cat "$T/cc.out")"
# --list-profiles: the names --profile accepts
env -u PREFLIGHT_PROFILE_PATH "$PREFLIGHT" --list-profiles > "$T/names"
[ "$(tr '\n' ' ' < "$T/names")" = "$(ls "$PF_SOURCE_DIR"/profiles/*.json | sed 's|.*/||; s/\.json$//' | tr '\n' ' ')" ] &&
	ok "--list-profiles" || not_ok "--list-profiles: $(cat "$T/names")"

done_testing
