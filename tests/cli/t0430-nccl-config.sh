#!/bin/sh
# SPDX-License-Identifier: MIT
# nccl_config on generated roots (tests/gen_root.py): NCCL's settings from the
# job's environment (preflight/env), ~/.nccl.conf and /etc/nccl.conf against
# the node, each verdict with the healthy node that must pass beside it:
# NCCL_IB_HCA (names, coverage, prefix/exact/exclude), NCCL_IB_GID_INDEX,
# GPUDirect RDMA, IB and P2P switches, NCCL_SOCKET_IFNAME, NCCL_TOPO_FILE,
# /dev/infiniband for the job's user, precedence, a Slurm prolog's
# environment, an old snapshot, profile keys, and a snapshot round trip.
. "$(dirname "$0")/lib.sh"

gen() {
	dir=$1
	shift
	"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" "$@" "$dir" >/dev/null || not_ok "gen_root $*"
}

# run ROOT [ARGS]: nccl_config on ROOT
run() {
	root=$1
	shift
	pf --no-config --root "$root" --only nccl_config --format json "$@"
}

# field EXPR: a Python expression over the report r, its nccl_config check c
field() {
	jq_py "$T/out" "(lambda c: $1)([c for c in r['checks'] if c['name'] == 'nccl_config'][0])"
}

# status SUBJECT: the worst status of the findings about SUBJECT (none when absent)
status() {
	field "([s for s in ['error', 'fail', 'warn', 'pass', 'skip'] if s in [f['status'] for f in c['findings'] if f.get('subject') == '$1']] + ['none'])[0]"
}

# message SUBJECT: the messages of the findings about SUBJECT
message() {
	field "' / '.join(f['message'] for f in c['findings'] if f.get('subject') == '$1')"
}

expect_check() {
	got=$(field "c['status']")
	[ "$got" = "$1" ] && ok "$2: $got" || not_ok "$2: check $got, expected $1 ($(field "[(f.get('subject'), f['status']) for f in c['findings'] if f['status'] != 'pass']"))"
}

expect() { # SUBJECT STATUS DESCRIPTION
	got=$(status "$1")
	[ "$got" = "$2" ] && ok "$3: $1 $got" || not_ok "$3: $1 is $got, expected $2: $(message "$1")"
}

expect_msg() { # SUBJECT TEXT DESCRIPTION
	message "$1" | grep -qF -- "$2" && ok "$3" || not_ok "$3: '$(message "$1")' lacks '$2'"
}

ETH="--link-layer eth --storage-nic"

# --- defaults: nothing set is a pass, every uverbs and rdma_cm openable
gen "$T/def" $ETH
run "$T/def"
expect_rc 0 "defaults"
expect_check pass "defaults"
expect_msg config "NCCL defaults" "no configuration says NCCL defaults"
n=$(field "len([f for f in c['findings'] if f['subject'].startswith('/dev/infiniband/')])")
[ "$n" = 10 ] && ok "9 uverbs and rdma_cm judged" || not_ok "$n device findings, expected 10"
gen "$T/ibdef" --link-layer ib
run "$T/ibdef"
expect_check pass "InfiniBand defaults"

# --- NCCL_IB_HCA: coverage
gen "$T/half" $ETH --nccl-env NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3
run "$T/half"
expect_rc 0 "4 of 8 rails warns"
expect NCCL_IB_HCA warn "4 of 8 rails"
expect_msg NCCL_IB_HCA "NCCL will use 4 of 8 rails: mlx5_4..mlx5_7 excluded" "names the excluded rails"
# partial_rails=fail holds NCCL to the rails the profile names, never to inferred ones
run "$T/half" --set nccl_config.partial_rails=fail
expect_rc 0 "partial_rails=fail without nics"
expect NCCL_IB_HCA warn "partial_rails=fail, rails inferred (GPU switches): still a warn"
run "$T/half" --set nccl_config.partial_rails=fail \
	--set nccl_config.nics=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7
expect_rc 1 "partial_rails=fail with nics"
expect NCCL_IB_HCA fail "partial_rails=fail against the profile's rails"
# healthy: excluding the storage NIC, a prefix selecting all, exact names of all rails
for hca in '^mlx5_8' mlx5 '=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7' \
	'mlx5_0:1,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7'; do
	gen "$T/hca-ok" $ETH --nccl-env "NCCL_IB_HCA=$hca"
	run "$T/hca-ok"
	expect NCCL_IB_HCA pass "NCCL_IB_HCA=$hca"
	rm -rf "$T/hca-ok"
