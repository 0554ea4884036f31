#!/bin/sh
# SPDX-License-Identifier: MIT
# dcqcn on generated roots (tests/gen_root.py): MLNX_OFED's ecn switches on,
# one role off after a "reimage", upstream mlx5 decided by the firmware's
# ROCE_CC_PRIO_MASK_P<n> (recorded mstconfig output: off fails, off only for
# next boot warns), counters as port-wide evidence (CNPs ignored, marked
# packets never answered: warnings, both reported; DCQCN at work; no
# evidence: skip), dcqcn.ignore, a RoCE LAG bond whose slaves have the ecn
# switches, InfiniBand only, required=false, and a snapshot of the failing
# node giving the same verdict offline.
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
field "c['findings'][0]['message']" | grep -q "ROCE_CC_PRIO_MASK_P1 not captured" &&
	ok "the skip names the missing fact" ||
	not_ok "skip message: $(field "c['findings'][0]['message']")"
field "c['findings'][0]['remedy']" | grep -q "cc_params" &&
	not_ok "the remedy points at debugfs cc_params/, which cannot decide" ||
	ok "the remedy does not point at debugfs"
field "c['findings'][0]['remedy']" | grep -q "mstflint" && ok "the remedy names mstflint" ||
	not_ok "remedy: $(field "c['findings'][0]['remedy']")"

# nv ROOT DEV CURRENT NEXT: mstconfig -e q output (mstflint 4.21's layout) recorded for DEV
nv() {
	bdf=$(basename "$(readlink -f "$1/sys/class/infiniband/$2/device")")
	mkdir -p "$1/preflight/mstconfig/$bdf"
	{
		printf '\nDevice #1:\n----------\n\n%-16s%-16s\n%-16s%-16s\n\n' \
			"Device type:" ConnectX7 "Device:" "$bdf"
		printf '%-16s%36s%16s%18s\n' "Configurations:" Default Current "Next Boot"
		printf '%s        %-36s%-16s%-16s%-16s\n' "$([ "$3" = "$4" ] && echo ' ' || echo '*')" \
			ROCE_CC_PRIO_MASK_P1 255 "$3" "$4"
	} >"$1/preflight/mstconfig/$bdf/ROCE_CC_PRIO_MASK_P1"
}

# upstream mlx5 with the firmware's enable recorded: every port on
gen "$T/nv" --link-layer eth
for d in 0 1 2 3 4 5 6 7; do nv "$T/nv" mlx5_$d 255 255; done
pf --no-config --root "$T/nv" --only dcqcn --format json
expect_rc 0 "firmware enable on for every port"
expect_status pass "firmware enable on for every port"
# the seeds' incident: a reimage left mlx5_2's mask without the RoCE priority
nv "$T/nv" mlx5_2 0xf7 255
pf --no-config --root "$T/nv" --only dcqcn --format json
expect_rc 1 "bit 3 clear in current on mlx5_2"
expect_status fail "bit 3 clear in current on mlx5_2"
f=$(field "[f['subject'] for f in c['findings'] if f['status'] == 'fail']")
[ "$f" = "['mlx5_2/1']" ] && ok "names the port" || not_ok "failing subjects $f"
field "[f['message'] for f in c['findings'] if f['status'] == 'fail'][0]" |
	grep -q "ROCE_CC_PRIO_MASK_P1 is 0xf7 (bit 3 clear), set for the next boot" &&
	ok "says the value, the bit and the pending next boot" || not_ok "fail message"
field "[f['remedy'] for f in c['findings'] if f['status'] == 'fail'][0]" |
	grep -q "mstconfig -d 0000:.* set ROCE_CC_PRIO_MASK_P1=0xff" && ok "remedy sets the bit" ||
	not_ok "remedy: $(field "[f['remedy'] for f in c['findings'] if f['status'] == 'fail'][0]")"
