#!/bin/sh
# SPDX-License-Identifier: MIT
# `preflight fleet` over `preflight mesh` reports (docs/mesh.md "The fleet
# view"), on synthetic runs of 4 ranks and 2 rails (mesh_reports.py): the
# fleet merges the matrix, triangulates it itself (rank 0's own suspects
# wrongly name n2 in every run) and names a slow rail with its direction, a
# slow node, a dead path, a missing and a silent rank, and nothing in a
# healthy run; --drain-suspects prints scontrol lines for node and rail
# suspects and missing ranks only, never for a path or a name that is not
# a plain host name; malformed mesh observations are named and ignored
# while the reports stay read; a file that is not a report stays rejected.
# By rail identity: an HGX, two DGX H100s and a renumbered node in one run
# name nobody; a rail index slow on 3 of 4 nodes is one fabric suspect that
# drains nobody; a lossy rail still names that rail; pairs not comparable
# and untested rails are shown, never blamed (a failed flow between rails
# the tables call incomparable is left out); malformed records are refused.
. "$(dirname "$0")/lib.sh"
need_python
gen() { "$PY" "$(dirname "$0")/mesh_reports.py" "$T/$1" "$1" || not_ok "mesh_reports.py $1"; }
for s in healthy slow_rail slow_node dead_path missing silent malformed two_runs hostile conflict \
	mixed_rates mixed_slow mixed_shapes fabric_rail lossy_rail incomparable uneven bad_notes \
	routed_dead routed_halves forged_all forged_set forged_outsider disagree nodelist \
	nodelist_wrong two_jobs; do
	gen $s
done

# suspects SCENARIO 'KIND:HOST:RAIL:DIR ...': the JSON view's suspects, in order
suspects() {
	pf fleet --format json "$T/$1"
	got=$(jq_py "$T/out" '" ".join("%s:%s:%s:%s" % (s["kind"], s.get("host", "-"), s.get("rail", "-"), s.get("dir", "-")) for s in r["mesh"]["suspects"])')
	if [ "$got" = "$2" ]; then ok "$1: suspects '$2'"; else not_ok "$1: suspects '$got', expected '$2'"; fi
}

suspects healthy ""
expect_rc 0 "healthy: no suspect"
suspects slow_rail "rail:n3:1:tx"
expect_rc 1 "slow rail: a suspect"
suspects slow_node "node:n2:-:tx"
suspects dead_path "path:n1:0:both"
suspects missing "missing:n4:-:-"
suspects silent "silent:n3:-:-"
# mixed node types: judged by the slower end's port rate
suspects mixed_rates ""
expect_rc 0 "a 200G node beside 400G ones at its line rate: no suspect"
suspects mixed_slow "node:n4:-:tx"
# mixed shapes by rail identity (HGX, DGX H100, renumbered)
suspects mixed_shapes ""
expect_rc 0 "mixed shapes: no suspect"
[ "$(jq_py "$T/out" 'len(r["mesh"]["not_comparable"]), len(r["mesh"]["untested"])')" = "(0, 0)" ] &&
	ok "mixed shapes: nothing not comparable or untested" || not_ok "mixed shapes: $(head -c 300 "$T/out")"
suspects fabric_rail "fabric:-:3:tx"
py_ok "fabric: one suspect, the fraction of nodes, no host" "$T/out" <<'PY'
import json, sys
[s] = json.load(open(sys.argv[1]))["mesh"]["suspects"]
assert s["nodes_bad"] == 3 and s["nodes"] == 4 and "rank" not in s and "host" not in s, s
assert 0.2 < s["ratio"] < 0.4 and "3 of 4 nodes" in s["why"], s
PY
suspects lossy_rail "rail:n3:5:both"
# routed fabrics: a rail that connected with nobody is dead; two subnets that
# do not route to each other, every rail working inside its own, name nobody
suspects routed_dead "rail:n4:2:both"
suspects routed_halves ""
expect_rc 0 "routed halves: no suspect"
suspects incomparable ""
py_ok "incomparable: three records shown, the failed flow left out" "$T/out" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["mesh"]
assert len(m["not_comparable"]) == 3 and m["not_comparable_measurements"] == 1, m
n = [x for x in m["not_comparable"] if x["rank"] == 0][0]
assert n["peer_host"] == "n4" and n["rail"] == 1, n
assert n["why"] == "rail 1: InfiniBand at rank 0, Ethernet at rank 3 (mlx5_1 vs mlx5_2)", n
PY
suspects uneven ""
[ "$(jq_py "$T/out" '[(u["host"], u["rail"], u["device"]) for u in r["mesh"]["untested"]]')" = "[('n4', 8, 'mlx5_9')]" ] &&
	ok "uneven: the extra rail untested" || not_ok "uneven: $(head -c 300 "$T/out")"
