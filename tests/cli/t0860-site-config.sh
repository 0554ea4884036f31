#!/bin/sh
# SPDX-License-Identifier: MIT
# t0860-site-config.sh - the site configuration (PREFLIGHT_CONFIG, default
# /etc/preflight/preflight.conf, and its .d/*.conf drop-ins): JSON with
# comments whose keys are long options, read by every run, later drop-ins
# replacing earlier keys, the command line winning; --no-config, --config
# FILE, --check-config (shows it, validates, runs nothing); errors name the
# file and key (64); shipped profiles found by name (--profile dgx-h100).
. "$PF_SOURCE_DIR/tests/cli/lib.sh"

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 2 --nics 2 "$T/root" >/dev/null || not_ok "gen_root"
mkdir -p "$T/etc/preflight.conf.d"
conf=$T/etc/preflight.conf
cat >"$conf" <<'JSON'
// cluster defaults: every wrapper (Prolog, HealthCheckProgram, unit) reads them
{
  "profile": "dgx-h100",          /* a shipped profile, by name */
  "only": ["memlock", "sysctl", "nic_link_speed"],
  "set": {"nic_link_speed.min_rate_gbps": 200},
  "format": "json",
  "drain": true
}
JSON
printf '{ "drain": false, "skip": "sysctl" }\n' >"$conf.d/50-local.conf"
printf '{ "bogus": 1 }\n' >"$conf.d/.hidden.conf"
printf 'not json, not read\n' >"$conf.d/README"
export PREFLIGHT_CONFIG="$conf"
names() { jq_py "$T/out" '",".join(c["name"] for c in r["checks"])'; }

# a bare run follows the site config
pf --root "$T/root"
[ "$(jq_py "$T/out" 'r["profile"]')" = dgx-h100 ] &&
	ok "profile dgx-h100 found by name" || not_ok "profile: $(jq_py "$T/out" 'r["profile"]') $(cat "$T/err")"
[ "$(names)" = "memlock,nic_link_speed" ] && ok "only from the file, skip from the drop-in" ||
	not_ok "checks: $(names)"
[ "$(jq_py "$T/out" '[c for c in r["checks"] if c["name"] == "nic_link_speed"][0]["config"]["min_rate_gbps"]')" = 200 ] &&
	ok "set from the file" || not_ok "set not applied"

# --check-config: shows the files and the keys with their origin, runs nothing
pf --check-config --root "$T/root"
expect_rc 0 "--check-config"
grep -q "^site config: $conf, $conf.d/50-local.conf$" "$T/out" && ok "files listed in order" ||
	not_ok "files: $(head -1 "$T/out")"
grep -Eq "^  skip +sysctl +\($conf.d/50-local.conf\)$" "$T/out" && ok "key with its origin" ||
	not_ok "no skip line: $(cat "$T/out")"
grep -Eq '^  drain ' "$T/out" && not_ok "drain: false in the drop-in did not remove it"
grep -q -- '--drain no' "$T/out" || not_ok "drain still on: $(grep slurm "$T/out")"
grep -q "^profile: .*dgx-h100.json)$" "$T/out" || not_ok "profile path not shown"
grep -q '"schema"' "$T/out" && not_ok "--check-config wrote a report"
grep -q 'are valid; nothing was run$' "$T/out" || not_ok "no 'valid; nothing was run'"
# issue 20 item 5: a site-config "set" is labelled as the site config's, not (--set);
# a command-line --set of the same key wins and is labelled (--set)
grep -qx '  nic_link_speed.min_rate_gbps = 200 (site config)' "$T/out" &&
	ok "site-config setting labelled (site config)" ||
	not_ok "site set label: $(grep min_rate_gbps "$T/out")"
pf --check-config --root "$T/root" --set nic_link_speed.min_rate_gbps=100
grep -qx '  nic_link_speed.min_rate_gbps = 100 (--set)' "$T/out" ||
	not_ok "command-line --set over the site's: $(grep min_rate_gbps "$T/out")"
