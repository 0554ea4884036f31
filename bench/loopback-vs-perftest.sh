#!/bin/sh
# SPDX-License-Identifier: MIT
# Side by side on a real RDMA node: perftest's ib_write_bw loopback and
# preflight's gdr_loopback on the same port (and GPU), same size and depth.
#
#   bench/loopback-vs-perftest.sh [-d DEV] [-i PORT] [-g GPU] [-s BYTES] [-t DEPTH]
#                                 [-n ITERS] [-b PREFLIGHT]
#
# DEV defaults to the first device in /sys/class/infiniband, PORT to 1, BYTES
# to 8388608, DEPTH to 128, ITERS to 5000, PREFLIGHT to $PREFLIGHT or
# build/preflight.  With -g GPU (a CUDA index, as ib_write_bw --use_cuda
# takes) the GPU-memory figures are compared too.
#
# perftest runs as a server and a client on the same device (the client
# connects to localhost):
#   ib_write_bw -d DEV -i PORT -s BYTES -t DEPTH -n ITERS -F --report_gbits
#               --perform_warm_up [-x GID] [--use_cuda=GPU] [localhost]
# and preflight as
#   preflight --only gdr_loopback --format json --set gdr_loopback.pairs=...
#             --set gdr_loopback.msg_size=BYTES --set gdr_loopback.tx_depth=DEPTH
#             --set gdr_loopback.iterations=ITERS
# both under `numactl -N <NIC node> -m <NIC node>` when numactl is present.
# Prints each figure (BW average, Gb/s) and preflight / perftest; the goal is
# a ratio of at least 0.98.  Exits 0 when every ratio meets it, 1 when one
# does not, 2 when a tool fails, 64 on a usage error and 77 (skip) when
# ib_write_bw or RDMA devices are missing.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
dev='' port=1 gpu='' size=8388608 depth=128 iters=5000
bin=${PREFLIGHT:-$here/build/preflight}
goal=0.98
tcp=18515

usage() {
	sed -n '4,6p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
}

while getopts d:i:g:s:t:n:b:h opt; do
	case $opt in
	d) dev=$OPTARG ;;
	i) port=$OPTARG ;;
	g) gpu=$OPTARG ;;
	s) size=$OPTARG ;;
	t) depth=$OPTARG ;;
	n) iters=$OPTARG ;;
	b) bin=$OPTARG ;;
	*) usage ;;
	esac
done
for v in "$port" "$size" "$depth" "$iters" ${gpu:+"$gpu"}; do
	case $v in ''|*[!0-9]*) echo "loopback-vs-perftest: '$v' is not a number" >&2; exit 64 ;; esac
done

command -v ib_write_bw >/dev/null 2>&1 || {
	echo "loopback-vs-perftest: SKIP: ib_write_bw not found (install perftest;" \
	     "for --use_cuda a CUDA-enabled build)" >&2
	exit 77
}
if [ -z "$dev" ]; then
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] && { dev=$(basename "$d"); break; }
	done
fi
if [ -z "$dev" ] || [ ! -d "/sys/class/infiniband/$dev/ports/$port" ]; then
	echo "loopback-vs-perftest: SKIP: no RDMA device${dev:+ $dev port $port}" \
	     "in /sys/class/infiniband" >&2
	exit 77
fi
[ -x "$bin" ] || { echo "loopback-vs-perftest: no executable '$bin' (build first, or -b)" >&2; exit 64; }

pdir=/sys/class/infiniband/$dev/ports/$port
link=$(cat "$pdir/link_layer" 2>/dev/null || echo unknown)
state=$(cat "$pdir/state" 2>/dev/null || echo unknown)
case $state in *ACTIVE*) ;; *)
	echo "loopback-vs-perftest: $dev/$port is '$state', not ACTIVE" >&2; exit 2 ;;
esac