pf --no-config --root "$T/nv" --only dcqcn --set dcqcn.roce_prio=4 --format json
expect_status pass "bit 4 is set in 0xf7"
pf --no-config --root "$T/nv" --only dcqcn --set dcqcn.required=false --format json
expect_status warn "bit clear with required=false"
pf --no-config --root "$T/nv" --only dcqcn --set dcqcn.ignore=mlx5_2 --format json
expect_status pass "mlx5_2 ignored (a storage port)"
field "[f['message'] for f in c['findings'] if f['subject'] == 'mlx5_2/1'][0]" |
	grep -q "ignored" && ok "the ignored port says so" || not_ok "ignored port"
# on now, off after the next firmware reset
nv "$T/nv" mlx5_2 255 0
pf --no-config --root "$T/nv" --only dcqcn --format json
expect_status warn "only next boot clears the bit"
# the snapshot records the firmware facts and gives the same verdict offline
nv "$T/nv" mlx5_2 0 0
"$PREFLIGHT" snapshot --root "$T/nv" "$T/nvsnap" >/dev/null 2>&1 || not_ok "snapshot"
pf --no-config --root "$T/nvsnap" --only dcqcn --format json
expect_status fail "the snapshot of the firmware facts"

# RoCE LAG on MLNX_OFED: the ecn switches are on the bond's slaves
gen "$T/lag" --link-layer eth --roce-lag 1
for s in enp20s0f0np0 enp20s0f1np1; do
	d=$(readlink -f "$T/lag/sys/class/net/$s")
	for role in roce_np roce_rp; do
		mkdir -p "$d/ecn/$role/enable"
		echo 1 >"$d/ecn/$role/enable/3"
	done
done
echo 0 >"$(readlink -f "$T/lag/sys/class/net/enp20s0f1np1")/ecn/roce_rp/enable/3"
pf --no-config --root "$T/lag" --only dcqcn --format json
f=$(field "sorted(f['subject'] + ':' + f['status'] for f in c['findings'] if 'prio3' in f['subject'])")
[ "$f" = "['enp20s0f0np0/roce_np/prio3:pass', 'enp20s0f0np0/roce_rp/prio3:pass', 'enp20s0f1np1/roce_np/prio3:pass', 'enp20s0f1np1/roce_rp/prio3:fail']" ] &&
	ok "the bond's slaves' switches are judged" || not_ok "LAG findings: $f"

HW=/sys/class/infiniband/mlx5_2/ports/1/hw_counters
gen "$T/ign" --link-layer eth --file "$HW/rp_cnp_ignored=12" \
	--file "$HW/np_ecn_marked_roce_packets=500"
pf --no-config --root "$T/ign" --only dcqcn --format json
# port-wide counters: the CNPs may be a storage priority's, where DCQCN is off by design
expect_status warn "CNPs ignored, none ever handled"
f=$(field "sorted(f['subject'] for f in c['findings'] if f['status'] == 'warn')")
[ "$f" = "['mlx5_2/1/np', 'mlx5_2/1/rp']" ] && ok "both the RP and the NP branch reported" ||
	not_ok "warn subjects $f"
# the counter is port-wide: some handled means the RP works on some priority (a warning)
gen "$T/ign2" --link-layer eth --file "$HW/rp_cnp_ignored=12" --file "$HW/rp_cnp_handled=900"
pf --no-config --root "$T/ign2" --only dcqcn --format json
expect_status warn "CNPs ignored beside handled ones"
gen "$T/mark" --link-layer eth --file "$HW/np_ecn_marked_roce_packets=500"
pf --no-config --root "$T/mark" --only dcqcn --format json
expect_status warn "marked packets, no CNP sent"
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

# issue 31 item 8: the notification point is port-wide (NVIDIA's DCQCN guide):
# roce_np off on the RoCE priority with NP on for the others is not a fail
gen "$T/np" --link-layer eth --ecn --ecn-off-prio mlx5_3:roce_np:3
pf --no-config --root "$T/np" --only dcqcn --format json
expect_rc 0 "NP off on priority 3 alone"
expect_status pass "NP off on priority 3 alone"
field "[f['message'] for f in c['findings'] if f['subject'] == 'enp44s0np0/roce_np/prio3'][0]" |
	grep -q "port-wide" && ok "says the NP is port-wide" || not_ok "NP message"