pf --check-config --root "$T/root" --set memlock.min_kib=1024
grep -qx '  nic_link_speed.min_rate_gbps = 200 (site config)' "$T/out" &&
	grep -qx '  memlock.min_kib = 1024 (--set)' "$T/out" ||
	not_ok "site and command-line sets together: $(grep -E 'min_rate|min_kib' "$T/out")"

# the drain policy from a drop-in ("drain_on" is --drain-on), the command line still wins
printf '{ "drain_on": "error" }\n' >"$conf.d/55-drain.conf"
pf --check-config --root "$T/root"
grep -q 'drains on error' "$T/out" && ok "drain_on from the site config" ||
	not_ok "drain_on: $(grep slurm "$T/out")"
pf --check-config --root "$T/root" --drain-on warn
grep -q 'drains on warn' "$T/out" || not_ok "--drain-on on the command line did not win"
rm "$conf.d/55-drain.conf"

# the command line wins
pf --root "$T/root" --only memlock --format text
grep -Eq '^[a-z]+ +memlock ' "$T/out" && ! grep -Eq '^[a-z]+ +nic_link_speed ' "$T/out" &&
	ok "--only and --format on the command line win" || not_ok "override: $(head -5 "$T/out")"
printf '{ "all": true }\n' >"$conf.d/60-all.conf"
pf --root "$T/root" --only memlock
expect_rc 0 "site all + command-line --only: no conflict"
[ "$(names)" = "memlock" ] || not_ok "site all + --only: $(names)"
rm "$conf.d/60-all.conf"

# drop-ins in name order: the later one's key wins
printf '{ "only": "memlock" }\n' >"$conf.d/70-a.conf"
printf '{ "only": "sysctl,memlock", "skip": [] }\n' >"$conf.d/80-b.conf"
pf --root "$T/root"
expect_rc 64 "skip: [] is not a list of names"
expect_err "80-b.conf: 'skip' must be a string or a list of strings"
printf '{ "only": "sysctl,memlock" }\n' >"$conf.d/80-b.conf"
pf --root "$T/root"
[ "$(names)" = "memlock" ] && ok "80-b.conf replaced 70-a.conf's only (sysctl skipped by 50)" ||
	not_ok "drop-in order: $(names)"
rm "$conf.d/70-a.conf" "$conf.d/80-b.conf"

# errors name the file and the key; --no-config ignores them
printf '{ "colour": true }\n' >"$conf.d/90-bad.conf"
expect_usage "$conf.d/90-bad.conf: unknown key 'colour'" --root "$T/root"
expect_usage "unknown key 'colour'" --check-config --root "$T/root"
pf --no-config --root "$T/root" --only memlock --format json
expect_rc 0 "--no-config ignores a bad site config"
[ "$(jq_py "$T/out" 'r["profile"]')" = generic ] || not_ok "--no-config still read the profile"
printf '{ "check-config": true }\n' >"$conf.d/90-bad.conf"
expect_usage "unknown key 'check-config'" --root "$T/root"
printf '{ "only": ' >"$conf.d/90-bad.conf"
expect_usage "90-bad.conf: not valid JSON" --root "$T/root"
rm "$conf.d/90-bad.conf"

# --config FILE instead of the default
printf '{ "only": "sysctl", "format": "json" }\n' >"$T/other.conf"
pf --config "$T/other.conf" --root "$T/root"
[ "$(names)" = "sysctl" ] && ok "--config FILE" || not_ok "--config: $(names)"

# no site config at all: the built-in defaults
PREFLIGHT_CONFIG=$T/none.conf pf --check-config --root "$T/root"
expect_rc 0 "--check-config without a site config"
grep -q "^site config: none (no $T/none.conf)$" "$T/out" || not_ok "absent: $(head -1 "$T/out")"
grep -q '^selection: default' "$T/out" || not_ok "absent: not the default selection"

# profiles by name
expect_usage "no profile named 'no-such-profile'" --no-config \
	--root "$T/root" --profile no-such-profile
pf --no-config --root "$T/root" --only memlock --profile roce-8x400g --format json
expect_rc 0 "--profile roce-8x400g by name"

done_testing
