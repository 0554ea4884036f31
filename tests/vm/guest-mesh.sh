# Guest side of the multi-VM rig (run-vms.sh), sourced by jobs in each VM:
# this VM's management address and rails, and faults on what it sends.
# run-vms.sh sets PF_VM_INDEX (I), PF_VM_COUNT (N), PF_VM_RAILS (R).
. "$PF_SRC/tests/vm/guest-net.sh"
I=$PF_VM_INDEX N=$PF_VM_COUNT R=$PF_VM_RAILS

# mesh_dev SEG: this VM's netdev on segment SEG (0 mgmt, r rail r), by MAC.
mesh_dev() {
	mac=52:54:00:00:$(printf %02x "$1"):$(printf %02x "$I")
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$mac" ] && { basename "$d"; return 0; }
	done
	return 1
}

# mesh_ip SEG VM: VM's address on SEG (10.0.0.VM mgmt, 10.r.0.VM rail r).
mesh_ip() { echo "10.$1.0.$2"; }

# mgmt on 10.0.0.I/24 with vm1..vmN in /etc/hosts; rail r (1..R) on
# 10.r.0.I/24 at MTU 4200 with rxe(r-1) over it; every rxe port ACTIVE.
mesh_net() {
	$T modprobe virtio_net || { echo "rig: modprobe virtio_net failed"; return 1; }
	rig_modules || return 1
	k=0
	until mesh_dev "$R" >/dev/null; do
		k=$((k + 1))
		[ $k -gt 50 ] && { echo "rig: no NIC on segment $R"; ls /sys/class/net; return 1; }
		sleep 0.2
	done
	dev=$(mesh_dev 0)
	$T ip addr add "$(mesh_ip 0 "$I")/24" dev "$dev" && $T ip link set "$dev" up || return 1
	j=1
	while [ $j -le "$N" ]; do echo "$(mesh_ip 0 $j) vm$j" >> /etc/hosts; j=$((j + 1)); done
	r=1 devs=""
	while [ $r -le "$R" ]; do
		dev=$(mesh_dev $r)
		$T ip link set "$dev" mtu 4200 &&
			$T ip addr add "$(mesh_ip $r "$I")/24" dev "$dev" &&
			$T ip link set "$dev" up &&
			$T rdma link add "rxe$((r - 1))" type rxe netdev "$dev" || return 1
		devs="$devs rxe$((r - 1))"
		r=$((r + 1))
	done
	# the storage NIC (PF_VM_STORAGE=1): segment R+1 on 10.(R+1).0.I/24 with
	# rxeR over it, its sends shaped to 8 Mbit/s, below every rail: a port
	# that the site declares storage (mesh_site) and mesh must leave alone
	if [ "${PF_VM_STORAGE:-0}" = 1 ]; then
		s=$((R + 1))
		dev=$(mesh_dev $s) || { echo "rig: no NIC on the storage segment"; return 1; }
		$T ip link set "$dev" mtu 4200 &&
			$T ip addr add "$(mesh_ip $s "$I")/24" dev "$dev" &&
			$T ip link set "$dev" up &&
			$T rdma link add "rxe$R" type rxe netdev "$dev" &&
			rig_rate "$dev" 8mbit || return 1
		devs="$devs rxe$R"
	fi
	# shellcheck disable=SC2086
	rig_wait_active $devs
}

# mesh_site FILE: the rig's site config: rxe0..rxe(R-1) are the compute
# rails, rxeR (PF_VM_STORAGE) storage (docs/rails.md; VMs have no GPU and
# rxe reports veth's nominal rate for every port, so the roles are declared)
mesh_site() {
	r=1 compute="rxe0"
	while [ $r -lt "$R" ]; do compute="$compute,rxe$r"; r=$((r + 1)); done
	printf '{ "set": { "rails.compute": "%s", "rails.storage": "rxe%s" } }\n' \
		"$compute" "$R" > "$1"
}

# mesh_wait_peers: every other VM answers on mgmt (within 120 s).
mesh_wait_peers() {
	j=1
	while [ $j -le "$N" ]; do
		k=0
		while [ $j != "$I" ] && ! /bin/busybox ping -c 1 -W 1 "$(mesh_ip 0 $j)" >/dev/null 2>&1; do
			k=$((k + 1))
			[ $k -gt 120 ] && { echo "rig: vm$j does not answer"; return 1; }
		done
		j=$((j + 1))
	done
}

# Faults on what this VM sends, undone by mesh_clear.
mesh_slow_rail() { rig_rate "$(mesh_dev "$1")" "$2"; }      # RAIL RATE
mesh_slow_node() { r=1; while [ $r -le "$R" ]; do mesh_slow_rail $r "$1" || return 1; r=$((r + 1)); done; }
mesh_drop_to() { # RAIL VM: drop everything this VM sends to VM on RAIL
	dev=$(mesh_dev "$1")
	$T tc qdisc replace dev "$dev" root handle 1: prio &&
	$T tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 \
		match ip dst "$(mesh_ip "$1" "$2")/32" action drop
}
# mesh_barrier NAME: every VM reached NAME (a file per VM in /vmshare,
# within 150 s); 1 after saying FAIL when one did not.
mesh_barrier() {
	: > "/vmshare/barrier-$1.vm$I"
	k=0
	while [ "$(ls /vmshare | grep -c "^barrier-$1\.vm")" -lt "$N" ]; do
		k=$((k + 1))
		[ $k -gt 300 ] && { echo "FAIL: barrier $1"; FAILS=$((FAILS + 1)); return 1; }
		sleep 0.5
	done
}

# mesh_swap_rails: this VM's two rail cables in each other's segment: rxe0
# over the NIC on rail segment 2, rxe1 over segment 1, each NIC keeping its
# segment's subnet (as a site that addresses by leaf would give it), so its
# rail 0 sits in the others' rail-1 subnet (fleet: miswired, rails 0<->1).
mesh_swap_rails() {
	$T rdma link delete rxe0 && $T rdma link delete rxe1 &&
		$T rdma link add rxe0 type rxe netdev "$(mesh_dev 2)" &&
		$T rdma link add rxe1 type rxe netdev "$(mesh_dev 1)" &&
		rig_wait_active rxe0 rxe1
}
mesh_clear() { r=1; while [ $r -le "$R" ]; do rig_clear "$(mesh_dev $r)"; r=$((r + 1)); done; }