gen "$T/rp3" --link-layer eth --ecn --ecn-off-prio mlx5_3:roce_rp:3
pf --no-config --root "$T/rp3" --only dcqcn --format json
expect_status fail "RP off on priority 3 alone (the RP is per priority)"

# issue 31 item 6: a RoCE LAG on upstream mlx5 is judged by P1 and P2 of its card
gen "$T/nvlag" --link-layer eth --roce-lag 1 --mstconfig
pf --no-config --root "$T/nvlag" --only dcqcn --format json
expect_status pass "LAG, P1 and P2 on"
gen "$T/nvlag2" --link-layer eth --roce-lag 1 --mstconfig \
	--mstconfig-off mlx5_bond_0:ROCE_CC_PRIO_MASK_P2
pf --no-config --root "$T/nvlag2" --only dcqcn --format json
expect_rc 1 "LAG, P2 off"
f=$(field "[f['subject'] for f in c['findings'] if f['status'] == 'fail']")
[ "$f" = "['mlx5_bond_0/1/ROCE_CC_PRIO_MASK_P2']" ] && ok "names the bond's P2" ||
	not_ok "LAG failing subjects $f"
"$PREFLIGHT" snapshot --root "$T/nvlag2" "$T/lagsnap" >/dev/null 2>&1 || not_ok "snapshot"
pf --no-config --root "$T/lagsnap" --only dcqcn --format json
expect_status fail "the snapshot of the LAG with P2 off"
# an older snapshot of the LAG holding P1 alone: P2 is not captured (a skip
# naming it), and a snapshot of that root does not make P2 up
rm "$T"/nvlag/preflight/mstconfig/*/ROCE_CC_PRIO_MASK_P2
pf --no-config --root "$T/nvlag" --only dcqcn --format json
f=$(field "sorted(f['subject'] + ':' + f['status'] for f in c['findings'])")
[ "$f" = "['mlx5_1/1:pass', 'mlx5_2/1:pass', 'mlx5_3/1:pass', 'mlx5_4/1:pass', 'mlx5_5/1:pass', 'mlx5_6/1:pass', 'mlx5_7/1:pass', 'mlx5_bond_0/1/ROCE_CC_PRIO_MASK_P1:pass', 'mlx5_bond_0/1:skip']" ] &&
	ok "P2 not captured: a skip beside P1's pass" || not_ok "old LAG snapshot: $f"
"$PREFLIGHT" snapshot --root "$T/nvlag" "$T/lagsnap1" >/dev/null 2>&1 || not_ok "snapshot"
ls "$T"/lagsnap1/preflight/mstconfig/*/ROCE_CC_PRIO_MASK_P2 >/dev/null 2>&1 &&
	not_ok "the snapshot made up P2" || ok "the snapshot records P1 alone"

# issue 31 item 5: the tool is there and fails (Secure Boot lockdown,
# mstflint#416): a warn naming its first line with required=true, the same
# whether recorded as <name>.failed or as a hand capture of its output
gen "$T/lock" --link-layer eth --mstconfig --mstconfig-fail "-E- Failed to open the device"
pf --no-config --root "$T/lock" --only dcqcn --format json
expect_status warn "the tool failed (.failed)"
field "c['findings'][0]['message']" | grep -q "failed: -E- Failed to open the device" &&
	ok "names the tool's line" || not_ok "message: $(field "c['findings'][0]['message']")"
pf --no-config --root "$T/lock" --only dcqcn --set dcqcn.required=false --format json
expect_status skip "the tool failed, required=false"
for f in "$T"/lock/preflight/mstconfig/*/*.failed; do mv "$f" "${f%.failed}"; done
pf --no-config --root "$T/lock" --only dcqcn --format json
expect_status warn "the tool's failure as a hand capture"
field "c['findings'][0]['message']" | grep -q "(-E- Failed to open the device)" &&
	ok "names the tool's line from the capture" ||
	not_ok "message: $(field "c['findings'][0]['message']")"
"$PREFLIGHT" snapshot --root "$T/lock" "$T/locksnap" >/dev/null 2>&1 || not_ok "snapshot"
pf --no-config --root "$T/locksnap" --only dcqcn --format json
expect_status warn "the snapshot of the failing tool"

done_testing