# RoCE: the RoCE v2 GID with an IPv4-mapped address, as preflight picks it
gidx=''
if [ "$link" = Ethernet ]; then
	for t in "$pdir"/gid_attrs/types/*; do
		i=$(basename "$t")
		[ "$(cat "$t" 2>/dev/null)" = "RoCE v2" ] || continue
		case $(cat "$pdir/gids/$i" 2>/dev/null) in
		0000:0000:0000:0000:0000:ffff:*) gidx=$i; break ;;
		esac
	done
	[ -n "$gidx" ] || { echo "loopback-vs-perftest: $dev/$port has no RoCE v2 IPv4 GID" >&2; exit 2; }
fi

# pin both tools to the NIC's NUMA node
node=$(cat "/sys/class/infiniband/$dev/device/numa_node" 2>/dev/null || echo -1)
pin=''
if command -v numactl >/dev/null 2>&1 && [ "$node" -ge 0 ] 2>/dev/null; then
	pin="numactl -N $node -m $node"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# One ib_write_bw loopback; prints BW average in Gb/s.  $1: extra flags.
perftest() {
	args="-d $dev -i $port -s $size -t $depth -n $iters -F --report_gbits --perform_warm_up -p $tcp"
	[ -n "$gidx" ] && args="$args -x $gidx"
	args="$args $1"
	# shellcheck disable=SC2086
	$pin ib_write_bw $args >"$tmp/server" 2>&1 &
	spid=$!
	sleep 1
	# shellcheck disable=SC2086
	if ! $pin ib_write_bw $args localhost >"$tmp/client" 2>&1; then
		kill "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		echo "loopback-vs-perftest: ib_write_bw $args failed:" >&2
		cat "$tmp/client" >&2
		return 1
	fi
	wait "$spid" 2>/dev/null || true
	# the data line under "#bytes #iterations BW peak[Gb/sec] BW average[Gb/sec] ..."
	awk -v s="$size" '$1 == s && NF >= 4 { bw = $4 } END { if (bw == "") exit 1; print bw }' \
		"$tmp/client"
}

# BDF of CUDA device $1 (nvidia-smi's 00000000:17:00.0 -> 0000:17:00.0)
gpu_bdf() {
	nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader -i "$1" 2>/dev/null |
		tr 'A-F' 'a-f' | sed 's/^0000\([0-9a-f]\{4\}:\)/\1/'
}

pair="$dev/$port"
use_gpu=false
if [ -n "$gpu" ]; then
	bdf=$(gpu_bdf "$gpu")
	[ -n "$bdf" ] || { echo "loopback-vs-perftest: nvidia-smi does not know GPU $gpu" >&2; exit 2; }
	pair="$bdf=$dev/$port"
	use_gpu=true
fi

# shellcheck disable=SC2086
$pin "$bin" --only gdr_loopback --format json \
	--set "gdr_loopback.pairs=$pair" --set "gdr_loopback.use_gpu=$use_gpu" \
	--set "gdr_loopback.msg_size=$size" --set "gdr_loopback.tx_depth=$depth" \
	--set "gdr_loopback.iterations=$iters" >"$tmp/preflight.json" 2>"$tmp/preflight.err" ||
	[ $? -le 2 ] || { cat "$tmp/preflight.err" >&2; exit 2; }

# observed.gbps of a finding, or nothing
pf_gbps() {
	python3 - "$tmp/preflight.json" "$1" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
for c in rep["checks"]:
    for f in c.get("findings", []):
        if f.get("subject") == sys.argv[2] and "gbps" in (f.get("observed") or {}):
            print(f["observed"]["gbps"])
            sys.exit(0)
        if f.get("subject") == sys.argv[2]:
            print(f["message"], file=sys.stderr)
sys.exit(1)
EOF
}

rc=0
compare() { # name perftest preflight
	ratio=$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.3f", b / a }')
	ok=$(awk -v r="$ratio" -v g="$goal" 'BEGIN { print (r >= g) ? "ok" : "BELOW GOAL" }')
	printf '%-6s perftest %8.2f Gb/s   preflight %8.2f Gb/s   ratio %s (goal >= %s) %s\n' \
		"$1" "$2" "$3" "$ratio" "$goal" "$ok"
	[ "$ok" = ok ] || rc=1
}

echo "device $dev/$port ($link${gidx:+, GID $gidx}), $size bytes, depth $depth, $iters iterations${pin:+, $pin}"
pt_host=$(perftest "") || exit 2
pf_host=$(pf_gbps "$dev/$port") || { echo "loopback-vs-perftest: preflight has no host figure" >&2; exit 2; }
compare host "$pt_host" "$pf_host"
if [ -n "$gpu" ]; then
	pt_gpu=$(perftest "--use_cuda=$gpu") || exit 2
	pf_gpu=$(pf_gbps "$bdf -> $dev/$port") || { echo "loopback-vs-perftest: preflight has no GPU figure" >&2; exit 2; }
	compare "gpu $gpu" "$pt_gpu" "$pf_gpu"
fi
exit $rc
