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
# Debian policy: compressed man page and changelog, a copyright file; the schema ships
for f in usr/share/man/man1/preflight.1.gz usr/share/doc/preflight/changelog.gz \
	usr/share/doc/preflight/copyright usr/share/preflight/report.schema.json; do
	[ -f "$tmp/root/$f" ] || fail "$f not in the package"
done
[ -e "$tmp/root/usr/share/man/man1/preflight.1" ] && fail "uncompressed man page in the package"
maint=$(dpkg-deb -f "$deb" Maintainer)
case $maint in *@localhost*|"") fail "Maintainer '$maint'" ;; esac
# lintian, when installed (scripts/setup.sh --test installs it): no error
if command -v lintian >/dev/null; then
	lintian "$deb" >"$tmp/lintian.out" 2>&1
	grep '^E:' "$tmp/lintian.out" && fail "lintian errors (above)"
	echo "ok: lintian: no error ($(grep -c '^W:' "$tmp/lintian.out") warnings)"
else
	echo "skip: lintian not installed (the package's lint was not checked)"
fi

# the unit's drop-in example is valid as written: systemd.exec(5) wants the whole
# assignment quoted when the value has blanks
ex=$(sed -n 's/^#   \(Environment=.*--profile.*\)$/\1/p' "$PF_SOURCE_DIR/contrib/systemd/preflight.service")
case $ex in
'Environment="PREFLIGHT_ARGS='*'"') ;;
*) fail "the unit's drop-in example is not a quoted assignment: '$ex'" ;;
esac
prof=$(printf '%s' "$ex" | sed 's/.*--profile \([^"]*\)".*/\1/')
[ -f "$tmp/root$prof" ] || fail "the drop-in example names $prof, which the package does not ship"

# cmake --install then cpack: cpack stages its own component and leaves the
# install manifest alone; the uninstall target removes every file it lists
inst=$tmp/inst
# keep a manifest of the user's own install of this build directory
[ -f "$build/install_manifest.txt" ] && cp "$build/install_manifest.txt" "$tmp/user-manifest"
trap '[ -f "$tmp/user-manifest" ] && cp "$tmp/user-manifest" "$build/install_manifest.txt"; rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$inst" >"$tmp/install.log" 2>&1 || fail "cmake --install"
manifest=$(cat "$build/install_manifest.txt")
(cd "$build" && cpack -G DEB --config CPackConfig.cmake -B "$tmp/out2") >/dev/null 2>&1 ||
	fail "second cpack"
[ "$(cat "$build/install_manifest.txt")" = "$manifest" ] ||
	fail "cpack replaced the manifest of cmake --install"
cmake --build "$build" --target uninstall >"$tmp/uninstall.log" 2>&1 ||
	{ cat "$tmp/uninstall.log" >&2; fail "uninstall target"; }
left=$(find "$inst" -type f | head -3)
[ -z "$left" ] || fail "uninstall left files: $left"

echo "ok: $(basename "$deb")"
