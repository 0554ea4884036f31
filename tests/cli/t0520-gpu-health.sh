#!/bin/sh
# SPDX-License-Identifier: MIT
# t0520-gpu-health.sh - gpu_health and nvlink_links on generated roots with
# recorded NVML facts (tests/gen_root.py --nvml-health): a healthy node passes
# both; each fault (a hardware slowdown, heat, a power cap, uncorrected ECC,
# a missing /dev/nvidia-uvm, an inactive link, NVLink recoveries) fails or
# warns with its code; a query NVML does not support and a PCIe GPU without
# NVLink are skips naming the query; a root without the facts is a skip.
# NVLink speed: one GPU slower than the others of its model warns, below the
# profile's min_speed_mbps fails; a snapshot without the speed line (older
# than the speed) skips only that rule.
. "$(dirname "$0")/lib.sh"
need_python

gen_root "$T/ok" --gpus 2 --nics 1 --nvml-health
pf --no-config --root "$T/ok" --only gpu_health,nvlink_links --format json
expect_rc 0 "a healthy recorded GPU node passes gpu_health and nvlink_links"
B=$(ls "$T/ok/preflight/nvml" | head -1)

gen_root "$T/bad" --gpus 2 --nics 1 --nvml-health --clock-events 0:0x48 --gpu-temp 1:82 \
	--power-limit 1:450 --ecc-volatile 0:2 --no-dev-node nvidia-uvm --nvlink-down 1:3 \
	--nvlink-errors 0:5:recovery:90
pf --no-config --root "$T/bad" --only gpu_health,nvlink_links --format json
expect_rc 1 "faults fail the run"
B0=$(ls "$T/bad/preflight/nvml" | sed -n 1p)
B1=$(ls "$T/bad/preflight/nvml" | sed -n 2p)
expect_finding "$B0/clocks" "fail PF-GPU-HEALTH-001" "HW slowdown + HW thermal: fail"
expect_finding "$B1/thermal" "warn PF-GPU-HEALTH-004" "5 C under the slowdown: warn"
expect_finding "$B1/power" "warn PF-GPU-HEALTH-005" "a 450 W cap on a 700 W board: warn"
expect_finding "$B0/ecc" "fail PF-GPU-HEALTH-006" "volatile uncorrected ECC: fail"
expect_finding "/dev/nvidia-uvm" "fail PF-GPU-HEALTH-010" "no /dev/nvidia-uvm: fail"
expect_finding "$B1/links" "fail PF-NVLINK-LINKS-001" "an inactive NVLink link: fail"
expect_finding "$B0/errors" "warn PF-NVLINK-LINKS-005" "90 recoveries in 24 h: warn (snapshot)"
expect_finding "$B1/errors" "pass -" "the other GPU's counters are clean"

expect_finding "$B0/speed" "pass -" "every GPU at one NVLink speed"

gen_root "$T/slow" --gpus 4 --nics 1 --nvml-health --nvlink-speed 2:20000
pf --no-config --root "$T/slow" --only nvlink_links --format json
expect_rc 0 "one GPU's NVLink slower than the others warns, not a drain"
S2=$(ls "$T/slow/preflight/nvml" | sed -n 3p)
S0=$(ls "$T/slow/preflight/nvml" | sed -n 1p)
expect_finding "$S2/speed" "warn PF-NVLINK-LINKS-006" "a link trained down: warn"
expect_finding "$S0/speed" "pass -" "the GPUs at full speed pass"
pf --no-config --root "$T/slow" --only nvlink_links --set nvlink_links.min_speed_mbps=25000 \
	--format json
expect_rc 1 "below min_speed_mbps fails"
expect_finding "$S2/speed" "fail PF-NVLINK-LINKS-007" "below the profile's floor: fail"

# a snapshot from before the speed was recorded: that rule skips, the rest judged
for f in "$T"/slow/preflight/nvml/*/nvlink; do
	grep -v '^speed_mbps ' "$f" >"$f.new" && mv "$f.new" "$f"
done
pf --no-config --root "$T/slow" --only nvlink_links --format json
expect_rc 0 "an old snapshot without the speed passes"
expect_finding "$S2/speed" "skip -" "speed not recorded: skip"
expect_finding "$S2/links" "pass -" "links still judged"
grep -q "NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON): not in this libnvidia-ml or not recorded" \
	"$T/out" && ok "the speed skip names the query" || not_ok "the speed skip names no query"

# the shipped b200 profile expects 18 links (a model the table does not know):
# a healthy B200 passes, one reporting 16 fails
gen_root "$T/b200" --gpu b200 --gpus 2 --nics 2 --nvml-health
pf --no-config --root "$T/b200" --profile b200 --only nvlink_links --format json
expect_rc 0 "a B200 with its 18 links passes the b200 profile"
gen_root "$T/b200short" --gpu b200 --gpus 2 --nics 2 --nvml-health --nvlinks 16
pf --no-config --root "$T/b200short" --profile b200 --only nvlink_links --format json
expect_rc 1 "a B200 reporting 16 of its 18 links fails"
B=$(ls "$T/b200short/preflight/nvml" | head -1)
expect_finding "$B/links" "fail PF-NVLINK-LINKS-002" "fewer links than the profile's 18"

gen_root "$T/pcie" --gpus 1 --nics 1 --nvml-health --nvlinks 0 --nvml-unsupported pcie_replay_counter
pf --no-config --root "$T/pcie" --only gpu_health,nvlink_links --format json
expect_rc 0 "not supported is never a fail"
B=$(ls "$T/pcie/preflight/nvml" | head -1)
expect_finding "$B/links" "skip -" "a PCIe GPU: nvlink_links skips"
expect_finding "$B/pcie_replay" "skip -" "an unsupported query: skip"
grep -q "nvmlDeviceGetNvLinkState: not supported" "$T/out" && ok "the skip names the query" ||
	not_ok "the skip does not name nvmlDeviceGetNvLinkState"

gen_root "$T/none" --gpus 1 --nics 1
pf --no-config --root "$T/none" --only gpu_health,nvlink_links --format json
expect_rc 0 "facts not recorded: skips, exit 0"
[ "$(jq_py "$T/out" '" ".join(c["status"] for c in r["checks"])')" = "skip skip" ] &&
	ok "both checks skip without recorded facts" || not_ok "$(jq_py "$T/out" '[c["status"] for c in r["checks"]]')"

done_testing