done
# the storage NIC is no compute rail: no uverbs for it is no finding once excluded
gen "$T/excl" $ETH --nccl-env 'NCCL_IB_HCA=^mlx5_8' --uverbs-missing mlx5_8
run "$T/excl"
expect_check pass "excluded NIC without uverbs"
# exact vs prefix: '=mlx5_1' is mlx5_1 alone, 'mlx5_1' also mlx5_10 and mlx5_11
gen "$T/twelve" --link-layer ib --gpus 1 --nics 12 --nccl-env NCCL_IB_HCA==mlx5_1
run "$T/twelve" --set nccl_config.nics=mlx5_1
expect NCCL_IB_HCA pass "=mlx5_1 with nics=mlx5_1"
run "$T/twelve" --set nccl_config.nics=mlx5_1,mlx5_10
expect_msg NCCL_IB_HCA "1 of 2 rails: mlx5_10 excluded" "=mlx5_1 does not select mlx5_10"
gen "$T/twelve-p" --link-layer ib --gpus 1 --nics 12 --nccl-env NCCL_IB_HCA=mlx5_1
run "$T/twelve-p" --set nccl_config.nics=mlx5_1,mlx5_10,mlx5_11
expect NCCL_IB_HCA pass "mlx5_1 is a prefix of mlx5_10 and mlx5_11"
# names that match nothing
gen "$T/typo" $ETH --nccl-env NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7,mlx6_0
run "$T/typo"
expect_rc 0 "a name of another node type beside every rail (matchIfList ignores it)"
expect NCCL_IB_HCA warn "an unknown name is a warn"
field "[f['observed'].get('unmatched') for f in c['findings'] if f['status'] == 'warn'][0]" |
	grep -qx mlx6_0 && ok "names the unknown entry" || not_ok "unknown entry not named"
gen "$T/port" $ETH --nccl-env 'NCCL_IB_HCA=mlx5:2'
run "$T/port"
expect NCCL_IB_HCA fail "a port the devices lack"
gen "$T/nx" $ETH --nccl-env 'NCCL_IB_HCA=^mlx5_9'
run "$T/nx"
expect NCCL_IB_HCA warn "excluding a device that does not exist"
gen "$T/none" $ETH --nccl-env NCCL_IB_HCA==mlx5
run "$T/none"
expect_msg NCCL_IB_HCA "none of the 8 active rails" "no rail selected: sockets"

# --- NCCL_IB_GID_INDEX
gen "$T/gid3" $ETH --nccl-conf NCCL_IB_GID_INDEX=3
run "$T/gid3"
expect_check pass "GID index 3 (IPv4, RoCE v2)"
expect mlx5_5/1 pass "GID index 3 on mlx5_5"
gen "$T/gid1" $ETH --nccl-conf NCCL_IB_GID_INDEX=1
run "$T/gid1"
expect_rc 1 "GID index 1 (link-local)"
expect mlx5_0/1 fail "GID index 1"
expect_msg mlx5_0/1 "the index NCCL should use here is 3" "names the index NCCL should use"
gen "$T/gidshift" $ETH --nccl-conf NCCL_IB_GID_INDEX=3 --gid-shift mlx5_2
run "$T/gidshift"
expect mlx5_2/1 warn "IPv6 at 3 on mlx5_2, IPv4 at 5"
expect mlx5_1/1 pass "IPv4 at 3 on mlx5_1"
expect_msg mlx5_2/1 "should use here is 5" "names index 5 for mlx5_2"
gen "$T/gidmix" $ETH --nccl-conf NCCL_IB_GID_INDEX=1 --gid-shift mlx5_2
run "$T/gidmix"
expect NCCL_IB_GID_INDEX fail "the right index differs between ports"
expect_msg mlx5_2/1 "should use here is 5" "mlx5_2 needs 5"
expect_msg mlx5_1/1 "should use here is 3" "mlx5_1 needs 3"
gen "$T/gidnone" $ETH --gids none --nccl-env NCCL_IB_GID_INDEX=3
run "$T/gidnone"
expect_msg mlx5_0/1 "no RoCE v2 GID with an address" "no address: no index fits"
# RoCE v1 by choice, or an address range: NCCL's GID rules change; a healthy node is not drained
for extra in NCCL_IB_ROCE_VERSION_NUM=1 NCCL_IB_ADDR_RANGE=10.0.0.0/8; do
	gen "$T/gidv1" $ETH --nccl-env NCCL_IB_GID_INDEX=1 --nccl-env "$extra"
	run "$T/gidv1"
	expect_rc 0 "GID index 1 with $extra"
	expect NCCL_IB_GID_INDEX skip "GID index not judged with $extra"
	rm -rf "$T/gidv1"
