#!/bin/sh
# SPDX-License-Identifier: MIT
# Side by side on a real RDMA node, like for like: perftest's ib_write_bw
# between two NICs of the node in both directions at once (-b), and
# fabric_loopback's two flows for the same pair (it always runs a listed
# pair both ways at once), with the same message size, depth, signalling
# (cq_mod, perftest -Q) and WRITE count.
#
#   bench/fabric-vs-perftest.sh [-s SERVER_DEV] [-c CLIENT_DEV] [-m BYTES] [-t DEPTH]
#                               [-n ITERS] [-q CQ_MOD] [-b PREFLIGHT] [-x GID_INDEX]
#                               [-u QP_TIMEOUT] [-W] [-r] [-T TIMEOUT_MS]
#
# SERVER_DEV defaults to mlx5_0, CLIENT_DEV to mlx5_1 (port 1 of each),
# BYTES to 1048576, DEPTH to 128, ITERS to 5000, CQ_MOD to 100 (both tools'
# default), PREFLIGHT to $PREFLIGHT or build/preflight.
# -x GID_INDEX: perftest connects by that GID with plain verbs (-x) instead of
#    RDMA-CM (-R), for an ib_write_bw that cannot bind the client's source
#    address (no --bind_source_ip) while both NICs sit in one kernel, as on
#    the soft-RoCE VM rig; -u QP_TIMEOUT: perftest's QP timeout (-u; the
#    rig's TCG guest needs 20, its 14 retransmits what is only late);
#    -W: no warm-up in either tool (perftest without --perform_warm_up, which
#    never finishes with -b on the rig's perftest 6.x; preflight warmup=0);
#    -r: report the ratio without judging it (exit 0 when both tools ran);
#    -T TIMEOUT_MS: preflight's fabric_loopback.timeout_ms, which also bounds
#    how long its flows may run before they are cut and measured (max_ms).
#
# perftest: a server on SERVER_DEV and a client on CLIENT_DEV that connects
# to the server's address, so the WRITEs go CLIENT -> switch -> SERVER:
#   ib_write_bw -d SERVER_DEV -b -s BYTES -t DEPTH -n ITERS -Q CQ_MOD -F
#               --report_gbits --perform_warm_up [-R]
#   ib_write_bw -d CLIENT_DEV ... [-R [--bind_source_ip CLIENT_IP]] SERVER_IP
# On RoCE both use -R (RDMA-CM, as fabric_loopback connects) and SERVER_IP
# is the IPv4 address of SERVER_DEV's netdev; on InfiniBand the client
# reaches the server's TCP port through SERVER_IP when its IPoIB netdev has
# one, else localhost, and the QPs connect by LID.
# preflight:
#   preflight --no-config --only fabric_loopback --format json
#             --set fabric_loopback.nics=SERVER_DEV,CLIENT_DEV
#             --set fabric_loopback.pairs=CLIENT_DEV:SERVER_DEV
#             --set fabric_loopback.msg_size=BYTES ... 
# and the figures of its findings "CLIENT_DEV/1 -> SERVER_DEV/1" and
# "SERVER_DEV/1 -> CLIENT_DEV/1" (the two flows run at the same time).
# Prints perftest's bidirectional figure (ib_write_bw -b reports both
# directions together), preflight's two directions and their sum, and
# preflight sum / perftest; the goal is a ratio of at least 0.98.  Exits 0 when the ratio meets it
# (with -r: whenever both ran), 1 when not, 2 when a tool
# fails, 64 on a usage error, 77 (skip) without ib_write_bw or without two
# ACTIVE ports.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
sdev=mlx5_0 cdev=mlx5_1 size=1048576 depth=128 iters=5000 cqmod=100
gidx='' qpto='' warm=--perform_warm_up pfwarm='' judge=1 pftmo=''
bin=${PREFLIGHT:-$here/build/preflight}
goal=0.98
tcp=18517

