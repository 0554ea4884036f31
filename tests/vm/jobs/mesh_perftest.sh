# The multi-VM rig itself (run-vms.sh, 3 VMs): every VM's rails come up on
# the switches, and ib_write_bw over rxe carries every direction between
# the VMs on rail 1 (each VM serves each peer on its own port, then sends
# to each peer).  Prints MB/s per direction; fails on a direction that did
# not run.
. "$PF_SRC/tests/vm/guest-mesh.sh"
mesh_net || exit 1
mesh_wait_peers || exit 1
opts="-d rxe0 -x 1 -s 65536 -n 200 -F -u 20"
j=1
while [ $j -le "$N" ]; do
	[ $j != "$I" ] && timeout 200 ib_write_bw $opts -p $((18500 + j)) > "/vmwork/srv_$j.log" 2>&1 &
	j=$((j + 1))
done
sleep 3
j=1
while [ $j -le "$N" ]; do
	if [ $j != "$I" ]; then
		ok=0
		for try in 1 2 3 4 5 6 7 8 9 10; do
			if $T ib_write_bw $opts -p $((18500 + I)) "$(mesh_ip 1 $j)" \
				> "/vmwork/cli_$j.log" 2>&1; then ok=1; break; fi
			sleep 3
		done
		mbs=$(awk '$1 == 65536 { print $4 }' "/vmwork/cli_$j.log")
		if [ $ok = 1 ] && [ -n "$mbs" ]; then
			echo "ok vm$I -> vm$j rail 1: $mbs MB/s"
		else
			echo "FAIL vm$I -> vm$j rail 1: ib_write_bw did not run"; tail -5 "/vmwork/cli_$j.log"
			FAILS=$((FAILS + 1))
		fi
	fi
	j=$((j + 1))
done
wait
finish