done
gen "$T/gidauto" $ETH --nccl-env NCCL_IB_GID_INDEX=-1
run "$T/gidauto"
expect NCCL_IB_GID_INDEX pass "-1: NCCL chooses"
gen "$T/gidib" --link-layer ib --nccl-env NCCL_IB_GID_INDEX=1
run "$T/gidib"
expect NCCL_IB_GID_INDEX pass "InfiniBand ignores the GID index"

# --- GPUDirect RDMA, IB, P2P
PEERMEM="--file /sys/module/nvidia_peermem/refcnt=0"
gen "$T/gdr" $ETH $PEERMEM --nccl-env NCCL_NET_GDR_LEVEL=LOC --nccl-env NCCL_NET_GDR_READ=0
run "$T/gdr"
expect NCCL_NET_GDR_LEVEL fail "GDR level LOC with nvidia_peermem"
expect NCCL_NET_GDR_READ warn "GDR read 0 with nvidia_peermem: a tuning knob, a warn"
expect_msg NCCL_NET_GDR_LEVEL "30-60%" "says what it costs"
gen "$T/gdr0" $ETH $PEERMEM --nccl-env NCCL_NET_GDR_LEVEL=0
run "$T/gdr0"
expect NCCL_NET_GDR_LEVEL fail "GDR level 0 (old numbering)"
gen "$T/gdrpxb" $ETH $PEERMEM --nccl-env NCCL_NET_GDR_LEVEL=PHB --nccl-env NCCL_NET_GDR_READ=1
run "$T/gdrpxb"
expect_check pass "GDR level PHB, reads on"
gen "$T/gdrunk" $ETH --no-peermem --nccl-env NCCL_NET_GDR_LEVEL=LOC --nccl-env NCCL_NET_GDR_READ=0
run "$T/gdrunk"
expect_rc 0 "GDR unknown"
expect NCCL_NET_GDR_LEVEL warn "GDR level LOC, GDR support unknown"
expect NCCL_NET_GDR_READ warn "GDR read 0, GDR support unknown"
gen "$T/gdrdmabuf" $ETH --no-peermem --nccl-env NCCL_NET_GDR_LEVEL=LOC \
	--file /preflight/ibverbs/reg_dmabuf_mr=1 --file /preflight/cuda/dmabuf_supported=1
run "$T/gdrdmabuf"
expect NCCL_NET_GDR_LEVEL fail "GDR level LOC where DMA-BUF works"
gen "$T/gdrno" $ETH --no-peermem --nccl-env NCCL_NET_GDR_LEVEL=LOC --nccl-env NCCL_NET_GDR_READ=0 \
	--file /preflight/ibverbs/reg_dmabuf_mr=0
run "$T/gdrno"
expect NCCL_NET_GDR_LEVEL pass "GDR level LOC where GDR does not work"
expect NCCL_NET_GDR_READ pass "GDR read 0 where GDR does not work"
# NCCL_NET_GDR_LEVEL against each rail's path to its nearest GPU (ncclTopoCheckGdr)
gen "$T/gdrpix" $ETH $PEERMEM --nccl-env NCCL_NET_GDR_LEVEL=PIX
run "$T/gdrpix"
expect NCCL_NET_GDR_LEVEL pass "PIX where every NIC shares a switch with its GPU"
gen "$T/cascade" $ETH $PEERMEM --gpu-cascade --nccl-env NCCL_NET_GDR_LEVEL=PIX
run "$T/cascade"
expect_rc 1 "PIX on a two-level switch cascade"
expect NCCL_NET_GDR_LEVEL fail "PIX on a PXB topology turns GDR off on every rail"
expect_msg NCCL_NET_GDR_LEVEL "the nearest GPU is at PXB" "names the path class"
for lvl in PXB 2 PHB SYS 5 9; do
	gen "$T/cascade-ok" $ETH $PEERMEM --gpu-cascade --nccl-env "NCCL_NET_GDR_LEVEL=$lvl"
	run "$T/cascade-ok"
	expect NCCL_NET_GDR_LEVEL pass "NCCL_NET_GDR_LEVEL=$lvl on a PXB topology"
	rm -rf "$T/cascade-ok"