usage() {
	sed -n '9,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
}

while getopts s:c:m:t:n:q:b:x:u:WrT:h opt; do
	case $opt in
	s) sdev=$OPTARG ;;
	c) cdev=$OPTARG ;;
	m) size=$OPTARG ;;
	t) depth=$OPTARG ;;
	n) iters=$OPTARG ;;
	q) cqmod=$OPTARG ;;
	b) bin=$OPTARG ;;
	x) gidx=$OPTARG ;;
	u) qpto=$OPTARG ;;
	W) warm='' pfwarm=0 ;;
	r) judge='' ;;
	T) pftmo=$OPTARG ;;
	*) usage ;;
	esac
done
for v in "$size" "$depth" "$iters" "$cqmod" ${gidx:+"$gidx"} ${qpto:+"$qpto"} ${pftmo:+"$pftmo"}; do
	case $v in ''|*[!0-9]*) echo "fabric-vs-perftest: '$v' is not a number" >&2; exit 64 ;; esac
done
[ "$sdev" != "$cdev" ] || { echo "fabric-vs-perftest: server and client are both $sdev" >&2; exit 64; }

command -v ib_write_bw >/dev/null 2>&1 || {
	echo "fabric-vs-perftest: SKIP: ib_write_bw not found (install perftest)" >&2
	exit 77
}
for d in "$sdev" "$cdev"; do
	case $(cat "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null || echo absent) in
	*ACTIVE*) ;;
	*) echo "fabric-vs-perftest: SKIP: $d/1 is not an ACTIVE RDMA port (two are needed)" >&2
	   exit 77 ;;
	esac
done
[ -x "$bin" ] || { echo "fabric-vs-perftest: no executable '$bin' (build first, or -b)" >&2; exit 64; }

link=$(cat "/sys/class/infiniband/$sdev/ports/1/link_layer" 2>/dev/null || echo unknown)
[ "$link" = "$(cat "/sys/class/infiniband/$cdev/ports/1/link_layer" 2>/dev/null)" ] || {
	echo "fabric-vs-perftest: $sdev and $cdev have different link layers" >&2; exit 2; }

# the IPv4 address of a device's port-1 netdev (the GID table's, as RDMA-CM binds it)
addr_of() {
	nd=$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/0" 2>/dev/null ||
	     ls "/sys/class/infiniband/$1/device/net" 2>/dev/null | head -1)
	[ -n "$nd" ] || return 1
	ip -o -4 addr show dev "$nd" 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }'
}
sip=$(addr_of "$sdev" || true)
cip=$(addr_of "$cdev" || true)
cm=''
if [ "$link" = Ethernet ]; then
	[ -n "$sip" ] && [ -n "$cip" ] || {
		echo "fabric-vs-perftest: RoCE needs an IPv4 address on both netdevs" >&2; exit 2; }
	cm=-R
fi
[ -z "$gidx" ] || cm="-x $gidx"
[ -z "$qpto" ] || cm="$cm -u $qpto"
target=${sip:-localhost}

