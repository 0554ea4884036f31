#!/bin/sh
# SPDX-License-Identifier: MIT
# --help, --version, --list and --describe: exit 0, output on stdout only.
. "$(dirname "$0")/lib.sh"

pf --help
expect_rc 0 "--help"
grep -q '^usage: preflight' "$T/out" && ok "--help prints usage" || not_ok "--help: $(cat "$T/out")"
for opt in --list --describe --only --skip --format --output --root --profile --set \
	--timeout --no-fork --version; do
	grep -q -- "$opt" "$T/out" || not_ok "--help does not mention $opt"
done
grep -q 'Exit status' "$T/out" || not_ok "--help does not explain exit status"
[ -s "$T/err" ] && not_ok "--help wrote to stderr"

pf --version
expect_rc 0 "--version"
grep -Eq '^preflight [0-9]+\.[0-9]+\.[0-9]+$' "$T/out" && ok "version line" ||
	not_ok "--version: $(cat "$T/out")"

pf --list
expect_rc 0 "--list"
grep -Eq '^memlock +locked-memory limit .*\[rdma,static\]$' "$T/out" && ok "--list memlock" ||
	not_ok "--list: $(cat "$T/out")"
grep -Eq '^sysctl +.*\[net,static\]$' "$T/out" && ok "--list sysctl" || not_ok "--list sysctl"
# one line per check, in registry order (memlock before sysctl)
[ "$(grep -n '^memlock ' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^sysctl ' "$T/out" | cut -d: -f1)" ] ||
	not_ok "--list order"

pf --describe memlock
expect_rc 0 "--describe memlock"
grep -q 'reads:.*/proc/self/limits' "$T/out" || not_ok "--describe memlock: reads"
grep -Eq '^  min_kib +unsigned integer, default 0 KiB' "$T/out" || not_ok "--describe: min_kib"
grep -Eq '^  check_slurmd +bool, default true' "$T/out" || not_ok "--describe: check_slurmd"
grep -q 'deadline: 5 s' "$T/out" || not_ok "--describe: deadline"

pf --describe sysctl
expect_rc 0 "--describe sysctl"
grep -Eq '^  rmem_max +unsigned integer, default 16777216 bytes' "$T/out" ||
	not_ok "--describe sysctl: rmem_max"
grep -Eq '^  rp_filter +string, default 0,2' "$T/out" || not_ok "--describe sysctl: rp_filter"

# issue 20 item 5: integer ranges print as integers (not 1.84467440737096e+19)
for c in $("$PREFLIGHT" --list | awk '{print $1}'); do
	"$PREFLIGHT" --describe "$c"
done > "$T/describe"
grep -E 'integer, .*range [^,]*e[+-]?[0-9]' "$T/describe" && not_ok "an integer range in float notation"
grep -q 'unsigned integer, .*range 0\.\.18446744073709551615' "$T/describe" &&
	grep -q 'min_kib .*range 0\.\.9007199254740992' "$T/describe" &&
	ok "integer ranges print as integers" || not_ok "integer ranges: $(grep -o 'range [^,]*' "$T/describe" | sort -u | head)"
done_testing
