#!/bin/sh
# SPDX-License-Identifier: MIT
# gdr_loopback through the binary: a recorded root cannot send traffic and
# says so (skip, exit 0); a root without RDMA devices skips for that reason;
# --describe lists the loopback's settings.  The traffic itself is tested
# against the software verbs device (test_loopback, test_check_gdr_loopback).
set -eu
: "${PREFLIGHT:?}" "${PF_SOURCE_DIR:?}"
command -v python3 >/dev/null 2>&1 || { echo "skip: python3 not found (tests/gen_root.py)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/out.json" ] && sed 's/^/  report: /' "$tmp/out.json" >&2; exit 1; }

python3 "$PF_SOURCE_DIR/tests/gen_root.py" "$tmp/node" --gpus 2 --nics 2 >/dev/null
python3 "$PF_SOURCE_DIR/tests/gen_root.py" "$tmp/cpu" --gpus 0 --nics 0 >/dev/null

check() { # root expected-words
	rc=0
	"$PREFLIGHT" --root "$1" --only gdr_loopback --format json > "$tmp/out.json" || rc=$?
	[ "$rc" -eq 0 ] || fail "$1: exit $rc, expected 0 (skip)"
	python3 - "$tmp/out.json" "$2" <<'PY' || fail "$1: report"
import json, sys
c = json.load(open(sys.argv[1]))["checks"][0]
assert c["name"] == "gdr_loopback", c
assert c["status"] == "skip", c
assert sys.argv[2] in c["findings"][0]["message"], c
PY
}

check "$tmp/node" "recorded root cannot send traffic"
check "$tmp/cpu" "no RDMA devices"

"$PREFLIGHT" --describe gdr_loopback > "$tmp/describe" || fail "--describe exit $?"
for k in msg_size tx_depth iterations warmup host_min_fraction host_warn_fraction \
	 gpu_min_fraction pairs use_gpu parallel; do
	grep -q "^  $k " "$tmp/describe" || fail "--describe does not list $k"
done
echo "ok: gdr_loopback skips on recorded roots and roots without RDMA; --describe lists its settings"
