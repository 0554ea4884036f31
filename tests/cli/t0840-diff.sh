#!/bin/sh
# SPDX-License-Identifier: MIT
# t0840-diff.sh - `preflight diff OLD.json NEW.json` on reports of generated
# roots: a reimage that slowed a port and degraded a GPU link is "worse"
# (exit 1) with the checks, findings and values named; the reverse is
# "better" (exit 0); identical reports have no changes; a port that went away
# is worse ("gone"); JSON is preflight.diff/v1 (two-space indent, --compact
# one line); --output; inputs that are not reports are usage errors (64).
. "$PF_SOURCE_DIR/tests/cli/lib.sh"

checks=nic_link_speed,pcie_link,memlock
"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --hostname gpu-047 "$T/good" >/dev/null ||
	not_ok "gen_root good"
"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --hostname gpu-047 --slow-port mlx5_3 \
	--gpu-degraded-link 2 "$T/bad" >/dev/null || not_ok "gen_root bad"
"$PREFLIGHT" --root "$T/good" --only $checks --format json --output "$T/old.json"
"$PREFLIGHT" --root "$T/bad" --only $checks --format json --output "$T/new.json"

# degraded: worse, exit 1
pf diff "$T/old.json" "$T/new.json"
expect_rc 1 "diff good -> degraded"
grep -Eq '^verdict: pass -> fail \(worse\)$' "$T/out" && ok "verdict line" ||
	not_ok "verdict line: $(sed -n 3p "$T/out")"
grep -Eq '^worse +nic_link_speed +mlx5_3/1 +pass +fail +active at 100 Gb/s' "$T/out" &&
	ok "the slowed port is named" || not_ok "no mlx5_3/1 row: $(cat "$T/out")"
grep -Eq '^worse +pcie_link +0000:23:00.0 +pass +fail' "$T/out" &&
	ok "the degraded GPU link is named" || not_ok "no pcie_link row"
grep -Eq '^nic_link_speed +mlx5_3/1 +rate_gbps +400 +100 +-75.0%$' "$T/out" &&
	ok "rate_gbps moved 400 -> 100" || not_ok "no rate_gbps value row"
grep -q '^worse: ' "$T/out" || not_ok "no closing 'worse:' line"
grep -q memlock "$T/out" && not_ok "unchanged memlock listed"

# the reverse: better, exit 0
pf diff "$T/new.json" "$T/old.json"
expect_rc 0 "diff degraded -> good"
grep -Eq '^better +nic_link_speed +mlx5_3/1 +fail +pass' "$T/out" && ok "better row" ||
	not_ok "no better row: $(cat "$T/out")"
grep -q '^not worse: 0 got worse' "$T/out" || not_ok "closing line: $(tail -1 "$T/out")"

# identical
pf diff "$T/old.json" "$T/old.json"
expect_rc 0 "diff of a report with itself"
grep -q '^No check or finding changed status\.$' "$T/out" && ok "no changes" ||
	not_ok "identical: $(cat "$T/out")"

# JSON: schema, counts, two-space indentation; --compact
pf diff --format json "$T/old.json" "$T/new.json"
expect_rc 1 "diff --format json"
"$PY" - "$T/out" <<'PY' && ok "json content" || not_ok "json content: $(head -c 600 "$T/out")"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text)
assert d["schema"] == "preflight.diff/v1" and d["worse"] is True, d
assert d["verdict"] == {"old": "pass", "new": "fail", "change": "worse"}, d["verdict"]
c = {x["name"]: x for x in d["checks"]}
assert set(c) == {"nic_link_speed", "pcie_link"}, set(c)
(f,) = c["nic_link_speed"]["findings"]
assert (f["subject"], f["old"], f["new"], f["change"]) == ("mlx5_3/1", "pass", "fail", "worse"), f
v = [x for x in c["nic_link_speed"]["values"] if x["key"] == "rate_gbps"][0]
assert (v["old"], v["new"], v["change_pct"]) == (400, 100, -75), v
assert d["counts"]["worse"] == 4, d["counts"]
assert text == json.dumps(d, indent=2, ensure_ascii=False) + "\n", "not jq's two-space layout"
PY
pf diff --format json --compact "$T/old.json" "$T/new.json"
[ "$(wc -l <"$T/out")" -eq 1 ] && json_ok "$T/out" && ok "--compact: one line" ||
	not_ok "--compact: $(wc -l <"$T/out") lines"

# a port that went away (an HCA lost after a reimage) is worse: "gone"
"$PY" - "$T/old.json" "$T/gone.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for c in r["checks"]:
    if c["name"] == "nic_link_speed":
        c["findings"] = [f for f in c["findings"] if f["subject"] != "mlx5_7/1"]
json.dump(r, open(sys.argv[2], "w"))
PY
pf diff "$T/old.json" "$T/gone.json"
expect_rc 1 "a port that went away"
grep -Eq '^gone +nic_link_speed +mlx5_7/1 +pass +- ' "$T/out" && ok "gone row" ||
	not_ok "no gone row: $(cat "$T/out")"

# --output: the same text, nothing on stdout, exit kept
pf diff --output "$T/d.txt" "$T/old.json" "$T/new.json"
expect_rc 1 "diff --output"
[ -s "$T/out" ] && not_ok "--output also wrote to stdout"
grep -q '^worse: ' "$T/d.txt" && ok "--output written" || not_ok "--output file"
pf diff --output "$T/new/dir/d.txt" "$T/old.json" "$T/old.json"
expect_rc 0 "diff --output into a missing directory"
[ -s "$T/new/dir/d.txt" ] || not_ok "diff --output did not create the directories"

# a report of another node: a note, still compared
sed 's/"gpu-047"/"gpu-048"/' "$T/old.json" >"$T/other.json"
pf diff "$T/other.json" "$T/old.json"
expect_rc 0 "another node"
expect_err "different nodes ('gpu-048', 'gpu-047')"

# usage errors
echo '{"schema": "preflight.fleet/v1"}' >"$T/fleet.json"
echo '{"schema": ' >"$T/broken.json"
expect_usage "expected two reports" diff "$T/old.json"
expect_usage "is not a preflight.report/v1 report" diff "$T/old.json" "$T/fleet.json"
expect_usage "is not valid JSON" diff "$T/broken.json" "$T/old.json"
expect_usage "cannot read" diff "$T/old.json" "$T/nope.json"
expect_usage "unknown format" diff --format csv "$T/old.json" "$T/new.json"
pf diff --help
expect_rc 0 "diff --help"
grep -q '^usage: preflight diff' "$T/out" || not_ok "diff --help text"

done_testing
