#!/bin/sh
# SPDX-License-Identifier: MIT
# gdr_loopback through the binary: a recorded root cannot send traffic and
# says so (skip, exit 0); a root without RDMA devices skips for that reason;
# --describe lists the loopback's settings.  The traffic itself is tested
# against the software verbs device (test_loopback, test_check_gdr_loopback).
. "$(dirname "$0")/lib.sh"
need_python

gen_root "$T/node" --gpus 2 --nics 2
gen_root "$T/cpu" --gpus 0 --nics 0

check() { # root expected-words
	pf --no-config --root "$1" --only gdr_loopback --format json
	expect_rc 0 "$1 (skip)"
	py_ok "$1: skips: $2" "$T/out" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "gdr_loopback", c
assert c["status"] == "skip", c
assert sys.argv[2] in c["findings"][0]["message"], c
PY
}

check "$T/node" "recorded root cannot send traffic"
check "$T/cpu" "no RDMA devices"

pf --describe gdr_loopback
expect_rc 0 "--describe gdr_loopback"
for k in msg_size tx_depth iterations warmup host_min_fraction host_warn_fraction \
	 gpu_min_fraction pairs use_gpu parallel; do
	grep -q "^  $k " "$T/out" || not_ok "--describe does not list $k"
done

done_testing
