#!/bin/sh
# SPDX-License-Identifier: MIT
# What root reads is never steered by another user (docs/hardening.md
# "Reading as root"): as root, a site config, drop-in, drop-in directory,
# profile or profile directory that another user owns or may write is refused
# (64, naming it with its owner or mode), like sshd and sudo; every file
# preflight is given (profile, config, drop-in, --topology, fleet and diff
# inputs) must be a regular file, so a FIFO planted by nobody is an error,
# never a hang; a duplicate key is an error everywhere.  Ordinary use keeps
# working, and --check-config shows owner and mode.
. "$(dirname "$0")/lib.sh"
need_python
[ "$(id -u)" -eq 0 ] || skip_all "needs root (the attacker is uid 65534)"
command -v setpriv >/dev/null 2>&1 || skip_all "setpriv not found"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

readable_copy sysctl-pass # nobody runs it too
chmod 755 "$T"
mkdir -m 1777 "$T/tmp"
# bounded: a FIFO must never hang preflight
tpf() {
	timeout 20 "$PREFLIGHT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
run() { tpf --root "$root" --only memlock,sysctl "$@"; }

# site config and drop-ins
echo '{ "only": "memlock" }' >"$T/site.conf"
chmod 0666 "$T/site.conf"
run --config "$T/site.conf"
expect_rc 64 "a world-writable site config"
expect_err "'$T/site.conf' is writable by everyone (mode 0666)"
chmod 0644 "$T/site.conf"
chown nobody "$T/site.conf"
run --config "$T/site.conf"
expect_rc 64 "a site config owned by another user"
expect_err "'$T/site.conf' is owned by uid 65534"
chown root "$T/site.conf"
mkdir -m 0777 "$T/site.conf.d"
chmod 0777 "$T/site.conf.d"
run --config "$T/site.conf"
expect_rc 64 "a world-writable drop-in directory"
expect_err "'$T/site.conf.d' is writable by everyone (mode 0777)"
chmod 0755 "$T/site.conf.d"
nobody sh -c "echo '{ \"set\": {\"nic_link_speed.min_rate_gbps\": 1} }' >'$T/tmp/50-evil.conf'"
cp -p "$T/tmp/50-evil.conf" "$T/site.conf.d/50-evil.conf"
run --config "$T/site.conf"
expect_rc 64 "a drop-in owned by another user"
expect_err "50-evil.conf' is owned by uid 65534"
rm "$T/site.conf.d/50-evil.conf"
mkfifo "$T/site.conf.d/60-fifo.conf"
run --config "$T/site.conf"
expect_rc 64 "a FIFO as a drop-in"
expect_err "60-fifo.conf' is not a regular file (a FIFO)"
rm "$T/site.conf.d/60-fifo.conf"
nobody mkfifo "$T/tmp/site.fifo"
run --config "$T/tmp/site.fifo"
expect_rc 64 "a FIFO as the site config"
expect_err "is not a regular file (a FIFO)"

# profiles
mkdir "$T/prof"
echo '{ "checks": { "sysctl": {} } }' >"$T/prof/p.json"
cp -p "$T/prof/p.json" "$T/tmp/his.json"
chown nobody "$T/tmp/his.json"
run --profile "$T/tmp/his.json"
expect_rc 64 "a profile owned by another user"
expect_err "'$T/tmp/his.json' is owned by uid 65534"
chmod 0664 "$T/prof/p.json"
run --profile "$T/prof/p.json"
expect_rc 64 "a group-writable profile"
expect_err "is writable by its group (mode 0664)"
chmod 0644 "$T/prof/p.json"
chmod 0777 "$T/prof"
run --profile "$T/prof/p.json"
expect_rc 64 "a profile in a world-writable directory"
expect_err "profile directory '$T/prof' is writable by everyone"
chmod 0755 "$T/prof"
nobody mkfifo "$T/tmp/prof.fifo"
run --profile "$T/tmp/prof.fifo"
expect_rc 64 "a FIFO as the profile"
expect_err "is not a regular file (a FIFO)"

# duplicate keys: a check section twice, a key twice, a site key twice
echo '{ "checks": { "sysctl": {}, "sysctl": {} } }' >"$T/prof/dup1.json"
run --profile "$T/prof/dup1.json"
expect_rc 64 "a duplicated check section"
expect_err "'checks.sysctl' is given twice"
echo '{ "checks": { "memlock": { "min_kib": 1, "min_kib": 2 } } }' >"$T/prof/dup2.json"
run --profile "$T/prof/dup2.json"
expect_rc 64 "a duplicated key in a check section"
expect_err "'checks.memlock.min_kib' is given twice"
echo '{ "only": "memlock", "only": "sysctl" }' >"$T/dup.conf"
run --config "$T/dup.conf"
expect_rc 64 "a duplicated site config key"
expect_err "'only' is given twice"

# --topology, fleet and diff inputs: a FIFO is an error, never a hang
nobody mkfifo "$T/tmp/topo.xml"
run --topology "$T/tmp/topo.xml"
expect_rc 64 "a FIFO as --topology"
expect_err "not a regular file"
run --output "$T/a.json"
mkdir "$T/fleet"
cp "$T/a.json" "$T/fleet/a.json"
mkfifo "$T/fleet/b.json"
tpf fleet "$T/fleet"
[ "$rc" -ne 124 ] && ok "fleet with a FIFO among the reports: exit $rc, no hang" ||
	not_ok "fleet hung on a FIFO"
grep -q "not a regular file" "$T/out" "$T/err" || not_ok "fleet does not say the FIFO is not a file"
tpf diff "$T/a.json" "$T/tmp/topo.xml"
[ "$rc" -ne 124 ] && [ "$rc" -ne 0 ] && ok "diff of a FIFO: exit $rc, no hang" ||
	not_ok "diff of a FIFO: exit $rc"
expect_err "is not a regular file (a FIFO)"

# ordinary use: root's own files, a user's own profile, --check-config shows owner and mode
echo '{ "only": "memlock,sysctl" }' >"$T/site.conf"
run --config "$T/site.conf" --profile "$T/prof/p.json" --check-config
expect_rc 0 "root's own site config and profile"
grep -q "^site owner: $T/site.conf: owner uid 0 (root), mode 0644$" "$T/out" &&
	ok "--check-config shows the site config's owner and mode" ||
	not_ok "no owner line: $(cat "$T/out")"
grep -q "^profile owner: $T/prof/p.json: owner uid 0 (root), mode 0644$" "$T/out" ||
	not_ok "no profile owner line: $(grep profile "$T/out")"
nobody sh -c "echo '{ \"checks\": { \"sysctl\": {} } }' >'$T/tmp/mine.json'"
nobody "$PREFLIGHT" --no-config --root "$root" --only memlock,sysctl --profile "$T/tmp/mine.json" \
	>"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a user running with her own profile"

done_testing
