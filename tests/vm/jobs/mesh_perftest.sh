# The multi-VM rig itself (run-vms.sh, 3 VMs) with plain perftest, before
# any preflight: ib_write_bw over rxe on rail 1 in all six directions (each
# VM serves each peer on its own port, then sends to each peer), in three
# phases that every VM enters together (a barrier of files in /vmshare):
#   healthy    nothing injected
#   slow_rail  vm2's rail 1 shaped to 10 Mbit/s (mesh_slow_rail: its data,
#              not its ACKs): vm2's sends slow, what it receives not
#   dead_path  vm1 and vm3 drop what they send each other on rail 1
# Each VM writes "PHASE SRC DST MB/s|fail" lines to /vmwork/perf.txt;
# mesh_perftest.host.sh judges them within the run.
. "$PF_SRC/tests/vm/guest-mesh.sh"
mesh_net || exit 1
mesh_wait_peers || exit 1
opts="-d rxe0 -x 1 -s 65536 -D 2 -t 16 -Q 8 -F -u 20"
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

phase() { # NAME PORT_BASE
	barrier "$1.start"
	srv=""
	j=1
	while [ $j -le "$N" ]; do
		if [ $j != "$I" ]; then
			timeout 60 ib_write_bw $opts -p $(($2 + j)) > "/vmwork/$1_srv_$j.log" 2>&1 &
			srv="$srv $!"
		fi
		j=$((j + 1))
	done
	sleep 2
	j=1
	while [ $j -le "$N" ]; do
		if [ $j != "$I" ]; then
			mbs=fail
			for try in 1 2 3; do
				if timeout 15 ib_write_bw $opts -p $(($2 + I)) "$(mesh_ip 1 $j)" \
					> "/vmwork/$1_cli_$j.log" 2>&1; then
					mbs=$(awk '$1 == 65536 { print $4 }' "/vmwork/$1_cli_$j.log")
					break
				fi
				sleep 2
			done
			echo "$1 vm$I vm$j ${mbs:-fail}" | tee -a /vmwork/perf.txt
		fi
		j=$((j + 1))
	done
	barrier "$1.sent"
	for p in $srv; do kill "$p" 2>/dev/null; done
	wait
	mesh_clear
}

phase healthy 18500
[ "$I" = 2 ] && mesh_slow_rail 1 10mbit
phase slow_rail 18600
[ "$I" = 1 ] && mesh_drop_to 1 3
[ "$I" = 3 ] && mesh_drop_to 1 1
phase dead_path 18700
finish