done
gen "$T/gdr1" $ETH $PEERMEM --gpu-cascade --nccl-env NCCL_NET_GDR_LEVEL=1
run "$T/gdr1"
expect NCCL_NET_GDR_LEVEL fail "old numbering 1 is PIX"
gen "$T/gdrc2c" $ETH $PEERMEM --nccl-env NCCL_NET_GDR_LEVEL=C2C
run "$T/gdrc2c"
expect NCCL_NET_GDR_LEVEL fail "C2C is nearer than any PCIe path"
gen "$T/gdrcase" $ETH $PEERMEM --gpu-cascade --nccl-env NCCL_NET_GDR_LEVEL=pix
run "$T/gdrcase"
expect NCCL_NET_GDR_LEVEL none "NCCL ignores a lower-case name (strcmp): its default applies"
# Broadcom two-level switches (PEX88000 1000:c010, PEX89000 1000:c030 base mode): NCCL
# fuses the levels into one switch (ncclTopoFlattenBcmSwitches), so sysfs's PXB is PIX
for sw in broadcom broadcom-gen5; do
	gen "$T/bcm" $ETH $PEERMEM --gpus-per-switch 2 --pcie-switch $sw \
		--nccl-env NCCL_NET_GDR_LEVEL=PIX
	run "$T/bcm"
	expect NCCL_NET_GDR_LEVEL pass "PIX on a $sw two-level switch: one switch to NCCL"
	rm -rf "$T/bcm"
	gen "$T/bcm" $ETH $PEERMEM --gpus-per-switch 2 --pcie-switch $sw \
		--nccl-env NCCL_NET_GDR_LEVEL=LOC
	run "$T/bcm"
	expect NCCL_NET_GDR_LEVEL fail "LOC on a $sw switch: GDR was on by default"
	rm -rf "$T/bcm"
done
# levels below PIX lose GPUDirect RDMA only where NCCL's default used it: NICs on root
# ports of their own (PHB to NCCL) never had it, whatever the level
for lvl in LOC 0 NVL C2C PIX; do
	gen "$T/apart" $ETH $PEERMEM --nics-apart --nccl-env "NCCL_NET_GDR_LEVEL=$lvl"
	run "$T/apart"
	expect NCCL_NET_GDR_LEVEL pass "NCCL_NET_GDR_LEVEL=$lvl where every rail is PHB"
	rm -rf "$T/apart"
done
# Grace superchips: a GH200's GPU and a NIC on its own CPU are P2C (mergePathType,
# src/graph/paths.cc); NCCL 2.27 uses GPUDirect RDMA there by default (NCCL_NET_GDR_C2C=1),
# a user level replaces that default, 2.26 and older never used it; the version is
# ncclGetVersion()'s, recorded in preflight/nccl/version
V227="--file /preflight/nccl/version=22703"
V226="--file /preflight/nccl/version=22602"
grace() { # NAME EXPECTED-STATUS SUBJECT DESCRIPTION GEN-ARGS...
	n=$1 want=$2 subj=$3 desc=$4
	shift 4
	gen "$T/$n" $ETH $PEERMEM --grace "$@"
	run "$T/$n"
	expect "$subj" "$want" "$desc"
	rm -rf "$T/$n"
}
grace gdef none NCCL_NET_GDR_LEVEL "Grace, nothing set" $V227
expect_check pass "Grace with NCCL's defaults"
grace gpxb fail NCCL_NET_GDR_LEVEL "Grace, NCCL 2.27, PXB turns P2C off" $V227 \
	--nccl-env NCCL_NET_GDR_LEVEL=PXB
grace gpix fail NCCL_NET_GDR_LEVEL "Grace, NCCL 2.27, PIX turns P2C off" $V227 \
	--nccl-env NCCL_NET_GDR_LEVEL=PIX
grace gp2c pass NCCL_NET_GDR_LEVEL "Grace, NCCL 2.27, level P2C" $V227 \
	--nccl-env NCCL_NET_GDR_LEVEL=P2C
grace gc0 fail NCCL_NET_GDR_C2C "Grace, NCCL 2.27, NCCL_NET_GDR_C2C=0" $V227 \
	--nccl-env NCCL_NET_GDR_C2C=0
grace gc1 pass NCCL_NET_GDR_C2C "Grace, NCCL 2.27, NCCL_NET_GDR_C2C=1" $V227 \
	--nccl-env NCCL_NET_GDR_C2C=1
