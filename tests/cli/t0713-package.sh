#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package: `cpack -G DEB` in the build directory, then extract the
# .deb with dpkg-deb -x into a scratch directory and run the extracted
# usr/bin/preflight --version.  Also checks the control fields, that the
# install layout holds the profiles, bash completion and systemd unit, and
# that the completion completes check names from `preflight --list`.
set -eu
: "${PREFLIGHT:?}" "${PF_SOURCE_DIR:?}"
build=$(dirname "$PREFLIGHT")
for b in cpack dpkg-deb bash; do
	command -v "$b" >/dev/null || { echo "skip: $b not installed"; exit 77; }
done
[ -f "$build/CPackConfig.cmake" ] || { echo "skip: no CPackConfig.cmake in $build"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB --config CPackConfig.cmake -B "$tmp/out") > "$tmp/cpack.log" 2>&1 ||
	{ cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/out/preflight_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { cat "$tmp/cpack.log" >&2; fail "no preflight_*.deb written"; }

[ "$(dpkg-deb -f "$deb" Package)" = preflight ] || fail "Package field"
deps=$(dpkg-deb -f "$deb" Depends)
for d in libcjson1 libnl-3-200 libnl-genl-3-200 libnl-route-3-200 libhwloc15 libnuma1; do
	echo "$deps" | grep -q "$d" || fail "Depends lacks $d: $deps"
done

dpkg-deb -x "$deb" "$tmp/root"
version=$("$tmp/root/usr/bin/preflight" --version) || fail "extracted preflight --version failed"
[ "$version" = "$("$PREFLIGHT" --version)" ] || fail "version '$version'"
case "$version" in "preflight "[0-9]*) ;; *) fail "version line '$version'" ;; esac

for f in usr/share/bash-completion/completions/preflight usr/lib/systemd/system/preflight.service; do
	[ -f "$tmp/root/$f" ] || fail "$f not in the package"
done
n_prof=$(ls "$PF_SOURCE_DIR"/profiles/*.json | wc -l)
n_inst=$(ls "$tmp"/root/usr/share/preflight/profiles/*.json | wc -l)
[ "$n_prof" -gt 0 ] && [ "$n_inst" -eq "$n_prof" ] || fail "profiles: $n_inst installed of $n_prof"
grep -q '^ExecStart=.*--output /var/lib/preflight/report.json' \
	"$tmp/root/usr/lib/systemd/system/preflight.service" || fail "unit ExecStart"
grep -q '^StateDirectory=preflight$' "$tmp/root/usr/lib/systemd/system/preflight.service" ||
	fail "unit StateDirectory"
# a bare preflight runs the static checks: the unit's post-boot run keeps the full set
grep -q '^Environment=PREFLIGHT_ARGS=--all$' "$tmp/root/usr/lib/systemd/system/preflight.service" ||
	fail "unit does not run --all"

# the completion, sourced in bash: check names come from the binary
cat > "$tmp/comp.bash" <<EOF
source "$tmp/root/usr/share/bash-completion/completions/preflight"
COMP_WORDS=("$tmp/root/usr/bin/preflight" --only sysctl,mem); COMP_CWORD=2
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
COMP_WORDS=("$tmp/root/usr/bin/preflight" --dr); COMP_CWORD=1
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
COMP_WORDS=("$tmp/root/usr/bin/preflight" --format ju); COMP_CWORD=2
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
EOF
bash "$tmp/comp.bash" > "$tmp/comp.out" 2>&1 || { cat "$tmp/comp.out" >&2; fail "completion script"; }
printf 'sysctl,memlock\n--drain\n--drain-on\njunit\n' | cmp -s - "$tmp/comp.out" ||
	{ cat "$tmp/comp.out" >&2; fail "completion results"; }
echo "ok: $(basename "$deb")"