pin() { # the NUMA node of device $1 as numactl flags, or nothing
	n=$(cat "/sys/class/infiniband/$1/device/numa_node" 2>/dev/null || echo -1)
	if command -v numactl >/dev/null 2>&1 && [ "$n" -ge 0 ] 2>/dev/null; then
		echo "numactl -N $n -m $n"
	fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

args="-b -s $size -t $depth -n $iters -Q $cqmod -F --report_gbits $warm -p $tcp $cm"
bind=''
if [ -z "$gidx" ] && [ -n "$cm" ] && [ -n "$cip" ] &&
   ib_write_bw --help 2>&1 | grep -q bind_source_ip; then
	bind="--bind_source_ip $cip"
fi
# shellcheck disable=SC2046,SC2086
$(pin "$sdev") ib_write_bw -d "$sdev" $args >"$tmp/server" 2>&1 &
spid=$!
# the client again while the server is not listening yet (a slow guest)
ok=''
for try in 1 2 3 4 5; do
	sleep "$try"
	# shellcheck disable=SC2046,SC2086
	if $(pin "$cdev") ib_write_bw -d "$cdev" $args $bind "$target" >"$tmp/client" 2>&1; then
		ok=1
		break
	fi
	grep -q "Couldn't connect" "$tmp/client" || break
done
if [ -z "$ok" ]; then
	kill "$spid" 2>/dev/null || true
	wait "$spid" 2>/dev/null || true
	echo "fabric-vs-perftest: ib_write_bw -d $cdev $args $bind $target failed:" >&2
	cat "$tmp/client" >&2
	exit 2
fi
wait "$spid" 2>/dev/null || true
pt=$(awk -v s="$size" '$1 == s && NF >= 4 { bw = $4 } END { if (bw == "") exit 1; print bw }' \
	"$tmp/client") || { echo "fabric-vs-perftest: no figure in ib_write_bw's output" >&2; exit 2; }

"$bin" --no-config --only fabric_loopback --format json \
	--set "fabric_loopback.nics=$sdev,$cdev" --set "fabric_loopback.pairs=$cdev:$sdev" \
	--set "fabric_loopback.msg_size=$size" --set "fabric_loopback.tx_depth=$depth" \
	--set "fabric_loopback.iterations=$iters" --set "fabric_loopback.cq_mod=$cqmod" \
	${pfwarm:+--set fabric_loopback.warmup=$pfwarm} \
	${pftmo:+--set fabric_loopback.timeout_ms=$pftmo} \
	>"$tmp/preflight.json" 2>"$tmp/preflight.err" ||
	[ $? -le 2 ] || { cat "$tmp/preflight.err" >&2; exit 2; }
pf=$(python3 - "$tmp/preflight.json" "$cdev/1 -> $sdev/1" "$sdev/1 -> $cdev/1" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
for c in rep["checks"]:
    got = {}
    for f in c.get("findings", []):
        if f.get("subject") in sys.argv[2:] and "gbps" in (f.get("observed") or {}):
            got[f["subject"]] = f["observed"]["gbps"]
    if len(got) == 2:
        print(got[sys.argv[2]], got[sys.argv[3]])
        sys.exit(0)
    print(c.get("summary", ""), file=sys.stderr)
    for f in c.get("findings", []):
        print("  %s: %s" % (f.get("subject"), f.get("message")), file=sys.stderr)
sys.exit(1)
PY
) || { echo "fabric-vs-perftest: preflight has no figure for both directions" >&2; exit 2; }
pf_cs=${pf% *} pf_sc=${pf#* }
pf_sum=$(awk -v a="$pf_cs" -v b="$pf_sc" 'BEGIN { printf "%.2f", a + b }')

ratio=$(awk -v a="$pt" -v b="$pf_sum" 'BEGIN { printf "%.3f", b / a }')
ok=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { print (r >= g) ? "ok" : "BELOW GOAL" }')
case $cm in -R*) how=', RDMA-CM' ;; -x*) how=", verbs by GID $gidx" ;; *) how='' ;; esac
echo "$cdev <-> $sdev ($link$how${sip:+, $cip <-> $sip}), both directions at once," \
	"$size bytes, depth $depth, cq_mod $cqmod, $iters iterations"
printf 'perftest  ib_write_bw -b          %8.2f Gb/s (both directions)\n' "$pt"
printf 'preflight %s -> %s %8.2f Gb/s, %s -> %s %8.2f Gb/s, sum %8.2f Gb/s\n' \
	"$cdev" "$sdev" "$pf_cs" "$sdev" "$cdev" "$pf_sc" "$pf_sum"
printf 'ratio %s (preflight sum / perftest, goal >= %s) %s\n' "$ratio" "$goal" "$ok"
[ -z "$judge" ] || [ "$ok" = ok ]
