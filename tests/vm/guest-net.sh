# Guest-side network setups of the soft-RoCE rig (sourced by jobs inside the
# VM).  Every command is bounded by its own timeout.
T="timeout 20"

rig_modules() {
	for m in rdma_rxe ib_uverbs rdma_ucm veth bridge sch_netem sch_tbf; do
		$T modprobe "$m" || { echo "rig: modprobe $m failed"; return 1; }
	done
}

# The sysctls a multi-rail node with rails in one subnet needs (the policy
# routing below sends locally generated traffic out of the source's rail).
rig_rail_sysctls() {
	$T sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	$T sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	$T sysctl -qw net.ipv4.conf.all.accept_local=1
	for dev in "$@"; do
		$T sysctl -qw "net.ipv4.conf.$dev.rp_filter=0" "net.ipv4.conf.$dev.accept_local=1" \
			"net.ipv4.conf.$dev.arp_ignore=1" "net.ipv4.conf.$dev.arp_announce=2"
	done
}

# rig_policy DEV:ADDR ...  Rail i (table 100+i) sends what it sources out of
# its own netdev; traffic to a rail's address with no source bound leaves by
# the next rail; the local table moves behind these rules.
rig_policy() {
	n=$#
	i=1
	for r in "$@"; do
		dev=${r%%:*} addr=${r#*:}
		$T ip rule add pref 50 from "$addr" to "$addr" lookup local
		$T ip rule add pref $((100 + i)) from "$addr" iif lo lookup $((100 + i))
		$T ip route add 192.0.2.0/24 dev "$dev" src "$addr" table $((100 + i))
		i=$((i + 1))
	done
	i=1
	for r in "$@"; do
		addr=${r#*:}
		next=$((i % n + 1))
		$T ip rule add pref $((200 + i)) to "$addr" iif lo lookup $((100 + next))
		i=$((i + 1))
	done
	$T ip rule add pref 1000 lookup local
	$T ip rule del pref 0
}

# Two rails cabled to each other: veth0 (192.0.2.1, rxe0) <-> veth1
# (192.0.2.2, rxe1).
rig_two_rails() {
	rig_modules || return 1
	$T ip link add veth0 mtu 4200 type veth peer name veth1 mtu 4200
	$T ip addr add 192.0.2.1/24 dev veth0
	$T ip addr add 192.0.2.2/24 dev veth1
	rig_rail_sysctls veth0 veth1
	$T ip link set veth0 up
	$T ip link set veth1 up
	rig_policy veth0:192.0.2.1 veth1:192.0.2.2
	$T rdma link add rxe0 type rxe netdev veth0
	$T rdma link add rxe1 type rxe netdev veth1
	rig_wait_active rxe0 rxe1
}

# rig_no_ipv4 DEV...: the rails lose their IPv4 addresses (no IPoIB, in RoCE
# terms); their IPv6 link-local addresses stay (DAD done), and as
# rig_policy does for IPv4, what a rail sources leaves by its own netdev
# (to itself: the local table, a port's loopback) and the local table moves
# behind, so rxe0 and rxe1 of one VM reach each other over the cable, not lo.
rig_no_ipv4() {
	i=1
	for dev in "$@"; do
		$T sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=0" "net.ipv6.conf.$dev.accept_dad=0"
		$T ip -4 addr flush dev "$dev"
	done
	for dev in "$@"; do
		k=0
		until ll=$(ip -6 -o addr show dev "$dev" scope link | awk '{print $4}' | cut -d/ -f1) &&
			[ -n "$ll" ] && ! ip -6 -o addr show dev "$dev" | grep -q tentative; do
			k=$((k + 1))
			[ $k -gt 50 ] && { echo "FAIL: $dev has no IPv6 link-local address"; return 1; }
			sleep 0.2
		done
		$T ip -6 rule add pref 50 from "$ll" to "$ll" lookup local
		$T ip -6 rule add pref $((100 + i)) from "$ll" iif lo lookup $((100 + i))
		$T ip -6 route add fe80::/64 dev "$dev" table $((100 + i))
		i=$((i + 1))
	done
	$T ip -6 rule add pref 1000 lookup local
	$T ip -6 rule del pref 0
	ip -6 rule show
	sleep 1 # the GID table follows the addresses
}

# Four rails on one Linux bridge (the switch): railN (192.0.2.N, rxeN-1)
# <-> swN, a bridge port.
rig_four_rails() {
	rig_modules || return 1
	$T ip link add br0 type bridge
	$T ip link set br0 mtu 4200 up
	rails=""
	for n in 1 2 3 4; do
		$T ip link add "rail$n" mtu 4200 type veth peer name "sw$n" mtu 4200
		$T ip link set "sw$n" master br0 up
		$T ip addr add "192.0.2.$n/24" dev "rail$n"
		rails="$rails rail$n:192.0.2.$n"
	done
	rig_rail_sysctls rail1 rail2 rail3 rail4
	for n in 1 2 3 4; do $T ip link set "rail$n" up; done
	# shellcheck disable=SC2086
	rig_policy $rails
	for n in 1 2 3 4; do
		$T rdma link add "rxe$((n - 1))" type rxe netdev "rail$n"
	done
	rig_wait_active rxe0 rxe1 rxe2 rxe3
}

rig_wait_active() {
	for d in "$@"; do
		k=0
		while [ "$(cat /sys/class/infiniband/$d/ports/1/state 2>/dev/null)" != "4: ACTIVE" ]; do
			k=$((k + 1))
			[ $k -gt 50 ] && { echo "rig: $d did not become ACTIVE"; return 1; }
			sleep 0.2
		done
	done
}

# preflight from the build tree, JSON to FILE; extra arguments follow.
rig_preflight() {
	out=$1
	shift
	$T_LONG "$PF_BUILD/preflight" --format json --no-config --output "$out" "$@"
}
T_LONG="timeout 200"

# Socket buffers and backlog as a provisioned node has them (sysctl check).
rig_tune() {
	$T sysctl -qw net.core.rmem_max=16777216 net.core.wmem_max=16777216 \
		net.core.rmem_default=16777216 net.core.wmem_default=16777216 \
		net.core.netdev_max_backlog=250000 \
		"net.ipv4.tcp_rmem=4096 87380 16777216" "net.ipv4.tcp_wmem=4096 65536 16777216"
}

# Assertions: each prints ok/FAIL; FAILS counts the failures.
FAILS=0
expect() {
	$T python3 "$PF_SRC/tests/vm/report.py" "$@" || FAILS=$((FAILS + 1))
}
finish() {
	echo "rig: $FAILS assertion(s) failed"
	[ "$FAILS" -eq 0 ]
}
# the rig's profile, copied to root's own 0644 file in a 0755 directory:
# preflight refuses, as root, a profile (or its directory) others may
# write, and a checkout's modes are its umask's
PROFILE=/run/pf-rig/rig.json
mkdir -p -m 0755 /run/pf-rig && cp "$PF_SRC/tests/vm/rig.json" "$PROFILE" &&
	chmod 0644 "$PROFILE" ||
	echo "FAIL: cannot copy the rig's profile to $PROFILE"
STATIC=memlock,sysctl,nic_link_speed,port_errors,pfc_pause,dcqcn,pcie_link,gpu_inventory,nvidia_peermem,gpu_nic_numa,nccl_config

rig_uptime() { cut -d' ' -f1 /proc/uptime; }   # seconds since boot, for job logs

# Faults on a rail's cable, each undone by rig_clear DEV.  tc acts on what
# DEV sends (one direction); the peer's sends are untouched.
rig_loss() { $T tc qdisc replace dev "$1" root netem loss "$2"; }       # DEV PCT%
rig_delay() { $T tc qdisc replace dev "$1" root netem delay "$2"; }     # DEV 20ms
# rig_rate DEV RATE: DEV's data packets through tbf (a queue deep enough to
# slow without dropping), its small packets (IPv4 total length or IPv6
# payload length < 256: RoCE ACKs, ARP and neighbour discovery) around it, so that only what DEV sends is slow and the
# ACKs of what it receives do not queue behind its data.
rig_rate() {
	$T tc qdisc replace dev "$1" root handle 1: prio &&
	$T tc qdisc add dev "$1" parent 1:2 handle 20: tbf rate "$2" burst 64kbit latency 2s &&
	$T tc filter add dev "$1" parent 1: protocol ip prio 1 u32 \
		match u16 0x0000 0xff00 at 2 flowid 1:1 &&
	$T tc filter add dev "$1" parent 1: protocol ipv6 prio 2 u32 \
		match u16 0x0000 0xff00 at 4 flowid 1:1
}
rig_clear() { $T tc qdisc del dev "$1" root 2>/dev/null || true; }
rig_down() { $T ip link set "$1" down; }                                # DEV
rig_mtu_mismatch() { $T ip link set "$1" mtu "${2:-1500}"; }            # DEV [MTU]
rig_arp_break() { # DEV...: the defaults that break rails in one subnet
	for d in all "$@"; do
		$T sysctl -qw "net.ipv4.conf.$d.arp_ignore=0" "net.ipv4.conf.$d.rp_filter=1"
	done
}