gen "$T/gunk" $ETH $PEERMEM --grace --nccl-env NCCL_NET_GDR_C2C=0
run "$T/gunk"
expect NCCL_NET_GDR_C2C warn "Grace, NCCL's version not recorded: a warn"
expect_msg NCCL_NET_GDR_C2C "the installed NCCL's version is unknown" "says the version is unknown"
rm -rf "$T/gunk"
grace g226 pass NCCL_NET_GDR_LEVEL "Grace, NCCL 2.26: PXB keeps the old verdict" $V226 \
	--nccl-env NCCL_NET_GDR_LEVEL=PXB
grace g226c pass NCCL_NET_GDR_C2C "Grace, NCCL 2.26: C2C=0 is its default" $V226 \
	--nccl-env NCCL_NET_GDR_C2C=0
grace gx86 pass NCCL_NET_GDR_C2C "no Grace: NCCL_NET_GDR_C2C=0 changes nothing" $V227 \
	--nccl-env NCCL_NET_GDR_C2C=0 --grace-gpu l40s
# NCCL_DMABUF_ENABLE=0: GPUDirect RDMA needs the peer-memory module then
DMABUF="--no-peermem --file /preflight/ibverbs/reg_dmabuf_mr=1 --file /preflight/cuda/dmabuf_supported=1"
gen "$T/dmabuf0" $ETH $DMABUF --nccl-env NCCL_DMABUF_ENABLE=0
run "$T/dmabuf0"
expect NCCL_DMABUF_ENABLE fail "DMA-BUF off without peermem"
gen "$T/dmabuf0pm" $ETH $DMABUF $PEERMEM --nccl-env NCCL_DMABUF_ENABLE=0
run "$T/dmabuf0pm"
expect NCCL_DMABUF_ENABLE pass "DMA-BUF off with peermem loaded"
gen "$T/dmabuf1" $ETH $DMABUF --nccl-env NCCL_DMABUF_ENABLE=1
run "$T/dmabuf1"
expect_check pass "NCCL_DMABUF_ENABLE=1"
gen "$T/ibdis" $ETH --nccl-conf NCCL_IB_DISABLE=1
run "$T/ibdis"
expect NCCL_IB_DISABLE fail "IB disabled with active rails"
# an external net plugin carries the traffic: IB_DISABLE is not TCP; NCCL_NET=Socket is
for plug in "--nccl-env NCCL_NET_PLUGIN=ofi" "--nccl-env NCCL_NET=AWS_Libfabric" \
	"--file /opt/amazon/ofi-nccl/lib/libnccl-net.so=ELF"; do
	gen "$T/plug" $ETH --nccl-conf NCCL_IB_DISABLE=1 $plug
	run "$T/plug"
	expect NCCL_IB_DISABLE pass "IB disabled with a net plugin ($plug)"
	rm -rf "$T/plug"
done
gen "$T/netsock" $ETH --nccl-env NCCL_NET=Socket
run "$T/netsock"
expect NCCL_NET fail "NCCL_NET=Socket with active rails"
gen "$T/netib" $ETH --nccl-env NCCL_NET=IB
run "$T/netib"
expect_check pass "NCCL_NET=IB"
gen "$T/ibdis0" --gpus 1 --nics 0 --nccl-conf NCCL_IB_DISABLE=1
run "$T/ibdis0"
expect NCCL_IB_DISABLE pass "IB disabled without RDMA"
gen "$T/p2p" $ETH --nvswitch 4 --nccl-env NCCL_P2P_DISABLE=1
run "$T/p2p"
expect NCCL_P2P_DISABLE fail "P2P off on an NVSwitch system"
gen "$T/p2ppcie" $ETH --nccl-env NCCL_P2P_DISABLE=1
run "$T/p2ppcie"
expect NCCL_P2P_DISABLE warn "P2P off without NVLink evidence"
gen "$T/p2p1" --gpus 1 --nics 1 --nccl-env NCCL_P2P_DISABLE=1
run "$T/p2p1"
expect NCCL_P2P_DISABLE pass "P2P off with one GPU"
gen "$T/p2p0" $ETH --nvswitch 4 --nccl-env NCCL_P2P_DISABLE=0
run "$T/p2p0"
expect_check pass "NCCL_P2P_DISABLE=0"