pf fleet "$T/uneven"
grep -q "^  n4 rail 8 mlx5_9: untested: rank 0 has 8 rails" "$T/out" && ok "text: untested rails" ||
	not_ok "uneven text: $(sed -n '/Mesh/,$p' "$T/out")"
pf fleet "$T/incomparable"
grep -q "^Not comparable, not judged (3)" "$T/out" && ok "text: not comparable" ||
	not_ok "incomparable text: $(sed -n '/Mesh/,$p' "$T/out")"
pf fleet --format json "$T/bad_notes"
expect_err "n2.json': mesh observations ignored: not_comparable[0]"

pf fleet --format json "$T/slow_rail"
py_ok "slow rail: device, ratio to the healthy median, slow of seen" "$T/out" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["mesh"]
[s] = m["suspects"]
assert s["device"] == "rxe1" and s["rank"] == 2, s
assert 0.15 < s["ratio"] < 0.3 and s["n_slow"] == 3 and s["n_seen"] == 3, s
assert 8.5 < m["healthy_median_gbps"] < 11.5, m
assert m["measurements"] == 24 and m["duplicates"] == 72 and m["conflicts"] == 0, m
assert m["judged"] and m["errors"] == [], m
PY
pf fleet --format json "$T/dead_path"
py_ok "dead path: both ends named, the error kept" "$T/out" <<'PY'
import json, sys
[s] = json.load(open(sys.argv[1]))["mesh"]["suspects"]
assert s["peer_host"] == "n4" and s["peer_device"] == "rxe0" and s["ratio"] == 0, s
assert "UNREACHABLE" in s["why"], s
PY

pf fleet "$T/slow_rail"
grep -q '^1  rail  n3  *2  *1 rxe1  tx  *0\.[12][0-9]' "$T/out" &&
	ok "text: the ranked suspect row" || not_ok "text view: $(sed -n '/Mesh/,$p' "$T/out")"
grep -q "healthy median" "$T/out" && ok "text: the healthy median" || not_ok "no healthy median"
pf fleet "$T/healthy"
grep -q "^No mesh suspects" "$T/out" && ok "text: no mesh suspects" || not_ok "healthy text view"
pf fleet --format csv "$T/slow_node"
grep -q '^suspect,n2,mesh,,node,tx,0\.1' "$T/out" && ok "csv: the suspect row" ||
	not_ok "csv: $(grep suspect "$T/out")"

# --drain-suspects
drain() { pf fleet --drain-suspects "$T/$1"; }
drain slow_rail
grep -qx 'scontrol update NodeName=n3 State=DRAIN Reason="preflight mesh: rail 1 (rxe1) slow (tx) with every partner: NIC, port or cable, 0.[12][0-9] of the healthy median, 3/3 slow"' "$T/out" &&
	ok "drain: the slow rail's node" || not_ok "drain slow_rail: $(cat "$T/out")"
drain slow_node
[ "$(grep -c '^scontrol update NodeName=n2 State=DRAIN' "$T/out")" = 1 ] &&
	ok "drain: the slow node once" || not_ok "drain slow_node: $(cat "$T/out")"
# a missing rank that wrote no report is not a reporting node: named, never a command
drain missing
! grep -q '^scontrol' "$T/out" &&
	grep -q "^# not drained: rank 3's host 'n4' is not a reporting node: never arrived" "$T/out" &&
	ok "drain: a missing rank without a report of its own is not drained" ||
	not_ok "drain missing: $(cat "$T/out")"
# with a report of its own (its run errored before the mesh), it is
printf '{"schema": "preflight.report/v1", "node": {"hostname": "n4"}, "verdict": "error", "checks": []}\n' \
	>"$T/missing/n4.json"
drain missing
grep -q '^scontrol update NodeName=n4 State=DRAIN Reason="preflight mesh: never arrived' "$T/out" &&
	ok "drain: the missing rank that reported" || not_ok "drain missing+n4: $(cat "$T/out")"
