#!/bin/sh
# SPDX-License-Identifier: MIT
# AWS EFA (1d0f:efa0) is an RDMA device but not RoCE: no netdev of its own,
# SRD instead of RoCE, no PFC. Upstream efa reports the link layer as
# Unspecified (sysfs "Unknown"); early out-of-tree drivers said "Ethernet".
# Either way pfc_pause skips it (it used to error "RoCE port has no netdev")
# and nic_link_speed looks for no RoCE netdev; beside RoCE NICs, only those
# are judged.
. "$(dirname "$0")/lib.sh"

# status ROOT CHECK: that check's status in $T/out
status() {
	jq_py "$T/out" "[c['status'] for c in r['checks'] if c['name'] == '$1'][0]"
}

for ll in Unknown Ethernet; do
	root=$T/efa-$ll
	"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 0 --nics 0 --efa 4 \
		--efa-link-layer "$ll" "$root" >/dev/null || not_ok "gen_root --efa ($ll)"
	pf --root "$root" --only pfc_pause,nic_link_speed,sysctl --format json
	expect_rc 0 "EFA only, link_layer $ll"
	[ "$(status pfc_pause)" = skip ] && ok "$ll: pfc_pause skips" ||
		not_ok "$ll: pfc_pause is $(status pfc_pause)"
	summary=$(jq_py "$T/out" "[c['summary'] for c in r['checks'] if c['name'] == 'pfc_pause'][0]")
	case $summary in
	*"0 InfiniBand, 4 of another link layer"*) ok "$ll: the skip says what the ports are" ;;
	*) not_ok "$ll: pfc_pause summary '$summary'" ;;
	esac
	[ "$(status nic_link_speed)" = pass ] && ok "$ll: nic_link_speed passes" ||
		not_ok "$ll: nic_link_speed is $(status nic_link_speed)"
	grep -q "no netdev" "$T/out" && not_ok "$ll: a finding asks for an EFA netdev" ||
		ok "$ll: no finding asks for an EFA netdev"
done

# RoCE rails beside EFA devices: the rails are judged, EFA left alone
root=$T/mixed
"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --link-layer eth --nics 2 --gpus 2 --efa 2 \
	--efa-link-layer Ethernet "$root" >/dev/null || not_ok "gen_root mixed"
pf --root "$root" --only pfc_pause --format json
n=$(jq_py "$T/out" "len([f for f in r['checks'][0]['findings'] if 'efa' in f['subject'] or 'efa' in f['message']])")
[ "$n" = 0 ] && ok "mixed: no pfc_pause finding about efa" || not_ok "mixed: $n findings name efa"
n=$(jq_py "$T/out" "len([f for f in r['checks'][0]['findings'] if f['status'] == 'error'])")
[ "$n" = 0 ] && ok "mixed: no pfc_pause error" || not_ok "mixed: $n pfc_pause errors"

done_testing
