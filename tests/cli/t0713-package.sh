#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian package: `cpack -G DEB` in the build directory, then extract the
# .deb with dpkg-deb -x into a scratch directory and run the extracted
# usr/bin/preflight --version.  Also checks the control fields, that the
# install layout holds the profiles, bash completion and systemd unit, and
# that the completion completes check names from `preflight --list`.
. "$(dirname "$0")/lib.sh"
build=$(dirname "$PREFLIGHT")
for b in cpack dpkg-deb bash; do
	command -v "$b" >/dev/null || skip_all "$b not installed"
done
[ -f "$build/CPackConfig.cmake" ] || skip_all "no CPackConfig.cmake in $build"

(cd "$build" && cpack -G DEB --config CPackConfig.cmake -B "$T/pkg") > "$T/cpack.log" 2>&1 ||
	{ cat "$T/cpack.log"; bail_out "cpack -G DEB"; }
deb=$(ls "$T"/pkg/preflight_*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { cat "$T/cpack.log"; bail_out "no preflight_*.deb written"; }
ok "cpack wrote $(basename "$deb")"

[ "$(dpkg-deb -f "$deb" Package)" = preflight ] || not_ok "Package field"
deps=$(dpkg-deb -f "$deb" Depends)
for d in libc6 libcjson1 libnl-3-200 libnl-genl-3-200 libhwloc15 libnuma1; do
	echo "$deps" | grep -q "$d" || not_ok "Depends lacks $d: $deps"
done
# and every library the binary needs is a dependency (dpkg-shlibdeps computes them)
if command -v readelf >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
	for so in $(readelf -d "$build/preflight" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		path=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
		[ -n "$path" ] || continue
		pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")" 2>/dev/null)
		pkg=$(echo "$pkg" | head -n 1 | cut -d: -f1)
		[ -z "$pkg" ] || echo "$deps" | grep -q "$pkg" || not_ok "Depends lacks $pkg ($so): $deps"
	done
fi

dpkg-deb -x "$deb" "$T/root" || bail_out "dpkg-deb -x"
version=$("$T/root/usr/bin/preflight" --version) || not_ok "extracted preflight --version failed"
[ "$version" = "$("$PREFLIGHT" --version)" ] || not_ok "version '$version'"
case "$version" in "preflight "[0-9]*) ;; *) not_ok "version line '$version'" ;; esac

# issue 20 item 1: the extracted binary finds its own profiles (relative to
# /proc/self/exe, not the build's install prefix), from any directory
(cd / && env -u PREFLIGHT_PROFILE_PATH "$T/root/usr/bin/preflight" --no-config \
	--profile dgx-h100 --check-config) >"$T/cc.out" 2>&1 &&
	ok "installed preflight --profile dgx-h100 --check-config" ||
	not_ok "installed --profile dgx-h100: $(cat "$T/cc.out")"
grep -q "$T/root/usr/bin/../share/preflight/profiles/dgx-h100.json" "$T/cc.out" ||
	not_ok "installed binary used another dgx-h100.json: $(grep -i profile "$T/cc.out")"
# moved to another prefix (/opt), it finds the profiles there
mkdir -p "$T/opt" && cp -a "$T/root/usr" "$T/opt/pf" &&
	(cd / && env -u PREFLIGHT_PROFILE_PATH "$T/opt/pf/bin/preflight" --no-config \
		--profile roce-8x400g --check-config) >/dev/null 2>&1 &&
	ok "relocated binary finds its profiles" || not_ok "relocated binary: profile not found"
# completion offers exactly the names the binary accepts
[ "$(env -u PREFLIGHT_PROFILE_PATH "$T/root/usr/bin/preflight" --list-profiles | tr '\n' ' ')" = \
	"$(ls "$T"/root/usr/share/preflight/profiles/ | sed 's/\.json$//' | tr '\n' ' ')" ] ||
	not_ok "--list-profiles: $("$T/root/usr/bin/preflight" --list-profiles | tr '\n' ' ')"