drain dead_path
if grep -q '^scontrol' "$T/out"; then not_ok "a path suspect was drained: $(cat "$T/out")"
else grep -q '^# investigate, not drained: path from n1' "$T/out" && ok "drain: a path is a comment" ||
	not_ok "drain dead_path: $(cat "$T/out")"; fi
drain fabric_rail
if grep -q '^scontrol' "$T/out"; then not_ok "a fabric suspect was drained: $(cat "$T/out")"
else grep -q '^# fabric-wide, not drained: rail 3 slow (tx) with every partner on 3 of 4 nodes' "$T/out" &&
	ok "drain: a fabric suspect is a comment" || not_ok "drain fabric_rail: $(cat "$T/out")"; fi
drain lossy_rail
[ "$(grep -c '^scontrol' "$T/out")" = 1 ] && grep -q '^scontrol update NodeName=n3 ' "$T/out" &&
	ok "drain: the lossy rail's node only" || not_ok "drain lossy_rail: $(cat "$T/out")"
drain healthy
expect_rc 0 "drain: healthy"
grep -q '^scontrol' "$T/out" && not_ok "healthy run drained: $(cat "$T/out")" || ok "drain: nothing healthy"
drain hostile
if grep -q '^scontrol' "$T/out" || grep -qF '$(' "$T/out" || grep -qF 'n2;' "$T/out" ||
	! grep -q "^# not drained: rank 1's host 'n2__(reboot)' is not a plain host name" "$T/out"; then
	not_ok "a hostile host name reached a command: $(cat "$T/out")"
else ok "drain: a host name with shell syntax is never a command"; fi
# issue 30: no report line can drain the cluster.  A table that names the slow
# rank's host ALL, a hostlist, or a host no report is of: listed, never a command
for s in forged_all forged_set forged_outsider; do
	drain $s
	if grep -q '^scontrol' "$T/out"; then not_ok "$s drained: $(cat "$T/out")"; else
		case $s in
		forged_outsider) want="is not a reporting node" ;;
		*) want="is not a plain host name" ;;
		esac
		grep -q "^# not drained: rank 1's host '.*' $want" "$T/out" &&
			ok "drain $s: not a command ($want)" || not_ok "drain $s: $(cat "$T/out")"
	fi
done
# the run's reports disagree on rank 1's host: a warning (text, JSON), no drain
drain disagree
! grep -q '^scontrol' "$T/out" &&
	grep -q "^# not drained: rank 1's host 'victim7': the reports of the run disagree on the host of rank 1: victim7, n2:" "$T/out" &&
	ok "drain disagree: not drained" || not_ok "drain disagree: $(cat "$T/out")"
pf fleet "$T/disagree"
grep -q "warning: the reports disagree on rank 1's host: 'victim7' and 'n2'" "$T/out" &&
	ok "text: the disagreement is a warning" || not_ok "text disagree: $(cat "$T/out")"
pf fleet --format json "$T/disagree"
[ "$(jq_py "$T/out" 'r["mesh"]["host_conflicts"]')" = "[{'rank': 1, 'hosts': ['victim7', 'n2']}]" ] &&
	ok "json: host_conflicts" || not_ok "json disagree: $(jq_py "$T/out" 'r["mesh"].get("host_conflicts")')"
# the run's job id and nodelist (recorded by mesh): they must agree with the tables
drain nodelist
[ "$(grep -c '^scontrol update NodeName=n2 State=DRAIN' "$T/out")" = 1 ] &&
	ok "drain: a nodelist that agrees" || not_ok "drain nodelist: $(cat "$T/out")"
drain nodelist_wrong
! grep -q '^scontrol' "$T/out" && grep -q "the nodelist of the run names n3 as rank 1" "$T/out" &&
	ok "drain: a nodelist that disagrees" || not_ok "drain nodelist_wrong: $(cat "$T/out")"
drain two_jobs
! grep -q '^scontrol' "$T/out" && grep -q "more than one run" "$T/out" &&
	ok "drain: reports of two jobs" || not_ok "drain two_jobs: $(cat "$T/out")"
pf fleet --format json "$T/two_jobs"
[ "$(jq_py "$T/out" 'r["mesh"]["runs_differ"]')" = "True" ] && ok "json: runs_differ" ||
	not_ok "json two_jobs: $(head -c 300 "$T/out")"
pf fleet --drain-suspects "$PF_FIXTURES/fleet" 2>/dev/null
grep -q "no mesh run" "$T/out" && ok "drain: no mesh reports" || note "drain without mesh: $(cat "$T/out")"
pf fleet --drain-suspects --output "$T/drain.sh" "$T/slow_rail"
grep -q '^scontrol update NodeName=n3' "$T/drain.sh" && ok "drain: --output" || not_ok "drain --output"

