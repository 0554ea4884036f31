#!/bin/sh
# SPDX-License-Identifier: MIT
# t0450-link-health-ib.sh - link_health's InfiniBand bit error budget on
# generated roots (judged since boot under --root, 2 h of uptime): a clean
# node passes; symbol errors within IBTA's 1e-12 pass; past it the compute
# port fails (PF-LINK-HEALTH-009) and a storage port only warns; an
# unreadable counter is a skip naming it; ib_ber_max moves the line.
. "$(dirname "$0")/lib.sh"
need_python

# 2 h at 400 Gb/s is 2.88e15 bits: the 1e-12 budget is 2880 errors (1440 at 200 Gb/s)
gen_root "$T/ib" --gpus 2 --nics 2 --storage-nic --uptime 7200
ctr() { echo "$3" > "$T/ib/sys/class/infiniband/$1/ports/1/counters/$2"; }
run() { pf --no-config --root "$T/ib" --only link_health --format json "$@"; }

run
expect_rc 0 "a clean InfiniBand node passes"
expect_finding mlx5_0/1/ber "pass -" "mlx5_0/1: no errors, within the budget"

ctr mlx5_0 symbol_error 2000
ctr mlx5_2 symbol_error 1000
run
expect_rc 0 "symbol errors within 1e-12 since boot pass"
expect_finding mlx5_0/1/ber "pass -" "2000 symbol errors in 2 h at 400 Gb/s pass"

ctr mlx5_0 symbol_error 4000
ctr mlx5_2 link_error_recovery 600
run
expect_rc 1 "past the budget fails the run"
expect_finding mlx5_0/1/ber "fail PF-LINK-HEALTH-009" "4000 symbol errors: BER past 1e-12 fails"
expect_finding mlx5_2/1/ber "warn PF-LINK-HEALTH-009" "a storage port past the budget warns only"
expect_finding mlx5_1/1/ber "pass -" "the clean compute port passes"

run --set link_health.ib_ber_max=1e-11
expect_rc 0 "ib_ber_max=1e-11 moves the line"

echo garbage > "$T/ib/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"
run --set link_health.ib_ber_max=1e-11
expect_finding mlx5_1/1/ber "skip -" "an unreadable symbol_error is a skip"
echo 0 > "$T/ib/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"
ctr mlx5_0 symbol_error 0
ctr mlx5_2 symbol_error 0
ctr mlx5_2 link_error_recovery 0

# mlxlink's own BER, where a snapshot recorded `mlxlink -d <bdf> -c` (the text as MFT
# prints it); a node without mlxlink says nothing of it
run
expect_finding mlx5_0/1/mlxlink "none" "no mlxlink text: no mlxlink finding"
bdf=$(basename "$(readlink -f "$T/ib/sys/class/infiniband/mlx5_0/device")")
mlxlink_text() { # EFFECTIVE RAW
	mkdir -p "$T/ib/preflight/mlxlink"
	cat > "$T/ib/preflight/mlxlink/$bdf" <<TXT

Operational Info
----------------
State                              : Active
Physical state                     : LinkUp
Speed                              : IB-NDR
Width                              : 4x
FEC                                : Interleaved_Standard_RS_FEC_PLR - (544,514)

Physical Counters and BER Info
------------------------------
Time Since Last Clear [Min]        : 1440.5
Effective Physical Errors          : 0
Effective Physical BER             : $1
Raw Physical Errors Per Lane       : 12,0,3,0
Raw Physical BER Per Lane          : 1E-10,15E-255,2E-11,15E-255
Link Down Counter                  : 0
Link Error Recovery Counter        : 0
Raw Physical BER                   : $2
TXT
}
mlxlink_text 15E-255 3E-10
run
expect_rc 0 "a healthy mlxlink BER passes"
expect_finding mlx5_0/1/mlxlink "pass -" "raw 3e-10, effective none: pass"
mlxlink_text 15E-255 5E-6
run
expect_finding mlx5_0/1/mlxlink "warn PF-LINK-HEALTH-012" "raw BER 5e-6: warn"
mlxlink_text 15E-255 2E-5
run
expect_finding mlx5_0/1/mlxlink "fail PF-LINK-HEALTH-011" "raw BER 2e-5: fail"
mlxlink_text 1E-11 3E-10
run
expect_rc 1 "errors past FEC fail the run"
expect_finding mlx5_0/1/mlxlink "fail PF-LINK-HEALTH-010" "effective BER 1e-11: fail"
mlxlink_text N/A N/A
run
expect_finding mlx5_0/1/mlxlink "skip -" "N/A everywhere: a skip"
done_testing