for f in usr/share/bash-completion/completions/preflight usr/lib/systemd/system/preflight.service \
	usr/lib/systemd/system/preflight-textfile.service usr/lib/systemd/system/preflight-textfile.timer \
	usr/share/doc/preflight/examples/preflight.conf \
	usr/share/doc/preflight/examples/kubernetes/kustomization.yaml \
	usr/share/doc/preflight/examples/kubernetes/preflight-static.json \
	usr/share/doc/preflight/kubernetes.md; do
	[ -f "$T/root/$f" ] || not_ok "$f not in the package"
done
# issue 20 items 3-5: the Slurm wrappers (executable), the textfile unit writes where
# Debian's prometheus-node-exporter reads, nothing is enabled (no maintainer scripts)
for w in preflight-prolog preflight-health; do
	[ -x "$T/root/usr/share/preflight/slurm/$w" ] || not_ok "usr/share/preflight/slurm/$w missing or not executable"
done
grep -q '^Environment=PREFLIGHT_PROM=/var/lib/prometheus/node-exporter/preflight.prom$' \
	"$T/root/usr/lib/systemd/system/preflight-textfile.service" || not_ok "textfile unit: directory"
dpkg-deb -e "$deb" "$T/ctl" && ! ls "$T/ctl" | grep -q 'inst$' || not_ok "the package has maintainer scripts"
if command -v systemd-analyze >/dev/null; then
	# (a bare ExecStart name is looked up in /usr/bin, where this test installs nothing)
	systemd-analyze verify --man=no "$T/root/usr/lib/systemd/system/preflight-textfile.service" \
		"$T/root/usr/lib/systemd/system/preflight-textfile.timer" 2>&1 |
		grep -v 'Command preflight is not executable' >"$T/verify.out"
	[ -s "$T/verify.out" ] && not_ok "systemd-analyze verify: $(cat "$T/verify.out")"
fi
# the example site config is valid as shipped, and with its profile chosen
"$T/root/usr/bin/preflight" --config "$T/root/usr/share/doc/preflight/examples/preflight.conf" \
	--check-config >/dev/null 2>"$T/conf.err" || not_ok "example preflight.conf: $(cat "$T/conf.err")"
sed 's|// "profile"|"profile"|' "$T/root/usr/share/doc/preflight/examples/preflight.conf" > "$T/pc.conf"
"$T/root/usr/bin/preflight" --config "$T/pc.conf" --check-config >/dev/null 2>"$T/conf.err" ||
	not_ok "example preflight.conf with its profile: $(cat "$T/conf.err")"
