#!/bin/sh
# SPDX-License-Identifier: MIT
# fabric_loopback through the binary: listed, a recorded root cannot send
# traffic (skip), a root without RDMA devices and one with a single rail skip
# with their reasons, --describe shows the settings and the deadline; the
# check's object calls no clock, sleep, environment, uid or open of its own
# (everything comes through ctx), and the binary links neither libibverbs nor
# librdmacm (both are dlopen'd in the check's child).  The traffic itself runs
# against the fake verbs device and fake RDMA-CM (test_fabric_engine,
# test_check_fabric_loopback).
. "$(dirname "$0")/lib.sh"
need_python

$PY "$PF_SOURCE_DIR/tests/gen_root.py" "$T/roce" --gpus 0 --nics 8 --link-layer eth >/dev/null
$PY "$PF_SOURCE_DIR/tests/gen_root.py" "$T/cpu" --gpus 0 --nics 0 >/dev/null
$PY "$PF_SOURCE_DIR/tests/gen_root.py" "$T/one" --gpus 0 --nics 2 --down-port mlx5_1 \
	--file /sys/class/infiniband/mlx5_1/ports/1/counters/link_downed=1 >/dev/null
$PY "$PF_SOURCE_DIR/tests/gen_root.py" "$T/unused" --gpus 0 --nics 2 --down-port mlx5_1 >/dev/null
$PY "$PF_SOURCE_DIR/tests/gen_root.py" "$T/down" --gpus 0 --nics 2 --link-layer eth \
	--down-port mlx5_0,mlx5_1 >/dev/null

pf --list
grep -q '^fabric_loopback ' "$T/out" && ok "--list names fabric_loopback" ||
	not_ok "--list does not name fabric_loopback: $(head -c 300 "$T/out")"

skip_with() { # root reason
	pf --no-config --root "$1" --only fabric_loopback --format json
	expect_rc 0 "$(basename "$1"): skip"
	if $PY - "$T/out" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "fabric_loopback" and c["status"] == "skip", c
assert any(sys.argv[2] in f["message"] for f in c["findings"]), c
PY
	then ok "$(basename "$1"): skip says '$2'"; else not_ok "$(basename "$1"): report"; fi
}
skip_with "$T/roce" "recorded root cannot send traffic"
skip_with "$T/cpu" "no RDMA devices"
# a DOWN port that went down is a finding, never dropped: a warn beside an ACTIVE port, a
# fail when no port is ACTIVE (a prolog must not pass a node whose rails are all DOWN)
status_with() { # root status reason
	pf --no-config --root "$1" --only fabric_loopback --format json
	if $PY - "$T/out" "$2" "$3" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "fabric_loopback" and c["status"] == sys.argv[2], c
assert any(sys.argv[3] in f["message"] for f in c["findings"]), c
PY
	then ok "$(basename "$1"): $2 says '$3'"; else not_ok "$(basename "$1"): report"; fi
}
status_with "$T/one" warn "1 ACTIVE InfiniBand rail"
status_with "$T/one" warn "mlx5_1/1 (InfiniBand) is DOWN"
# one that never linked since boot is unused in the rail model (docs/rails.md): a skip
status_with "$T/unused" skip "mlx5_1/1: an unused port"
status_with "$T/down" fail "mlx5_0/1 (RoCE) is DOWN"

# this machine, live: without RDMA devices the check skips with that reason
if [ ! -d /sys/class/infiniband ] || [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	pf --no-config --only fabric_loopback --format json
	expect_rc 0 "live node without RDMA"
	grep -q 'no RDMA devices' "$T/out" && ok "live node without RDMA: skip with its reason" ||
		not_ok "live node without RDMA: $(head -c 300 "$T/out")"
fi

pf --describe fabric_loopback
expect_rc 0 "--describe fabric_loopback"
for k in msg_size tx_depth cq_mod iterations warmup duration_ms timeout_ms resolve_timeout_ms \
	 min_fraction pairs nics use_gpu rail_only gpu_reg connect; do
	grep -q "^  $k " "$T/out" || not_ok "--describe does not list $k"
done
grep -q '^deadline: 41 s with the defaults' "$T/out" && ok "--describe shows the deadline" ||
	not_ok "--describe deadline: $(grep deadline "$T/out")"
# a bad pair is a usage error naming the key
pf --no-config --root "$T/roce" --only fabric_loopback --set fabric_loopback.pairs=mlx5_0
expect_rc 64 "fabric_loopback.pairs=mlx5_0"
grep -q 'fabric_loopback.pairs' "$T/err" && ok "the usage error names fabric_loopback.pairs" ||
	not_ok "usage error: $(head -c 300 "$T/err")"

# nm: the check reads time, waits, environment and files only through ctx
if command -v nm >/dev/null 2>&1; then
	syms=$(find "$(dirname "$PREFLIGHT")" -name '*.a' -exec nm -A {} + 2>/dev/null |
		grep 'fabric_loopback\.c\.o:' | awk '$(NF-1) == "U" { print $NF }')
	if [ -z "$syms" ]; then
		not_ok "nm: no fabric_loopback.c.o in the build's archives"
	else
		bad=$(echo "$syms" | grep -xE 'getenv|secure_getenv|geteuid|getuid|clock_gettime|time|gettimeofday|sleep|usleep|nanosleep|poll|open|open64|openat|fopen|fopen64|dlopen' || true)
		[ -z "$bad" ] && ok "nm: fabric_loopback calls no clock, sleep, env, uid or open" ||
			not_ok "nm: fabric_loopback calls $(echo $bad)"
	fi
fi

# the binary itself does not link the RDMA libraries
if command -v readelf >/dev/null 2>&1; then
	needed=$(readelf -d "$PREFLIGHT" | grep NEEDED || true)
	echo "$needed" | grep -qE 'librdmacm|libibverbs' &&
		not_ok "the binary links an RDMA library: $needed" ||
		ok "libibverbs and librdmacm are not linked (dlopen'd in the child)"
fi

# the bench: a usage error, and a skip (77) where it cannot measure
rc=0; sh "$PF_SOURCE_DIR/bench/fabric-vs-perftest.sh" -s mlx5_0 -c mlx5_0 -b "$PREFLIGHT" \
	>/dev/null 2>&1 || rc=$?
expect_rc 64 "bench with one device as both ends"
if ! command -v ib_write_bw >/dev/null 2>&1 || [ ! -d /sys/class/infiniband/mlx5_1 ]; then
	rc=0; sh "$PF_SOURCE_DIR/bench/fabric-vs-perftest.sh" -b "$PREFLIGHT" >/dev/null 2>"$T/err" || rc=$?
	expect_rc 77 "bench without perftest or two ACTIVE ports"
	grep -q SKIP "$T/err" && ok "the bench says why it skips" || not_ok "bench: $(cat "$T/err")"
fi
done_testing
