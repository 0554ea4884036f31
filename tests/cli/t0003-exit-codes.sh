#!/bin/sh
# SPDX-License-Identifier: MIT
# Exit status from the verdict (0 pass/warn, 1 fail, 2 error), a valid JSON
# report on stdout and nothing else there, with and without --no-fork.
. "$(dirname "$0")/lib.sh"

# run_root ROOT WANT_RC WANT_VERDICT [ARGS...]
run_root() {
	root=$1 want=$2 verdict=$3
	shift 3
	pf --root "$PF_FIXTURES/$root" --only memlock,sysctl --format json "$@"
	expect_rc "$want" "$root $*"
	got=$(jq_py "$T/out" 'r["verdict"] + " " + ",".join(c["name"] for c in r["checks"])')
	[ "$got" = "$verdict memlock,sysctl" ] && ok "$root: $got" ||
		not_ok "$root: '$got', expected '$verdict memlock,sysctl'"
	# stdout carries only the report; a run without usage errors is quiet
	[ -s "$T/err" ] && not_ok "$root: unexpected stderr: $(head -c 300 "$T/err")"
	return 0
}

for mode in fork no-fork; do
	extra=""
	[ "$mode" = no-fork ] && extra=--no-fork
	run_root sysctl-pass 0 pass $extra
	run_root sysctl-fail 1 fail $extra
	run_root sysctl-garbage 2 error $extra
	# a capture that left sysctls out: skips naming the files, not an error (docs/snapshot.md)
	run_root sysctl-missing 0 pass $extra
	run_root memlock-slurmd 1 fail $extra
done

# a deadline override that is long enough changes nothing
run_root sysctl-pass 0 pass --timeout 1

# --only / --skip select checks; the report lists exactly the selection
pf --root "$PF_FIXTURES/sysctl-fail" --only memlock --format json
expect_rc 1 "--only memlock on the fail root"
[ "$(jq_py "$T/out" 'len(r["checks"])')" = 1 ] || not_ok "--only memlock: not one check"
pf --root "$PF_FIXTURES/sysctl-garbage" --only sysctl,memlock --skip sysctl --format json
expect_rc 0 "--skip sysctl on the garbage root"
[ "$(jq_py "$T/out" '[c["name"] for c in r["checks"]]')" = "['memlock']" ] ||
	not_ok "--skip sysctl: $(jq_py "$T/out" '[c["name"] for c in r["checks"]]')"

# warnings alone exit 0: demote every failure of the fail root
cat >"$T/lenient.json" <<'JSON'
/* accept this root: finite memlock, everything else a warning */
{
  "name": "lenient",
  "checks": {
    "memlock": { "min_kib": 8192 },
    "sysctl": { "warn_only": ["net.core.rmem_max", "net.core.wmem_max",
                              "arp_ignore", "rp_filter"] }
  }
}
JSON
run_root sysctl-fail 0 warn --profile "$T/lenient.json"
[ "$(jq_py "$T/out" 'r["profile"], r["checks"][0]["config"]["min_kib"]')" = "('lenient', 8192)" ] ||
	not_ok "profile name or effective min_kib not in the report"
# --set overrides the profile
run_root sysctl-fail 1 fail --profile "$T/lenient.json" --set memlock.min_kib=0
[ "$(jq_py "$T/out" 'r["checks"][0]["config"]["min_kib"]')" = 0 ] ||
	not_ok "--set did not override the profile"

# the counts add up to the checks, and the report names the root and host
pf --root "$PF_FIXTURES/sysctl-fail" --only memlock,sysctl --format json
got=$(jq_py "$T/out" 'sum(r["counts"].values()), r["node"]["hostname"], r["node"]["root"]')
[ "$got" = "(2, 'node-fail', '$PF_FIXTURES/sysctl-fail')" ] && ok "counts, hostname, root" ||
	not_ok "counts, hostname, root: $got"

done_testing
