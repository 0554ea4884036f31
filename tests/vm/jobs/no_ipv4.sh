# Two rails with no IPv4 address (an InfiniBand cluster without IPoIB, in
# soft-RoCE terms): the rails keep only their IPv6 link-local addresses, so
# each rxe port holds only the link-local RoCE v2 GID and RDMA-CM cannot
# resolve an IPv4 rail.  fabric_loopback and gdr_loopback connect with plain
# verbs (connect=auto picks it), and `preflight mesh` connects its flows with
# verbs, the QP records through its rendezvous: every flow measured, its
# data verified, nothing fails; a slow direction is named as over RDMA-CM.
. "$PF_SRC/tests/vm/guest-net.sh"
rig_two_rails || exit 1
rig_tune
rig_no_ipv4 veth0 veth1 || exit 1
for d in rxe0 rxe1; do
	for i in 0 1 2; do
		printf '%s gid %s: %s %s\n' "$d" "$i" "$(cat /sys/class/infiniband/$d/ports/1/gids/$i)" \
			"$(cat /sys/class/infiniband/$d/ports/1/gid_attrs/types/$i 2>&1)"
	done
done

rig_preflight /vmwork/traffic.json --profile "$PROFILE" --only fabric_loopback,gdr_loopback
expect check /vmwork/traffic.json fabric_loopback pass
expect finding /vmwork/traffic.json fabric_loopback 'rxe0/1 -> rxe1/1' pass
expect finding /vmwork/traffic.json fabric_loopback 'rxe1/1 -> rxe0/1' pass
expect contains /vmwork/traffic.json fabric_loopback '"connection": *"verbs"'
expect figures /vmwork/traffic.json fabric_loopback
expect check /vmwork/traffic.json gdr_loopback pass
expect figures /vmwork/traffic.json gdr_loopback

# forced RDMA-CM: each rail says it has no address, never a pass
rig_preflight /vmwork/cm.json --profile "$PROFILE" --only fabric_loopback \
	--set fabric_loopback.connect=cm
expect check /vmwork/cm.json fabric_loopback fail
expect finding /vmwork/cm.json fabric_loopback 'rxe0/1' fail 'has no IPv4 address'

# mesh: two ranks in this VM meet over TCP on 127.0.0.x, connect by verbs
M() { $T python3 "$PF_SRC/tests/vm/mesh_report.py" "$@"; }
mexpect() { M "$@" || FAILS=$((FAILS + 1)); }
PREFLIGHT_MESH_SECRET=$("$PF_BUILD/preflight" mesh --new-secret) || exit 1
export PREFLIGHT_MESH_SECRET
# mesh_pair NAME: both ranks at once, reports /vmwork/NAME.rR.json
mesh_pair() {
	for r in 0 1; do
		$T_LONG "$PF_BUILD/preflight" mesh --peers '127.0.0.[1-2]' --rank "$r" \
			--nics "rxe$r" --timeout 20 --duration 2000 \
			--output "/vmwork/$1.r$r.json" > "/vmwork/$1.r$r.log" 2>&1 &
	done
	wait
	for r in 0 1; do echo "--- rank $r"; cat "/vmwork/$1.r$r.log"; done
}
mesh_pair mesh
for r in 0 1; do
	mexpect status "/vmwork/mesh.r$r.json" pass,warn
	mexpect flows "/vmwork/mesh.r$r.json" 2
	mexpect none-of "/vmwork/mesh.r$r.json" rail,node
	expect contains "/vmwork/mesh.r$r.json" mesh 'over verbs'
done
mexpect same /vmwork/mesh.r0.json /vmwork/mesh.r1.json
M show /vmwork/mesh.r0.json

# a fault is named as over RDMA-CM (mesh_pair.sh): rxe0's sends shaped, the
# path between the two named (two nodes cannot tell which end), never a rail
# or node (measured: warn on both, path 0 -> 1 tx, the slow flow cut at its
# budget).  Before the mesh cut slow flows, the stalled one ended in an error
# and the other direction once with IBV_WC_REM_INV_REQ_ERR, unexplained; so
# the direction and a warn-only verdict are not asserted here.
rig_rate veth0 5mbit
mesh_pair slow
for r in 0 1; do
	mexpect status "/vmwork/slow.r$r.json" warn,fail
	mexpect suspects "/vmwork/slow.r$r.json" path
	mexpect none-of "/vmwork/slow.r$r.json" rail,node
done
M show /vmwork/slow.r1.json
rig_clear veth0
finish