# --- NCCL_SOCKET_IFNAME
for ifn in '=eno1' eno '^lo,docker' enp; do
	gen "$T/sock" $ETH --nccl-env "NCCL_SOCKET_IFNAME=$ifn"
	run "$T/sock"
	expect NCCL_SOCKET_IFNAME pass "NCCL_SOCKET_IFNAME=$ifn"
	rm -rf "$T/sock"
done
# NCCL binds to an interface with an address of NCCL_SOCKET_FAMILY
NOADDR="--file /preflight/ip/eno1/addr="
gen "$T/fam4" $ETH $NOADDR --nccl-env NCCL_SOCKET_IFNAME==eno1 --nccl-env NCCL_SOCKET_FAMILY=AF_INET
run "$T/fam4"
expect NCCL_SOCKET_IFNAME fail "AF_INET on an interface without an IPv4 address"
gen "$T/fam0" $ETH $NOADDR --nccl-env NCCL_SOCKET_IFNAME==eno1
run "$T/fam0"
expect NCCL_SOCKET_IFNAME warn "no IPv4 address, family unset (IPv6 unseen)"
gen "$T/fam6" $ETH $NOADDR --nccl-env NCCL_SOCKET_IFNAME==eno1 --nccl-env NCCL_SOCKET_FAMILY=AF_INET6
run "$T/fam6"
expect NCCL_SOCKET_IFNAME pass "AF_INET6: not judged"
gen "$T/fam4ok" $ETH --nccl-env NCCL_SOCKET_IFNAME==eno1 --nccl-env NCCL_SOCKET_FAMILY=AF_INET
printf '2: eno1    inet 192.0.2.9/24 scope global eno1\n' > "$T/fam4ok/preflight/ip/eno1/addr" 2>/dev/null ||
	{ mkdir -p "$T/fam4ok/preflight/ip/eno1" &&
	  printf '2: eno1    inet 192.0.2.9/24 scope global eno1\n' > "$T/fam4ok/preflight/ip/eno1/addr"; }
run "$T/fam4ok"
expect NCCL_SOCKET_IFNAME pass "AF_INET with an IPv4 address"
# a '^' list set by the user does not skip lo (only NCCL's default does)
gen "$T/socklo" $ETH --nccl-env 'NCCL_SOCKET_IFNAME=^docker'
run "$T/socklo"
expect_rc 0 "^docker: a warn, not a drain"
expect NCCL_SOCKET_IFNAME warn "^docker selects lo first"
gen "$T/sockshort" $ETH --nccl-env 'NCCL_SOCKET_IFNAME=x'
run "$T/sockshort"
expect NCCL_SOCKET_IFNAME pass "a one-character value is ignored by NCCL"
gen "$T/sockbad" $ETH --nccl-env NCCL_SOCKET_IFNAME=eth
run "$T/sockbad"
expect NCCL_SOCKET_IFNAME fail "no such interface"
gen "$T/sockdown" --link-layer ib --down-port mlx5_0 --nccl-env NCCL_SOCKET_IFNAME==ib0
run "$T/sockdown"
expect NCCL_SOCKET_IFNAME fail "an interface that is down"
expect_msg NCCL_SOCKET_IFNAME "down: ib0" "names the down interface"

# --- NCCL_TOPO_FILE
XML='<system version="1"><cpu numaid="0"><pci busid="ffff:ff:01.0" class="0x060400"><pci busid="0000:13:00.0" class="0x030200"/><pci busid="0000:14:00.0" class="0x020700"/></pci></cpu></system>'
gen "$T/topo" --link-layer ib --nccl-env NCCL_TOPO_FILE=/opt/topo.xml --file "/opt/topo.xml=$XML"
run "$T/topo"
expect NCCL_TOPO_FILE pass "a topology naming this node's GPU and NIC (virtual bridge ignored)"
gen "$T/topobad" --link-layer ib --nccl-env NCCL_TOPO_FILE=/opt/topo.xml \
	--file "/opt/topo.xml=$(echo "$XML" | sed 's/0000:13:00.0/0000:99:00.0/')"
run "$T/topobad"
expect NCCL_TOPO_FILE fail "a topology of another machine"
expect_msg NCCL_TOPO_FILE "0000:99:00.0" "names the absent device"
gen "$T/topono" --link-layer ib --nccl-env NCCL_TOPO_FILE=/opt/none.xml
run "$T/topono"
expect NCCL_TOPO_FILE fail "a topology file that is not there"
gen "$T/topotxt" --link-layer ib --nccl-env NCCL_TOPO_FILE=/opt/topo.txt --file /opt/topo.txt=hello
run "$T/topotxt"
expect NCCL_TOPO_FILE warn "a topology file that is not NCCL XML"
gen "$T/toporel" --link-layer ib --nccl-env NCCL_TOPO_FILE=topo.xml
run "$T/toporel"
expect NCCL_TOPO_FILE warn "a relative topology path"

