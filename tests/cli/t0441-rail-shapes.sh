#!/bin/sh
# SPDX-License-Identifier: MIT
# t0441-rail-shapes.sh - the node shapes of issue 29 (tests/gen_root.py) are
# healthy and number their rails alike: an HGX (rails mlx5_0..7), a DGX H100
# (rails mlx5_0,3,4,5,6,9,10,11 beside BlueField-3 storage ports at 200G), a
# renumbered node (one more device first: every mlx5_N shifts by one) and an
# InfiniBand node with an Ethernet front-end port each pass `preflight --all`
# with no fail, warn or error, and rail i is the same GPU's rail on all of them.
. "$(dirname "$0")/lib.sh"
need_python

rails_of() { # "rail:device/port:gpu" of the compute ports, in rail order
	"$PY" - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rails = sorted((p for p in r["node"]["rails"] if p["role"] == "compute"), key=lambda p: p["rail"])
print(" ".join("%d:%s/%d:%s" % (p["rail"], p["device"], p["port"], p["gpu"]) for p in rails))
PY
}

for shape in hgx dgx renumber frontend dgx-roce; do
	case $shape in
	hgx) args= ;;
	dgx) args=--dgx-naming ;;
	renumber) args=--renumber ;;
	frontend) args=--frontend-eth ;;
	dgx-roce) args="--dgx-naming --link-layer eth" ;;
	esac
	# shellcheck disable=SC2086
	gen_root "$T/$shape" $args
	pf --no-config --root "$T/$shape" --all --format json
	expect_rc 0 "$shape: --all"
	jq_py "$T/out" '" ".join(c["name"] + "=" + c["status"] for c in r["checks"] if c["status"] not in ("pass", "skip"))' > "$T/bad"
	[ -z "$(tr -d ' \n' < "$T/bad")" ] && ok "$shape: every check passes or skips" ||
		not_ok "$shape: not pass/skip: $(cat "$T/bad")"
	cp "$T/out" "$T/$shape.json"
done

# the roles the shapes are made of
py_ok "dgx: 8 compute rails, 4 BlueField-3 storage ports" "$T/dgx.json" <<'PY'
import json, sys
p = {x["device"]: x for x in json.load(open(sys.argv[1]))["node"]["rails"]}
compute = sorted((x for x in p.values() if x["role"] == "compute"), key=lambda x: x["rail"])
assert [x["device"] for x in compute] == ["mlx5_%d" % n for n in (0, 3, 4, 5, 6, 9, 10, 11)], compute
for n in (1, 2, 7, 8):
    s = p["mlx5_%d" % n]
    assert s["role"] == "storage" and s["rail"] is None and s["rate_gbps"] == 200, s
PY
py_ok "renumber: mlx5_0 is the extra storage port, the rails mlx5_1..8" "$T/renumber.json" <<'PY'
import json, sys
p = {x["device"]: x for x in json.load(open(sys.argv[1]))["node"]["rails"]}
assert p["mlx5_0"]["role"] == "storage", p["mlx5_0"]
assert [p["mlx5_%d" % (i + 1)]["rail"] for i in range(8)] == list(range(8))
PY

# rail i serves the same GPU (by PCI address) on every shape
want=$(rails_of "$T/hgx.json")
[ "$(echo "$want" | wc -w)" -eq 8 ] && ok "hgx: 8 rails" || not_ok "hgx rails: $want"
for shape in dgx renumber frontend dgx-roce; do
	got=$(rails_of "$T/$shape.json")
	same=$(echo "$got" | tr ' ' '\n' | awk -F: '{print $1 ":" $3 ":" $4 ":" $5 ":" $6}')
	ref=$(echo "$want" | tr ' ' '\n' | awk -F: '{print $1 ":" $3 ":" $4 ":" $5 ":" $6}')
	[ "$same" = "$ref" ] && ok "$shape: rail i is the same GPU's rail as on the hgx" ||
		not_ok "$shape: rails $got, hgx $want"
done

# the text table: the rails in rail order, then the other ports as a person counts them
pf --no-config --root "$T/dgx" --format text
sed -n '/^rdma ports:/,/^$/p' "$T/out" | awk 'NR > 1 && NF { print $1 == "rail" ? $3 : $2 }' |
	tr '\n' ' ' > "$T/order"
[ "$(cat "$T/order")" = "mlx5_0/1 mlx5_3/1 mlx5_4/1 mlx5_5/1 mlx5_6/1 mlx5_9/1 mlx5_10/1 mlx5_11/1 mlx5_1/1 mlx5_2/1 mlx5_7/1 mlx5_8/1 " ] &&
	ok "dgx: the text table lists rails 0-7, then mlx5_1,2,7,8" ||
	not_ok "dgx: text table order: $(cat "$T/order")"

done_testing
