# `preflight mesh` over real RDMA (docs/mesh.md): two ranks in the one VM,
# rank 0 on rxe0 (192.0.2.1) and rank 1 on rxe1 (192.0.2.2), cabled to each
# other (rig_two_rails); they meet over TCP on 127.0.0.1 (--peers
# '127.0.0.[1-2]': one address per rank, rank 0 the first) and write to
# each other's rail over RDMA-CM, both directions at once.  Healthy: both
# reports hold both directions, data verified, the same matrix, never a
# fail, no rail or node suspect (under TCG the two directions of one healthy
# run differ up to 2.1x, measured 0.19 vs 0.40 Gb/s, so a path warn is
# possible and allowed).  Then rxe0's sends shaped (rig_rate veth0 5mbit):
# with two nodes a slow direction cannot be pinned to either end, so the
# triangulation names the path 0 -> 1, tx, far below the healthy direction
# (warn on both), never a rail or a node.
. "$PF_SRC/tests/vm/guest-net.sh"
rig_two_rails || exit 1
rig_tune
# M ARGS...: mesh_report.py (a function: the source path may hold spaces)
M() { $T python3 "$PF_SRC/tests/vm/mesh_report.py" "$@"; }
mexpect() { M "$@" || FAILS=$((FAILS + 1)); }

# the two ranks' secret (docs/mesh.md "Authentication")
PREFLIGHT_MESH_SECRET=$("$PF_BUILD/preflight" mesh --new-secret) || exit 1
export PREFLIGHT_MESH_SECRET

# mesh_pair NAME: both ranks at once, reports /vmwork/NAME.rR.json
mesh_pair() {
	for r in 0 1; do
		$T_LONG "$PF_BUILD/preflight" mesh --peers '127.0.0.[1-2]' --rank "$r" \
			--nics "rxe$r" --timeout 20 --duration "${DURATION:-2000}" \
			--output "/vmwork/$1.r$r.json" > "/vmwork/$1.r$r.log" 2>&1 &
	done
	wait
	for r in 0 1; do echo "--- rank $r"; cat "/vmwork/$1.r$r.log"; done
}

start=$(date +%s)
mesh_pair healthy
echo "mesh healthy: $(($(date +%s) - start)) s wall, 1 round, both processes"
for r in 0 1; do
	mexpect status "/vmwork/healthy.r$r.json" pass,warn
	mexpect flows "/vmwork/healthy.r$r.json" 2
	mexpect none-of "/vmwork/healthy.r$r.json" rail,node
done
mexpect same /vmwork/healthy.r0.json /vmwork/healthy.r1.json
M show /vmwork/healthy.r0.json

rig_rate veth0 "${RATE:-5mbit}"
mesh_pair slow
for r in 0 1; do
	mexpect status "/vmwork/slow.r$r.json" warn
	mexpect flows "/vmwork/slow.r$r.json" 2
	mexpect suspects "/vmwork/slow.r$r.json" path
	mexpect path "/vmwork/slow.r$r.json" 0 1 tx
	mexpect ratio-below "/vmwork/slow.r$r.json" 0.2
done
mexpect slower /vmwork/slow.r1.json 0 1
mexpect same /vmwork/slow.r0.json /vmwork/slow.r1.json
M show /vmwork/slow.r1.json
rig_clear veth0
finish