n_prof=$(ls "$PF_SOURCE_DIR"/profiles/*.json | wc -l)
n_inst=$(ls "$T"/root/usr/share/preflight/profiles/*.json | wc -l)
[ "$n_prof" -gt 0 ] && [ "$n_inst" -eq "$n_prof" ] || not_ok "profiles: $n_inst installed of $n_prof"
grep -q '^ExecStart=.*--output /var/lib/preflight/report.json' \
	"$T/root/usr/lib/systemd/system/preflight.service" || not_ok "unit ExecStart"
grep -q '^StateDirectory=preflight$' "$T/root/usr/lib/systemd/system/preflight.service" ||
	not_ok "unit StateDirectory"
# a bare preflight runs the static checks: the unit's post-boot run keeps the full set
grep -q '^Environment=PREFLIGHT_ARGS=--all$' "$T/root/usr/lib/systemd/system/preflight.service" ||
	not_ok "unit does not run --all"

# the completion, sourced in bash: check names come from the binary
cat > "$T/comp.bash" <<EOF
source "$T/root/usr/share/bash-completion/completions/preflight"
COMP_WORDS=("$T/root/usr/bin/preflight" --only sysctl,mem); COMP_CWORD=2
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
COMP_WORDS=("$T/root/usr/bin/preflight" --dr); COMP_CWORD=1
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
COMP_WORDS=("$T/root/usr/bin/preflight" --format ju); COMP_CWORD=2
_preflight; printf '%s\n' "\${COMPREPLY[@]}"
EOF
bash "$T/comp.bash" > "$T/comp.out" 2>&1 || not_ok "completion script: $(cat "$T/comp.out")"
printf 'sysctl,memlock\n--drain\n--drain-on\njunit\n' | cmp -s - "$T/comp.out" &&
	ok "completion results" || not_ok "completion results: $(cat "$T/comp.out")"
# Debian policy: compressed man page and changelog, a copyright file; the schema ships
for f in usr/share/man/man1/preflight.1.gz usr/share/doc/preflight/changelog.gz \
	usr/share/doc/preflight/copyright usr/share/preflight/report.schema.json; do
	[ -f "$T/root/$f" ] || not_ok "$f not in the package"
done
[ -e "$T/root/usr/share/man/man1/preflight.1" ] && not_ok "uncompressed man page in the package"
# issue 20 item 5: every installed path the man page names is in the package
paths=$(gzip -dc "$T/root/usr/share/man/man1/preflight.1.gz" | grep -o '/usr/share/[A-Za-z0-9_./-]*' |
	sed 's|[.]$||' | sort -u)
[ -n "$paths" ] || not_ok "the man page names no installed path"
for p in $paths; do
	[ -e "$T/root$p" ] || not_ok "the man page names $p, which the package does not hold"
done
gzip -dc "$T/root/usr/share/man/man1/preflight.1.gz" | grep -n '[ (]docs/[a-z]' &&
	not_ok "the man page names repository paths (docs/...)"
maint=$(dpkg-deb -f "$deb" Maintainer)
case $maint in *@localhost*|"") not_ok "Maintainer '$maint'" ;; esac
# lintian, when installed (scripts/setup.sh --test installs it): no error
if command -v lintian >/dev/null; then
	lintian "$deb" >"$T/lintian.out" 2>&1
	if grep '^E:' "$T/lintian.out"; then
		not_ok "lintian errors (above)"
	else
		ok "lintian: no error ($(grep -c '^W:' "$T/lintian.out") warnings)"
	fi
else
	echo "note: lintian not installed (the package's lint was not checked)"
fi

# the unit's drop-in example is valid as written: systemd.exec(5) wants the whole
# assignment quoted when the value has blanks
ex=$(sed -n 's/^#   \(Environment=.*--profile.*\)$/\1/p' "$PF_SOURCE_DIR/contrib/systemd/preflight.service")
case $ex in
'Environment="PREFLIGHT_ARGS='*'"') ;;
*) not_ok "the unit's drop-in example is not a quoted assignment: '$ex'" ;;
esac
prof=$(printf '%s' "$ex" | sed 's/.*--profile \([^"]*\)".*/\1/')
[ -f "$T/root$prof" ] || not_ok "the drop-in example names $prof, which the package does not ship"

# cmake --install then cpack: cpack stages its own component and leaves the
# install manifest alone; the uninstall target removes every file it lists
inst=$T/inst
# keep a manifest of the user's own install of this build directory
[ -f "$build/install_manifest.txt" ] && cp "$build/install_manifest.txt" "$T/user-manifest"
trap '[ -f "$T/user-manifest" ] && cp "$T/user-manifest" "$build/install_manifest.txt"; rm -rf "$T"' EXIT INT TERM
cmake --install "$build" --prefix "$inst" >"$T/install.log" 2>&1 || bail_out "cmake --install"
manifest=$(cat "$build/install_manifest.txt")
(cd "$build" && cpack -G DEB --config CPackConfig.cmake -B "$T/out2") >/dev/null 2>&1 ||
	not_ok "second cpack"
[ "$(cat "$build/install_manifest.txt")" = "$manifest" ] ||
	not_ok "cpack replaced the manifest of cmake --install"
cmake --build "$build" --target uninstall >"$T/uninstall.log" 2>&1 ||
	not_ok "uninstall target: $(tail -5 "$T/uninstall.log")"
left=$(find "$inst" -type f | head -3)
[ -z "$left" ] && ok "uninstall removed what cmake --install wrote" ||
	not_ok "uninstall left files: $left"

done_testing
