#!/bin/sh
# SPDX-License-Identifier: MIT
# `preflight fleet`'s wiring view (docs/rails.md "Wiring") over synthetic
# reports (wiring_reports.py): a flat InfiniBand fabric and a routed one are
# not judged, healthy per-rail subnets, a DGX H100 beside an HGX and LLDP
# leaves name nobody, one node's swapped rails 0/1 (from run reports or
# from one mesh report's rendezvous table) name exactly that node in JSON,
# text, CSV and --drain-suspects, two nodes are too few, a malformed rail
# table is named and ignored, a hostile host name never reaches a command;
# then real run reports of four generated RoCE nodes, one with its two
# rails' addresses swapped, name that node and only it.
. "$(dirname "$0")/lib.sh"
need_python
gen() { "$PY" "$(dirname "$0")/wiring_reports.py" "$T/$1" "$1" || not_ok "wiring_reports.py $1"; }
for s in flat_ib subnets routed swapped two_nodes mixed lldp lldp_swapped mesh_swapped malformed \
	hostile; do
	gen $s
done

# miswired SCENARIO 'HOST:RAIL:SITS_WITH ...' JUDGED: the JSON view's miswired
# ports and how many rail indices were judged
miswired() {
	pf fleet --format json "$T/$1"
	got=$(jq_py "$T/out" '" ".join("%s:%s:%s" % (m["host"], m["rail"], m["sits_with_rail"]) for m in r["wiring"]["miswired"]), sum(x["judged"] for x in r["wiring"]["rails"])')
	if [ "$got" = "('$2', $3)" ]; then ok "$1: miswired '$2', $3 rails judged"
	else not_ok "$1: got $got, expected ('$2', $3)"; fi
}

miswired flat_ib "" 0
expect_rc 0 "flat InfiniBand: nothing to judge, nobody named"
miswired routed "" 0
expect_rc 0 "routed fabric: not judged"
miswired subnets "" 8
expect_rc 0 "healthy per-rail subnets"
miswired mixed "" 8
expect_rc 0 "DGX H100 beside HGX: rails compared by index"
miswired lldp "" 8
miswired two_nodes "" 0
expect_rc 0 "two nodes: too few to judge"
miswired swapped "n3:0:1 n3:1:0" 8
expect_rc 1 "swapped rails: exit 1"
miswired mesh_swapped "n3:0:1 n3:1:0" 8
expect_rc 1 "swapped rails from one mesh report"
miswired lldp_swapped "n2:2:5 n2:5:2" 8

pf fleet --format json "$T/flat_ib"
py_ok "flat IB: every rail says why it is not judged" "$T/out" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["wiring"]
assert w["nodes"] == 4 and not w["judged"] and w["miswired"] == [], w
for r in w["rails"]:
    assert r["by"] == "ib_subnet" and "one flat fabric" in r["why"], r
PY
pf fleet --format json "$T/routed"
[ "$(jq_py "$T/out" 'all("routed" in x["why"] for x in r["wiring"]["rails"])')" = True ] &&
	ok "routed: said why" || not_ok "routed: $(head -c 400 "$T/out")"
pf fleet --format json "$T/swapped"
py_ok "swapped: where it sits, where it belongs, swapped" "$T/out" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["wiring"]["miswired"][0]
assert (m["device"], m["port"], m["by"], m["sits_in"], m["belongs_in"], m["swapped"]) == \
    ("mlx5_0", 1, "subnet", "10.0.1.0/24", "10.0.0.0/24", True), m
assert "sits in IPv4 subnet 10.0.1.0/24 with the other nodes' rail 1" in m["why"], m
assert "rails 0<->1 swapped" in m["why"], m
PY

pf fleet "$T/swapped"
grep -q "^n3  *mlx5_0:1  *0  mlx5_0:1 (rail 0) sits in IPv4 subnet 10.0.1.0/24 with the other nodes' rail 1" "$T/out" &&
	ok "text: the miswired port" || not_ok "text: $(sed -n '/Wiring/,$p' "$T/out")"
