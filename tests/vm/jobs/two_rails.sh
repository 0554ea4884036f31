# Two rails cabled to each other (veth0/rxe0 <-> veth1/rxe1), healthy: the
# static checks pass on a provisioned rig, both traffic checks pass with
# figures, port_errors reads rxe's hw_counters, link_health and nic_health
# skip with the kernel's answer, a snapshot is written for the host to judge
# offline, and ib_write_bw runs like for like (one way, then both ways at
# once beside fabric_loopback: bench/fabric-vs-perftest.sh).
. "$PF_SRC/tests/vm/guest-net.sh"
rig_two_rails || exit 1
rig_tune

rig_preflight /vmwork/static.json --profile "$PROFILE" --only "$STATIC"
expect check /vmwork/static.json nic_link_speed pass,warn
expect check /vmwork/static.json sysctl pass,warn
expect check /vmwork/static.json port_errors pass,warn
expect contains /vmwork/static.json port_errors 'rcvd_seq_err|retry_exceeded_err|completer_retry_err'
expect no-finding /vmwork/static.json port_errors . error
for c in memlock pfc_pause dcqcn; do expect check /vmwork/static.json $c pass,warn,skip; done

# issue 34 on the rig's real kernel (Debian 12): veth answers the ethtool FEC and
# module EEPROM requests "not supported" and has no PHY counters, and rxe has no
# PCI function for devlink: each a skip quoting why, never a fail
rig_preflight /vmwork/links.json --profile "$PROFILE" --only link_health,nic_health,pcie_aer \
	--set link_health.window_ms=200
expect check /vmwork/links.json link_health skip
expect finding /vmwork/links.json link_health '/fec$' skip 'not supported by the driver \(kernel: '
expect finding /vmwork/links.json link_health '/module$' skip 'not supported by the driver'
expect finding /vmwork/links.json link_health '/phy$' skip 'no PHY error counters'
expect check /vmwork/links.json nic_health skip
expect check /vmwork/links.json pcie_aer pass,skip

rig_preflight /vmwork/traffic.json --profile "$PROFILE" --only fabric_loopback,gdr_loopback
expect check /vmwork/traffic.json fabric_loopback pass
expect finding /vmwork/traffic.json fabric_loopback 'rxe0/1 -> rxe1/1' pass
expect finding /vmwork/traffic.json fabric_loopback 'rxe1/1 -> rxe0/1' pass
expect check /vmwork/traffic.json gdr_loopback pass
expect finding /vmwork/traffic.json gdr_loopback '^rxe0/1' pass
expect finding /vmwork/traffic.json gdr_loopback '^rxe1/1' pass
expect figures /vmwork/traffic.json fabric_loopback
expect figures /vmwork/traffic.json gdr_loopback

# the snapshot the host judges with --root (two_rails.host.sh), and the live
# verdicts it must reproduce
$T_LONG "$PF_BUILD/preflight" snapshot /vmwork/snap > /vmwork/snapshot.log 2>&1 ||
	{ echo "FAIL: preflight snapshot"; cat /vmwork/snapshot.log; FAILS=$((FAILS + 1)); }
rig_preflight /vmwork/live.json --profile "$PROFILE" --only "$STATIC"

# like for like with perftest: one direction, the same size, depth and
# signalling as the rig profile
sz=65536 n=2000
perf() { # perf LOG [ib_write_bw options]: server on rxe1, client on rxe0
	log=$1
	shift
	$T ib_write_bw -d rxe1 -x 1 -s $sz -t 16 -Q 8 -n $n -F -u 20 "$@" > /vmwork/perf_srv.log 2>&1 &
	for try in 1 2 3 4 5; do
		sleep 2
		$T ib_write_bw -d rxe0 -x 1 -s $sz -t 16 -Q 8 -n $n -F -u 20 "$@" 192.0.2.2 \
			> "$log" 2>&1 && break
	done
	wait
}
perf /vmwork/perf_uni.log
echo "like for like, $sz-byte WRITEs, depth 16, signalled every 8:"
echo "  ib_write_bw rxe0 -> rxe1 (MB/s avg): $(awk '$1 == '$sz' { print $4 }' /vmwork/perf_uni.log)"

# both directions at once, back to back (bench/fabric-vs-perftest.sh):
# ib_write_bw -b and fabric_loopback's two flows, same size, depth,
# signalling and WR count, no warm-up; both figures and the ratio are
# printed, only that both tools ran is asserted (a rate is not judged here)
$T_LONG sh "$PF_SRC/bench/fabric-vs-perftest.sh" -s rxe1 -c rxe0 -m $sz -t 16 -q 8 -n $n \
	-x 1 -u 20 -W -r -T 60000 -b "$PF_BUILD/preflight" > /vmwork/bench.log 2>&1
rc=$?
sed 's/^/  /' /vmwork/bench.log
if [ "$rc" -eq 0 ] && grep -q '^ratio ' /vmwork/bench.log; then
	echo "ok: bench/fabric-vs-perftest.sh ran both tools"
else
	echo "FAIL: bench/fabric-vs-perftest.sh exit $rc"
	FAILS=$((FAILS + 1))
fi
finish
