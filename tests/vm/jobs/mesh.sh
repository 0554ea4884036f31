# `preflight mesh` end to end on the multi-VM rig (3 VMs, 2 rails and a
# storage NIC each, the roles from the rig's site config: mesh_site),
# every VM running the same cases in order (the run's secret in
# PREFLIGHT_MESH_SECRET, the same in every VM: run-vms.sh), each case its own rendezvous
# (port) and its own report directory /vmshare/CASE/%n.json; the faults act
# on what the chosen VM sends and are set before its rank starts (the data
# flows only after every rank arrived) and cleared after it finished:
#   healthy     nothing
#   slow_rail   vm2's rail 2 (rxe1) shaped to 4 Mbit/s
#   slow_node   vm3's rails both shaped to 4 Mbit/s
#   dead_path   vm1 and vm3 drop what they send each other on rail 1 (rxe0)
#   missing     vm3 never starts its rank
# then one more phase, no traffic: wiring, vm2's two rail cables swapped
# (mesh_swap_rails), every VM writing a run report (node.rails) to
# /vmshare/wiring (a few seconds).
# mesh.host.sh judges the directories with `preflight fleet`.
. "$PF_SRC/tests/vm/guest-mesh.sh"
mesh_net || exit 1
rig_tune
mesh_wait_peers || exit 1
# the rails are what the site declares: rxe0 and rxe1 compute, rxe2 (the
# storage NIC, PF_VM_STORAGE=1, shaped slower) storage; no --nics
mesh_site /vmwork/site.conf
extra="--config /vmwork/site.conf --duration ${PF_MESH_DURATION_MS:-3000}"
echo "mesh options: $extra"
k=0
for c in healthy slow_rail slow_node dead_path missing; do
	k=$((k + 1))
	mkdir -p "/vmshare/$c"
	case "$c:$I" in
	slow_rail:2) mesh_slow_rail 2 4mbit ;;
	slow_node:3) mesh_slow_node 4mbit ;;
	dead_path:1) mesh_drop_to 1 3 ;;
	dead_path:3) mesh_drop_to 1 1 ;;
	missing:3) echo "case $c: this rank never starts"; continue ;;
	esac
	t=30
	[ "$c" = missing ] && t=10
	dport="--data-port $((29700 + k))"
	t0=$(rig_uptime)
	# shellcheck disable=SC2086
	$T_LONG "$PF_BUILD/preflight" mesh --peers "vm[1-$N]" --rank $((I - 1)) --size "$N" \
		--port $((29600 + k)) --timeout $t $extra $dport --output "/vmshare/$c/%n.json" \
		> "/vmwork/$c.out" 2> "/vmwork/$c.err"
	rc=$?
	t1=$(rig_uptime)
	el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	echo "case $c: preflight mesh exit $rc, $el s"
	# the missing rank: named at the 10 s deadline, then the present
	# ranks' rounds; never the 200 s a hang would take
	if [ "$c" = missing ] && awk -v e="$el" 'BEGIN { exit !(e > 45) }'; then
		echo "FAIL: case missing took $el s with a 10 s deadline"; FAILS=$((FAILS + 1))
	fi
	[ -s "/vmwork/$c.err" ] && sed 's/^/  stderr: /' "/vmwork/$c.err" | head -n 5
	mesh_clear
	[ -s "/vmshare/$c/vm$I.json" ] || { echo "FAIL: case $c wrote no report"; FAILS=$((FAILS + 1)); }
done
# wiring: once every VM is done with the mesh cases (vm2's devices must not
# go away under a peer's connection), each VM's rails as its run report has
# them, vm2's cables swapped
mkdir -p /vmshare/wiring
mesh_barrier wiring
t0=$(rig_uptime)
if [ "$I" = 2 ] && ! mesh_swap_rails; then
	echo "FAIL: wiring: cannot swap vm2's rails"; FAILS=$((FAILS + 1))
fi
rig_preflight "/vmshare/wiring/vm$I.json" --only nic_link_speed \
	--set rails.compute=rxe0,rxe1 --set rails.storage=rxe2
rc=$?
echo "case wiring: preflight exit $rc, $(awk -v a="$t0" -v b="$(rig_uptime)" 'BEGIN { printf "%.1f", b - a }') s"
[ -s "/vmshare/wiring/vm$I.json" ] || { echo "FAIL: case wiring wrote no report"; FAILS=$((FAILS + 1)); }
finish