# the same measurement with another value in a later report: counted, the first kept
suspects conflict ""
[ "$(jq_py "$T/out" 'r["mesh"]["conflicts"], r["mesh"]["measurements"]')" = "(1, 24)" ] &&
	ok "conflict: counted, the first kept" || not_ok "conflict: $(head -c 300 "$T/out")"
pf fleet "$T/conflict"
grep -q "1 measurement differs between reports: the first read is kept" "$T/out" &&
	ok "conflict: said in the text view" || not_ok "conflict text: $(sed -n '/Mesh/,$p' "$T/out")"

# --mesh-slow-fraction: the slow rail at ~0.2 of the median is slow at 0.7, not at 0.1
pf fleet --format json --mesh-slow-fraction 0.1 "$T/slow_rail"
[ "$(jq_py "$T/out" 'len(r["mesh"]["suspects"]), r["mesh"]["slow_fraction"]')" = "(0, 0.1)" ] &&
	ok "--mesh-slow-fraction 0.1: not slow" || not_ok "--mesh-slow-fraction 0.1: $(head -c 300 "$T/out")"
expect_usage "--mesh-slow-fraction" fleet --mesh-slow-fraction 1 "$T/slow_rail"
expect_usage "not a number in (0, 1)" fleet --mesh-slow-fraction x "$T/slow_rail"

# malformed observations: named, ignored, nothing else lost
pf fleet --format json "$T/malformed"
expect_err "n2.json': mesh observations ignored: measurements[1]"
py_ok "malformed: the other reports judged, the node still counted" "$T/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
m = v["mesh"]
assert v["nodes"] == 4 and v["inputs"]["rejected"] == 0, v["inputs"]
assert [e["file"].endswith("n2.json") for e in m["errors"]] == [True], m["errors"]
assert m["reports"] == 4 and m["measurements"] == 24 and m["suspects"] == [], m
PY
pf fleet --format json "$T/two_runs"
expect_err "a run of 3 ranks, where the reports before are of 4"
[ "$(jq_py "$T/out" 'r["mesh"]["size"]')" = 4 ] && ok "two runs: the first run kept" ||
	not_ok "two runs: $(head -c 300 "$T/out")"

# a hostile or unreadable file stays rejected, the mesh still judged
printf 'not json' > "$T/slow_rail/zz.json"
mkfifo "$T/slow_rail/fifo.json"
pf fleet --format json "$T/slow_rail"
expect_err "skipping"
[ "$(jq_py "$T/out" 'r["inputs"]["rejected"], len(r["mesh"]["suspects"])')" = "(2, 1)" ] &&
	ok "rejected files stay rejected" || not_ok "rejected: $(head -c 300 "$T/out")"

# thousands of path suspects (bench/gen_reports.py --mesh): the views list the
# worst 1,000 and say how many more; the counts and the CSV stay whole
"$PY" "$PF_SOURCE_DIR/bench/gen_reports.py" --mesh "$T/big" 300 8 8
pf fleet --format json "$T/big"
expect_rc 1 "fleet over 300 ranks with many path suspects"
"$PY" - "$T/out" <<'PY' && ok "JSON: 1,000 listed, the rest counted" || not_ok "JSON bound"
import json, sys
m = json.load(open(sys.argv[1]))["mesh"]
assert len(m["suspects"]) == 1000 and m["suspects_not_listed"] > 0, len(m["suspects"])
assert all(s["kind"] == "path" and s["n_seen"] == 2 for s in m["suspects"]), m["suspects"][0]
PY
n=$(jq_py "$T/out" '1000 + r["mesh"]["suspects_not_listed"]')
pf fleet "$T/big"
grep -q "^Mesh suspects, worst first ($n)" "$T/out" && ok "text: the count is exact" ||
	not_ok "text count: $(grep -m1 'Mesh suspects' "$T/out")"
grep -q "^  \.\.\. and $((n - 1000)) more, not listed" "$T/out" && ok "text: how many more" ||
	not_ok "text: no 'more' line"
pf fleet --format csv "$T/big"
[ "$(grep -c '^suspect,' "$T/out")" = "$n" ] && ok "CSV: every suspect" ||
	not_ok "CSV rows: $(grep -c '^suspect,' "$T/out") of $n"
done_testing
