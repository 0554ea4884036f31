#!/bin/sh
# SPDX-License-Identifier: MIT
# t0801-fleet-ops.sh - `preflight fleet` for operators: --output writes the
# view atomically (same bytes as stdout, exit status kept), fewer than 3
# nodes are "not judged" rather than "No outliers", --recursive reads a
# tree of reports and a directory holding only subdirectories gets a hint,
# and a hostname that a spreadsheet would run as a formula reaches the CSV
# neutralised.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"
fx=$PF_FIXTURES/fleet

# --output: the same view as stdout, exit 1 kept (node-c fails), nothing on stdout
"$PREFLIGHT" fleet --format json "$fx"/node-*.json >"$T/stdout.json" 2>/dev/null
pf fleet --format json --output "$T/view.json" "$fx"/node-*.json
expect_rc 1 "fleet --output"
[ -s "$T/out" ] && not_ok "fleet --output also wrote to stdout"
cmp -s "$T/view.json" "$T/stdout.json" && ok "--output holds the stdout view" ||
	not_ok "--output differs from stdout"
ls -a "$T" | grep -q '^\.view\.json\.' && not_ok "temporary file left behind"
# a symlink keeps its link and gets its target replaced
: >"$T/target.txt"
ln -s target.txt "$T/link.txt"
pf fleet --output "$T/link.txt" "$fx/node-a.json"
expect_rc 0 "fleet --output through a symlink"
[ -L "$T/link.txt" ] && grep -q '^preflight fleet: 1 node' "$T/target.txt" &&
	ok "symlink kept, target written" || not_ok "symlink replaced or target empty"
# missing directories are created, like the main command's --output
pf fleet --output "$T/new-dir/sub/v.txt" "$fx/node-a.json"
expect_rc 0 "fleet --output into a missing directory"
grep -q '^preflight fleet: 1 node' "$T/new-dir/sub/v.txt" && ok "directories created" ||
	not_ok "no $T/new-dir/sub/v.txt"
: >"$T/a-file"
pf fleet --output "$T/a-file/v.txt" "$fx/node-a.json"
expect_rc 74 "fleet --output under a file"
expect_err "cannot write '$T/a-file/v.txt'"

# JSON indented like jq by default, --compact on one line
"$PY" -c 'import json, sys; t = open(sys.argv[1]).read(); assert t == json.dumps(json.loads(t), indent=2, ensure_ascii=False) + "\n"' \
	"$T/stdout.json" && ok "fleet JSON indented like jq" || not_ok "fleet JSON layout"
pf fleet --format json --compact "$fx"/node-*.json
[ "$(wc -l <"$T/out")" -eq 1 ] && json_ok "$T/out" && ok "fleet --compact: one line" ||
	not_ok "fleet --compact: $(wc -l <"$T/out") lines"

# fewer than 3 nodes: outliers are not judged, not "No outliers"
pf fleet "$fx/node-a.json" "$fx/node-b.json"
expect_rc 0 "two passing nodes"
grep -q '^Outliers: not judged (fewer than 3 nodes)\.$' "$T/out" &&
	ok "2 nodes: not judged" || not_ok "2 nodes: $(tail -1 "$T/out")"
grep -q 'No outliers' "$T/out" && not_ok "2 nodes still say 'No outliers'"
# 3 passing nodes with the series: judged, and none is below 90 %
cp "$fx/node-a.json" "$fx/node-b.json" "$T/"
sed 's/"node-a"/"node-e"/' "$fx/node-a.json" >"$T/node-e.json"
pf fleet "$T/node-a.json" "$T/node-b.json" "$T/node-e.json"
grep -q '^No outliers (below 90% of the fleet median)\.$' "$T/out" &&
	ok "3 nodes: judged" || not_ok "3 nodes: $(tail -1 "$T/out")"

# --recursive: reports in per-rack subdirectories
mkdir -p "$T/tree/rack1" "$T/tree/rack2/row1" "$T/tree/.hidden"
cp "$fx/node-a.json" "$fx/node-b.json" "$T/tree/rack1/"
cp "$fx/node-c.json" "$T/tree/rack2/row1/"
cp "$fx/node-d.json" "$T/tree/.hidden/"
ln -s .. "$T/tree/rack1/loop"
pf fleet "$T/tree"
expect_rc 64 "a directory of subdirectories, not recursive"
expect_err "'$T/tree' holds no *.json file but 2 subdirectories: use --recursive"
pf fleet --format json --recursive "$T/tree"
expect_rc 1 "--recursive (node-c fails)"
[ "$(jq_py "$T/out" 'r["nodes"]')" = 3 ] && ok "--recursive: 3 nodes, hidden dir and link loop not followed" ||
	not_ok "--recursive: $(jq_py "$T/out" 'r["nodes"], r["inputs"]')"
pf fleet -r --format json "$T/tree/rack2"
[ "$(jq_py "$T/out" '[f["node"] for f in r["failing"]]')" = "['node-c']" ] &&
	ok "-r on a nested directory" || not_ok "-r: $(head -c 300 "$T/out")"
# a directory with reports and subdirectories: no hint
cp "$fx/node-a.json" "$T/tree/"
pf fleet "$T/tree"
expect_rc 0 "files and subdirectories"
grep -q 'use --recursive' "$T/err" && not_ok "hint given although reports were found"

# CSV formula injection: a hostname from a compromised node
"$PY" - "$fx/node-c.json" "$T/evil.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["node"]["hostname"] = '=HYPERLINK("http://evil/","x")'
for c in r["checks"]:
    for f in c.get("findings", []):
        f["subject"] = "@SUM(1+1)"
        f["message"] = "-2+3"
json.dump(r, open(sys.argv[2], "w"))
PY
pf fleet --format csv "$T/evil.json" "$fx/node-a.json"
expect_rc 1 "csv with a formula hostname"
"$PY" - "$T/out" <<'PY' && ok "csv cells neutralised" || not_ok "csv: $(cat "$T/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
(f,) = [r for r in rows if r["kind"] == "failing"]
assert f["node"] == "'=HYPERLINK(\"http://evil/\",\"x\")", f
assert f["subject"] == "'@SUM(1+1)" and f["message"] == "'-2+3", f
for r in rows:
    for v in r.values():
        assert v[:1] not in "=+-@" or v == "", (r, v)
PY

done_testing
