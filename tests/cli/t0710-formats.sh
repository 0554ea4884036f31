#!/bin/sh
# SPDX-License-Identifier: MIT
# --format junit and --format prom on recorded roots: the XML is well formed
# (xmllint) and has the documented structure; the Prometheus text passes the
# exposition-format rules (promcheck.py), including escaping of a hostname
# full of markup, quotes, a control byte and an invalid UTF-8 byte.
set -eu
: "${PREFLIGHT:?}" "${PF_FIXTURES:?}" "${PF_SOURCE_DIR:?}"
command -v xmllint >/dev/null || { echo "skip: xmllint not installed (scripts/setup.sh --test installs libxml2-utils)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cp -r "$PF_FIXTURES/slurm-fail" "$tmp/root"
printf 'gpu<7>&"q'"'"'\001\377z\n' > "$tmp/root/proc/sys/kernel/hostname"
mkdir "$tmp/empty"

# --- JUnit -----------------------------------------------------------------
rc=0
"$PREFLIGHT" --root "$tmp/root" --only memlock,sysctl --format junit > "$tmp/a.xml" || rc=$?
[ "$rc" -eq 1 ] || fail "junit run exited $rc, expected 1"
xmllint --noout "$tmp/a.xml" || fail "xmllint rejects the JUnit output"
rc=0
"$PREFLIGHT" --root "$tmp/empty" --only memlock --format junit --output "$tmp/b.xml" || rc=$?
[ "$rc" -eq 2 ] || fail "junit run on an empty root exited $rc, expected 2"
xmllint --noout "$tmp/b.xml" || fail "xmllint rejects the JUnit output (error case)"

python3 - "$tmp/a.xml" "$tmp/b.xml" <<'EOF' || fail "JUnit structure"
import sys
import xml.etree.ElementTree as ET

def suite(path):
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites", root.tag
    suites = root.findall("testsuite")
    assert len(suites) == 1 and suites[0].get("name") == "preflight", suites
    return suites[0]

s = suite(sys.argv[1])
cases = {c.get("name"): c for c in s.findall("testcase")}
assert sorted(cases) == ["memlock", "sysctl"], sorted(cases)
host = s.get("hostname")
assert host == "gpu<7>&\"q'\ufffd\ufffdz", repr(host)
for c in cases.values():
    assert c.get("classname") == host, c.get("classname")
    float(c.get("time"))
assert s.get("tests") == "2" and s.get("failures") == "1" and s.get("errors") == "0", s.attrib
f = cases["memlock"].find("failure")
assert f is not None and f.get("type") == "fail", f
assert "hard limit 64 KiB" in f.get("message"), f.get("message")
assert "FAIL process: hard limit 64 KiB" in f.text and "fix: " in f.text, f.text
assert cases["sysctl"].find("failure") is None and cases["sysctl"].find("error") is None
props = {p.get("name"): p.get("value") for p in s.find("properties")}
assert props["verdict"] == "fail", props

s = suite(sys.argv[2])
c = s.find("testcase")
e = c.find("error")
assert e is not None and "/proc/self/limits" in e.get("message"), ET.tostring(c)
assert s.get("errors") == "1" and s.get("failures") == "0", s.attrib
EOF

# --- Prometheus --------------------------------------------------------------
check="$PF_SOURCE_DIR/tests/cli/promcheck.py"
# the checker itself must catch a duplicate series and a bad escape
printf '# HELP preflight_x x\n# TYPE preflight_x gauge\npreflight_x{a="1"} 1\npreflight_x{a="1"} 2\n' > "$tmp/bad1.prom"
printf '# HELP preflight_x x\n# TYPE preflight_x gauge\npreflight_x{a="\\t"} 1\n' > "$tmp/bad2.prom"
for b in bad1 bad2; do
	python3 "$check" "$tmp/$b.prom" > /dev/null && fail "promcheck accepted $b.prom"
done

rc=0
"$PREFLIGHT" --root "$tmp/root" --only memlock,sysctl --format prom --output "$tmp/a.prom" || rc=$?
[ "$rc" -eq 1 ] || fail "prom run exited $rc, expected 1"
python3 "$check" "$tmp/a.prom" || fail "promcheck rejects the output"
rc=0
"$PREFLIGHT" --root "$tmp/empty" --only memlock --format prom > "$tmp/b.prom" || rc=$?
[ "$rc" -eq 2 ] || fail "prom run on an empty root exited $rc, expected 2"
python3 "$check" "$tmp/b.prom" || fail "promcheck rejects the output (error case)"

for want in \
	'preflight_check_status{check="memlock",status="fail"} 1' \
	'preflight_check_status{check="memlock",status="pass"} 0' \
	'preflight_check_status{check="sysctl",status="pass"} 1' \
	'preflight_verdict{status="fail"} 1' \
	'preflight_observed{check="memlock",subject="process",key="hard_kib"} 64' \
	'preflight_observed{check="sysctl",subject="net.core.rmem_max",key="value"} 16777216' \
	'preflight_expected{check="sysctl",subject="net.core.rmem_max",key="min"} 16777216' \
	'preflight_finding_status{check="memlock",subject="process",status="fail"} 1'
do
	grep -qxF "$want" "$tmp/a.prom" || fail "missing line: $want"
done
want=$(printf 'hostname="gpu<7>&\\"q'"'"'\357\277\275\357\277\275z"')
grep '^preflight_info{' "$tmp/a.prom" | grep -qF "$want" || fail "hostname label not escaped as expected"
grep -q '^preflight_last_run_timestamp_seconds [0-9]\{10\}$' "$tmp/a.prom" || fail "timestamp"
grep -q '^preflight_check_status{check="memlock",status="error"} 1$' "$tmp/b.prom" || fail "error state"
# labels are stable across restarts: slurmd's pid is a value, never in a label
"$PREFLIGHT" --no-config --root "$PF_FIXTURES/memlock-slurmd" --only memlock --format prom \
	>"$tmp/c.prom" || true
grep -q 'subject="slurmd",status="fail"' "$tmp/c.prom" || fail "slurmd finding missing"
grep -q 'subject="slurmd\[' "$tmp/c.prom" && fail "a pid in a subject label"
grep -qx 'preflight_observed{check="memlock",subject="slurmd",key="pid"} 4242' "$tmp/c.prom" ||
	fail "slurmd's pid not observed"
echo "ok"
