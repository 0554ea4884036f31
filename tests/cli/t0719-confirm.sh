#!/bin/sh
# SPDX-License-Identifier: MIT
# t0719-confirm.sh - --confirm N (issue 35 item 4): a fail that clears on a
# re-run is a warn that says so (exit 0), one that holds is a fail with its
# attempts (exit 1); on the live node the per-boot counts state is written
# under --state-dir for this boot, and one it cannot trust is said on stderr
# and ignored, never an error of the run.  The transient fail is the test-only
# binary's failonce fault (tests/faults/fault_hook.c).
. "$(dirname "$0")/lib.sh"
need_python
FAULTS=$(dirname "$PREFLIGHT")/preflight-faults
[ -x "$FAULTS" ] || skip_all "no preflight-faults next to $PREFLIGHT"

gen_root "$T/ok"
gen_root "$T/slow" --slow-port mlx5_3 --slow-rate 100

rc=0
PF_TEST_FAULT=failonce:nic_link_speed PF_TEST_FAULT_ONCE="$T/once" \
	"$FAULTS" --no-config --root "$T/ok" --confirm 2 --format json > "$T/out" 2> "$T/err" || rc=$?
expect_rc 0 "a fail that clears on the first re-run"
py_ok "it is a warn with code -900, attempts 2, naming the first run's fail" "$T/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["checks"] if c["name"] == "nic_link_speed"][0]
assert c["status"] == "warn" and c["attempts"] == 2, c
w = [f for f in c["findings"] if f["status"] == "warn"]
assert len(w) == 1 and w[0]["code"] == "PF-NIC-LINK-SPEED-900" and w[0]["action"] == "none", w
assert "injected once" in w[0]["message"] and "re-run 1 of 2" in w[0]["message"], w
assert all("attempts" not in x for x in r["checks"] if x["name"] != "nic_link_speed")
PY

# without --confirm the same fault is a fail: the test can see the difference
rm -f "$T/once"
rc=0
PF_TEST_FAULT=failonce:nic_link_speed PF_TEST_FAULT_ONCE="$T/once" \
	"$FAULTS" --no-config --root "$T/ok" --format json > "$T/out" 2> "$T/err" || rc=$?
expect_rc 1 "the same fault without --confirm"

pf --no-config --root "$T/slow" --confirm 2 --format json
expect_rc 1 "a fail that holds (a port at 100 Gb/s)"
py_ok "the fail stands after 3 runs" "$T/out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["checks"] if c["name"] == "nic_link_speed"][0]
assert c["status"] == "fail" and c["attempts"] == 3, c
PY

pf --no-config --root "$T/ok" --confirm 11
expect_rc 64 "--confirm above 10"

# live: the counts state of this boot under --state-dir (nothing is written under --root)
[ -s "$T/st/counts.json" ] && not_ok "a --root run wrote a state"
pf --no-config --only memlock,gpu_inventory --confirm 1 --state-dir "$T/st" --format json
[ "$rc" -le 2 ] && ok "live --confirm run: exit $rc" || not_ok "live --confirm run: exit $rc: $(head -c 300 "$T/err")"
py_ok "counts.json: this boot's id, not writable by others" "$T/st/counts.json" <<'PY'
import json, os, stat, sys
s = json.load(open(sys.argv[1]))
boot = open("/proc/sys/kernel/random/boot_id").read().strip()
assert s["boot_id"] == boot and isinstance(s["counts"], dict), s
assert not os.stat(sys.argv[1]).st_mode & 0o022
PY

# a state that cannot be trusted: said on stderr, the run goes on
echo '{"boot_id": 1' > "$T/st/counts.json"
pf --no-config --only memlock --confirm 1 --state-dir "$T/st" --format json
[ "$rc" -le 2 ] && grep -q "not a counts state" "$T/err" &&
	ok "garbage state: said on stderr, exit $rc" || not_ok "garbage state: exit $rc, stderr: $(cat "$T/err")"
mkdir -p "$T/open" && chmod 0777 "$T/open"
pf --no-config --only memlock --confirm 1 --state-dir "$T/open" --format json
[ "$rc" -le 2 ] && grep -q "counts are not remembered\|--confirm: " "$T/err" &&
	ok "a state directory others may write: refused, exit $rc" ||
	not_ok "open state dir: exit $rc, stderr: $(cat "$T/err")"
[ -e "$T/open/counts.json" ] && not_ok "wrote a state into a directory others may write"

done_testing
