#!/bin/sh
# SPDX-License-Identifier: MIT
# t0716-healthy-root.sh - a generated "healthy" root is healthy: tests/gen_root.py
# with its defaults passes every check that can run on it (no ERROR for an
# unrecorded GPUDirect fact: the root records nvidia_peermem loaded, as DGX OS
# does), and --no-peermem is the fault that takes it away (issue 20 item 5).
. "$(dirname "$0")/lib.sh"
need_python

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" "$T/ok" > /dev/null || bail_out "gen_root.py"
pf --no-config --root "$T/ok" --all --format json
expect_rc 0 "a generated healthy root, --all"
jq_py "$T/out" '" ".join(c["name"] + "=" + c["status"] for c in r["checks"] if c["status"] not in ("pass", "skip"))' > "$T/bad"
[ -s "$T/bad" ] && [ -n "$(tr -d ' \n' < "$T/bad")" ] && not_ok "not pass/skip: $(cat "$T/bad")"
[ "$(jq_py "$T/out" '[c["status"] for c in r["checks"] if c["name"] == "nvidia_peermem"][0]')" = pass ] &&
	ok "nvidia_peermem passes on the healthy root" || not_ok "nvidia_peermem: $(cat "$T/bad")"

"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" "$T/nopm" --no-peermem > /dev/null || bail_out "gen_root.py --no-peermem"
pf --no-config --root "$T/nopm" --only nvidia_peermem --format json
[ "$(jq_py "$T/out" '[c["status"] for c in r["checks"] if c["name"] == "nvidia_peermem"][0]')" != pass ] &&
	ok "--no-peermem: nvidia_peermem does not pass" || not_ok "--no-peermem still passes"

done_testing