pf fleet "$T/subnets"
grep -q "^No miswired nodes" "$T/out" && ok "text: no miswired nodes" ||
	not_ok "healthy text: $(sed -n '/Wiring/,$p' "$T/out")"
pf fleet --format csv "$T/swapped"
grep -q "^miswired,n3,wiring,mlx5_1:1,miswired,subnet,1,10.0.1.0/24," "$T/out" &&
	ok "csv: the miswired row" || not_ok "csv: $(grep miswired "$T/out")"
[ "$(grep -c '^miswired,' "$T/out")" = 2 ] && ok "csv: two rows" || not_ok "csv rows: $(cat "$T/out")"

# --drain-suspects: the miswired node, once, naming the ports and rails
pf fleet --drain-suspects "$T/swapped"
expect_rc 1 "drain: a miswired node"
if [ "$(grep -c '^scontrol' "$T/out")" = 1 ] &&
	grep -qx 'scontrol update NodeName=n3 State=DRAIN Reason="preflight fleet wiring: mlx5_0:1 rail 0 sits with rail 1, mlx5_1:1 rail 1 sits with rail 0: check the cables"' "$T/out"
then ok "drain: the miswired node once"; else not_ok "drain swapped: $(cat "$T/out")"; fi
for s in subnets flat_ib routed mixed two_nodes; do
	pf fleet --drain-suspects "$T/$s"
	grep -q '^scontrol' "$T/out" && not_ok "$s: a healthy node drained: $(cat "$T/out")" ||
		ok "drain $s: nobody"
done
pf fleet --drain-suspects "$T/hostile"
if grep -q '^scontrol' "$T/out" || grep -qF '$(' "$T/out" || grep -qF 'n3;' "$T/out" ||
	! grep -q "^# not drained: host 'n3__(reboot)' is not a plain host name" "$T/out"; then
	not_ok "a hostile host name reached a command: $(cat "$T/out")"
else ok "drain: a host name with shell syntax is never a command"; fi

# a malformed rail table: named with its file, ignored, the others judged
pf fleet --format json "$T/malformed"
expect_err "node1.json': rail table ignored: node.rails[1]: 'rail' is not a whole number below 64"
py_ok "malformed: ignored, the report still read" "$T/out" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
w = v["wiring"]
assert v["nodes"] == 4 and v["inputs"]["rejected"] == 0, v["inputs"]
assert [e["file"].endswith("node1.json") for e in w["errors"]] == [True], w["errors"]
assert w["nodes"] == 3 and w["miswired"] == [], w
PY

# real run reports: four generated RoCE nodes, a subnet per rail; g3's two
# rails carry each other's addresses (its cables in each other's leaf)
for k in 1 2 3 4; do
	gen_root "$T/root$k" --gpus 2 --nics 2 --link-layer eth --rail-subnets distinct --hostname "g$k"
done
set -- $(ls "$T/root3/preflight/ip")
printf '2: %s    inet 10.11.0.1/24 scope global %s\n' "$1" "$1" > "$T/root3/preflight/ip/$1/addr"
printf '3: %s    inet 10.10.0.1/24 scope global %s\n' "$2" "$2" > "$T/root3/preflight/ip/$2/addr"
mkdir "$T/real"
for k in 1 2 3 4; do
	pf --no-config --root "$T/root$k" --only nic_link_speed --format json --output "$T/real/g$k.json"
done
miswired real "g3:0:1 g3:1:0" 2
pf fleet --drain-suspects "$T/real"
[ "$(grep -c '^scontrol update NodeName=g3 ' "$T/out")" = 1 ] && [ "$(grep -c '^scontrol' "$T/out")" = 1 ] &&
	ok "real reports: g3 and only g3 drained" || not_ok "real drain: $(cat "$T/out")"
done_testing
