#!/bin/sh
# SPDX-License-Identifier: MIT
# Reports validate against docs/report.schema.json, and the schema rejects
# reports that break it.
. "$(dirname "$0")/lib.sh"

py=$(schema_python)
[ -n "$py" ] || skip_all "no python3 with jsonschema (apt-get install python3-jsonschema)"

for root in sysctl-pass sysctl-fail sysctl-missing sysctl-garbage memlock-unlimited \
	memlock-finite memlock-soft-below-hard memlock-slurmd; do
	"$PREFLIGHT" --root "$PF_FIXTURES/$root" --only memlock,sysctl --format json \
		>"$T/$root.report.json"
done
"$PREFLIGHT" --root "$PF_FIXTURES/sysctl-pass" --only memlock,sysctl --format json --no-fork \
	>"$T/no-fork.report.json"
# node.sources: a sysfs root, and a topology export judged alone
python3 "$PF_SOURCE_DIR/tests/gen_root.py" "$T/gen" --gpus 2 --nics 2 >/dev/null
"$PREFLIGHT" --root "$T/gen" --only pcie_link --format json >"$T/sources-sysfs.report.json"
XML=${PF_SHARED_DIR:-$PF_SOURCE_DIR/../shared}/fixtures/hwloc-xml/topo.jwb0001.xml
[ -r "$XML" ] && "$PREFLIGHT" --topology "$XML" --format json >"$T/sources-topology.report.json"
cp "$PF_SOURCE_DIR/tests/golden/report.json" "$T/golden.report.json"
for g in fabric_loopback_healthy fabric_loopback_bad_cable; do
	cp "$PF_SOURCE_DIR/tests/golden/$g.json" "$T/$g.report.json"
done
# the example in docs/report.md is a valid report too
sed -n '/^```json$/,/^```$/p' "$PF_SOURCE_DIR/docs/report.md" | sed '1d;$d' \
	>"$T/docs-example.report.json"

# One interpreter for everything: valid reports pass, each mutation of a
# valid report is rejected.  Prints ok/not ok lines; exits with the count.
"$py" - "$PF_SOURCE_DIR/docs/report.schema.json" "$T"/*.report.json <<'PY'
import copy, json, os, sys
import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    name = os.path.basename(path)
    errors = list(v.iter_errors(json.load(open(path))))
    if errors:
        bad += 1
        print("not ok: %s: %s" % (name, errors[0].message))
    else:
        print("ok: %s is valid" % name)

good = json.load(open([p for p in sys.argv[2:] if "sysctl-fail" in p][0]))
mutations = [
    'del r["verdict"]', 'r["verdict"] = "skip"', 'r["checks"][0]["findings"] = []',
    'r["checks"][1]["status"] = "bad"', 'r["extra"] = 1', 'r["counts"]["pass"] = -1',
    'r["started_at"] = "yesterday"', 'del r["checks"][0]["config"]',
    'r["checks"][0]["findings"][0]["observed"] = 3', 'r["schema"] = "preflight.report/v2"',
    'r["checks"][0]["name"] = "Mem-Lock"', 'del r["node"]["kernel"]',
    'r["checks"][0]["findings"][0]["remedy"] = None', 'r["checks"][0]["config"]["x"] = [1]',
]
for m in mutations:
    r = copy.deepcopy(good)
    exec(m)
    if v.is_valid(r):
        bad += 1
        print("not ok: schema accepts: " + m)
    else:
        print("ok: schema rejects: " + m)
sys.exit(min(bad, 100))
PY
failures=$((failures + $?))

done_testing
