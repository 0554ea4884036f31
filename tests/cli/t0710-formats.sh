#!/bin/sh
# SPDX-License-Identifier: MIT
# --format junit and --format prom on recorded roots: the XML is well formed
# (xmllint) and has the documented structure; the Prometheus text passes the
# exposition-format rules (promcheck.py), including escaping of a hostname
# full of markup, quotes, a control byte and an invalid UTF-8 byte.
. "$(dirname "$0")/lib.sh"
command -v xmllint >/dev/null ||
	skip_all "xmllint not installed (scripts/setup.sh --test installs libxml2-utils)"
need_python

cp -r "$PF_FIXTURES/slurm-fail" "$T/root"
printf 'gpu<7>&"q'"'"'\001\377z\n' > "$T/root/proc/sys/kernel/hostname"
# an error case: /proc/self/limits unreadable (a directory); an absent one
# is a skip under --root (docs/checks/memlock.md)
mkdir -p "$T/empty/proc/self/limits"

# --- JUnit -----------------------------------------------------------------
pf --root "$T/root" --only memlock,sysctl --format junit
expect_rc 1 "junit run"
cp "$T/out" "$T/a.xml"
xmllint --noout "$T/a.xml" || not_ok "xmllint rejects the JUnit output"
pf --root "$T/empty" --only memlock --format junit --output "$T/b.xml"
expect_rc 2 "junit run on an empty root"
xmllint --noout "$T/b.xml" || not_ok "xmllint rejects the JUnit output (error case)"

py_ok "JUnit structure" "$T/a.xml" "$T/b.xml" <<'EOF'
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
assert f is not None and f.get("type") == "PF-MEMLOCK-001", f.attrib
assert "code: PF-MEMLOCK-001 (action: reconfigure)" in f.text, f.text
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
printf '# HELP preflight_x x\n# TYPE preflight_x gauge\npreflight_x{a="1"} 1\npreflight_x{a="1"} 2\n' > "$T/bad1.prom"
printf '# HELP preflight_x x\n# TYPE preflight_x gauge\npreflight_x{a="\\t"} 1\n' > "$T/bad2.prom"
for b in bad1 bad2; do
	"$PY" "$check" "$T/$b.prom" > /dev/null && not_ok "promcheck accepted $b.prom"
done

pf --root "$T/root" --only memlock,sysctl --format prom --output "$T/a.prom"
expect_rc 1 "prom run"
"$PY" "$check" "$T/a.prom" && ok "promcheck" || not_ok "promcheck rejects the output"
pf --root "$T/empty" --only memlock --format prom
expect_rc 2 "prom run on an empty root"
cp "$T/out" "$T/b.prom"
"$PY" "$check" "$T/b.prom" && ok "promcheck (error case)" ||
	not_ok "promcheck rejects the output (error case)"

for want in \
	'preflight_check_status{check="memlock",status="fail"} 1' \
	'preflight_check_status{check="memlock",status="pass"} 0' \
	'preflight_check_status{check="sysctl",status="pass"} 1' \
	'preflight_verdict{status="fail"} 1' \
	'preflight_observed{check="memlock",subject="process",key="hard_kib"} 64' \
	'preflight_observed{check="sysctl",subject="net.core.rmem_max",key="value"} 16777216' \
	'preflight_expected{check="sysctl",subject="net.core.rmem_max",key="min"} 16777216' \
	'preflight_finding_status{check="memlock",subject="process",status="fail",code="PF-MEMLOCK-001",action="reconfigure"} 1'
do
	grep -qxF "$want" "$T/a.prom" || not_ok "missing line: $want"
done
want=$(printf 'hostname="gpu<7>&\\"q'"'"'\357\277\275\357\277\275z"')
grep '^preflight_info{' "$T/a.prom" | grep -qF "$want" || not_ok "hostname label not escaped as expected"
grep -q '^preflight_last_run_timestamp_seconds [0-9]\{10\}$' "$T/a.prom" || not_ok "timestamp"
grep -q '^preflight_check_status{check="memlock",status="error"} 1$' "$T/b.prom" || not_ok "error state"
# labels are stable across restarts: slurmd's pid is a value, never in a label
pf --no-config --root "$PF_FIXTURES/memlock-slurmd" --only memlock --format prom
cp "$T/out" "$T/c.prom"
grep -q 'subject="slurmd",status="fail"' "$T/c.prom" || not_ok "slurmd finding missing"
grep -q 'subject="slurmd\[' "$T/c.prom" && not_ok "a pid in a subject label"
grep -qx 'preflight_observed{check="memlock",subject="slurmd",key="pid"} 4242' "$T/c.prom" ||
	not_ok "slurmd's pid not observed"

done_testing
