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
	for key in $("$PREFLIGHT" --describe "$check" | awk '$2 == "enum," { print $1 }'); do
		n_enum=$((n_enum + 1))
		expect_usage "$check.$key" --root "$pass" --only memlock --set "$check.$key=bogus"
		printf '{ "checks": { "%s": { "%s": "bogus" } } }\n' "$check" "$key" > "$T/p.json"
		expect_usage "checks.$check.$key" --root "$pass" --only memlock --profile "$T/p.json"
		"$PREFLIGHT" --describe "$check" | grep -q "^  $key .*one of: " ||
			not_ok "--describe $check does not list the words of $key"
	done
done
# port_errors.mode, nvidia_peermem.require, gpu_nic_numa.worst_class, gdr_loopback.gpu_reg
[ "$n_enum" -ge 4 ] && ok "$n_enum enum keys" || not_ok "only $n_enum enum keys in --describe"

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
