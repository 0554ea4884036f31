# Four rails on a Linux bridge (the switch), healthy, then one rail's
# sending side shaped to 2 Mbit/s (tbf; queue deep enough not to drop):
# fabric_loopback names that rail and the direction (its sends are the
# slowest flows; its receives slow less, since only its ACKs are shaped),
# and the pairs without it still pass.
. "$PF_SRC/tests/vm/guest-net.sh"
rig_four_rails || exit 1
rig_tune

rig_preflight /vmwork/healthy.json --profile "$PROFILE" --only fabric_loopback
expect check /vmwork/healthy.json fabric_loopback pass
expect contains /vmwork/healthy.json fabric_loopback '4 RoCE rails'
python3 "$PF_SRC/tests/vm/report.py" gbps /vmwork/healthy.json fabric_loopback

$T tc qdisc add dev rail2 root tbf rate 2mbit burst 64kbit latency 2s
rig_preflight /vmwork/slow.json --profile "$PROFILE" --only fabric_loopback
expect check /vmwork/slow.json fabric_loopback fail
expect finding /vmwork/slow.json fabric_loopback '^rxe1/1 -> ' fail
expect finding /vmwork/slow.json fabric_loopback '^rxe1/1$' fail
expect slower /vmwork/slow.json fabric_loopback '^rxe1/1 -> ' ' -> rxe1/1$'
expect finding /vmwork/slow.json fabric_loopback '^rxe(0/1 -> rxe2|2/1 -> rxe0)/1$' pass
expect no-finding /vmwork/slow.json fabric_loopback '^rxe(0/1 -> rxe2|2/1 -> rxe0)/1$' fail
python3 "$PF_SRC/tests/vm/report.py" gbps /vmwork/slow.json fabric_loopback
$T tc qdisc del dev rail2 root
finish
