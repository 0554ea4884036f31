#!/bin/sh
# SPDX-License-Identifier: MIT
# Every setting is validated when the profile is built: a word outside an
# enum key's table (each enum key of every check, read from --describe) and a
# bad combination of keys (each check's validate() rule) exit 64 naming
# "check.key", from --set and from a profile file, before any check runs.
. "$(dirname "$0")/lib.sh"

pass="$PF_FIXTURES/slurm-pass"
n_enum=0
for check in $("$PREFLIGHT" --list | awk '{ print $1 }'); do
	for key in $("$PREFLIGHT" --describe "$check" |
		     awk '$2 == "enum," || /, a list of integers|, a list of PCI addresses|, a dotted version/ { print $1 }'); do
		n_enum=$((n_enum + 1))
		expect_usage "$check.$key" --root "$pass" --only memlock --set "$check.$key=bogus"
		printf '{ "checks": { "%s": { "%s": "bogus" } } }\n' "$check" "$key" > "$T/p.json"
		expect_usage "checks.$check.$key" --root "$pass" --only memlock --profile "$T/p.json"
		"$PREFLIGHT" --describe "$check" | grep -q "^  $key .*\(one of: \|, a \)" ||
			not_ok "--describe $check does not say what $key takes"
	done
done
# the enums (port_errors.mode, nvidia_peermem.require, gpu_nic_numa.worst_class,
# gdr_loopback.gpu_reg) and the lists and versions (sysctl.rp_filter,
# gpu_inventory.min_driver, xid_fail, xid_ignore, gpu_nic_numa.ignore_gpus)
[ "$n_enum" -ge 9 ] && ok "$n_enum keys with a syntax" || not_ok "only $n_enum keys with a syntax"
# a PCI address in another spelling is stored as sysfs writes it (so that it matches)
pf --root "$pass" --only gpu_nic_numa --set gpu_nic_numa.ignore_gpus=1B:00.0 --check-config
grep -q 'ignore_gpus = "0000:1b:00.0"' "$T/out" && ok "ignore_gpus normalised" ||
	not_ok "ignore_gpus not normalised: $(grep ignore_gpus "$T/out")"


# the words are matched without case and stored as the table spells them
pf --root "$pass" --only memlock --set port_errors.mode=ABSOLUTE --set gpu_nic_numa.worst_class=pxb
expect_rc 0 "enum words in another case"

# cross-field rules, also when the two keys come from the profile and --set
expect_usage "gdr_loopback.host_warn_fraction" --root "$pass" --only memlock \
	--set gdr_loopback.host_warn_fraction=0.5
expect_usage "gdr_loopback.pairs" --root "$pass" --only memlock --set gdr_loopback.pairs=mlx5_0/0
expect_usage "pfc_pause.warn_pause_pct" --root "$pass" --only memlock \
	--set pfc_pause.warn_pause_pct=50
expect_usage "nccl_allreduce.min_bytes" --root "$pass" --only memlock \
	--set nccl_allreduce.max_bytes=4096
echo '{ "checks": { "pfc_pause": { "fail_pause_pct": 0.5 } } }' > "$T/p.json"
expect_usage "pfc_pause.warn_pause_pct" --root "$pass" --only memlock --profile "$T/p.json"
pf --root "$pass" --only memlock --profile "$T/p.json" --set pfc_pause.warn_pause_pct=0.4
expect_rc 0 "a profile and --set that agree"
done_testing