# --- /dev/infiniband for the job's user
gen "$T/uvmiss" $ETH --uverbs-missing mlx5_3
run "$T/uvmiss"
expect_rc 1 "uverbs3 missing"
expect /dev/infiniband/uverbs3 fail "uverbs of mlx5_3 missing"
expect_msg /dev/infiniband/uverbs3 "mlx5_3" "names the RDMA device"
# a node without GPUs (a CPU or storage node of the cluster) is not judged: no NCCL job runs there
gen "$T/nogpu" $ETH --gpus 0 --uverbs-missing mlx5_3 --nccl-env NCCL_IB_HCA=mlx5_99
run "$T/nogpu"
expect_rc 0 "no GPU"
expect_check skip "no GPU: nothing of NCCL's is judged"
gen "$T/unreg" $ETH --uverbs-unregistered mlx5_4
run "$T/unreg"
expect mlx5_4 fail "no uverbs device registered for mlx5_4"
gen "$T/uvgrp" $ETH --uverbs-mode 0660 --uverbs-group 995 --job-user 1000:1000
run "$T/uvgrp"
expect /dev/infiniband/uverbs0 fail "0660 root:995, job user not in 995"
gen "$T/uvgrp2" $ETH --uverbs-mode 0660 --uverbs-group 995 --job-user 1000:1000,995
run "$T/uvgrp2"
expect /dev/infiniband/uverbs0 pass "0660 root:995, job user in 995"
gen "$T/uvroot" $ETH --uverbs-mode 0600 --job-user 0:0
run "$T/uvroot"
expect /dev/infiniband/uverbs0 pass "0600 and a root job"
LS='total 0
crw-rw-rw- 1 0 0 10, 58 Nov 25 09:00 rdma_cm
crw-rw----+ 1 0 0 231, 192 Nov 25 09:00 uverbs0
crw-rw---- 1 0 0 231, 193 Nov 25 09:00 uverbs1'
gen "$T/acl" --link-layer ib --gpus 2 --nics 2 --file "/preflight/ls/dev/infiniband=$LS"
run "$T/acl"
expect /dev/infiniband/uverbs0 warn "0660 with an ACL: may be allowed"
expect /dev/infiniband/uverbs1 fail "0660 without an ACL"
gen "$T/nouser" --link-layer ib --gpus 2 --nics 2 --no-job-facts --file "/preflight/ls/dev/infiniband=$LS"
run "$T/nouser"
expect /dev/infiniband/uverbs1 skip "0660 and the job's user unknown"
expect /dev/infiniband/rdma_cm pass "0666 and the job's user unknown"
gen "$T/nocm" $ETH --no-rdma-cm
run "$T/nocm"
expect /dev/infiniband/rdma_cm warn "no rdma_cm (NCCL does not open it)"
run "$T/nocm" --set nccl_config.rdma_cm=fail
expect /dev/infiniband/rdma_cm fail "no rdma_cm with rdma_cm=fail"
run "$T/nocm" --set nccl_config.rdma_cm=ignore
expect /dev/infiniband/rdma_cm none "rdma_cm=ignore"

# --- precedence, oddities, a prolog, an old snapshot
gen "$T/prec" $ETH --nccl-conf NCCL_IB_HCA=mlx5_0 --nccl-env NCCL_IB_HCA=mlx5
run "$T/prec"
expect NCCL_IB_HCA pass "the environment wins over /etc/nccl.conf"
gen "$T/prec2" $ETH --nccl-conf NCCL_IB_HCA=mlx5 --user-nccl-conf NCCL_IB_HCA=mlx5_0
run "$T/prec2"
expect NCCL_IB_HCA warn "~/.nccl.conf wins over /etc/nccl.conf"
field "[f['observed']['set_in'] for f in c['findings'] if f['subject'] == 'NCCL_IB_HCA'][0]" |
	grep -qx '/home/u1000/.nccl.conf:1' && ok "says where it is set" || not_ok "set_in"
gen "$T/conffile" $ETH --nccl-env NCCL_CONF_FILE=/opt/nccl.conf --file /opt/nccl.conf=NCCL_IB_DISABLE=1 \
	--user-nccl-conf NCCL_IB_DISABLE=0
