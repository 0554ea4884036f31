#!/bin/sh
# SPDX-License-Identifier: MIT
# dcqcn on generated roots (tests/gen_root.py): MLNX_OFED's ecn switches on,
# one role off after a "reimage", upstream mlx5 with only counters as
# evidence (CNPs ignored, marked packets never answered, DCQCN at work, no
# evidence: skip), InfiniBand only, required=false, and a snapshot of the
# failing node giving the same verdict offline.
. "$(dirname "$0")/lib.sh"

gen() {
	dir=$1
	shift
	"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" "$@" "$dir" >/dev/null || not_ok "gen_root $*"
}

# field EXPR: a Python expression over the report r, its dcqcn check c
field() {
	jq_py "$T/out" "(lambda c: $1)([c for c in r['checks'] if c['name'] == 'dcqcn'][0])"
}

expect_status() {
	got=$(field "c['status']")
	[ "$got" = "$1" ] && ok "$2: $got" || not_ok "$2: status $got, expected $1"
}

gen "$T/on" --link-layer eth --ecn
pf --no-config --root "$T/on" --only dcqcn --format json
expect_rc 0 "ecn switches on"
expect_status pass "ecn switches on"
n=$(field "len([f for f in c['findings'] if f['status'] == 'pass'])")
[ "$n" = 16 ] && ok "8 rails x 2 roles judged" || not_ok "$n pass findings, expected 16"

gen "$T/off" --link-layer eth --ecn --ecn-off mlx5_3:roce_rp
pf --no-config --root "$T/off" --only dcqcn --format json
expect_rc 1 "reaction point off on mlx5_3"
expect_status fail "reaction point off on mlx5_3"
f=$(field "[f['subject'] for f in c['findings'] if f['status'] == 'fail']")
[ "$f" = "['enp44s0np0/roce_rp/prio3']" ] && ok "names the rail, role and priority" ||
	not_ok "failing subjects $f"
field "[f['remedy'] for f in c['findings'] if f['status'] == 'fail'][0]" | grep -q ROCE_CC_PRIO_MASK &&
	ok "remedy names ROCE_CC_PRIO_MASK" || not_ok "remedy"
pf --no-config --root "$T/off" --only dcqcn --set dcqcn.required=false --format json
expect_rc 0 "required=false"
expect_status warn "required=false"
pf --no-config --root "$T/off" --only dcqcn --set dcqcn.roce_prio=9 --format json
expect_rc 64 "roce_prio out of range"

# the snapshot gives the same verdict offline
"$PREFLIGHT" snapshot --root "$T/off" "$T/snap" >/dev/null 2>&1 || not_ok "snapshot"
pf --no-config --root "$T/snap" --only dcqcn --format json
expect_status fail "the snapshot of the failing node"

# upstream mlx5: no ecn directory, only counters
gen "$T/up" --link-layer eth
pf --no-config --root "$T/up" --only dcqcn --format json
expect_rc 0 "upstream, no congestion seen"
expect_status skip "upstream, no congestion seen"
field "c['findings'][0]['message']" | grep -q "no evidence either way" &&
	ok "the skip says why" || not_ok "skip message: $(field "c['findings'][0]['message']")"

HW=/sys/class/infiniband/mlx5_2/ports/1/hw_counters
gen "$T/ign" --link-layer eth --file "$HW/rp_cnp_ignored=12"
pf --no-config --root "$T/ign" --only dcqcn --format json
expect_status fail "CNPs ignored, none ever handled"
# the counter is port-wide: some handled means the RP works on some priority (a warning)
gen "$T/ign2" --link-layer eth --file "$HW/rp_cnp_ignored=12" --file "$HW/rp_cnp_handled=900"
pf --no-config --root "$T/ign2" --only dcqcn --format json
expect_status warn "CNPs ignored beside handled ones"
gen "$T/mark" --link-layer eth --file "$HW/np_ecn_marked_roce_packets=500"
pf --no-config --root "$T/mark" --only dcqcn --format json
expect_status fail "marked packets, no CNP sent"
gen "$T/work" --link-layer eth --file "$HW/np_ecn_marked_roce_packets=500" \
	--file "$HW/np_cnp_sent=40" --file "$HW/rp_cnp_handled=7"
pf --no-config --root "$T/work" --only dcqcn --format json
n=$(field "len([f for f in c['findings'] if f['status'] == 'pass'])")
[ "$n" = 1 ] && ok "DCQCN at work on mlx5_2 passes it" || not_ok "$n passes, expected 1"

gen "$T/ib" --link-layer ib
pf --no-config --root "$T/ib" --only dcqcn --format json
expect_status skip "InfiniBand only"
field "c['summary']" | grep -q "subnet manager" && ok "says whose it is" ||
	not_ok "IB summary: $(field "c['summary']")"

done_testing
