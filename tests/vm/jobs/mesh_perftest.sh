# The multi-VM rig itself (run-vms.sh, 3 VMs) with plain perftest, before
# any preflight: ib_write_bw over rxe on rail 1 in all six directions (each
# VM serves each peer on its own ports, then sends to each peer), in three
# phases that every VM enters together (a barrier of files in /vmshare):
#   healthy    nothing injected
#   slow_rail  vm2's rail 1 shaped to 10 Mbit/s (mesh_slow_rail: its data,
#              not its ACKs): vm2's sends slow, what it receives not
#   dead_path  vm1 and vm3 drop what they send each other on rail 1
# Each VM writes "PHASE SRC DST MB/s|fail" lines to /vmwork/perf.txt;
# mesh_perftest.host.sh judges them within the run.
#
# A direction gets three tries, each against a server of its own (port
# BASE + 10*TRY + SRC, all listening from the phase's start): an ib_write_bw
# server serves one client, so a try that hung (three TCG guests on two host
# cores now and then stall a flow past the client's 15 s) must not leave the
# retries knocking on a server still busy with it.  A client that cannot
# reach its server yet (still starting) asks again, for up to 30 s.
# A run perftest could not time (its CPU-clock estimate fails under TCG:
# "Correlation coefficient r^2 < 0.9", then 0.00 MB/s) is a failed try.
. "$PF_SRC/tests/vm/guest-mesh.sh"
mesh_net || exit 1
mesh_wait_peers || exit 1
opts="-d rxe0 -x 1 -s 65536 -D 2 -t 16 -Q 8 -F -u 20"
TRIES=3
: > /vmwork/perf.txt

barrier() { # NAME: every VM reached NAME (within 150 s)
	: > "/vmshare/$1.vm$I"
	k=0
	while [ "$(ls /vmshare | grep -c "^$1\.vm")" -lt "$N" ]; do
		k=$((k + 1))
		[ $k -gt 300 ] && { echo "FAIL: barrier $1"; FAILS=$((FAILS + 1)); return 1; }
		sleep 0.5
	done
}

# rxe0's non-zero hw_counters and rail 1's netdev statistics
counters() {
	for f in /sys/class/infiniband/rxe0/ports/1/hw_counters/* "/sys/class/net/$(mesh_dev 1)"/statistics/*; do
		v=$(cat "$f") && [ "$v" != 0 ] && echo "$(basename "$f") $v"
	done
	return 0
}

send() { # PHASE PEER BASE: prints MB/s to PEER, or fail
	t=1
	while [ $t -le $TRIES ]; do
		log="/vmwork/$1_cli_$2.$t.log"
		k=0
		while :; do
			rc=0
			timeout 15 stdbuf -oL ib_write_bw $opts -p $(($3 + 10 * t + I)) \
				"$(mesh_ip 1 "$2")" > "$log" 2>&1 || rc=$?
			[ $rc != 0 ] && grep -q "Couldn't connect" "$log" && [ $k -lt 30 ] || break
			k=$((k + 1))
			sleep 1
		done
		mbs=$(awk '$1 == 65536 && $4 + 0 > 0 { print $4 }' "$log")
		[ -n "$mbs" ] && { echo "$mbs"; return 0; }
		why=$(grep -v '^ \|^-\|^Warning' "$log" | tail -n 1)
		[ $rc = 124 ] && why="no result within 15 s"
		echo "$(rig_uptime) $1 vm$I vm$2 try $t failed (exit $rc): ${why:-no result line}" >&2
		t=$((t + 1))
	done
	echo fail
}

phase() { # NAME PORT_BASE
	barrier "$1.start"
	echo "$(rig_uptime) $1 starts"
	j=1
	while [ $j -le "$N" ]; do # a server per peer and try, all listening from the start
		t=1
		while [ $j != "$I" ] && [ $t -le $TRIES ]; do
			timeout 180 stdbuf -oL ib_write_bw $opts -p $(($2 + 10 * t + j)) \
				> "/vmwork/$1_srv_$j.$t.log" 2>&1 &
			t=$((t + 1))
		done
		j=$((j + 1))
	done
	j=1
	while [ $j -le "$N" ]; do
		[ $j != "$I" ] && echo "$1 vm$I vm$j $(send "$1" $j "$2")" | tee -a /vmwork/perf.txt
		j=$((j + 1))
	done
	barrier "$1.sent"
	echo "$(rig_uptime) $1 sent"
	pkill -x ib_write_bw
	wait
	counters > "/vmwork/$1.counters"
	mesh_clear
}

phase healthy 18500
[ "$I" = 2 ] && mesh_slow_rail 1 10mbit
phase slow_rail 18600
[ "$I" = 1 ] && mesh_drop_to 1 3
[ "$I" = 3 ] && mesh_drop_to 1 1
phase dead_path 18700
finish