run "$T/conffile"
expect NCCL_IB_DISABLE fail "NCCL_CONF_FILE replaces ~/.nccl.conf"
gen "$T/odd" $ETH --nccl-conf "NCCL_IB_HCA = mlx5_0"
run "$T/odd"
expect /etc/nccl.conf:1 warn "'NAME = VALUE' sets nothing NCCL reads"
expect NCCL_IB_HCA none "and NCCL_IB_HCA is not set by it"
expect_msg /etc/nccl.conf:1 '"NCCL_IB_HCA = ..."' "quotes the name, not the value"
# a file that is no NCCL config (~/.nccl.conf -> ~/.my.cnf): no value reaches the report
gen "$T/secret" $ETH --user-nccl-conf "password = s3cr3t-odd" --user-nccl-conf "token=s3cr3t-var" \
	--user-nccl-conf "NCCL_DEBUG s3cr3t-noeq"
run "$T/secret"
expect_rc 0 "a file of other settings"
grep -q s3cr3t "$T/out" && not_ok "a value of a non-NCCL line reached the report" ||
	ok "no value of the file reaches the report"
# ~/.nccl.conf the job user may not read (root's 0600: the recorded copy of a
# link to a root-only file) is not read: NCCL running as the user could not
gen "$T/rootonly" $ETH --user-nccl-conf "NCCL_IB_HCA=s3cr3t_dev"
chown 0:0 "$T/rootonly/home/u1000/.nccl.conf" 2>/dev/null
chmod 0600 "$T/rootonly/home/u1000/.nccl.conf"
run "$T/rootonly"
grep -q s3cr3t_dev "$T/out" && not_ok "a file the job user may not read was judged" ||
	ok "a file the job user may not read is not read"
chmod 0644 "$T/rootonly/home/u1000/.nccl.conf"
run "$T/rootonly"
grep -q s3cr3t_dev "$T/out" && ok "readable by the job user: judged" ||
	not_ok "the same file made readable was not judged"
gen "$T/prolog" $ETH --nccl-env SLURM_SCRIPT_CONTEXT=prolog_slurmd --nccl-env NCCL_IB_DISABLE=1
run "$T/prolog"
expect_check pass "a prolog's environment is not the job's"
field "c['summary']" | grep -q "prolog" && ok "the summary says so" || not_ok "summary: $(field "c['summary']")"
gen "$T/prolog2" $ETH --nccl-env SLURM_SCRIPT_CONTEXT=prolog_slurmd --nccl-conf NCCL_IB_DISABLE=1
run "$T/prolog2"
expect NCCL_IB_DISABLE fail "in a prolog the files still count"
gen "$T/old" $ETH --no-job-facts --nccl-conf NCCL_IB_GID_INDEX=3
run "$T/old"
expect_rc 0 "an old snapshot"
expect /dev/infiniband skip "an old snapshot: device nodes not recorded"
field "c['summary']" | grep -q "not recorded" && ok "files only, said" || not_ok "summary: $(field "c['summary']")"

# --- profile keys are checked when the profile is built
run "$T/def" --set nccl_config.partial_rails=maybe
expect_rc 64 "partial_rails=maybe"
run "$T/def" --set nccl_config.rdma_cm=yes
expect_rc 64 "rdma_cm=yes"
pf --describe nccl_config
grep -q partial_rails "$T/out" && ok "--describe lists partial_rails" || not_ok "--describe"

# --- the snapshot of a failing node gives the same verdicts offline
gen "$T/bad" $ETH --nccl-env NCCL_IB_HCA=mlx5_0,mlx5_1 --nccl-conf NCCL_IB_GID_INDEX=1 \
	--uverbs-missing mlx5_1 --nccl-env NCCL_TOPO_FILE=/opt/topo.xml --file "/opt/topo.xml=$XML" \
	--user-nccl-conf NCCL_SOCKET_IFNAME=eth
run "$T/bad"
cp "$T/out" "$T/bad.json"
"$PREFLIGHT" snapshot --root "$T/bad" "$T/snap" >/dev/null 2>&1 || not_ok "snapshot"
run "$T/snap"
"$PY" - "$T/bad.json" "$T/out" <<'PY' && ok "snapshot: same findings" || not_ok "snapshot: findings differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda r: [(f.get("subject"), f["status"]) for f in r["checks"][0]["findings"]]
sys.exit(0 if key(a) == key(b) and a["checks"][0]["status"] == "fail" else 1)
PY

done_testing
