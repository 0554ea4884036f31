#!/bin/sh
# SPDX-License-Identifier: MIT
# t0890-fleet-runs.sh - the flow of docs/fleet-runs.md on generated roots:
# every "node" writes --output DIR/%j/%n.json (as srun or pdsh would run it;
# %n the node's hostname, %j the Slurm job id), then `preflight fleet -r`
# reads the tree and names the bad node; an unknown placeholder is a usage
# error before anything runs.
. "$PF_SOURCE_DIR/tests/cli/lib.sh"

for i in 1 2 3; do
	extra=
	[ "$i" = 3 ] && extra="--slow-port mlx5_1"
	# shellcheck disable=SC2086
	"$PY" "$PF_SOURCE_DIR/tests/gen_root.py" --gpus 2 --nics 2 --hostname "gpu-00$i.cluster" \
		$extra "$T/root$i" >/dev/null || not_ok "gen_root $i"
	SLURM_JOB_ID=4242 "$PREFLIGHT" --root "$T/root$i" --only nic_link_speed,memlock \
		--output "$T/reports/%j/%n.json" 2>>"$T/slurm-err"
done
for i in 1 2 3; do
	[ -s "$T/reports/4242/gpu-00$i.json" ] || not_ok "no reports/4242/gpu-00$i.json"
done
json_ok "$T/reports/4242/gpu-003.json" && ok "%j/%n expanded to 4242/gpu-00N.json" ||
	not_ok "gpu-003.json: $(ls -R "$T/reports")"

pf fleet --format json -r "$T/reports"
expect_rc 1 "fleet -r over the job's reports"
[ "$(jq_py "$T/out" '[f["node"] for f in r["failing"]]')" = "['gpu-003.cluster']" ] &&
	ok "gpu-003 named as failing" || not_ok "failing: $(jq_py "$T/out" 'r["failing"]')"

pf --root "$T/root1" --only memlock --output "$T/reports/%h.json"
expect_rc 64 "unknown placeholder"
expect_err "unknown placeholder '%h'"
[ -e "$T/reports/%h.json" ] && not_ok "a report was written under the unexpanded name"

done_testing
